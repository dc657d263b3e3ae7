// RUN: mpc-opt %s | mpc-opt | FileCheck %s
// RUN: mpc-opt %s -mlir-print-op-generic | mpc-opt | FileCheck %s

// Round trip of the shape ops: reshape, transpose, broadcast_to, slice,
// concat and embedding.

// CHECK-LABEL: mpg.graph @reshape
mpg.graph @reshape {
  // CHECK: %x = mpg.input "x" : tensor<8x32x7x7xf32>
  %x = mpg.input "x" : tensor<8x32x7x7xf32>
  // CHECK: %[[FLAT:.+]] = mpg.reshape %x : tensor<8x32x7x7xf32> -> tensor<8x1568xf32>
  %flat = mpg.reshape %x : tensor<8x32x7x7xf32> -> tensor<8x1568xf32>
  // CHECK: mpg.reshape %[[FLAT]] : tensor<8x1568xf32> -> tensor<12544xf32>
  %line = mpg.reshape %flat : tensor<8x1568xf32> -> tensor<12544xf32>
}

// CHECK-LABEL: mpg.graph @reshape_scalar_and_other_types
mpg.graph @reshape_scalar_and_other_types {
  %s = mpg.input "s" : tensor<1x1xi64>
  // CHECK: mpg.reshape %s : tensor<1x1xi64> -> tensor<i64>
  %a = mpg.reshape %s : tensor<1x1xi64> -> tensor<i64>
  %m = mpg.input "m" : tensor<2x3xi1>
  // CHECK: mpg.reshape %m : tensor<2x3xi1> -> tensor<3x2xi1>
  %b = mpg.reshape %m : tensor<2x3xi1> -> tensor<3x2xi1>
}

// CHECK-LABEL: mpg.graph @transpose
mpg.graph @transpose {
  %x = mpg.input "x" : tensor<2x16x4x8xf32>
  // CHECK: mpg.transpose %x perm [0, 2, 1, 3] : tensor<2x16x4x8xf32> -> tensor<2x4x16x8xf32>
  %t = mpg.transpose %x perm [0, 2, 1, 3] : tensor<2x16x4x8xf32> -> tensor<2x4x16x8xf32>
  // CHECK: mpg.transpose %x perm [3, 2, 1, 0] : tensor<2x16x4x8xf32> -> tensor<8x4x16x2xf32>
  %r = mpg.transpose %x perm [3, 2, 1, 0] : tensor<2x16x4x8xf32> -> tensor<8x4x16x2xf32>
}

// CHECK-LABEL: mpg.graph @transpose_identity_and_scalar
mpg.graph @transpose_identity_and_scalar {
  %x = mpg.input "x" : tensor<3x5xi32>
  // CHECK: mpg.transpose %x perm [0, 1] : tensor<3x5xi32> -> tensor<3x5xi32>
  %t = mpg.transpose %x perm [0, 1] : tensor<3x5xi32> -> tensor<3x5xi32>
  %s = mpg.input "s" : tensor<f16>
  // CHECK: mpg.transpose %s perm [] : tensor<f16> -> tensor<f16>
  %u = mpg.transpose %s perm [] : tensor<f16> -> tensor<f16>
}

// CHECK-LABEL: mpg.graph @broadcast_to
mpg.graph @broadcast_to {
  %bias = mpg.input "bias" : tensor<128xf32>
  // CHECK: mpg.broadcast_to %bias : tensor<128xf32> -> tensor<64x128xf32>
  %b = mpg.broadcast_to %bias : tensor<128xf32> -> tensor<64x128xf32>
  %col = mpg.input "col" : tensor<4x1xf16>
  // CHECK: mpg.broadcast_to %col : tensor<4x1xf16> -> tensor<2x4x6xf16>
  %c = mpg.broadcast_to %col : tensor<4x1xf16> -> tensor<2x4x6xf16>
  %s = mpg.input "s" : tensor<i1>
  // CHECK: mpg.broadcast_to %s : tensor<i1> -> tensor<3x3xi1>
  %d = mpg.broadcast_to %s : tensor<i1> -> tensor<3x3xi1>
  // CHECK: mpg.broadcast_to %bias : tensor<128xf32> -> tensor<128xf32>
  %e = mpg.broadcast_to %bias : tensor<128xf32> -> tensor<128xf32>
}

// CHECK-LABEL: mpg.graph @slice
mpg.graph @slice {
  %x = mpg.input "x" : tensor<8x16xf32>
  // CHECK: mpg.slice %x start [0, 4] limit [8, 12] : tensor<8x16xf32> -> tensor<8x8xf32>
  %s = mpg.slice %x start [0, 4] limit [8, 12] : tensor<8x16xf32> -> tensor<8x8xf32>
  // CHECK: mpg.slice %x start [1, 0] limit [8, 16] step [2, 3] : tensor<8x16xf32> -> tensor<4x6xf32>
  %t = mpg.slice %x start [1, 0] limit [8, 16] step [2, 3] : tensor<8x16xf32> -> tensor<4x6xf32>
  // CHECK: mpg.slice %x start [3, 16] limit [3, 16] step [1, 1] : tensor<8x16xf32> -> tensor<0x0xf32>
  %e = mpg.slice %x start [3, 16] limit [3, 16] step [1, 1] : tensor<8x16xf32> -> tensor<0x0xf32>
}

// CHECK-LABEL: mpg.graph @slice_integer
mpg.graph @slice_integer {
  %ids = mpg.input "ids" : tensor<10xi64>
  // CHECK: mpg.slice %ids start [2] limit [10] step [4] : tensor<10xi64> -> tensor<2xi64>
  %s = mpg.slice %ids start [2] limit [10] step [4] : tensor<10xi64> -> tensor<2xi64>
}

// CHECK-LABEL: mpg.graph @concat
mpg.graph @concat {
  %a = mpg.input "a" : tensor<4x3xf32>
  %b = mpg.input "b" : tensor<4x5xf32>
  // CHECK: mpg.concat %a, %b axis 1 : tensor<4x3xf32>, tensor<4x5xf32> -> tensor<4x8xf32>
  %c = mpg.concat %a, %b axis 1 : tensor<4x3xf32>, tensor<4x5xf32> -> tensor<4x8xf32>
  // CHECK: mpg.concat %a, %b, %a axis -1 : tensor<4x3xf32>, tensor<4x5xf32>, tensor<4x3xf32> -> tensor<4x11xf32>
  %d = mpg.concat %a, %b, %a axis -1
      : tensor<4x3xf32>, tensor<4x5xf32>, tensor<4x3xf32> -> tensor<4x11xf32>
  // CHECK: mpg.concat %a, %a, %a axis 0 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32> -> tensor<12x3xf32>
  %e = mpg.concat %a, %a, %a axis 0
      : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32> -> tensor<12x3xf32>
}

// CHECK-LABEL: mpg.graph @concat_single_input
mpg.graph @concat_single_input {
  %a = mpg.input "a" : tensor<2x3xi32>
  // CHECK: mpg.concat %a axis 0 : tensor<2x3xi32> -> tensor<2x3xi32>
  %c = mpg.concat %a axis 0 : tensor<2x3xi32> -> tensor<2x3xi32>
}

// CHECK-LABEL: mpg.graph @embedding
mpg.graph @embedding {
  %table = mpg.input "table" : tensor<96x32xf32>
  %ids = mpg.input "ids" : tensor<8x16xi32>
  // CHECK: %[[E:.+]] = mpg.embedding %table, %ids : tensor<96x32xf32>, tensor<8x16xi32> -> tensor<8x16x32xf32>
  %e = mpg.embedding %table, %ids : tensor<96x32xf32>, tensor<8x16xi32> -> tensor<8x16x32xf32>
  // CHECK: mpg.output "e" %[[E]] : tensor<8x16x32xf32>
  mpg.output "e" %e : tensor<8x16x32xf32>
}

// CHECK-LABEL: mpg.graph @embedding_i64_indices
mpg.graph @embedding_i64_indices {
  %table = mpg.input "table" : tensor<10x4xf16>
  %ids = mpg.input "ids" : tensor<5xi64>
  // CHECK: mpg.embedding %table, %ids : tensor<10x4xf16>, tensor<5xi64> -> tensor<5x4xf16>
  %e = mpg.embedding %table, %ids : tensor<10x4xf16>, tensor<5xi64> -> tensor<5x4xf16>
}

// CHECK-LABEL: mpg.graph @embedding_scalar_index
mpg.graph @embedding_scalar_index {
  %table = mpg.input "table" : tensor<10x4xbf16>
  %id = mpg.input "id" : tensor<i64>
  // CHECK: mpg.embedding %table, %id : tensor<10x4xbf16>, tensor<i64> -> tensor<4xbf16>
  %e = mpg.embedding %table, %id : tensor<10x4xbf16>, tensor<i64> -> tensor<4xbf16>
}

// A step far beyond the dimension takes only the first element.
// CHECK-LABEL: mpg.graph @slice_huge_step
mpg.graph @slice_huge_step {
  %x = mpg.input "x" : tensor<4xf32>
  // CHECK: mpg.slice %x start [1] limit [4] step [9223372036854775807] : tensor<4xf32> -> tensor<1xf32>
  %s = mpg.slice %x start [1] limit [4] step [9223372036854775807] : tensor<4xf32> -> tensor<1xf32>
}
