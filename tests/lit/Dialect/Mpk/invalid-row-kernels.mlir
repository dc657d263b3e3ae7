// RUN: mpc-opt %s -split-input-file -verify-diagnostics

// Diagnostics of the row kernels: mpk.softmax, mpk.layer_norm,
// mpk.cross_entropy and mpk.cross_entropy_grad. The emitter indexes their
// buffers by these attributes, so each must agree with the buffers.

//===----------------------------------------------------------------------===//
// mpk.softmax
//===----------------------------------------------------------------------===//

mpk.program @softmax_negative arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x10xf32>
  %y = mpk.buffer arena 256 : memref<4x10xf32>
  // expected-error @below {{'mpk.softmax' op expects non-negative outer, cols and inner}}
  mpk.softmax @k0 %x -> %y outer -4 cols -10 inner 1 : memref<4x10xf32>, memref<4x10xf32>
}

// -----

mpk.program @softmax_integers arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x10xi32>
  %y = mpk.buffer arena 256 : memref<4x10xf32>
  // expected-error @below {{'mpk.softmax' op expects an input and an output of a floating-point type}}
  mpk.softmax @k0 %x -> %y outer 4 cols 10 inner 1 : memref<4x10xi32>, memref<4x10xf32>
}

// -----

mpk.program @softmax_shapes arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x10xf32>
  %y = mpk.buffer arena 256 : memref<40xf32>
  // expected-error @below {{'mpk.softmax' op expects the output to have the input's shape}}
  mpk.softmax @k0 %x -> %y outer 4 cols 10 inner 1 : memref<4x10xf32>, memref<40xf32>
}

// -----

mpk.program @softmax_elements arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x10xf32>
  %y = mpk.buffer arena 256 : memref<4x10xf32>
  // expected-error @below {{'mpk.softmax' op expects outer x cols x inner (80) to be the input's 40 elements}}
  mpk.softmax @k0 %x -> %y outer 4 cols 10 inner 2 : memref<4x10xf32>, memref<4x10xf32>
}

//===----------------------------------------------------------------------===//
// mpk.layer_norm
//===----------------------------------------------------------------------===//

// -----

mpk.program @layer_norm_negative arena 65536 persistent 1024 {
  %x = mpk.buffer arena 0 : memref<4x8xf32>
  %g = mpk.buffer persistent 0 : memref<8xf32>
  %b = mpk.buffer persistent 256 : memref<8xf32>
  %y = mpk.buffer arena 256 : memref<4x8xf32>
  // expected-error @below {{'mpk.layer_norm' op expects non-negative rows and cols}}
  mpk.layer_norm @k0 %x, %g, %b -> %y rows -4 cols -8 eps 1.0e-05
      : memref<4x8xf32>, memref<8xf32>, memref<8xf32>, memref<4x8xf32>
}

// -----

mpk.program @layer_norm_integers arena 65536 persistent 1024 {
  %x = mpk.buffer arena 0 : memref<4x8xf32>
  %g = mpk.buffer persistent 0 : memref<8xi32>
  %b = mpk.buffer persistent 256 : memref<8xf32>
  %y = mpk.buffer arena 256 : memref<4x8xf32>
  // expected-error @below {{'mpk.layer_norm' op expects an input, gamma, beta and an output of a floating-point type}}
  mpk.layer_norm @k0 %x, %g, %b -> %y rows 4 cols 8 eps 1.0e-05
      : memref<4x8xf32>, memref<8xi32>, memref<8xf32>, memref<4x8xf32>
}

// -----

mpk.program @layer_norm_shapes arena 65536 persistent 1024 {
  %x = mpk.buffer arena 0 : memref<4x8xf32>
  %g = mpk.buffer persistent 0 : memref<8xf32>
  %b = mpk.buffer persistent 256 : memref<8xf32>
  %y = mpk.buffer arena 256 : memref<8x4xf32>
  // expected-error @below {{'mpk.layer_norm' op expects the output to have the input's shape}}
  mpk.layer_norm @k0 %x, %g, %b -> %y rows 4 cols 8 eps 1.0e-05
      : memref<4x8xf32>, memref<8xf32>, memref<8xf32>, memref<8x4xf32>
}

// -----

mpk.program @layer_norm_elements arena 65536 persistent 1024 {
  %x = mpk.buffer arena 0 : memref<4x8xf32>
  %g = mpk.buffer persistent 0 : memref<8xf32>
  %b = mpk.buffer persistent 256 : memref<8xf32>
  %y = mpk.buffer arena 256 : memref<4x8xf32>
  // expected-error @below {{'mpk.layer_norm' op expects rows x cols (40) to be the input's 32 elements}}
  mpk.layer_norm @k0 %x, %g, %b -> %y rows 5 cols 8 eps 1.0e-05
      : memref<4x8xf32>, memref<8xf32>, memref<8xf32>, memref<4x8xf32>
}

// -----

mpk.program @layer_norm_gamma arena 65536 persistent 1024 {
  %x = mpk.buffer arena 0 : memref<4x8xf32>
  %g = mpk.buffer persistent 0 : memref<4xf32>
  %b = mpk.buffer persistent 256 : memref<8xf32>
  %y = mpk.buffer arena 256 : memref<4x8xf32>
  // expected-error @below {{'mpk.layer_norm' op expects gamma and beta of 8 elements (one per column)}}
  mpk.layer_norm @k0 %x, %g, %b -> %y rows 4 cols 8 eps 1.0e-05
      : memref<4x8xf32>, memref<4xf32>, memref<8xf32>, memref<4x8xf32>
}

// -----

mpk.program @layer_norm_eps arena 65536 persistent 1024 {
  %x = mpk.buffer arena 0 : memref<4x8xf32>
  %g = mpk.buffer persistent 0 : memref<8xf32>
  %b = mpk.buffer persistent 256 : memref<8xf32>
  %y = mpk.buffer arena 256 : memref<4x8xf32>
  // expected-error @below {{'mpk.layer_norm' op expects a finite eps > 0}}
  mpk.layer_norm @k0 %x, %g, %b -> %y rows 4 cols 8 eps 0.0
      : memref<4x8xf32>, memref<8xf32>, memref<8xf32>, memref<4x8xf32>
}

//===----------------------------------------------------------------------===//
// mpk.cross_entropy
//===----------------------------------------------------------------------===//

// -----

mpk.program @cross_entropy_no_classes arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x0xf32>
  %l = mpk.buffer arena 256 : memref<4xi32>
  %r = mpk.buffer arena 512 : memref<4xf32>
  // expected-error @below {{'mpk.cross_entropy' op expects non-negative rows and positive cols}}
  mpk.cross_entropy @k0 %x, %l -> %r rows 4 cols 0 : memref<4x0xf32>, memref<4xi32>, memref<4xf32>
}

// -----

mpk.program @cross_entropy_integer_losses arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x10xf32>
  %l = mpk.buffer arena 256 : memref<4xi32>
  %r = mpk.buffer arena 512 : memref<4xi32>
  // expected-error @below {{'mpk.cross_entropy' op expects logits and losses of a floating-point type}}
  mpk.cross_entropy @k0 %x, %l -> %r rows 4 cols 10 : memref<4x10xf32>, memref<4xi32>, memref<4xi32>
}

// -----

mpk.program @cross_entropy_logits arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x10xf32>
  %l = mpk.buffer arena 256 : memref<4xi32>
  %r = mpk.buffer arena 512 : memref<4xf32>
  // expected-error @below {{'mpk.cross_entropy' op expects logits of rows x cols (48) elements, got 'memref<4x10xf32>'}}
  mpk.cross_entropy @k0 %x, %l -> %r rows 4 cols 12 : memref<4x10xf32>, memref<4xi32>, memref<4xf32>
}

// -----

mpk.program @cross_entropy_float_labels arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x10xf32>
  %l = mpk.buffer arena 256 : memref<4xf32>
  %r = mpk.buffer arena 512 : memref<4xf32>
  // expected-error @below {{'mpk.cross_entropy' op expects 4 i32 or i64 labels (one per row), got 'memref<4xf32>'}}
  mpk.cross_entropy @k0 %x, %l -> %r rows 4 cols 10 : memref<4x10xf32>, memref<4xf32>, memref<4xf32>
}

// -----

mpk.program @cross_entropy_label_count arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x10xf32>
  %l = mpk.buffer arena 256 : memref<5xi64>
  %r = mpk.buffer arena 512 : memref<4xf32>
  // expected-error @below {{'mpk.cross_entropy' op expects 4 i32 or i64 labels (one per row), got 'memref<5xi64>'}}
  mpk.cross_entropy @k0 %x, %l -> %r rows 4 cols 10 : memref<4x10xf32>, memref<5xi64>, memref<4xf32>
}

// -----

mpk.program @cross_entropy_losses arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x10xf32>
  %l = mpk.buffer arena 256 : memref<4xi32>
  %r = mpk.buffer arena 512 : memref<f32>
  // expected-error @below {{'mpk.cross_entropy' op expects 4 losses (one per row), got 'memref<f32>'}}
  mpk.cross_entropy @k0 %x, %l -> %r rows 4 cols 10 : memref<4x10xf32>, memref<4xi32>, memref<f32>
}

//===----------------------------------------------------------------------===//
// mpk.cross_entropy_grad
//===----------------------------------------------------------------------===//

// -----

mpk.program @cross_entropy_grad_negative_rows arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x10xf32>
  %l = mpk.buffer arena 256 : memref<4xi32>
  %d = mpk.buffer arena 512 : memref<f32>
  %g = mpk.buffer arena 768 : memref<4x10xf32>
  // expected-error @below {{'mpk.cross_entropy_grad' op expects non-negative rows and positive cols}}
  mpk.cross_entropy_grad @k0 %x, %l, %d -> %g rows -4 cols -10
      : memref<4x10xf32>, memref<4xi32>, memref<f32>, memref<4x10xf32>
}

// -----

mpk.program @cross_entropy_grad_integer_gradient arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x10xf32>
  %l = mpk.buffer arena 256 : memref<4xi32>
  %d = mpk.buffer arena 512 : memref<f32>
  %g = mpk.buffer arena 768 : memref<4x10xi32>
  // expected-error @below {{'mpk.cross_entropy_grad' op expects logits and gradients of a floating-point type}}
  mpk.cross_entropy_grad @k0 %x, %l, %d -> %g rows 4 cols 10
      : memref<4x10xf32>, memref<4xi32>, memref<f32>, memref<4x10xi32>
}

// -----

mpk.program @cross_entropy_grad_logits arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x10xf32>
  %l = mpk.buffer arena 256 : memref<4xi32>
  %d = mpk.buffer arena 512 : memref<f32>
  %g = mpk.buffer arena 768 : memref<4x10xf32>
  // expected-error @below {{'mpk.cross_entropy_grad' op expects logits of rows x cols (20) elements, got 'memref<4x10xf32>'}}
  mpk.cross_entropy_grad @k0 %x, %l, %d -> %g rows 2 cols 10
      : memref<4x10xf32>, memref<4xi32>, memref<f32>, memref<4x10xf32>
}

// -----

mpk.program @cross_entropy_grad_labels arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x10xf32>
  %l = mpk.buffer arena 256 : memref<4xi1>
  %d = mpk.buffer arena 512 : memref<f32>
  %g = mpk.buffer arena 768 : memref<4x10xf32>
  // expected-error @below {{'mpk.cross_entropy_grad' op expects 4 i32 or i64 labels (one per row), got 'memref<4xi1>'}}
  mpk.cross_entropy_grad @k0 %x, %l, %d -> %g rows 4 cols 10
      : memref<4x10xf32>, memref<4xi1>, memref<f32>, memref<4x10xf32>
}

// -----

mpk.program @cross_entropy_grad_loss_gradient arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x10xf32>
  %l = mpk.buffer arena 256 : memref<4xi32>
  %d = mpk.buffer arena 512 : memref<4xf32>
  %g = mpk.buffer arena 768 : memref<4x10xf32>
  // expected-error @below {{'mpk.cross_entropy_grad' op expects the loss gradient to be one element, got 'memref<4xf32>'}}
  mpk.cross_entropy_grad @k0 %x, %l, %d -> %g rows 4 cols 10
      : memref<4x10xf32>, memref<4xi32>, memref<4xf32>, memref<4x10xf32>
}

// -----

mpk.program @cross_entropy_grad_shape arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x10xf32>
  %l = mpk.buffer arena 256 : memref<4xi32>
  %d = mpk.buffer arena 512 : memref<f32>
  %g = mpk.buffer arena 768 : memref<40xf32>
  // expected-error @below {{'mpk.cross_entropy_grad' op expects the logits' gradient to have the logits' shape}}
  mpk.cross_entropy_grad @k0 %x, %l, %d -> %g rows 4 cols 10
      : memref<4x10xf32>, memref<4xi32>, memref<f32>, memref<40xf32>
}
