// RUN: mpc-opt %s | mpc-opt | FileCheck %s

// Round trip of the fused attention kernels: the forward kernel with a
// mask, the keys' and values' gradient, the queries' gradient.

// CHECK-LABEL: mpk.program @forward
// CHECK: mpk.attention @k0 %{{.+}}, %{{.+}}, %{{.+}} mask(%{{.+}} : memref<8x8xf32>) -> %{{.+}}, %{{.+}} batch 6 queries 8 keys 8 head 16 scale 2.500000e-01 causal : memref<2x3x8x16xf16>
// CHECK: mpk.attention_grad_key_value @k1 {{.+}} -> %{{.+}}, %{{.+}} : memref<2x3x8x16xf16>, memref<2x3x8x16xf16> batch 6 queries 8 keys 8 head 16 scale 2.500000e-01 causal
// CHECK: mpk.attention_grad_query @k2 {{.+}} -> %{{.+}} : memref<2x3x8x16xf16> batch 6 queries 8 keys 8 head 16 scale 2.500000e-01 causal
mpk.program @forward arena 65536 persistent 0 {
  %q = mpk.buffer arena 0 : memref<2x3x8x16xf16>
  %k = mpk.buffer arena 4096 : memref<2x3x8x16xf16>
  %v = mpk.buffer arena 8192 : memref<2x3x8x16xf16>
  %m = mpk.buffer arena 12288 : memref<8x8xf32>
  %y = mpk.buffer arena 16384 : memref<2x3x8x16xf16>
  %lse = mpk.buffer arena 20480 : memref<2x3x8xf32>
  %dy = mpk.buffer arena 24576 : memref<2x3x8x16xf16>
  %dq = mpk.buffer arena 28672 : memref<2x3x8x16xf16>
  %dk = mpk.buffer arena 32768 : memref<2x3x8x16xf16>
  %dv = mpk.buffer arena 36864 : memref<2x3x8x16xf16>
  mpk.attention @k0 %q, %k, %v mask(%m : memref<8x8xf32>) -> %y, %lse batch 6 queries 8 keys 8 head 16 scale 0.25 causal
      : memref<2x3x8x16xf16>, memref<2x3x8x16xf16>, memref<2x3x8x16xf16>, memref<2x3x8x16xf16>, memref<2x3x8xf32>
  mpk.attention_grad_key_value @k1 %q, %k, %v, %y, %lse, %dy mask(%m : memref<8x8xf32>) -> %dk, %dv : memref<2x3x8x16xf16>, memref<2x3x8x16xf16> batch 6 queries 8 keys 8 head 16 scale 0.25 causal
      : memref<2x3x8x16xf16>, memref<2x3x8x16xf16>, memref<2x3x8x16xf16>, memref<2x3x8x16xf16>, memref<2x3x8xf32>, memref<2x3x8x16xf16>
  mpk.attention_grad_query @k2 %q, %k, %v, %y, %lse, %dy mask(%m : memref<8x8xf32>) -> %dq : memref<2x3x8x16xf16> batch 6 queries 8 keys 8 head 16 scale 0.25 causal
      : memref<2x3x8x16xf16>, memref<2x3x8x16xf16>, memref<2x3x8x16xf16>, memref<2x3x8x16xf16>, memref<2x3x8xf32>, memref<2x3x8x16xf16>
}

