// RUN: mpc-opt %s --mpg-autodiff -split-input-file -verify-diagnostics | FileCheck %s
// RUN: mpc-opt %s --mpg-autodiff -split-input-file -verify-diagnostics | mpc-opt -split-input-file > /dev/null

// A linear layer with a bias and cross-entropy: the seed is 1, the bias
// gradient is summed over the broadcast batch dimension, the weight gradient
// is x^T dy, and SGD updates are written back; the minimize becomes the
// output "loss".
// CHECK-LABEL: mpg.graph @linear
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[Y:.+]] = mpg.input "y"
// CHECK: %[[W:.+]] = mpg.param "w"
// CHECK: %[[B:.+]] = mpg.param "b"
// CHECK: %[[MM:.+]] = mpg.matmul %[[X]], %[[W]]
// CHECK: %[[Z:.+]] = mpg.add %[[MM]], %[[B]]
// CHECK: %[[L:.+]] = mpg.softmax_cross_entropy %[[Z]], %[[Y]]
// CHECK: %[[ONE:.+]] = mpg.constant {mpg.loss_seed} dense<1.000000e+00> : tensor<f32>
// CHECK: %[[DZ:.+]] = mpg.softmax_cross_entropy_grad %[[Z]], %[[Y]], %[[ONE]]
// CHECK: %[[DBK:.+]] = mpg.reduce_sum %[[DZ]] axes [0] keepdim : tensor<8x3xf32> -> tensor<1x3xf32>
// CHECK: %[[DB:.+]] = mpg.reshape %[[DBK]] : tensor<1x3xf32> -> tensor<3xf32>
// CHECK: %[[DW:.+]] = mpg.matmul %[[X]], %[[DZ]] transpose_a : tensor<8x4xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
// CHECK: %[[LR:.+]] = mpg.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[W2:.+]] = mpg.sgd %[[W]], %[[DW]], %[[LR]] :
// CHECK: mpg.state_write %[[W]], %[[W2]]
// CHECK: %[[B2:.+]] = mpg.sgd %[[B]], %[[DB]], %[[LR]] :
// CHECK: mpg.state_write %[[B]], %[[B2]]
// CHECK: mpg.output "loss" %[[L]]
// CHECK-NOT: mpg.minimize
mpg.graph @linear {
  %x = mpg.input "x" : tensor<8x4xf32>
  %y = mpg.input "y" : tensor<8xi32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<4x3xf32>
  %b = mpg.param "b" init(zeros) : tensor<3xf32>
  %mm = mpg.matmul %x, %w : tensor<8x4xf32>, tensor<4x3xf32> -> tensor<8x3xf32>
  %z = mpg.add %mm, %b : tensor<8x3xf32>, tensor<3xf32> -> tensor<8x3xf32>
  %l = mpg.softmax_cross_entropy %z, %y : tensor<8x3xf32>, tensor<8xi32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.5) : tensor<f32>
}

// -----

// A value used twice gets the sum of both contributions; a frozen parameter
// gets no update.
// CHECK-LABEL: mpg.graph @used_twice
// CHECK: %[[W:.+]] = mpg.param "w"
// CHECK: %[[F:.+]] = mpg.param "f" frozen
// CHECK: %[[SQ:.+]] = mpg.mul %[[W]], %[[W]]
// CHECK: %[[G1:.+]] = mpg.mul %{{.+}}, %[[W]]
// CHECK: %[[G2:.+]] = mpg.mul %{{.+}}, %[[W]]
// CHECK: %[[G:.+]] = mpg.add %[[G1]], %[[G2]]
// CHECK: mpg.sgd %[[W]], %[[G]]
// CHECK-NOT: mpg.sgd %[[F]]
// CHECK-NOT: mpg.state_write %[[F]]
mpg.graph @used_twice {
  %w = mpg.param "w" init(ones) : tensor<4xf32>
  %f = mpg.param "f" frozen init(ones) : tensor<4xf32>
  %sq = mpg.mul %w, %w : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %s = mpg.mul %sq, %f : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %l = mpg.reduce_sum %s axes [0] : tensor<4xf32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.1) : tensor<f32>
}

// -----

// Momentum creates a zero-initialised buffer per parameter; Adam creates two
// moments per parameter and one shared step counter, incremented each step.
// CHECK-LABEL: mpg.graph @adam
// CHECK: %[[W:.+]] = mpg.param "w"
// CHECK: %[[STEP:.+]] = mpg.state "optimizer.step" init(zeros) : tensor<i64>
// CHECK: %[[NEXT:.+]] = mpg.add %[[STEP]], %{{.+}} : tensor<i64>, tensor<i64> -> tensor<i64>
// CHECK: mpg.state_write %[[STEP]], %[[NEXT]]
// CHECK: %[[M:.+]] = mpg.state "w.exp_avg" init(zeros) : tensor<4xf32>
// CHECK: %[[V:.+]] = mpg.state "w.exp_avg_sq" init(zeros) : tensor<4xf32>
// CHECK: %[[P0:.+]], %[[P1:.+]], %[[P2:.+]] = mpg.adamw %[[W]], %{{.+}}, %[[M]], %[[V]], %{{.+}}, %[[NEXT]] beta2 0.98999999999999999
// CHECK: mpg.state_write %[[M]], %[[P1]]
// CHECK: mpg.state_write %[[V]], %[[P2]]
// CHECK: mpg.state_write %[[W]], %[[P0]]
mpg.graph @adam {
  %w = mpg.param "w" init(ones) : tensor<4xf32>
  %e = mpg.exp %w : tensor<4xf32>
  %l = mpg.reduce_mean %e axes [0] : tensor<4xf32> -> tensor<f32>
  mpg.minimize %l optimizer(adamw, lr = 1.0e-3, beta2 = 0.99) : tensor<f32>
}

// -----

// CHECK-LABEL: mpg.graph @momentum
// CHECK: %[[V:.+]] = mpg.state "w.momentum_buffer" init(zeros) : tensor<4xf32>
// CHECK: %[[NEW:.+]], %[[VEL:.+]] = mpg.sgd %{{.+}}, %{{.+}}, %{{.+}}, %[[V]] momentum 9.000000e-01 nesterov
// CHECK: mpg.state_write %[[V]], %[[VEL]]
mpg.graph @momentum {
  %w = mpg.param "w" init(ones) : tensor<4xf32>
  %l = mpg.reduce_sum %w axes [0] : tensor<4xf32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.1, momentum = 0.9, nesterov = true) : tensor<f32>
}

// -----

// An inference graph (no mpg.minimize) is left alone.
// CHECK-LABEL: mpg.graph @inference
// CHECK-NEXT: mpg.input
// CHECK-NEXT: mpg.param
// CHECK-NEXT: mpg.matmul
// CHECK-NEXT: mpg.output
// CHECK-NEXT: }
mpg.graph @inference {
  %x = mpg.input "x" : tensor<2x4xf32>
  %w = mpg.param "w" init(ones) : tensor<4x3xf32>
  %y = mpg.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  mpg.output "y" %y : tensor<2x3xf32>
}

// -----

// A parameter the loss does not use is reported and not updated.
// CHECK-LABEL: mpg.graph @unused_param
// CHECK-NOT: mpg.state_write %u
mpg.graph @unused_param {
  %w = mpg.param "w" init(ones) : tensor<4xf32>
  // expected-warning @+1 {{parameter 'u' does not affect the loss; it is not updated}}
  %u = mpg.param "u" init(ones) : tensor<4xf32>
  %l = mpg.reduce_sum %w axes [0] : tensor<4xf32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.1) : tensor<f32>
}

// -----

mpg.graph @loss_name_taken {
  %w = mpg.param "w" init(ones) : tensor<4xf32>
  %l = mpg.reduce_sum %w axes [0] : tensor<4xf32> -> tensor<f32>
  // expected-error @+1 {{mpg-autodiff names the loss output "loss", but the graph already has an output with that name}}
  mpg.output "loss" %w : tensor<4xf32>
  mpg.minimize %l optimizer(sgd, lr = 0.1) : tensor<f32>
}

// -----

// ReLU's gradient is selected by its result (y > 0 exactly where x > 0), so
// the pre-activation %h is not used by the backward pass and a GEMM that
// produces it can take the ReLU as its epilogue.
// CHECK-LABEL: mpg.graph @relu_from_result
// CHECK: %[[H:.+]] = mpg.add
// CHECK: %[[R:.+]] = mpg.relu %[[H]]
// CHECK-NOT: mpg.compare gt, %[[H]]
// CHECK: mpg.compare gt, %[[R]], %{{.+}} : tensor<8x3xf32>, tensor<f32> -> tensor<8x3xi1>
// CHECK-NOT: mpg.compare gt, %[[H]]
mpg.graph @relu_from_result {
  %x = mpg.input "x" : tensor<8x4xf32>
  %y = mpg.input "y" : tensor<8xi32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<4x3xf32>
  %b = mpg.param "b" init(zeros) : tensor<3xf32>
  %mm = mpg.matmul %x, %w : tensor<8x4xf32>, tensor<4x3xf32> -> tensor<8x3xf32>
  %h = mpg.add %mm, %b : tensor<8x3xf32>, tensor<3xf32> -> tensor<8x3xf32>
  %r = mpg.relu %h : tensor<8x3xf32>
  %l = mpg.softmax_cross_entropy %r, %y : tensor<8x3xf32>, tensor<8xi32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.5) : tensor<f32>
}
