// RUN: rm -rf %t && mkdir -p %t
// RUN: mpc compile %s --emit cuda | FileCheck %s
// RUN: mpc compile %s -o %t/shared.mpcb
// RUN: %pynum -c "import numpy as np; np.save('%t/x.npy', np.linspace(-2, 2, 256, dtype=np.float32).reshape(16, 16))"
// RUN: mpc run %t/shared.mpcb --input x=%t/x.npy --output e=%t/e.npy > /dev/null
// RUN: %pynum -c "import numpy as np; x = np.load('%t/x.npy').astype(np.float64); sm = lambda v: np.exp(v - v.max(1, keepdims=True)) / np.exp(v - v.max(1, keepdims=True)).sum(1, keepdims=True); want = np.exp(sm(np.exp(sm(np.exp(x))))); got = np.load('%t/e.npy'); assert np.allclose(got, want, rtol=1e-5), abs(got - want).max(); print('ok')" | FileCheck %s --check-prefix=RESULT
// RESULT: ok

// Kernels that would read the same (a repeated layer: the same ops on the
// same shapes, the same launch) are one kernel: its functor and entry are
// printed once, and the manifest launches it for each op with that op's
// buffers, which computes what each should.
// CHECK: struct k0_fn {
// CHECK: MPC_KERNEL(k0) {
// CHECK-NEXT: const k0_fn fn{
// CHECK: struct k1_fn {
// CHECK: MPC_KERNEL(k1) {
// CHECK-NOT: struct
// CHECK-NOT: MPC_KERNEL(
// CHECK: MPC_KERNEL_BUFFER_BYTES(k0, 2, 1024, 1024)
// CHECK-NEXT: MPC_KERNEL_BUFFER_BYTES(k1, 2, 1024, 1024)
// CHECK-NOT: MPC_KERNEL_BUFFER_BYTES
// RUN: mpc compile %s --emit manifest | %pynum -c "import json, sys; m = json.load(sys.stdin); print([k['name'] for k in m['kernels']], [(s['kernel'], s['buffers'][0]['offset'], s['buffers'][1]['offset']) for s in m['steps'] if s['op'] == 'launch'])" | FileCheck %s --check-prefix=LAUNCHES
// LAUNCHES: ['k0', 'k1'] [('k0', 0, 0), ('k1', 0, 1024), ('k0', 1024, 1024), ('k1', 1024, 0), ('k0', 0, 0)]
mpg.graph @repeated_layers {
  %x = mpg.input "x" : tensor<16x16xf32>
  %a = mpg.exp %x : tensor<16x16xf32>
  %b = mpg.softmax %a : tensor<16x16xf32> -> tensor<16x16xf32>
  %c = mpg.exp %b : tensor<16x16xf32>
  %d = mpg.softmax %c : tensor<16x16xf32> -> tensor<16x16xf32>
  %e = mpg.exp %d : tensor<16x16xf32>
  mpg.output "e" %e : tensor<16x16xf32>
}
