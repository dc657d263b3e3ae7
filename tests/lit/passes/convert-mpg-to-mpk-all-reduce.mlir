// RUN: mpc-opt %s -split-input-file --mpc-forward-pipeline | FileCheck %s
// RUN: mpc-opt %s -split-input-file --mpc-train-pipeline=data-parallel=true | FileCheck %s --check-prefix=TRAIN

// mpg.all_reduce after memory planning: in place over its operand when
// the operand is read for the last time (mpg-plan-memory's hint), else a
// copy into its own buffer first.
// CHECK-LABEL: mpk.program @operand_read_after
// CHECK: mpk.gemm %{{.+}}, %{{.+}} -> %[[Z:.+]] m 8
// CHECK-NEXT: %[[R:.+]] = mpk.buffer arena
// CHECK-NEXT: mpk.copy %[[Z]], %[[R]] {{.+}} : memref<8x3xf32>
// CHECK-NEXT: mpk.all_reduce sum %[[R]] {{.+}} : memref<8x3xf32>
// CHECK: mpk.pointwise @{{.+}} ins(%[[R]], %[[Z]] :
mpg.graph @operand_read_after {
  %x = mpg.input "x" : tensor<8x4xf32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<4x3xf32>
  %z = mpg.matmul %x, %w : tensor<8x4xf32>, tensor<4x3xf32> -> tensor<8x3xf32>
  %r = mpg.all_reduce sum %z : tensor<8x3xf32>
  %s = mpg.add %r, %z : tensor<8x3xf32>, tensor<8x3xf32> -> tensor<8x3xf32>
  mpg.output "s" %s : tensor<8x3xf32>
}

// -----

// A data-parallel training step: the loss and the bucket of both gradients
// reduced in place (no copy), the bucket filled by two copy kernels and
// read by two.
// CHECK-LABEL: mpk.program @linear
// TRAIN-LABEL: mpk.program @linear
// TRAIN-NOT: mpk.copy
// TRAIN: mpk.all_reduce mean %{{.+}} : memref<f32>
// TRAIN: %[[BUCKET:.+]] = mpk.buffer arena [[AT:[0-9]+]] : memref<15xf32>
// TRAIN-NEXT: mpk.pointwise @{{.+}} outs(%[[BUCKET]] : memref<15xf32>) {{.+}}mpk.fused = ["mpg.concat"]
// TRAIN-NEXT: ^bb
// TRAIN: mpk.pointwise @{{.+}} outs(%[[BUCKET]] : memref<15xf32>) {{.+}}mpk.fused = ["mpg.concat"]
// TRAIN: %[[REDUCED:.+]] = mpk.buffer arena [[AT]] : memref<15xf32>
// TRAIN-NEXT: mpk.all_reduce mean %[[REDUCED]] {mpk.fused = ["mpg.all_reduce"]} : memref<15xf32>
// TRAIN: mpk.pointwise @{{.+}} ins(%[[REDUCED]] : memref<15xf32>) {{.+}}mpk.fused = ["mpg.slice"]
// TRAIN: mpk.pointwise @{{.+}} ins(%[[REDUCED]] : memref<15xf32>) {{.+}}mpk.fused = ["mpg.slice"]
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
