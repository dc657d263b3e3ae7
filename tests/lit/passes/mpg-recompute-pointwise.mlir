// RUN: mpc-opt %s --mpg-recompute-pointwise -split-input-file | FileCheck %s
// RUN: mpc-opt %s --mpg-recompute-pointwise=max-ops=1 -split-input-file | FileCheck %s --check-prefix=ONE
// RUN: mpc-opt %s --mpg-recompute-pointwise=max-ops=0 -split-input-file | FileCheck %s --check-prefix=OFF

// A batch norm's backward pass in small: one pointwise group computes a
// ReLU's gradient and two products of it; each is read by its own
// per-channel sum, and one also by a pointwise group. Dissolved: every
// reader computes what it read from the group's inputs (the mask, the
// gradient, the scale, the normalised input), and the group is gone.
// CHECK-LABEL: mpg.graph @batch_norm_backward
// CHECK-NOT: mpg.fusion pointwise(%m, %dy, %gamma, %xhat
// CHECK: %[[DB:.+]] = mpg.fusion reduction(%m, %dy : tensor<8x4xi1>, tensor<8x4xf32>) -> tensor<4xf32>
// CHECK-NEXT: ^bb0(%[[M:.+]]: tensor<8x4xi1>, %[[DY:.+]]: tensor<8x4xf32>):
// CHECK-NEXT: %[[Z:.+]] = mpg.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[G:.+]] = mpg.select %[[M]], %[[DY]], %[[Z]]
// CHECK-NEXT: %[[S:.+]] = mpg.reduce_sum %[[G]] axes [0]
// CHECK-NEXT: mpg.yield %[[S]]
// CHECK: %[[DG:.+]] = mpg.fusion reduction(%m, %dy, %gamma, %xhat : tensor<8x4xi1>, tensor<8x4xf32>, tensor<4xf32>, tensor<8x4xf32>) -> tensor<4xf32>
// CHECK: mpg.select
// CHECK-NEXT: mpg.mul
// CHECK-NEXT: mpg.mul
// CHECK-NEXT: mpg.reduce_sum
// The pointwise reader already read %xhat: it keeps one argument for it.
// CHECK: %[[DX:.+]] = mpg.fusion pointwise(%xhat, %[[DB]], %m, %dy, %gamma : tensor<8x4xf32>, tensor<4xf32>, tensor<8x4xi1>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: ^bb0(%[[X:.+]]: tensor<8x4xf32>, %[[B:.+]]: tensor<4xf32>, %[[M2:.+]]: tensor<8x4xi1>, %[[DY2:.+]]: tensor<8x4xf32>, %[[GA:.+]]: tensor<4xf32>):
// CHECK: %[[G2:.+]] = mpg.select %[[M2]], %[[DY2]]
// CHECK-NEXT: %[[H:.+]] = mpg.mul %[[G2]], %[[GA]]
// CHECK-NEXT: %[[T:.+]] = mpg.sub %[[H]], %[[B]]
// CHECK-NEXT: %[[U:.+]] = mpg.mul %[[T]], %[[X]]
// CHECK-NEXT: mpg.yield %[[U]]
// CHECK: mpg.output "db" %[[DB]]
// CHECK: mpg.output "dgamma" %[[DG]]
// CHECK: mpg.output "dx" %[[DX]]
// max-ops=1: the readers would copy 1 to 3 ops; the product's (3) is too many.
// ONE-LABEL: mpg.graph @batch_norm_backward
// ONE: mpg.fusion pointwise(%m, %dy, %gamma, %xhat
// OFF-LABEL: mpg.graph @batch_norm_backward
// OFF: mpg.fusion pointwise(%m, %dy, %gamma, %xhat
mpg.graph @batch_norm_backward {
  %m = mpg.input "m" : tensor<8x4xi1>
  %dy = mpg.input "dy" : tensor<8x4xf32>
  %gamma = mpg.input "gamma" : tensor<4xf32>
  %xhat = mpg.input "xhat" : tensor<8x4xf32>
  %p:3 = mpg.fusion pointwise(%m, %dy, %gamma, %xhat : tensor<8x4xi1>, tensor<8x4xf32>, tensor<4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32> {
  ^bb0(%a: tensor<8x4xi1>, %b: tensor<8x4xf32>, %c: tensor<4xf32>, %d: tensor<8x4xf32>):
    %z = mpg.constant dense<0.0> : tensor<f32>
    %g = mpg.select %a, %b, %z : tensor<8x4xi1>, tensor<8x4xf32>, tensor<f32> -> tensor<8x4xf32>
    %h = mpg.mul %g, %c : tensor<8x4xf32>, tensor<4xf32> -> tensor<8x4xf32>
    %gx = mpg.mul %h, %d : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
    mpg.yield %g, %h, %gx : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
  }
  %db = mpg.fusion reduction(%p#0 : tensor<8x4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<8x4xf32>):
    %s = mpg.reduce_sum %a axes [0] : tensor<8x4xf32> -> tensor<4xf32>
    mpg.yield %s : tensor<4xf32>
  }
  %dg = mpg.fusion reduction(%p#2 : tensor<8x4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<8x4xf32>):
    %s = mpg.reduce_sum %a axes [0] : tensor<8x4xf32> -> tensor<4xf32>
    mpg.yield %s : tensor<4xf32>
  }
  %dx = mpg.fusion pointwise(%xhat, %db, %p#1 : tensor<8x4xf32>, tensor<4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%a: tensor<8x4xf32>, %b: tensor<4xf32>, %c: tensor<8x4xf32>):
    %t = mpg.sub %c, %b : tensor<8x4xf32>, tensor<4xf32> -> tensor<8x4xf32>
    %u = mpg.mul %t, %a : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
    mpg.yield %u : tensor<8x4xf32>
  }
  mpg.output "db" %db : tensor<4xf32>
  mpg.output "dgamma" %dg : tensor<4xf32>
  mpg.output "dx" %dx : tensor<8x4xf32>
}

// -----

// A chain: the first group is read by the second alone, which one reduction
// reads. The first dissolves into the second, which then dissolves into the
// reduction: one kernel reads the input and writes the sum.
// CHECK-LABEL: mpg.graph @chain
// CHECK-NOT: mpg.fusion pointwise
// CHECK: %[[S:.+]] = mpg.fusion reduction(%x : tensor<16x8xf32>) -> tensor<8xf32>
// CHECK: mpg.exp
// CHECK-NEXT: mpg.mul
// CHECK-NEXT: mpg.reduce_sum
// CHECK: mpg.output "s" %[[S]]
mpg.graph @chain {
  %x = mpg.input "x" : tensor<16x8xf32>
  %e = mpg.fusion pointwise(%x : tensor<16x8xf32>) -> tensor<16x8xf32> {
  ^bb0(%a: tensor<16x8xf32>):
    %v = mpg.exp %a : tensor<16x8xf32>
    mpg.yield %v : tensor<16x8xf32>
  }
  %q = mpg.fusion pointwise(%e : tensor<16x8xf32>) -> tensor<16x8xf32> {
  ^bb0(%a: tensor<16x8xf32>):
    %v = mpg.mul %a, %a : tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
    mpg.yield %v : tensor<16x8xf32>
  }
  %s = mpg.fusion reduction(%q : tensor<16x8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<16x8xf32>):
    %r = mpg.reduce_sum %a axes [0] : tensor<16x8xf32> -> tensor<8xf32>
    mpg.yield %r : tensor<8xf32>
  }
  mpg.output "s" %s : tensor<8xf32>
}

// -----

// Unchanged: a stored f16 result is rounded; computed again in the reader
// it would not be.
// CHECK-LABEL: mpg.graph @narrow_result
// CHECK: %[[P:.+]] = mpg.fusion pointwise(%x
// CHECK: mpg.fusion reduction(%[[P]] :
mpg.graph @narrow_result {
  %x = mpg.input "x" : tensor<16x8xf32>
  %p = mpg.fusion pointwise(%x : tensor<16x8xf32>) -> tensor<16x8xf16> {
  ^bb0(%a: tensor<16x8xf32>):
    %v = mpg.cast %a : tensor<16x8xf32> to tensor<16x8xf16>
    mpg.yield %v : tensor<16x8xf16>
  }
  %s = mpg.fusion reduction(%p : tensor<16x8xf16>) -> tensor<8xf32> {
  ^bb0(%a: tensor<16x8xf16>):
    %w = mpg.cast %a : tensor<16x8xf16> to tensor<16x8xf32>
    %r = mpg.reduce_sum %w axes [0] : tensor<16x8xf32> -> tensor<8xf32>
    mpg.yield %r : tensor<8xf32>
  }
  mpg.output "s" %s : tensor<8xf32>
}

// -----

// Unchanged: an output reads the group's result, which must be written.
// CHECK-LABEL: mpg.graph @read_by_an_output
// CHECK: %[[P:.+]] = mpg.fusion pointwise(%x
// CHECK: mpg.fusion reduction(%[[P]] :
// CHECK: mpg.output "e" %[[P]]
mpg.graph @read_by_an_output {
  %x = mpg.input "x" : tensor<16x8xf32>
  %p = mpg.fusion pointwise(%x : tensor<16x8xf32>) -> tensor<16x8xf32> {
  ^bb0(%a: tensor<16x8xf32>):
    %v = mpg.exp %a : tensor<16x8xf32>
    mpg.yield %v : tensor<16x8xf32>
  }
  %s = mpg.fusion reduction(%p : tensor<16x8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<16x8xf32>):
    %r = mpg.reduce_sum %a axes [0] : tensor<16x8xf32> -> tensor<8xf32>
    mpg.yield %r : tensor<8xf32>
  }
  mpg.output "s" %s : tensor<8xf32>
  mpg.output "e" %p : tensor<16x8xf32>
}

// -----

// Unchanged: a GEMM reads the group's result (only reductions and
// pointwise groups compute it again).
// CHECK-LABEL: mpg.graph @read_by_a_gemm
// CHECK: %[[P:.+]] = mpg.fusion pointwise(%x
// CHECK: mpg.fusion gemm(%[[P]], %w
mpg.graph @read_by_a_gemm {
  %x = mpg.input "x" : tensor<16x8xf32>
  %w = mpg.input "w" : tensor<8x4xf32>
  %p = mpg.fusion pointwise(%x : tensor<16x8xf32>) -> tensor<16x8xf32> {
  ^bb0(%a: tensor<16x8xf32>):
    %v = mpg.exp %a : tensor<16x8xf32>
    mpg.yield %v : tensor<16x8xf32>
  }
  %s = mpg.fusion reduction(%p : tensor<16x8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<16x8xf32>):
    %r = mpg.reduce_sum %a axes [0] : tensor<16x8xf32> -> tensor<8xf32>
    mpg.yield %r : tensor<8xf32>
  }
  %y = mpg.fusion gemm(%p, %w : tensor<16x8xf32>, tensor<8x4xf32>) -> tensor<16x4xf32> {
  ^bb0(%a: tensor<16x8xf32>, %b: tensor<8x4xf32>):
    %v = mpg.matmul %a, %b : tensor<16x8xf32>, tensor<8x4xf32> -> tensor<16x4xf32>
    mpg.yield %v : tensor<16x4xf32>
  }
  mpg.output "s" %s : tensor<8xf32>
  mpg.output "y" %y : tensor<16x4xf32>
}

// -----

// Unchanged: the bytes moved would grow. The group reads three inputs and
// writes one result that three reductions read (7 tensors moved); each
// reduction would read the three inputs (9).
// CHECK-LABEL: mpg.graph @more_bytes
// CHECK: %[[P:.+]] = mpg.fusion pointwise(%x, %y, %z
// CHECK-COUNT-3: mpg.fusion reduction(%[[P]] :
mpg.graph @more_bytes {
  %x = mpg.input "x" : tensor<16x8xf32>
  %y = mpg.input "y" : tensor<16x8xf32>
  %z = mpg.input "z" : tensor<16x8xf32>
  %p = mpg.fusion pointwise(%x, %y, %z : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32> {
  ^bb0(%a: tensor<16x8xf32>, %b: tensor<16x8xf32>, %c: tensor<16x8xf32>):
    %u = mpg.mul %a, %b : tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
    %v = mpg.add %u, %c : tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
    mpg.yield %v : tensor<16x8xf32>
  }
  %s0 = mpg.fusion reduction(%p : tensor<16x8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<16x8xf32>):
    %r = mpg.reduce_sum %a axes [0] : tensor<16x8xf32> -> tensor<8xf32>
    mpg.yield %r : tensor<8xf32>
  }
  %s1 = mpg.fusion reduction(%p : tensor<16x8xf32>) -> tensor<16xf32> {
  ^bb0(%a: tensor<16x8xf32>):
    %r = mpg.reduce_sum %a axes [1] : tensor<16x8xf32> -> tensor<16xf32>
    mpg.yield %r : tensor<16xf32>
  }
  %s2 = mpg.fusion reduction(%p : tensor<16x8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<16x8xf32>):
    %r = mpg.reduce_max %a axes [0] : tensor<16x8xf32> -> tensor<8xf32>
    mpg.yield %r : tensor<8xf32>
  }
  mpg.output "s0" %s0 : tensor<8xf32>
  mpg.output "s1" %s1 : tensor<16xf32>
  mpg.output "s2" %s2 : tensor<8xf32>
}

// -----

// Unchanged: the pointwise reader computes over a larger space (the group's
// result is broadcast there), where each value would be computed again
// for every element it is broadcast to.
// CHECK-LABEL: mpg.graph @broadcast_reader
// CHECK: %[[P:.+]] = mpg.fusion pointwise(%x
// CHECK: mpg.fusion pointwise(%[[P]], %y
mpg.graph @broadcast_reader {
  %x = mpg.input "x" : tensor<8xf32>
  %y = mpg.input "y" : tensor<16x8xf32>
  %p = mpg.fusion pointwise(%x : tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>):
    %v = mpg.exp %a : tensor<8xf32>
    mpg.yield %v : tensor<8xf32>
  }
  %q = mpg.fusion pointwise(%p, %y : tensor<8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32> {
  ^bb0(%a: tensor<8xf32>, %b: tensor<16x8xf32>):
    %v = mpg.mul %b, %a : tensor<16x8xf32>, tensor<8xf32> -> tensor<16x8xf32>
    mpg.yield %v : tensor<16x8xf32>
  }
  mpg.output "q" %q : tensor<16x8xf32>
}

// -----

// Unchanged: a loss-scaler finite check reads the group's result (a check
// reads one gradient, and the code generator launches the checks together).
// CHECK-LABEL: mpg.graph @read_by_a_finite_check
// CHECK: %[[P:.+]] = mpg.fusion pointwise(%x
// CHECK: mpg.fusion reduction(%[[P]] :
// CHECK: mpg.reduce_sum {{.+}} {mpg.finite_check}
mpg.graph @read_by_a_finite_check {
  %x = mpg.input "x" : tensor<16x8xf32>
  %p = mpg.fusion pointwise(%x : tensor<16x8xf32>) -> tensor<16x8xf32> {
  ^bb0(%a: tensor<16x8xf32>):
    %v = mpg.exp %a : tensor<16x8xf32>
    mpg.yield %v : tensor<16x8xf32>
  }
  %s = mpg.fusion reduction(%p : tensor<16x8xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<16x8xf32>):
    %z = mpg.constant dense<0.0> : tensor<f32>
    %m = mpg.mul %a, %z : tensor<16x8xf32>, tensor<f32> -> tensor<16x8xf32>
    %r = mpg.reduce_sum %m axes [0, 1] {mpg.finite_check} : tensor<16x8xf32> -> tensor<f32>
    mpg.yield %r : tensor<f32>
  }
  mpg.output "s" %s : tensor<f32>
}

// -----

// Unchanged: the reduction keeps its reduced dimension (of size 1), so its
// result has the input's shape, and its epilogue reads the group's value
// too. Only a prologue may compute it (the epilogue reads memory and the
// reduced value).
// CHECK-LABEL: mpg.graph @read_in_an_epilogue
// CHECK: %[[P:.+]] = mpg.fusion pointwise(%x
// CHECK: mpg.fusion reduction(%[[P]] :
mpg.graph @read_in_an_epilogue {
  %x = mpg.input "x" : tensor<8x1xf32>
  %p = mpg.fusion pointwise(%x : tensor<8x1xf32>) -> tensor<8x1xf32> {
  ^bb0(%a: tensor<8x1xf32>):
    %v = mpg.exp %a : tensor<8x1xf32>
    mpg.yield %v : tensor<8x1xf32>
  }
  %s = mpg.fusion reduction(%p : tensor<8x1xf32>) -> tensor<8x1xf32> {
  ^bb0(%a: tensor<8x1xf32>):
    %r = mpg.reduce_sum %a axes [1] keepdim : tensor<8x1xf32> -> tensor<8x1xf32>
    %e = mpg.mul %r, %a : tensor<8x1xf32>, tensor<8x1xf32> -> tensor<8x1xf32>
    mpg.yield %e : tensor<8x1xf32>
  }
  mpg.output "s" %s : tensor<8x1xf32>
}
