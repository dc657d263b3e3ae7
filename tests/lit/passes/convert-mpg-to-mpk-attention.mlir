// RUN: mpc-opt %s --mpc-forward-pipeline -split-input-file | FileCheck %s

// Lowering mpg.attention when one of its results has no reader: it is
// written to the fusion's scratch (mpc::scratchBytes counts it).

// A forward program reads the output only: the log-sum-exp goes to scratch.
// CHECK-LABEL: mpk.program @output_only
// CHECK: %[[LSE:.+]] = mpk.buffer arena {{[0-9]+}} : memref<2x4xf32>
// CHECK-NEXT: mpk.attention @{{.+}} -> %{{.+}}, %[[LSE]] batch 2 queries 4 keys 4 head 8
mpg.graph @output_only {
  %q = mpg.input "q" : tensor<2x4x8xf32>
  %y, %lse = mpg.attention %q, %q, %q scale 0.5
      : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>, tensor<2x4xf32>
  mpg.output "y" %y : tensor<2x4x8xf32>
}

// -----

// Only the log-sum-exp is read: the output goes to scratch.
// CHECK-LABEL: mpk.program @lse_only
// CHECK: %[[IN:.+]] = mpk.buffer arena 0 : memref<2x4x8xf32>
// CHECK: %[[Y:.+]] = mpk.buffer arena {{[0-9]+}} : memref<2x4x8xf32>
// CHECK-NEXT: mpk.attention @{{.+}} %[[IN]], %[[IN]], %[[IN]] -> %[[Y]], %{{.+}} batch 2 queries 4 keys 4 head 8
mpg.graph @lse_only {
  %q = mpg.input "q" : tensor<2x4x8xf32>
  %y, %lse = mpg.attention %q, %q, %q scale 0.5
      : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>, tensor<2x4xf32>
  mpg.output "lse" %lse : tensor<2x4xf32>
}
