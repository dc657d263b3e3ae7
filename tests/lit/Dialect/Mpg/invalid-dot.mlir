// RUN: mpc-opt %s -split-input-file -verify-diagnostics

// Diagnostics of the dot-product ops: matmul, batch_matmul and conv2d. The
// shape rules run in the op's verifier; a declared result type that differs
// from the inferred one is reported by the InferTypeOpInterface check.

//===----------------------------------------------------------------------===//
// mpg.matmul
//===----------------------------------------------------------------------===//

mpg.graph @matmul_rank3_lhs {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  %w = mpg.input "w" : tensor<4x5xf32>
  // expected-error @+1 {{'mpg.matmul' op expects rank-2 operands, got 2x3x4 and 4x5}}
  %y = mpg.matmul %x, %w : tensor<2x3x4xf32>, tensor<4x5xf32> -> tensor<3x5xf32>
}

// -----

mpg.graph @matmul_rank1_rhs {
  %x = mpg.input "x" : tensor<3x4xf32>
  %w = mpg.input "w" : tensor<4xf32>
  // expected-error @+1 {{expects rank-2 operands, got 3x4 and 4}}
  %y = mpg.matmul %x, %w : tensor<3x4xf32>, tensor<4xf32> -> tensor<3xf32>
}

// -----

mpg.graph @matmul_rank0 {
  %x = mpg.input "x" : tensor<f32>
  %w = mpg.input "w" : tensor<4x5xf32>
  // expected-error @+1 {{expects rank-2 operands, got scalar and 4x5}}
  %y = mpg.matmul %x, %w : tensor<f32>, tensor<4x5xf32> -> tensor<4x5xf32>
}

// -----

mpg.graph @matmul_element_types_differ {
  %x = mpg.input "x" : tensor<3x4xf16>
  %w = mpg.input "w" : tensor<4x5xf32>
  // expected-error @+1 {{expects operands of the same element type}}
  %y = mpg.matmul %x, %w : tensor<3x4xf16>, tensor<4x5xf32> -> tensor<3x5xf32>
}

// -----

mpg.graph @matmul_contraction {
  %x = mpg.input "x" : tensor<3x4xf32>
  %w = mpg.input "w" : tensor<5x6xf32>
  // expected-error @+1 {{contraction dimensions differ: 4 (lhs) vs 5 (rhs) for shapes 3x4 and 5x6}}
  %y = mpg.matmul %x, %w : tensor<3x4xf32>, tensor<5x6xf32> -> tensor<3x6xf32>
}

// -----

mpg.graph @matmul_contraction_transpose_a {
  %x = mpg.input "x" : tensor<3x4xf32>
  %w = mpg.input "w" : tensor<4x5xf32>
  // expected-error @+1 {{contraction dimensions differ: 3 (lhs) vs 4 (rhs) for shapes 3x4 and 4x5}}
  %y = mpg.matmul %x, %w transpose_a : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<4x5xf32>
}

// -----

mpg.graph @matmul_contraction_transpose_b {
  %x = mpg.input "x" : tensor<3x4xf32>
  %w = mpg.input "w" : tensor<4x5xf32>
  // expected-error @+1 {{contraction dimensions differ: 4 (lhs) vs 5 (rhs) for shapes 3x4 and 4x5}}
  %y = mpg.matmul %x, %w transpose_b : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<3x4xf32>
}

// -----

mpg.graph @matmul_contraction_transpose_both {
  %x = mpg.input "x" : tensor<4x3xf32>
  %w = mpg.input "w" : tensor<4x5xf32>
  // expected-error @+1 {{contraction dimensions differ: 4 (lhs) vs 5 (rhs) for shapes 4x3 and 4x5}}
  %y = mpg.matmul %x, %w transpose_a transpose_b : tensor<4x3xf32>, tensor<4x5xf32> -> tensor<3x4xf32>
}

// -----

mpg.graph @matmul_result_shape {
  %x = mpg.input "x" : tensor<3x4xf32>
  %w = mpg.input "w" : tensor<4x5xf32>
  // expected-error @+2 {{'mpg.matmul' op inferred type(s) 'tensor<3x5xf32>' are incompatible with return type(s) of operation 'tensor<5x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mpg.matmul %x, %w : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<5x3xf32>
}

// -----

// The transposed product has another shape.
mpg.graph @matmul_result_shape_transposed {
  %x = mpg.input "x" : tensor<4x3xf32>
  %w = mpg.input "w" : tensor<4x5xf32>
  // expected-error @+2 {{inferred type(s) 'tensor<3x5xf32>' are incompatible with return type(s) of operation 'tensor<4x5xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mpg.matmul %x, %w transpose_a : tensor<4x3xf32>, tensor<4x5xf32> -> tensor<4x5xf32>
}

// -----

mpg.graph @matmul_result_rank {
  %x = mpg.input "x" : tensor<3x4xf32>
  %w = mpg.input "w" : tensor<4x5xf32>
  // expected-error @+2 {{inferred type(s) 'tensor<3x5xf32>' are incompatible with return type(s) of operation 'tensor<1x3x5xf16>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mpg.matmul %x, %w : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<1x3x5xf16>
}

// -----

mpg.graph @matmul_integer_result {
  %x = mpg.input "x" : tensor<3x4xf32>
  %w = mpg.input "w" : tensor<4x5xf32>
  // expected-error @+1 {{'mpg.matmul' op result #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<3x5xi32>'}}
  %y = mpg.matmul %x, %w : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<3x5xi32>
}

// -----

mpg.graph @matmul_integer_operands {
  %x = mpg.input "x" : tensor<3x4xi32>
  %w = mpg.input "w" : tensor<4x5xi32>
  // expected-error @+1 {{'mpg.matmul' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<3x4xi32>'}}
  %y = mpg.matmul %x, %w : tensor<3x4xi32>, tensor<4x5xi32> -> tensor<3x5xf32>
}

// -----

mpg.graph @matmul_dynamic_operand {
  %x = mpg.input "x" : tensor<3x4xf32>
  %w = mpg.input "w" : tensor<4x5xf32>
  %d = builtin.unrealized_conversion_cast %w : tensor<4x5xf32> to tensor<?x5xf32>
  // expected-error @+1 {{'mpg.matmul' op operand #1 must be statically shaped tensor of}}
  %y = mpg.matmul %x, %d : tensor<3x4xf32>, tensor<?x5xf32> -> tensor<3x5xf32>
}

// -----

mpg.graph @matmul_bad_flag {
  %x = mpg.input "x" : tensor<3x4xf32>
  %w = mpg.input "w" : tensor<4x5xf32>
  // expected-error @+1 {{expected ':'}}
  %y = mpg.matmul %x, %w transpose_c : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<3x5xf32>
}

//===----------------------------------------------------------------------===//
// mpg.batch_matmul
//===----------------------------------------------------------------------===//

// -----

mpg.graph @batch_matmul_rank2 {
  %x = mpg.input "x" : tensor<3x4xf32>
  %w = mpg.input "w" : tensor<4x5xf32>
  // expected-error @+1 {{'mpg.batch_matmul' op expects operands of the same rank >= 3, got 3x4 and 4x5}}
  %y = mpg.batch_matmul %x, %w : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<3x5xf32>
}

// -----

mpg.graph @batch_matmul_ranks_differ {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  %w = mpg.input "w" : tensor<1x2x4x5xf32>
  // expected-error @+1 {{expects operands of the same rank >= 3, got 2x3x4 and 1x2x4x5}}
  %y = mpg.batch_matmul %x, %w : tensor<2x3x4xf32>, tensor<1x2x4x5xf32> -> tensor<1x2x3x5xf32>
}

// -----

mpg.graph @batch_matmul_rhs_rank2 {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  %w = mpg.input "w" : tensor<4x5xf32>
  // expected-error @+1 {{expects operands of the same rank >= 3, got 2x3x4 and 4x5}}
  %y = mpg.batch_matmul %x, %w : tensor<2x3x4xf32>, tensor<4x5xf32> -> tensor<2x3x5xf32>
}

// -----

mpg.graph @batch_matmul_batch_dims_differ {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  %w = mpg.input "w" : tensor<3x4x5xf32>
  // expected-error @+1 {{expects identical batch dimensions, got 2x3x4 and 3x4x5}}
  %y = mpg.batch_matmul %x, %w : tensor<2x3x4xf32>, tensor<3x4x5xf32> -> tensor<2x3x5xf32>
}

// -----

// Batch dimensions do not broadcast.
mpg.graph @batch_matmul_no_broadcast {
  %x = mpg.input "x" : tensor<2x4x3x4xf32>
  %w = mpg.input "w" : tensor<2x1x4x5xf32>
  // expected-error @+1 {{expects identical batch dimensions, got 2x4x3x4 and 2x1x4x5}}
  %y = mpg.batch_matmul %x, %w : tensor<2x4x3x4xf32>, tensor<2x1x4x5xf32> -> tensor<2x4x3x5xf32>
}

// -----

mpg.graph @batch_matmul_element_types_differ {
  %x = mpg.input "x" : tensor<2x3x4xbf16>
  %w = mpg.input "w" : tensor<2x4x5xf16>
  // expected-error @+1 {{expects operands of the same element type}}
  %y = mpg.batch_matmul %x, %w : tensor<2x3x4xbf16>, tensor<2x4x5xf16> -> tensor<2x3x5xf32>
}

// -----

mpg.graph @batch_matmul_contraction {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  %w = mpg.input "w" : tensor<2x5x5xf32>
  // expected-error @+1 {{contraction dimensions differ: 4 (lhs) vs 5 (rhs) for shapes 2x3x4 and 2x5x5}}
  %y = mpg.batch_matmul %x, %w : tensor<2x3x4xf32>, tensor<2x5x5xf32> -> tensor<2x3x5xf32>
}

// -----

mpg.graph @batch_matmul_contraction_transpose_b {
  %q = mpg.input "q" : tensor<8x16x32xf32>
  %k = mpg.input "k" : tensor<8x32x16xf32>
  // expected-error @+1 {{contraction dimensions differ: 32 (lhs) vs 16 (rhs) for shapes 8x16x32 and 8x32x16}}
  %s = mpg.batch_matmul %q, %k transpose_b : tensor<8x16x32xf32>, tensor<8x32x16xf32> -> tensor<8x16x32xf32>
}

// -----

mpg.graph @batch_matmul_result_shape {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  %w = mpg.input "w" : tensor<2x4x5xf32>
  // expected-error @+2 {{'mpg.batch_matmul' op inferred type(s) 'tensor<2x3x5xf32>' are incompatible with return type(s) of operation 'tensor<3x5xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mpg.batch_matmul %x, %w : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<3x5xf32>
}

// -----

mpg.graph @batch_matmul_integer_result {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  %w = mpg.input "w" : tensor<2x4x5xf32>
  // expected-error @+1 {{'mpg.batch_matmul' op result #0 must be statically shaped tensor of}}
  %y = mpg.batch_matmul %x, %w : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xi64>
}

// -----

mpg.graph @batch_matmul_unranked {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  %w = mpg.input "w" : tensor<2x4x5xf32>
  %u = builtin.unrealized_conversion_cast %x : tensor<2x3x4xf32> to tensor<*xf32>
  // expected-error @+1 {{'mpg.batch_matmul' op operand #0 must be statically shaped tensor of}}
  %y = "mpg.batch_matmul"(%u, %w) : (tensor<*xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
}

//===----------------------------------------------------------------------===//
// mpg.conv2d
//===----------------------------------------------------------------------===//

// -----

mpg.graph @conv2d_element_types_differ {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<6x4x3x3xf16>
  // expected-error @+1 {{'mpg.conv2d' op expects input and filter of the same element type}}
  %y = mpg.conv2d %x, %w : tensor<1x4x8x8xf32>, tensor<6x4x3x3xf16> -> tensor<1x6x6x6xf32>
}

// -----

mpg.graph @conv2d_rank3_input {
  %x = mpg.input "x" : tensor<4x8x8xf32>
  %w = mpg.input "w" : tensor<6x4x3x3xf32>
  // expected-error @+1 {{expects a rank-4 input [N, C, H, W] and a rank-4 filter [O, C/groups, kH, kW], got 4x8x8 and 6x4x3x3}}
  %y = mpg.conv2d %x, %w : tensor<4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<6x6x6xf32>
}

// -----

mpg.graph @conv2d_rank2_filter {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<3x3xf32>
  // expected-error @+1 {{expects a rank-4 input [N, C, H, W] and a rank-4 filter [O, C/groups, kH, kW], got 1x4x8x8 and 3x3}}
  %y = mpg.conv2d %x, %w : tensor<1x4x8x8xf32>, tensor<3x3xf32> -> tensor<1x4x6x6xf32>
}

// -----

mpg.graph @conv2d_stride_length {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<6x4x3x3xf32>
  // expected-error @+1 {{stride expects 2 values [h, w], got [2]}}
  %y = mpg.conv2d %x, %w stride [2] : tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<1x6x3x3xf32>
}

// -----

mpg.graph @conv2d_stride_zero {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<6x4x3x3xf32>
  // expected-error @+1 {{stride values must be >= 1, got [0, 1]}}
  %y = mpg.conv2d %x, %w stride [0, 1] : tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<1x6x6x6xf32>
}

// -----

mpg.graph @conv2d_dilation_length {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<6x4x3x3xf32>
  // expected-error @+1 {{dilation expects 2 values [h, w], got [1, 1, 1]}}
  %y = mpg.conv2d %x, %w dilation [1, 1, 1] : tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<1x6x6x6xf32>
}

// -----

mpg.graph @conv2d_dilation_negative {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<6x4x3x3xf32>
  // expected-error @+1 {{dilation values must be >= 1, got [1, -1]}}
  %y = mpg.conv2d %x, %w dilation [1, -1] : tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<1x6x6x6xf32>
}

// -----

mpg.graph @conv2d_padding_length {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<6x4x3x3xf32>
  // expected-error @+1 {{padding expects 4 values [top, left, bottom, right], got [1, 1]}}
  %y = mpg.conv2d %x, %w padding [1, 1] : tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<1x6x8x8xf32>
}

// -----

mpg.graph @conv2d_padding_negative {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<6x4x3x3xf32>
  // expected-error @+1 {{padding values must be >= 0, got [1, -1, 0, 0]}}
  %y = mpg.conv2d %x, %w padding [1, -1, 0, 0] : tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<1x6x7x5xf32>
}

// -----

mpg.graph @conv2d_groups_zero {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<6x4x3x3xf32>
  // expected-error @+1 {{groups must be >= 1, got 0}}
  %y = mpg.conv2d %x, %w groups 0 : tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<1x6x6x6xf32>
}

// -----

mpg.graph @conv2d_groups_negative {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<6x4x3x3xf32>
  // expected-error @+1 {{groups must be >= 1, got -2}}
  %y = mpg.conv2d %x, %w groups -2 : tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<1x6x6x6xf32>
}

// -----

mpg.graph @conv2d_groups_input_channels {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<6x1x3x3xf32>
  // expected-error @+1 {{groups 3 must divide the input channels (4) and the output channels (6)}}
  %y = mpg.conv2d %x, %w groups 3 : tensor<1x4x8x8xf32>, tensor<6x1x3x3xf32> -> tensor<1x6x6x6xf32>
}

// -----

mpg.graph @conv2d_groups_output_channels {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<6x1x3x3xf32>
  // expected-error @+1 {{groups 4 must divide the input channels (4) and the output channels (6)}}
  %y = mpg.conv2d %x, %w groups 4 : tensor<1x4x8x8xf32>, tensor<6x1x3x3xf32> -> tensor<1x6x6x6xf32>
}

// -----

mpg.graph @conv2d_filter_channels {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<6x3x3x3xf32>
  // expected-error @+1 {{filter expects 3 input channels (dim 1 times groups) but the input has 4}}
  %y = mpg.conv2d %x, %w : tensor<1x4x8x8xf32>, tensor<6x3x3x3xf32> -> tensor<1x6x6x6xf32>
}

// -----

// With groups, the filter holds C / groups input channels.
mpg.graph @conv2d_filter_channels_grouped {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<6x4x3x3xf32>
  // expected-error @+1 {{filter expects 8 input channels (dim 1 times groups) but the input has 4}}
  %y = mpg.conv2d %x, %w groups 2 : tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<1x6x6x6xf32>
}

// -----

mpg.graph @conv2d_filter_height_zero {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<6x4x0x3xf32>
  // expected-error @+1 {{'mpg.conv2d' op filter spatial size must be >= 1, got 0x3}}
  %y = mpg.conv2d %x, %w : tensor<1x4x8x8xf32>, tensor<6x4x0x3xf32> -> tensor<1x6x9x6xf32>
}

// -----

mpg.graph @conv2d_filter_width_zero {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<6x4x3x0xf32>
  // expected-error @+1 {{'mpg.conv2d' op filter spatial size must be >= 1, got 3x0}}
  %y = mpg.conv2d %x, %w dilation [2, 2] : tensor<1x4x8x8xf32>, tensor<6x4x3x0xf32> -> tensor<1x6x4x10xf32>
}

// -----

mpg.graph @conv2d_window_height {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<6x4x9x3xf32>
  // expected-error @+1 {{window of extent 9 does not fit in height 8 padded to 8}}
  %y = mpg.conv2d %x, %w : tensor<1x4x8x8xf32>, tensor<6x4x9x3xf32> -> tensor<1x6x1x6xf32>
}

// -----

mpg.graph @conv2d_window_width {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<6x4x3x11xf32>
  // expected-error @+1 {{window of extent 11 does not fit in width 8 padded to 10}}
  %y = mpg.conv2d %x, %w padding [0, 1, 0, 1] : tensor<1x4x8x8xf32>, tensor<6x4x3x11xf32> -> tensor<1x6x6x1xf32>
}

// -----

// Dilation widens the window: 4 * (3 - 1) + 1 = 9.
mpg.graph @conv2d_window_dilated {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<6x4x3x3xf32>
  // expected-error @+1 {{window of extent 9 does not fit in height 8 padded to 8}}
  %y = mpg.conv2d %x, %w dilation [4, 1] : tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<1x6x1x6xf32>
}

// -----

mpg.graph @conv2d_padding_overflow {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<6x4x3x3xf32>
  // expected-error @+1 {{'mpg.conv2d' op window size or padding overflows 64-bit integers}}
  %y = mpg.conv2d %x, %w padding [9223372036854775807, 0, 9223372036854775807, 0] : tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<1x6x4x6xf32>
}

// -----

mpg.graph @conv2d_dilation_overflow {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<6x4x3x3xf32>
  // expected-error @+1 {{'mpg.conv2d' op window size or padding overflows 64-bit integers}}
  %y = mpg.conv2d %x, %w dilation [1, 4611686018427387904] : tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<1x6x6x6xf32>
}

// -----

mpg.graph @conv2d_result_shape {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<6x4x3x3xf32>
  // expected-error @+2 {{'mpg.conv2d' op inferred type(s) 'tensor<1x6x6x6xf32>' are incompatible with return type(s) of operation 'tensor<1x6x8x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mpg.conv2d %x, %w : tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<1x6x8x8xf32>
}

// -----

// stride [2, 2] with padding 1: (8 + 2 - 3) / 2 + 1 = 4.
mpg.graph @conv2d_result_shape_strided {
  %x = mpg.input "x" : tensor<1x4x8x8xf16>
  %w = mpg.input "w" : tensor<6x4x3x3xf16>
  // expected-error @+2 {{inferred type(s) 'tensor<1x6x4x4xf16>' are incompatible with return type(s) of operation 'tensor<1x6x5x5xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mpg.conv2d %x, %w stride [2, 2] padding [1, 1, 1, 1] : tensor<1x4x8x8xf16>, tensor<6x4x3x3xf16> -> tensor<1x6x5x5xf32>
}

// -----

mpg.graph @conv2d_integer_input {
  %x = mpg.input "x" : tensor<1x4x8x8xi32>
  %w = mpg.input "w" : tensor<6x4x3x3xi32>
  // expected-error @+1 {{'mpg.conv2d' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<1x4x8x8xi32>'}}
  %y = mpg.conv2d %x, %w : tensor<1x4x8x8xi32>, tensor<6x4x3x3xi32> -> tensor<1x6x6x6xf32>
}

// -----

mpg.graph @conv2d_bad_stride_attribute {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<6x4x3x3xf32>
  // expected-error @+1 {{'mpg.conv2d' op attribute 'stride' failed to satisfy constraint: i64 dense array attribute}}
  %y = "mpg.conv2d"(%x, %w) {stride = array<i32: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
}

// -----

mpg.graph @conv2d_channel_product_overflows {
  %x = mpg.input "x" : tensor<1x4x8x8xf32>
  %w = mpg.input "w" : tensor<4x4611686018427387905x3x3xf32>
  // expected-error @+1 {{'mpg.conv2d' op filter expects too many input channels (dim 1 times groups) but the input has 4}}
  %y = mpg.conv2d %x, %w groups 4 : tensor<1x4x8x8xf32>, tensor<4x4611686018427387905x3x3xf32> -> tensor<1x4x6x6xf32>
}
