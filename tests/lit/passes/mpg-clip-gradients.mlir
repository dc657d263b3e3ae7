// RUN: mpc-opt %s --mpg-autodiff --mpg-clip-gradients -split-input-file | FileCheck %s
// RUN: mpc-opt %s --mpg-autodiff --mpg-assign-precision=mode=fp16 --mpg-insert-loss-scaling --mpg-clip-gradients -split-input-file | FileCheck %s --check-prefix=SCALED
// RUN: mpc-opt %s --mpg-autodiff --mpg-assign-precision=mode=fp16 --mpg-insert-loss-scaling --mpg-clip-gradients -split-input-file | FileCheck %s --check-prefix=ONEPASS
// Without clip_grad_norm the pass changes nothing.
// RUN: mpc-opt %s --mpg-autodiff -split-input-file | sed -n '/@not_clipped/,$p' > %t.plain
// RUN: mpc-opt %s --mpg-autodiff --mpg-clip-gradients -split-input-file | sed -n '/@not_clipped/,$p' > %t.clipped
// RUN: diff %t.plain %t.clipped

// A linear model's step with clip_grad_norm = 0.5: after the last gradient,
// the sum of both gradients' squares in f32, its square root (the output
// "grad_norm") and the factor min(1, 0.5 / (norm + 1e-6)); each update
// reads its gradient times the factor. The attribute autodiff left on the
// graph is gone.
// CHECK-LABEL: mpg.graph @linear
// CHECK-NOT: mpg.clip_grad_norm
// CHECK: %[[DB:.+]] = mpg.reshape
// CHECK: %[[DW:.+]] = mpg.matmul %{{.+}}, %{{.+}} transpose_a
// CHECK-NEXT: %[[SW:.+]] = mpg.mul %[[DW]], %[[DW]] : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[RW:.+]] = mpg.reduce_sum %[[SW]] axes [0, 1] : tensor<8x4xf32> -> tensor<f32>
// CHECK-NEXT: %[[SB:.+]] = mpg.mul %[[DB]], %[[DB]] : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[RB:.+]] = mpg.reduce_sum %[[SB]] axes [0] : tensor<4xf32> -> tensor<f32>
// CHECK-NEXT: %[[T:.+]] = mpg.add %[[RW]], %[[RB]]
// CHECK-NEXT: %[[NORM:.+]] = mpg.sqrt %[[T]] : tensor<f32>
// CHECK-NEXT: %[[ONE:.+]] = mpg.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[MAX:.+]] = mpg.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT: %[[EPS:.+]] = mpg.constant dense<9.99999997E-7> : tensor<f32>
// CHECK-NEXT: %[[D:.+]] = mpg.add %[[NORM]], %[[EPS]]
// CHECK-NEXT: %[[Q:.+]] = mpg.div %[[MAX]], %[[D]]
// CHECK-NEXT: %[[F:.+]] = mpg.minimum %[[ONE]], %[[Q]]
// CHECK: %[[CW:.+]] = mpg.mul %[[DW]], %[[F]] : tensor<8x4xf32>, tensor<f32> -> tensor<8x4xf32>
// CHECK-NEXT: mpg.sgd %{{.+}}, %[[CW]]
// CHECK: %[[CB:.+]] = mpg.mul %[[DB]], %[[F]] : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
// CHECK-NEXT: mpg.sgd %{{.+}}, %[[CB]]
// CHECK: mpg.output "grad_norm" %[[NORM]] : tensor<f32>

// With fp16 loss scaling the norm is the unscaled gradients': it unscales
// a copy of each (in f32) where it is computed, before the first update;
// the updates multiply their own unscaled gradient.
// SCALED-LABEL: mpg.graph @linear
// SCALED: %[[S:.+]] = mpg.state "loss_scale"
// SCALED: %[[U:.+]] = mpg.unscale %{{.+}}, %[[S]] {power_of_two_scale} : tensor<8x4x{{.+}}>, tensor<f32> -> tensor<8x4xf32>
// SCALED-NEXT: mpg.mul %[[U]], %[[U]]
// SCALED: %[[F:.+]] = mpg.minimum
// SCALED: %[[G:.+]] = mpg.unscale %{{.+}}, %[[S]] {power_of_two_scale} : tensor<8x4x{{.+}}>, tensor<f32> -> tensor<8x4xf32>
// SCALED-NEXT: %[[C:.+]] = mpg.mul %[[G]], %[[F]]
// SCALED-NEXT: mpg.sgd %{{.+}}, %[[C]]
// SCALED: mpg.output "grad_norm"
// The sum of the squares is also the overflow check: no mpg.all_finite
// reads the gradients again; `sum < inf` decides the step.
// ONEPASS-LABEL: mpg.graph @linear
// ONEPASS-NOT: mpg.all_finite
// ONEPASS: %[[SUM:.+]] = mpg.add %{{.+}}, %{{.+}} : tensor<f32>, tensor<f32> -> tensor<f32>
// ONEPASS-NEXT: %[[INF:.+]] = mpg.constant dense<0x7F800000> : tensor<f32>
// ONEPASS-NEXT: %[[OK:.+]] = mpg.compare lt, %[[SUM]], %[[INF]]
// ONEPASS-NEXT: mpg.sqrt %[[SUM]]
// ONEPASS-NOT: mpg.all_finite
// ONEPASS: mpg.select %[[OK]], %{{.+}}, %optimizer.step
// ONEPASS: mpg.update_loss_scale %{{.+}}, %{{.+}}, %[[OK]]
mpg.graph @linear {
  %x = mpg.input "x" : tensor<2x8xf32>
  %labels = mpg.input "labels" : tensor<2xi32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<8x4xf32>
  %b = mpg.param "b" init(zeros) : tensor<4xf32>
  %y = mpg.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %z = mpg.add %y, %b : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %l = mpg.softmax_cross_entropy %z, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.1, clip_grad_norm = 0.5) : tensor<f32>
}

// -----

// CHECK-LABEL: mpg.graph @not_clipped
// CHECK-NOT: grad_norm
mpg.graph @not_clipped {
  %x = mpg.input "x" : tensor<2x8xf32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<8x4xf32>
  %y = mpg.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %l = mpg.reduce_mean %y axes [0, 1] : tensor<2x4xf32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.1) : tensor<f32>
}

