// RUN: mpc-opt %s --canonicalize | FileCheck %s

// The folders of mpg.cast and mpg.reshape: a cast through an exact widening
// and back is its operand, a cast of such a widening casts the first
// operand once, a reshape chain is one reshape, a reshape or cast to the
// same type is its operand; and the pairs that must stay (a narrowing
// first: its rounding is the point).

// CHECK-LABEL: mpg.graph @widen_and_back
mpg.graph @widen_and_back {
  // CHECK: %x = mpg.input "x"
  %x = mpg.input "x" : tensor<4xf16>
  %w = mpg.cast %x : tensor<4xf16> to tensor<4xf32>
  %h = mpg.cast %w : tensor<4xf32> to tensor<4xf16>
  %b = mpg.input "b" : tensor<4xbf16>
  %bw = mpg.cast %b : tensor<4xbf16> to tensor<4xf64>
  %bb = mpg.cast %bw : tensor<4xf64> to tensor<4xbf16>
  // CHECK-NOT: mpg.cast
  // CHECK: mpg.output "h" %x : tensor<4xf16>
  mpg.output "h" %h : tensor<4xf16>
  // CHECK: mpg.output "bb" %b : tensor<4xbf16>
  mpg.output "bb" %bb : tensor<4xbf16>
}

// CHECK-LABEL: mpg.graph @widen_then_cast_elsewhere
mpg.graph @widen_then_cast_elsewhere {
  %x = mpg.input "x" : tensor<4xf16>
  %w = mpg.cast %x : tensor<4xf16> to tensor<4xf32>
  %d = mpg.cast %w : tensor<4xf32> to tensor<4xf64>
  %i = mpg.cast %w : tensor<4xf32> to tensor<4xi32>
  // CHECK: %[[D:.+]] = mpg.cast %x : tensor<4xf16> to tensor<4xf64>
  // CHECK: %[[I:.+]] = mpg.cast %x : tensor<4xf16> to tensor<4xi32>
  // CHECK: mpg.output "d" %[[D]]
  mpg.output "d" %d : tensor<4xf64>
  // CHECK: mpg.output "i" %[[I]]
  mpg.output "i" %i : tensor<4xi32>
}

// CHECK-LABEL: mpg.graph @narrowing_pairs_stay
mpg.graph @narrowing_pairs_stay {
  %x = mpg.input "x" : tensor<4xf32>
  // CHECK: %[[H:.+]] = mpg.cast %x : tensor<4xf32> to tensor<4xf16>
  // CHECK: %[[BACK:.+]] = mpg.cast %[[H]] : tensor<4xf16> to tensor<4xf32>
  %h = mpg.cast %x : tensor<4xf32> to tensor<4xf16>
  %back = mpg.cast %h : tensor<4xf16> to tensor<4xf32>
  // f16 to bf16 is not exact either way.
  %y = mpg.input "y" : tensor<4xf16>
  // CHECK: %[[B:.+]] = mpg.cast %y : tensor<4xf16> to tensor<4xbf16>
  // CHECK: %[[F:.+]] = mpg.cast %[[B]] : tensor<4xbf16> to tensor<4xf32>
  %b = mpg.cast %y : tensor<4xf16> to tensor<4xbf16>
  %f = mpg.cast %b : tensor<4xbf16> to tensor<4xf32>
  // CHECK: mpg.output "back" %[[BACK]]
  mpg.output "back" %back : tensor<4xf32>
  // CHECK: mpg.output "f" %[[F]]
  mpg.output "f" %f : tensor<4xf32>
}

// CHECK-LABEL: mpg.graph @reshape_chains
mpg.graph @reshape_chains {
  %x = mpg.input "x" : tensor<8x32x7x7xf32>
  %a = mpg.reshape %x : tensor<8x32x7x7xf32> -> tensor<8x1568xf32>
  %b = mpg.reshape %a : tensor<8x1568xf32> -> tensor<12544xf32>
  %c = mpg.reshape %b : tensor<12544xf32> -> tensor<8x32x49xf32>
  %back = mpg.reshape %a : tensor<8x1568xf32> -> tensor<8x32x7x7xf32>
  %same = mpg.reshape %x : tensor<8x32x7x7xf32> -> tensor<8x32x7x7xf32>
  %cast = mpg.cast %x : tensor<8x32x7x7xf32> to tensor<8x32x7x7xf32>
  // CHECK: %[[C:.+]] = mpg.reshape %x : tensor<8x32x7x7xf32> -> tensor<8x32x49xf32>
  // CHECK-NOT: mpg.reshape
  // CHECK-NOT: mpg.cast
  // CHECK: mpg.output "c" %[[C]]
  mpg.output "c" %c : tensor<8x32x49xf32>
  // CHECK: mpg.output "back" %x
  mpg.output "back" %back : tensor<8x32x7x7xf32>
  // CHECK: mpg.output "same" %x
  mpg.output "same" %same : tensor<8x32x7x7xf32>
  // CHECK: mpg.output "cast" %x
  mpg.output "cast" %cast : tensor<8x32x7x7xf32>
}
