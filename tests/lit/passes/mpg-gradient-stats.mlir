// RUN: mpc-opt %s --mpg-autodiff --mpg-gradient-stats -split-input-file | FileCheck %s

// Per gradient an update reads: |g| flattened to [n, 1], compared with the
// 48 powers of two 2^-40 .. 2^7 and summed over the values, plus the count
// of non-zero values; the sums over all gradients are two outputs.
// CHECK-LABEL: mpg.graph @linear
// CHECK: %[[LIM:.+]] = mpg.constant dense<[{{.*}}]> : tensor<1x48xf32>
// CHECK: %[[F:.+]] = mpg.reshape %{{.+}} : tensor<8x4xf32> -> tensor<32x1xf32>
// CHECK-NEXT: %[[A:.+]] = mpg.abs %[[F]]
// CHECK-NEXT: %[[GE:.+]] = mpg.compare ge, %[[A]], %[[LIM]] : tensor<32x1xf32>, tensor<1x48xf32> -> tensor<32x48xi1>
// CHECK-NEXT: %[[ONES:.+]] = mpg.select %[[GE]]
// CHECK-NEXT: %[[C:.+]] = mpg.reduce_sum %[[ONES]] axes [0] : tensor<32x48xf32> -> tensor<48xf32>
// CHECK: mpg.reshape %{{.+}} : tensor<4xf32> -> tensor<4x1xf32>
// CHECK: %[[TOTAL:.+]] = mpg.add %[[C]], %{{.+}} : tensor<48xf32>, tensor<48xf32> -> tensor<48xf32>
// CHECK: mpg.output "grad_nonzero" %{{.+}} : tensor<f32>
// CHECK-NEXT: mpg.output "grad_at_least" %[[TOTAL]] : tensor<48xf32>
mpg.graph @linear {
  %x = mpg.input "x" : tensor<2x8xf32>
  %labels = mpg.input "labels" : tensor<2xi32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<8x4xf32>
  %b = mpg.param "b" init(zeros) : tensor<4xf32>
  %y = mpg.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %z = mpg.add %y, %b : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %l = mpg.softmax_cross_entropy %z, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.1) : tensor<f32>
}

// -----

// Without optimizer updates (an inference graph) nothing is added.
// CHECK-LABEL: mpg.graph @inference
// CHECK-NOT: grad_
mpg.graph @inference {
  %x = mpg.input "x" : tensor<2x8xf32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<8x4xf32>
  %y = mpg.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  mpg.output "y" %y : tensor<2x4xf32>
}
