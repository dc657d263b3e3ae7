// RUN: mpc-opt %s --mpg-autodiff --mpg-clip-gradients | FileCheck %s

// An f64 gradient is clipped in f64 (the factor cast to it), not rounded
// to f32 on its way to the update.
// CHECK-LABEL: mpg.graph @double
// CHECK: %[[F:.+]] = mpg.minimum
// CHECK: %[[F64:.+]] = mpg.cast %[[F]] : tensor<f32> to tensor<f64>
// CHECK-NEXT: %[[C:.+]] = mpg.mul %{{.+}}, %[[F64]] : tensor<8x4xf64>, tensor<f64> -> tensor<8x4xf64>
// CHECK-NEXT: mpg.sgd %{{.+}}, %[[C]]
mpg.graph @double {
  %x = mpg.input "x" : tensor<2x8xf64>
  %w = mpg.param "w" init(glorot_uniform) : tensor<8x4xf64>
  %y = mpg.matmul %x, %w : tensor<2x8xf64>, tensor<8x4xf64> -> tensor<2x4xf64>
  %l = mpg.reduce_mean %y axes [0, 1] : tensor<2x4xf64> -> tensor<f64>
  mpg.minimize %l optimizer(sgd, lr = 0.1, clip_grad_norm = 1.0) : tensor<f64>
}
