// RUN: mpc-opt %s -split-input-file -verify-diagnostics

// Diagnostics of the pointwise ops: unary math and activations, broadcasting
// binary ops, compare, select and cast.

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

mpg.graph @exp_integer {
  %x = mpg.input "x" : tensor<3x4xi32>
  // expected-error @+1 {{'mpg.exp' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<3x4xi32>'}}
  %y = mpg.exp %x : tensor<3x4xi32>
}

// -----

mpg.graph @relu_integer {
  %x = mpg.input "x" : tensor<4xi64>
  // expected-error @+1 {{'mpg.relu' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %y = mpg.relu %x : tensor<4xi64>
}

// -----

mpg.graph @neg_bool {
  %x = mpg.input "x" : tensor<3x4xi1>
  // expected-error @+1 {{'mpg.neg' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3x4xi1>'}}
  %y = mpg.neg %x : tensor<3x4xi1>
}

// -----

mpg.graph @abs_bool {
  %x = mpg.input "x" : tensor<i1>
  // expected-error @+1 {{'mpg.abs' op operand #0 must be statically shaped tensor of}}
  %y = mpg.abs %x : tensor<i1>
}

// -----

mpg.graph @sqrt_dynamic {
  %x = mpg.input "x" : tensor<3x4xf32>
  %d = builtin.unrealized_conversion_cast %x : tensor<3x4xf32> to tensor<?x4xf32>
  // expected-error @+1 {{'mpg.sqrt' op operand #0 must be statically shaped tensor of}}
  %y = mpg.sqrt %d : tensor<?x4xf32>
}

// -----

mpg.graph @log_result_type {
  %x = mpg.input "x" : tensor<3x4xf32>
  // expected-error @+1 {{'mpg.log' op requires the same type for all operands and results}}
  %y = "mpg.log"(%x) : (tensor<3x4xf32>) -> tensor<3x4xf16>
}

// -----

mpg.graph @tanh_result_shape {
  %x = mpg.input "x" : tensor<3x4xf32>
  // expected-error @+1 {{'mpg.tanh' op requires the same type for all operands and results}}
  %y = "mpg.tanh"(%x) : (tensor<3x4xf32>) -> tensor<4x3xf32>
}

// -----

// The custom form has one type for operand and result.
mpg.graph @sigmoid_operand_type {
  // expected-note @+1 {{prior use here}}
  %x = mpg.input "x" : tensor<3x4xf32>
  // expected-error @+1 {{use of value '%x' expects different type than prior uses: 'tensor<3x4xf16>' vs 'tensor<3x4xf32>'}}
  %y = mpg.sigmoid %x : tensor<3x4xf16>
}

// -----

mpg.graph @rsqrt_result_integer {
  %x = mpg.input "x" : tensor<3x4xf32>
  // expected-error @+1 {{'mpg.rsqrt' op result #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<3x4xi32>'}}
  %y = "mpg.rsqrt"(%x) : (tensor<3x4xf32>) -> tensor<3x4xi32>
}

// -----

mpg.graph @leaky_relu_alpha_negative {
  %x = mpg.input "x" : tensor<3x4xf32>
  // expected-error @+1 {{'mpg.leaky_relu' op expects alpha finite and >= 0, got -1.500000e+00}}
  %y = mpg.leaky_relu %x alpha -1.5 : tensor<3x4xf32>
}

// -----

mpg.graph @leaky_relu_alpha_infinite {
  %x = mpg.input "x" : tensor<3x4xf32>
  // expected-error @+1 {{'mpg.leaky_relu' op expects alpha finite and >= 0, got INF}}
  %y = mpg.leaky_relu %x alpha 0x7FF0000000000000 : tensor<3x4xf32>
}

// -----

mpg.graph @leaky_relu_alpha_nan {
  %x = mpg.input "x" : tensor<3x4xf32>
  // expected-error @+1 {{'mpg.leaky_relu' op expects alpha finite and >= 0, got nan}}
  %y = "mpg.leaky_relu"(%x) <{alpha = 0x7FF8000000000000 : f64}> : (tensor<3x4xf32>) -> tensor<3x4xf32>
}

// -----

mpg.graph @leaky_relu_alpha_integer_literal {
  %x = mpg.input "x" : tensor<3x4xf32>
  // expected-error @+2 {{unexpected decimal integer literal for a floating point value}}
  // expected-note @+1 {{add a trailing dot to make the literal a float}}
  %y = mpg.leaky_relu %x alpha 1 : tensor<3x4xf32>
}

// -----

mpg.graph @leaky_relu_alpha_not_f64 {
  %x = mpg.input "x" : tensor<3x4xf32>
  // expected-error @+1 {{'mpg.leaky_relu' op attribute 'alpha' failed to satisfy constraint: 64-bit float attribute}}
  %y = "mpg.leaky_relu"(%x) {alpha = 2.0e-01 : f32} : (tensor<3x4xf32>) -> tensor<3x4xf32>
}

// -----

mpg.graph @leaky_relu_integer {
  %x = mpg.input "x" : tensor<3x4xi32>
  // expected-error @+1 {{'mpg.leaky_relu' op operand #0 must be statically shaped tensor of}}
  %y = mpg.leaky_relu %x alpha 2.0e-01 : tensor<3x4xi32>
}

// -----

mpg.graph @gelu_integer {
  %x = mpg.input "x" : tensor<3x4xi64>
  // expected-error @+1 {{'mpg.gelu' op operand #0 must be statically shaped tensor of}}
  %y = mpg.gelu %x approximate : tensor<3x4xi64>
}

// -----

mpg.graph @gelu_result_type {
  %x = mpg.input "x" : tensor<3x4xbf16>
  // expected-error @+1 {{'mpg.gelu' op requires the same type for all operands and results}}
  %y = "mpg.gelu"(%x) <{approximate}> : (tensor<3x4xbf16>) -> tensor<3x4xf32>
}

//===----------------------------------------------------------------------===//
// Broadcasting binary ops
//===----------------------------------------------------------------------===//

// -----

mpg.graph @add_element_types_differ {
  %x = mpg.input "x" : tensor<3x4xf32>
  %y = mpg.input "y" : tensor<4xf16>
  // expected-error @+1 {{'mpg.add' op expects operands of the same element type, got 'f32' and 'f16'}}
  %z = mpg.add %x, %y : tensor<3x4xf32>, tensor<4xf16> -> tensor<3x4xf32>
}

// -----

mpg.graph @sub_int_widths_differ {
  %x = mpg.input "x" : tensor<4xi32>
  %y = mpg.input "y" : tensor<i64>
  // expected-error @+1 {{'mpg.sub' op expects operands of the same element type, got 'i32' and 'i64'}}
  %z = mpg.sub %x, %y : tensor<4xi32>, tensor<i64> -> tensor<4xi32>
}

// -----

mpg.graph @mul_no_broadcast {
  %x = mpg.input "x" : tensor<3x4xf32>
  %y = mpg.input "y" : tensor<3xf32>
  // expected-error @+1 {{'mpg.mul' op shapes 3x4 and 3 do not broadcast (dimension 4 against 3)}}
  %z = mpg.mul %x, %y : tensor<3x4xf32>, tensor<3xf32> -> tensor<3x4xf32>
}

// -----

mpg.graph @div_no_broadcast_leading {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  %y = mpg.input "y" : tensor<5x1x4xf32>
  // expected-error @+1 {{'mpg.div' op shapes 2x3x4 and 5x1x4 do not broadcast (dimension 2 against 5)}}
  %z = mpg.div %x, %y : tensor<2x3x4xf32>, tensor<5x1x4xf32> -> tensor<2x3x4xf32>
}

// -----

mpg.graph @add_result_shape {
  %x = mpg.input "x" : tensor<3x4xf32>
  %y = mpg.input "y" : tensor<4xf32>
  // expected-error @+2 {{'mpg.add' op inferred type(s) 'tensor<3x4xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'mpg.add' op failed to infer returned types}}
  %z = mpg.add %x, %y : tensor<3x4xf32>, tensor<4xf32> -> tensor<4xf32>
}

// -----

// Broadcasting needs no explicit size-1 dimensions in the result either.
mpg.graph @maximum_result_rank {
  %x = mpg.input "x" : tensor<4xf32>
  %y = mpg.input "y" : tensor<f32>
  // expected-error @+2 {{'mpg.maximum' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<1x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %z = mpg.maximum %x, %y : tensor<4xf32>, tensor<f32> -> tensor<1x4xf32>
}

// -----

// Unlike matmul, the result of a pointwise op keeps the operands' element type.
mpg.graph @minimum_result_element_type {
  %x = mpg.input "x" : tensor<4xf16>
  // expected-error @+2 {{'mpg.minimum' op inferred type(s) 'tensor<4xf16>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %z = mpg.minimum %x, %x : tensor<4xf16>, tensor<4xf16> -> tensor<4xf32>
}

// -----

mpg.graph @pow_integer {
  %x = mpg.input "x" : tensor<3x4xi32>
  // expected-error @+1 {{'mpg.pow' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<3x4xi32>'}}
  %z = mpg.pow %x, %x : tensor<3x4xi32>, tensor<3x4xi32> -> tensor<3x4xi32>
}

// -----

mpg.graph @maximum_bool {
  %x = mpg.input "x" : tensor<4xi1>
  // expected-error @+1 {{'mpg.maximum' op operand #0 must be statically shaped tensor of}}
  %z = mpg.maximum %x, %x : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>
}

// -----

mpg.graph @add_unranked_result {
  %x = mpg.input "x" : tensor<3x4xf32>
  // expected-error @+1 {{'mpg.add' op result #0 must be statically shaped tensor of}}
  %z = "mpg.add"(%x, %x) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<*xf32>
}

//===----------------------------------------------------------------------===//
// mpg.compare
//===----------------------------------------------------------------------===//

// -----

mpg.graph @compare_element_types_differ {
  %x = mpg.input "x" : tensor<3x4xi32>
  %y = mpg.input "y" : tensor<i64>
  // expected-error @+1 {{'mpg.compare' op expects operands of the same element type, got 'i32' and 'i64'}}
  %z = mpg.compare lt, %x, %y : tensor<3x4xi32>, tensor<i64> -> tensor<3x4xi1>
}

// -----

mpg.graph @compare_no_broadcast {
  %x = mpg.input "x" : tensor<3x4xf32>
  %y = mpg.input "y" : tensor<3xf32>
  // expected-error @+1 {{'mpg.compare' op shapes 3x4 and 3 do not broadcast (dimension 4 against 3)}}
  %z = mpg.compare eq, %x, %y : tensor<3x4xf32>, tensor<3xf32> -> tensor<3x4xi1>
}

// -----

mpg.graph @compare_result_shape {
  %x = mpg.input "x" : tensor<3x4xi32>
  %y = mpg.input "y" : tensor<i32>
  // expected-error @+2 {{'mpg.compare' op inferred type(s) 'tensor<3x4xi1>' are incompatible with return type(s) of operation 'tensor<4xi1>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %z = mpg.compare ge, %x, %y : tensor<3x4xi32>, tensor<i32> -> tensor<4xi1>
}

// -----

mpg.graph @compare_result_not_bool {
  %x = mpg.input "x" : tensor<3x4xf32>
  // expected-error @+1 {{'mpg.compare' op result #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<3x4xf32>'}}
  %z = mpg.compare ne, %x, %x : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
}

// -----

mpg.graph @compare_bool_operands {
  %x = mpg.input "x" : tensor<3x4xi1>
  // expected-error @+1 {{'mpg.compare' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3x4xi1>'}}
  %z = mpg.compare eq, %x, %x : tensor<3x4xi1>, tensor<3x4xi1> -> tensor<3x4xi1>
}

// -----

mpg.graph @compare_unknown_predicate {
  %x = mpg.input "x" : tensor<3x4xf32>
  // expected-error @+1 {{custom op 'mpg.compare' expected string or keyword containing one of the following enum values for attribute 'predicate' [eq, ne, lt, le, gt, ge]}}
  %z = mpg.compare neq, %x, %x : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xi1>
}

// -----

mpg.graph @compare_missing_predicate {
  %x = mpg.input "x" : tensor<3x4xf32>
  // expected-error @+1 {{'mpg.compare' op requires attribute 'predicate'}}
  %z = "mpg.compare"(%x, %x) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xi1>
}

//===----------------------------------------------------------------------===//
// mpg.select
//===----------------------------------------------------------------------===//

// -----

mpg.graph @select_value_types_differ {
  %c = mpg.input "c" : tensor<3x4xi1>
  %x = mpg.input "x" : tensor<3x4xf32>
  %y = mpg.input "y" : tensor<f16>
  // expected-error @+1 {{'mpg.select' op expects on_true and on_false of the same element type, got 'f32' and 'f16'}}
  %z = mpg.select %c, %x, %y : tensor<3x4xi1>, tensor<3x4xf32>, tensor<f16> -> tensor<3x4xf32>
}

// -----

mpg.graph @select_condition_not_bool {
  %c = mpg.input "c" : tensor<3x4xf32>
  %x = mpg.input "x" : tensor<3x4xf32>
  // expected-error @+1 {{'mpg.select' op operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<3x4xf32>'}}
  %z = mpg.select %c, %x, %x : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
}

// -----

mpg.graph @select_condition_no_broadcast {
  %c = mpg.input "c" : tensor<4x3xi1>
  %x = mpg.input "x" : tensor<3x4xf32>
  %y = mpg.input "y" : tensor<f32>
  // expected-error @+1 {{'mpg.select' op shapes 4x3 and 3x4 do not broadcast (dimension 3 against 4)}}
  %z = mpg.select %c, %x, %y : tensor<4x3xi1>, tensor<3x4xf32>, tensor<f32> -> tensor<3x4xf32>
}

// -----

// The third operand is broadcast against the broadcast of the first two.
mpg.graph @select_on_false_no_broadcast {
  %c = mpg.input "c" : tensor<3x1xi1>
  %x = mpg.input "x" : tensor<1x4xi32>
  %y = mpg.input "y" : tensor<5xi32>
  // expected-error @+1 {{'mpg.select' op shapes 3x4 and 5 do not broadcast (dimension 4 against 5)}}
  %z = mpg.select %c, %x, %y : tensor<3x1xi1>, tensor<1x4xi32>, tensor<5xi32> -> tensor<3x4xi32>
}

// -----

mpg.graph @select_result_shape {
  %c = mpg.input "c" : tensor<3x1xi1>
  %x = mpg.input "x" : tensor<1x4xf32>
  %y = mpg.input "y" : tensor<4xf32>
  // expected-error @+2 {{'mpg.select' op inferred type(s) 'tensor<3x4xf32>' are incompatible with return type(s) of operation 'tensor<1x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %z = mpg.select %c, %x, %y : tensor<3x1xi1>, tensor<1x4xf32>, tensor<4xf32> -> tensor<1x4xf32>
}

// -----

mpg.graph @select_result_element_type {
  %c = mpg.input "c" : tensor<i1>
  %x = mpg.input "x" : tensor<4xf32>
  // expected-error @+2 {{'mpg.select' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi1>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %z = mpg.select %c, %x, %x : tensor<i1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
}

// -----

mpg.graph @select_value_bad_type {
  %c = mpg.input "c" : tensor<i1>
  %x = mpg.input "x" : tensor<4xf32>
  %u = builtin.unrealized_conversion_cast %x : tensor<4xf32> to tensor<4xi8>
  // expected-error @+1 {{'mpg.select' op operand #1 must be statically shaped tensor of}}
  %z = mpg.select %c, %u, %u : tensor<i1>, tensor<4xi8>, tensor<4xi8> -> tensor<4xi8>
}

//===----------------------------------------------------------------------===//
// mpg.cast
//===----------------------------------------------------------------------===//

// -----

mpg.graph @cast_shape {
  %x = mpg.input "x" : tensor<3x4xf32>
  // expected-error @+1 {{'mpg.cast' op requires the same shape for all operands and results}}
  %y = mpg.cast %x : tensor<3x4xf32> to tensor<4x3xf16>
}

// -----

mpg.graph @cast_rank {
  %x = mpg.input "x" : tensor<f32>
  // expected-error @+1 {{'mpg.cast' op requires the same shape for all operands and results}}
  %y = mpg.cast %x : tensor<f32> to tensor<1xf32>
}

// -----

mpg.graph @cast_unsupported_result {
  %x = mpg.input "x" : tensor<3x4xf32>
  // expected-error @+1 {{'mpg.cast' op result #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'tensor<3x4xi8>'}}
  %y = mpg.cast %x : tensor<3x4xf32> to tensor<3x4xi8>
}

// -----

mpg.graph @cast_dynamic_result {
  %x = mpg.input "x" : tensor<3x4xf32>
  // expected-error @+1 {{'mpg.cast' op result #0 must be statically shaped tensor of}}
  %y = mpg.cast %x : tensor<3x4xf32> to tensor<?x4xf16>
}
