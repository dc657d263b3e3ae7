// RUN: mpc-opt %s --pass-pipeline='builtin.module(mpg.graph(mpg-fuse-attention))' -split-input-file | FileCheck %s
// The pipelines run it before autodiff (the backward pass is the fused
// op's, and no S x S tensor is left in the step), unless turned off.
// RUN: mpc-opt %s --mpc-train-pipeline -split-input-file | FileCheck %s --check-prefix=TRAIN
// RUN: mpc-opt %s --mpc-train-pipeline='fuse-attention=false' -split-input-file | FileCheck %s --check-prefix=UNFUSED

// What the ONNX export of a hand-written causal block gives (bench/gpt2):
// the keys transposed by a transpose of their own, a rank-0 scale, a
// constant causal mask (0 on and below the diagonal, -1e4 above). The
// keys' transpose is composed with the key swap; the scale, the mask and
// the intermediate ops go.
// CHECK-LABEL: mpg.graph @onnx_causal
// CHECK: %[[Q:.+]] = mpg.input "q" : tensor<2x3x4x8xf32>
// CHECK: %[[K4:.+]] = mpg.input "k" : tensor<2x4x3x8xf32>
// CHECK: %[[V:.+]] = mpg.param "v"
// CHECK-NOT: mpg.constant
// CHECK: %[[QW:.+]] = mpg.mul %[[Q]]
// CHECK-NEXT: %[[K:.+]] = mpg.transpose %[[K4]] perm [0, 2, 1, 3] : tensor<2x4x3x8xf32> -> tensor<2x3x4x8xf32>
// CHECK-NEXT: %[[Y:.+]], %{{.+}} = mpg.attention %[[QW]], %[[K]], %[[V]] scale 2.500000e-01 causal : tensor<2x3x4x8xf32>, tensor<2x3x4x8xf32>, tensor<2x3x4x8xf32> -> tensor<2x3x4x8xf32>, tensor<2x3x4xf32>
// CHECK-NEXT: mpg.output "y" %[[Y]]
// CHECK-NEXT: mpg.reduce_sum
// CHECK-NEXT: mpg.minimize
// In the training step the keys need no gradient: the kernel of the keys'
// and values' gradients writes the keys' into scratch
// (gradient_check_test.py's attention cases check the values it computes
// beside it).
// TRAIN-LABEL: mpk.program @onnx_causal
// TRAIN-NOT: mpk.softmax
// TRAIN: mpk.attention @{{.+}} causal
// TRAIN: mpk.attention_grad_key_value
// TRAIN: mpk.attention_grad_query
// TRAIN-NOT: mpk.softmax
// TRAIN-LABEL: mpk.program @transpose_b_divide_mask
// UNFUSED-LABEL: mpk.program @onnx_causal
// UNFUSED-NOT: mpk.attention
// UNFUSED: mpk.softmax
mpg.graph @onnx_causal {
  %q = mpg.input "q" : tensor<2x3x4x8xf32>
  %k4 = mpg.input "k" : tensor<2x4x3x8xf32>
  %v = mpg.param "v" init(ones) : tensor<2x3x4x8xf32>
  %w = mpg.param "w" init(ones) : tensor<2x3x4x8xf32>
  %qw = mpg.mul %q, %w : tensor<2x3x4x8xf32>, tensor<2x3x4x8xf32> -> tensor<2x3x4x8xf32>
  %kt = mpg.transpose %k4 perm [0, 2, 3, 1] : tensor<2x4x3x8xf32> -> tensor<2x3x8x4xf32>
  %s = mpg.batch_matmul %qw, %kt : tensor<2x3x4x8xf32>, tensor<2x3x8x4xf32> -> tensor<2x3x4x4xf32>
  %c = mpg.constant dense<2.500000e-01> : tensor<f32>
  %t = mpg.mul %s, %c : tensor<2x3x4x4xf32>, tensor<f32> -> tensor<2x3x4x4xf32>
  %mask = mpg.constant dense<[[0.0, -1.0e4, -1.0e4, -1.0e4], [0.0, 0.0, -1.0e4, -1.0e4], [0.0, 0.0, 0.0, -1.0e4], [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  %u = mpg.add %t, %mask : tensor<2x3x4x4xf32>, tensor<4x4xf32> -> tensor<2x3x4x4xf32>
  %p = mpg.softmax %u axis 3 : tensor<2x3x4x4xf32> -> tensor<2x3x4x4xf32>
  %y = mpg.batch_matmul %p, %v : tensor<2x3x4x4xf32>, tensor<2x3x4x8xf32> -> tensor<2x3x4x8xf32>
  mpg.output "y" %y : tensor<2x3x4x8xf32>
  %l = mpg.reduce_sum %y axes [0, 1, 2, 3] : tensor<2x3x4x8xf32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 1.000000e-01) : tensor<f32>
}

// -----

// Keys given with transpose_b, a division by a scalar, a mask that is not
// causal (an input, [1, Sq, Sk]: reshaped to [Sq, Sk]), the mask added on
// the left, softmax with axis -1.
// CHECK-LABEL: mpg.graph @transpose_b_divide_mask
// CHECK: %[[Q:.+]] = mpg.input "q"
// CHECK: %[[K:.+]] = mpg.input "k"
// CHECK: %[[V:.+]] = mpg.input "v"
// CHECK: %[[M:.+]] = mpg.input "m" : tensor<1x5x6xf32>
// CHECK: %[[M2:.+]] = mpg.reshape %[[M]] : tensor<1x5x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[Y:.+]], %{{.+}} = mpg.attention %[[Q]], %[[K]], %[[V]] mask(%[[M2]] : tensor<5x6xf32>) scale 5.000000e-01 : tensor<4x5x8xf32>, tensor<4x6x8xf32>, tensor<4x6x8xf32> -> tensor<4x5x8xf32>, tensor<4x5xf32>
// CHECK-NEXT: mpg.output "y" %[[Y]]
mpg.graph @transpose_b_divide_mask {
  %q = mpg.input "q" : tensor<4x5x8xf32>
  %k = mpg.input "k" : tensor<4x6x8xf32>
  %v = mpg.input "v" : tensor<4x6x8xf32>
  %m = mpg.input "m" : tensor<1x5x6xf32>
  %s = mpg.batch_matmul %q, %k transpose_b : tensor<4x5x8xf32>, tensor<4x6x8xf32> -> tensor<4x5x6xf32>
  %c = mpg.constant dense<2.000000e+00> : tensor<f32>
  %t = mpg.div %s, %c : tensor<4x5x6xf32>, tensor<f32> -> tensor<4x5x6xf32>
  %u = mpg.add %m, %t : tensor<1x5x6xf32>, tensor<4x5x6xf32> -> tensor<4x5x6xf32>
  %p = mpg.softmax %u : tensor<4x5x6xf32> -> tensor<4x5x6xf32>
  %y = mpg.batch_matmul %p, %v : tensor<4x5x6xf32>, tensor<4x6x8xf32> -> tensor<4x5x8xf32>
  mpg.output "y" %y : tensor<4x5x8xf32>
}

// -----

// No scale and no mask; the keys' transpose is not the swap of a transpose
// (a plain tensor [..., D, Sk]): one transpose of the last two dimensions.
// A mask constant that is not causal (a value other than 0 below the
// diagonal) stays a mask.
// CHECK-LABEL: mpg.graph @plain
// CHECK: %[[KT:.+]] = mpg.input "kt" : tensor<2x8x3xf32>
// CHECK: %[[K:.+]] = mpg.transpose %[[KT]] perm [0, 2, 1] : tensor<2x8x3xf32> -> tensor<2x3x8xf32>
// CHECK-NEXT: mpg.attention %{{.+}}, %[[K]], %{{.+}} scale 1.000000e+00 :
// CHECK-LABEL: mpg.graph @not_causal_constant
// CHECK: %[[M:.+]] = mpg.constant
// CHECK: mpg.attention %{{.+}} mask(%[[M]] : tensor<3x3xf32>) scale 1.000000e+00 :
mpg.graph @plain {
  %q = mpg.input "q" : tensor<2x3x8xf32>
  %kt = mpg.input "kt" : tensor<2x8x3xf32>
  %v = mpg.input "v" : tensor<2x3x8xf32>
  %s = mpg.batch_matmul %q, %kt : tensor<2x3x8xf32>, tensor<2x8x3xf32> -> tensor<2x3x3xf32>
  %p = mpg.softmax %s : tensor<2x3x3xf32> -> tensor<2x3x3xf32>
  %y = mpg.batch_matmul %p, %v : tensor<2x3x3xf32>, tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  mpg.output "y" %y : tensor<2x3x8xf32>
}
mpg.graph @not_causal_constant {
  %q = mpg.input "q" : tensor<2x3x8xf32>
  %k = mpg.input "k" : tensor<2x3x8xf32>
  %v = mpg.input "v" : tensor<2x3x8xf32>
  %s = mpg.batch_matmul %q, %k transpose_b : tensor<2x3x8xf32>, tensor<2x3x8xf32> -> tensor<2x3x3xf32>
  %mask = mpg.constant dense<[[0.0, -1.0e4, -1.0e4], [0.5, 0.0, -1.0e4], [0.0, 0.0, 0.0]]> : tensor<3x3xf32>
  %u = mpg.add %s, %mask : tensor<2x3x3xf32>, tensor<3x3xf32> -> tensor<2x3x3xf32>
  %p = mpg.softmax %u : tensor<2x3x3xf32> -> tensor<2x3x3xf32>
  %y = mpg.batch_matmul %p, %v : tensor<2x3x3xf32>, tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  mpg.output "y" %y : tensor<2x3x8xf32>
}

// -----

// Left alone: probabilities with another user (the graph outputs them), a
// softmax over another axis, scores scaled by a tensor that is not a
// uniform constant, a mask computed from a trainable parameter (it would
// need a gradient), a mask of the batch's shape, and products of another
// element type in between.
// CHECK-LABEL: mpg.graph @probabilities_read
// CHECK-NOT: mpg.attention
// CHECK: mpg.softmax
// CHECK-LABEL: mpg.graph @other_axis
// CHECK-NOT: mpg.attention
// CHECK: mpg.softmax
// CHECK-LABEL: mpg.graph @tensor_scale
// CHECK-NOT: mpg.attention
// CHECK: mpg.softmax
// CHECK-LABEL: mpg.graph @trained_mask
// CHECK-NOT: mpg.attention
// CHECK: mpg.softmax
// CHECK-LABEL: mpg.graph @batch_mask
// CHECK-NOT: mpg.attention
// CHECK: mpg.softmax
// CHECK-LABEL: mpg.graph @mixed_types
// CHECK-NOT: mpg.attention
// CHECK: mpg.softmax
mpg.graph @probabilities_read {
  %q = mpg.input "q" : tensor<2x3x8xf32>
  %k = mpg.input "k" : tensor<2x3x8xf32>
  %s = mpg.batch_matmul %q, %k transpose_b : tensor<2x3x8xf32>, tensor<2x3x8xf32> -> tensor<2x3x3xf32>
  %p = mpg.softmax %s : tensor<2x3x3xf32> -> tensor<2x3x3xf32>
  %y = mpg.batch_matmul %p, %k : tensor<2x3x3xf32>, tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  mpg.output "y" %y : tensor<2x3x8xf32>
  mpg.output "p" %p : tensor<2x3x3xf32>
}
mpg.graph @other_axis {
  %q = mpg.input "q" : tensor<2x3x8xf32>
  %k = mpg.input "k" : tensor<2x3x8xf32>
  %s = mpg.batch_matmul %q, %k transpose_b : tensor<2x3x8xf32>, tensor<2x3x8xf32> -> tensor<2x3x3xf32>
  %p = mpg.softmax %s axis 1 : tensor<2x3x3xf32> -> tensor<2x3x3xf32>
  %y = mpg.batch_matmul %p, %k : tensor<2x3x3xf32>, tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  mpg.output "y" %y : tensor<2x3x8xf32>
}
mpg.graph @tensor_scale {
  %q = mpg.input "q" : tensor<2x3x8xf32>
  %k = mpg.input "k" : tensor<2x3x8xf32>
  %c = mpg.input "c" : tensor<3xf32>
  %s = mpg.batch_matmul %q, %k transpose_b : tensor<2x3x8xf32>, tensor<2x3x8xf32> -> tensor<2x3x3xf32>
  %t = mpg.mul %s, %c : tensor<2x3x3xf32>, tensor<3xf32> -> tensor<2x3x3xf32>
  %p = mpg.softmax %t : tensor<2x3x3xf32> -> tensor<2x3x3xf32>
  %y = mpg.batch_matmul %p, %k : tensor<2x3x3xf32>, tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  mpg.output "y" %y : tensor<2x3x8xf32>
}
mpg.graph @trained_mask {
  %q = mpg.input "q" : tensor<2x3x8xf32>
  %k = mpg.input "k" : tensor<2x3x8xf32>
  %b = mpg.param "bias" init(zeros) : tensor<3x3xf32>
  %m = mpg.neg %b : tensor<3x3xf32>
  %s = mpg.batch_matmul %q, %k transpose_b : tensor<2x3x8xf32>, tensor<2x3x8xf32> -> tensor<2x3x3xf32>
  %u = mpg.add %s, %m : tensor<2x3x3xf32>, tensor<3x3xf32> -> tensor<2x3x3xf32>
  %p = mpg.softmax %u : tensor<2x3x3xf32> -> tensor<2x3x3xf32>
  %y = mpg.batch_matmul %p, %k : tensor<2x3x3xf32>, tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  mpg.output "y" %y : tensor<2x3x8xf32>
}
mpg.graph @batch_mask {
  %q = mpg.input "q" : tensor<2x3x8xf32>
  %k = mpg.input "k" : tensor<2x3x8xf32>
  %m = mpg.input "m" : tensor<2x3x3xf32>
  %s = mpg.batch_matmul %q, %k transpose_b : tensor<2x3x8xf32>, tensor<2x3x8xf32> -> tensor<2x3x3xf32>
  %u = mpg.add %s, %m : tensor<2x3x3xf32>, tensor<2x3x3xf32> -> tensor<2x3x3xf32>
  %p = mpg.softmax %u : tensor<2x3x3xf32> -> tensor<2x3x3xf32>
  %y = mpg.batch_matmul %p, %k : tensor<2x3x3xf32>, tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  mpg.output "y" %y : tensor<2x3x8xf32>
}
mpg.graph @mixed_types {
  %q = mpg.input "q" : tensor<2x3x8xf16>
  %k = mpg.input "k" : tensor<2x3x8xf16>
  %s = mpg.batch_matmul %q, %k transpose_b : tensor<2x3x8xf16>, tensor<2x3x8xf16> -> tensor<2x3x3xf32>
  %p = mpg.softmax %s : tensor<2x3x3xf32> -> tensor<2x3x3xf16>
  %y = mpg.batch_matmul %p, %k : tensor<2x3x3xf16>, tensor<2x3x8xf16> -> tensor<2x3x8xf16>
  mpg.output "y" %y : tensor<2x3x8xf16>
}

// -----

// Fused too: a [1, 1, S, S] causal constant (the flag); the mask added on
// the left when every batch dimension is 1 (the scores' side is the one a
// product defines); one attention's output as the next one's queries (each
// rewrite reads its operands as they are then).
// CHECK-LABEL: mpg.graph @causal_rank4_constant
// CHECK-NOT: mpg.constant
// CHECK: mpg.attention %{{.+}} scale 1.000000e+00 causal :
// CHECK-LABEL: mpg.graph @mask_left_unit_batch
// CHECK: mpg.attention %q, %k, %v mask(%m : tensor<3x3xf32>) scale 1.000000e+00 :
// CHECK-LABEL: mpg.graph @chained
// CHECK: %[[Y1:.+]], %{{.+}} = mpg.attention %q, %k, %v
// CHECK-NEXT: %[[Y2:.+]], %{{.+}} = mpg.attention %[[Y1]], %k, %v
// CHECK-NEXT: mpg.output "y" %[[Y2]]
mpg.graph @causal_rank4_constant {
  %q = mpg.input "q" : tensor<1x2x3x8xf32>
  %k = mpg.input "k" : tensor<1x2x3x8xf32>
  %v = mpg.input "v" : tensor<1x2x3x8xf32>
  %s = mpg.batch_matmul %q, %k transpose_b : tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32> -> tensor<1x2x3x3xf32>
  %mask = mpg.constant dense<[[[[0.0, -1.0e30, -1.0e30], [0.0, 0.0, -1.0e30], [0.0, 0.0, 0.0]]]]> : tensor<1x1x3x3xf32>
  %u = mpg.add %s, %mask : tensor<1x2x3x3xf32>, tensor<1x1x3x3xf32> -> tensor<1x2x3x3xf32>
  %p = mpg.softmax %u : tensor<1x2x3x3xf32> -> tensor<1x2x3x3xf32>
  %y = mpg.batch_matmul %p, %v : tensor<1x2x3x3xf32>, tensor<1x2x3x8xf32> -> tensor<1x2x3x8xf32>
  mpg.output "y" %y : tensor<1x2x3x8xf32>
}
mpg.graph @mask_left_unit_batch {
  %q = mpg.input "q" : tensor<1x3x8xf32>
  %k = mpg.input "k" : tensor<1x3x8xf32>
  %v = mpg.input "v" : tensor<1x3x8xf32>
  %m = mpg.input "m" : tensor<3x3xf32>
  %m3 = mpg.reshape %m : tensor<3x3xf32> -> tensor<1x3x3xf32>
  %s = mpg.batch_matmul %q, %k transpose_b : tensor<1x3x8xf32>, tensor<1x3x8xf32> -> tensor<1x3x3xf32>
  %u = mpg.add %m3, %s : tensor<1x3x3xf32>, tensor<1x3x3xf32> -> tensor<1x3x3xf32>
  %p = mpg.softmax %u : tensor<1x3x3xf32> -> tensor<1x3x3xf32>
  %y = mpg.batch_matmul %p, %v : tensor<1x3x3xf32>, tensor<1x3x8xf32> -> tensor<1x3x8xf32>
  mpg.output "y" %y : tensor<1x3x8xf32>
}
mpg.graph @chained {
  %q = mpg.input "q" : tensor<2x3x8xf32>
  %k = mpg.input "k" : tensor<2x3x8xf32>
  %v = mpg.input "v" : tensor<2x3x8xf32>
  %s1 = mpg.batch_matmul %q, %k transpose_b : tensor<2x3x8xf32>, tensor<2x3x8xf32> -> tensor<2x3x3xf32>
  %p1 = mpg.softmax %s1 : tensor<2x3x3xf32> -> tensor<2x3x3xf32>
  %y1 = mpg.batch_matmul %p1, %v : tensor<2x3x3xf32>, tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  %s2 = mpg.batch_matmul %y1, %k transpose_b : tensor<2x3x8xf32>, tensor<2x3x8xf32> -> tensor<2x3x3xf32>
  %p2 = mpg.softmax %s2 : tensor<2x3x3xf32> -> tensor<2x3x3xf32>
  %y2 = mpg.batch_matmul %p2, %v : tensor<2x3x3xf32>, tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  mpg.output "y" %y2 : tensor<2x3x8xf32>
}

// -----

// Left alone as well: a head larger than the kernels take (128), an f64
// chain (no kernel), and scores with a second user.
// CHECK-LABEL: mpg.graph @head_256
// CHECK-NOT: mpg.attention
// CHECK: mpg.softmax
// CHECK-LABEL: mpg.graph @float64
// CHECK-NOT: mpg.attention
// CHECK: mpg.softmax
// CHECK-LABEL: mpg.graph @scores_read
// CHECK-NOT: mpg.attention
// CHECK: mpg.softmax
mpg.graph @head_256 {
  %q = mpg.input "q" : tensor<2x3x256xf32>
  %s = mpg.batch_matmul %q, %q transpose_b : tensor<2x3x256xf32>, tensor<2x3x256xf32> -> tensor<2x3x3xf32>
  %p = mpg.softmax %s : tensor<2x3x3xf32> -> tensor<2x3x3xf32>
  %y = mpg.batch_matmul %p, %q : tensor<2x3x3xf32>, tensor<2x3x256xf32> -> tensor<2x3x256xf32>
  mpg.output "y" %y : tensor<2x3x256xf32>
}
mpg.graph @float64 {
  %q = mpg.input "q" : tensor<2x3x8xf64>
  %s = mpg.batch_matmul %q, %q transpose_b : tensor<2x3x8xf64>, tensor<2x3x8xf64> -> tensor<2x3x3xf64>
  %p = mpg.softmax %s : tensor<2x3x3xf64> -> tensor<2x3x3xf64>
  %y = mpg.batch_matmul %p, %q : tensor<2x3x3xf64>, tensor<2x3x8xf64> -> tensor<2x3x8xf64>
  mpg.output "y" %y : tensor<2x3x8xf64>
}
mpg.graph @scores_read {
  %q = mpg.input "q" : tensor<2x3x8xf32>
  %s = mpg.batch_matmul %q, %q transpose_b : tensor<2x3x8xf32>, tensor<2x3x8xf32> -> tensor<2x3x3xf32>
  %p = mpg.softmax %s : tensor<2x3x3xf32> -> tensor<2x3x3xf32>
  %y = mpg.batch_matmul %p, %q : tensor<2x3x3xf32>, tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  mpg.output "y" %y : tensor<2x3x8xf32>
  mpg.output "s" %s : tensor<2x3x3xf32>
}
