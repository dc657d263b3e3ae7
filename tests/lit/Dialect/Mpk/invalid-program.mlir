// RUN: mpc-opt %s -split-input-file -verify-diagnostics

// Diagnostics of an mpk.program and its declarations: the region verifier
// of mpk.program (sizes, buffers inside their memory, names declared once,
// parameters in persistent memory, working copies), mpk.param's initializer
// and mpk.constant's value.

// expected-error @below {{'mpk.program' op expects non-negative arena and persistent sizes}}
mpk.program @negative_arena arena -16 persistent 0 {
}

// -----

mpk.program @buffer_past_the_arena arena 256 persistent 0 {
  // An f32 [8, 8] buffer at offset 0 covers 256 bytes: it fits.
  %0 = mpk.buffer arena 0 : memref<8x8xf32>
  // expected-error @below {{'mpk.buffer' op covers bytes up to 260, past the end of the arena (256 bytes)}}
  %1 = mpk.buffer arena 4 : memref<8x8xf32>
}

// -----

mpk.program @buffer_past_persistent_memory arena 1024 persistent 16 {
  // expected-error @below {{'mpk.buffer' op covers bytes up to 24, past the end of persistent memory (16 bytes)}}
  %0 = mpk.buffer persistent 8 : memref<2xf64>
}

// -----

// An i1 element takes a byte.
mpk.program @bool_buffer_past_the_arena arena 4 persistent 0 {
  // expected-error @below {{'mpk.buffer' op covers bytes up to 5, past the end of the arena (4 bytes)}}
  %0 = mpk.buffer arena 0 : memref<5xi1>
}

// -----

mpk.program @input_twice arena 1024 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4xf32>
  %y = mpk.buffer arena 256 : memref<4xf32>
  mpk.input "x" %x : memref<4xf32>
  // expected-error @below {{'mpk.input' op declares input "x" again}}
  mpk.input "x" %y : memref<4xf32>
}

// -----

// An output may show an input's buffer, under another kind of name.
mpk.program @output_twice arena 1024 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4xf32>
  mpk.input "x" %x : memref<4xf32>
  mpk.output "x" %x : memref<4xf32>
  mpk.output "y" %x : memref<4xf32>
  // expected-error @below {{'mpk.output' op declares output "y" again}}
  mpk.output "y" %x : memref<4xf32>
}

// -----

// A state tensor shares the parameters' names.
mpk.program @param_twice arena 0 persistent 1024 {
  %w = mpk.buffer persistent 0 : memref<4xf32>
  %s = mpk.buffer persistent 256 : memref<4xf32>
  mpk.param "w" %w init(#mpg.init<zeros, {}>) : memref<4xf32>
  // expected-error @below {{'mpk.param' op declares parameter "w" again}}
  mpk.param "w" %s state init(#mpg.init<zeros, {}>) : memref<4xf32>
}

// -----

mpk.program @param_in_the_arena arena 1024 persistent 0 {
  %w = mpk.buffer arena 0 : memref<4xf32>
  // expected-error @below {{'mpk.param' op expects a buffer in persistent memory}}
  mpk.param "w" %w init(#mpg.init<zeros, {}>) : memref<4xf32>
}

// -----

mpk.program @param_initializer arena 0 persistent 1024 {
  %w = mpk.buffer persistent 0 : memref<4xf32>
  // expected-error @below {{'mpk.param' op attribute 'init' failed to satisfy constraint: an #mpg.init initializer}}
  mpk.param "w" %w init(7) : memref<4xf32>
}

// -----

mpk.program @working_copy_f32 arena 0 persistent 1024 {
  %w = mpk.buffer persistent 0 : memref<4xf32>
  %c = mpk.buffer persistent 256 : memref<4xf32>
  mpk.param "w" %w init(#mpg.init<zeros, {}>) : memref<4xf32>
  // expected-error @below {{'mpk.param' op expects a working copy (cast_of) to be f16 or bf16}}
  mpk.param "w.f32" %c state frozen cast_of "w" init(#mpg.init<zeros, {}>) : memref<4xf32>
}

// -----

mpk.program @working_copy_of_nothing arena 0 persistent 1024 {
  %c = mpk.buffer persistent 256 : memref<4xf16>
  // expected-error @below {{'mpk.param' op is a copy of "w", which is not a parameter of the program}}
  mpk.param "w.f16" %c state frozen cast_of "w" init(#mpg.init<zeros, {}>) : memref<4xf16>
}

// -----

mpk.program @working_copy_shape arena 0 persistent 1024 {
  %w = mpk.buffer persistent 0 : memref<4xf32>
  %c = mpk.buffer persistent 256 : memref<2x2xf16>
  mpk.param "w" %w init(#mpg.init<zeros, {}>) : memref<4xf32>
  // expected-error @below {{'mpk.param' op expects "w" to be an f32 parameter of the copy's shape, not a copy}}
  mpk.param "w.f16" %c state frozen cast_of "w" init(#mpg.init<zeros, {}>) : memref<2x2xf16>
}

// -----

mpk.program @working_copy_of_a_copy arena 0 persistent 1024 {
  %w = mpk.buffer persistent 0 : memref<4xf32>
  %c = mpk.buffer persistent 256 : memref<4xf16>
  %d = mpk.buffer persistent 512 : memref<4xbf16>
  mpk.param "w" %w init(#mpg.init<zeros, {}>) : memref<4xf32>
  mpk.param "w.f16" %c state frozen cast_of "w" init(#mpg.init<zeros, {}>) : memref<4xf16>
  // expected-error @below {{'mpk.param' op expects "w.f16" to be an f32 parameter of the copy's shape, not a copy}}
  mpk.param "w.bf16" %d state frozen cast_of "w.f16" init(#mpg.init<zeros, {}>) : memref<4xbf16>
}

// -----

mpk.program @constant_shape arena 0 persistent 1024 {
  %c = mpk.buffer persistent 0 : memref<3xf32>
  // expected-error @below {{'mpk.constant' op expects a value of the buffer's shape and element type, got 'tensor<2xf32>'}}
  mpk.constant %c dense<[1.0, 2.0]> : tensor<2xf32> : memref<3xf32>
}

// -----

mpk.program @constant_element_type arena 0 persistent 1024 {
  %c = mpk.buffer persistent 0 : memref<2xf16>
  // expected-error @below {{'mpk.constant' op expects a value of the buffer's shape and element type, got 'tensor<2xf32>'}}
  mpk.constant %c dense<[1.0, 2.0]> : tensor<2xf32> : memref<2xf16>
}

// -----

mpk.program @constant_sparse arena 0 persistent 1024 {
  %c = mpk.buffer persistent 0 : memref<2xf32>
  // expected-error @below {{'mpk.constant' op expects dense elements}}
  mpk.constant %c sparse<[[0]], [1.0]> : tensor<2xf32> : memref<2xf32>
}
