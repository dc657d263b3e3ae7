// RUN: rm -rf %t && mkdir -p %t
// RUN: mpc compile %s --emit cuda | FileCheck %s
// RUN: mpc compile %s -o %t/shared.mpcb
// RUN: %pynum -c "import numpy as np; np.save('%t/x.npy', np.linspace(-2, 2, 256, dtype=np.float32).reshape(16, 16))"
// RUN: mpc run %t/shared.mpcb --input x=%t/x.npy --output e=%t/e.npy > /dev/null
// RUN: %pynum -c "import numpy as np; x = np.load('%t/x.npy').astype(np.float64); sm = lambda v: np.exp(v - v.max(1, keepdims=True)) / np.exp(v - v.max(1, keepdims=True)).sum(1, keepdims=True); want = np.exp(sm(np.exp(sm(np.exp(x))))); got = np.load('%t/e.npy'); assert np.allclose(got, want, rtol=1e-5), abs(got - want).max(); print('ok')" | FileCheck %s --check-prefix=RESULT
// RESULT: ok

// Kernels whose functors would read the same (a repeated layer: the same
// ops on the same shapes) share the first one's functor; each keeps its own
// entry point, which the manifest launches, and computes what it should.
// CHECK: struct k0_fn {
// CHECK: MPC_KERNEL(k0) {
// CHECK-NEXT: const k0_fn fn{
// CHECK: struct k1_fn {
// CHECK: MPC_KERNEL(k1) {
// CHECK-NOT: struct
// CHECK: MPC_KERNEL(k2) {
// CHECK-NEXT: const k0_fn fn{
// CHECK: MPC_KERNEL(k3) {
// CHECK-NEXT: const k1_fn fn{
// CHECK: MPC_KERNEL(k4) {
// CHECK-NEXT: const k0_fn fn{
mpg.graph @repeated_layers {
  %x = mpg.input "x" : tensor<16x16xf32>
  %a = mpg.exp %x : tensor<16x16xf32>
  %b = mpg.softmax %a : tensor<16x16xf32> -> tensor<16x16xf32>
  %c = mpg.exp %b : tensor<16x16xf32>
  %d = mpg.softmax %c : tensor<16x16xf32> -> tensor<16x16xf32>
  %e = mpg.exp %d : tensor<16x16xf32>
  mpg.output "e" %e : tensor<16x16xf32>
}
