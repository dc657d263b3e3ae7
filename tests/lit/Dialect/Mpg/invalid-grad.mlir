// RUN: mpc-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the gradient ops that autodiff emits.

//===----------------------------------------------------------------------===//
// mpg.conv2d_grad_input, mpg.conv2d_grad_filter
//===----------------------------------------------------------------------===//

mpg.graph @conv2d_grad_input_element_type {
  %dy = mpg.input "dy" : tensor<8x16x28x28xf16>
  %w = mpg.input "w" : tensor<16x3x3x3xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_input' op expects operands and result of the same element type}}
  %dx = mpg.conv2d_grad_input %dy, %w padding [1, 1, 1, 1]
      : tensor<8x16x28x28xf16>, tensor<16x3x3x3xf32> -> tensor<8x3x28x28xf32>
}

// -----

mpg.graph @conv2d_grad_filter_element_type {
  %x = mpg.input "x" : tensor<8x3x28x28xf32>
  %dy = mpg.input "dy" : tensor<8x16x28x28xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_filter' op expects operands and result of the same element type}}
  %dw = mpg.conv2d_grad_filter %x, %dy padding [1, 1, 1, 1]
      : tensor<8x3x28x28xf32>, tensor<8x16x28x28xf32> -> tensor<16x3x3x3xbf16>
}

// -----

mpg.graph @conv2d_grad_input_rank3_filter {
  %dy = mpg.input "dy" : tensor<8x16x28x28xf32>
  %w = mpg.input "w" : tensor<16x3x3xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_input' op expects a rank-4 input [N, C, H, W] and a rank-4 filter [O, C/groups, kH, kW], got 8x3x28x28 and 16x3x3}}
  %dx = mpg.conv2d_grad_input %dy, %w
      : tensor<8x16x28x28xf32>, tensor<16x3x3xf32> -> tensor<8x3x28x28xf32>
}

// -----

mpg.graph @conv2d_grad_filter_rank3_input {
  %x = mpg.input "x" : tensor<3x28x28xf32>
  %dy = mpg.input "dy" : tensor<8x16x26x26xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_filter' op expects a rank-4 input [N, C, H, W] and a rank-4 filter [O, C/groups, kH, kW], got 3x28x28 and 16x3x3x3}}
  %dw = mpg.conv2d_grad_filter %x, %dy
      : tensor<3x28x28xf32>, tensor<8x16x26x26xf32> -> tensor<16x3x3x3xf32>
}

// -----

mpg.graph @conv2d_grad_input_stride_length {
  %dy = mpg.input "dy" : tensor<1x4x3x3xf32>
  %w = mpg.input "w" : tensor<4x2x3x3xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_input' op stride expects 2 values [h, w], got [2]}}
  %dx = mpg.conv2d_grad_input %dy, %w stride [2]
      : tensor<1x4x3x3xf32>, tensor<4x2x3x3xf32> -> tensor<1x2x8x8xf32>
}

// -----

mpg.graph @conv2d_grad_filter_zero_stride {
  %x = mpg.input "x" : tensor<1x2x8x8xf32>
  %dy = mpg.input "dy" : tensor<1x4x6x6xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_filter' op stride values must be >= 1, got [0, 1]}}
  %dw = mpg.conv2d_grad_filter %x, %dy stride [0, 1]
      : tensor<1x2x8x8xf32>, tensor<1x4x6x6xf32> -> tensor<4x2x3x3xf32>
}

// -----

mpg.graph @conv2d_grad_input_dilation_length {
  %dy = mpg.input "dy" : tensor<1x4x6x6xf32>
  %w = mpg.input "w" : tensor<4x2x3x3xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_input' op dilation expects 2 values [h, w], got [1, 1, 1]}}
  %dx = mpg.conv2d_grad_input %dy, %w dilation [1, 1, 1]
      : tensor<1x4x6x6xf32>, tensor<4x2x3x3xf32> -> tensor<1x2x8x8xf32>
}

// -----

mpg.graph @conv2d_grad_filter_zero_dilation {
  %x = mpg.input "x" : tensor<1x2x8x8xf32>
  %dy = mpg.input "dy" : tensor<1x4x6x6xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_filter' op dilation values must be >= 1, got [1, 0]}}
  %dw = mpg.conv2d_grad_filter %x, %dy dilation [1, 0]
      : tensor<1x2x8x8xf32>, tensor<1x4x6x6xf32> -> tensor<4x2x3x3xf32>
}

// -----

mpg.graph @conv2d_grad_input_padding_length {
  %dy = mpg.input "dy" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<4x2x3x3xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_input' op padding expects 4 values [top, left, bottom, right], got [1, 1]}}
  %dx = mpg.conv2d_grad_input %dy, %w padding [1, 1]
      : tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32> -> tensor<1x2x8x8xf32>
}

// -----

mpg.graph @conv2d_grad_filter_negative_padding {
  %x = mpg.input "x" : tensor<1x2x8x8xf32>
  %dy = mpg.input "dy" : tensor<1x4x6x5xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_filter' op padding values must be >= 0, got [0, -1, 0, 0]}}
  %dw = mpg.conv2d_grad_filter %x, %dy padding [0, -1, 0, 0]
      : tensor<1x2x8x8xf32>, tensor<1x4x6x5xf32> -> tensor<4x2x3x3xf32>
}

// -----

mpg.graph @conv2d_grad_input_zero_groups {
  %dy = mpg.input "dy" : tensor<1x4x6x6xf32>
  %w = mpg.input "w" : tensor<4x2x3x3xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_input' op groups must be >= 1, got 0}}
  %dx = mpg.conv2d_grad_input %dy, %w groups 0
      : tensor<1x4x6x6xf32>, tensor<4x2x3x3xf32> -> tensor<1x2x8x8xf32>
}

// -----

mpg.graph @conv2d_grad_filter_negative_groups {
  %x = mpg.input "x" : tensor<1x2x8x8xf32>
  %dy = mpg.input "dy" : tensor<1x4x6x6xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_filter' op groups must be >= 1, got -2}}
  %dw = mpg.conv2d_grad_filter %x, %dy groups -2
      : tensor<1x2x8x8xf32>, tensor<1x4x6x6xf32> -> tensor<4x2x3x3xf32>
}

// -----

mpg.graph @conv2d_grad_input_groups_input_channels {
  %dy = mpg.input "dy" : tensor<1x6x6x6xf32>
  %w = mpg.input "w" : tensor<6x1x3x3xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_input' op groups 3 must divide the input channels (4) and the output channels (6)}}
  %dx = mpg.conv2d_grad_input %dy, %w groups 3
      : tensor<1x6x6x6xf32>, tensor<6x1x3x3xf32> -> tensor<1x4x8x8xf32>
}

// -----

mpg.graph @conv2d_grad_filter_groups_output_channels {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %dy = mpg.input "dy" : tensor<1x6x6x6xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_filter' op groups 4 must divide the input channels (4) and the output channels (6)}}
  %dw = mpg.conv2d_grad_filter %x, %dy groups 4
      : tensor<1x4x8x8xf32>, tensor<1x6x6x6xf32> -> tensor<6x1x3x3xf32>
}

// -----

mpg.graph @conv2d_grad_input_filter_channels {
  %dy = mpg.input "dy" : tensor<1x8x6x6xf32>
  %w = mpg.input "w" : tensor<8x3x3x3xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_input' op filter expects 6 input channels (dim 1 times groups) but the input has 4}}
  %dx = mpg.conv2d_grad_input %dy, %w groups 2
      : tensor<1x8x6x6xf32>, tensor<8x3x3x3xf32> -> tensor<1x4x8x8xf32>
}

// -----

mpg.graph @conv2d_grad_filter_filter_channels {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %dy = mpg.input "dy" : tensor<1x8x6x6xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_filter' op filter expects 8 input channels (dim 1 times groups) but the input has 4}}
  %dw = mpg.conv2d_grad_filter %x, %dy
      : tensor<1x4x8x8xf32>, tensor<1x8x6x6xf32> -> tensor<8x8x3x3xf32>
}

// -----

// Extent dilation * (k - 1) + 1 = 5 against a height of 4 (no padding).
mpg.graph @conv2d_grad_input_window_height {
  %dy = mpg.input "dy" : tensor<1x4x1x6xf32>
  %w = mpg.input "w" : tensor<4x2x3x3xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_input' op window of extent 5 does not fit in height 4 padded to 4}}
  %dx = mpg.conv2d_grad_input %dy, %w dilation [2, 1]
      : tensor<1x4x1x6xf32>, tensor<4x2x3x3xf32> -> tensor<1x2x4x8xf32>
}

// -----

mpg.graph @conv2d_grad_filter_window_width {
  %x = mpg.input "x" : tensor<1x2x8x2xf32>
  %dy = mpg.input "dy" : tensor<1x4x6x1xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_filter' op window of extent 5 does not fit in width 2 padded to 3}}
  %dw = mpg.conv2d_grad_filter %x, %dy padding [0, 0, 0, 1]
      : tensor<1x2x8x2xf32>, tensor<1x4x6x1xf32> -> tensor<4x2x3x5xf32>
}

// -----

// dilation * (kernel - 1) + 1 does not fit in int64.
mpg.graph @conv2d_grad_input_dilation_overflow {
  %dy = mpg.input "dy" : tensor<1x1x5x5xf32>
  %w = mpg.input "w" : tensor<1x1x3x3xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_input' op window size or padding overflows 64-bit integers}}
  %dx = mpg.conv2d_grad_input %dy, %w dilation [4611686018427387904, 1]
      : tensor<1x1x5x5xf32>, tensor<1x1x3x3xf32> -> tensor<1x1x4x4xf32>
}

// -----

// height + top + bottom does not fit in int64.
mpg.graph @conv2d_grad_filter_padding_overflow {
  %x = mpg.input "x" : tensor<1x1x4x4xf32>
  %dy = mpg.input "dy" : tensor<1x1x5x5xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_filter' op window size or padding overflows 64-bit integers}}
  %dw = mpg.conv2d_grad_filter %x, %dy padding [9223372036854775807, 0, 0, 0]
      : tensor<1x1x4x4xf32>, tensor<1x1x5x5xf32> -> tensor<1x1x3x3xf32>
}

// -----

mpg.graph @conv2d_grad_input_output_shape {
  %dy = mpg.input "dy" : tensor<8x16x26x26xf32>
  %w = mpg.input "w" : tensor<16x3x3x3xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_input' op expects the output gradient of shape 8x16x28x28, got 8x16x26x26}}
  %dx = mpg.conv2d_grad_input %dy, %w padding [1, 1, 1, 1]
      : tensor<8x16x26x26xf32>, tensor<16x3x3x3xf32> -> tensor<8x3x28x28xf32>
}

// -----

mpg.graph @conv2d_grad_filter_output_shape {
  %x = mpg.input "x" : tensor<2x4x9x9xf32>
  %dy = mpg.input "dy" : tensor<2x8x4x4xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_filter' op expects the output gradient of shape 2x8x4x5, got 2x8x4x4}}
  %dw = mpg.conv2d_grad_filter %x, %dy stride [2, 2] padding [0, 1, 2, 3] dilation [2, 2] groups 2
      : tensor<2x4x9x9xf32>, tensor<2x8x4x4xf32> -> tensor<8x2x3x3xf32>
}

// -----

// ODS: operands are float tensors.
mpg.graph @conv2d_grad_filter_integer_input {
  %x = mpg.input "x" : tensor<1x2x8x8xi32>
  %dy = mpg.input "dy" : tensor<1x4x6x6xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_filter' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<1x2x8x8xi32>'}}
  %dw = mpg.conv2d_grad_filter %x, %dy
      : tensor<1x2x8x8xi32>, tensor<1x4x6x6xf32> -> tensor<4x2x3x3xf32>
}

// -----

// ODS: groups is an i64 attribute, not an i32 one.
mpg.graph @conv2d_grad_input_i32_groups {
  %dy = mpg.input "dy" : tensor<1x4x6x6xf32>
  %w = mpg.input "w" : tensor<4x2x3x3xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_input' op attribute 'groups' failed to satisfy constraint: 64-bit signless integer attribute}}
  %dx = "mpg.conv2d_grad_input"(%dy, %w) <{groups = 1 : i32}>
      : (tensor<1x4x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x8x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// mpg.max_pool2d_grad, mpg.avg_pool2d_grad
//===----------------------------------------------------------------------===//

mpg.graph @max_pool2d_grad_result_type {
  %x = mpg.input "x" : tensor<8x16x28x28xf32>
  %dy = mpg.input "dy" : tensor<8x16x14x14xf32>
  // expected-error @+1 {{'mpg.max_pool2d_grad' op expects the result to have the forward input's type}}
  %dx = mpg.max_pool2d_grad %x, %dy kernel [2, 2]
      : tensor<8x16x28x28xf32>, tensor<8x16x14x14xf32> -> tensor<8x16x28x28xf16>
}

// -----

mpg.graph @max_pool2d_grad_element_type {
  %x = mpg.input "x" : tensor<8x16x28x28xf32>
  %dy = mpg.input "dy" : tensor<8x16x14x14xf16>
  // expected-error @+1 {{'mpg.max_pool2d_grad' op expects operands and result of the same element type}}
  %dx = mpg.max_pool2d_grad %x, %dy kernel [2, 2]
      : tensor<8x16x28x28xf32>, tensor<8x16x14x14xf16> -> tensor<8x16x28x28xf32>
}

// -----

mpg.graph @avg_pool2d_grad_element_type {
  %dy = mpg.input "dy" : tensor<8x16x14x14xf16>
  // expected-error @+1 {{'mpg.avg_pool2d_grad' op expects operands and result of the same element type}}
  %dx = mpg.avg_pool2d_grad %dy kernel [2, 2] : tensor<8x16x14x14xf16> -> tensor<8x16x28x28xf32>
}

// -----

mpg.graph @max_pool2d_grad_rank3_input {
  %x = mpg.input "x" : tensor<16x28x28xf32>
  %dy = mpg.input "dy" : tensor<16x14x14xf32>
  // expected-error @+1 {{'mpg.max_pool2d_grad' op expects a rank-4 input [N, C, H, W], got 16x28x28}}
  %dx = mpg.max_pool2d_grad %x, %dy kernel [2, 2]
      : tensor<16x28x28xf32>, tensor<16x14x14xf32> -> tensor<16x28x28xf32>
}

// -----

mpg.graph @avg_pool2d_grad_rank2_result {
  %dy = mpg.input "dy" : tensor<14x14xf32>
  // expected-error @+1 {{'mpg.avg_pool2d_grad' op expects a rank-4 input [N, C, H, W], got 28x28}}
  %dx = mpg.avg_pool2d_grad %dy kernel [2, 2] : tensor<14x14xf32> -> tensor<28x28xf32>
}

// -----

mpg.graph @max_pool2d_grad_kernel_length {
  %x = mpg.input "x" : tensor<1x1x4x4xf32>
  %dy = mpg.input "dy" : tensor<1x1x2x2xf32>
  // expected-error @+1 {{'mpg.max_pool2d_grad' op kernel expects 2 values [h, w], got [2]}}
  %dx = mpg.max_pool2d_grad %x, %dy kernel [2]
      : tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32> -> tensor<1x1x4x4xf32>
}

// -----

mpg.graph @avg_pool2d_grad_zero_kernel {
  %dy = mpg.input "dy" : tensor<1x1x2x2xf32>
  // expected-error @+1 {{'mpg.avg_pool2d_grad' op kernel values must be >= 1, got [0, 2]}}
  %dx = mpg.avg_pool2d_grad %dy kernel [0, 2] : tensor<1x1x2x2xf32> -> tensor<1x1x4x4xf32>
}

// -----

mpg.graph @max_pool2d_grad_stride_length {
  %x = mpg.input "x" : tensor<1x1x4x4xf32>
  %dy = mpg.input "dy" : tensor<1x1x2x2xf32>
  // expected-error @+1 {{'mpg.max_pool2d_grad' op stride expects 2 values [h, w], got [2, 2, 2]}}
  %dx = mpg.max_pool2d_grad %x, %dy kernel [2, 2] stride [2, 2, 2]
      : tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32> -> tensor<1x1x4x4xf32>
}

// -----

mpg.graph @avg_pool2d_grad_negative_stride {
  %dy = mpg.input "dy" : tensor<1x1x2x2xf32>
  // expected-error @+1 {{'mpg.avg_pool2d_grad' op stride values must be >= 1, got [2, -1]}}
  %dx = mpg.avg_pool2d_grad %dy kernel [2, 2] stride [2, -1] : tensor<1x1x2x2xf32> -> tensor<1x1x4x4xf32>
}

// -----

mpg.graph @max_pool2d_grad_padding_length {
  %x = mpg.input "x" : tensor<1x1x4x4xf32>
  %dy = mpg.input "dy" : tensor<1x1x2x2xf32>
  // expected-error @+1 {{'mpg.max_pool2d_grad' op padding expects 4 values [top, left, bottom, right], got [1, 1, 1]}}
  %dx = mpg.max_pool2d_grad %x, %dy kernel [2, 2] padding [1, 1, 1]
      : tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32> -> tensor<1x1x4x4xf32>
}

// -----

mpg.graph @avg_pool2d_grad_negative_padding {
  %dy = mpg.input "dy" : tensor<1x1x2x2xf32>
  // expected-error @+1 {{'mpg.avg_pool2d_grad' op padding values must be >= 0, got [0, 0, -1, 0]}}
  %dx = mpg.avg_pool2d_grad %dy kernel [2, 2] padding [0, 0, -1, 0] : tensor<1x1x2x2xf32> -> tensor<1x1x4x4xf32>
}

// -----

mpg.graph @max_pool2d_grad_padding_not_below_kernel {
  %x = mpg.input "x" : tensor<1x1x4x4xf32>
  %dy = mpg.input "dy" : tensor<1x1x4x3xf32>
  // expected-error @+1 {{'mpg.max_pool2d_grad' op padding [1, 1, 2, 1] must be smaller than the kernel [2, 2]}}
  %dx = mpg.max_pool2d_grad %x, %dy kernel [2, 2] padding [1, 1, 2, 1]
      : tensor<1x1x4x4xf32>, tensor<1x1x4x3xf32> -> tensor<1x1x4x4xf32>
}

// -----

mpg.graph @avg_pool2d_grad_padding_not_below_kernel_width {
  %dy = mpg.input "dy" : tensor<1x1x2x3xf32>
  // expected-error @+1 {{'mpg.avg_pool2d_grad' op padding [0, 0, 0, 3] must be smaller than the kernel [2, 3]}}
  %dx = mpg.avg_pool2d_grad %dy kernel [2, 3] padding [0, 0, 0, 3] : tensor<1x1x2x3xf32> -> tensor<1x1x4x6xf32>
}

// -----

mpg.graph @max_pool2d_grad_window_height {
  %x = mpg.input "x" : tensor<1x1x2x8xf32>
  %dy = mpg.input "dy" : tensor<1x1x1x2xf32>
  // expected-error @+1 {{'mpg.max_pool2d_grad' op window of extent 3 does not fit in height 2 padded to 2}}
  %dx = mpg.max_pool2d_grad %x, %dy kernel [3, 3]
      : tensor<1x1x2x8xf32>, tensor<1x1x1x2xf32> -> tensor<1x1x2x8xf32>
}

// -----

mpg.graph @avg_pool2d_grad_window_width {
  %dy = mpg.input "dy" : tensor<1x1x2x1xf32>
  // expected-error @+1 {{'mpg.avg_pool2d_grad' op window of extent 4 does not fit in width 2 padded to 3}}
  %dx = mpg.avg_pool2d_grad %dy kernel [2, 4] padding [0, 1, 0, 0] : tensor<1x1x2x1xf32> -> tensor<1x1x4x2xf32>
}

// -----

// Padding below the kernel, but height + top + bottom does not fit in int64.
mpg.graph @avg_pool2d_grad_padding_overflow {
  %dy = mpg.input "dy" : tensor<1x1x1x4xf32>
  // expected-error @+1 {{'mpg.avg_pool2d_grad' op window size or padding overflows 64-bit integers}}
  %dx = mpg.avg_pool2d_grad %dy kernel [9223372036854775807, 1]
      padding [9223372036854775806, 0, 9223372036854775806, 0]
      : tensor<1x1x1x4xf32> -> tensor<1x1x4x4xf32>
}

// -----

mpg.graph @max_pool2d_grad_output_shape {
  %x = mpg.input "x" : tensor<8x16x28x28xf32>
  %dy = mpg.input "dy" : tensor<8x16x7x7xf32>
  // expected-error @+1 {{'mpg.max_pool2d_grad' op expects the output gradient of shape 8x16x14x14, got 8x16x7x7}}
  %dx = mpg.max_pool2d_grad %x, %dy kernel [2, 2]
      : tensor<8x16x28x28xf32>, tensor<8x16x7x7xf32> -> tensor<8x16x28x28xf32>
}

// -----

mpg.graph @avg_pool2d_grad_output_shape {
  %dy = mpg.input "dy" : tensor<8x16x14x14xf32>
  // expected-error @+1 {{'mpg.avg_pool2d_grad' op expects the output gradient of shape 8x16x28x28, got 8x16x14x14}}
  %dx = mpg.avg_pool2d_grad %dy kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1] count_include_pad
      : tensor<8x16x14x14xf32> -> tensor<8x16x28x28xf32>
}

// -----

// ODS: kernel is required (only the generic form can leave it out).
mpg.graph @avg_pool2d_grad_no_kernel {
  %dy = mpg.input "dy" : tensor<1x1x2x2xf32>
  // expected-error @+1 {{'mpg.avg_pool2d_grad' op requires attribute 'kernel'}}
  %dx = "mpg.avg_pool2d_grad"(%dy) : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
}

// -----

// ODS: the output gradient is a float tensor.
mpg.graph @max_pool2d_grad_integer_grad {
  %x = mpg.input "x" : tensor<1x1x4x4xf32>
  %dy = mpg.input "dy" : tensor<1x1x2x2xi64>
  // expected-error @+1 {{'mpg.max_pool2d_grad' op operand #1 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<1x1x2x2xi64>'}}
  %dx = mpg.max_pool2d_grad %x, %dy kernel [2, 2]
      : tensor<1x1x4x4xf32>, tensor<1x1x2x2xi64> -> tensor<1x1x4x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// mpg.batch_norm_grad
//===----------------------------------------------------------------------===//

mpg.graph @batch_norm_grad_rank1_input {
  %x = mpg.input "x" : tensor<8xf32>
  %gamma = mpg.input "gamma" : tensor<8xf32>
  // expected-error @+1 {{'mpg.batch_norm_grad' op expects an input of rank >= 2 [N, C, ...], got 8}}
  %dx, %dg, %db = mpg.batch_norm_grad %x, %gamma, %x
      : tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

mpg.graph @batch_norm_grad_gamma_shape {
  %x = mpg.input "x" : tensor<8x16x4x4xf32>
  %gamma = mpg.input "gamma" : tensor<8xf32>
  // expected-error @+1 {{'mpg.batch_norm_grad' op expects per-channel operands of shape 16, got 8}}
  %dx, %dg, %db = mpg.batch_norm_grad %x, %gamma, %x
      : tensor<8x16x4x4xf32>, tensor<8xf32>, tensor<8x16x4x4xf32>
      -> tensor<8x16x4x4xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

mpg.graph @batch_norm_grad_rank2_gamma {
  %x = mpg.input "x" : tensor<8x16xf32>
  %gamma = mpg.input "gamma" : tensor<1x16xf32>
  // expected-error @+1 {{'mpg.batch_norm_grad' op expects per-channel operands of shape 16, got 1x16}}
  %dx, %dg, %db = mpg.batch_norm_grad %x, %gamma, %x
      : tensor<8x16xf32>, tensor<1x16xf32>, tensor<8x16xf32>
      -> tensor<8x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>
}

// -----

mpg.graph @batch_norm_grad_zero_eps {
  %x = mpg.input "x" : tensor<8x16xf32>
  %gamma = mpg.input "gamma" : tensor<16xf32>
  // expected-error @+1 {{'mpg.batch_norm_grad' op expects a finite eps > 0}}
  %dx, %dg, %db = mpg.batch_norm_grad %x, %gamma, %x eps 0.0
      : tensor<8x16xf32>, tensor<16xf32>, tensor<8x16xf32>
      -> tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>
}

// -----

mpg.graph @batch_norm_grad_grad_output_type {
  %x = mpg.input "x" : tensor<8x16xf32>
  %gamma = mpg.input "gamma" : tensor<16xf32>
  %dy = mpg.input "dy" : tensor<8x16xf16>
  // expected-error @+1 {{'mpg.batch_norm_grad' op expects the output gradient to have the input's type}}
  %dx, %dg, %db = mpg.batch_norm_grad %x, %gamma, %dy
      : tensor<8x16xf32>, tensor<16xf32>, tensor<8x16xf16>
      -> tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>
}

// -----

mpg.graph @batch_norm_grad_grad_input_type {
  %x = mpg.input "x" : tensor<8x16xf32>
  %gamma = mpg.input "gamma" : tensor<16xf32>
  // expected-error @+1 {{'mpg.batch_norm_grad' op expects grad_input to have the input's type}}
  %dx, %dg, %db = mpg.batch_norm_grad %x, %gamma, %x
      : tensor<8x16xf32>, tensor<16xf32>, tensor<8x16xf32>
      -> tensor<16x8xf32>, tensor<16xf32>, tensor<16xf32>
}

// -----

mpg.graph @batch_norm_grad_grad_gamma_type {
  %x = mpg.input "x" : tensor<8x16xf32>
  %gamma = mpg.input "gamma" : tensor<16xf32>
  // expected-error @+1 {{'mpg.batch_norm_grad' op expects grad_gamma and grad_beta to have gamma's type}}
  %dx, %dg, %db = mpg.batch_norm_grad %x, %gamma, %x
      : tensor<8x16xf32>, tensor<16xf32>, tensor<8x16xf32>
      -> tensor<8x16xf32>, tensor<16xf16>, tensor<16xf32>
}

// -----

mpg.graph @batch_norm_grad_grad_beta_type {
  %x = mpg.input "x" : tensor<8x16xf32>
  %gamma = mpg.input "gamma" : tensor<16xf32>
  // expected-error @+1 {{'mpg.batch_norm_grad' op expects grad_gamma and grad_beta to have gamma's type}}
  %dx, %dg, %db = mpg.batch_norm_grad %x, %gamma, %x
      : tensor<8x16xf32>, tensor<16xf32>, tensor<8x16xf32>
      -> tensor<8x16xf32>, tensor<16xf32>, tensor<8xf32>
}

// -----

// ODS: gamma is a float tensor.
mpg.graph @batch_norm_grad_integer_gamma {
  %x = mpg.input "x" : tensor<8x16xf32>
  %gamma = mpg.input "gamma" : tensor<16xi32>
  // expected-error @+1 {{'mpg.batch_norm_grad' op operand #1 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<16xi32>'}}
  %dx, %dg, %db = mpg.batch_norm_grad %x, %gamma, %x
      : tensor<8x16xf32>, tensor<16xi32>, tensor<8x16xf32>
      -> tensor<8x16xf32>, tensor<16xi32>, tensor<16xi32>
}

// -----

//===----------------------------------------------------------------------===//
// mpg.layer_norm_grad
//===----------------------------------------------------------------------===//

mpg.graph @layer_norm_grad_rank0_input {
  %x = mpg.input "x" : tensor<f32>
  // expected-error @+1 {{'mpg.layer_norm_grad' op expects an operand of rank >= 1}}
  %dx, %dg, %db = mpg.layer_norm_grad %x, %x, %x
      : tensor<f32>, tensor<f32>, tensor<f32> -> tensor<f32>, tensor<f32>, tensor<f32>
}

// -----

mpg.graph @layer_norm_grad_axis_too_large {
  %x = mpg.input "x" : tensor<4x16x64xf32>
  %gamma = mpg.input "gamma" : tensor<64xf32>
  // expected-error @+1 {{'mpg.layer_norm_grad' op axis 3 is out of range for rank 3 (expected [-3, 3))}}
  %dx, %dg, %db = mpg.layer_norm_grad %x, %gamma, %x axis 3
      : tensor<4x16x64xf32>, tensor<64xf32>, tensor<4x16x64xf32>
      -> tensor<4x16x64xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

mpg.graph @layer_norm_grad_axis_too_small {
  %x = mpg.input "x" : tensor<4x16x64xf32>
  %gamma = mpg.input "gamma" : tensor<4x16x64xf32>
  // expected-error @+1 {{'mpg.layer_norm_grad' op axis -4 is out of range for rank 3 (expected [-3, 3))}}
  %dx, %dg, %db = mpg.layer_norm_grad %x, %gamma, %x axis -4
      : tensor<4x16x64xf32>, tensor<4x16x64xf32>, tensor<4x16x64xf32>
      -> tensor<4x16x64xf32>, tensor<4x16x64xf32>, tensor<4x16x64xf32>
}

// -----

mpg.graph @layer_norm_grad_negative_eps {
  %x = mpg.input "x" : tensor<4x64xf32>
  %gamma = mpg.input "gamma" : tensor<64xf32>
  // expected-error @+1 {{'mpg.layer_norm_grad' op expects a finite eps > 0}}
  %dx, %dg, %db = mpg.layer_norm_grad %x, %gamma, %x eps -1.0e-5
      : tensor<4x64xf32>, tensor<64xf32>, tensor<4x64xf32>
      -> tensor<4x64xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

// gamma has the shape of the normalised dimensions (here axis 1: 16x64).
mpg.graph @layer_norm_grad_gamma_shape {
  %x = mpg.input "x" : tensor<4x16x64xf32>
  %gamma = mpg.input "gamma" : tensor<64xf32>
  // expected-error @+1 {{of the normalised shape 16x64, got 64}}
  %dx, %dg, %db = mpg.layer_norm_grad %x, %gamma, %x axis 1
      : tensor<4x16x64xf32>, tensor<64xf32>, tensor<4x16x64xf32>
      -> tensor<4x16x64xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

mpg.graph @layer_norm_grad_grad_output_type {
  %x = mpg.input "x" : tensor<4x64xf32>
  %gamma = mpg.input "gamma" : tensor<64xf32>
  %dy = mpg.input "dy" : tensor<4x64xbf16>
  // expected-error @+1 {{'mpg.layer_norm_grad' op expects the output gradient to have the input's type}}
  %dx, %dg, %db = mpg.layer_norm_grad %x, %gamma, %dy
      : tensor<4x64xf32>, tensor<64xf32>, tensor<4x64xbf16>
      -> tensor<4x64xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

mpg.graph @layer_norm_grad_grad_input_type {
  %x = mpg.input "x" : tensor<4x64xf32>
  %gamma = mpg.input "gamma" : tensor<64xf32>
  // expected-error @+1 {{'mpg.layer_norm_grad' op expects grad_input to have the input's type}}
  %dx, %dg, %db = mpg.layer_norm_grad %x, %gamma, %x
      : tensor<4x64xf32>, tensor<64xf32>, tensor<4x64xf32>
      -> tensor<4x64xf16>, tensor<64xf32>, tensor<64xf32>
}

// -----

mpg.graph @layer_norm_grad_grad_beta_type {
  %x = mpg.input "x" : tensor<4x64xf32>
  %gamma = mpg.input "gamma" : tensor<64xf32>
  // expected-error @+1 {{'mpg.layer_norm_grad' op expects grad_gamma and grad_beta to have gamma's type}}
  %dx, %dg, %db = mpg.layer_norm_grad %x, %gamma, %x
      : tensor<4x64xf32>, tensor<64xf32>, tensor<4x64xf32>
      -> tensor<4x64xf32>, tensor<64xf32>, tensor<4x64xf32>
}

// -----

// ODS: axis is an i64 attribute, not an i32 one.
mpg.graph @layer_norm_grad_i32_axis {
  %x = mpg.input "x" : tensor<4x64xf32>
  %gamma = mpg.input "gamma" : tensor<64xf32>
  // expected-error @+1 {{'mpg.layer_norm_grad' op attribute 'axis' failed to satisfy constraint: 64-bit signless integer attribute}}
  %r:3 = "mpg.layer_norm_grad"(%x, %gamma, %x) <{axis = 1 : i32}>
      : (tensor<4x64xf32>, tensor<64xf32>, tensor<4x64xf32>)
      -> (tensor<4x64xf32>, tensor<64xf32>, tensor<64xf32>)
}

// -----

//===----------------------------------------------------------------------===//
// mpg.softmax_cross_entropy_grad
//===----------------------------------------------------------------------===//

mpg.graph @softmax_cross_entropy_grad_rank3_logits {
  %logits = mpg.input "logits" : tensor<4x3x2xf32>
  %labels = mpg.input "labels" : tensor<4xi32>
  %dloss = mpg.input "dloss" : tensor<f32>
  // expected-error @+1 {{'mpg.softmax_cross_entropy_grad' op expects logits of rank 2 [N, C], got 4x3x2}}
  %r = mpg.softmax_cross_entropy_grad %logits, %labels, %dloss
      : tensor<4x3x2xf32>, tensor<4xi32>, tensor<f32> -> tensor<4x3x2xf32>
}

// -----

mpg.graph @softmax_cross_entropy_grad_rank2_labels {
  %logits = mpg.input "logits" : tensor<4x3xf32>
  %labels = mpg.input "labels" : tensor<4x1xi32>
  %dloss = mpg.input "dloss" : tensor<f32>
  // expected-error @+1 {{'mpg.softmax_cross_entropy_grad' op expects labels of shape 4 (one per row of the logits), got 4x1}}
  %r = mpg.softmax_cross_entropy_grad %logits, %labels, %dloss
      : tensor<4x3xf32>, tensor<4x1xi32>, tensor<f32> -> tensor<4x3xf32>
}

// -----

mpg.graph @softmax_cross_entropy_grad_label_count {
  %logits = mpg.input "logits" : tensor<4x3xf32>
  %labels = mpg.input "labels" : tensor<5xi64>
  %dloss = mpg.input "dloss" : tensor<f32>
  // expected-error @+1 {{'mpg.softmax_cross_entropy_grad' op expects labels of shape 4 (one per row of the logits), got 5}}
  %r = mpg.softmax_cross_entropy_grad %logits, %labels, %dloss
      : tensor<4x3xf32>, tensor<5xi64>, tensor<f32> -> tensor<4x3xf32>
}

// -----

mpg.graph @softmax_cross_entropy_grad_result_type {
  %logits = mpg.input "logits" : tensor<4x3xf16>
  %labels = mpg.input "labels" : tensor<4xi32>
  %dloss = mpg.input "dloss" : tensor<f32>
  // expected-error @+1 {{'mpg.softmax_cross_entropy_grad' op expects the result to have the logits' type}}
  %r = mpg.softmax_cross_entropy_grad %logits, %labels, %dloss
      : tensor<4x3xf16>, tensor<4xi32>, tensor<f32> -> tensor<4x3xf32>
}

// -----

// ODS: the loss gradient is a rank-0 tensor.
mpg.graph @softmax_cross_entropy_grad_rank1_grad_loss {
  %logits = mpg.input "logits" : tensor<4x3xf32>
  %labels = mpg.input "labels" : tensor<4xi32>
  %dloss = mpg.input "dloss" : tensor<1xf32>
  // expected-error @+1 {{'mpg.softmax_cross_entropy_grad' op operand #2 must be 0D tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<1xf32>'}}
  %r = mpg.softmax_cross_entropy_grad %logits, %labels, %dloss
      : tensor<4x3xf32>, tensor<4xi32>, tensor<1xf32> -> tensor<4x3xf32>
}

// -----

// ODS: labels are integers.
mpg.graph @softmax_cross_entropy_grad_float_labels {
  %logits = mpg.input "logits" : tensor<4x3xf32>
  %labels = mpg.input "labels" : tensor<4xf32>
  %dloss = mpg.input "dloss" : tensor<f32>
  // expected-error @+1 {{'mpg.softmax_cross_entropy_grad' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xf32>'}}
  %r = mpg.softmax_cross_entropy_grad %logits, %labels, %dloss
      : tensor<4x3xf32>, tensor<4xf32>, tensor<f32> -> tensor<4x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// mpg.embedding_grad
//===----------------------------------------------------------------------===//

mpg.graph @embedding_grad_rank3_result {
  %ids = mpg.input "ids" : tensor<8xi32>
  %dy = mpg.input "dy" : tensor<8x32xf32>
  // expected-error @+1 {{'mpg.embedding_grad' op expects a rank-2 result [V, D], got 96x32x1}}
  %dt = mpg.embedding_grad %ids, %dy : tensor<8xi32>, tensor<8x32xf32> -> tensor<96x32x1xf32>
}

// -----

mpg.graph @embedding_grad_output_shape {
  %ids = mpg.input "ids" : tensor<8x16xi32>
  %dy = mpg.input "dy" : tensor<8x16x64xf32>
  // expected-error @+1 {{'mpg.embedding_grad' op expects the output gradient of shape 8x16x32, got 8x16x64}}
  %dt = mpg.embedding_grad %ids, %dy : tensor<8x16xi32>, tensor<8x16x64xf32> -> tensor<96x32xf32>
}

// -----

mpg.graph @embedding_grad_element_type {
  %ids = mpg.input "ids" : tensor<8xi64>
  %dy = mpg.input "dy" : tensor<8x32xf16>
  // expected-error @+1 {{'mpg.embedding_grad' op expects the output gradient and result to have the same element type, got 'f16' and 'f32'}}
  %dt = mpg.embedding_grad %ids, %dy : tensor<8xi64>, tensor<8x32xf16> -> tensor<96x32xf32>
}

// -----

// ODS: indices are integers.
mpg.graph @embedding_grad_float_indices {
  %ids = mpg.input "ids" : tensor<8xf32>
  %dy = mpg.input "dy" : tensor<8x32xf32>
  // expected-error @+1 {{'mpg.embedding_grad' op operand #0 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8xf32>'}}
  %dt = mpg.embedding_grad %ids, %dy : tensor<8xf32>, tensor<8x32xf32> -> tensor<96x32xf32>
}

// -----

//===----------------------------------------------------------------------===//
// mpg.slice_grad
//===----------------------------------------------------------------------===//

mpg.graph @slice_grad_start_length {
  %dy = mpg.input "dy" : tensor<8x8xf32>
  // expected-error @+1 {{'mpg.slice_grad' op start, limit and step must each have one value per dimension (rank 2)}}
  %dx = mpg.slice_grad %dy start [0] limit [8, 12] : tensor<8x8xf32> -> tensor<8x16xf32>
}

// -----

mpg.graph @slice_grad_step_length {
  %dy = mpg.input "dy" : tensor<8x8xf32>
  // expected-error @+1 {{'mpg.slice_grad' op start, limit and step must each have one value per dimension (rank 2)}}
  %dx = mpg.slice_grad %dy start [0, 4] limit [8, 12] step [1, 1, 1] : tensor<8x8xf32> -> tensor<8x16xf32>
}

// -----

mpg.graph @slice_grad_zero_step {
  %dy = mpg.input "dy" : tensor<8x8xf32>
  // expected-error @+1 {{'mpg.slice_grad' op step must be >= 1, got 0 in dimension 1}}
  %dx = mpg.slice_grad %dy start [0, 4] limit [8, 12] step [1, 0] : tensor<8x8xf32> -> tensor<8x16xf32>
}

// -----

mpg.graph @slice_grad_negative_start {
  %dy = mpg.input "dy" : tensor<8x8xf32>
  // expected-error @+1 {{'mpg.slice_grad' op dimension 0: expects 0 <= start (-1) <= limit (7) <= size (8)}}
  %dx = mpg.slice_grad %dy start [-1, 4] limit [7, 12] : tensor<8x8xf32> -> tensor<8x16xf32>
}

// -----

mpg.graph @slice_grad_start_above_limit {
  %dy = mpg.input "dy" : tensor<8x8xf32>
  // expected-error @+1 {{'mpg.slice_grad' op dimension 1: expects 0 <= start (12) <= limit (4) <= size (16)}}
  %dx = mpg.slice_grad %dy start [0, 12] limit [8, 4] : tensor<8x8xf32> -> tensor<8x16xf32>
}

// -----

mpg.graph @slice_grad_limit_above_size {
  %dy = mpg.input "dy" : tensor<8x8xf32>
  // expected-error @+1 {{'mpg.slice_grad' op dimension 1: expects 0 <= start (10) <= limit (18) <= size (16)}}
  %dx = mpg.slice_grad %dy start [0, 10] limit [8, 18] : tensor<8x8xf32> -> tensor<8x16xf32>
}

// -----

mpg.graph @slice_grad_output_shape {
  %dy = mpg.input "dy" : tensor<8x8xf32>
  // expected-error @+1 {{'mpg.slice_grad' op expects the output gradient of shape 8x4, got 8x8}}
  %dx = mpg.slice_grad %dy start [0, 4] limit [8, 12] step [1, 2] : tensor<8x8xf32> -> tensor<8x16xf32>
}

// -----

mpg.graph @slice_grad_element_type {
  %dy = mpg.input "dy" : tensor<8x8xf32>
  // expected-error @+1 {{'mpg.slice_grad' op expects the output gradient and result to have the same element type, got 'f32' and 'f16'}}
  %dx = mpg.slice_grad %dy start [0, 4] limit [8, 12] : tensor<8x8xf32> -> tensor<8x16xf16>
}

// -----

// ODS: limit is required (only the generic form can leave it out).
mpg.graph @slice_grad_no_limit {
  %dy = mpg.input "dy" : tensor<8x8xf32>
  // expected-error @+1 {{'mpg.slice_grad' op requires attribute 'limit'}}
  %dx = "mpg.slice_grad"(%dy) <{start = array<i64: 0, 4>}> : (tensor<8x8xf32>) -> tensor<8x16xf32>
}

// -----

//===----------------------------------------------------------------------===//
// mpg.gelu_grad
//===----------------------------------------------------------------------===//

// The custom form names one type; the generic form can give others.
mpg.graph @gelu_grad_operand_types {
  %x = mpg.input "x" : tensor<4x8xf32>
  %dy = mpg.input "dy" : tensor<4x8xf16>
  // expected-error @+1 {{'mpg.gelu_grad' op requires the same type for all operands and results}}
  %dx = "mpg.gelu_grad"(%x, %dy) : (tensor<4x8xf32>, tensor<4x8xf16>) -> tensor<4x8xf32>
}

// -----

mpg.graph @gelu_grad_result_type {
  %x = mpg.input "x" : tensor<4x8xf32>
  // expected-error @+1 {{'mpg.gelu_grad' op requires the same type for all operands and results}}
  %dx = "mpg.gelu_grad"(%x, %x) <{approximate}> : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x4xf32>
}

// -----

// ODS: operands are float tensors.
mpg.graph @gelu_grad_integer {
  %x = mpg.input "x" : tensor<4x8xi32>
  // expected-error @+1 {{'mpg.gelu_grad' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4x8xi32>'}}
  %dx = mpg.gelu_grad %x, %x : tensor<4x8xi32>
}

// -----

mpg.graph @conv2d_grad_input_empty_filter {
  %dy = mpg.input "dy" : tensor<1x1x5x5xf32>
  %w = mpg.input "w" : tensor<1x1x0x0xf32>
  // expected-error @+1 {{'mpg.conv2d_grad_input' op filter spatial size must be >= 1, got 0x0}}
  %dx = mpg.conv2d_grad_input %dy, %w : tensor<1x1x5x5xf32>, tensor<1x1x0x0xf32> -> tensor<1x1x4x4xf32>
}

// -----

mpg.graph @layer_norm_grad_gamma_shape {
  %x = mpg.input "x" : tensor<4x8xf32>
  %g = mpg.input "g" : tensor<4xf32>
  %dy = mpg.input "dy" : tensor<4x8xf32>
  // expected-error @+1 {{'mpg.layer_norm_grad' op expects gamma of the normalised shape 8, got 4}}
  %dx, %dg, %db = mpg.layer_norm_grad %x, %g, %dy : tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>
}
