// RUN: mpc-opt %s --pass-pipeline='builtin.module(mpg.graph(mpg-autodiff,mpg-assign-precision{mode=fp16},mpg-all-reduce-gradients))' | FileCheck %s
// RUN: mpc-opt %s --pass-pipeline='builtin.module(mpg.graph(mpg-autodiff,mpg-assign-precision{mode=fp16},mpg-all-reduce-gradients{reduce-type=storage}))' | FileCheck %s --check-prefix=STORAGE

// The all-reduce's precision in fp16. The updates read f32 gradients:
// mpg-assign-precision widens the weight gradient (an f16 matmul) to f32;
// the bias gradient (a reduction) is f32 already.
// reduce-type f32 (the default): one f32 bucket of the widened gradients.
// CHECK-LABEL: mpg.graph @linear
// CHECK: %[[DW:.+]] = mpg.matmul {{.+}} -> tensor<4x3xf16>
// CHECK-NEXT: %[[WIDE:.+]] = mpg.cast %[[DW]] : tensor<4x3xf16> to tensor<4x3xf32>
// CHECK-NEXT: %[[FLAT:.+]] = mpg.reshape %[[WIDE]] : tensor<4x3xf32> -> tensor<12xf32>
// CHECK-NEXT: mpg.concat %{{.+}}, %[[FLAT]] axis 0 : tensor<3xf32>, tensor<12xf32> -> tensor<15xf32>
// CHECK-NEXT: mpg.all_reduce mean {{.+}}storage = f32{{.+}} : tensor<15xf32>
// CHECK-NOT: mpg.all_reduce mean {{.+}} : tensor<{{.+}}xf16>
// reduce-type storage: the weight gradient is reduced in f16 before the
// widening (a bucket of its own, of f16), the bias gradient in f32; the
// first widening is gone.
// STORAGE-LABEL: mpg.graph @linear
// STORAGE: %[[DB:.+]] = mpg.reshape %{{.+}} : tensor<1x3xf32> -> tensor<3xf32>
// STORAGE-NEXT: %[[MB:.+]] = mpg.all_reduce mean %[[DB]] {mpg.precision_decision = {category = "all-reduce", compute = f32, reason = "all-reduce: gradients reduced in their storage type {{.+}}", storage = f32}} : tensor<3xf32>
// STORAGE: %[[DW:.+]] = mpg.matmul {{.+}} -> tensor<4x3xf16>
// STORAGE-NEXT: %[[MW:.+]] = mpg.all_reduce mean %[[DW]] {mpg.precision_decision = {category = "all-reduce", compute = f16, {{.+}}storage = f16}} : tensor<4x3xf16>
// STORAGE-NEXT: %[[WIDE:.+]] = mpg.cast %[[MW]] : tensor<4x3xf16> to tensor<4x3xf32>
// STORAGE-NOT: mpg.cast %[[DW]]
// STORAGE: mpg.sgd %w, %[[WIDE]], %{{.+}}
// STORAGE: mpg.sgd %b, %[[MB]], %{{.+}}
mpg.graph @linear {
  %x = mpg.input "x" : tensor<8x4xf32>
  %y = mpg.input "y" : tensor<8xi32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<4x3xf32>
  %b = mpg.param "b" init(zeros) : tensor<3xf32>
  %z = mpg.matmul %x, %w : tensor<8x4xf32>, tensor<4x3xf32> -> tensor<8x3xf32>
  %h = mpg.add %z, %b : tensor<8x3xf32>, tensor<3xf32> -> tensor<8x3xf32>
  %l = mpg.softmax_cross_entropy %h, %y : tensor<8x3xf32>, tensor<8xi32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.5) : tensor<f32>
}
