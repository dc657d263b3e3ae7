// RUN: mpc-opt %s --mpc-forward-pipeline -split-input-file | FileCheck %s
// RUN: mpc-opt %s --mpc-forward-pipeline -split-input-file | mpc-opt -split-input-file > /dev/null

// A splat constant used by both the prologue and the epilogue of a reduction
// is materialised in each region (a region cannot use the other's values).
// CHECK-LABEL: mpk.program @shared_constant
// CHECK: mpk.reduce @k0 sum
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32):
// CHECK-NEXT: %[[C1:.+]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[X]], %[[C1]] : f32
// CHECK-NEXT: mpk.yield %[[P]] : f32
// CHECK-NEXT: } epilogue {
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: f32):
// CHECK-NEXT: %[[C2:.+]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: %[[E:.+]] = arith.mulf %[[ACC]], %[[C2]] : f32
// CHECK-NEXT: mpk.yield %[[E]] : f32
mpg.graph @shared_constant {
  %x = mpg.input "x" : tensor<4x8xf32>
  %two = mpg.constant dense<2.0> : tensor<f32>
  %a = mpg.mul %x, %two : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %s = mpg.reduce_sum %a axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %b = mpg.mul %s, %two : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  mpg.output "b" %b : tensor<4xf32>
}
