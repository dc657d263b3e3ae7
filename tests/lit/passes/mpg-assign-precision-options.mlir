// RUN: mpc-opt %s --mpg-assign-precision="mode=fp16 deny=mpg.matmul allow=mpg.exp,mpg.softmax" --mpg-verify-precision | FileCheck %s
// RUN: not mpc-opt %s --mpg-assign-precision="mode=fp8" 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not mpc-opt %s --mpg-assign-precision="mode=fp16 deny=mpg.exp allow=mpg.exp" 2>&1 | FileCheck %s --check-prefix=BOTH

// The allow and deny options: a denied matmul stays f32, allowed exp and
// softmax run in f16 (forced: the verifier accepts them); with the matmul
// in f32, the add that follows it stays f32 too.
// CHECK-LABEL: mpg.graph @options attributes {mpg.precision_summary = {casts_inserted = 3 : i64
// CHECK-NOT: mpg.cast
// CHECK: %[[A:.+]] = mpg.matmul {{.*}}category = "dot-product", compute = f32, forced, reason = "deny list: mpg.matmul runs in fp32", storage = f32}} : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[B:.+]] = mpg.add %[[A]], %{{.+}} {{.*}}storage = f32}} : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[BH:.+]] = mpg.cast %[[B]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT: mpg.exp %[[BH]] {{.*}}forced, reason = "allow list: mpg.exp runs in low precision", storage = f16}} : tensor<4x8xf16>
// CHECK-NEXT: mpg.cast
// CHECK-NEXT: mpg.softmax %[[BH]] {{.*}}forced, reason = "allow list: mpg.softmax runs in low precision", storage = f16}} : tensor<4x8xf16> -> tensor<4x8xf16>
// CHECK-NEXT: mpg.cast
// CHECK-NEXT: mpg.log %[[B]] {{.*}}category = "sensitive", compute = f32, reason{{.*}}storage = f32}} : tensor<4x8xf32>

// MODE: error: mpg-assign-precision: unknown mode 'fp8'; expected fp32, fp16 or bf16
// BOTH: error: mpg-assign-precision: 'mpg.exp' is in both the allow and the deny list
mpg.graph @options {
  %x = mpg.input "x" : tensor<4x6xf32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<6x8xf32>
  %b = mpg.param "b" init(zeros) : tensor<8xf32>
  %a = mpg.matmul %x, %w : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  %y = mpg.add %a, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %e = mpg.exp %y : tensor<4x8xf32>
  %s = mpg.softmax %y : tensor<4x8xf32> -> tensor<4x8xf32>
  %l = mpg.log %y : tensor<4x8xf32>
  mpg.output "e" %e : tensor<4x8xf32>
  mpg.output "s" %s : tensor<4x8xf32>
  mpg.output "l" %l : tensor<4x8xf32>
}
// RUN: not mpc-opt %s --mpg-assign-precision="mode=fp16 allow=exp" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: mpg-assign-precision: unknown op 'exp' in the allow list; name ops as in mpg.exp
