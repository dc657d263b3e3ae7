// RUN: mpc-opt %s --mpg-autodiff --mpg-assign-precision=mode=fp16 --mpg-master-weights -split-input-file | FileCheck %s
// RUN: mpc-opt %s --mpg-autodiff --mpg-assign-precision=mode=bf16 --mpg-master-weights -split-input-file | FileCheck %s --check-prefix=BF16
// RUN: mpc-opt %s --mpg-autodiff --mpg-assign-precision=mode=fp32 -split-input-file > %t.plain
// RUN: mpc-opt %s --mpg-autodiff --mpg-assign-precision=mode=fp32 --mpg-master-weights -split-input-file > %t.fp32
// RUN: diff %t.plain %t.fp32

// The trainable weight's users read its persistent fp16 working copy; the
// update writes the f32 master and, converted from the same new value, the
// copy. The frozen bias gets a working copy too (the runtime fills it from
// the parameter), but no write. The input's cast is not a parameter's and
// stays. In fp32 mode nothing changes (the diff).

// CHECK-LABEL: mpg.graph @linear
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK-NEXT: %[[XH:.+]] = mpg.cast %[[X]] : tensor<2x8xf32> to tensor<2x8xf16>
// CHECK: %[[W:.+]] = mpg.param "w" init(glorot_uniform) : tensor<8x4xf32>
// CHECK-NEXT: %[[WH:.+]] = mpg.state "w.f16" init(zeros) {mpg.cast_of = "w"} : tensor<8x4xf16>
// CHECK: %[[B:.+]] = mpg.param "b" frozen
// CHECK-NEXT: %[[BH:.+]] = mpg.state "b.f16" init(zeros) {mpg.cast_of = "b"} : tensor<4xf16>
// CHECK-NOT: mpg.cast %[[W]]
// CHECK-NOT: mpg.cast %[[B]]
// CHECK: mpg.matmul %[[XH]], %[[WH]]
// CHECK: mpg.add %{{.+}}, %[[BH]]
// CHECK: %[[NEW:.+]], %{{.+}} = mpg.sgd %[[W]]
// CHECK: mpg.state_write %[[W]], %[[NEW]] : tensor<8x4xf32>
// CHECK-NEXT: %[[NEWH:.+]] = mpg.cast %[[NEW]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NEXT: mpg.state_write %[[WH]], %[[NEWH]] : tensor<8x4xf16>
// CHECK-NOT: mpg.state_write %[[BH]]
// BF16-LABEL: mpg.graph @linear
// BF16: mpg.state "w.bf16" init(zeros) {mpg.cast_of = "w"} : tensor<8x4xbf16>
mpg.graph @linear {
  %x = mpg.input "x" : tensor<2x8xf32>
  %labels = mpg.input "labels" : tensor<2xi32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<8x4xf32>
  %b = mpg.param "b" frozen init(zeros) : tensor<4xf32>
  %y = mpg.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %z = mpg.add %y, %b : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %l = mpg.softmax_cross_entropy %z, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.1, momentum = 0.9) : tensor<f32>
}

// -----

// A parameter only f32 ops read (a layer norm's gain) keeps no copy.
// CHECK-LABEL: mpg.graph @f32_reader
// CHECK-NOT: mpg.cast_of
mpg.graph @f32_reader {
  %x = mpg.input "x" : tensor<2x8xf32>
  %g = mpg.param "g" init(ones) : tensor<8xf32>
  %be = mpg.param "be" init(zeros) : tensor<8xf32>
  %n = mpg.layer_norm %x, %g, %be : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %l = mpg.reduce_mean %n axes [0, 1] : tensor<2x8xf32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.1) : tensor<f32>
}

// -----

// The author's own cast of a parameter to f16 and the precision pass's cast
// share one working copy.
// CHECK-LABEL: mpg.graph @author_cast
// CHECK-COUNT-1: mpg.state "w.f16"
// CHECK-NOT: mpg.state "w.f16"
mpg.graph @author_cast {
  %x = mpg.input "x" : tensor<2x8xf32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<8x4xf32>
  %wh = mpg.cast %w : tensor<8x4xf32> to tensor<8x4xf16>
  %y = mpg.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %e = mpg.exp %wh : tensor<8x4xf16>
  %l = mpg.reduce_mean %y axes [0, 1] : tensor<2x4xf32> -> tensor<f32>
  mpg.output "e" %e : tensor<8x4xf16>
  mpg.minimize %l optimizer(sgd, lr = 0.1) : tensor<f32>
}
