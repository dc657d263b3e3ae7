// RUN: mpc-opt %s --mpg-fuse -split-input-file | FileCheck %s
// RUN: mpc-opt %s --mpg-fuse=group-finite-checks=false -split-input-file | FileCheck %s --check-prefix=APART

// mpg-fuse moves the loss scaler's finite checks (reduction groups of one
// operand and one scalar result whose reduce_sum mpg-decompose marked
// mpg.finite_check) to just before the group that combines them, keeping
// their order, so that the code generator launches them together. Off
// (group-finite-checks=false), each stays where its operand is ready.

// The check of %y is ready first and comes before the GEMM without the
// option; with it, the checks of %y, %h and %z follow each other and the
// combining group (the check of %x, which took in the adds and the compare
// as its epilogue) comes right after them.
// CHECK-LABEL: mpg.graph @checks_side_by_side
// CHECK: %[[H:.+]] = mpg.fusion gemm(%x, %w
// CHECK-NEXT: ^bb0
// CHECK: mpg.output "h" %[[H]]
// CHECK-NEXT: %[[SY:.+]] = mpg.fusion reduction(%y : tensor<8xf32>) -> tensor<f32>
// CHECK: mpg.reduce_sum {{.+}} {mpg.finite_check}
// CHECK: mpg.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[SH:.+]] = mpg.fusion reduction(%[[H]] : tensor<4x16xf32>) -> tensor<f32>
// CHECK: mpg.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[SZ:.+]] = mpg.fusion reduction(%z : tensor<2x3xf32>) -> tensor<f32>
// CHECK: mpg.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[OK:.+]] = mpg.fusion reduction(%x, %[[SY]], %[[SH]], %[[SZ]] : {{.+}}) -> tensor<i1>
// CHECK: mpg.output "ok" %[[OK]]
// APART-LABEL: mpg.graph @checks_side_by_side
// APART: mpg.fusion reduction(%y : tensor<8xf32>) -> tensor<f32>
// APART: mpg.fusion gemm(%x, %w
// APART: mpg.fusion reduction(%{{.+}} : tensor<4x16xf32>) -> tensor<f32>
// APART: mpg.fusion reduction(%z : tensor<2x3xf32>) -> tensor<f32>
// APART: mpg.output "h"
// APART: mpg.fusion reduction(%x, {{.+}}) -> tensor<i1>
mpg.graph @checks_side_by_side {
  %x = mpg.input "x" : tensor<4x8xf32>
  %w = mpg.input "w" : tensor<8x16xf32>
  %y = mpg.input "y" : tensor<8xf32>
  %z = mpg.input "z" : tensor<2x3xf32>
  %zero = mpg.constant dense<0.0> : tensor<f32>
  %xz = mpg.mul %x, %zero : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %sx = mpg.reduce_sum %xz axes [0, 1] {mpg.finite_check} : tensor<4x8xf32> -> tensor<f32>
  %yz = mpg.mul %y, %zero : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %sy = mpg.reduce_sum %yz axes [0] {mpg.finite_check} : tensor<8xf32> -> tensor<f32>
  %h = mpg.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %hz = mpg.mul %h, %zero : tensor<4x16xf32>, tensor<f32> -> tensor<4x16xf32>
  %sh = mpg.reduce_sum %hz axes [0, 1] {mpg.finite_check} : tensor<4x16xf32> -> tensor<f32>
  %zz = mpg.mul %z, %zero : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  %sz = mpg.reduce_sum %zz axes [0, 1] {mpg.finite_check} : tensor<2x3xf32> -> tensor<f32>
  %t0 = mpg.add %sx, %sy : tensor<f32>, tensor<f32> -> tensor<f32>
  %t1 = mpg.add %t0, %sh : tensor<f32>, tensor<f32> -> tensor<f32>
  %total = mpg.add %t1, %sz : tensor<f32>, tensor<f32> -> tensor<f32>
  %ok = mpg.compare eq, %total, %total : tensor<f32>, tensor<f32> -> tensor<i1>
  mpg.output "h" %h : tensor<4x16xf32>
  mpg.output "ok" %ok : tensor<i1>
}

// -----

// Unmarked sums are not checks: they stay where their operands are ready,
// with the option or without.
// CHECK-LABEL: mpg.graph @plain_sums_stay
// CHECK: mpg.fusion reduction(%y : tensor<8xf32>) -> tensor<f32>
// CHECK: mpg.fusion gemm(%x, %w
// CHECK: mpg.fusion reduction(%{{.+}} : tensor<4x16xf32>) -> tensor<f32>
// CHECK: mpg.output "h"
// CHECK: mpg.fusion reduction(%x, {{.+}}) -> tensor<f32>
// APART-LABEL: mpg.graph @plain_sums_stay
// APART: mpg.fusion reduction(%y : tensor<8xf32>) -> tensor<f32>
// APART: mpg.fusion gemm(%x, %w
mpg.graph @plain_sums_stay {
  %x = mpg.input "x" : tensor<4x8xf32>
  %w = mpg.input "w" : tensor<8x16xf32>
  %y = mpg.input "y" : tensor<8xf32>
  %sx = mpg.reduce_sum %x axes [0, 1] : tensor<4x8xf32> -> tensor<f32>
  %sy = mpg.reduce_sum %y axes [0] : tensor<8xf32> -> tensor<f32>
  %h = mpg.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %sh = mpg.reduce_sum %h axes [0, 1] : tensor<4x16xf32> -> tensor<f32>
  %t0 = mpg.add %sx, %sy : tensor<f32>, tensor<f32> -> tensor<f32>
  %total = mpg.add %t0, %sh : tensor<f32>, tensor<f32> -> tensor<f32>
  mpg.output "h" %h : tensor<4x16xf32>
  mpg.output "total" %total : tensor<f32>
}
