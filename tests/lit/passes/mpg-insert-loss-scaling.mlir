// RUN: mpc-opt %s --mpg-autodiff --mpg-assign-precision=mode=fp16 --mpg-insert-loss-scaling="growth-interval=100 hysteresis=2" -split-input-file | FileCheck %s --check-prefix=MIXED
// RUN: mpc-opt %s --mpg-autodiff --mpg-insert-loss-scaling="growth-interval=100 hysteresis=2" -split-input-file | FileCheck %s
// RUN: mpc-opt %s --mpg-autodiff --mpg-insert-loss-scaling="mode=static init-scale=128" -split-input-file | FileCheck %s --check-prefix=STATIC
// A scale that is not always a power of two keeps the division.
// RUN: mpc-opt %s --mpg-autodiff --mpg-insert-loss-scaling="mode=static init-scale=1000" -split-input-file | FileCheck %s --check-prefix=DIVIDE
// RUN: mpc-opt %s --mpg-autodiff --mpg-insert-loss-scaling="growth-factor=3" -split-input-file | FileCheck %s --check-prefix=DIVIDE
// RUN: mpc-opt %s --mpg-autodiff --mpg-insert-loss-scaling="backoff-factor=0.75" -split-input-file | FileCheck %s --check-prefix=DIVIDE
// RUN: mpc-opt %s --mpg-autodiff --mpg-insert-loss-scaling="init-scale=1024 max-scale=1.0e6" -split-input-file | FileCheck %s --check-prefix=DIVIDE
// RUN: mpc-opt %s --mpg-autodiff --mpg-insert-loss-scaling="mode=static init-scale=0x1p127" -split-input-file | FileCheck %s --check-prefix=DIVIDE
// DIVIDE-LABEL: mpg.graph @linear
// DIVIDE-COUNT-2: mpg.unscale %{{[^ ]+}}, %{{[^ ]+}} : tensor
// DIVIDE-NOT: power_of_two_scale
// RUN: mpc-opt %s --mpg-autodiff -split-input-file > %t.plain
// RUN: mpc-opt %s --mpg-autodiff --mpg-insert-loss-scaling=mode=none -split-input-file > %t.none
// RUN: diff %t.plain %t.none
// Running it twice scales once.
// RUN: mpc-opt %s --mpg-autodiff --mpg-insert-loss-scaling --mpg-insert-loss-scaling -split-input-file | FileCheck %s --check-prefix=TWICE
// TWICE-LABEL: mpg.graph @linear
// TWICE-COUNT-1: mpg.update_loss_scale
// TWICE-NOT: mpg.update_loss_scale
// TWICE-LABEL: mpg.graph @inference

// Dynamic scaling of a linear model's step: the seed times the scale, the
// check over both gradients after the last of them, the unscale in front of
// each update (a product with the reciprocal: the default scales are
// powers of two), the predicated writes of the parameters, the momentum and the
// step counter, the scale's own update and the telemetry outputs. With
// mode=none nothing changes (the diff).

// CHECK-LABEL: mpg.graph @linear
// CHECK: %[[S:.+]] = mpg.state "loss_scale" init(constant, value = 6.553600e+04) : tensor<f32>
// CHECK-NEXT: %[[N:.+]] = mpg.state "loss_scale.good_steps" init(zeros) : tensor<i64>
// CHECK-NEXT: %[[K:.+]] = mpg.state "loss_scale.skipped_steps" init(zeros) : tensor<i64>
// CHECK: %[[W:.+]] = mpg.param "w"
// CHECK: %[[B:.+]] = mpg.param "b"
// CHECK: %[[ONE:.+]] = mpg.constant {mpg.loss_scaled, mpg.loss_seed} dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[SEED:.+]] = mpg.mul %[[ONE]], %[[S]] : tensor<f32>, tensor<f32> -> tensor<f32>
// CHECK-NEXT: mpg.softmax_cross_entropy_grad %{{.+}}, %{{.+}}, %[[SEED]]
// CHECK: %[[DB:.+]] = mpg.reshape
// CHECK: %[[DW:.+]] = mpg.matmul %{{.+}}, %{{.+}} transpose_a
// CHECK-NEXT: %[[OK:.+]] = mpg.all_finite %[[DW]], %[[DB]] : tensor<8x4xf32>, tensor<4xf32> -> tensor<i1>
// CHECK: %[[STEP:.+]] = mpg.state "optimizer.step"
// CHECK: %[[NEXT:.+]] = mpg.add %[[STEP]]
// CHECK-NEXT: %[[KEPT:.+]] = mpg.select %[[OK]], %[[NEXT]], %[[STEP]]
// CHECK-NEXT: mpg.state_write %[[STEP]], %[[KEPT]] : tensor<i64>
// CHECK: %[[M:.+]] = mpg.state "w.momentum_buffer"
// CHECK-NEXT: %[[G:.+]] = mpg.unscale %[[DW]], %[[S]] {power_of_two_scale} : tensor<8x4xf32>, tensor<f32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[W2:.+]], %[[M2:.+]] = mpg.sgd %[[W]], %[[G]]
// CHECK-NEXT: %[[M3:.+]] = mpg.select %[[OK]], %[[M2]], %[[M]]
// CHECK-NEXT: mpg.state_write %[[M]], %[[M3]]
// CHECK-NEXT: %[[W3:.+]] = mpg.select %[[OK]], %[[W2]], %[[W]]
// CHECK-NEXT: mpg.state_write %[[W]], %[[W3]]
// CHECK: mpg.unscale %[[DB]], %[[S]] {power_of_two_scale}
// CHECK: %[[SKIPPED:.+]] = mpg.select %[[OK]], %{{.+}}, %{{.+}} : tensor<i1>, tensor<i1>, tensor<i1> -> tensor<i1>
// CHECK: mpg.state_write %[[K]]
// CHECK-NEXT: %[[S2:.+]], %[[N2:.+]] = mpg.update_loss_scale %[[S]], %[[N]], %[[OK]] growth_interval 100 hysteresis 2 : tensor<f32>, tensor<i64>, tensor<i1>
// CHECK-NEXT: mpg.state_write %[[S]], %[[S2]] : tensor<f32>
// CHECK-NEXT: mpg.state_write %[[N]], %[[N2]] : tensor<i64>
// CHECK-NEXT: mpg.output "loss_scale" %[[S]] : tensor<f32>
// CHECK-NEXT: mpg.output "skipped" %[[SKIPPED]] : tensor<i1>

// A static scale is a constant: no scale state, no update; the check and
// the skip stay.
// STATIC-LABEL: mpg.graph @linear
// STATIC-NOT: mpg.state "loss_scale"
// STATIC: %[[S:.+]] = mpg.constant dense<1.280000e+02> : tensor<f32>
// STATIC-NEXT: mpg.state "loss_scale.skipped_steps"
// STATIC: mpg.mul %{{.+}}, %[[S]]
// STATIC: mpg.all_finite
// STATIC: mpg.unscale %{{.+}}, %[[S]] {power_of_two_scale}
// STATIC-NOT: mpg.update_loss_scale
// STATIC: mpg.output "loss_scale" %[[S]]
mpg.graph @linear {
  %x = mpg.input "x" : tensor<2x8xf32>
  %labels = mpg.input "labels" : tensor<2xi32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<8x4xf32>
  %b = mpg.param "b" init(zeros) : tensor<4xf32>
  %y = mpg.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %z = mpg.add %y, %b : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %l = mpg.softmax_cross_entropy %z, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.1, momentum = 0.9) : tensor<f32>
}

// -----

// An inference graph (no mpg.minimize, hence no seed) is left alone.
// CHECK-LABEL: mpg.graph @inference
// CHECK-NOT: loss_scale
// CHECK-NOT: mpg.all_finite
// STATIC-LABEL: mpg.graph @inference
// STATIC-NOT: loss_scale
mpg.graph @inference {
  %x = mpg.input "x" : tensor<2x8xf32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<8x4xf32>
  %y = mpg.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  mpg.output "y" %y : tensor<2x4xf32>
}

// -----

// A parameter declared in f16 is updated in f32 (precision assignment) and
// cast back for its write: the skip protects that write too.
// MIXED-LABEL: mpg.graph @f16_param
// MIXED: %[[OK:.+]] = mpg.all_finite
// MIXED: %[[NEW:.+]], %[[VEL:.+]] = mpg.sgd
// MIXED-NEXT: %[[BACK:.+]] = mpg.cast %[[NEW]] : tensor<8x4xf32> to tensor<8x4xf16>
// MIXED-NEXT: %[[VBACK:.+]] = mpg.cast %[[VEL]] : tensor<8x4xf32> to tensor<8x4xf16>
// MIXED: %[[VKEPT:.+]] = mpg.select %[[OK]], %[[VBACK]], %{{.+}} : tensor<i1>, tensor<8x4xf16>, tensor<8x4xf16> -> tensor<8x4xf16>
// MIXED-NEXT: mpg.state_write %{{.+}}, %[[VKEPT]] : tensor<8x4xf16>
// MIXED-NEXT: %[[KEPT:.+]] = mpg.select %[[OK]], %[[BACK]], %[[W:.+]] : tensor<i1>, tensor<8x4xf16>, tensor<8x4xf16> -> tensor<8x4xf16>
// MIXED-NEXT: mpg.state_write %[[W]], %[[KEPT]] : tensor<8x4xf16>
// CHECK-LABEL: mpg.graph @f16_param
// CHECK: mpg.select
// STATIC-LABEL: mpg.graph @f16_param
mpg.graph @f16_param {
  %x = mpg.input "x" : tensor<2x8xf16>
  %labels = mpg.input "labels" : tensor<2xi32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<8x4xf16>
  %y = mpg.matmul %x, %w : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf32>
  %l = mpg.softmax_cross_entropy %y, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.1, momentum = 0.9) : tensor<f32>
}
