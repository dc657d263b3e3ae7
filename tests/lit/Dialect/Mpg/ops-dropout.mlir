// RUN: mpc-opt %s | mpc-opt | FileCheck %s
// RUN: mpc-opt %s -mlir-print-op-generic | mpc-opt | FileCheck %s

// Round trip of mpg.dropout, unkeyed (the user's form) and keyed, and of the
// seed initializer that keeps a key as state.

// CHECK-LABEL: mpg.graph @dropout
// CHECK: %[[X:.+]] = mpg.input "x" : tensor<4x8xf16>
// CHECK: %[[SEED:.+]] = mpg.state "seed" init(seed) : tensor<i64>
// CHECK: %[[COUNTER:.+]] = mpg.input "run" : tensor<i64>
// CHECK: %[[A:.+]] = mpg.dropout %[[X]] rate 1.000000e-01 : tensor<4x8xf16>
// CHECK: %[[B:.+]] = mpg.dropout %[[A]] rate 5.000000e-01 key(%[[SEED]], %[[COUNTER]]) stream 7 : tensor<4x8xf16>, tensor<i64>, tensor<i64>
// CHECK: mpg.output "y" %[[B]] : tensor<4x8xf16>
mpg.graph @dropout {
  %x = mpg.input "x" : tensor<4x8xf16>
  %seed = mpg.state "seed" init(seed) : tensor<i64>
  %run = mpg.input "run" : tensor<i64>
  %a = mpg.dropout %x rate 0.1 : tensor<4x8xf16>
  %b = mpg.dropout %a rate 0.5 key(%seed, %run) stream 7 : tensor<4x8xf16>, tensor<i64>, tensor<i64>
  mpg.output "y" %b : tensor<4x8xf16>
}
