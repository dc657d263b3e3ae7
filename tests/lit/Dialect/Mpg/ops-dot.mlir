// RUN: mpc-opt %s | mpc-opt | FileCheck %s
// RUN: mpc-opt %s -mlir-print-op-generic | mpc-opt | FileCheck %s

// Round-trip tests of the dot-product ops: matmul, batch_matmul and conv2d,
// with every transpose flag and convolution attribute, and mixed-precision
// results.

// CHECK-LABEL: mpg.graph @matmul {
// CHECK-NEXT:    %[[X:.+]] = mpg.input "x" : tensor<64x784xf32>
// CHECK-NEXT:    %[[W:.+]] = mpg.input "w" : tensor<784x128xf32>
// CHECK-NEXT:    %[[Y:.+]] = mpg.matmul %[[X]], %[[W]] : tensor<64x784xf32>, tensor<784x128xf32> -> tensor<64x128xf32>
// CHECK-NEXT:    mpg.output "y" %[[Y]] : tensor<64x128xf32>
// CHECK-NEXT:  }
mpg.graph @matmul {
  %x = mpg.input "x" : tensor<64x784xf32>
  %w = mpg.input "w" : tensor<784x128xf32>
  %y = mpg.matmul %x, %w : tensor<64x784xf32>, tensor<784x128xf32> -> tensor<64x128xf32>
  mpg.output "y" %y : tensor<64x128xf32>
}

// CHECK-LABEL: mpg.graph @matmul_transpose_a {
// CHECK-NEXT:    %[[X:.+]] = mpg.input "x" : tensor<64x784xf32>
// CHECK-NEXT:    %[[DY:.+]] = mpg.input "dy" : tensor<64x128xf32>
// CHECK-NEXT:    %[[G:.+]] = mpg.matmul %[[X]], %[[DY]] transpose_a : tensor<64x784xf32>, tensor<64x128xf32> -> tensor<784x128xf32>
// CHECK-NEXT:    mpg.output "g" %[[G]] : tensor<784x128xf32>
// CHECK-NEXT:  }
mpg.graph @matmul_transpose_a {
  %x = mpg.input "x" : tensor<64x784xf32>
  %dy = mpg.input "dy" : tensor<64x128xf32>
  %g = mpg.matmul %x, %dy transpose_a : tensor<64x784xf32>, tensor<64x128xf32> -> tensor<784x128xf32>
  mpg.output "g" %g : tensor<784x128xf32>
}

// CHECK-LABEL: mpg.graph @matmul_transpose_b {
// CHECK-NEXT:    %[[DY:.+]] = mpg.input "dy" : tensor<64x128xf32>
// CHECK-NEXT:    %[[W:.+]] = mpg.input "w" : tensor<784x128xf32>
// CHECK-NEXT:    %[[G:.+]] = mpg.matmul %[[DY]], %[[W]] transpose_b : tensor<64x128xf32>, tensor<784x128xf32> -> tensor<64x784xf32>
// CHECK-NEXT:    mpg.output "g" %[[G]] : tensor<64x784xf32>
// CHECK-NEXT:  }
mpg.graph @matmul_transpose_b {
  %dy = mpg.input "dy" : tensor<64x128xf32>
  %w = mpg.input "w" : tensor<784x128xf32>
  %g = mpg.matmul %dy, %w transpose_b : tensor<64x128xf32>, tensor<784x128xf32> -> tensor<64x784xf32>
  mpg.output "g" %g : tensor<64x784xf32>
}

// CHECK-LABEL: mpg.graph @matmul_transpose_both {
// CHECK-NEXT:    %[[A:.+]] = mpg.input "a" : tensor<3x2xf32>
// CHECK-NEXT:    %[[B:.+]] = mpg.input "b" : tensor<5x3xf32>
// CHECK-NEXT:    %[[C:.+]] = mpg.matmul %[[A]], %[[B]] transpose_a transpose_b : tensor<3x2xf32>, tensor<5x3xf32> -> tensor<2x5xf32>
// CHECK-NEXT:    mpg.output "c" %[[C]] : tensor<2x5xf32>
// CHECK-NEXT:  }
mpg.graph @matmul_transpose_both {
  %a = mpg.input "a" : tensor<3x2xf32>
  %b = mpg.input "b" : tensor<5x3xf32>
  %c = mpg.matmul %a, %b transpose_a transpose_b : tensor<3x2xf32>, tensor<5x3xf32> -> tensor<2x5xf32>
  mpg.output "c" %c : tensor<2x5xf32>
}

// The result's float type is a precision decision: f16 x f16 -> f32 (fp32
// accumulation), and any other float combination.
// CHECK-LABEL: mpg.graph @matmul_mixed_precision {
// CHECK-NEXT:    %[[A:.+]] = mpg.input "a" : tensor<8x16xf16>
// CHECK-NEXT:    %[[B:.+]] = mpg.input "b" : tensor<16x4xf16>
// CHECK-NEXT:    %[[C:.+]] = mpg.input "c" : tensor<8x16xbf16>
// CHECK-NEXT:    %[[D:.+]] = mpg.input "d" : tensor<16x4xbf16>
// CHECK-NEXT:    %[[E:.+]] = mpg.input "e" : tensor<8x16xf64>
// CHECK-NEXT:    %[[F:.+]] = mpg.input "f" : tensor<16x4xf64>
// CHECK-NEXT:    %[[R0:.+]] = mpg.matmul %[[A]], %[[B]] : tensor<8x16xf16>, tensor<16x4xf16> -> tensor<8x4xf32>
// CHECK-NEXT:    %[[R1:.+]] = mpg.matmul %[[A]], %[[B]] : tensor<8x16xf16>, tensor<16x4xf16> -> tensor<8x4xf16>
// CHECK-NEXT:    %[[R2:.+]] = mpg.matmul %[[C]], %[[D]] : tensor<8x16xbf16>, tensor<16x4xbf16> -> tensor<8x4xf32>
// CHECK-NEXT:    %[[R3:.+]] = mpg.matmul %[[C]], %[[D]] : tensor<8x16xbf16>, tensor<16x4xbf16> -> tensor<8x4xbf16>
// CHECK-NEXT:    %[[R4:.+]] = mpg.matmul %[[E]], %[[F]] : tensor<8x16xf64>, tensor<16x4xf64> -> tensor<8x4xf64>
// CHECK-NEXT:    %[[FT:.+]] = mpg.input "ft" : tensor<4x16xf64>
// CHECK-NEXT:    %[[R5:.+]] = mpg.matmul %[[E]], %[[FT]] transpose_b {mpc.note} : tensor<8x16xf64>, tensor<4x16xf64> -> tensor<8x4xf16>
mpg.graph @matmul_mixed_precision {
  %a = mpg.input "a" : tensor<8x16xf16>
  %b = mpg.input "b" : tensor<16x4xf16>
  %c = mpg.input "c" : tensor<8x16xbf16>
  %d = mpg.input "d" : tensor<16x4xbf16>
  %e = mpg.input "e" : tensor<8x16xf64>
  %f = mpg.input "f" : tensor<16x4xf64>
  %r0 = mpg.matmul %a, %b : tensor<8x16xf16>, tensor<16x4xf16> -> tensor<8x4xf32>
  %r1 = mpg.matmul %a, %b : tensor<8x16xf16>, tensor<16x4xf16> -> tensor<8x4xf16>
  %r2 = mpg.matmul %c, %d : tensor<8x16xbf16>, tensor<16x4xbf16> -> tensor<8x4xf32>
  %r3 = mpg.matmul %c, %d : tensor<8x16xbf16>, tensor<16x4xbf16> -> tensor<8x4xbf16>
  %r4 = mpg.matmul %e, %f : tensor<8x16xf64>, tensor<16x4xf64> -> tensor<8x4xf64>
  %ft = mpg.input "ft" : tensor<4x16xf64>
  %r5 = mpg.matmul %e, %ft transpose_b {mpc.note} : tensor<8x16xf64>, tensor<4x16xf64> -> tensor<8x4xf16>
}

// Degenerate sizes: a 1x1 product and an empty contraction.
// CHECK-LABEL: mpg.graph @matmul_small {
// CHECK:         mpg.matmul %{{.+}}, %{{.+}} : tensor<1x1xf32>, tensor<1x1xf32> -> tensor<1x1xf32>
// CHECK-NEXT:    mpg.matmul %{{.+}}, %{{.+}} : tensor<2x0xf32>, tensor<0x3xf32> -> tensor<2x3xf32>
mpg.graph @matmul_small {
  %a = mpg.input "a" : tensor<1x1xf32>
  %b = mpg.input "b" : tensor<2x0xf32>
  %c = mpg.input "c" : tensor<0x3xf32>
  %r0 = mpg.matmul %a, %a : tensor<1x1xf32>, tensor<1x1xf32> -> tensor<1x1xf32>
  %r1 = mpg.matmul %b, %c : tensor<2x0xf32>, tensor<0x3xf32> -> tensor<2x3xf32>
}

// The generic form, with both flags as properties.
// CHECK-LABEL: mpg.graph @matmul_generic {
// CHECK-NEXT:    %[[A:.+]] = mpg.input "a" : tensor<3x2xf32>
// CHECK-NEXT:    %[[B:.+]] = mpg.input "b" : tensor<5x3xf32>
// CHECK-NEXT:    mpg.matmul %[[A]], %[[B]] transpose_a transpose_b : tensor<3x2xf32>, tensor<5x3xf32> -> tensor<2x5xf32>
mpg.graph @matmul_generic {
  %a = mpg.input "a" : tensor<3x2xf32>
  %b = mpg.input "b" : tensor<5x3xf32>
  %c = "mpg.matmul"(%a, %b) <{transpose_a, transpose_b}> : (tensor<3x2xf32>, tensor<5x3xf32>) -> tensor<2x5xf32>
}

// CHECK-LABEL: mpg.graph @batch_matmul {
// CHECK-NEXT:    %[[Q:.+]] = mpg.input "q" : tensor<8x16x32xf32>
// CHECK-NEXT:    %[[K:.+]] = mpg.input "k" : tensor<8x16x32xf32>
// CHECK-NEXT:    %[[V:.+]] = mpg.input "v" : tensor<8x32x24xf32>
// CHECK-NEXT:    %[[S:.+]] = mpg.batch_matmul %[[Q]], %[[K]] transpose_b : tensor<8x16x32xf32>, tensor<8x16x32xf32> -> tensor<8x16x16xf32>
// CHECK-NEXT:    %[[P:.+]] = mpg.batch_matmul %[[Q]], %[[V]] : tensor<8x16x32xf32>, tensor<8x32x24xf32> -> tensor<8x16x24xf32>
// CHECK-NEXT:    %[[T:.+]] = mpg.batch_matmul %[[K]], %[[Q]] transpose_a : tensor<8x16x32xf32>, tensor<8x16x32xf32> -> tensor<8x32x32xf32>
// CHECK-NEXT:    %[[U:.+]] = mpg.batch_matmul %[[V]], %[[Q]] transpose_a transpose_b : tensor<8x32x24xf32>, tensor<8x16x32xf32> -> tensor<8x24x16xf32>
// CHECK-NEXT:    mpg.output "s" %[[S]] : tensor<8x16x16xf32>
// CHECK-NEXT:    mpg.output "p" %[[P]] : tensor<8x16x24xf32>
// CHECK-NEXT:    mpg.output "t" %[[T]] : tensor<8x32x32xf32>
// CHECK-NEXT:    mpg.output "u" %[[U]] : tensor<8x24x16xf32>
// CHECK-NEXT:  }
mpg.graph @batch_matmul {
  %q = mpg.input "q" : tensor<8x16x32xf32>
  %k = mpg.input "k" : tensor<8x16x32xf32>
  %v = mpg.input "v" : tensor<8x32x24xf32>
  %s = mpg.batch_matmul %q, %k transpose_b : tensor<8x16x32xf32>, tensor<8x16x32xf32> -> tensor<8x16x16xf32>
  %p = mpg.batch_matmul %q, %v : tensor<8x16x32xf32>, tensor<8x32x24xf32> -> tensor<8x16x24xf32>
  %t = mpg.batch_matmul %k, %q transpose_a : tensor<8x16x32xf32>, tensor<8x16x32xf32> -> tensor<8x32x32xf32>
  %u = mpg.batch_matmul %v, %q transpose_a transpose_b : tensor<8x32x24xf32>, tensor<8x16x32xf32> -> tensor<8x24x16xf32>
  mpg.output "s" %s : tensor<8x16x16xf32>
  mpg.output "p" %p : tensor<8x16x24xf32>
  mpg.output "t" %t : tensor<8x32x32xf32>
  mpg.output "u" %u : tensor<8x24x16xf32>
}

// Several batch dimensions, and mixed precision.
// CHECK-LABEL: mpg.graph @batch_matmul_rank4 {
// CHECK-NEXT:    %[[Q:.+]] = mpg.input "q" : tensor<2x4x16x8xf16>
// CHECK-NEXT:    %[[K:.+]] = mpg.input "k" : tensor<2x4x16x8xf16>
// CHECK-NEXT:    %[[B:.+]] = mpg.input "b" : tensor<2x4x8x3xbf16>
// CHECK-NEXT:    %[[C:.+]] = mpg.input "c" : tensor<2x4x3x5xbf16>
// CHECK-NEXT:    %[[S:.+]] = mpg.batch_matmul %[[Q]], %[[K]] transpose_b : tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16> -> tensor<2x4x16x16xf32>
// CHECK-NEXT:    %[[S16:.+]] = mpg.batch_matmul %[[Q]], %[[K]] transpose_b : tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16> -> tensor<2x4x16x16xf16>
// CHECK-NEXT:    %[[P:.+]] = mpg.batch_matmul %[[B]], %[[C]] {mpc.note} : tensor<2x4x8x3xbf16>, tensor<2x4x3x5xbf16> -> tensor<2x4x8x5xf32>
// CHECK-NEXT:    %[[D:.+]] = mpg.input "d" : tensor<1x2x3xf64>
// CHECK-NEXT:    %[[E:.+]] = mpg.batch_matmul %[[D]], %[[D]] transpose_a : tensor<1x2x3xf64>, tensor<1x2x3xf64> -> tensor<1x3x3xf64>
mpg.graph @batch_matmul_rank4 {
  %q = mpg.input "q" : tensor<2x4x16x8xf16>
  %k = mpg.input "k" : tensor<2x4x16x8xf16>
  %b = mpg.input "b" : tensor<2x4x8x3xbf16>
  %c = mpg.input "c" : tensor<2x4x3x5xbf16>
  %s = mpg.batch_matmul %q, %k transpose_b : tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16> -> tensor<2x4x16x16xf32>
  %s16 = mpg.batch_matmul %q, %k transpose_b : tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16> -> tensor<2x4x16x16xf16>
  %p = mpg.batch_matmul %b, %c {mpc.note} : tensor<2x4x8x3xbf16>, tensor<2x4x3x5xbf16> -> tensor<2x4x8x5xf32>
  %d = mpg.input "d" : tensor<1x2x3xf64>
  %e = mpg.batch_matmul %d, %d transpose_a : tensor<1x2x3xf64>, tensor<1x2x3xf64> -> tensor<1x3x3xf64>
}

// CHECK-LABEL: mpg.graph @conv2d {
// CHECK-NEXT:    %[[X:.+]] = mpg.input "x" : tensor<8x3x32x32xf32>
// CHECK-NEXT:    %[[W:.+]] = mpg.param "w" init(he_normal) : tensor<16x3x3x3xf32>
// CHECK-NEXT:    %[[Y:.+]] = mpg.conv2d %[[X]], %[[W]] : tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32> -> tensor<8x16x30x30xf32>
// CHECK-NEXT:    mpg.output "y" %[[Y]] : tensor<8x16x30x30xf32>
// CHECK-NEXT:  }
mpg.graph @conv2d {
  %x = mpg.input "x" : tensor<8x3x32x32xf32>
  %w = mpg.param "w" init(he_normal) : tensor<16x3x3x3xf32>
  %y = mpg.conv2d %x, %w : tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32> -> tensor<8x16x30x30xf32>
  mpg.output "y" %y : tensor<8x16x30x30xf32>
}

// Each attribute on its own, then all of them.
// CHECK-LABEL: mpg.graph @conv2d_attributes {
// CHECK-NEXT:    %[[X:.+]] = mpg.input "x" : tensor<8x4x32x32xf32>
// CHECK-NEXT:    %[[W:.+]] = mpg.input "w" : tensor<16x4x3x3xf32>
// CHECK-NEXT:    %[[WG:.+]] = mpg.input "wg" : tensor<16x2x3x3xf32>
// CHECK-NEXT:    %[[WD:.+]] = mpg.input "wd" : tensor<4x1x3x3xf32>
// CHECK-NEXT:    %[[Y0:.+]] = mpg.conv2d %[[X]], %[[W]] stride [2, 2] : tensor<8x4x32x32xf32>, tensor<16x4x3x3xf32> -> tensor<8x16x15x15xf32>
// CHECK-NEXT:    %[[Y1:.+]] = mpg.conv2d %[[X]], %[[W]] padding [1, 1, 1, 1] : tensor<8x4x32x32xf32>, tensor<16x4x3x3xf32> -> tensor<8x16x32x32xf32>
// CHECK-NEXT:    %[[Y2:.+]] = mpg.conv2d %[[X]], %[[W]] dilation [2, 2] : tensor<8x4x32x32xf32>, tensor<16x4x3x3xf32> -> tensor<8x16x28x28xf32>
// CHECK-NEXT:    %[[Y3:.+]] = mpg.conv2d %[[X]], %[[WG]] groups 2 : tensor<8x4x32x32xf32>, tensor<16x2x3x3xf32> -> tensor<8x16x30x30xf32>
// CHECK-NEXT:    %[[Y4:.+]] = mpg.conv2d %[[X]], %[[WD]] groups 4 : tensor<8x4x32x32xf32>, tensor<4x1x3x3xf32> -> tensor<8x4x30x30xf32>
// CHECK-NEXT:    %[[Y5:.+]] = mpg.conv2d %[[X]], %[[WG]] stride [2, 1] padding [1, 2, 0, 3] dilation [1, 2] groups 2 : tensor<8x4x32x32xf32>, tensor<16x2x3x3xf32> -> tensor<8x16x16x33xf32>
// CHECK-NEXT:    %[[Y6:.+]] = mpg.conv2d %[[X]], %[[W]] stride [1, 1] padding [0, 0, 0, 0] dilation [1, 1] groups 1 : tensor<8x4x32x32xf32>, tensor<16x4x3x3xf32> -> tensor<8x16x30x30xf32>
// CHECK-NEXT:    %[[Y7:.+]] = mpg.conv2d %[[X]], %[[W]] stride [3, 3] padding [1, 1, 1, 1] {mpc.note} : tensor<8x4x32x32xf32>, tensor<16x4x3x3xf32> -> tensor<8x16x11x11xf32>
mpg.graph @conv2d_attributes {
  %x = mpg.input "x" : tensor<8x4x32x32xf32>
  %w = mpg.input "w" : tensor<16x4x3x3xf32>
  %wg = mpg.input "wg" : tensor<16x2x3x3xf32>
  %wd = mpg.input "wd" : tensor<4x1x3x3xf32>
  %y0 = mpg.conv2d %x, %w stride [2, 2] : tensor<8x4x32x32xf32>, tensor<16x4x3x3xf32> -> tensor<8x16x15x15xf32>
  %y1 = mpg.conv2d %x, %w padding [1, 1, 1, 1] : tensor<8x4x32x32xf32>, tensor<16x4x3x3xf32> -> tensor<8x16x32x32xf32>
  %y2 = mpg.conv2d %x, %w dilation [2, 2] : tensor<8x4x32x32xf32>, tensor<16x4x3x3xf32> -> tensor<8x16x28x28xf32>
  %y3 = mpg.conv2d %x, %wg groups 2 : tensor<8x4x32x32xf32>, tensor<16x2x3x3xf32> -> tensor<8x16x30x30xf32>
  %y4 = mpg.conv2d %x, %wd groups 4 : tensor<8x4x32x32xf32>, tensor<4x1x3x3xf32> -> tensor<8x4x30x30xf32>
  %y5 = mpg.conv2d %x, %wg stride [2, 1] padding [1, 2, 0, 3] dilation [1, 2] groups 2 : tensor<8x4x32x32xf32>, tensor<16x2x3x3xf32> -> tensor<8x16x16x33xf32>
  %y6 = mpg.conv2d %x, %w stride [1, 1] padding [0, 0, 0, 0] dilation [1, 1] groups 1 : tensor<8x4x32x32xf32>, tensor<16x4x3x3xf32> -> tensor<8x16x30x30xf32>
  %y7 = mpg.conv2d %x, %w stride [3, 3] padding [1, 1, 1, 1] {mpc.note} : tensor<8x4x32x32xf32>, tensor<16x4x3x3xf32> -> tensor<8x16x11x11xf32>
}

// The example of the op's description; stride that does not divide evenly
// (floor); a 1x1 filter; a window that exactly fills the padded input.
// CHECK-LABEL: mpg.graph @conv2d_shapes {
// CHECK-NEXT:    %[[X:.+]] = mpg.input "x" : tensor<8x3x32x32xf32>
// CHECK-NEXT:    %[[W:.+]] = mpg.input "w" : tensor<16x3x3x3xf32>
// CHECK-NEXT:    %[[P:.+]] = mpg.input "p" : tensor<16x3x1x1xf32>
// CHECK-NEXT:    %[[F:.+]] = mpg.input "f" : tensor<16x3x34x34xf32>
// CHECK-NEXT:    mpg.conv2d %[[X]], %[[W]] stride [2, 2] padding [1, 1, 1, 1] : tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32> -> tensor<8x16x16x16xf32>
// CHECK-NEXT:    mpg.conv2d %[[X]], %[[W]] stride [4, 5] : tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32> -> tensor<8x16x8x6xf32>
// CHECK-NEXT:    mpg.conv2d %[[X]], %[[P]] : tensor<8x3x32x32xf32>, tensor<16x3x1x1xf32> -> tensor<8x16x32x32xf32>
// CHECK-NEXT:    mpg.conv2d %[[X]], %[[F]] padding [1, 1, 1, 1] : tensor<8x3x32x32xf32>, tensor<16x3x34x34xf32> -> tensor<8x16x1x1xf32>
mpg.graph @conv2d_shapes {
  %x = mpg.input "x" : tensor<8x3x32x32xf32>
  %w = mpg.input "w" : tensor<16x3x3x3xf32>
  %p = mpg.input "p" : tensor<16x3x1x1xf32>
  %f = mpg.input "f" : tensor<16x3x34x34xf32>
  %y0 = mpg.conv2d %x, %w stride [2, 2] padding [1, 1, 1, 1] : tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32> -> tensor<8x16x16x16xf32>
  %y1 = mpg.conv2d %x, %w stride [4, 5] : tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32> -> tensor<8x16x8x6xf32>
  %y2 = mpg.conv2d %x, %p : tensor<8x3x32x32xf32>, tensor<16x3x1x1xf32> -> tensor<8x16x32x32xf32>
  %y3 = mpg.conv2d %x, %f padding [1, 1, 1, 1] : tensor<8x3x32x32xf32>, tensor<16x3x34x34xf32> -> tensor<8x16x1x1xf32>
}

// Mixed precision: f16 and bf16 operands with f32 results, and the other way.
// CHECK-LABEL: mpg.graph @conv2d_mixed_precision {
// CHECK-NEXT:    %[[X:.+]] = mpg.input "x" : tensor<2x3x8x8xf16>
// CHECK-NEXT:    %[[W:.+]] = mpg.input "w" : tensor<4x3x3x3xf16>
// CHECK-NEXT:    %[[XB:.+]] = mpg.input "xb" : tensor<2x3x8x8xbf16>
// CHECK-NEXT:    %[[WB:.+]] = mpg.input "wb" : tensor<4x3x3x3xbf16>
// CHECK-NEXT:    %[[XD:.+]] = mpg.input "xd" : tensor<2x3x8x8xf64>
// CHECK-NEXT:    %[[WD:.+]] = mpg.input "wd" : tensor<4x3x3x3xf64>
// CHECK-NEXT:    mpg.conv2d %[[X]], %[[W]] padding [1, 1, 1, 1] : tensor<2x3x8x8xf16>, tensor<4x3x3x3xf16> -> tensor<2x4x8x8xf32>
// CHECK-NEXT:    mpg.conv2d %[[X]], %[[W]] : tensor<2x3x8x8xf16>, tensor<4x3x3x3xf16> -> tensor<2x4x6x6xf16>
// CHECK-NEXT:    mpg.conv2d %[[XB]], %[[WB]] stride [2, 2] : tensor<2x3x8x8xbf16>, tensor<4x3x3x3xbf16> -> tensor<2x4x3x3xf32>
// CHECK-NEXT:    mpg.conv2d %[[XD]], %[[WD]] : tensor<2x3x8x8xf64>, tensor<4x3x3x3xf64> -> tensor<2x4x6x6xf64>
// CHECK-NEXT:    mpg.conv2d %[[XD]], %[[WD]] : tensor<2x3x8x8xf64>, tensor<4x3x3x3xf64> -> tensor<2x4x6x6xf16>
mpg.graph @conv2d_mixed_precision {
  %x = mpg.input "x" : tensor<2x3x8x8xf16>
  %w = mpg.input "w" : tensor<4x3x3x3xf16>
  %xb = mpg.input "xb" : tensor<2x3x8x8xbf16>
  %wb = mpg.input "wb" : tensor<4x3x3x3xbf16>
  %xd = mpg.input "xd" : tensor<2x3x8x8xf64>
  %wd = mpg.input "wd" : tensor<4x3x3x3xf64>
  %y0 = mpg.conv2d %x, %w padding [1, 1, 1, 1] : tensor<2x3x8x8xf16>, tensor<4x3x3x3xf16> -> tensor<2x4x8x8xf32>
  %y1 = mpg.conv2d %x, %w : tensor<2x3x8x8xf16>, tensor<4x3x3x3xf16> -> tensor<2x4x6x6xf16>
  %y2 = mpg.conv2d %xb, %wb stride [2, 2] : tensor<2x3x8x8xbf16>, tensor<4x3x3x3xbf16> -> tensor<2x4x3x3xf32>
  %y3 = mpg.conv2d %xd, %wd : tensor<2x3x8x8xf64>, tensor<4x3x3x3xf64> -> tensor<2x4x6x6xf64>
  %y4 = mpg.conv2d %xd, %wd : tensor<2x3x8x8xf64>, tensor<4x3x3x3xf64> -> tensor<2x4x6x6xf16>
}

// The generic form, with every attribute as a property.
// CHECK-LABEL: mpg.graph @conv2d_generic {
// CHECK-NEXT:    %[[X:.+]] = mpg.input "x" : tensor<1x4x9x9xf32>
// CHECK-NEXT:    %[[W:.+]] = mpg.input "w" : tensor<6x2x3x3xf32>
// CHECK-NEXT:    mpg.conv2d %[[X]], %[[W]] stride [2, 2] padding [0, 1, 0, 1] dilation [2, 1] groups 2 : tensor<1x4x9x9xf32>, tensor<6x2x3x3xf32> -> tensor<1x6x3x5xf32>
mpg.graph @conv2d_generic {
  %x = mpg.input "x" : tensor<1x4x9x9xf32>
  %w = mpg.input "w" : tensor<6x2x3x3xf32>
  %y = "mpg.conv2d"(%x, %w) <{dilation = array<i64: 2, 1>, groups = 2 : i64, padding = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>}> : (tensor<1x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x3x5xf32>
}
