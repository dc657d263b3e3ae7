// RUN: mpc-opt %s -split-input-file -verify-diagnostics

// Diagnostics of mpk.pool2d, mpk.pool2d_grad and mpk.gather. The emitter
// reads the image sizes and the windows from these, so a pooled shape that
// does not follow from the image and the window is an error.

//===----------------------------------------------------------------------===//
// mpk.pool2d
//===----------------------------------------------------------------------===//

mpk.program @pool_attribute_counts arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<1x2x6x6xf32>
  %y = mpk.buffer arena 512 : memref<1x2x3x3xf32>
  // expected-error @below {{'mpk.pool2d' op expects 2 kernel sizes, 2 strides and 4 paddings (top, left, bottom, right)}}
  mpk.pool2d @k0 max %x -> %y kernel [2, 2] stride [2, 2] padding [0, 0] : memref<1x2x6x6xf32>, memref<1x2x3x3xf32>
}

// -----

mpk.program @pool_zero_stride arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<1x2x6x6xf32>
  %y = mpk.buffer arena 512 : memref<1x2x3x3xf32>
  // expected-error @below {{'mpk.pool2d' op expects positive kernel sizes and strides and non-negative paddings}}
  mpk.pool2d @k0 max %x -> %y kernel [2, 2] stride [0, 2] padding [0, 0, 0, 0] : memref<1x2x6x6xf32>, memref<1x2x3x3xf32>
}

// -----

// A window of padding only would pool nothing.
mpk.program @pool_padding_as_large_as_the_kernel arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<1x2x6x6xf32>
  %y = mpk.buffer arena 512 : memref<1x2x4x4xf32>
  // expected-error @below {{'mpk.pool2d' op expects paddings smaller than the kernel}}
  mpk.pool2d @k0 avg %x -> %y kernel [2, 2] stride [2, 2] padding [2, 0, 0, 0] : memref<1x2x6x6xf32>, memref<1x2x4x4xf32>
}

// -----

mpk.program @pool_ranks arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<2x6x6xf32>
  %y = mpk.buffer arena 512 : memref<2x3x3xf32>
  // expected-error @below {{'mpk.pool2d' op expects an image [N, C, H, W] and a pooled [N, C, Ho, Wo]}}
  mpk.pool2d @k0 max %x -> %y kernel [2, 2] stride [2, 2] padding [0, 0, 0, 0] : memref<2x6x6xf32>, memref<2x3x3xf32>
}

// -----

mpk.program @pool_integers arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<1x2x6x6xi32>
  %y = mpk.buffer arena 512 : memref<1x2x3x3xi32>
  // expected-error @below {{'mpk.pool2d' op expects floating-point buffers}}
  mpk.pool2d @k0 max %x -> %y kernel [2, 2] stride [2, 2] padding [0, 0, 0, 0] : memref<1x2x6x6xi32>, memref<1x2x3x3xi32>
}

// -----

mpk.program @pool_window_too_large arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<1x2x2x2xf32>
  %y = mpk.buffer arena 512 : memref<1x2x1x1xf32>
  // expected-error @below {{'mpk.pool2d' op expects windows that fit in the padded image}}
  mpk.pool2d @k0 max %x -> %y kernel [3, 3] stride [1, 1] padding [0, 0, 0, 0] : memref<1x2x2x2xf32>, memref<1x2x1x1xf32>
}

// -----

// (7 - 2) / 2 + 1 = 3 rows and columns: the last input row and column are
// left out, as in the graph's max_pool2d.
mpk.program @pool_shape arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<1x2x7x7xf32>
  %y = mpk.buffer arena 512 : memref<1x2x4x4xf32>
  // expected-error @below {{'mpk.pool2d' op expects a pooled shape [1, 2, 3, 3] for this image, got 'memref<1x2x4x4xf32>'}}
  mpk.pool2d @k0 max %x -> %y kernel [2, 2] stride [2, 2] padding [0, 0, 0, 0] : memref<1x2x7x7xf32>, memref<1x2x4x4xf32>
}

// -----

mpk.program @pool_max_count_include_pad arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<1x2x6x6xf32>
  %y = mpk.buffer arena 512 : memref<1x2x3x3xf32>
  // expected-error @below {{'mpk.pool2d' op expects count_include_pad only with average pooling}}
  mpk.pool2d @k0 max %x -> %y kernel [2, 2] stride [2, 2] padding [0, 0, 0, 0] count_include_pad : memref<1x2x6x6xf32>, memref<1x2x3x3xf32>
}

//===----------------------------------------------------------------------===//
// mpk.pool2d_grad
//===----------------------------------------------------------------------===//

// -----

mpk.program @pool_grad_max_count_include_pad arena 65536 persistent 0 {
  %dy = mpk.buffer arena 0 : memref<1x2x3x3xf32>
  %x = mpk.buffer arena 256 : memref<1x2x6x6xf32>
  %dx = mpk.buffer arena 1024 : memref<1x2x6x6xf32>
  // expected-error @below {{'mpk.pool2d_grad' op expects count_include_pad only with average pooling}}
  mpk.pool2d_grad @k0 max %dy, %x -> %dx kernel [2, 2] stride [2, 2] padding [0, 0, 0, 0] count_include_pad
      : memref<1x2x3x3xf32>, memref<1x2x6x6xf32>, memref<1x2x6x6xf32>
}

// -----

mpk.program @pool_grad_max_without_input arena 65536 persistent 0 {
  %dy = mpk.buffer arena 0 : memref<1x2x3x3xf32>
  %dx = mpk.buffer arena 1024 : memref<1x2x6x6xf32>
  // expected-error @below {{'mpk.pool2d_grad' op expects the forward input exactly with max pooling}}
  mpk.pool2d_grad @k0 max %dy -> %dx kernel [2, 2] stride [2, 2] padding [0, 0, 0, 0]
      : memref<1x2x3x3xf32>, memref<1x2x6x6xf32>
}

// -----

mpk.program @pool_grad_avg_with_input arena 65536 persistent 0 {
  %dy = mpk.buffer arena 0 : memref<1x2x3x3xf32>
  %x = mpk.buffer arena 256 : memref<1x2x6x6xf32>
  %dx = mpk.buffer arena 1024 : memref<1x2x6x6xf32>
  // expected-error @below {{'mpk.pool2d_grad' op expects the forward input exactly with max pooling}}
  mpk.pool2d_grad @k0 avg %dy, %x -> %dx kernel [2, 2] stride [2, 2] padding [0, 0, 0, 0]
      : memref<1x2x3x3xf32>, memref<1x2x6x6xf32>, memref<1x2x6x6xf32>
}

// -----

mpk.program @pool_grad_input_shape arena 65536 persistent 0 {
  %dy = mpk.buffer arena 0 : memref<1x2x3x3xf32>
  %x = mpk.buffer arena 256 : memref<1x2x7x7xf32>
  %dx = mpk.buffer arena 1024 : memref<1x2x6x6xf32>
  // expected-error @below {{'mpk.pool2d_grad' op expects the forward input to have the input gradient's shape}}
  mpk.pool2d_grad @k0 max %dy, %x -> %dx kernel [2, 2] stride [2, 2] padding [0, 0, 0, 0]
      : memref<1x2x3x3xf32>, memref<1x2x6x6xf32>, memref<1x2x7x7xf32>
}

// -----

mpk.program @pool_grad_integer_input arena 65536 persistent 0 {
  %dy = mpk.buffer arena 0 : memref<1x2x3x3xf32>
  %x = mpk.buffer arena 256 : memref<1x2x6x6xi32>
  %dx = mpk.buffer arena 1024 : memref<1x2x6x6xf32>
  // expected-error @below {{'mpk.pool2d_grad' op expects floating-point buffers}}
  mpk.pool2d_grad @k0 max %dy, %x -> %dx kernel [2, 2] stride [2, 2] padding [0, 0, 0, 0]
      : memref<1x2x3x3xf32>, memref<1x2x6x6xf32>, memref<1x2x6x6xi32>
}

// -----

// The output gradient has the pooled shape of the input gradient.
mpk.program @pool_grad_output_shape arena 65536 persistent 0 {
  %dy = mpk.buffer arena 0 : memref<1x2x2x2xf32>
  %dx = mpk.buffer arena 1024 : memref<1x2x6x6xf32>
  // expected-error @below {{'mpk.pool2d_grad' op expects a pooled shape [1, 2, 3, 3] for this image, got 'memref<1x2x2x2xf32>'}}
  mpk.pool2d_grad @k0 avg %dy -> %dx kernel [2, 2] stride [2, 2] padding [0, 0, 0, 0]
      : memref<1x2x2x2xf32>, memref<1x2x6x6xf32>
}

//===----------------------------------------------------------------------===//
// mpk.gather
//===----------------------------------------------------------------------===//

// -----

mpk.program @gather_table_rank arena 65536 persistent 16384 {
  %t = mpk.buffer persistent 0 : memref<96xf32>
  %ids = mpk.buffer arena 0 : memref<8xi32>
  %e = mpk.buffer arena 256 : memref<8x1xf32>
  // expected-error @below {{'mpk.gather' op expects a table [V, D], got 'memref<96xf32>'}}
  mpk.gather @k0 %t, %ids -> %e : memref<96xf32>, memref<8xi32>, memref<8x1xf32>
}

// -----

mpk.program @gather_float_indices arena 65536 persistent 16384 {
  %t = mpk.buffer persistent 0 : memref<96x4xf32>
  %ids = mpk.buffer arena 0 : memref<8xf32>
  %e = mpk.buffer arena 256 : memref<8x4xf32>
  // expected-error @below {{'mpk.gather' op expects i32 or i64 indices, got 'memref<8xf32>'}}
  mpk.gather @k0 %t, %ids -> %e : memref<96x4xf32>, memref<8xf32>, memref<8x4xf32>
}

// -----

mpk.program @gather_element_types arena 65536 persistent 16384 {
  %t = mpk.buffer persistent 0 : memref<96x4xbf16>
  %ids = mpk.buffer arena 0 : memref<8xi32>
  %e = mpk.buffer arena 256 : memref<8x4xf32>
  // expected-error @below {{'mpk.gather' op expects a floating-point table and an output of its element type}}
  mpk.gather @k0 %t, %ids -> %e : memref<96x4xbf16>, memref<8xi32>, memref<8x4xf32>
}

// -----

mpk.program @gather_output_shape arena 65536 persistent 16384 {
  %t = mpk.buffer persistent 0 : memref<96x4xf32>
  %ids = mpk.buffer arena 0 : memref<2x8xi32>
  %e = mpk.buffer arena 256 : memref<16x4xf32>
  // expected-error @below {{'mpk.gather' op expects an output of shape [2, 8, 4] (the indices' shape, then D), got 'memref<16x4xf32>'}}
  mpk.gather @k0 %t, %ids -> %e : memref<96x4xf32>, memref<2x8xi32>, memref<16x4xf32>
}
