// RUN: mpc-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the loss ops: softmax_cross_entropy and mse_loss. Both
// produce a rank-0 float of any float type, so a declared result type can
// only be wrong by its ODS constraint.

//===----------------------------------------------------------------------===//
// softmax_cross_entropy
//===----------------------------------------------------------------------===//

mpg.graph @sce_logits_rank_three {
  %logits = mpg.input "logits" : tensor<4x3x2xf32>
  %labels = mpg.input "labels" : tensor<4xi32>
  // expected-error @+1 {{'mpg.softmax_cross_entropy' op expects logits of rank 2 [N, C], got 4x3x2}}
  %loss = mpg.softmax_cross_entropy %logits, %labels
      : tensor<4x3x2xf32>, tensor<4xi32> -> tensor<f32>
}

// -----

mpg.graph @sce_logits_rank_one {
  %logits = mpg.input "logits" : tensor<4xf32>
  %labels = mpg.input "labels" : tensor<4xi32>
  // expected-error @+1 {{'mpg.softmax_cross_entropy' op expects logits of rank 2 [N, C], got 4}}
  %loss = mpg.softmax_cross_entropy %logits, %labels : tensor<4xf32>, tensor<4xi32> -> tensor<f32>
}

// -----

mpg.graph @sce_labels_batch_mismatch {
  %logits = mpg.input "logits" : tensor<4x3xf32>
  %labels = mpg.input "labels" : tensor<5xi32>
  // expected-error @+1 {{'mpg.softmax_cross_entropy' op expects labels of shape 4 (one per row of the logits), got 5}}
  %loss = mpg.softmax_cross_entropy %logits, %labels : tensor<4x3xf32>, tensor<5xi32> -> tensor<f32>
}

// -----

mpg.graph @sce_labels_rank_two {
  %logits = mpg.input "logits" : tensor<4x3xf32>
  %labels = mpg.input "labels" : tensor<4x1xi64>
  // expected-error @+1 {{'mpg.softmax_cross_entropy' op expects labels of shape 4 (one per row of the logits), got 4x1}}
  %loss = mpg.softmax_cross_entropy %logits, %labels : tensor<4x3xf32>, tensor<4x1xi64> -> tensor<f32>
}

// -----

mpg.graph @sce_labels_scalar {
  %logits = mpg.input "logits" : tensor<4x3xf32>
  %labels = mpg.input "labels" : tensor<i32>
  // expected-error @+1 {{'mpg.softmax_cross_entropy' op expects labels of shape 4 (one per row of the logits), got scalar}}
  %loss = mpg.softmax_cross_entropy %logits, %labels : tensor<4x3xf32>, tensor<i32> -> tensor<f32>
}

// -----

mpg.graph @sce_bool_labels {
  %logits = mpg.input "logits" : tensor<4x3xf32>
  %labels = mpg.input "labels" : tensor<4xi1>
  // expected-error @+1 {{'mpg.softmax_cross_entropy' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %loss = mpg.softmax_cross_entropy %logits, %labels : tensor<4x3xf32>, tensor<4xi1> -> tensor<f32>
}

// -----

mpg.graph @sce_float_labels {
  %logits = mpg.input "logits" : tensor<4x3xf32>
  %labels = mpg.input "labels" : tensor<4xf32>
  // expected-error @+1 {{'mpg.softmax_cross_entropy' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xf32>'}}
  %loss = mpg.softmax_cross_entropy %logits, %labels : tensor<4x3xf32>, tensor<4xf32> -> tensor<f32>
}

// -----

mpg.graph @sce_integer_logits {
  %logits = mpg.input "logits" : tensor<4x3xi32>
  %labels = mpg.input "labels" : tensor<4xi32>
  // expected-error @+1 {{'mpg.softmax_cross_entropy' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4x3xi32>'}}
  %loss = mpg.softmax_cross_entropy %logits, %labels : tensor<4x3xi32>, tensor<4xi32> -> tensor<f32>
}

// -----

mpg.graph @sce_per_row_result {
  %logits = mpg.input "logits" : tensor<4x3xf32>
  %labels = mpg.input "labels" : tensor<4xi32>
  // expected-error @+1 {{'mpg.softmax_cross_entropy' op result #0 must be 0D tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xf32>'}}
  %loss = mpg.softmax_cross_entropy %logits, %labels : tensor<4x3xf32>, tensor<4xi32> -> tensor<4xf32>
}

// -----

mpg.graph @sce_integer_result {
  %logits = mpg.input "logits" : tensor<4x3xf32>
  %labels = mpg.input "labels" : tensor<4xi32>
  // expected-error @+1 {{'mpg.softmax_cross_entropy' op result #0 must be 0D tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<i32>'}}
  %loss = mpg.softmax_cross_entropy %logits, %labels : tensor<4x3xf32>, tensor<4xi32> -> tensor<i32>
}

// -----

//===----------------------------------------------------------------------===//
// mse_loss
//===----------------------------------------------------------------------===//

mpg.graph @mse_shape_mismatch {
  %pred = mpg.input "pred" : tensor<4x3xf32>
  %target = mpg.input "target" : tensor<3x4xf32>
  // expected-error @+1 {{'mpg.mse_loss' op expects prediction and target of the same type, got 'tensor<4x3xf32>' and 'tensor<3x4xf32>'}}
  %loss = mpg.mse_loss %pred, %target : tensor<4x3xf32>, tensor<3x4xf32> -> tensor<f32>
}

// -----

mpg.graph @mse_element_type_mismatch {
  %pred = mpg.input "pred" : tensor<4x3xf16>
  %target = mpg.input "target" : tensor<4x3xf32>
  // expected-error @+1 {{'mpg.mse_loss' op expects prediction and target of the same type, got 'tensor<4x3xf16>' and 'tensor<4x3xf32>'}}
  %loss = mpg.mse_loss %pred, %target : tensor<4x3xf16>, tensor<4x3xf32> -> tensor<f32>
}

// -----

// No broadcasting between prediction and target.
mpg.graph @mse_no_broadcast {
  %pred = mpg.input "pred" : tensor<32x1xf32>
  %target = mpg.input "target" : tensor<32xf32>
  // expected-error @+1 {{'mpg.mse_loss' op expects prediction and target of the same type, got 'tensor<32x1xf32>' and 'tensor<32xf32>'}}
  %loss = mpg.mse_loss %pred, %target : tensor<32x1xf32>, tensor<32xf32> -> tensor<f32>
}

// -----

mpg.graph @mse_integer_operands {
  %pred = mpg.input "pred" : tensor<4x3xi32>
  // expected-error @+1 {{'mpg.mse_loss' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4x3xi32>'}}
  %loss = mpg.mse_loss %pred, %pred : tensor<4x3xi32>, tensor<4x3xi32> -> tensor<f32>
}

// -----

mpg.graph @mse_non_scalar_result {
  %pred = mpg.input "pred" : tensor<4x3xf32>
  // expected-error @+1 {{'mpg.mse_loss' op result #0 must be 0D tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4x3xf32>'}}
  %loss = mpg.mse_loss %pred, %pred : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
}
