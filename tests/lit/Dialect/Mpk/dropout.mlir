// RUN: mpc-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// mpk.dropout: its round trip, then each diagnostic.

// CHECK-LABEL: mpk.program @dropout
// CHECK: mpk.dropout @k0 %[[X:.+]], %[[S:.+]], %[[R:.+]] -> %[[Y:.+]] rate 2.500000e-01 stream 3 : memref<8x64xf16>, memref<i64>, memref<i64>, memref<8x64xf16>
mpk.program @dropout arena 65536 persistent 16384 {
  %x = mpk.buffer arena 0 : memref<8x64xf16>
  %s = mpk.buffer persistent 0 : memref<i64>
  %r = mpk.buffer persistent 8 : memref<i64>
  %y = mpk.buffer arena 1024 : memref<8x64xf16>
  mpk.dropout @k0 %x, %s, %r -> %y rate 0.25 stream 3
      : memref<8x64xf16>, memref<i64>, memref<i64>, memref<8x64xf16>
}

// -----

mpk.program @dropout_types arena 65536 persistent 16384 {
  %x = mpk.buffer arena 0 : memref<8xf16>
  %s = mpk.buffer persistent 0 : memref<i64>
  %y = mpk.buffer arena 1024 : memref<8xf32>
  // expected-error @below {{'mpk.dropout' op expects a floating-point input and an output of its type, got 'memref<8xf16>' and 'memref<8xf32>'}}
  mpk.dropout @k0 %x, %s, %s -> %y rate 0.25 stream 3 : memref<8xf16>, memref<i64>, memref<i64>, memref<8xf32>
}

// -----

mpk.program @dropout_key arena 65536 persistent 16384 {
  %x = mpk.buffer arena 0 : memref<8xf32>
  %s = mpk.buffer persistent 0 : memref<2xi64>
  %y = mpk.buffer arena 1024 : memref<8xf32>
  // expected-error @below {{'mpk.dropout' op expects an i64 scalar seed and run, got 'memref<2xi64>'}}
  mpk.dropout @k0 %x, %s, %s -> %y rate 0.25 stream 3 : memref<8xf32>, memref<2xi64>, memref<2xi64>, memref<8xf32>
}

// -----

mpk.program @dropout_rate arena 65536 persistent 16384 {
  %x = mpk.buffer arena 0 : memref<8xf32>
  %s = mpk.buffer persistent 0 : memref<i64>
  %y = mpk.buffer arena 1024 : memref<8xf32>
  // expected-error @below {{'mpk.dropout' op expects a rate in [0, 1), got 1.500000e+00}}
  mpk.dropout @k0 %x, %s, %s -> %y rate 1.5 stream 3 : memref<8xf32>, memref<i64>, memref<i64>, memref<8xf32>
}

// -----

mpk.program @dropout_stream arena 65536 persistent 16384 {
  %x = mpk.buffer arena 0 : memref<8xf32>
  %s = mpk.buffer persistent 0 : memref<i64>
  %y = mpk.buffer arena 1024 : memref<8xf32>
  // expected-error @below {{'mpk.dropout' op expects a stream in [0, 2^32), got -1}}
  mpk.dropout @k0 %x, %s, %s -> %y rate 0.5 stream -1 : memref<8xf32>, memref<i64>, memref<i64>, memref<8xf32>
}

// -----

mpk.program @dropout_size arena 65536 persistent 16384 {
  %x = mpk.buffer arena 0 : memref<131072x131072xf16>
  %s = mpk.buffer persistent 0 : memref<i64>
  // expected-error @below {{'mpk.dropout' op expects fewer than 2^34 elements}}
  mpk.dropout @k0 %x, %s, %s -> %x rate 0.5 stream 0 : memref<131072x131072xf16>, memref<i64>, memref<i64>, memref<131072x131072xf16>
}
