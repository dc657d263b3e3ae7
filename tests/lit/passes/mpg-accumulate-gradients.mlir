// RUN: mpc-opt %s --mpg-autodiff --mpg-accumulate-gradients -split-input-file | FileCheck %s
// RUN: mpc-opt %s --mpg-autodiff --mpg-assign-precision=mode=fp16 --mpg-insert-loss-scaling --mpg-accumulate-gradients -split-input-file | FileCheck %s --check-prefix=SCALED
// Without accumulate_steps (or with 1) the pass changes nothing.
// RUN: mpc-opt %s --mpg-autodiff -split-input-file | sed -n '/@not_accumulated/,$p' > %t.plain
// RUN: mpc-opt %s --mpg-autodiff --mpg-accumulate-gradients -split-input-file | sed -n '/@not_accumulated/,$p' > %t.accumulated
// RUN: diff %t.plain %t.accumulated

// A linear model's step with accumulate_steps = 4 (fp32, no loss scaling):
// the run counter and the window's length as state, the last run of the
// window, each gradient added to its f32 accumulator right after it is
// computed, and the updates reading the mean. Every state the updates and
// the step counter write keeps its value on the other runs; each
// accumulator keeps the sum, and starts over at 0 after the last run.
// CHECK-LABEL: mpg.graph @linear
// CHECK-NOT: mpg.accumulate_steps
// CHECK: %[[AB:.+]] = mpg.state "b.grad_accum" init(zeros) : tensor<4xf32>
// CHECK-NEXT: %[[AW:.+]] = mpg.state "w.grad_accum" init(zeros) : tensor<8x4xf32>
// CHECK-NEXT: %[[MICRO:.+]] = mpg.state "grad_accum.micro" init(zeros) : tensor<i64>
// CHECK-NEXT: %[[RUNS:.+]] = mpg.state "grad_accum.runs" init(constant, value = 4.000000e+00) : tensor<i64>
// CHECK-NEXT: %[[ONE:.+]] = mpg.constant dense<1> : tensor<i64>
// CHECK-NEXT: %[[RM1:.+]] = mpg.sub %[[RUNS]], %[[ONE]] : tensor<i64>, tensor<i64> -> tensor<i64>
// CHECK-NEXT: %[[LAST:.+]] = mpg.compare eq, %[[MICRO]], %[[RM1]] : tensor<i64>, tensor<i64> -> tensor<i1>
// CHECK-NEXT: %[[N:.+]] = mpg.cast %[[RUNS]] : tensor<i64> to tensor<f32>
// CHECK-NOT: grad_accum.finite
// CHECK: %[[DB:.+]] = mpg.reshape
// CHECK-NEXT: %[[SB:.+]] = mpg.add %[[AB]], %[[DB]] : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[MB:.+]] = mpg.div %[[SB]], %[[N]] : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
// CHECK: %[[DW:.+]] = mpg.matmul %{{.+}}, %{{.+}} transpose_a
// CHECK-NEXT: %[[SW:.+]] = mpg.add %[[AW]], %[[DW]]
// CHECK-NEXT: %[[MW:.+]] = mpg.div %[[SW]], %[[N]]
// CHECK: %[[STEP:.+]] = mpg.add %optimizer.step
// CHECK-NEXT: %[[KS:.+]] = mpg.select %[[LAST]], %[[STEP]], %optimizer.step
// CHECK-NEXT: mpg.state_write %optimizer.step, %[[KS]] : tensor<i64>
// CHECK: %[[W2:.+]] = mpg.sgd %{{.+}}, %[[MW]]
// CHECK-NEXT: %[[KW:.+]] = mpg.select %[[LAST]], %[[W2]], %{{.+}}
// CHECK-NEXT: mpg.state_write %{{.+}}, %[[KW]] : tensor<8x4xf32>
// CHECK: %[[B2:.+]] = mpg.sgd %{{.+}}, %[[MB]]
// CHECK-NEXT: %[[KB:.+]] = mpg.select %[[LAST]], %[[B2]], %{{.+}}
// CHECK-NEXT: mpg.state_write %{{.+}}, %[[KB]] : tensor<4xf32>
// CHECK: %[[NEXT:.+]] = mpg.add %[[MICRO]], %{{.+}} : tensor<i64>, tensor<i64> -> tensor<i64>
// CHECK: %[[M2:.+]] = mpg.select %[[LAST]], %{{.+}}, %[[NEXT]]
// CHECK-NEXT: mpg.state_write %[[MICRO]], %[[M2]] : tensor<i64>
// CHECK: mpg.select %[[LAST]], %{{.+}}, %[[SW]] : tensor<i1>, tensor<f32>, tensor<8x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT: mpg.state_write %[[AW]]
// CHECK: mpg.select %[[LAST]], %{{.+}}, %[[SB]] : tensor<i1>, tensor<f32>, tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: mpg.state_write %[[AB]]

// With fp16 loss scaling the accumulators sum the scaled fp16 gradients in
// f32; the overflow check reads each run's sums, and the state
// "grad_accum.finite" carries an overflow to the window's last run, whose
// updates and scale update read the window's verdict. A run that overflows
// leaves the accumulators as they were. The scaler's state and "skipped"
// change on the last run only.
// SCALED-LABEL: mpg.graph @linear
// SCALED: %[[FINITE:.+]] = mpg.state "grad_accum.finite" init(constant, value = 1.000000e+00) : tensor<i1>
// SCALED: %[[LAST:.+]] = mpg.compare eq
// SCALED: %[[SB:.+]] = mpg.add %b.grad_accum, %{{.+}} : tensor<4xf32>
// SCALED: %[[W16:.+]] = mpg.cast %{{.+}} : tensor<8x4xf16> to tensor<8x4xf32>
// SCALED-NEXT: %[[SW:.+]] = mpg.add %w.grad_accum, %[[W16]] : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
// SCALED-NEXT: %[[MW:.+]] = mpg.div %[[SW]]
// SCALED-NEXT: %[[RUNOK:.+]] = mpg.all_finite %[[SW]], %[[SB]] :
// SCALED-NEXT: %[[NO:.+]] = mpg.constant dense<false> : tensor<i1>
// SCALED-NEXT: %[[OK:.+]] = mpg.select %[[FINITE]], %[[RUNOK]], %[[NO]]
// SCALED: mpg.unscale %[[MW]], %{{.+}}
// SCALED: %[[NEW:.+]] = mpg.sgd
// SCALED-NEXT: %[[SKIP:.+]] = mpg.select %[[OK]], %[[NEW]], %w
// SCALED-NEXT: %[[KEEP:.+]] = mpg.select %[[LAST]], %[[SKIP]], %w
// SCALED-NEXT: mpg.state_write %w, %[[KEEP]]
// SCALED: %[[SCALE:.+]], %[[GOOD:.+]] = mpg.update_loss_scale %{{.+}}, %{{.+}}, %[[OK]]
// SCALED-NEXT: %[[KS:.+]] = mpg.select %[[LAST]], %[[SCALE]], %{{.+}}
// SCALED-NEXT: mpg.state_write %{{.+}}, %[[KS]] : tensor<f32>
// SCALED: %[[SK:.+]] = mpg.select %[[LAST]], %{{.+}}, %{{.+}} : tensor<i1>, tensor<i1>, tensor<i1> -> tensor<i1>
// SCALED-NEXT: mpg.output "skipped" %[[SK]] : tensor<i1>
// SCALED: %[[KEPT:.+]] = mpg.select %[[RUNOK]], %[[SW]], %w.grad_accum
// SCALED: mpg.select %[[LAST]], %{{.+}}, %[[KEPT]]
// SCALED-NEXT: mpg.state_write %w.grad_accum
// SCALED: %[[YES:.+]] = mpg.constant dense<true> : tensor<i1>
// SCALED-NEXT: %[[NEXTOK:.+]] = mpg.select %[[LAST]], %[[YES]], %[[OK]]
// SCALED-NEXT: mpg.state_write %[[FINITE]], %[[NEXTOK]] : tensor<i1>
mpg.graph @linear {
  %x = mpg.input "x" : tensor<2x8xf32>
  %labels = mpg.input "labels" : tensor<2xi32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<8x4xf32>
  %b = mpg.param "b" init(zeros) : tensor<4xf32>
  %y = mpg.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %z = mpg.add %y, %b : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %l = mpg.softmax_cross_entropy %z, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.1, accumulate_steps = 4) : tensor<f32>
}

// -----

// CHECK-LABEL: mpg.graph @not_accumulated
// CHECK-NOT: grad_accum
mpg.graph @not_accumulated {
  %x = mpg.input "x" : tensor<2x8xf32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<8x4xf32>
  %y = mpg.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %l = mpg.reduce_mean %y axes [0, 1] : tensor<2x4xf32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.1, accumulate_steps = 1) : tensor<f32>
}
