// RUN: mpc-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the training ops: optimizer updates (sgd, adam, adamw)
// and loss scaling (scale, unscale, all_finite, update_loss_scale).

//===----------------------------------------------------------------------===//
// mpg.sgd
//===----------------------------------------------------------------------===//

mpg.graph @sgd_negative_momentum {
  %p = mpg.input "p" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %v = mpg.input "v" : tensor<4xf32>
  // expected-error @+1 {{expects momentum in [0, 1), got -1.000000e-01}}
  %p2, %v2 = mpg.sgd %p, %p, %lr, %v momentum -0.1
      : tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32> -> tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @sgd_momentum_one {
  %p = mpg.input "p" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %v = mpg.input "v" : tensor<4xf32>
  // expected-error @+1 {{expects momentum in [0, 1), got 1.000000e+00}}
  %p2, %v2 = mpg.sgd %p, %p, %lr, %v momentum 1.0
      : tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32> -> tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @sgd_momentum_nan {
  %p = mpg.input "p" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %v = mpg.input "v" : tensor<4xf32>
  // expected-error @+1 {{expects momentum in [0, 1), got nan}}
  %p2, %v2 = mpg.sgd %p, %p, %lr, %v momentum 0x7FF8000000000000
      : tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32> -> tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @sgd_negative_weight_decay {
  %p = mpg.input "p" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  // expected-error @+1 {{'mpg.sgd' op expects a finite weight_decay >= 0}}
  %p2 = mpg.sgd %p, %p, %lr weight_decay -1.0e-4
      : tensor<4xf32>, tensor<4xf32>, tensor<f32> -> tensor<4xf32>
}

// -----

mpg.graph @sgd_nesterov_without_momentum {
  %p = mpg.input "p" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  // expected-error @+1 {{'mpg.sgd' op with nesterov requires momentum > 0}}
  %p2 = mpg.sgd %p, %p, %lr nesterov : tensor<4xf32>, tensor<4xf32>, tensor<f32> -> tensor<4xf32>
}

// -----

mpg.graph @sgd_velocity_without_momentum {
  %p = mpg.input "p" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %v = mpg.input "v" : tensor<4xf32>
  // expected-error @+1 {{has a velocity operand but momentum is 0}}
  %p2, %v2 = mpg.sgd %p, %p, %lr, %v
      : tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32> -> tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @sgd_momentum_without_velocity {
  %p = mpg.input "p" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  // expected-error @+1 {{with momentum > 0 requires a velocity operand}}
  %p2 = mpg.sgd %p, %p, %lr momentum 0.9 : tensor<4xf32>, tensor<4xf32>, tensor<f32> -> tensor<4xf32>
}

// -----

mpg.graph @sgd_velocity_without_new_velocity {
  %p = mpg.input "p" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %v = mpg.input "v" : tensor<4xf32>
  // expected-error @+1 {{expects a new_velocity result exactly when there is a velocity operand}}
  %p2 = mpg.sgd %p, %p, %lr, %v momentum 0.9
      : tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32> -> tensor<4xf32>
}

// -----

mpg.graph @sgd_new_velocity_without_velocity {
  %p = mpg.input "p" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  // expected-error @+1 {{expects a new_velocity result exactly when there is a velocity operand}}
  %p2, %v2 = mpg.sgd %p, %p, %lr : tensor<4xf32>, tensor<4xf32>, tensor<f32> -> tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @sgd_grad_shape {
  %p = mpg.input "p" : tensor<4x3xf32>
  %g = mpg.input "g" : tensor<3x4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  // expected-error @+1 {{expects the gradient to have the parameter's shape 4x3, got 3x4}}
  %p2 = mpg.sgd %p, %g, %lr : tensor<4x3xf32>, tensor<3x4xf32>, tensor<f32> -> tensor<4x3xf32>
}

// -----

mpg.graph @sgd_velocity_type {
  %p = mpg.input "p" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %v = mpg.input "v" : tensor<4xf16>
  // expected-error @+1 {{expects velocity to have the parameter's type 'tensor<4xf32>', got 'tensor<4xf16>'}}
  %p2, %v2 = mpg.sgd %p, %p, %lr, %v momentum 0.5
      : tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf16> -> tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @sgd_new_param_type {
  %p = mpg.input "p" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  // expected-error @+1 {{expects every result to have the parameter's type 'tensor<4xf32>', got 'tensor<4xf16>'}}
  %p2 = mpg.sgd %p, %p, %lr : tensor<4xf32>, tensor<4xf32>, tensor<f32> -> tensor<4xf16>
}

// -----

mpg.graph @sgd_new_velocity_type {
  %p = mpg.input "p" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %v = mpg.input "v" : tensor<4xf32>
  // expected-error @+1 {{expects every result to have the parameter's type 'tensor<4xf32>', got 'tensor<2x2xf32>'}}
  %p2, %v2 = mpg.sgd %p, %p, %lr, %v momentum 0.5
      : tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32> -> tensor<4xf32>, tensor<2x2xf32>
}

// -----

// ODS: lr is a rank-0 tensor.
mpg.graph @sgd_rank1_lr {
  %p = mpg.input "p" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<1xf32>
  // expected-error @+1 {{'mpg.sgd' op operand #2 must be 0D tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<1xf32>'}}
  %p2 = mpg.sgd %p, %p, %lr : tensor<4xf32>, tensor<4xf32>, tensor<1xf32> -> tensor<4xf32>
}

// -----

// ODS: parameters are float tensors.
mpg.graph @sgd_integer_param {
  %p = mpg.input "p" : tensor<4xi32>
  %lr = mpg.input "lr" : tensor<f32>
  // expected-error @+1 {{'mpg.sgd' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %p2 = mpg.sgd %p, %p, %lr : tensor<4xi32>, tensor<4xi32>, tensor<f32> -> tensor<4xi32>
}

// -----

//===----------------------------------------------------------------------===//
// mpg.adam, mpg.adamw
//===----------------------------------------------------------------------===//

mpg.graph @adam_beta1_one {
  %p = mpg.input "p" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %t = mpg.input "t" : tensor<i64>
  // expected-error @+1 {{'mpg.adam' op expects beta1 and beta2 in [0, 1)}}
  %p2, %m2, %v2 = mpg.adam %p, %p, %p, %p, %lr, %t beta1 1.0
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i64>
      -> tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @adam_negative_beta2 {
  %p = mpg.input "p" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %t = mpg.input "t" : tensor<i64>
  // expected-error @+1 {{'mpg.adam' op expects beta1 and beta2 in [0, 1)}}
  %p2, %m2, %v2 = mpg.adam %p, %p, %p, %p, %lr, %t beta2 -0.5
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i64>
      -> tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @adam_zero_eps {
  %p = mpg.input "p" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %t = mpg.input "t" : tensor<i64>
  // expected-error @+1 {{'mpg.adam' op expects a finite eps > 0}}
  %p2, %m2, %v2 = mpg.adam %p, %p, %p, %p, %lr, %t eps 0.0
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i64>
      -> tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @adam_negative_weight_decay {
  %p = mpg.input "p" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %t = mpg.input "t" : tensor<i64>
  // expected-error @+1 {{'mpg.adam' op expects a finite weight_decay >= 0}}
  %p2, %m2, %v2 = mpg.adam %p, %p, %p, %p, %lr, %t weight_decay -0.01
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i64>
      -> tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @adam_grad_shape {
  %p = mpg.input "p" : tensor<4xf32>
  %g = mpg.input "g" : tensor<5xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %t = mpg.input "t" : tensor<i64>
  // expected-error @+1 {{'mpg.adam' op expects the gradient to have the parameter's shape 4, got 5}}
  %p2, %m2, %v2 = mpg.adam %p, %g, %p, %p, %lr, %t
      : tensor<4xf32>, tensor<5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i64>
      -> tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @adam_m_type {
  %p = mpg.input "p" : tensor<4xf32>
  %m = mpg.input "m" : tensor<4xf16>
  %lr = mpg.input "lr" : tensor<f32>
  %t = mpg.input "t" : tensor<i64>
  // expected-error @+1 {{'mpg.adam' op expects m to have the parameter's type 'tensor<4xf32>', got 'tensor<4xf16>'}}
  %p2, %m2, %v2 = mpg.adam %p, %p, %m, %p, %lr, %t
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xf32>, tensor<f32>, tensor<i64>
      -> tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @adam_v_type {
  %p = mpg.input "p" : tensor<4xf32>
  %v = mpg.input "v" : tensor<1x4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %t = mpg.input "t" : tensor<i64>
  // expected-error @+1 {{'mpg.adam' op expects v to have the parameter's type 'tensor<4xf32>', got 'tensor<1x4xf32>'}}
  %p2, %m2, %v2 = mpg.adam %p, %p, %p, %v, %lr, %t
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1x4xf32>, tensor<f32>, tensor<i64>
      -> tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @adam_result_type {
  %p = mpg.input "p" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %t = mpg.input "t" : tensor<i64>
  // expected-error @+1 {{'mpg.adam' op expects every result to have the parameter's type 'tensor<4xf32>', got 'tensor<4xbf16>'}}
  %p2, %m2, %v2 = mpg.adam %p, %p, %p, %p, %lr, %t
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i64>
      -> tensor<4xf32>, tensor<4xf32>, tensor<4xbf16>
}

// -----

// ODS: the step counter is an integer scalar.
mpg.graph @adam_float_step {
  %p = mpg.input "p" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  // expected-error @+1 {{'mpg.adam' op operand #5 must be 0D tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<f32>'}}
  %p2, %m2, %v2 = mpg.adam %p, %p, %p, %p, %lr, %lr
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>
      -> tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @adamw_beta2_one {
  %p = mpg.input "p" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %t = mpg.input "t" : tensor<i32>
  // expected-error @+1 {{'mpg.adamw' op expects beta1 and beta2 in [0, 1)}}
  %p2, %m2, %v2 = mpg.adamw %p, %p, %p, %p, %lr, %t beta2 1.0
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i32>
      -> tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @adamw_negative_eps {
  %p = mpg.input "p" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %t = mpg.input "t" : tensor<i32>
  // expected-error @+1 {{'mpg.adamw' op expects a finite eps > 0}}
  %p2, %m2, %v2 = mpg.adamw %p, %p, %p, %p, %lr, %t eps -1.0e-8
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i32>
      -> tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @adamw_negative_weight_decay {
  %p = mpg.input "p" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %t = mpg.input "t" : tensor<i32>
  // expected-error @+1 {{'mpg.adamw' op expects a finite weight_decay >= 0}}
  %p2, %m2, %v2 = mpg.adamw %p, %p, %p, %p, %lr, %t weight_decay -0.01
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i32>
      -> tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @adamw_grad_shape {
  %p = mpg.input "p" : tensor<2x3xf32>
  %g = mpg.input "g" : tensor<6xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %t = mpg.input "t" : tensor<i32>
  // expected-error @+1 {{'mpg.adamw' op expects the gradient to have the parameter's shape 2x3, got 6}}
  %p2, %m2, %v2 = mpg.adamw %p, %g, %p, %p, %lr, %t
      : tensor<2x3xf32>, tensor<6xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<i32>
      -> tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

mpg.graph @adamw_new_m_type {
  %p = mpg.input "p" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %t = mpg.input "t" : tensor<i32>
  // expected-error @+1 {{'mpg.adamw' op expects every result to have the parameter's type 'tensor<4xf32>', got 'tensor<4xf64>'}}
  %p2, %m2, %v2 = mpg.adamw %p, %p, %p, %p, %lr, %t
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i32>
      -> tensor<4xf32>, tensor<4xf64>, tensor<4xf32>
}

// -----

// ODS: lr is a rank-0 tensor.
mpg.graph @adamw_rank1_lr {
  %p = mpg.input "p" : tensor<4xf32>
  %t = mpg.input "t" : tensor<i32>
  // expected-error @+1 {{'mpg.adamw' op operand #4 must be 0D tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xf32>'}}
  %p2, %m2, %v2 = mpg.adamw %p, %p, %p, %p, %p, %t
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>
      -> tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// mpg.scale, mpg.unscale
//===----------------------------------------------------------------------===//

// The result has the operand's shape (its float type may differ).
mpg.graph @scale_result_shape {
  %g = mpg.input "g" : tensor<4xf16>
  %s = mpg.input "s" : tensor<f32>
  // expected-error @+2 {{'mpg.scale' op inferred type(s) 'tensor<4xf16>' are incompatible with return type(s) of operation 'tensor<5xf32>'}}
  // expected-error @+1 {{'mpg.scale' op failed to infer returned types}}
  %r = mpg.scale %g, %s : tensor<4xf16>, tensor<f32> -> tensor<5xf32>
}

// -----

mpg.graph @unscale_result_shape {
  %g = mpg.input "g" : tensor<64x10xf16>
  %s = mpg.input "s" : tensor<f32>
  // expected-error @+2 {{'mpg.unscale' op inferred type(s) 'tensor<64x10xf16>' are incompatible with return type(s) of operation 'tensor<10x64xf32>'}}
  // expected-error @+1 {{'mpg.unscale' op failed to infer returned types}}
  %r = mpg.unscale %g, %s : tensor<64x10xf16>, tensor<f32> -> tensor<10x64xf32>
}

// -----

// ODS: the scale is a rank-0 tensor.
mpg.graph @unscale_rank1_scale {
  %g = mpg.input "g" : tensor<4xf16>
  %s = mpg.input "s" : tensor<4xf32>
  // expected-error @+1 {{'mpg.unscale' op operand #1 must be 0D tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xf32>'}}
  %r = mpg.unscale %g, %s : tensor<4xf16>, tensor<4xf32> -> tensor<4xf32>
}

// -----

// ODS: the result is a float tensor.
mpg.graph @unscale_integer_result {
  %g = mpg.input "g" : tensor<4xf16>
  %s = mpg.input "s" : tensor<f32>
  // expected-error @+1 {{'mpg.unscale' op result #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %r = mpg.unscale %g, %s : tensor<4xf16>, tensor<f32> -> tensor<4xi32>
}

// -----

// ODS: the operand is a float tensor.
mpg.graph @scale_integer_operand {
  %g = mpg.input "g" : tensor<4xi64>
  %s = mpg.input "s" : tensor<f32>
  // expected-error @+1 {{'mpg.scale' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi64>'}}
  %r = mpg.scale %g, %s : tensor<4xi64>, tensor<f32> -> tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// mpg.all_finite
//===----------------------------------------------------------------------===//

// Only the generic form can write an empty operand list.
mpg.graph @all_finite_no_operands {
  // expected-error @+1 {{'mpg.all_finite' op expects at least one operand}}
  %ok = "mpg.all_finite"() : () -> tensor<i1>
}

// -----

// ODS: operands are float tensors.
mpg.graph @all_finite_integer_operand {
  %g = mpg.input "g" : tensor<4xf16>
  %n = mpg.input "n" : tensor<4xi32>
  // expected-error @+1 {{'mpg.all_finite' op operand #1 must be variadic of statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %ok = mpg.all_finite %g, %n : tensor<4xf16>, tensor<4xi32> -> tensor<i1>
}

// -----

// ODS: the result is a rank-0 i1 tensor.
mpg.graph @all_finite_f32_result {
  %g = mpg.input "g" : tensor<4xf16>
  // expected-error @+1 {{'mpg.all_finite' op result #0 must be 0D tensor of 1-bit signless integer values, but got 'tensor<f32>'}}
  %ok = mpg.all_finite %g : tensor<4xf16> -> tensor<f32>
}

// -----

mpg.graph @all_finite_rank1_result {
  %g = mpg.input "g" : tensor<4xf16>
  // expected-error @+1 {{'mpg.all_finite' op result #0 must be 0D tensor of 1-bit signless integer values, but got 'tensor<4xi1>'}}
  %ok = mpg.all_finite %g : tensor<4xf16> -> tensor<4xi1>
}

// -----

//===----------------------------------------------------------------------===//
// mpg.update_loss_scale
//===----------------------------------------------------------------------===//

mpg.graph @update_loss_scale_growth_factor_one {
  %s = mpg.input "s" : tensor<f32>
  %n = mpg.input "n" : tensor<i64>
  %ok = mpg.input "ok" : tensor<i1>
  // expected-error @+1 {{'mpg.update_loss_scale' op expects a finite growth_factor > 1}}
  %s2, %n2 = mpg.update_loss_scale %s, %n, %ok growth_factor 1.0 : tensor<f32>, tensor<i64>, tensor<i1>
}

// -----

mpg.graph @update_loss_scale_backoff_one {
  %s = mpg.input "s" : tensor<f32>
  %n = mpg.input "n" : tensor<i64>
  %ok = mpg.input "ok" : tensor<i1>
  // expected-error @+1 {{'mpg.update_loss_scale' op expects backoff_factor in (0, 1)}}
  %s2, %n2 = mpg.update_loss_scale %s, %n, %ok backoff_factor 1.0 : tensor<f32>, tensor<i64>, tensor<i1>
}

// -----

mpg.graph @update_loss_scale_backoff_zero {
  %s = mpg.input "s" : tensor<f32>
  %n = mpg.input "n" : tensor<i64>
  %ok = mpg.input "ok" : tensor<i1>
  // expected-error @+1 {{'mpg.update_loss_scale' op expects backoff_factor in (0, 1)}}
  %s2, %n2 = mpg.update_loss_scale %s, %n, %ok backoff_factor 0.0 : tensor<f32>, tensor<i64>, tensor<i1>
}

// -----

mpg.graph @update_loss_scale_growth_interval_zero {
  %s = mpg.input "s" : tensor<f32>
  %n = mpg.input "n" : tensor<i64>
  %ok = mpg.input "ok" : tensor<i1>
  // expected-error @+1 {{'mpg.update_loss_scale' op expects growth_interval >= 1}}
  %s2, %n2 = mpg.update_loss_scale %s, %n, %ok growth_interval 0 : tensor<f32>, tensor<i64>, tensor<i1>
}

// -----

mpg.graph @update_loss_scale_hysteresis_zero {
  %s = mpg.input "s" : tensor<f32>
  %n = mpg.input "n" : tensor<i64>
  %ok = mpg.input "ok" : tensor<i1>
  // expected-error @+1 {{'mpg.update_loss_scale' op expects hysteresis >= 1}}
  %s2, %n2 = mpg.update_loss_scale %s, %n, %ok hysteresis 0 : tensor<f32>, tensor<i64>, tensor<i1>
}

// -----

mpg.graph @update_loss_scale_min_scale_zero {
  %s = mpg.input "s" : tensor<f32>
  %n = mpg.input "n" : tensor<i64>
  %ok = mpg.input "ok" : tensor<i1>
  // expected-error @+1 {{'mpg.update_loss_scale' op expects 0 < min_scale <= max_scale < inf}}
  %s2, %n2 = mpg.update_loss_scale %s, %n, %ok min_scale 0.0 : tensor<f32>, tensor<i64>, tensor<i1>
}

// -----

mpg.graph @update_loss_scale_min_above_max {
  %s = mpg.input "s" : tensor<f32>
  %n = mpg.input "n" : tensor<i64>
  %ok = mpg.input "ok" : tensor<i1>
  // expected-error @+1 {{'mpg.update_loss_scale' op expects 0 < min_scale <= max_scale < inf}}
  %s2, %n2 = mpg.update_loss_scale %s, %n, %ok min_scale 8.0 max_scale 4.0
      : tensor<f32>, tensor<i64>, tensor<i1>
}

// -----

mpg.graph @update_loss_scale_infinite_max {
  %s = mpg.input "s" : tensor<f32>
  %n = mpg.input "n" : tensor<i64>
  %ok = mpg.input "ok" : tensor<i1>
  // expected-error @+1 {{'mpg.update_loss_scale' op expects 0 < min_scale <= max_scale < inf}}
  %s2, %n2 = mpg.update_loss_scale %s, %n, %ok max_scale 0x7FF0000000000000
      : tensor<f32>, tensor<i64>, tensor<i1>
}

// -----

// ODS: the finite flag is a rank-0 i1 tensor.
mpg.graph @update_loss_scale_f32_finite {
  %s = mpg.input "s" : tensor<f32>
  %n = mpg.input "n" : tensor<i64>
  // expected-error @+1 {{'mpg.update_loss_scale' op operand #2 must be 0D tensor of 1-bit signless integer values, but got 'tensor<f32>'}}
  %s2, %n2 = mpg.update_loss_scale %s, %n, %s : tensor<f32>, tensor<i64>, tensor<f32>
}

// -----

// ODS: the good-step counter is an integer scalar.
mpg.graph @update_loss_scale_float_good_steps {
  %s = mpg.input "s" : tensor<f32>
  %ok = mpg.input "ok" : tensor<i1>
  // expected-error @+1 {{'mpg.update_loss_scale' op operand #1 must be 0D tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<f32>'}}
  %s2, %n2 = mpg.update_loss_scale %s, %s, %ok : tensor<f32>, tensor<f32>, tensor<i1>
}

// -----

// ODS: new_scale has the scale's type (only the generic form can differ).
mpg.graph @update_loss_scale_new_scale_type {
  %s = mpg.input "s" : tensor<f32>
  %n = mpg.input "n" : tensor<i64>
  %ok = mpg.input "ok" : tensor<i1>
  // expected-error @+1 {{'mpg.update_loss_scale' op failed to verify that all of {scale, new_scale} have same type}}
  %r:2 = "mpg.update_loss_scale"(%s, %n, %ok)
      : (tensor<f32>, tensor<i64>, tensor<i1>) -> (tensor<f16>, tensor<i64>)
}

// -----

mpg.graph @update_loss_scale_new_good_steps_type {
  %s = mpg.input "s" : tensor<f32>
  %n = mpg.input "n" : tensor<i64>
  %ok = mpg.input "ok" : tensor<i1>
  // expected-error @+1 {{'mpg.update_loss_scale' op failed to verify that all of {good_steps, new_good_steps} have same type}}
  %r:2 = "mpg.update_loss_scale"(%s, %n, %ok)
      : (tensor<f32>, tensor<i64>, tensor<i1>) -> (tensor<f32>, tensor<i32>)
}

// -----

mpg.graph @sgd_infinite_weight_decay {
  %p = mpg.input "p" : tensor<4xf32>
  %g = mpg.input "g" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  // expected-error @+1 {{'mpg.sgd' op expects a finite weight_decay >= 0}}
  %p2 = mpg.sgd %p, %g, %lr weight_decay 0x7FF0000000000000 : tensor<4xf32>, tensor<4xf32>, tensor<f32> -> tensor<4xf32>
}

// -----

mpg.graph @adam_infinite_eps {
  %p = mpg.input "p" : tensor<4xf32>
  %g = mpg.input "g" : tensor<4xf32>
  %m = mpg.input "m" : tensor<4xf32>
  %v = mpg.input "v" : tensor<4xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %t = mpg.input "t" : tensor<i64>
  // expected-error @+1 {{'mpg.adam' op expects a finite eps > 0}}
  %p2, %m2, %v2 = mpg.adam %p, %g, %m, %v, %lr, %t eps 0x7FF0000000000000 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i64> -> tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

mpg.graph @update_loss_scale_infinite_growth {
  %s = mpg.input "s" : tensor<f32>
  %n = mpg.input "n" : tensor<i64>
  %ok = mpg.input "ok" : tensor<i1>
  // expected-error @+1 {{'mpg.update_loss_scale' op expects a finite growth_factor > 1}}
  %s2, %n2 = mpg.update_loss_scale %s, %n, %ok growth_factor 0x7FF0000000000000 : tensor<f32>, tensor<i64>, tensor<i1>
}
