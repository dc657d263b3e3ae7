// RUN: mpc-opt %s -split-input-file --mpg-autodiff --mpg-all-reduce-gradients | FileCheck %s
// RUN: mpc-opt %s -split-input-file --mpg-autodiff --mpg-all-reduce-gradients=bucket-bytes=1 | FileCheck %s --check-prefix=ALONE
// RUN: mpc-opt %s -split-input-file --mpg-autodiff --mpg-all-reduce-gradients=bucket-bytes=40 | FileCheck %s --check-prefix=TWO

// A linear layer: the bias gradient [3] is computed first, then the weight
// gradient [4, 3]. By default (25 MiB) one bucket: both flattened, joined
// after the last of them, one mean over the ranks, cut apart for the
// updates. The loss output becomes its mean.
// CHECK-LABEL: mpg.graph @linear
// CHECK: %[[DB:.+]] = mpg.reshape %{{.+}} : tensor<1x3xf32> -> tensor<3xf32>
// CHECK: %[[DW:.+]] = mpg.matmul %x, %{{.+}} transpose_a
// CHECK-NEXT: %[[FW:.+]] = mpg.reshape %[[DW]] : tensor<4x3xf32> -> tensor<12xf32>
// CHECK-NEXT: %[[BUCKET:.+]] = mpg.concat %[[DB]], %[[FW]] axis 0 : tensor<3xf32>, tensor<12xf32> -> tensor<15xf32>
// CHECK-NEXT: %[[MEAN:.+]] = mpg.all_reduce mean %[[BUCKET]] {mpg.precision_decision = {category = "all-reduce", compute = f32, reason = "all-reduce: gradients widened to f32 {{.+}}", storage = f32}} : tensor<15xf32>
// CHECK-NEXT: %[[MB:.+]] = mpg.slice %[[MEAN]] start [0] limit [3] : tensor<15xf32> -> tensor<3xf32>
// CHECK-NEXT: %[[SW:.+]] = mpg.slice %[[MEAN]] start [3] limit [15] : tensor<15xf32> -> tensor<12xf32>
// CHECK-NEXT: %[[MW:.+]] = mpg.reshape %[[SW]] : tensor<12xf32> -> tensor<4x3xf32>
// CHECK: mpg.sgd %w, %[[MW]], %{{.+}}
// CHECK: mpg.sgd %b, %[[MB]], %{{.+}}
// CHECK: %[[LOSS:.+]] = mpg.all_reduce mean %{{.+}} : tensor<f32>
// CHECK-NEXT: mpg.output "loss" %[[LOSS]] : tensor<f32>
// CHECK-NOT: mpg.all_reduce
// A bucket of at least 1 byte holds one gradient: each is reduced as it
// is, right after it is computed (the bias first).
// ALONE-LABEL: mpg.graph @linear
// ALONE: %[[DB:.+]] = mpg.reshape %{{.+}} : tensor<1x3xf32> -> tensor<3xf32>
// ALONE-NEXT: %[[MB:.+]] = mpg.all_reduce mean %[[DB]] {{.+}} : tensor<3xf32>
// ALONE: %[[DW:.+]] = mpg.matmul %x, %{{.+}} transpose_a
// ALONE-NEXT: %[[MW:.+]] = mpg.all_reduce mean %[[DW]] {{.+}} : tensor<4x3xf32>
// ALONE-NOT: mpg.concat
// ALONE: mpg.sgd %w, %[[MW]], %{{.+}}
// ALONE: mpg.sgd %b, %[[MB]], %{{.+}}
// At 40 bytes, the bias (12 bytes) and the weight (48) still share one.
// TWO-LABEL: mpg.graph @linear
// TWO: mpg.concat {{.+}} -> tensor<15xf32>
mpg.graph @linear {
  %x = mpg.input "x" : tensor<8x4xf32>
  %y = mpg.input "y" : tensor<8xi32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<4x3xf32>
  %b = mpg.param "b" init(zeros) : tensor<3xf32>
  %z = mpg.matmul %x, %w : tensor<8x4xf32>, tensor<4x3xf32> -> tensor<8x3xf32>
  %h = mpg.add %z, %b : tensor<8x3xf32>, tensor<3xf32> -> tensor<8x3xf32>
  %l = mpg.softmax_cross_entropy %h, %y : tensor<8x3xf32>, tensor<8xi32> -> tensor<f32>
  mpg.output "logits" %h : tensor<8x3xf32>
  mpg.minimize %l optimizer(sgd, lr = 0.5) : tensor<f32>
}

// -----

// Two layers, buckets of 40 bytes: the second layer's gradients (computed
// first) fill the first bucket, reduced before the first layer's gradients
// are computed.
// CHECK-LABEL: mpg.graph @two_layers
// ALONE-LABEL: mpg.graph @two_layers
// TWO-LABEL: mpg.graph @two_layers
// TWO: %[[DW2:.+]] = mpg.matmul %{{.+}}, %{{.+}} transpose_a : tensor<8x4xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
// TWO: mpg.concat {{.+}} -> tensor<15xf32>
// TWO-NEXT: mpg.all_reduce mean
// TWO: %[[DW1:.+]] = mpg.matmul %x, %{{.+}} transpose_a : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
// TWO: mpg.concat {{.+}} -> tensor<20xf32>
// TWO-NEXT: mpg.all_reduce mean
mpg.graph @two_layers {
  %x = mpg.input "x" : tensor<8x4xf32>
  %y = mpg.input "y" : tensor<8xi32>
  %w1 = mpg.param "w1" init(glorot_uniform) : tensor<4x4xf32>
  %b1 = mpg.param "b1" init(zeros) : tensor<4xf32>
  %w2 = mpg.param "w2" init(glorot_uniform) : tensor<4x3xf32>
  %b2 = mpg.param "b2" init(zeros) : tensor<3xf32>
  %z1 = mpg.matmul %x, %w1 : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %h1 = mpg.add %z1, %b1 : tensor<8x4xf32>, tensor<4xf32> -> tensor<8x4xf32>
  %a1 = mpg.tanh %h1 : tensor<8x4xf32>
  %z2 = mpg.matmul %a1, %w2 : tensor<8x4xf32>, tensor<4x3xf32> -> tensor<8x3xf32>
  %h2 = mpg.add %z2, %b2 : tensor<8x3xf32>, tensor<3xf32> -> tensor<8x3xf32>
  %l = mpg.softmax_cross_entropy %h2, %y : tensor<8x3xf32>, tensor<8xi32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.5) : tensor<f32>
}

// -----

// Not changed: a forward step (no updates), and a graph that already
// all-reduces.
// CHECK-LABEL: mpg.graph @forward
// CHECK-NOT: mpg.all_reduce
// CHECK: mpg.output "y"
mpg.graph @forward {
  %x = mpg.input "x" : tensor<8x4xf32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<4x3xf32>
  %z = mpg.matmul %x, %w : tensor<8x4xf32>, tensor<4x3xf32> -> tensor<8x3xf32>
  mpg.output "y" %z : tensor<8x3xf32>
}

// -----

// (the user's all-reduce, then its VJP's; no mean is added)
// CHECK-LABEL: mpg.graph @already_reduced
// CHECK: mpg.all_reduce sum %{{.+}} : tensor<8x3xf32>
// CHECK: mpg.all_reduce sum %{{.+}} : tensor<8x3xf32>
// CHECK-NOT: mpg.all_reduce
// CHECK: mpg.output "loss" %{{.+}} : tensor<f32>
mpg.graph @already_reduced {
  %x = mpg.input "x" : tensor<8x4xf32>
  %y = mpg.input "y" : tensor<8xi32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<4x3xf32>
  %z = mpg.matmul %x, %w : tensor<8x4xf32>, tensor<4x3xf32> -> tensor<8x3xf32>
  %h = mpg.all_reduce sum %z : tensor<8x3xf32>
  %l = mpg.softmax_cross_entropy %h, %y : tensor<8x3xf32>, tensor<8xi32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.5) : tensor<f32>
}
