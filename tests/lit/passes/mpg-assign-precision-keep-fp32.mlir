// RUN: mpc-opt %s --mpg-assign-precision="mode=fp16 keep-fp32=fc1.*,softmax" --mpg-verify-precision | FileCheck %s
// RUN: not mpc-opt %s --mpg-assign-precision="mode=fp16 keep-fp32=fc3.*" 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not mpc-opt %s --mpg-assign-precision="mode=fp32 keep-fp32=fc3.*" 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not mpc-opt %s --mpg-assign-precision="mode=fp16 allow=mpg.softmax keep-fp32=softmax" 2>&1 | FileCheck %s --check-prefix=BOTH
// Without patterns the first matmul runs in f16 like the second.
// RUN: mpc-opt %s --mpg-assign-precision="mode=fp16" | FileCheck %s --check-prefix=PLAIN

// keep-fp32 patterns: "fc1.*" matches the parameter fc1.weight, so the
// matmul that reads it runs in fp32 (forced) and fc1.weight is not cast;
// fc2.weight's matmul is a dot-product in f16 as usual; "softmax" names an
// op kind, kept in fp32 with the pattern as its reason.
// CHECK-LABEL: mpg.graph @keep
// CHECK-NOT: %fc1.weight to tensor<64x32xf16>
// CHECK: mpg.matmul %x, %fc1.weight {{.*}}category = "dot-product", compute = f32, forced, reason = "keep-fp32 'fc1.*': reads parameter fc1.weight, kept in fp32", storage = f32}} : tensor<8x64xf32>, tensor<64x32xf32> -> tensor<8x32xf32>
// CHECK: mpg.matmul {{.*}}category = "dot-product", compute = f32, reason = {{.*}}storage = f16}} : tensor<8x32xf16>, tensor<32x10xf16> -> tensor<8x10xf16>
// CHECK: mpg.softmax {{.*}}category = "softmax", compute = f32, forced, reason = "keep-fp32 'softmax': mpg.softmax runs in fp32", storage = f32}}

// PLAIN-LABEL: mpg.graph @keep
// PLAIN: mpg.cast %fc1.weight : tensor<64x32xf32> to tensor<64x32xf16>
// PLAIN-NOT: forced

// NONE: error: mpg-assign-precision: keep-fp32 pattern 'fc3.*' is no op kind (there is no mpg.fc3.*) and matches no parameter of this graph
// BOTH: error: mpg-assign-precision: 'mpg.softmax' is in both the allow and the keep-fp32 patterns
mpg.graph @keep {
  %x = mpg.input "x" : tensor<8x64xf32>
  %fc1.weight = mpg.param "fc1.weight" init(glorot_uniform) : tensor<64x32xf32>
  %fc2.weight = mpg.param "fc2.weight" init(glorot_uniform) : tensor<32x10xf32>
  %h = mpg.matmul %x, %fc1.weight : tensor<8x64xf32>, tensor<64x32xf32> -> tensor<8x32xf32>
  %r = mpg.relu %h : tensor<8x32xf32>
  %z = mpg.matmul %r, %fc2.weight : tensor<8x32xf32>, tensor<32x10xf32> -> tensor<8x10xf32>
  %s = mpg.softmax %z : tensor<8x10xf32> -> tensor<8x10xf32>
  mpg.output "s" %s : tensor<8x10xf32>
}
