// RUN: mpc-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the reductions, normalisation and pooling ops. The shape
// checks of inferReturnTypes run again in verify() and report as the op; a
// declared result type that differs from the inferred one is reported by the
// InferTypeOpInterface trait ("inferred type(s) ... are incompatible ...",
// then "failed to infer returned types").

//===----------------------------------------------------------------------===//
// reduce_sum, reduce_mean, reduce_max
//===----------------------------------------------------------------------===//

mpg.graph @reduce_no_axes {
  %x = mpg.input "x" : tensor<4x8xf32>
  // expected-error @+1 {{'mpg.reduce_sum' op expects at least one axis}}
  %y = mpg.reduce_sum %x axes [] : tensor<4x8xf32> -> tensor<4x8xf32>
}

// -----

mpg.graph @reduce_axis_too_large {
  %x = mpg.input "x" : tensor<4x8xf32>
  // expected-error @+1 {{'mpg.reduce_mean' op axis 2 is out of range for rank 2 (expected [-2, 2))}}
  %y = mpg.reduce_mean %x axes [2] : tensor<4x8xf32> -> tensor<4xf32>
}

// -----

mpg.graph @reduce_axis_too_negative {
  %x = mpg.input "x" : tensor<4x8xf32>
  // expected-error @+1 {{'mpg.reduce_max' op axis -3 is out of range for rank 2 (expected [-2, 2))}}
  %y = mpg.reduce_max %x axes [0, -3] : tensor<4x8xf32> -> tensor<f32>
}

// -----

mpg.graph @reduce_scalar {
  %x = mpg.input "x" : tensor<f32>
  // expected-error @+1 {{'mpg.reduce_sum' op axis 0 is out of range for rank 0}}
  %y = mpg.reduce_sum %x axes [0] : tensor<f32> -> tensor<f32>
}

// -----

mpg.graph @reduce_duplicate_axis {
  %x = mpg.input "x" : tensor<4x8xf32>
  // expected-error @+1 {{'mpg.reduce_sum' op axis -1 appears twice in [1, -1]}}
  %y = mpg.reduce_sum %x axes [1, -1] : tensor<4x8xf32> -> tensor<4xf32>
}

// -----

mpg.graph @reduce_duplicate_axis_same_value {
  %x = mpg.input "x" : tensor<4x8xf32>
  // expected-error @+1 {{'mpg.reduce_mean' op axis 0 appears twice in [0, 0]}}
  %y = mpg.reduce_mean %x axes [0, 0] : tensor<4x8xf32> -> tensor<8xf32>
}

// -----

mpg.graph @reduce_result_without_keepdim {
  %x = mpg.input "x" : tensor<4x8xf32>
  // expected-error @+2 {{'mpg.reduce_sum' op inferred type(s) 'tensor<4x1xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'mpg.reduce_sum' op failed to infer returned types}}
  %y = mpg.reduce_sum %x axes [1] keepdim : tensor<4x8xf32> -> tensor<4xf32>
}

// -----

mpg.graph @reduce_result_wrong_dims {
  %x = mpg.input "x" : tensor<4x8xf16>
  // expected-error @+2 {{'mpg.reduce_mean' op inferred type(s) 'tensor<8xf16>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'mpg.reduce_mean' op failed to infer returned types}}
  %y = mpg.reduce_mean %x axes [0] : tensor<4x8xf16> -> tensor<4xf32>
}

// -----

// reduce_sum may change a float type, not an integer one.
mpg.graph @reduce_sum_integer_widening {
  %x = mpg.input "x" : tensor<4x8xi32>
  // expected-error @+2 {{'mpg.reduce_sum' op inferred type(s) 'tensor<4xi32>' are incompatible with return type(s) of operation 'tensor<4xi64>'}}
  // expected-error @+1 {{'mpg.reduce_sum' op failed to infer returned types}}
  %y = mpg.reduce_sum %x axes [1] : tensor<4x8xi32> -> tensor<4xi64>
}

// -----

mpg.graph @reduce_sum_integer_to_float {
  %x = mpg.input "x" : tensor<4x8xi32>
  // expected-error @+2 {{'mpg.reduce_sum' op inferred type(s) 'tensor<4xi32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'mpg.reduce_sum' op failed to infer returned types}}
  %y = mpg.reduce_sum %x axes [1] : tensor<4x8xi32> -> tensor<4xf32>
}

// -----

// Unlike reduce_sum and reduce_mean, reduce_max keeps the operand's element type.
mpg.graph @reduce_max_float_change {
  %x = mpg.input "x" : tensor<4x8xf16>
  // expected-error @+2 {{'mpg.reduce_max' op inferred type(s) 'tensor<4xf16>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'mpg.reduce_max' op failed to infer returned types}}
  %y = mpg.reduce_max %x axes [1] : tensor<4x8xf16> -> tensor<4xf32>
}

// -----

mpg.graph @reduce_mean_integer_operand {
  %x = mpg.input "x" : tensor<4x8xi32>
  // expected-error @+1 {{'mpg.reduce_mean' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4x8xi32>'}}
  %y = mpg.reduce_mean %x axes [1] : tensor<4x8xi32> -> tensor<4xi32>
}

// -----

mpg.graph @reduce_max_bool_operand {
  %x = mpg.input "x" : tensor<4x8xi1>
  // expected-error @+1 {{'mpg.reduce_max' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4x8xi1>'}}
  %y = mpg.reduce_max %x axes [1] : tensor<4x8xi1> -> tensor<4xi1>
}

// -----

mpg.graph @reduce_sum_dynamic_result {
  %x = mpg.input "x" : tensor<4x8xf32>
  // expected-error @+1 {{'mpg.reduce_sum' op result #0 must be statically shaped tensor}}
  %y = mpg.reduce_sum %x axes [1] : tensor<4x8xf32> -> tensor<?xf32>
}

// -----

mpg.graph @reduce_sum_missing_axes {
  %x = mpg.input "x" : tensor<4x8xf32>
  // expected-error @+1 {{'mpg.reduce_sum' op requires attribute 'axes'}}
  %y = "mpg.reduce_sum"(%x) : (tensor<4x8xf32>) -> tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// softmax, log_softmax
//===----------------------------------------------------------------------===//

mpg.graph @softmax_scalar {
  %x = mpg.input "x" : tensor<f32>
  // expected-error @+1 {{'mpg.softmax' op expects an operand of rank >= 1}}
  %y = mpg.softmax %x : tensor<f32> -> tensor<f32>
}

// -----

mpg.graph @softmax_axis_too_large {
  %x = mpg.input "x" : tensor<4x8xf32>
  // expected-error @+1 {{'mpg.softmax' op axis 2 is out of range for rank 2 (expected [-2, 2))}}
  %y = mpg.softmax %x axis 2 : tensor<4x8xf32> -> tensor<4x8xf32>
}

// -----

mpg.graph @log_softmax_axis_too_negative {
  %x = mpg.input "x" : tensor<8xf32>
  // expected-error @+1 {{'mpg.log_softmax' op axis -2 is out of range for rank 1 (expected [-1, 1))}}
  %y = mpg.log_softmax %x axis -2 : tensor<8xf32> -> tensor<8xf32>
}

// -----

mpg.graph @log_softmax_scalar {
  %x = mpg.input "x" : tensor<f16>
  // expected-error @+1 {{'mpg.log_softmax' op expects an operand of rank >= 1}}
  %y = mpg.log_softmax %x axis 0 : tensor<f16> -> tensor<f16>
}

// -----

mpg.graph @softmax_result_shape {
  %x = mpg.input "x" : tensor<4x8xf16>
  // expected-error @+2 {{'mpg.softmax' op inferred type(s) 'tensor<4x8xf16>' are incompatible with return type(s) of operation 'tensor<8x4xf32>'}}
  // expected-error @+1 {{'mpg.softmax' op failed to infer returned types}}
  %y = mpg.softmax %x : tensor<4x8xf16> -> tensor<8x4xf32>
}

// -----

mpg.graph @log_softmax_integer_operand {
  %x = mpg.input "x" : tensor<4x8xi32>
  // expected-error @+1 {{'mpg.log_softmax' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4x8xi32>'}}
  %y = mpg.log_softmax %x : tensor<4x8xi32> -> tensor<4x8xf32>
}

// -----

mpg.graph @softmax_integer_result {
  %x = mpg.input "x" : tensor<4x8xf32>
  // expected-error @+1 {{'mpg.softmax' op result #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4x8xi32>'}}
  %y = mpg.softmax %x : tensor<4x8xf32> -> tensor<4x8xi32>
}

// -----

//===----------------------------------------------------------------------===//
// layer_norm
//===----------------------------------------------------------------------===//

mpg.graph @layer_norm_scalar {
  %x = mpg.input "x" : tensor<f32>
  // expected-error @+1 {{'mpg.layer_norm' op expects an operand of rank >= 1}}
  %y = mpg.layer_norm %x, %x, %x : tensor<f32>, tensor<f32>, tensor<f32> -> tensor<f32>
}

// -----

mpg.graph @layer_norm_axis_out_of_range {
  %x = mpg.input "x" : tensor<2x4x8xf32>
  %g = mpg.input "g" : tensor<8xf32>
  // expected-error @+1 {{'mpg.layer_norm' op axis 3 is out of range for rank 3 (expected [-3, 3))}}
  %y = mpg.layer_norm %x, %g, %g axis 3
      : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x4x8xf32>
}

// -----

mpg.graph @layer_norm_eps_zero {
  %x = mpg.input "x" : tensor<2x8xf32>
  %g = mpg.input "g" : tensor<8xf32>
  // expected-error @+1 {{'mpg.layer_norm' op expects a finite eps > 0}}
  %y = mpg.layer_norm %x, %g, %g eps 0.000000e+00
      : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32>
}

// -----

mpg.graph @layer_norm_eps_negative {
  %x = mpg.input "x" : tensor<2x8xf32>
  %g = mpg.input "g" : tensor<8xf32>
  // expected-error @+1 {{'mpg.layer_norm' op expects a finite eps > 0}}
  %y = mpg.layer_norm %x, %g, %g eps -1.000000e-05
      : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32>
}

// -----

// NaN is rejected too.
mpg.graph @layer_norm_eps_nan {
  %x = mpg.input "x" : tensor<2x8xf32>
  %g = mpg.input "g" : tensor<8xf32>
  // expected-error @+1 {{'mpg.layer_norm' op expects a finite eps > 0}}
  %y = mpg.layer_norm %x, %g, %g eps 0x7FF8000000000000
      : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32>
}

// -----

mpg.graph @layer_norm_gamma_shape {
  %x = mpg.input "x" : tensor<2x4x8xf32>
  %g = mpg.input "g" : tensor<8xf32>
  // expected-error @+1 {{'mpg.layer_norm' op expects gamma and beta of the normalised shape 4x8, got 8}}
  %y = mpg.layer_norm %x, %g, %g axis 1
      : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x4x8xf32>
}

// -----

mpg.graph @layer_norm_beta_shape {
  %x = mpg.input "x" : tensor<2x4x8xf32>
  %g = mpg.input "g" : tensor<8xf32>
  %b = mpg.input "b" : tensor<1x8xf32>
  // expected-error @+1 {{'mpg.layer_norm' op expects gamma and beta of the normalised shape 8, got 1x8}}
  %y = mpg.layer_norm %x, %g, %b
      : tensor<2x4x8xf32>, tensor<8xf32>, tensor<1x8xf32> -> tensor<2x4x8xf32>
}

// -----

mpg.graph @layer_norm_result_shape {
  %x = mpg.input "x" : tensor<2x8xf32>
  %g = mpg.input "g" : tensor<8xf32>
  // expected-error @+2 {{'mpg.layer_norm' op inferred type(s) 'tensor<2x8xf32>' are incompatible with return type(s) of operation 'tensor<8xf32>'}}
  // expected-error @+1 {{'mpg.layer_norm' op failed to infer returned types}}
  %y = mpg.layer_norm %x, %g, %g : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
}

// -----

mpg.graph @layer_norm_integer_gamma {
  %x = mpg.input "x" : tensor<2x8xf32>
  %g = mpg.input "g" : tensor<8xi32>
  // expected-error @+1 {{'mpg.layer_norm' op operand #1 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<8xi32>'}}
  %y = mpg.layer_norm %x, %g, %g : tensor<2x8xf32>, tensor<8xi32>, tensor<8xi32> -> tensor<2x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// batch_norm
//===----------------------------------------------------------------------===//

mpg.graph @batch_norm_rank_one {
  %x = mpg.input "x" : tensor<4xf32>
  // expected-error @+1 {{'mpg.batch_norm' op expects an input of rank >= 2 [N, C, ...], got 4}}
  %y:3 = mpg.batch_norm %x, %x, %x, %x, %x
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
      -> tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @batch_norm_gamma_shape {
  %x = mpg.input "x" : tensor<2x4x3x3xf32>
  %c = mpg.input "c" : tensor<4xf32>
  %d = mpg.input "d" : tensor<2xf32>
  // expected-error @+1 {{'mpg.batch_norm' op expects per-channel operands of shape 4, got 2}}
  %y:3 = mpg.batch_norm %x, %d, %c, %c, %c
      : tensor<2x4x3x3xf32>, tensor<2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
      -> tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @batch_norm_running_var_shape {
  %x = mpg.input "x" : tensor<2x4x3x3xf32>
  %c = mpg.input "c" : tensor<4xf32>
  %s = mpg.input "s" : tensor<f32>
  // expected-error @+1 {{'mpg.batch_norm' op expects per-channel operands of shape 4, got scalar}}
  %y:3 = mpg.batch_norm %x, %c, %c, %c, %s
      : tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>
      -> tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<f32>
}

// -----

mpg.graph @batch_norm_momentum_above_one {
  %x = mpg.input "x" : tensor<2x4xf32>
  %c = mpg.input "c" : tensor<4xf32>
  // expected-error @+1 {{'mpg.batch_norm' op expects momentum in [0, 1]}}
  %y:3 = mpg.batch_norm %x, %c, %c, %c, %c momentum 1.500000e+00
      : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
      -> tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @batch_norm_momentum_negative {
  %x = mpg.input "x" : tensor<2x4xf32>
  %c = mpg.input "c" : tensor<4xf32>
  // expected-error @+1 {{'mpg.batch_norm' op expects momentum in [0, 1]}}
  %y:3 = mpg.batch_norm %x, %c, %c, %c, %c momentum -1.000000e-01
      : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
      -> tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @batch_norm_momentum_nan {
  %x = mpg.input "x" : tensor<2x4xf32>
  %c = mpg.input "c" : tensor<4xf32>
  // expected-error @+1 {{'mpg.batch_norm' op expects momentum in [0, 1]}}
  %y:3 = mpg.batch_norm %x, %c, %c, %c, %c momentum 0x7FF8000000000000
      : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
      -> tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @batch_norm_eps_zero {
  %x = mpg.input "x" : tensor<2x4xf32>
  %c = mpg.input "c" : tensor<4xf32>
  // expected-error @+1 {{'mpg.batch_norm' op expects a finite eps > 0}}
  %y:3 = mpg.batch_norm %x, %c, %c, %c, %c eps 0.000000e+00
      : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
      -> tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @batch_norm_result_shape {
  %x = mpg.input "x" : tensor<2x4xf32>
  %c = mpg.input "c" : tensor<4xf32>
  // expected-error @+2 {{'mpg.batch_norm' op inferred type(s) 'tensor<2x4xf32>', 'tensor<4xf32>', 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<2x4xf32>', 'tensor<4xf32>', 'tensor<2xf32>'}}
  // expected-error @+1 {{'mpg.batch_norm' op failed to infer returned types}}
  %y:3 = mpg.batch_norm %x, %c, %c, %c, %c
      : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
      -> tensor<2x4xf32>, tensor<4xf32>, tensor<2xf32>
}

// -----

mpg.graph @batch_norm_integer_running_mean {
  %x = mpg.input "x" : tensor<2x4xf32>
  %c = mpg.input "c" : tensor<4xf32>
  %i = mpg.input "i" : tensor<4xi64>
  // expected-error @+1 {{'mpg.batch_norm' op operand #3 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi64>'}}
  %y:3 = mpg.batch_norm %x, %c, %c, %i, %c
      : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi64>, tensor<4xf32>
      -> tensor<2x4xf32>, tensor<4xi64>, tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// max_pool2d, avg_pool2d
//===----------------------------------------------------------------------===//

mpg.graph @max_pool2d_rank_three {
  %x = mpg.input "x" : tensor<3x8x6xf32>
  // expected-error @+1 {{'mpg.max_pool2d' op expects a rank-4 input [N, C, H, W], got 3x8x6}}
  %y = mpg.max_pool2d %x kernel [2, 2] : tensor<3x8x6xf32> -> tensor<3x4x3xf32>
}

// -----

mpg.graph @avg_pool2d_rank_five {
  %x = mpg.input "x" : tensor<1x2x3x8x6xf32>
  // expected-error @+1 {{'mpg.avg_pool2d' op expects a rank-4 input [N, C, H, W], got 1x2x3x8x6}}
  %y = mpg.avg_pool2d %x kernel [2, 2] : tensor<1x2x3x8x6xf32> -> tensor<1x2x3x4x3xf32>
}

// -----

mpg.graph @pool_kernel_one_value {
  %x = mpg.input "x" : tensor<2x3x8x6xf32>
  // expected-error @+1 {{'mpg.max_pool2d' op kernel expects 2 values [h, w], got [2]}}
  %y = mpg.max_pool2d %x kernel [2] : tensor<2x3x8x6xf32> -> tensor<2x3x4x3xf32>
}

// -----

mpg.graph @pool_kernel_zero {
  %x = mpg.input "x" : tensor<2x3x8x6xf32>
  // expected-error @+1 {{'mpg.avg_pool2d' op kernel values must be >= 1, got [2, 0]}}
  %y = mpg.avg_pool2d %x kernel [2, 0] : tensor<2x3x8x6xf32> -> tensor<2x3x4x3xf32>
}

// -----

mpg.graph @pool_stride_three_values {
  %x = mpg.input "x" : tensor<2x3x8x6xf32>
  // expected-error @+1 {{'mpg.max_pool2d' op stride expects 2 values [h, w], got [1, 1, 1]}}
  %y = mpg.max_pool2d %x kernel [2, 2] stride [1, 1, 1] : tensor<2x3x8x6xf32> -> tensor<2x3x7x5xf32>
}

// -----

mpg.graph @pool_stride_zero {
  %x = mpg.input "x" : tensor<2x3x8x6xf32>
  // expected-error @+1 {{'mpg.avg_pool2d' op stride values must be >= 1, got [0, 1]}}
  %y = mpg.avg_pool2d %x kernel [2, 2] stride [0, 1] : tensor<2x3x8x6xf32> -> tensor<2x3x7x5xf32>
}

// -----

mpg.graph @pool_padding_two_values {
  %x = mpg.input "x" : tensor<2x3x8x6xf32>
  // expected-error @+1 {{'mpg.max_pool2d' op padding expects 4 values [top, left, bottom, right], got [1, 1]}}
  %y = mpg.max_pool2d %x kernel [2, 2] padding [1, 1] : tensor<2x3x8x6xf32> -> tensor<2x3x5x4xf32>
}

// -----

mpg.graph @pool_padding_negative {
  %x = mpg.input "x" : tensor<2x3x8x6xf32>
  // expected-error @+1 {{'mpg.avg_pool2d' op padding values must be >= 0, got [1, -1, 0, 0]}}
  %y = mpg.avg_pool2d %x kernel [2, 2] padding [1, -1, 0, 0] count_include_pad
      : tensor<2x3x8x6xf32> -> tensor<2x3x4x3xf32>
}

// -----

mpg.graph @pool_padding_not_smaller_than_kernel_height {
  %x = mpg.input "x" : tensor<2x3x8x6xf32>
  // expected-error @+1 {{'mpg.max_pool2d' op padding [2, 0, 0, 0] must be smaller than the kernel [2, 2]}}
  %y = mpg.max_pool2d %x kernel [2, 2] padding [2, 0, 0, 0] : tensor<2x3x8x6xf32> -> tensor<2x3x5x3xf32>
}

// -----

mpg.graph @pool_padding_not_smaller_than_kernel_width {
  %x = mpg.input "x" : tensor<2x3x8x6xf32>
  // expected-error @+1 {{'mpg.avg_pool2d' op padding [0, 0, 0, 3] must be smaller than the kernel [2, 3]}}
  %y = mpg.avg_pool2d %x kernel [2, 3] padding [0, 0, 0, 3] : tensor<2x3x8x6xf32> -> tensor<2x3x4x3xf32>
}

// -----

mpg.graph @pool_window_too_high {
  %x = mpg.input "x" : tensor<2x3x8x6xf32>
  // expected-error @+1 {{'mpg.max_pool2d' op window of extent 9 does not fit in height 8 padded to 8}}
  %y = mpg.max_pool2d %x kernel [9, 2] : tensor<2x3x8x6xf32> -> tensor<2x3x1x3xf32>
}

// -----

mpg.graph @pool_window_too_wide {
  %x = mpg.input "x" : tensor<2x3x8x6xf32>
  // expected-error @+1 {{'mpg.avg_pool2d' op window of extent 8 does not fit in width 6 padded to 7}}
  %y = mpg.avg_pool2d %x kernel [2, 8] padding [0, 1, 0, 0] : tensor<2x3x8x6xf32> -> tensor<2x3x4x1xf32>
}

// -----

mpg.graph @max_pool2d_result_shape {
  %x = mpg.input "x" : tensor<2x3x8x6xf32>
  // expected-error @+2 {{'mpg.max_pool2d' op inferred type(s) 'tensor<2x3x4x3xf32>' are incompatible with return type(s) of operation 'tensor<2x3x4x4xf32>'}}
  // expected-error @+1 {{'mpg.max_pool2d' op failed to infer returned types}}
  %y = mpg.max_pool2d %x kernel [2, 2] : tensor<2x3x8x6xf32> -> tensor<2x3x4x4xf32>
}

// -----

// Pooling keeps the operand's element type.
mpg.graph @avg_pool2d_float_change {
  %x = mpg.input "x" : tensor<2x3x8x6xf16>
  // expected-error @+2 {{'mpg.avg_pool2d' op inferred type(s) 'tensor<2x3x4x3xf16>' are incompatible with return type(s) of operation 'tensor<2x3x4x3xf32>'}}
  // expected-error @+1 {{'mpg.avg_pool2d' op failed to infer returned types}}
  %y = mpg.avg_pool2d %x kernel [2, 2] : tensor<2x3x8x6xf16> -> tensor<2x3x4x3xf32>
}

// -----

mpg.graph @max_pool2d_integer_operand {
  %x = mpg.input "x" : tensor<2x3x8x6xi32>
  // expected-error @+1 {{'mpg.max_pool2d' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<2x3x8x6xi32>'}}
  %y = mpg.max_pool2d %x kernel [2, 2] : tensor<2x3x8x6xi32> -> tensor<2x3x4x3xi32>
}

// -----

mpg.graph @max_pool2d_missing_kernel {
  %x = mpg.input "x" : tensor<2x3x8x6xf32>
  // expected-error @+1 {{'mpg.max_pool2d' op requires attribute 'kernel'}}
  %y = "mpg.max_pool2d"(%x) : (tensor<2x3x8x6xf32>) -> tensor<2x3x4x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// global_avg_pool
//===----------------------------------------------------------------------===//

mpg.graph @global_avg_pool_rank_three {
  %x = mpg.input "x" : tensor<3x8x6xf32>
  // expected-error @+1 {{'mpg.global_avg_pool' op expects a rank-4 input [N, C, H, W], got 3x8x6}}
  %y = mpg.global_avg_pool %x : tensor<3x8x6xf32> -> tensor<3x8xf32>
}

// -----

mpg.graph @global_avg_pool_keeps_no_spatial_dims {
  %x = mpg.input "x" : tensor<2x3x8x6xf32>
  // expected-error @+2 {{'mpg.global_avg_pool' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x3x1x1xf32>'}}
  // expected-error @+1 {{'mpg.global_avg_pool' op failed to infer returned types}}
  %y = mpg.global_avg_pool %x : tensor<2x3x8x6xf32> -> tensor<2x3x1x1xf32>
}

// -----

mpg.graph @global_avg_pool_integer_operand {
  %x = mpg.input "x" : tensor<2x3x8x6xi64>
  // expected-error @+1 {{'mpg.global_avg_pool' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<2x3x8x6xi64>'}}
  %y = mpg.global_avg_pool %x : tensor<2x3x8x6xi64> -> tensor<2x3xi64>
}

// -----

mpg.graph @layer_norm_gamma_beta_types_differ {
  %x = mpg.input "x" : tensor<4x8xf16>
  %g = mpg.input "g" : tensor<8xf32>
  %b = mpg.input "b" : tensor<8xf16>
  // expected-error @+1 {{'mpg.layer_norm' op expects gamma and beta to have one element type, got 'f32' and 'f16'}}
  %y = mpg.layer_norm %x, %g, %b : tensor<4x8xf16>, tensor<8xf32>, tensor<8xf16> -> tensor<4x8xf16>
}

// -----

mpg.graph @batch_norm_running_stats_types_differ {
  %x = mpg.input "x" : tensor<2x3x4x4xf16>
  %g = mpg.input "g" : tensor<3xf32>
  %b = mpg.input "b" : tensor<3xf32>
  %m = mpg.input "m" : tensor<3xf32>
  %v = mpg.input "v" : tensor<3xf16>
  // expected-error @+1 {{'mpg.batch_norm' op expects running_mean and running_var to have one element type, got 'f32' and 'f16'}}
  %y, %m2, %v2 = mpg.batch_norm %x, %g, %b, %m, %v : tensor<2x3x4x4xf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf16> -> tensor<2x3x4x4xf16>, tensor<3xf32>, tensor<3xf16>
}

// -----

mpg.graph @max_pool2d_window_overflow {
  %x = mpg.input "x" : tensor<2x3x8x6xf32>
  // expected-error @+1 {{'mpg.max_pool2d' op window size or padding overflows 64-bit integers}}
  %y = mpg.max_pool2d %x kernel [9223372036854775807, 2] padding [9223372036854775806, 0, 9223372036854775806, 0] : tensor<2x3x8x6xf32> -> tensor<2x3x1x3xf32>
}
