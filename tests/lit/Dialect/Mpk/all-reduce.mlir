// RUN: mpc-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: mpc-opt %s -split-input-file -verify-diagnostics -mlir-print-op-generic | mpc-opt -split-input-file | FileCheck %s

// mpk.all_reduce: its round trip (each reduction) and its verifier errors.

// CHECK-LABEL: mpk.program @buckets
// CHECK: mpk.all_reduce mean %{{.+}} : memref<1290xf32>
// CHECK: mpk.all_reduce sum %{{.+}} : memref<64xbf16>
// CHECK: mpk.all_reduce max %{{.+}} : memref<2xi32>
mpk.program @buckets arena 8192 persistent 0 {
  %0 = mpk.buffer arena 0 : memref<1290xf32>
  %1 = mpk.buffer arena 5376 : memref<64xbf16>
  %2 = mpk.buffer arena 5632 : memref<2xi32>
  mpk.all_reduce mean %0 : memref<1290xf32>
  mpk.all_reduce sum %1 : memref<64xbf16>
  mpk.all_reduce max %2 : memref<2xi32>
}

// -----

mpk.program @mean_of_integers arena 256 persistent 0 {
  %0 = mpk.buffer arena 0 : memref<4xi32>
  // expected-error @below {{'mpk.all_reduce' op takes the mean of float elements only, not 'i32'}}
  mpk.all_reduce mean %0 : memref<4xi32>
}

// -----

mpk.program @i64_elements arena 256 persistent 0 {
  %0 = mpk.buffer arena 0 : memref<4xi64>
  // expected-error @below {{'mpk.all_reduce' op reduces f16, bf16, f32, f64 or i32 elements, not 'i64'}}
  mpk.all_reduce sum %0 : memref<4xi64>
}
