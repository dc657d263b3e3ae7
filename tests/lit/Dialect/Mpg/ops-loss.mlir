// RUN: mpc-opt %s | mpc-opt | FileCheck %s
// RUN: mpc-opt %s -mlir-print-op-generic | mpc-opt | FileCheck %s

// Round trip of the loss ops: softmax_cross_entropy and mse_loss.

// CHECK-LABEL: mpg.graph @softmax_cross_entropy
mpg.graph @softmax_cross_entropy {
  // CHECK: %logits = mpg.input "logits" : tensor<64x10xf32>
  %logits = mpg.input "logits" : tensor<64x10xf32>
  // CHECK: %labels = mpg.input "labels" : tensor<64xi32>
  %labels = mpg.input "labels" : tensor<64xi32>
  // CHECK: %[[LOSS:.+]] = mpg.softmax_cross_entropy %logits, %labels : tensor<64x10xf32>, tensor<64xi32> -> tensor<f32>
  %loss = mpg.softmax_cross_entropy %logits, %labels
      : tensor<64x10xf32>, tensor<64xi32> -> tensor<f32>
  // CHECK: mpg.minimize %[[LOSS]] optimizer(sgd, lr = 1.000000e-01) : tensor<f32>
  mpg.minimize %loss optimizer(sgd, lr = 1.000000e-01) : tensor<f32>
}

// CHECK-LABEL: mpg.graph @softmax_cross_entropy_i64_labels
mpg.graph @softmax_cross_entropy_i64_labels {
  %logits = mpg.input "logits" : tensor<8x3xf32>
  %labels = mpg.input "labels" : tensor<8xi64>
  // CHECK: mpg.softmax_cross_entropy %logits, %labels : tensor<8x3xf32>, tensor<8xi64> -> tensor<f32>
  %loss = mpg.softmax_cross_entropy %logits, %labels
      : tensor<8x3xf32>, tensor<8xi64> -> tensor<f32>
}

// CHECK-LABEL: mpg.graph @softmax_cross_entropy_f16_to_f32
mpg.graph @softmax_cross_entropy_f16_to_f32 {
  %logits = mpg.input "logits" : tensor<8x3xf16>
  %labels = mpg.input "labels" : tensor<8xi32>
  // CHECK: mpg.softmax_cross_entropy %logits, %labels : tensor<8x3xf16>, tensor<8xi32> -> tensor<f32>
  %loss = mpg.softmax_cross_entropy %logits, %labels
      : tensor<8x3xf16>, tensor<8xi32> -> tensor<f32>
}

// CHECK-LABEL: mpg.graph @softmax_cross_entropy_bf16
mpg.graph @softmax_cross_entropy_bf16 {
  %logits = mpg.input "logits" : tensor<1x2xbf16>
  %labels = mpg.input "labels" : tensor<1xi64>
  // CHECK: mpg.softmax_cross_entropy %logits, %labels : tensor<1x2xbf16>, tensor<1xi64> -> tensor<bf16>
  %loss = mpg.softmax_cross_entropy %logits, %labels
      : tensor<1x2xbf16>, tensor<1xi64> -> tensor<bf16>
}

// CHECK-LABEL: mpg.graph @mse_loss
mpg.graph @mse_loss {
  // CHECK: %pred = mpg.input "pred" : tensor<32x1xf32>
  %pred = mpg.input "pred" : tensor<32x1xf32>
  // CHECK: %target = mpg.input "target" : tensor<32x1xf32>
  %target = mpg.input "target" : tensor<32x1xf32>
  // CHECK: %[[LOSS:.+]] = mpg.mse_loss %pred, %target : tensor<32x1xf32>, tensor<32x1xf32> -> tensor<f32>
  %loss = mpg.mse_loss %pred, %target : tensor<32x1xf32>, tensor<32x1xf32> -> tensor<f32>
  // CHECK: mpg.output "loss" %[[LOSS]] : tensor<f32>
  mpg.output "loss" %loss : tensor<f32>
}

// CHECK-LABEL: mpg.graph @mse_loss_f16_to_f32
mpg.graph @mse_loss_f16_to_f32 {
  %pred = mpg.input "pred" : tensor<4x5x6xf16>
  %target = mpg.input "target" : tensor<4x5x6xf16>
  // CHECK: mpg.mse_loss %pred, %target : tensor<4x5x6xf16>, tensor<4x5x6xf16> -> tensor<f32>
  %loss = mpg.mse_loss %pred, %target : tensor<4x5x6xf16>, tensor<4x5x6xf16> -> tensor<f32>
}

// CHECK-LABEL: mpg.graph @mse_loss_scalar_f64
mpg.graph @mse_loss_scalar_f64 {
  %pred = mpg.input "pred" : tensor<f64>
  %target = mpg.input "target" : tensor<f64>
  // CHECK: mpg.mse_loss %pred, %target : tensor<f64>, tensor<f64> -> tensor<f64>
  %loss = mpg.mse_loss %pred, %target : tensor<f64>, tensor<f64> -> tensor<f64>
}

// CHECK-LABEL: mpg.graph @mse_loss_f32_to_f16
mpg.graph @mse_loss_f32_to_f16 {
  %pred = mpg.input "pred" : tensor<16xf32>
  %target = mpg.input "target" : tensor<16xf32>
  // CHECK: mpg.mse_loss %pred, %target : tensor<16xf32>, tensor<16xf32> -> tensor<f16>
  %loss = mpg.mse_loss %pred, %target : tensor<16xf32>, tensor<16xf32> -> tensor<f16>
}
