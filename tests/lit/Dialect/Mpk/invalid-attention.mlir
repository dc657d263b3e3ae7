// RUN: mpc-opt %s -split-input-file -verify-diagnostics

// Diagnostics of the fused attention kernels: mpk.attention,
// mpk.attention_grad_query and mpk.attention_grad_key_value. The emitter
// indexes their buffers by the sizes, so each verifier error has a case.

mpk.program @sizes arena 65536 persistent 0 {
  %q = mpk.buffer arena 0 : memref<4x8x16xf32>
  %y = mpk.buffer arena 4096 : memref<4x8x16xf32>
  %lse = mpk.buffer arena 8192 : memref<4x8xf32>
  %h = mpk.buffer arena 12288 : memref<4x8x16xf16>
  %i = mpk.buffer arena 16384 : memref<4x8x16xi32>
  %l16 = mpk.buffer arena 20480 : memref<4x8xf16>
  %m = mpk.buffer arena 24576 : memref<8x4xf32>
  // expected-error @below {{'mpk.attention' op expects batch, queries, keys and head of at least 1}}
  mpk.attention @k0 %q, %q, %q -> %y, %lse batch 4 queries 8 keys 8 head 0 scale 0.5 : memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8xf32>
}

// -----

mpk.program @scale arena 65536 persistent 0 {
  %q = mpk.buffer arena 0 : memref<4x8x16xf32>
  %y = mpk.buffer arena 4096 : memref<4x8x16xf32>
  %lse = mpk.buffer arena 8192 : memref<4x8xf32>
  %h = mpk.buffer arena 12288 : memref<4x8x16xf16>
  %i = mpk.buffer arena 16384 : memref<4x8x16xi32>
  %l16 = mpk.buffer arena 20480 : memref<4x8xf16>
  %m = mpk.buffer arena 24576 : memref<8x4xf32>
  // expected-error @below {{'mpk.attention' op expects a finite, nonzero scale}}
  mpk.attention @k0 %q, %q, %q -> %y, %lse batch 4 queries 8 keys 8 head 16 scale 0.0 : memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8xf32>
}

// -----

mpk.program @causal arena 65536 persistent 0 {
  %q = mpk.buffer arena 0 : memref<4x8x16xf32>
  %y = mpk.buffer arena 4096 : memref<4x8x16xf32>
  %lse = mpk.buffer arena 8192 : memref<4x8xf32>
  %h = mpk.buffer arena 12288 : memref<4x8x16xf16>
  %i = mpk.buffer arena 16384 : memref<4x8x16xi32>
  %l16 = mpk.buffer arena 20480 : memref<4x8xf16>
  %m = mpk.buffer arena 24576 : memref<8x4xf32>
  // expected-error @below {{'mpk.attention' op expects as many queries as keys when causal}}
  mpk.attention @k0 %q, %q, %q -> %y, %lse batch 8 queries 4 keys 16 head 8 scale 0.5 causal : memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8xf32>
}

// -----

mpk.program @integers arena 65536 persistent 0 {
  %q = mpk.buffer arena 0 : memref<4x8x16xf32>
  %y = mpk.buffer arena 4096 : memref<4x8x16xf32>
  %lse = mpk.buffer arena 8192 : memref<4x8xf32>
  %h = mpk.buffer arena 12288 : memref<4x8x16xf16>
  %i = mpk.buffer arena 16384 : memref<4x8x16xi32>
  %l16 = mpk.buffer arena 20480 : memref<4x8xf16>
  %m = mpk.buffer arena 24576 : memref<8x4xf32>
  // expected-error @below {{'mpk.attention' op expects queries, keys and values of a floating-point type}}
  mpk.attention @k0 %q, %i, %q -> %y, %lse batch 4 queries 8 keys 8 head 16 scale 0.5 : memref<4x8x16xf32>, memref<4x8x16xi32>, memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8xf32>
}

// -----

mpk.program @types arena 65536 persistent 0 {
  %q = mpk.buffer arena 0 : memref<4x8x16xf32>
  %y = mpk.buffer arena 4096 : memref<4x8x16xf32>
  %lse = mpk.buffer arena 8192 : memref<4x8xf32>
  %h = mpk.buffer arena 12288 : memref<4x8x16xf16>
  %i = mpk.buffer arena 16384 : memref<4x8x16xi32>
  %l16 = mpk.buffer arena 20480 : memref<4x8xf16>
  %m = mpk.buffer arena 24576 : memref<8x4xf32>
  // expected-error @below {{'mpk.attention' op expects queries, keys, values and their gradients of one type}}
  mpk.attention @k0 %q, %h, %q -> %y, %lse batch 4 queries 8 keys 8 head 16 scale 0.5 : memref<4x8x16xf32>, memref<4x8x16xf16>, memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8xf32>
}

// -----

mpk.program @query_elements arena 65536 persistent 0 {
  %q = mpk.buffer arena 0 : memref<4x8x16xf32>
  %y = mpk.buffer arena 4096 : memref<4x8x16xf32>
  %lse = mpk.buffer arena 8192 : memref<4x8xf32>
  %h = mpk.buffer arena 12288 : memref<4x8x16xf16>
  %i = mpk.buffer arena 16384 : memref<4x8x16xi32>
  %l16 = mpk.buffer arena 20480 : memref<4x8xf16>
  %m = mpk.buffer arena 24576 : memref<8x4xf32>
  // expected-error @below {{'mpk.attention' op expects query-shaped buffers of batch x queries x head (256) elements}}
  mpk.attention @k0 %q, %q, %q -> %y, %lse batch 2 queries 8 keys 16 head 16 scale 0.5 : memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8xf32>
}

// -----

mpk.program @key_elements arena 65536 persistent 0 {
  %q = mpk.buffer arena 0 : memref<4x8x16xf32>
  %y = mpk.buffer arena 4096 : memref<4x8x16xf32>
  %lse = mpk.buffer arena 8192 : memref<4x8xf32>
  %h = mpk.buffer arena 12288 : memref<4x8x16xf16>
  %i = mpk.buffer arena 16384 : memref<4x8x16xi32>
  %l16 = mpk.buffer arena 20480 : memref<4x8xf16>
  %m = mpk.buffer arena 24576 : memref<8x4xf32>
  // expected-error @below {{'mpk.attention' op expects key-shaped buffers of batch x keys x head (1024) elements}}
  mpk.attention @k0 %q, %q, %q -> %y, %lse batch 4 queries 8 keys 16 head 16 scale 0.5 : memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8xf32>
}

// -----

mpk.program @lse arena 65536 persistent 0 {
  %q = mpk.buffer arena 0 : memref<4x8x16xf32>
  %y = mpk.buffer arena 4096 : memref<4x8x16xf32>
  %lse = mpk.buffer arena 8192 : memref<4x8xf32>
  %h = mpk.buffer arena 12288 : memref<4x8x16xf16>
  %i = mpk.buffer arena 16384 : memref<4x8x16xi32>
  %l16 = mpk.buffer arena 20480 : memref<4x8xf16>
  %m = mpk.buffer arena 24576 : memref<8x4xf32>
  // expected-error @below {{'mpk.attention' op expects an f32 log-sum-exp of batch x queries (32) elements}}
  mpk.attention @k0 %q, %q, %q -> %y, %l16 batch 4 queries 8 keys 8 head 16 scale 0.5 : memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8xf16>
}

// -----

mpk.program @mask arena 65536 persistent 0 {
  %q = mpk.buffer arena 0 : memref<4x8x16xf32>
  %y = mpk.buffer arena 4096 : memref<4x8x16xf32>
  %lse = mpk.buffer arena 8192 : memref<4x8xf32>
  %h = mpk.buffer arena 12288 : memref<4x8x16xf16>
  %i = mpk.buffer arena 16384 : memref<4x8x16xi32>
  %l16 = mpk.buffer arena 20480 : memref<4x8xf16>
  %m = mpk.buffer arena 24576 : memref<8x4xf32>
  // expected-error @below {{'mpk.attention' op expects a float mask of queries x keys (64) elements}}
  mpk.attention @k0 %q, %q, %q mask(%m : memref<8x4xf32>) -> %y, %lse batch 4 queries 8 keys 8 head 16 scale 0.5 : memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8xf32>
}

// -----

mpk.program @grad_query arena 65536 persistent 0 {
  %q = mpk.buffer arena 0 : memref<4x8x16xf32>
  %y = mpk.buffer arena 4096 : memref<4x8x16xf32>
  %lse = mpk.buffer arena 8192 : memref<4x8xf32>
  %h = mpk.buffer arena 12288 : memref<4x8x16xf16>
  %i = mpk.buffer arena 16384 : memref<4x8x16xi32>
  %l16 = mpk.buffer arena 20480 : memref<4x8xf16>
  %m = mpk.buffer arena 24576 : memref<8x4xf32>
  // expected-error @below {{'mpk.attention_grad_query' op expects queries, keys, values and their gradients of one type}}
  mpk.attention_grad_query @k0 %q, %q, %q, %y, %lse, %y -> %h : memref<4x8x16xf16> batch 4 queries 8 keys 8 head 16 scale 0.5 : memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8xf32>, memref<4x8x16xf32>
}

// -----

mpk.program @grad_key_value arena 65536 persistent 0 {
  %q = mpk.buffer arena 0 : memref<4x8x16xf32>
  %y = mpk.buffer arena 4096 : memref<4x8x16xf32>
  %lse = mpk.buffer arena 8192 : memref<4x8xf32>
  %h = mpk.buffer arena 12288 : memref<4x8x16xf16>
  %i = mpk.buffer arena 16384 : memref<4x8x16xi32>
  %l16 = mpk.buffer arena 20480 : memref<4x8xf16>
  %m = mpk.buffer arena 24576 : memref<8x4xf32>
  // expected-error @below {{'mpk.attention_grad_key_value' op expects key-shaped buffers of batch x keys x head (512) elements}}
  mpk.attention_grad_key_value @k0 %q, %q, %q, %y, %lse, %y -> %y, %lse : memref<4x8x16xf32>, memref<4x8xf32> batch 4 queries 8 keys 8 head 16 scale 0.5 : memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8xf32>, memref<4x8x16xf32>
}

// -----

mpk.program @head_too_large arena 1048576 persistent 0 {
  %q = mpk.buffer arena 0 : memref<4x8x256xf32>
  %lse = mpk.buffer arena 65536 : memref<4x8xf32>
  // expected-error @below {{'mpk.attention' op expects a head of at most 128 (the kernels' largest)}}
  mpk.attention @k0 %q, %q, %q -> %q, %lse batch 4 queries 8 keys 8 head 256 scale 0.5 : memref<4x8x256xf32>, memref<4x8x256xf32>, memref<4x8x256xf32>, memref<4x8x256xf32>, memref<4x8xf32>
}
