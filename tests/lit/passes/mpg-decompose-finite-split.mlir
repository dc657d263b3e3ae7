// RUN: mpc-opt %s --mpg-decompose | FileCheck %s
// RUN: mpc-opt %s --mpg-decompose=finite-check-split-elements=0 | FileCheck %s --check-prefix=WHOLE
// RUN: mpc-opt %s --mpg-decompose=finite-check-split-elements=70000 | FileCheck %s --check-prefix=WHOLE

// A finite check of a large operand (at least finite-check-split-elements,
// default 32768) is two sums: over the trailing axes first, keeping the
// fewest leading axes that hold 64 partial sums, then over those, which is
// the sum marked as the finite check (mpg-fuse groups the marked sums).
// Where no leading axes hold 64 with an axis left to sum (a vector, a
// 4 x 16384 matrix), where the partial sums would add fewer than 256
// elements each (4096 x 8), or where the operand is smaller, it is one sum.

// CHECK-LABEL: mpg.graph @finite_split
// 256 x 256: 256 partial sums over axis 1.
// CHECK: %[[AZ:.+]] = mpg.mul %{{.+}}, %{{.+}} : tensor<256x256xf32>, tensor<f32> -> tensor<256x256xf32>
// CHECK-NEXT: %[[AP:.+]] = mpg.reduce_sum %[[AZ]] axes [1] : tensor<256x256xf32> -> tensor<256xf32>
// CHECK-NEXT: %[[AS:.+]] = mpg.reduce_sum %[[AP]] axes [0] {mpg.finite_check} : tensor<256xf32> -> tensor<f32>
// 8 x 16 x 512: 128 partial sums over axis 2.
// CHECK: %[[BZ:.+]] = mpg.mul %{{.+}}, %{{.+}} : tensor<8x16x512xf32>, tensor<f32> -> tensor<8x16x512xf32>
// CHECK-NEXT: %[[BP:.+]] = mpg.reduce_sum %[[BZ]] axes [2] : tensor<8x16x512xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[BS:.+]] = mpg.reduce_sum %[[BP]] axes [0, 1] {mpg.finite_check} : tensor<8x16xf32> -> tensor<f32>
// 4 x 16384, 65536, 4096 x 8 and 100 x 100 (under the threshold): one sum
// each.
// CHECK: mpg.reduce_sum %{{.+}} axes [0, 1] {mpg.finite_check} : tensor<4x16384xf32> -> tensor<f32>
// CHECK: mpg.reduce_sum %{{.+}} axes [0] {mpg.finite_check} : tensor<65536xf32> -> tensor<f32>
// CHECK: mpg.reduce_sum %{{.+}} axes [0, 1] {mpg.finite_check} : tensor<4096x8xf32> -> tensor<f32>
// CHECK: mpg.reduce_sum %{{.+}} axes [0, 1] {mpg.finite_check} : tensor<100x100xf32> -> tensor<f32>
// CHECK-NOT: mpg.reduce_sum

// With the option at 0, or above every operand's size: one sum each.
// WHOLE-LABEL: mpg.graph @finite_split
// WHOLE: mpg.reduce_sum %{{.+}} axes [0, 1] {mpg.finite_check} : tensor<256x256xf32> -> tensor<f32>
// WHOLE: mpg.reduce_sum %{{.+}} axes [0, 1, 2] {mpg.finite_check} : tensor<8x16x512xf32> -> tensor<f32>
// WHOLE: mpg.reduce_sum %{{.+}} axes [0, 1] {mpg.finite_check} : tensor<4x16384xf32> -> tensor<f32>
// WHOLE: mpg.reduce_sum %{{.+}} axes [0] {mpg.finite_check} : tensor<65536xf32> -> tensor<f32>
// WHOLE: mpg.reduce_sum %{{.+}} axes [0, 1] {mpg.finite_check} : tensor<4096x8xf32> -> tensor<f32>
// WHOLE: mpg.reduce_sum %{{.+}} axes [0, 1] {mpg.finite_check} : tensor<100x100xf32> -> tensor<f32>
// WHOLE-NOT: mpg.reduce_sum
mpg.graph @finite_split {
  %a = mpg.input "a" : tensor<256x256xf32>
  %b = mpg.input "b" : tensor<8x16x512xf32>
  %c = mpg.input "c" : tensor<4x16384xf32>
  %d = mpg.input "d" : tensor<65536xf32>
  %f = mpg.input "f" : tensor<4096x8xf32>
  %e = mpg.input "e" : tensor<100x100xf32>
  %ok = mpg.all_finite %a, %b, %c, %d, %f, %e : tensor<256x256xf32>, tensor<8x16x512xf32>, tensor<4x16384xf32>, tensor<65536xf32>, tensor<4096x8xf32>, tensor<100x100xf32> -> tensor<i1>
  mpg.output "ok" %ok : tensor<i1>
}
