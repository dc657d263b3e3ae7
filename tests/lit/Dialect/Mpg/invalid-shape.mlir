// RUN: mpc-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the shape ops: reshape, transpose, broadcast_to, slice,
// concat and embedding. A declared result type that differs from the inferred
// one is reported by the InferTypeOpInterface trait ("inferred type(s) ...
// are incompatible ...", then "failed to infer returned types").

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

mpg.graph @reshape_element_count {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  // expected-error @+1 {{'mpg.reshape' op cannot reshape 2x3x4 (24 elements) to 5x5 (25 elements)}}
  %y = mpg.reshape %x : tensor<2x3x4xf32> -> tensor<5x5xf32>
}

// -----

mpg.graph @reshape_scalar_element_count {
  %x = mpg.input "x" : tensor<2xf32>
  // expected-error @+1 {{'mpg.reshape' op cannot reshape 2 (2 elements) to scalar (1 elements)}}
  %y = mpg.reshape %x : tensor<2xf32> -> tensor<f32>
}

// -----

mpg.graph @reshape_element_type {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  // expected-error @+1 {{'mpg.reshape' op expects operand and result to have the same element type, got 'f32' and 'f16'}}
  %y = mpg.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf16>
}

// -----

mpg.graph @reshape_dynamic_result {
  %x = mpg.input "x" : tensor<2x3xf32>
  // expected-error @+1 {{'mpg.reshape' op result #0 must be statically shaped tensor}}
  %y = mpg.reshape %x : tensor<2x3xf32> -> tensor<?x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

mpg.graph @transpose_perm_too_short {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  // expected-error @+1 {{'mpg.transpose' op perm must be a permutation of [0, 3) for an operand of rank 3}}
  %y = mpg.transpose %x perm [1, 0] : tensor<2x3x4xf32> -> tensor<3x2xf32>
}

// -----

mpg.graph @transpose_perm_too_long {
  %x = mpg.input "x" : tensor<2x3xf32>
  // expected-error @+1 {{'mpg.transpose' op perm must be a permutation of [0, 2) for an operand of rank 2}}
  %y = mpg.transpose %x perm [1, 0, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
}

// -----

mpg.graph @transpose_perm_out_of_range {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  // expected-error @+1 {{'mpg.transpose' op perm must be a permutation of [0, 3) for an operand of rank 3}}
  %y = mpg.transpose %x perm [0, 1, 3] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
}

// -----

mpg.graph @transpose_perm_negative {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  // expected-error @+1 {{'mpg.transpose' op perm must be a permutation of [0, 3) for an operand of rank 3}}
  %y = mpg.transpose %x perm [0, -1, 1] : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
}

// -----

mpg.graph @transpose_perm_repeated {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  // expected-error @+1 {{'mpg.transpose' op perm must be a permutation of [0, 3) for an operand of rank 3}}
  %y = mpg.transpose %x perm [0, 0, 2] : tensor<2x3x4xf32> -> tensor<2x2x4xf32>
}

// -----

mpg.graph @transpose_result_shape {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  // expected-error @+2 {{'mpg.transpose' op inferred type(s) 'tensor<2x4x3xf32>' are incompatible with return type(s) of operation 'tensor<2x3x4xf32>'}}
  // expected-error @+1 {{'mpg.transpose' op failed to infer returned types}}
  %y = mpg.transpose %x perm [0, 2, 1] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
}

// -----

mpg.graph @transpose_result_element_type {
  %x = mpg.input "x" : tensor<2x3xf32>
  // expected-error @+2 {{'mpg.transpose' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<3x2xf16>'}}
  // expected-error @+1 {{'mpg.transpose' op failed to infer returned types}}
  %y = mpg.transpose %x perm [1, 0] : tensor<2x3xf32> -> tensor<3x2xf16>
}

// -----

mpg.graph @transpose_missing_perm {
  %x = mpg.input "x" : tensor<2x3xf32>
  // expected-error @+1 {{'mpg.transpose' op requires attribute 'perm'}}
  %y = "mpg.transpose"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// broadcast_to
//===----------------------------------------------------------------------===//

mpg.graph @broadcast_to_incompatible_dim {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  // expected-error @+1 {{'mpg.broadcast_to' op cannot broadcast 2x3x4 to 2x2x4}}
  %y = mpg.broadcast_to %x : tensor<2x3x4xf32> -> tensor<2x2x4xf32>
}

// -----

mpg.graph @broadcast_to_lower_rank {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  // expected-error @+1 {{'mpg.broadcast_to' op cannot broadcast 2x3x4 to 3x4}}
  %y = mpg.broadcast_to %x : tensor<2x3x4xf32> -> tensor<3x4xf32>
}

// -----

// Broadcasting stretches size-1 dimensions only; it never shrinks one.
mpg.graph @broadcast_to_shrink {
  %x = mpg.input "x" : tensor<4xf32>
  // expected-error @+1 {{'mpg.broadcast_to' op cannot broadcast 4 to 2x1}}
  %y = mpg.broadcast_to %x : tensor<4xf32> -> tensor<2x1xf32>
}

// -----

mpg.graph @broadcast_to_element_type {
  %x = mpg.input "x" : tensor<4xi32>
  // expected-error @+1 {{'mpg.broadcast_to' op expects operand and result to have the same element type, got 'i32' and 'i64'}}
  %y = mpg.broadcast_to %x : tensor<4xi32> -> tensor<2x4xi64>
}

// -----

mpg.graph @broadcast_to_dynamic_result {
  %x = mpg.input "x" : tensor<4xf32>
  // expected-error @+1 {{'mpg.broadcast_to' op result #0 must be statically shaped tensor}}
  %y = mpg.broadcast_to %x : tensor<4xf32> -> tensor<?x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

mpg.graph @slice_start_length {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  // expected-error @+1 {{'mpg.slice' op start, limit and step must each have one value per dimension (rank 3)}}
  %y = mpg.slice %x start [0, 0] limit [1, 1, 1] : tensor<2x3x4xf32> -> tensor<1x1x1xf32>
}

// -----

mpg.graph @slice_limit_length {
  %x = mpg.input "x" : tensor<2x3xf32>
  // expected-error @+1 {{'mpg.slice' op start, limit and step must each have one value per dimension (rank 2)}}
  %y = mpg.slice %x start [0, 0] limit [1, 1, 1] : tensor<2x3xf32> -> tensor<1x1xf32>
}

// -----

mpg.graph @slice_step_length {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  // expected-error @+1 {{'mpg.slice' op start, limit and step must each have one value per dimension (rank 3)}}
  %y = mpg.slice %x start [0, 0, 0] limit [1, 1, 1] step [1, 1] : tensor<2x3x4xf32> -> tensor<1x1x1xf32>
}

// -----

mpg.graph @slice_step_zero {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  // expected-error @+1 {{'mpg.slice' op step must be >= 1, got 0 in dimension 1}}
  %y = mpg.slice %x start [0, 0, 0] limit [1, 1, 1] step [1, 0, 1] : tensor<2x3x4xf32> -> tensor<1x1x1xf32>
}

// -----

mpg.graph @slice_step_negative {
  %x = mpg.input "x" : tensor<8xf32>
  // expected-error @+1 {{'mpg.slice' op step must be >= 1, got -1 in dimension 0}}
  %y = mpg.slice %x start [7] limit [0] step [-1] : tensor<8xf32> -> tensor<7xf32>
}

// -----

mpg.graph @slice_start_negative {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  // expected-error @+1 {{'mpg.slice' op dimension 1: expects 0 <= start (-1) <= limit (1) <= size (3)}}
  %y = mpg.slice %x start [0, -1, 0] limit [1, 1, 1] : tensor<2x3x4xf32> -> tensor<1x2x1xf32>
}

// -----

mpg.graph @slice_start_after_limit {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  // expected-error @+1 {{'mpg.slice' op dimension 1: expects 0 <= start (2) <= limit (1) <= size (3)}}
  %y = mpg.slice %x start [0, 2, 0] limit [1, 1, 1] : tensor<2x3x4xf32> -> tensor<1x1x1xf32>
}

// -----

mpg.graph @slice_limit_past_end {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  // expected-error @+1 {{'mpg.slice' op dimension 2: expects 0 <= start (0) <= limit (5) <= size (4)}}
  %y = mpg.slice %x start [0, 0, 0] limit [1, 1, 5] : tensor<2x3x4xf32> -> tensor<1x1x5xf32>
}

// -----

mpg.graph @slice_result_shape {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  // expected-error @+2 {{'mpg.slice' op inferred type(s) 'tensor<2x2x2xf32>' are incompatible with return type(s) of operation 'tensor<2x2x3xf32>'}}
  // expected-error @+1 {{'mpg.slice' op failed to infer returned types}}
  %y = mpg.slice %x start [0, 0, 1] limit [2, 3, 4] step [1, 2, 2] : tensor<2x3x4xf32> -> tensor<2x2x3xf32>
}

// -----

mpg.graph @slice_missing_limit {
  %x = mpg.input "x" : tensor<2x3xf32>
  // expected-error @+1 {{'mpg.slice' op requires attribute 'limit'}}
  %y = "mpg.slice"(%x) <{start = array<i64: 0, 0>}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// concat
//===----------------------------------------------------------------------===//

// The custom syntax cannot spell a concat without inputs; the generic one can.
mpg.graph @concat_no_input {
  // expected-error @+1 {{'mpg.concat' op expects at least one input}}
  %y = "mpg.concat"() <{axis = 0 : i64}> : () -> tensor<4xf32>
}

// -----

mpg.graph @concat_scalars {
  %s = mpg.input "s" : tensor<f32>
  // expected-error @+1 {{'mpg.concat' op expects inputs of rank >= 1}}
  %y = mpg.concat %s, %s axis 0 : tensor<f32>, tensor<f32> -> tensor<2xf32>
}

// -----

mpg.graph @concat_axis_too_large {
  %a = mpg.input "a" : tensor<2x3xf32>
  // expected-error @+1 {{'mpg.concat' op axis 2 is out of range for rank 2 (expected [-2, 2))}}
  %y = mpg.concat %a, %a axis 2 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
}

// -----

mpg.graph @concat_axis_too_negative {
  %a = mpg.input "a" : tensor<2x3xf32>
  // expected-error @+1 {{'mpg.concat' op axis -3 is out of range for rank 2 (expected [-2, 2))}}
  %y = mpg.concat %a, %a axis -3 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
}

// -----

mpg.graph @concat_element_types {
  %a = mpg.input "a" : tensor<2x3xf32>
  %c = mpg.input "c" : tensor<2x3xf16>
  // expected-error @+1 {{'mpg.concat' op expects inputs of one element type; input 2 differs from input 0}}
  %y = mpg.concat %a, %a, %c axis 0
      : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf16> -> tensor<6x3xf32>
}

// -----

mpg.graph @concat_other_dim_differs {
  %a = mpg.input "a" : tensor<2x3xf32>
  %b = mpg.input "b" : tensor<2x5xf32>
  // expected-error @+1 {{'mpg.concat' op input 1 of shape 2x5 does not match input 0 of shape 2x3 outside axis 0}}
  %y = mpg.concat %a, %b axis 0 : tensor<2x3xf32>, tensor<2x5xf32> -> tensor<4x3xf32>
}

// -----

mpg.graph @concat_rank_differs {
  %a = mpg.input "a" : tensor<2x3xf32>
  %b = mpg.input "b" : tensor<2x3x1xf32>
  // expected-error @+1 {{'mpg.concat' op input 2 of shape 2x3x1 does not match input 0 of shape 2x3 outside axis 1}}
  %y = mpg.concat %a, %a, %b axis -1
      : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3x1xf32> -> tensor<2x9xf32>
}

// -----

mpg.graph @concat_result_shape {
  %a = mpg.input "a" : tensor<2x3xf32>
  %b = mpg.input "b" : tensor<2x5xf32>
  // expected-error @+2 {{'mpg.concat' op inferred type(s) 'tensor<2x11xf32>' are incompatible with return type(s) of operation 'tensor<2x12xf32>'}}
  // expected-error @+1 {{'mpg.concat' op failed to infer returned types}}
  %y = mpg.concat %a, %a, %b axis 1
      : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x5xf32> -> tensor<2x12xf32>
}

// -----

mpg.graph @concat_missing_axis {
  %a = mpg.input "a" : tensor<2x3xf32>
  // expected-error @+1 {{'mpg.concat' op requires attribute 'axis'}}
  %y = "mpg.concat"(%a, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
}

// -----

mpg.graph @concat_dynamic_result {
  %a = mpg.input "a" : tensor<2x3xf32>
  // expected-error @+1 {{'mpg.concat' op result #0 must be statically shaped tensor}}
  %y = mpg.concat %a, %a axis 0 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<?x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// embedding
//===----------------------------------------------------------------------===//

mpg.graph @embedding_table_rank_three {
  %table = mpg.input "table" : tensor<2x3x4xf32>
  %ids = mpg.input "ids" : tensor<5xi32>
  // expected-error @+1 {{'mpg.embedding' op expects a rank-2 table [V, D], got 2x3x4}}
  %y = mpg.embedding %table, %ids : tensor<2x3x4xf32>, tensor<5xi32> -> tensor<5x4xf32>
}

// -----

mpg.graph @embedding_table_rank_one {
  %table = mpg.input "table" : tensor<10xf32>
  %ids = mpg.input "ids" : tensor<5xi64>
  // expected-error @+1 {{'mpg.embedding' op expects a rank-2 table [V, D], got 10}}
  %y = mpg.embedding %table, %ids : tensor<10xf32>, tensor<5xi64> -> tensor<5xf32>
}

// -----

mpg.graph @embedding_result_shape {
  %table = mpg.input "table" : tensor<10x4xf32>
  %ids = mpg.input "ids" : tensor<2x5xi32>
  // expected-error @+2 {{'mpg.embedding' op inferred type(s) 'tensor<2x5x4xf32>' are incompatible with return type(s) of operation 'tensor<10x4xf32>'}}
  // expected-error @+1 {{'mpg.embedding' op failed to infer returned types}}
  %y = mpg.embedding %table, %ids : tensor<10x4xf32>, tensor<2x5xi32> -> tensor<10x4xf32>
}

// -----

// The gathered rows keep the table's element type.
mpg.graph @embedding_result_element_type {
  %table = mpg.input "table" : tensor<10x4xf16>
  %ids = mpg.input "ids" : tensor<5xi32>
  // expected-error @+2 {{'mpg.embedding' op inferred type(s) 'tensor<5x4xf16>' are incompatible with return type(s) of operation 'tensor<5x4xf32>'}}
  // expected-error @+1 {{'mpg.embedding' op failed to infer returned types}}
  %y = mpg.embedding %table, %ids : tensor<10x4xf16>, tensor<5xi32> -> tensor<5x4xf32>
}

// -----

mpg.graph @embedding_float_indices {
  %table = mpg.input "table" : tensor<10x4xf32>
  %ids = mpg.input "ids" : tensor<5xf32>
  // expected-error @+1 {{'mpg.embedding' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<5xf32>'}}
  %y = mpg.embedding %table, %ids : tensor<10x4xf32>, tensor<5xf32> -> tensor<5x4xf32>
}

// -----

mpg.graph @embedding_integer_table {
  %table = mpg.input "table" : tensor<10x4xi32>
  %ids = mpg.input "ids" : tensor<5xi32>
  // expected-error @+1 {{'mpg.embedding' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<10x4xi32>'}}
  %y = mpg.embedding %table, %ids : tensor<10x4xi32>, tensor<5xi32> -> tensor<5x4xi32>
}

// -----

mpg.graph @reshape_element_count_overflow {
  %x = mpg.input "x" : tensor<4294967296x4294967296xf32>
  // expected-error @+1 {{'mpg.reshape' op element count of 4294967296x4294967296 overflows 64-bit integers}}
  %y = mpg.reshape %x : tensor<4294967296x4294967296xf32> -> tensor<0xf32>
}
