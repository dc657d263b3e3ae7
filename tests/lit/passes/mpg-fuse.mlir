// RUN: mpc-opt %s --mpg-fuse -split-input-file | FileCheck %s
// RUN: mpc-opt %s --mpg-fuse -split-input-file | mpc-opt -split-input-file | FileCheck %s
// RUN: mpc-opt %s --mpg-fuse=gemm-epilogues=false -split-input-file | FileCheck %s --check-prefix=NOEPI
// RUN: mpc-opt %s --mpg-fuse=pointwise-fusion=false -split-input-file | FileCheck %s --check-prefix=NOPW
// RUN: mpc-opt %s --mpg-fuse=gemm-epilogues=false -split-input-file | mpc-opt -split-input-file > /dev/null
// RUN: mpc-opt %s --mpg-fuse=pointwise-fusion=false -split-input-file | mpc-opt -split-input-file > /dev/null

// Grouping of mpg ops into mpg.fusion kernels. Each group is checked from its
// block arguments to its closing brace, so the CHECK-NEXT lines say exactly
// which ops it holds. The second RUN line re-parses the output (the groups
// are valid IR); the others exercise the pass options.

//===----------------------------------------------------------------------===//
// Pointwise groups
//===----------------------------------------------------------------------===//

// A chain of pointwise ops of one shape (the cast included) is one kernel.
// CHECK-LABEL: mpg.graph @pointwise_chain
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[Y:.+]] = mpg.input "y"
// CHECK-NOT: mpg.fusion
// CHECK: %[[G:.+]] = mpg.fusion pointwise(%[[X]], %[[Y]] : tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf16> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[E:.+]] = mpg.exp %[[A]] : tensor<4x8xf32>
// CHECK-NEXT: %[[M:.+]] = mpg.mul %[[E]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[N:.+]] = mpg.neg %[[M]] : tensor<4x8xf32>
// CHECK-NEXT: %[[C:.+]] = mpg.cast %[[N]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT: mpg.yield %[[C]] : tensor<4x8xf16>
// CHECK-NEXT: }
// CHECK-NOT: mpg.fusion
// CHECK: mpg.output "d" %[[G]] : tensor<4x8xf16>

// With pointwise-fusion=false every pointwise op is a kernel of its own.
// NOPW-LABEL: mpg.graph @pointwise_chain
// NOPW: %[[X:.+]] = mpg.input "x"
// NOPW: %[[Y:.+]] = mpg.input "y"
// NOPW: %[[G0:.+]] = mpg.fusion pointwise(%[[X]] : tensor<4x8xf32>) -> tensor<4x8xf32> {
// NOPW-NEXT: ^bb0(%[[A0:.+]]: tensor<4x8xf32>):
// NOPW-NEXT: %[[E:.+]] = mpg.exp %[[A0]]
// NOPW-NEXT: mpg.yield %[[E]]
// NOPW-NEXT: }
// NOPW-NEXT: %[[G1:.+]] = mpg.fusion pointwise(%[[G0]], %[[Y]] : tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
// NOPW-NEXT: ^bb0(%[[A1:.+]]: tensor<4x8xf32>, %[[B1:.+]]: tensor<4x8xf32>):
// NOPW-NEXT: %[[M:.+]] = mpg.mul %[[A1]], %[[B1]]
// NOPW-NEXT: mpg.yield %[[M]]
// NOPW-NEXT: }
// NOPW-NEXT: %[[G2:.+]] = mpg.fusion pointwise(%[[G1]] : tensor<4x8xf32>) -> tensor<4x8xf32> {
// NOPW-NEXT: ^bb0(%[[A2:.+]]: tensor<4x8xf32>):
// NOPW-NEXT: %[[N:.+]] = mpg.neg %[[A2]]
// NOPW-NEXT: mpg.yield %[[N]]
// NOPW-NEXT: }
// NOPW-NEXT: %[[G3:.+]] = mpg.fusion pointwise(%[[G2]] : tensor<4x8xf32>) -> tensor<4x8xf16> {
// NOPW-NEXT: ^bb0(%[[A3:.+]]: tensor<4x8xf32>):
// NOPW-NEXT: %[[C:.+]] = mpg.cast %[[A3]]
// NOPW-NEXT: mpg.yield %[[C]]
// NOPW-NEXT: }
// NOPW-NEXT: mpg.output "d" %[[G3]]
mpg.graph @pointwise_chain {
  %x = mpg.input "x" : tensor<4x8xf32>
  %y = mpg.input "y" : tensor<4x8xf32>
  %a = mpg.exp %x : tensor<4x8xf32>
  %b = mpg.mul %a, %y : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %c = mpg.neg %b : tensor<4x8xf32>
  %d = mpg.cast %c : tensor<4x8xf32> to tensor<4x8xf16>
  mpg.output "d" %d : tensor<4x8xf16>
}

// -----

// A value of the chain also read outside the group becomes a second result.
// CHECK-LABEL: mpg.graph @pointwise_multi_result
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[G:.+]]:2 = mpg.fusion pointwise(%[[X]] : tensor<4x8xf32>) -> tensor<4x8xf32>, tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[E:.+]] = mpg.exp %[[A]]
// CHECK-NEXT: %[[N:.+]] = mpg.neg %[[E]]
// CHECK-NEXT: %[[T:.+]] = mpg.tanh %[[N]]
// CHECK-NEXT: mpg.yield %[[E]], %[[T]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NOT: mpg.fusion
// CHECK: mpg.output "a" %[[G]]#0
// CHECK: mpg.output "c" %[[G]]#1
mpg.graph @pointwise_multi_result {
  %x = mpg.input "x" : tensor<4x8xf32>
  %a = mpg.exp %x : tensor<4x8xf32>
  %b = mpg.neg %a : tensor<4x8xf32>
  %c = mpg.tanh %b : tensor<4x8xf32>
  mpg.output "a" %a : tensor<4x8xf32>
  mpg.output "c" %c : tensor<4x8xf32>
}

// -----

// Smaller operands from outside (a [8] bias, a rank-0 scale) are inputs that
// the kernel broadcasts; they do not split the group.
// CHECK-LABEL: mpg.graph @pointwise_broadcast_operands
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[BIAS:.+]] = mpg.param "bias"
// CHECK: %[[S:.+]] = mpg.input "s"
// CHECK: %[[G:.+]] = mpg.fusion pointwise(%[[X]], %[[BIAS]], %[[S]] : tensor<4x8xf32>, tensor<8xf32>, tensor<f32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<8xf32>, %[[C:.+]]: tensor<f32>):
// CHECK-NEXT: %[[ADD:.+]] = mpg.add %[[A]], %[[B]] : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[R:.+]] = mpg.relu %[[ADD]]
// CHECK-NEXT: %[[SC:.+]] = mpg.scale %[[R]], %[[C]] : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
// CHECK-NEXT: mpg.yield %[[SC]]
// CHECK-NEXT: }
// CHECK-NOT: mpg.fusion
// CHECK: mpg.output "c" %[[G]]
mpg.graph @pointwise_broadcast_operands {
  %x = mpg.input "x" : tensor<4x8xf32>
  %bias = mpg.param "bias" init(zeros) : tensor<8xf32>
  %s = mpg.input "s" : tensor<f32>
  %a = mpg.add %x, %bias : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %b = mpg.relu %a : tensor<4x8xf32>
  %c = mpg.scale %b, %s : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  mpg.output "c" %c : tensor<4x8xf32>
}

// -----

// %c is larger than the group value %b it reads: it starts a new group, which
// takes %b as a broadcast input.
// CHECK-LABEL: mpg.graph @pointwise_larger_result
// CHECK: %[[V:.+]] = mpg.input "v"
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[G0:.+]] = mpg.fusion pointwise(%[[V]] : tensor<8xf32>) -> tensor<8xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<8xf32>):
// CHECK-NEXT: %[[E:.+]] = mpg.exp %[[A]] : tensor<8xf32>
// CHECK-NEXT: %[[N:.+]] = mpg.neg %[[E]] : tensor<8xf32>
// CHECK-NEXT: mpg.yield %[[N]] : tensor<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[G1:.+]] = mpg.fusion pointwise(%[[X]], %[[G0]] : tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[B:.+]]: tensor<4x8xf32>, %[[C:.+]]: tensor<8xf32>):
// CHECK-NEXT: %[[ADD:.+]] = mpg.add %[[B]], %[[C]] : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[R:.+]] = mpg.relu %[[ADD]]
// CHECK-NEXT: mpg.yield %[[R]]
// CHECK-NEXT: }
// CHECK-NEXT: mpg.output "d" %[[G1]]
mpg.graph @pointwise_larger_result {
  %v = mpg.input "v" : tensor<8xf32>
  %x = mpg.input "x" : tensor<4x8xf32>
  %a = mpg.exp %v : tensor<8xf32>
  %b = mpg.neg %a : tensor<8xf32>
  %c = mpg.add %x, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %d = mpg.relu %c : tensor<4x8xf32>
  mpg.output "d" %d : tensor<4x8xf32>
}

// -----

// Likewise for broadcast_to: it is pointwise but its result is larger than
// its operand, so it opens the group of the larger shape.
// CHECK-LABEL: mpg.graph @pointwise_broadcast_to
// CHECK: %[[V:.+]] = mpg.input "v"
// CHECK: %[[G0:.+]] = mpg.fusion pointwise(%[[V]] : tensor<8xf32>) -> tensor<8xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<8xf32>):
// CHECK-NEXT: %[[E:.+]] = mpg.exp %[[A]]
// CHECK-NEXT: mpg.yield %[[E]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[G1:.+]] = mpg.fusion pointwise(%[[G0]] : tensor<8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[B:.+]]: tensor<8xf32>):
// CHECK-NEXT: %[[BC:.+]] = mpg.broadcast_to %[[B]] : tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[N:.+]] = mpg.neg %[[BC]]
// CHECK-NEXT: mpg.yield %[[N]]
// CHECK-NEXT: }
// CHECK-NEXT: mpg.output "c" %[[G1]]
mpg.graph @pointwise_broadcast_to {
  %v = mpg.input "v" : tensor<8xf32>
  %a = mpg.exp %v : tensor<8xf32>
  %b = mpg.broadcast_to %a : tensor<8xf32> -> tensor<4x8xf32>
  %c = mpg.neg %b : tensor<4x8xf32>
  mpg.output "c" %c : tensor<4x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Reduction groups
//===----------------------------------------------------------------------===//

// The reduction absorbs the pointwise group computing its operand.
// CHECK-LABEL: mpg.graph @reduction_prologue
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[Y:.+]] = mpg.input "y"
// CHECK-NOT: mpg.fusion
// CHECK: %[[G:.+]] = mpg.fusion reduction(%[[X]], %[[Y]] : tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[E:.+]] = mpg.exp %[[A]]
// CHECK-NEXT: %[[M:.+]] = mpg.mul %[[E]], %[[B]]
// CHECK-NEXT: %[[S:.+]] = mpg.reduce_sum %[[M]] axes [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK-NEXT: mpg.yield %[[S]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NOT: mpg.fusion
// CHECK: mpg.output "s" %[[G]]

// Without pointwise fusion the prologue stays in its own kernels.
// NOPW-LABEL: mpg.graph @reduction_prologue
// NOPW: mpg.fusion pointwise
// NOPW-NEXT: ^bb0
// NOPW-NEXT: mpg.exp
// NOPW-NEXT: mpg.yield
// NOPW-NEXT: }
// NOPW-NEXT: mpg.fusion pointwise
// NOPW-NEXT: ^bb0
// NOPW-NEXT: mpg.mul
// NOPW-NEXT: mpg.yield
// NOPW-NEXT: }
// NOPW-NEXT: %[[R:.+]] = mpg.fusion reduction
// NOPW-NEXT: ^bb0(%[[A:.+]]: tensor<4x8xf32>):
// NOPW-NEXT: %[[S:.+]] = mpg.reduce_sum %[[A]]
// NOPW-NEXT: mpg.yield %[[S]]
// NOPW-NEXT: }
// NOPW-NEXT: mpg.output "s" %[[R]]
mpg.graph @reduction_prologue {
  %x = mpg.input "x" : tensor<4x8xf32>
  %y = mpg.input "y" : tensor<4x8xf32>
  %a = mpg.exp %x : tensor<4x8xf32>
  %b = mpg.mul %a, %y : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %s = mpg.reduce_sum %b axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  mpg.output "s" %s : tensor<4xf32>
}

// -----

// %a is also an output: the pointwise group is read outside, so the
// reduction does not absorb it and reads its result instead.
// CHECK-LABEL: mpg.graph @reduction_shared_prologue
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[P:.+]]:2 = mpg.fusion pointwise(%[[X]] : tensor<4x8xf32>) -> tensor<4x8xf32>, tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[E:.+]] = mpg.exp %[[A]]
// CHECK-NEXT: %[[N:.+]] = mpg.neg %[[E]]
// CHECK-NEXT: mpg.yield %[[E]], %[[N]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[R:.+]] = mpg.fusion reduction(%[[P]]#1 : tensor<4x8xf32>) -> tensor<4xf32> {
// CHECK-NEXT: ^bb0(%[[B:.+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[M:.+]] = mpg.reduce_max %[[B]] axes [1]
// CHECK-NEXT: mpg.yield %[[M]]
// CHECK-NEXT: }
// CHECK: mpg.output "a" %[[P]]#0
// CHECK: mpg.output "s" %[[R]]
mpg.graph @reduction_shared_prologue {
  %x = mpg.input "x" : tensor<4x8xf32>
  %a = mpg.exp %x : tensor<4x8xf32>
  %b = mpg.neg %a : tensor<4x8xf32>
  %s = mpg.reduce_max %b axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  mpg.output "a" %a : tensor<4x8xf32>
  mpg.output "s" %s : tensor<4xf32>
}

// -----

// %a (bf16) is also an output, so the reduction cannot absorb its group; the
// widening cast only the reduction reads leaves that group and becomes the
// reduction's prologue: the group writes %a alone, and the reduction widens
// it as it reads, instead of reading an f32 copy the group also wrote. %a is
// a choice between a value read as bf16 and zero (a ReLU's gradient), so
// the kernel holds it exactly as stored.
// CHECK-LABEL: mpg.graph @reduction_takes_widening_cast
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[Y:.+]] = mpg.input "y"
// CHECK: %[[P:.+]] = mpg.fusion pointwise(%[[X]], %[[Y]] : tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<4x8xbf16>, %[[B:.+]]: tensor<4x8xbf16>):
// CHECK-NEXT: %[[Z:.+]] = mpg.constant
// CHECK-NEXT: %[[K:.+]] = mpg.compare gt, %[[A]], %[[Z]]
// CHECK-NEXT: %[[G:.+]] = mpg.select %[[K]], %[[B]], %[[Z]]
// CHECK-NEXT: mpg.yield %[[G]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[R:.+]] = mpg.fusion reduction(%[[P]] : tensor<4x8xbf16>) -> tensor<8xf32> {
// CHECK-NEXT: ^bb0(%[[C:.+]]: tensor<4x8xbf16>):
// CHECK-NEXT: %[[W:.+]] = mpg.cast %[[C]] : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK-NEXT: %[[S:.+]] = mpg.reduce_sum %[[W]] axes [0]
// CHECK-NEXT: mpg.yield %[[S]]
// CHECK-NEXT: }
// CHECK: mpg.output "g" %[[P]]
// CHECK: mpg.output "s" %[[R]]
// Without pointwise fusion every op is a kernel of its own.
// NOPW-LABEL: mpg.graph @reduction_takes_widening_cast
// NOPW-COUNT-4: mpg.fusion
mpg.graph @reduction_takes_widening_cast {
  %x = mpg.input "x" : tensor<4x8xbf16>
  %y = mpg.input "y" : tensor<4x8xbf16>
  %zero = mpg.constant dense<0.0> : tensor<4x8xbf16>
  %k = mpg.compare gt, %x, %zero : tensor<4x8xbf16>, tensor<4x8xbf16> -> tensor<4x8xi1>
  %g = mpg.select %k, %y, %zero : tensor<4x8xi1>, tensor<4x8xbf16>, tensor<4x8xbf16> -> tensor<4x8xbf16>
  %c = mpg.cast %g : tensor<4x8xbf16> to tensor<4x8xf32>
  %s = mpg.reduce_sum %c axes [0] : tensor<4x8xf32> -> tensor<8xf32>
  mpg.output "g" %g : tensor<4x8xbf16>
  mpg.output "s" %s : tensor<8xf32>
}

// -----

// An exp computed in bf16 is an f32 value in the kernel until it is stored:
// the cast of it stays in the group (widening the stored copy would give
// the rounded value).
// CHECK-LABEL: mpg.graph @widening_cast_of_computed_value
// CHECK: %[[P:.+]]:2 = mpg.fusion pointwise
// CHECK: mpg.exp
// CHECK-NEXT: mpg.cast
// CHECK: mpg.fusion reduction(%[[P]]#1 : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: mpg.reduce_sum
mpg.graph @widening_cast_of_computed_value {
  %x = mpg.input "x" : tensor<4x8xbf16>
  %a = mpg.exp %x : tensor<4x8xbf16>
  %c = mpg.cast %a : tensor<4x8xbf16> to tensor<4x8xf32>
  %s = mpg.reduce_sum %c axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  mpg.output "a" %a : tensor<4x8xbf16>
  mpg.output "s" %s : tensor<4xf32>
}

// -----

// Where the cast stays too: nothing else reads the group (the reduction
// takes all of it, exp and cast, as before); the cast has another reader
// (the f32 value is an output: the group writes it anyway); the cast
// narrows (the group would write more, not less).
// CHECK-LABEL: mpg.graph @widening_cast_whole_prologue
// CHECK: mpg.fusion reduction(%{{.+}} : tensor<4x8xbf16>) -> tensor<4xf32> {
// CHECK-NEXT: ^bb0
// CHECK-NEXT: mpg.exp
// CHECK-NEXT: mpg.cast
// CHECK-NEXT: mpg.reduce_sum
mpg.graph @widening_cast_whole_prologue {
  %x = mpg.input "x" : tensor<4x8xbf16>
  %a = mpg.exp %x : tensor<4x8xbf16>
  %c = mpg.cast %a : tensor<4x8xbf16> to tensor<4x8xf32>
  %s = mpg.reduce_sum %c axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  mpg.output "s" %s : tensor<4xf32>
}

// -----

// CHECK-LABEL: mpg.graph @widening_cast_read_elsewhere
// CHECK: %[[P:.+]]:2 = mpg.fusion pointwise
// CHECK: mpg.relu
// CHECK-NEXT: mpg.cast
// CHECK: mpg.fusion reduction(%[[P]]#1 : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: mpg.reduce_sum
mpg.graph @widening_cast_read_elsewhere {
  %x = mpg.input "x" : tensor<4x8xbf16>
  %a = mpg.relu %x : tensor<4x8xbf16>
  %c = mpg.cast %a : tensor<4x8xbf16> to tensor<4x8xf32>
  %s = mpg.reduce_sum %c axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  mpg.output "a" %a : tensor<4x8xbf16>
  mpg.output "c" %c : tensor<4x8xf32>
  mpg.output "s" %s : tensor<4xf32>
}

// -----

// CHECK-LABEL: mpg.graph @narrowing_cast_stays
// CHECK: %[[P:.+]]:2 = mpg.fusion pointwise
// CHECK: mpg.relu
// CHECK-NEXT: mpg.cast
// CHECK: mpg.fusion reduction(%[[P]]#1 : tensor<4x8xbf16>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: mpg.reduce_sum
mpg.graph @narrowing_cast_stays {
  %x = mpg.input "x" : tensor<4x8xf32>
  %a = mpg.relu %x : tensor<4x8xf32>
  %c = mpg.cast %a : tensor<4x8xf32> to tensor<4x8xbf16>
  %s = mpg.reduce_sum %c axes [1] : tensor<4x8xbf16> -> tensor<4xbf16>
  mpg.output "a" %a : tensor<4x8xf32>
  mpg.output "s" %s : tensor<4xbf16>
}

// -----

// Pointwise ops of the reduced shape that follow join the reduction
// (epilogue); %w comes from outside as an input.
// CHECK-LABEL: mpg.graph @reduction_epilogue_joins
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[W:.+]] = mpg.input "w"
// CHECK-NOT: mpg.fusion
// CHECK: %[[G:.+]] = mpg.fusion reduction(%[[X]], %[[W]] : tensor<4x8xf32>, tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<4xf32>):
// CHECK-NEXT: %[[S:.+]] = mpg.reduce_mean %[[A]] axes [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[M:.+]] = mpg.mul %[[S]], %[[B]] : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[R:.+]] = mpg.sqrt %[[M]] : tensor<4xf32>
// CHECK-NEXT: mpg.yield %[[R]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NOT: mpg.fusion
// CHECK: mpg.output "r" %[[G]]
mpg.graph @reduction_epilogue_joins {
  %x = mpg.input "x" : tensor<4x8xf32>
  %w = mpg.input "w" : tensor<4xf32>
  %s = mpg.reduce_mean %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %m = mpg.mul %s, %w : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %r = mpg.sqrt %m : tensor<4xf32>
  mpg.output "r" %r : tensor<4xf32>
}

// -----

// The epilogue ends at the first op of a larger shape (x - max): that one
// starts a pointwise group reading the reduction's result.
// CHECK-LABEL: mpg.graph @reduction_epilogue_then_larger
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[G0:.+]] = mpg.fusion reduction(%[[X]] : tensor<4x8xf32>) -> tensor<4x1xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[M:.+]] = mpg.reduce_max %[[A]] axes [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %[[N:.+]] = mpg.neg %[[M]] : tensor<4x1xf32>
// CHECK-NEXT: mpg.yield %[[N]] : tensor<4x1xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[G1:.+]] = mpg.fusion pointwise(%[[X]], %[[G0]] : tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[B:.+]]: tensor<4x8xf32>, %[[C:.+]]: tensor<4x1xf32>):
// CHECK-NEXT: %[[D:.+]] = mpg.add %[[B]], %[[C]] : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[E:.+]] = mpg.exp %[[D]]
// CHECK-NEXT: mpg.yield %[[E]]
// CHECK-NEXT: }
// CHECK-NEXT: mpg.output "e" %[[G1]]
mpg.graph @reduction_epilogue_then_larger {
  %x = mpg.input "x" : tensor<4x8xf32>
  %s = mpg.reduce_max %x axes [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
  %n = mpg.neg %s : tensor<4x1xf32>
  %d = mpg.add %x, %n : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %e = mpg.exp %d : tensor<4x8xf32>
  mpg.output "e" %e : tensor<4x8xf32>
}

// -----

// Reducing a size-1 axis with keepdim gives the reduced shape the prologue's
// shape. %z reads the prologue value %e: %e therefore has a reader outside
// the prologue, the reduction does not absorb it, and %z (of the reduced
// shape) reads %e as an input of the reduction group; exp is computed only
// in its own pointwise kernel, never inside the reduction group (nor
// absorbed into its epilogue as a producer of %z: the reduction reads it).
// CHECK-LABEL: mpg.graph @reduction_epilogue_reads_prologue
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[P:.+]] = mpg.fusion pointwise(%[[X]] : tensor<4x1xf32>) -> tensor<4x1xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<4x1xf32>):
// CHECK-NEXT: %[[E:.+]] = mpg.exp %[[A]]
// CHECK-NEXT: mpg.yield %[[E]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[R:.+]] = mpg.fusion reduction(%[[P]] : tensor<4x1xf32>) -> tensor<4x1xf32> {
// CHECK-NEXT: ^bb0(%[[B:.+]]: tensor<4x1xf32>):
// CHECK-NEXT: %[[S:.+]] = mpg.reduce_sum %[[B]] axes [1] keepdim : tensor<4x1xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %[[Z:.+]] = mpg.add %[[S]], %[[B]]
// CHECK-NEXT: mpg.yield %[[Z]]
// CHECK-NEXT: }
// CHECK-NEXT: mpg.output "z" %[[R]]
mpg.graph @reduction_epilogue_reads_prologue {
  %x = mpg.input "x" : tensor<4x1xf32>
  %e = mpg.exp %x : tensor<4x1xf32>
  %r = mpg.reduce_sum %e axes [1] keepdim : tensor<4x1xf32> -> tensor<4x1xf32>
  %z = mpg.add %r, %e : tensor<4x1xf32>, tensor<4x1xf32> -> tensor<4x1xf32>
  mpg.output "z" %z : tensor<4x1xf32>
}

// -----

// A reduction's epilogue absorbs pointwise groups of its result's shape that
// produce its operands and that no third group reads: the loss scale's two
// candidate next values (grown, backed off) are computed in the kernel of
// the overflow check that picks one, not in kernels of their own.
// CHECK-LABEL: mpg.graph @reduction_epilogue_absorbs_private_producers
// CHECK: %[[G:.+]] = mpg.input "g"
// CHECK: %[[S:.+]] = mpg.input "s"
// CHECK-NEXT: %[[R:.+]] = mpg.fusion reduction(%[[S]], %[[G]] : tensor<f32>, tensor<8xf32>) -> tensor<f32> {
// CHECK: %[[UP:.+]] = mpg.mul %{{.+}}, %{{.+}} : tensor<f32>, tensor<f32> -> tensor<f32>
// CHECK-NEXT: %[[DOWN:.+]] = mpg.mul %{{.+}}, %{{.+}} : tensor<f32>, tensor<f32> -> tensor<f32>
// CHECK-NEXT: %[[Z:.+]] = mpg.mul %{{.+}}, %{{.+}} : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
// CHECK-NEXT: %[[SUM:.+]] = mpg.reduce_sum %[[Z]] axes [0]
// CHECK-NEXT: %[[OK:.+]] = mpg.compare eq, %[[SUM]], %[[SUM]]
// CHECK-NEXT: %[[NEXT:.+]] = mpg.select %[[OK]], %[[UP]], %[[DOWN]]
// CHECK-NEXT: mpg.yield %[[NEXT]]
// CHECK-NEXT: }
// CHECK-NEXT: mpg.output "next" %[[R]]
mpg.graph @reduction_epilogue_absorbs_private_producers {
  %g = mpg.input "g" : tensor<8xf32>
  %s = mpg.input "s" : tensor<f32>
  %two = mpg.constant dense<2.0> : tensor<f32>
  %half = mpg.constant dense<0.5> : tensor<f32>
  %zero = mpg.constant dense<0.0> : tensor<f32>
  %grown = mpg.mul %s, %two : tensor<f32>, tensor<f32> -> tensor<f32>
  %shrunk = mpg.mul %s, %half : tensor<f32>, tensor<f32> -> tensor<f32>
  %gz = mpg.mul %g, %zero : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %sum = mpg.reduce_sum %gz axes [0] : tensor<8xf32> -> tensor<f32>
  %ok = mpg.compare eq, %sum, %sum : tensor<f32>, tensor<f32> -> tensor<i1>
  %next = mpg.select %ok, %grown, %shrunk : tensor<i1>, tensor<f32>, tensor<f32> -> tensor<f32>
  mpg.output "next" %next : tensor<f32>
}

// -----

// The same producer, also read by another group (%h's), stays a kernel of
// its own that both read.
// CHECK-LABEL: mpg.graph @epilogue_producer_read_by_a_third_group_stays
// CHECK: %[[UP:.+]] = mpg.fusion pointwise(%s : tensor<f32>) -> tensor<f32> {
// CHECK: mpg.fusion pointwise(%g, %[[UP]] : tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
// CHECK: mpg.fusion reduction(%g, %[[UP]] : tensor<8xf32>, tensor<f32>) -> tensor<f32>
mpg.graph @epilogue_producer_read_by_a_third_group_stays {
  %g = mpg.input "g" : tensor<8xf32>
  %s = mpg.input "s" : tensor<f32>
  %two = mpg.constant dense<2.0> : tensor<f32>
  %zero = mpg.constant dense<0.0> : tensor<f32>
  %grown = mpg.mul %s, %two : tensor<f32>, tensor<f32> -> tensor<f32>
  %h = mpg.mul %g, %grown : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %gz = mpg.mul %g, %zero : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %sum = mpg.reduce_sum %gz axes [0] : tensor<8xf32> -> tensor<f32>
  %next = mpg.add %sum, %grown : tensor<f32>, tensor<f32> -> tensor<f32>
  mpg.output "h" %h : tensor<8xf32>
  mpg.output "next" %next : tensor<f32>
}

// -----

//===----------------------------------------------------------------------===//
// GEMM groups
//===----------------------------------------------------------------------===//

// matmul + bias along the last dimension + relu: one cuBLASLt call. The
// following neg is not an epilogue op and starts a pointwise group.
// CHECK-LABEL: mpg.graph @gemm_bias_relu
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[W:.+]] = mpg.param "w"
// CHECK: %[[BIAS:.+]] = mpg.param "b"
// CHECK: %[[G:.+]] = mpg.fusion gemm(%[[X]], %[[W]], %[[BIAS]] : tensor<4x16xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<4x16xf32>, %[[B:.+]]: tensor<16x8xf32>, %[[C:.+]]: tensor<8xf32>):
// CHECK-NEXT: %[[MM:.+]] = mpg.matmul %[[A]], %[[B]] : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[ADD:.+]] = mpg.add %[[MM]], %[[C]] : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[R:.+]] = mpg.relu %[[ADD]]
// CHECK-NEXT: mpg.yield %[[R]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[P:.+]] = mpg.fusion pointwise(%[[G]] : tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[D:.+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[N:.+]] = mpg.neg %[[D]]
// CHECK-NEXT: mpg.yield %[[N]]
// CHECK-NEXT: }
// CHECK-NEXT: mpg.output "n" %[[P]]

// gemm-epilogues=false: the matmul is alone; bias, relu and neg form one
// pointwise group.
// NOEPI-LABEL: mpg.graph @gemm_bias_relu
// NOEPI: %[[X:.+]] = mpg.input "x"
// NOEPI: %[[W:.+]] = mpg.param "w"
// NOEPI: %[[BIAS:.+]] = mpg.param "b"
// NOEPI: %[[G:.+]] = mpg.fusion gemm(%[[X]], %[[W]] : tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32> {
// NOEPI-NEXT: ^bb0(%[[A:.+]]: tensor<4x16xf32>, %[[B:.+]]: tensor<16x8xf32>):
// NOEPI-NEXT: %[[MM:.+]] = mpg.matmul %[[A]], %[[B]]
// NOEPI-NEXT: mpg.yield %[[MM]]
// NOEPI-NEXT: }
// NOEPI-NEXT: %[[P:.+]] = mpg.fusion pointwise(%[[G]], %[[BIAS]] : tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
// NOEPI-NEXT: ^bb0(%[[C:.+]]: tensor<4x8xf32>, %[[D:.+]]: tensor<8xf32>):
// NOEPI-NEXT: %[[ADD:.+]] = mpg.add %[[C]], %[[D]]
// NOEPI-NEXT: %[[R:.+]] = mpg.relu %[[ADD]]
// NOEPI-NEXT: %[[N:.+]] = mpg.neg %[[R]]
// NOEPI-NEXT: mpg.yield %[[N]]
// NOEPI-NEXT: }
// NOEPI-NEXT: mpg.output "n" %[[P]]
mpg.graph @gemm_bias_relu {
  %x = mpg.input "x" : tensor<4x16xf32>
  %w = mpg.param "w" init(zeros) : tensor<16x8xf32>
  %b = mpg.param "b" init(zeros) : tensor<8xf32>
  %mm = mpg.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %a = mpg.add %mm, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %r = mpg.relu %a : tensor<4x8xf32>
  %n = mpg.neg %r : tensor<4x8xf32>
  mpg.output "n" %n : tensor<4x8xf32>
}

// -----

// Bias (here the left operand) and gelu on an f16 GEMM: f16 operands
// accumulate in fp32, and the epilogue rounds once, to f16.
// CHECK-LABEL: mpg.graph @gemm_bias_gelu_f16
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[W:.+]] = mpg.param "w"
// CHECK: %[[BIAS:.+]] = mpg.param "b"
// CHECK-NOT: mpg.fusion
// CHECK: %[[G:.+]] = mpg.fusion gemm(%[[X]], %[[W]], %[[BIAS]] : tensor<4x16xf16>, tensor<16x8xf16>, tensor<8xf16>) -> tensor<4x8xf16> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<4x16xf16>, %[[B:.+]]: tensor<16x8xf16>, %[[C:.+]]: tensor<8xf16>):
// CHECK-NEXT: %[[MM:.+]] = mpg.matmul %[[A]], %[[B]] : tensor<4x16xf16>, tensor<16x8xf16> -> tensor<4x8xf16>
// CHECK-NEXT: %[[ADD:.+]] = mpg.add %[[C]], %[[MM]] : tensor<8xf16>, tensor<4x8xf16> -> tensor<4x8xf16>
// CHECK-NEXT: %[[GELU:.+]] = mpg.gelu %[[ADD]] approximate : tensor<4x8xf16>
// CHECK-NEXT: mpg.yield %[[GELU]] : tensor<4x8xf16>
// CHECK-NEXT: }
// CHECK-NOT: mpg.fusion
// CHECK: mpg.output "c" %[[G]]
mpg.graph @gemm_bias_gelu_f16 {
  %x = mpg.input "x" : tensor<4x16xf16>
  %w = mpg.param "w" init(zeros) : tensor<16x8xf16>
  %b = mpg.param "b" init(zeros) : tensor<8xf16>
  %mm = mpg.matmul %x, %w : tensor<4x16xf16>, tensor<16x8xf16> -> tensor<4x8xf16>
  %a = mpg.add %b, %mm : tensor<8xf16>, tensor<4x8xf16> -> tensor<4x8xf16>
  %g = mpg.gelu %a approximate : tensor<4x8xf16>
  mpg.output "c" %g : tensor<4x8xf16>
}

// -----

// Without a bias, the cast to the output type joins after the activation.
// CHECK-LABEL: mpg.graph @gemm_gelu_cast
// CHECK: %[[G:.+]] = mpg.fusion gemm(
// CHECK: mpg.matmul
// CHECK-NEXT: mpg.gelu
// CHECK-NEXT: %[[CAST:.+]] = mpg.cast %{{.+}} : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT: mpg.yield %[[CAST]] : tensor<4x8xf16>
// CHECK-NEXT: }
// CHECK-NOT: mpg.fusion
mpg.graph @gemm_gelu_cast {
  %x = mpg.input "x" : tensor<4x16xf16>
  %w = mpg.param "w" init(zeros) : tensor<16x8xf16>
  %mm = mpg.matmul %x, %w : tensor<4x16xf16>, tensor<16x8xf16> -> tensor<4x8xf32>
  %g = mpg.gelu %mm approximate : tensor<4x8xf32>
  %c = mpg.cast %g : tensor<4x8xf32> to tensor<4x8xf16>
  mpg.output "c" %c : tensor<4x8xf16>
}

// -----

// cuBLASLt adds a bias of the result's type only: after an f32 bias, a cast
// to f16 stays out of the GEMM and becomes a pointwise kernel (as does an
// f16 bias followed by a cast to an f32 output).
// CHECK-LABEL: mpg.graph @gemm_bias_then_other_type
// CHECK: %[[BIAS:.+]] = mpg.param "b"
// CHECK: %[[G:.+]] = mpg.fusion gemm(%{{.+}}, %{{.+}}, %[[BIAS]] : tensor<4x16xf16>, tensor<16x8xf16>, tensor<8xf32>) -> tensor<4x8xf32> {
// CHECK: mpg.add
// CHECK-NEXT: mpg.gelu
// CHECK-NEXT: mpg.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[P:.+]] = mpg.fusion pointwise(%[[G]] : tensor<4x8xf32>) -> tensor<4x8xf16> {
// CHECK-NEXT: ^bb0(%[[D:.+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[CAST:.+]] = mpg.cast %[[D]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT: mpg.yield %[[CAST]]
// CHECK-NEXT: }
// CHECK-NEXT: mpg.output "c" %[[P]]
mpg.graph @gemm_bias_then_other_type {
  %x = mpg.input "x" : tensor<4x16xf16>
  %w = mpg.param "w" init(zeros) : tensor<16x8xf16>
  %b = mpg.param "b" init(zeros) : tensor<8xf32>
  %mm = mpg.matmul %x, %w : tensor<4x16xf16>, tensor<16x8xf16> -> tensor<4x8xf32>
  %a = mpg.add %b, %mm : tensor<8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %g = mpg.gelu %a approximate : tensor<4x8xf32>
  %c = mpg.cast %g : tensor<4x8xf32> to tensor<4x8xf16>
  mpg.output "c" %c : tensor<4x8xf16>
}

// -----

// cuBLASLt's GELU epilogue is the tanh form: an exact gelu is not an
// epilogue op and starts a pointwise group after the bias.
// CHECK-LABEL: mpg.graph @gemm_exact_gelu
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[W:.+]] = mpg.param "w"
// CHECK: %[[BIAS:.+]] = mpg.param "b"
// CHECK: %[[G:.+]] = mpg.fusion gemm(%[[X]], %[[W]], %[[BIAS]] : tensor<4x16xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<4x16xf32>, %[[B:.+]]: tensor<16x8xf32>, %[[C:.+]]: tensor<8xf32>):
// CHECK-NEXT: %[[MM:.+]] = mpg.matmul %[[A]], %[[B]]
// CHECK-NEXT: %[[ADD:.+]] = mpg.add %[[MM]], %[[C]]
// CHECK-NEXT: mpg.yield %[[ADD]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[P:.+]] = mpg.fusion pointwise(%[[G]] : tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[D:.+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[GELU:.+]] = mpg.gelu %[[D]] : tensor<4x8xf32>
// CHECK-NEXT: mpg.yield %[[GELU]]
// CHECK-NEXT: }
// CHECK-NEXT: mpg.output "g" %[[P]]
mpg.graph @gemm_exact_gelu {
  %x = mpg.input "x" : tensor<4x16xf32>
  %w = mpg.param "w" init(zeros) : tensor<16x8xf32>
  %b = mpg.param "b" init(zeros) : tensor<8xf32>
  %mm = mpg.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %a = mpg.add %mm, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %g = mpg.gelu %a : tensor<4x8xf32>
  mpg.output "g" %g : tensor<4x8xf32>
}

// -----

// The matmul's result is also an output: no epilogue is fused, the bias and
// relu form a pointwise group.
// CHECK-LABEL: mpg.graph @gemm_output_reused
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[W:.+]] = mpg.param "w"
// CHECK: %[[BIAS:.+]] = mpg.param "b"
// CHECK: %[[G:.+]] = mpg.fusion gemm(%[[X]], %[[W]] : tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<4x16xf32>, %[[B:.+]]: tensor<16x8xf32>):
// CHECK-NEXT: %[[MM:.+]] = mpg.matmul %[[A]], %[[B]]
// CHECK-NEXT: mpg.yield %[[MM]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[P:.+]] = mpg.fusion pointwise(%[[G]], %[[BIAS]] : tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[C:.+]]: tensor<4x8xf32>, %[[D:.+]]: tensor<8xf32>):
// CHECK-NEXT: %[[ADD:.+]] = mpg.add %[[C]], %[[D]]
// CHECK-NEXT: %[[R:.+]] = mpg.relu %[[ADD]]
// CHECK-NEXT: mpg.yield %[[R]]
// CHECK-NEXT: }
// CHECK-NEXT: mpg.output "mm" %[[G]]
// CHECK-NEXT: mpg.output "r" %[[P]]
mpg.graph @gemm_output_reused {
  %x = mpg.input "x" : tensor<4x16xf32>
  %w = mpg.param "w" init(zeros) : tensor<16x8xf32>
  %b = mpg.param "b" init(zeros) : tensor<8xf32>
  %mm = mpg.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %a = mpg.add %mm, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %r = mpg.relu %a : tensor<4x8xf32>
  mpg.output "mm" %mm : tensor<4x8xf32>
  mpg.output "r" %r : tensor<4x8xf32>
}

// -----

// A 2-D bias is not a cuBLASLt bias, even of shape [1, N]: the add (and the
// relu after it) go to a pointwise group.
// CHECK-LABEL: mpg.graph @gemm_bias_2d
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[W:.+]] = mpg.param "w"
// CHECK: %[[BIAS:.+]] = mpg.param "b"
// CHECK: %[[G:.+]] = mpg.fusion gemm(%[[X]], %[[W]] : tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<4x16xf32>, %[[B:.+]]: tensor<16x8xf32>):
// CHECK-NEXT: %[[MM:.+]] = mpg.matmul %[[A]], %[[B]]
// CHECK-NEXT: mpg.yield %[[MM]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[P:.+]] = mpg.fusion pointwise(%[[G]], %[[BIAS]] : tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[C:.+]]: tensor<4x8xf32>, %[[D:.+]]: tensor<1x8xf32>):
// CHECK-NEXT: %[[ADD:.+]] = mpg.add %[[C]], %[[D]]
// CHECK-NEXT: %[[R:.+]] = mpg.relu %[[ADD]]
// CHECK-NEXT: mpg.yield %[[R]]
// CHECK-NEXT: }
// CHECK-NEXT: mpg.output "r" %[[P]]
mpg.graph @gemm_bias_2d {
  %x = mpg.input "x" : tensor<4x16xf32>
  %w = mpg.param "w" init(zeros) : tensor<16x8xf32>
  %b = mpg.param "b" init(zeros) : tensor<1x8xf32>
  %mm = mpg.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %a = mpg.add %mm, %b : tensor<4x8xf32>, tensor<1x8xf32> -> tensor<4x8xf32>
  %r = mpg.relu %a : tensor<4x8xf32>
  mpg.output "r" %r : tensor<4x8xf32>
}

// -----

// A bias along the rows ([M, 1]) is not fused either.
// CHECK-LABEL: mpg.graph @gemm_row_bias
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[W:.+]] = mpg.param "w"
// CHECK: %[[BIAS:.+]] = mpg.param "b"
// CHECK: %[[G:.+]] = mpg.fusion gemm(%[[X]], %[[W]] : tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<4x16xf32>, %[[B:.+]]: tensor<16x8xf32>):
// CHECK-NEXT: %[[MM:.+]] = mpg.matmul %[[A]], %[[B]]
// CHECK-NEXT: mpg.yield %[[MM]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[P:.+]] = mpg.fusion pointwise(%[[G]], %[[BIAS]] : tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[C:.+]]: tensor<4x8xf32>, %[[D:.+]]: tensor<4x1xf32>):
// CHECK-NEXT: %[[ADD:.+]] = mpg.add %[[C]], %[[D]] : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT: mpg.yield %[[ADD]]
// CHECK-NEXT: }
// CHECK-NEXT: mpg.output "a" %[[P]]
mpg.graph @gemm_row_bias {
  %x = mpg.input "x" : tensor<4x16xf32>
  %w = mpg.param "w" init(zeros) : tensor<16x8xf32>
  %b = mpg.param "b" init(zeros) : tensor<4x1xf32>
  %mm = mpg.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %a = mpg.add %mm, %b : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  mpg.output "a" %a : tensor<4x8xf32>
}

// -----

// The epilogue order is bias, activation, cast: relu joins the GEMM, the
// bias added after it does not.
// CHECK-LABEL: mpg.graph @gemm_relu_before_bias
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[W:.+]] = mpg.param "w"
// CHECK: %[[BIAS:.+]] = mpg.param "b"
// CHECK: %[[G:.+]] = mpg.fusion gemm(%[[X]], %[[W]] : tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<4x16xf32>, %[[B:.+]]: tensor<16x8xf32>):
// CHECK-NEXT: %[[MM:.+]] = mpg.matmul %[[A]], %[[B]]
// CHECK-NEXT: %[[R:.+]] = mpg.relu %[[MM]]
// CHECK-NEXT: mpg.yield %[[R]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[P:.+]] = mpg.fusion pointwise(%[[G]], %[[BIAS]] : tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[C:.+]]: tensor<4x8xf32>, %[[D:.+]]: tensor<8xf32>):
// CHECK-NEXT: %[[ADD:.+]] = mpg.add %[[C]], %[[D]]
// CHECK-NEXT: mpg.yield %[[ADD]]
// CHECK-NEXT: }
// CHECK-NEXT: mpg.output "a" %[[P]]
mpg.graph @gemm_relu_before_bias {
  %x = mpg.input "x" : tensor<4x16xf32>
  %w = mpg.param "w" init(zeros) : tensor<16x8xf32>
  %b = mpg.param "b" init(zeros) : tensor<8xf32>
  %mm = mpg.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %r = mpg.relu %mm : tensor<4x8xf32>
  %a = mpg.add %r, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  mpg.output "a" %a : tensor<4x8xf32>
}

// -----

// batch_matmul takes the same epilogue.
// CHECK-LABEL: mpg.graph @batch_matmul_epilogue
// CHECK: %[[Q:.+]] = mpg.input "q"
// CHECK: %[[K:.+]] = mpg.input "k"
// CHECK: %[[BIAS:.+]] = mpg.param "b"
// CHECK-NOT: mpg.fusion
// CHECK: %[[G:.+]] = mpg.fusion gemm(%[[Q]], %[[K]], %[[BIAS]] : tensor<2x4x16xf32>, tensor<2x8x16xf32>, tensor<8xf32>) -> tensor<2x4x8xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<2x4x16xf32>, %[[B:.+]]: tensor<2x8x16xf32>, %[[C:.+]]: tensor<8xf32>):
// CHECK-NEXT: %[[MM:.+]] = mpg.batch_matmul %[[A]], %[[B]] transpose_b : tensor<2x4x16xf32>, tensor<2x8x16xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT: %[[ADD:.+]] = mpg.add %[[MM]], %[[C]] : tensor<2x4x8xf32>, tensor<8xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT: %[[R:.+]] = mpg.relu %[[ADD]]
// CHECK-NEXT: mpg.yield %[[R]]
// CHECK-NEXT: }
// CHECK-NOT: mpg.fusion
// CHECK: mpg.output "r" %[[G]]

// NOEPI-LABEL: mpg.graph @batch_matmul_epilogue
// NOEPI: %[[G:.+]] = mpg.fusion gemm(%{{.+}}, %{{.+}} : tensor<2x4x16xf32>, tensor<2x8x16xf32>) -> tensor<2x4x8xf32> {
// NOEPI-NEXT: ^bb0
// NOEPI-NEXT: %[[MM:.+]] = mpg.batch_matmul
// NOEPI-NEXT: mpg.yield %[[MM]]
// NOEPI-NEXT: }
// NOEPI-NEXT: %[[P:.+]] = mpg.fusion pointwise(%[[G]], %{{.+}} : tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32> {
// NOEPI-NEXT: ^bb0
// NOEPI-NEXT: mpg.add
// NOEPI-NEXT: mpg.relu
// NOEPI-NEXT: mpg.yield
// NOEPI-NEXT: }
// NOEPI-NEXT: mpg.output "r" %[[P]]
mpg.graph @batch_matmul_epilogue {
  %q = mpg.input "q" : tensor<2x4x16xf32>
  %k = mpg.input "k" : tensor<2x8x16xf32>
  %b = mpg.param "b" init(zeros) : tensor<8xf32>
  %s = mpg.batch_matmul %q, %k transpose_b : tensor<2x4x16xf32>, tensor<2x8x16xf32> -> tensor<2x4x8xf32>
  %a = mpg.add %s, %b : tensor<2x4x8xf32>, tensor<8xf32> -> tensor<2x4x8xf32>
  %r = mpg.relu %a : tensor<2x4x8xf32>
  mpg.output "r" %r : tensor<2x4x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Row, conv and single groups
//===----------------------------------------------------------------------===//

// Each row op is a group of its own; the pointwise ops around them are not
// fused into them.
// CHECK-LABEL: mpg.graph @row_ops
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[L:.+]] = mpg.input "labels"
// CHECK: %[[GAMMA:.+]] = mpg.param "g"
// CHECK: %[[BETA:.+]] = mpg.param "b"
// CHECK: %[[P0:.+]] = mpg.fusion pointwise(%[[X]] :
// CHECK-NEXT: ^bb0(%[[A0:.+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[E:.+]] = mpg.exp %[[A0]]
// CHECK-NEXT: mpg.yield %[[E]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[R0:.+]] = mpg.fusion row(%[[P0]] : tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[A1:.+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[S:.+]] = mpg.softmax %[[A1]]
// CHECK-NEXT: mpg.yield %[[S]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[P1:.+]] = mpg.fusion pointwise(%[[R0]] :
// CHECK-NEXT: ^bb0(%[[A2:.+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[N:.+]] = mpg.neg %[[A2]]
// CHECK-NEXT: mpg.yield %[[N]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[R1:.+]] = mpg.fusion row(%[[P1]] : tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[A3:.+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[LS:.+]] = mpg.log_softmax %[[A3]]
// CHECK-NEXT: mpg.yield %[[LS]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[R2:.+]] = mpg.fusion row(%[[R1]], %[[GAMMA]], %[[BETA]] : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[A4:.+]]: tensor<4x8xf32>, %[[A5:.+]]: tensor<8xf32>, %[[A6:.+]]: tensor<8xf32>):
// CHECK-NEXT: %[[LN:.+]] = mpg.layer_norm %[[A4]], %[[A5]], %[[A6]]
// CHECK-NEXT: mpg.yield %[[LN]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[P2:.+]] = mpg.fusion pointwise(%[[R2]] :
// CHECK-NEXT: ^bb0(%[[A7:.+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[T:.+]] = mpg.tanh %[[A7]]
// CHECK-NEXT: mpg.yield %[[T]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[R3:.+]] = mpg.fusion row(%[[P2]], %[[L]] : tensor<4x8xf32>, tensor<4xi32>) -> tensor<f32> {
// CHECK-NEXT: ^bb0(%[[A8:.+]]: tensor<4x8xf32>, %[[A9:.+]]: tensor<4xi32>):
// CHECK-NEXT: %[[CE:.+]] = mpg.softmax_cross_entropy %[[A8]], %[[A9]]
// CHECK-NEXT: mpg.yield %[[CE]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[P3:.+]] = mpg.fusion pointwise(%[[R3]] : tensor<f32>) -> tensor<f32> {
// CHECK-NEXT: ^bb0(%[[A10:.+]]: tensor<f32>):
// CHECK-NEXT: mpg.sqrt %[[A10]]
// CHECK-NEXT: mpg.yield
// CHECK-NEXT: }
// CHECK-NEXT: mpg.output "l" %[[P3]]
mpg.graph @row_ops {
  %x = mpg.input "x" : tensor<4x8xf32>
  %labels = mpg.input "labels" : tensor<4xi32>
  %g = mpg.param "g" init(ones) : tensor<8xf32>
  %b = mpg.param "b" init(zeros) : tensor<8xf32>
  %e = mpg.exp %x : tensor<4x8xf32>
  %s = mpg.softmax %e : tensor<4x8xf32> -> tensor<4x8xf32>
  %n = mpg.neg %s : tensor<4x8xf32>
  %ls = mpg.log_softmax %n : tensor<4x8xf32> -> tensor<4x8xf32>
  %ln = mpg.layer_norm %ls, %g, %b : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %t = mpg.tanh %ln : tensor<4x8xf32>
  %loss = mpg.softmax_cross_entropy %t, %labels : tensor<4x8xf32>, tensor<4xi32> -> tensor<f32>
  %l = mpg.sqrt %loss : tensor<f32>
  mpg.output "l" %l : tensor<f32>
}

// -----

// conv2d is a conv group; its bias and activation form a pointwise group.
// CHECK-LABEL: mpg.graph @conv
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[W:.+]] = mpg.param "w"
// CHECK: %[[BIAS:.+]] = mpg.param "b"
// CHECK: %[[C:.+]] = mpg.fusion conv(%[[X]], %[[W]] : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<2x3x8x8xf32>, %[[B:.+]]: tensor<4x3x3x3xf32>):
// CHECK-NEXT: %[[CV:.+]] = mpg.conv2d %[[A]], %[[B]] padding [1, 1, 1, 1]
// CHECK-NEXT: mpg.yield %[[CV]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[P:.+]] = mpg.fusion pointwise(%[[C]], %[[BIAS]] : tensor<2x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<2x4x8x8xf32> {
// CHECK-NEXT: ^bb0(%[[D:.+]]: tensor<2x4x8x8xf32>, %[[E:.+]]: tensor<4x1x1xf32>):
// CHECK-NEXT: %[[ADD:.+]] = mpg.add %[[D]], %[[E]]
// CHECK-NEXT: %[[R:.+]] = mpg.relu %[[ADD]]
// CHECK-NEXT: mpg.yield %[[R]]
// CHECK-NEXT: }
// CHECK-NEXT: mpg.output "r" %[[P]]
mpg.graph @conv {
  %x = mpg.input "x" : tensor<2x3x8x8xf32>
  %w = mpg.param "w" init(zeros) : tensor<4x3x3x3xf32>
  %b = mpg.param "b" init(zeros) : tensor<4x1x1xf32>
  %c = mpg.conv2d %x, %w padding [1, 1, 1, 1] : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x8x8xf32>
  %a = mpg.add %c, %b : tensor<2x4x8x8xf32>, tensor<4x1x1xf32> -> tensor<2x4x8x8xf32>
  %r = mpg.relu %a : tensor<2x4x8x8xf32>
  mpg.output "r" %r : tensor<2x4x8x8xf32>
}

// -----

// A widening cast that is a conv2d's only reader is its group's epilogue:
// the GEMMs write f32. Without GEMM epilogues it is a pointwise group.
// CHECK-LABEL: mpg.graph @conv_cast_epilogue
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[W:.+]] = mpg.param "w"
// CHECK: %[[C:.+]] = mpg.fusion conv(%[[X]], %[[W]] : tensor<2x3x8x8xf16>, tensor<4x3x3x3xf16>) -> tensor<2x4x8x8xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<2x3x8x8xf16>, %[[B:.+]]: tensor<4x3x3x3xf16>):
// CHECK-NEXT: %[[CV:.+]] = mpg.conv2d %[[A]], %[[B]]
// CHECK-NEXT: %[[WIDE:.+]] = mpg.cast %[[CV]] : tensor<2x4x8x8xf16> to tensor<2x4x8x8xf32>
// CHECK-NEXT: mpg.yield %[[WIDE]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[R:.+]] = mpg.fusion reduction(%[[C]]
// NOEPI-LABEL: mpg.graph @conv_cast_epilogue
// NOEPI: mpg.fusion conv({{.*}}) -> tensor<2x4x8x8xf16> {
// NOEPI: mpg.fusion pointwise({{.*}} : tensor<2x4x8x8xf16>) -> tensor<2x4x8x8xf32>
mpg.graph @conv_cast_epilogue {
  %x = mpg.input "x" : tensor<2x3x8x8xf16>
  %w = mpg.param "w" init(zeros) : tensor<4x3x3x3xf16>
  %c = mpg.conv2d %x, %w padding [1, 1, 1, 1] : tensor<2x3x8x8xf16>, tensor<4x3x3x3xf16> -> tensor<2x4x8x8xf16>
  %wide = mpg.cast %c : tensor<2x4x8x8xf16> to tensor<2x4x8x8xf32>
  %m = mpg.reduce_mean %wide axes [0, 2, 3] : tensor<2x4x8x8xf32> -> tensor<4xf32>
  mpg.output "m" %m : tensor<4xf32>
}

// -----

// The cast stays out when another op reads the convolution's result (the
// f16 value must be written), and a conv group takes nothing but a
// widening cast.
// CHECK-LABEL: mpg.graph @conv_cast_not_epilogue
// CHECK: %[[C:.+]] = mpg.fusion conv({{.*}}) -> tensor<2x4x8x8xf16> {
// CHECK-NEXT: ^bb0
// CHECK-NEXT: mpg.conv2d
// CHECK-NEXT: mpg.yield
// CHECK-NEXT: }
// CHECK-NEXT: mpg.fusion pointwise(%[[C]] : tensor<2x4x8x8xf16>) -> tensor<2x4x8x8xf32> {
// CHECK-NEXT: ^bb0
// CHECK-NEXT: mpg.cast
// CHECK: %[[D:.+]] = mpg.fusion conv({{.*}}) -> tensor<2x4x8x8xf16> {
// CHECK-NEXT: ^bb0
// CHECK-NEXT: mpg.conv2d
// CHECK-NEXT: mpg.yield
// CHECK-NEXT: }
// CHECK: mpg.fusion pointwise(%[[D]] : tensor<2x4x8x8xf16>) -> tensor<2x4x8x8xf32> {
// CHECK-NEXT: ^bb0
// CHECK-NEXT: mpg.relu
// CHECK-NEXT: mpg.cast
// A narrowing cast stays out too.
// CHECK: %[[E:.+]] = mpg.fusion conv({{.*}}) -> tensor<2x4x8x8xf32> {
// CHECK-NEXT: ^bb0
// CHECK-NEXT: mpg.conv2d
// CHECK-NEXT: mpg.yield
// CHECK-NEXT: }
// CHECK-NEXT: mpg.fusion pointwise(%[[E]] : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf16> {
mpg.graph @conv_cast_not_epilogue {
  %x = mpg.input "x" : tensor<2x3x8x8xf16>
  %w = mpg.param "w" init(zeros) : tensor<4x3x3x3xf16>
  %c = mpg.conv2d %x, %w padding [1, 1, 1, 1] : tensor<2x3x8x8xf16>, tensor<4x3x3x3xf16> -> tensor<2x4x8x8xf16>
  %wide = mpg.cast %c : tensor<2x4x8x8xf16> to tensor<2x4x8x8xf32>
  %neg = mpg.neg %c : tensor<2x4x8x8xf16>
  mpg.output "wide" %wide : tensor<2x4x8x8xf32>
  mpg.output "neg" %neg : tensor<2x4x8x8xf16>
  %d = mpg.conv2d %x, %w padding [1, 1, 1, 1] : tensor<2x3x8x8xf16>, tensor<4x3x3x3xf16> -> tensor<2x4x8x8xf16>
  %r = mpg.relu %d : tensor<2x4x8x8xf16>
  %rw = mpg.cast %r : tensor<2x4x8x8xf16> to tensor<2x4x8x8xf32>
  mpg.output "rw" %rw : tensor<2x4x8x8xf32>
  %xw = mpg.cast %x : tensor<2x3x8x8xf16> to tensor<2x3x8x8xf32>
  %ww = mpg.cast %w : tensor<4x3x3x3xf16> to tensor<4x3x3x3xf32>
  %e = mpg.conv2d %xw, %ww padding [1, 1, 1, 1] : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x8x8xf32>
  %en = mpg.cast %e : tensor<2x4x8x8xf32> to tensor<2x4x8x8xf16>
  mpg.output "en" %en : tensor<2x4x8x8xf16>
}

// -----

// Pooling, transpose and slice each get a single kernel, and so does the
// pointwise op after them (nothing fuses into a single group).
// CHECK-LABEL: mpg.graph @single_ops
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[G0:.+]] = mpg.fusion single(%[[X]] : tensor<2x4x8x8xf32>) -> tensor<2x4x4x4xf32> {
// CHECK-NEXT: ^bb0(%[[A0:.+]]: tensor<2x4x8x8xf32>):
// CHECK-NEXT: %[[MP:.+]] = mpg.max_pool2d %[[A0]] kernel [2, 2]
// CHECK-NEXT: mpg.yield %[[MP]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[G1:.+]] = mpg.fusion single(%[[G0]] : tensor<2x4x4x4xf32>) -> tensor<2x4x2x2xf32> {
// CHECK-NEXT: ^bb0(%[[A1:.+]]: tensor<2x4x4x4xf32>):
// CHECK-NEXT: %[[AP:.+]] = mpg.avg_pool2d %[[A1]] kernel [2, 2]
// CHECK-NEXT: mpg.yield %[[AP]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[G2:.+]] = mpg.fusion single(%[[G1]] : tensor<2x4x2x2xf32>) -> tensor<2x2x2x4xf32> {
// CHECK-NEXT: ^bb0(%[[A2:.+]]: tensor<2x4x2x2xf32>):
// CHECK-NEXT: %[[T:.+]] = mpg.transpose %[[A2]] perm [0, 2, 3, 1]
// CHECK-NEXT: mpg.yield %[[T]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[G3:.+]] = mpg.fusion single(%[[G2]] : tensor<2x2x2x4xf32>) -> tensor<2x1x2x4xf32> {
// CHECK-NEXT: ^bb0(%[[A3:.+]]: tensor<2x2x2x4xf32>):
// CHECK-NEXT: %[[SL:.+]] = mpg.slice %[[A3]] start [0, 0, 0, 0] limit [2, 1, 2, 4]
// CHECK-NEXT: mpg.yield %[[SL]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[G4:.+]] = mpg.fusion pointwise(%[[G3]] : tensor<2x1x2x4xf32>) -> tensor<2x1x2x4xf32> {
// CHECK-NEXT: ^bb0(%[[A4:.+]]: tensor<2x1x2x4xf32>):
// CHECK-NEXT: %[[N:.+]] = mpg.neg %[[A4]]
// CHECK-NEXT: mpg.yield %[[N]]
// CHECK-NEXT: }
// CHECK-NEXT: mpg.output "n" %[[G4]]
mpg.graph @single_ops {
  %x = mpg.input "x" : tensor<2x4x8x8xf32>
  %mp = mpg.max_pool2d %x kernel [2, 2] : tensor<2x4x8x8xf32> -> tensor<2x4x4x4xf32>
  %ap = mpg.avg_pool2d %mp kernel [2, 2] : tensor<2x4x4x4xf32> -> tensor<2x4x2x2xf32>
  %t = mpg.transpose %ap perm [0, 2, 3, 1] : tensor<2x4x2x2xf32> -> tensor<2x2x2x4xf32>
  %s = mpg.slice %t start [0, 0, 0, 0] limit [2, 1, 2, 4] : tensor<2x2x2x4xf32> -> tensor<2x1x2x4xf32>
  %n = mpg.neg %s : tensor<2x1x2x4xf32>
  mpg.output "n" %n : tensor<2x1x2x4xf32>
}

// -----

// embedding and concat: single kernels too.
// CHECK-LABEL: mpg.graph @single_embedding_concat
// CHECK: %[[IDS:.+]] = mpg.input "ids"
// CHECK: %[[TABLE:.+]] = mpg.param "table"
// CHECK: %[[E:.+]] = mpg.fusion single(%[[TABLE]], %[[IDS]] : tensor<10x4xf32>, tensor<2x3xi32>) -> tensor<2x3x4xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<10x4xf32>, %[[B:.+]]: tensor<2x3xi32>):
// CHECK-NEXT: %[[EMB:.+]] = mpg.embedding %[[A]], %[[B]]
// CHECK-NEXT: mpg.yield %[[EMB]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[C:.+]] = mpg.fusion single(%[[E]] : tensor<2x3x4xf32>) -> tensor<2x6x4xf32> {
// CHECK-NEXT: ^bb0(%[[D:.+]]: tensor<2x3x4xf32>):
// CHECK-NEXT: %[[CAT:.+]] = mpg.concat %[[D]], %[[D]] axis 1
// CHECK-NEXT: mpg.yield %[[CAT]]
// CHECK-NEXT: }
// CHECK-NEXT: mpg.output "c" %[[C]]
mpg.graph @single_embedding_concat {
  %ids = mpg.input "ids" : tensor<2x3xi32>
  %table = mpg.param "table" init(zeros) : tensor<10x4xf32>
  %e = mpg.embedding %table, %ids : tensor<10x4xf32>, tensor<2x3xi32> -> tensor<2x3x4xf32>
  %c = mpg.concat %e, %e axis 1 : tensor<2x3x4xf32>, tensor<2x3x4xf32> -> tensor<2x6x4xf32>
  mpg.output "c" %c : tensor<2x6x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// What stays outside groups
//===----------------------------------------------------------------------===//

// Inputs, state, the reshape (a view), state_write, outputs and minimize are
// not kernels. The reshape splits exp from neg; the reduction absorbs neg.
// CHECK-LABEL: mpg.graph @structural_ops
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[STEPS:.+]] = mpg.state "steps"
// CHECK-NOT: mpg.constant
// CHECK: %[[G0:.+]] = mpg.fusion pointwise(%[[STEPS]] : tensor<f32>) -> tensor<f32> {
// CHECK-NEXT: ^bb0(%[[A0:.+]]: tensor<f32>):
// CHECK-NEXT: %[[ONE:.+]] = mpg.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[INC:.+]] = mpg.add %[[A0]], %[[ONE]]
// CHECK-NEXT: mpg.yield %[[INC]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[G1:.+]] = mpg.fusion pointwise(%[[X]] : tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[A1:.+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[E:.+]] = mpg.exp %[[A1]]
// CHECK-NEXT: mpg.yield %[[E]]
// CHECK-NEXT: }
// CHECK-DAG: mpg.state_write %[[STEPS]], %[[G0]] : tensor<f32>
// CHECK-DAG: mpg.output "h" %[[G1]]
// CHECK-DAG: %[[R:.+]] = mpg.reshape %[[G1]] : tensor<4x8xf32> -> tensor<32xf32>
// CHECK: %[[G2:.+]] = mpg.fusion reduction(%[[R]] : tensor<32xf32>) -> tensor<f32> {
// CHECK-NEXT: ^bb0(%[[A2:.+]]: tensor<32xf32>):
// CHECK-NEXT: %[[N:.+]] = mpg.neg %[[A2]]
// CHECK-NEXT: %[[M:.+]] = mpg.reduce_mean %[[N]] axes [0]
// CHECK-NEXT: mpg.yield %[[M]]
// CHECK-NEXT: }
// CHECK-NEXT: mpg.minimize %[[G2]] optimizer(sgd
mpg.graph @structural_ops {
  %x = mpg.input "x" : tensor<4x8xf32>
  %steps = mpg.state "steps" init(zeros) : tensor<f32>
  %one = mpg.constant dense<1.0> : tensor<f32>
  %s2 = mpg.add %steps, %one : tensor<f32>, tensor<f32> -> tensor<f32>
  mpg.state_write %steps, %s2 : tensor<f32>
  %h = mpg.exp %x : tensor<4x8xf32>
  %r = mpg.reshape %h : tensor<4x8xf32> -> tensor<32xf32>
  %n = mpg.neg %r : tensor<32xf32>
  %loss = mpg.reduce_mean %n axes [0] : tensor<32xf32> -> tensor<f32>
  mpg.output "h" %h : tensor<4x8xf32>
  mpg.minimize %loss optimizer(sgd, lr = 0.1) : tensor<f32>
}

// -----

// A splat constant is cloned into each group that uses it and the original
// is erased; a non-splat constant stays outside and is passed as an input.
// CHECK-LABEL: mpg.graph @constants
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK-NOT: dense<5.000000e-01>
// CHECK: %[[K:.+]] = mpg.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NOT: dense<5.000000e-01>
// CHECK: %[[G0:.+]] = mpg.fusion pointwise(%[[X]], %[[K]] : tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32> {
// CHECK-NEXT: ^bb0(%[[A0:.+]]: tensor<2x4xf32>, %[[B0:.+]]: tensor<4xf32>):
// CHECK-NEXT: %[[H0:.+]] = mpg.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT: %[[M0:.+]] = mpg.mul %[[A0]], %[[H0]]
// CHECK-NEXT: %[[ADD:.+]] = mpg.add %[[M0]], %[[B0]]
// CHECK-NEXT: mpg.yield %[[ADD]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[G1:.+]] = mpg.fusion row(%[[G0]] :
// CHECK-NEXT: ^bb0(%[[A1:.+]]: tensor<2x4xf32>):
// CHECK-NEXT: %[[S:.+]] = mpg.softmax %[[A1]]
// CHECK-NEXT: mpg.yield %[[S]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[G2:.+]] = mpg.fusion pointwise(%[[G1]] : tensor<2x4xf32>) -> tensor<2x4xf32> {
// CHECK-NEXT: ^bb0(%[[A2:.+]]: tensor<2x4xf32>):
// CHECK-NEXT: %[[H2:.+]] = mpg.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT: %[[M2:.+]] = mpg.mul %[[A2]], %[[H2]]
// CHECK-NEXT: mpg.yield %[[M2]]
// CHECK-NEXT: }
// CHECK-NOT: dense<5.000000e-01>
// CHECK: mpg.output "c" %[[G2]]
mpg.graph @constants {
  %x = mpg.input "x" : tensor<2x4xf32>
  %half = mpg.constant dense<0.5> : tensor<f32>
  %k = mpg.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %a = mpg.mul %x, %half : tensor<2x4xf32>, tensor<f32> -> tensor<2x4xf32>
  %b = mpg.add %a, %k : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %s = mpg.softmax %b : tensor<2x4xf32> -> tensor<2x4xf32>
  %c = mpg.mul %s, %half : tensor<2x4xf32>, tensor<f32> -> tensor<2x4xf32>
  mpg.output "c" %c : tensor<2x4xf32>
}

// -----

// A splat constant read by a reduction's prologue and epilogue is cloned into
// the reduction group once.
// CHECK-LABEL: mpg.graph @constants_in_reduction
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK-NOT: mpg.constant
// CHECK: %[[G:.+]] = mpg.fusion reduction(%[[X]] : tensor<4x8xf32>) -> tensor<4xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[TWO:.+]] = mpg.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[M:.+]] = mpg.mul %[[A]], %[[TWO]]
// CHECK-NEXT: %[[S:.+]] = mpg.reduce_sum %[[M]] axes [1]
// CHECK-NEXT: %[[D:.+]] = mpg.div %[[S]], %[[TWO]]
// CHECK-NEXT: mpg.yield %[[D]]
// CHECK-NEXT: }
// CHECK-NOT: mpg.constant
// CHECK: mpg.output "d" %[[G]]
mpg.graph @constants_in_reduction {
  %x = mpg.input "x" : tensor<4x8xf32>
  %two = mpg.constant dense<2.0> : tensor<f32>
  %m = mpg.mul %x, %two : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %s = mpg.reduce_sum %m axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %d = mpg.div %s, %two : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  mpg.output "d" %d : tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// No cycles between kernels
//===----------------------------------------------------------------------===//

// %c reads %a and the matmul of %a. Putting %c in %a's group would make that
// group both feed and consume the GEMM, so %c starts a group of its own.
// CHECK-LABEL: mpg.graph @no_cycle_through_gemm
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[W:.+]] = mpg.param "w"
// CHECK: %[[P:.+]] = mpg.fusion pointwise(%[[X]] : tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[A0:.+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[E:.+]] = mpg.exp %[[A0]]
// CHECK-NEXT: mpg.yield %[[E]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[G:.+]] = mpg.fusion gemm(%[[P]], %[[W]] :
// CHECK-NEXT: ^bb0(%[[A1:.+]]: tensor<4x8xf32>, %[[B1:.+]]: tensor<8x8xf32>):
// CHECK-NEXT: %[[MM:.+]] = mpg.matmul %[[A1]], %[[B1]]
// CHECK-NEXT: mpg.yield %[[MM]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[Q:.+]] = mpg.fusion pointwise(%[[P]], %[[G]] : tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[A2:.+]]: tensor<4x8xf32>, %[[B2:.+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[M:.+]] = mpg.mul %[[A2]], %[[B2]]
// CHECK-NEXT: mpg.yield %[[M]]
// CHECK-NEXT: }
// CHECK-NEXT: mpg.output "c" %[[Q]]
mpg.graph @no_cycle_through_gemm {
  %x = mpg.input "x" : tensor<4x8xf32>
  %w = mpg.param "w" init(zeros) : tensor<8x8xf32>
  %a = mpg.exp %x : tensor<4x8xf32>
  %b = mpg.matmul %a, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %c = mpg.mul %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  mpg.output "c" %c : tensor<4x8xf32>
}

// -----

// The same through a reshape (outside groups) and a reduction: %c reads %a
// and the sum of %a, so it cannot join %a's group.
// CHECK-LABEL: mpg.graph @no_cycle_through_view
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[P:.+]] = mpg.fusion pointwise(%[[X]] : tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[A0:.+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[E:.+]] = mpg.exp %[[A0]]
// CHECK-NEXT: mpg.yield %[[E]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[R:.+]] = mpg.reshape %[[P]] : tensor<4x8xf32> -> tensor<32xf32>
// CHECK-NEXT: %[[S:.+]] = mpg.fusion reduction(%[[R]] : tensor<32xf32>) -> tensor<f32> {
// CHECK-NEXT: ^bb0(%[[A1:.+]]: tensor<32xf32>):
// CHECK-NEXT: %[[SUM:.+]] = mpg.reduce_sum %[[A1]] axes [0]
// CHECK-NEXT: mpg.yield %[[SUM]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[Q:.+]] = mpg.fusion pointwise(%[[P]], %[[S]] : tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[A2:.+]]: tensor<4x8xf32>, %[[B2:.+]]: tensor<f32>):
// CHECK-NEXT: %[[D:.+]] = mpg.div %[[A2]], %[[B2]]
// CHECK-NEXT: mpg.yield %[[D]]
// CHECK-NEXT: }
// CHECK-NEXT: mpg.output "c" %[[Q]]
mpg.graph @no_cycle_through_view {
  %x = mpg.input "x" : tensor<4x8xf32>
  %a = mpg.exp %x : tensor<4x8xf32>
  %r = mpg.reshape %a : tensor<4x8xf32> -> tensor<32xf32>
  %s = mpg.reduce_sum %r axes [0] : tensor<32xf32> -> tensor<f32>
  %c = mpg.div %a, %s : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  mpg.output "c" %c : tensor<4x8xf32>
}

// -----

// A group's dependencies that grow after another group came to read it reach
// that reader too. The GEMM reads %a's group; then %d joins that group and
// reads %c's group (which the reduction also reads, so it stays a kernel of
// its own), so the GEMM depends on %c's group as well. %e reads %c and the
// GEMM: in %c's group it would close a cycle (%c's group -> %a's group ->
// GEMM -> %c's group), so it starts a group of its own.
// CHECK-LABEL: mpg.graph @no_cycle_through_later_dependency
// CHECK: %[[C:.+]] = mpg.fusion pointwise(%[[Y:.+]] : tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%{{.+}}: tensor<4x8xf32>):
// CHECK-NEXT: mpg.exp
// CHECK-NEXT: mpg.yield
// CHECK-NEXT: }
// CHECK: %[[S:.+]] = mpg.fusion reduction(%[[C]] : tensor<4x8xf32>) -> tensor<4xf32> {
// CHECK: %[[A:.+]]:2 = mpg.fusion pointwise(%{{.+}}, %[[C]] : tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>, tensor<4x8xf32> {
// CHECK: %[[M:.+]] = mpg.fusion gemm(%[[A]]#0, %{{.+}} : tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
// CHECK: %[[E:.+]] = mpg.fusion pointwise(%[[C]], %[[M]] : tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[E0:.+]]: tensor<4x8xf32>, %[[E1:.+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[MUL:.+]] = mpg.mul %[[E0]], %[[E1]]
// CHECK-NEXT: mpg.yield %[[MUL]]
// CHECK-NEXT: }
// CHECK: mpg.output "e" %[[E]]
mpg.graph @no_cycle_through_later_dependency {
  %x = mpg.input "x" : tensor<4x8xf32>
  %y = mpg.input "y" : tensor<4x8xf32>
  %w = mpg.param "w" init(zeros) : tensor<8x8xf32>
  %a = mpg.exp %x : tensor<4x8xf32>
  %m = mpg.matmul %a, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %c = mpg.exp %y : tensor<4x8xf32>
  %s = mpg.reduce_sum %c axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %d = mpg.add %a, %c : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %e = mpg.mul %c, %m : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  mpg.output "d" %d : tensor<4x8xf32>
  mpg.output "e" %e : tensor<4x8xf32>
  mpg.output "s" %s : tensor<4xf32>
}

// -----

// A producer group read through a reshape (which the absorption rule does
// not count as a third group) is absorbed with that reader still reading it:
// %h's group goes into %g1's, which reads %z. The reduction of %h then
// depends on %z's group, and %t, which reads %z and the reduction, cannot
// join that group (%z -> merged group -> reduction -> %z).
// CHECK-LABEL: mpg.graph @absorbed_producer_readers_depend_on_the_merged_group
// CHECK: %[[Z:.+]] = mpg.fusion pointwise(%{{.+}} : tensor<8xf32>) -> tensor<8xf32> {
// CHECK: %[[G:.+]]:2 = mpg.fusion pointwise(%{{.+}}, %[[Z]] : tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>, tensor<4x8xf32> {
// CHECK: %[[R:.+]] = mpg.reshape %[[G]]#0
// CHECK: %[[K:.+]] = mpg.fusion reduction(%[[R]] : tensor<32xf32>) -> tensor<f32> {
// CHECK: %[[T:.+]] = mpg.fusion pointwise(%[[Z]], %[[K]] : tensor<8xf32>, tensor<f32>) -> tensor<8xf32> {
// CHECK-NEXT: ^bb0(%[[T0:.+]]: tensor<8xf32>, %[[T1:.+]]: tensor<f32>):
// CHECK-NEXT: %[[MUL:.+]] = mpg.mul %[[T0]], %[[T1]]
// CHECK-NEXT: mpg.yield %[[MUL]]
// CHECK: mpg.output "t" %[[T]]
mpg.graph @absorbed_producer_readers_depend_on_the_merged_group {
  %x = mpg.input "x" : tensor<4x8xf32>
  %y = mpg.input "y" : tensor<8xf32>
  %z = mpg.exp %y : tensor<8xf32>
  %h = mpg.exp %x : tensor<4x8xf32>
  %r = mpg.reshape %h : tensor<4x8xf32> -> tensor<32xf32>
  %k = mpg.reduce_sum %r axes [0] : tensor<32xf32> -> tensor<f32>
  %g1 = mpg.add %x, %z : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %g2 = mpg.add %g1, %h : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %t = mpg.mul %z, %k : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  mpg.output "g" %g2 : tensor<4x8xf32>
  mpg.output "t" %t : tensor<8xf32>
}

// -----

// The same reader after the absorption: the merged group then reads %w,
// and the reduction of %h, which read the absorbed group, depends on %w's
// group too, so %t cannot join it.
// CHECK-LABEL: mpg.graph @absorbed_producer_readers_follow_the_merged_group
// CHECK: %[[W:.+]] = mpg.fusion pointwise(%{{.+}} : tensor<8xf32>) -> tensor<8xf32> {
// CHECK: %[[G:.+]]:2 = mpg.fusion pointwise(%{{.+}}, %[[W]] : tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>, tensor<4x8xf32> {
// CHECK: %[[R:.+]] = mpg.reshape %[[G]]#0
// CHECK: %[[K:.+]] = mpg.fusion reduction(%[[R]] : tensor<32xf32>) -> tensor<f32> {
// CHECK: %[[T:.+]] = mpg.fusion pointwise(%[[W]], %[[K]] : tensor<8xf32>, tensor<f32>) -> tensor<8xf32> {
// CHECK: mpg.output "t" %[[T]]
mpg.graph @absorbed_producer_readers_follow_the_merged_group {
  %x = mpg.input "x" : tensor<4x8xf32>
  %y = mpg.input "y" : tensor<8xf32>
  %h = mpg.exp %x : tensor<4x8xf32>
  %r = mpg.reshape %h : tensor<4x8xf32> -> tensor<32xf32>
  %k = mpg.reduce_sum %r axes [0] : tensor<32xf32> -> tensor<f32>
  %g1 = mpg.neg %x : tensor<4x8xf32>
  %g2 = mpg.add %g1, %h : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %w = mpg.exp %y : tensor<8xf32>
  %g3 = mpg.add %g2, %w : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %t = mpg.mul %w, %k : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  mpg.output "g" %g3 : tensor<4x8xf32>
  mpg.output "t" %t : tensor<8xf32>
}

// -----

// Nothing fuses: every op keeps its place, each in a group of its own.
// CHECK-LABEL: mpg.graph @nothing_fuses
// CHECK-NEXT: %[[X:.+]] = mpg.input "x" : tensor<2x3x8x8xf32>
// CHECK-NEXT: %[[W:.+]] = mpg.param "w" init(zeros) : tensor<4x3x3x3xf32>
// CHECK-NEXT: %[[FC:.+]] = mpg.param "fc" init(zeros) : tensor<64x10xf32>
// CHECK-NEXT: %[[G0:.+]] = mpg.fusion conv(%[[X]], %[[W]] : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32> {
// CHECK-NEXT: ^bb0(%[[A0:.+]]: tensor<2x3x8x8xf32>, %[[B0:.+]]: tensor<4x3x3x3xf32>):
// CHECK-NEXT: %[[C:.+]] = mpg.conv2d %[[A0]], %[[B0]] padding [1, 1, 1, 1] : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x8x8xf32>
// CHECK-NEXT: mpg.yield %[[C]] : tensor<2x4x8x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[G1:.+]] = mpg.fusion single(%[[G0]] : tensor<2x4x8x8xf32>) -> tensor<2x4x4x4xf32> {
// CHECK-NEXT: ^bb0(%[[A1:.+]]: tensor<2x4x8x8xf32>):
// CHECK-NEXT: %[[P:.+]] = mpg.max_pool2d %[[A1]] kernel [2, 2] : tensor<2x4x8x8xf32> -> tensor<2x4x4x4xf32>
// CHECK-NEXT: mpg.yield %[[P]] : tensor<2x4x4x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[F:.+]] = mpg.reshape %[[G1]] : tensor<2x4x4x4xf32> -> tensor<2x64xf32>
// CHECK-NEXT: %[[G2:.+]] = mpg.fusion gemm(%[[F]], %[[FC]] : tensor<2x64xf32>, tensor<64x10xf32>) -> tensor<2x10xf32> {
// CHECK-NEXT: ^bb0(%[[A2:.+]]: tensor<2x64xf32>, %[[B2:.+]]: tensor<64x10xf32>):
// CHECK-NEXT: %[[L:.+]] = mpg.matmul %[[A2]], %[[B2]] : tensor<2x64xf32>, tensor<64x10xf32> -> tensor<2x10xf32>
// CHECK-NEXT: mpg.yield %[[L]] : tensor<2x10xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[G3:.+]] = mpg.fusion row(%[[G2]] : tensor<2x10xf32>) -> tensor<2x10xf32> {
// CHECK-NEXT: ^bb0(%[[A3:.+]]: tensor<2x10xf32>):
// CHECK-NEXT: %[[S:.+]] = mpg.softmax %[[A3]] : tensor<2x10xf32> -> tensor<2x10xf32>
// CHECK-NEXT: mpg.yield %[[S]] : tensor<2x10xf32>
// CHECK-NEXT: }
// CHECK-NEXT: mpg.output "s" %[[G3]] : tensor<2x10xf32>
// CHECK-NEXT: }
mpg.graph @nothing_fuses {
  %x = mpg.input "x" : tensor<2x3x8x8xf32>
  %w = mpg.param "w" init(zeros) : tensor<4x3x3x3xf32>
  %fc = mpg.param "fc" init(zeros) : tensor<64x10xf32>
  %c = mpg.conv2d %x, %w padding [1, 1, 1, 1] : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x8x8xf32>
  %p = mpg.max_pool2d %c kernel [2, 2] : tensor<2x4x8x8xf32> -> tensor<2x4x4x4xf32>
  %f = mpg.reshape %p : tensor<2x4x4x4xf32> -> tensor<2x64xf32>
  %l = mpg.matmul %f, %fc : tensor<2x64xf32>, tensor<64x10xf32> -> tensor<2x10xf32>
  %s = mpg.softmax %l : tensor<2x10xf32> -> tensor<2x10xf32>
  mpg.output "s" %s : tensor<2x10xf32>
}

// -----

// Two ops that each read both groups: %d joins %a's group, which then depends
// on %p's group, so %f must not join %p's group (that would be a cycle); it
// joins %a's, and as every value of %p's group is then read inside %a's
// group only, %a's group absorbs it: one kernel.
// CHECK-LABEL: mpg.graph @cross_dependency
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[Y:.+]] = mpg.input "y"
// CHECK-NEXT: %[[A:.+]]:2 = mpg.fusion pointwise(%[[X]], %[[Y]] : tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>, tensor<4x8xf32> {
// CHECK-NOT: mpg.fusion
// CHECK: mpg.output "d" %[[A]]#0
// CHECK: mpg.output "f" %[[A]]#1
mpg.graph @cross_dependency {
  %x = mpg.input "x" : tensor<4x8xf32>
  %y = mpg.input "y" : tensor<4x8xf32>
  %a = mpg.exp %x : tensor<4x8xf32>
  %p = mpg.exp %y : tensor<4x8xf32>
  %d = mpg.add %a, %p : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %f = mpg.add %p, %a : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  mpg.output "d" %d : tensor<4x8xf32>
  mpg.output "f" %f : tensor<4x8xf32>
}

// -----

// Compute ops nobody reads are removed; a group whose only operands are splat
// constants has no inputs and still prints in a form that parses back.
// CHECK-LABEL: mpg.graph @dead_and_inputless
// CHECK-NOT: mpg.softmax
// CHECK: %[[G:.+]] = mpg.fusion pointwise() -> tensor<4xf32> {
// CHECK-NEXT: %[[C:.+]] = mpg.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[E:.+]] = mpg.exp %[[C]] : tensor<4xf32>
// CHECK-NEXT: mpg.yield %[[E]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: mpg.output "e" %[[G]]
mpg.graph @dead_and_inputless {
  %x = mpg.input "x" : tensor<4x8xf32>
  %unused = mpg.softmax %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %c = mpg.constant dense<2.0> : tensor<4xf32>
  %e = mpg.exp %c : tensor<4xf32>
  mpg.output "e" %e : tensor<4xf32>
}

// -----

// Without pointwise fusion a reduction keeps neither prologue nor epilogue.
// NOPW-LABEL: mpg.graph @no_pointwise_fusion_reduction
// NOPW: mpg.fusion reduction
// NOPW-NEXT: ^bb0
// NOPW-NEXT: mpg.reduce_sum
// NOPW-NEXT: mpg.yield
// NOPW: mpg.fusion pointwise
// NOPW-NEXT: ^bb0
// NOPW-NEXT: mpg.exp
// NOPW-NEXT: mpg.yield
// CHECK-LABEL: mpg.graph @no_pointwise_fusion_reduction
// CHECK: mpg.fusion reduction
// CHECK-NEXT: ^bb0
// CHECK-NEXT: mpg.reduce_sum
// CHECK-NEXT: mpg.exp
// CHECK-NEXT: mpg.yield
mpg.graph @no_pointwise_fusion_reduction {
  %x = mpg.input "x" : tensor<4x8xf32>
  %s = mpg.reduce_sum %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %e = mpg.exp %s : tensor<4xf32>
  mpg.output "e" %e : tensor<4xf32>
}

// -----

// A producer group whose value is also a graph output is absorbed all the
// same: the merged kernel writes %e for the output and keeps it in a
// register for %s.
// CHECK-LABEL: mpg.graph @producer_read_by_an_output_absorbed
// CHECK: %[[G:.+]]:2 = mpg.fusion pointwise(%{{.+}}, %{{.+}} : tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>, tensor<4x8xf32> {
// CHECK: mpg.exp
// CHECK: mpg.tanh
// CHECK: mpg.add
// CHECK-NOT: mpg.fusion
// CHECK: mpg.output "e" %[[G]]#0
// CHECK: mpg.output "s" %[[G]]#1
mpg.graph @producer_read_by_an_output_absorbed {
  %x = mpg.input "x" : tensor<4x8xf32>
  %y = mpg.input "y" : tensor<4x8xf32>
  %e = mpg.exp %x : tensor<4x8xf32>
  %t = mpg.tanh %y : tensor<4x8xf32>
  %s = mpg.add %t, %e : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  mpg.output "e" %e : tensor<4x8xf32>
  mpg.output "s" %s : tensor<4x8xf32>
}

// -----

// Likewise a producer whose value a state write takes, and one an op placed
// later reads (%late): an optimizer update's moment written to state while
// its step feeds the parameter's update. One kernel.
// CHECK-LABEL: mpg.graph @producer_read_by_state_write_and_later_op
// CHECK: %[[G:.+]]:3 = mpg.fusion pointwise
// CHECK-NOT: mpg.fusion
// CHECK: mpg.output "late" %[[G]]#{{[0-9]}}
// CHECK: mpg.state_write %m, %[[G]]#{{[0-9]}}
mpg.graph @producer_read_by_state_write_and_later_op {
  %m = mpg.state "m" init(zeros) : tensor<4x8xf32>
  %x = mpg.input "x" : tensor<4x8xf32>
  %y = mpg.input "y" : tensor<4x8xf32>
  %nm = mpg.add %m, %x : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %t = mpg.tanh %y : tensor<4x8xf32>
  %s = mpg.mul %t, %nm : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %late = mpg.exp %nm : tensor<4x8xf32>
  mpg.output "s" %s : tensor<4x8xf32>
  mpg.output "late" %late : tensor<4x8xf32>
  mpg.state_write %m, %nm : tensor<4x8xf32>
}

// -----

// A producer group that a third group also reads stays a kernel of its
// own: %e feeds %s's group and the reduction.
// CHECK-LABEL: mpg.graph @producer_read_by_a_third_group_stays
// CHECK: %[[E:.+]] = mpg.fusion pointwise(%{{.+}} : tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK: mpg.fusion reduction(%[[E]]
// CHECK: mpg.fusion pointwise(%{{.+}}, %[[E]] : tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
mpg.graph @producer_read_by_a_third_group_stays {
  %x = mpg.input "x" : tensor<4x8xf32>
  %y = mpg.input "y" : tensor<4x8xf32>
  %e = mpg.exp %x : tensor<4x8xf32>
  %r = mpg.reduce_sum %e axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %t = mpg.tanh %y : tensor<4x8xf32>
  %s = mpg.add %t, %e : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  mpg.output "r" %r : tensor<4xf32>
  mpg.output "s" %s : tensor<4x8xf32>
}

// -----

// Absorptions chain: %u's group is absorbed into %m's, and that group into
// %v's. The first absorption leaves %u's group empty; it must not count as
// a group lying between the other two. One kernel.
// CHECK-LABEL: mpg.graph @absorptions_chain
// CHECK: mpg.fusion pointwise(%{{.+}}, %{{.+}}, %{{.+}} : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NOT: mpg.fusion
// CHECK: mpg.output "v"
mpg.graph @absorptions_chain {
  %x = mpg.input "x" : tensor<4x8xf32>
  %y = mpg.input "y" : tensor<4x8xf32>
  %z = mpg.input "z" : tensor<4x8xf32>
  %u = mpg.exp %x : tensor<4x8xf32>
  %m = mpg.tanh %y : tensor<4x8xf32>
  %m2 = mpg.add %m, %u : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %v = mpg.neg %z : tensor<4x8xf32>
  %v2 = mpg.add %v, %m2 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  mpg.output "v" %v2 : tensor<4x8xf32>
}

// -----

// A private producer group joins its consumer's group: %t's group is read
// only by %s, which joined %e's group first.
// CHECK-LABEL: mpg.graph @private_producer_absorbed
// CHECK: mpg.fusion pointwise(%{{.+}}, %{{.+}} : tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NOT: mpg.fusion
// CHECK: mpg.output "s"
mpg.graph @private_producer_absorbed {
  %x = mpg.input "x" : tensor<4x8xf32>
  %y = mpg.input "y" : tensor<4x8xf32>
  %e = mpg.exp %x : tensor<4x8xf32>
  %t = mpg.tanh %y : tensor<4x8xf32>
  %s = mpg.add %e, %t : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  mpg.output "s" %s : tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// GEMM groups accumulating into state (SGD's momentum)
//===----------------------------------------------------------------------===//

// -----

// A weight gradient's GEMM computes the momentum's update as it writes its
// product: the mul by the momentum factor (a splat, then an attribute of the
// kernel: cloned into the group) and the add join the GEMM's group, which
// reads the momentum and yields its new value; the parameter's update reads
// that value. Without epilogues (NOEPI) the GEMM writes the gradient alone.
// CHECK-LABEL: mpg.graph @momentum_accumulated_by_its_gemm
// CHECK: %[[M:.+]] = mpg.fusion gemm(%{{.+}}, %{{.+}}, %m : tensor<16x8xf32>, tensor<16x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<16x8xf32>, %[[B:.+]]: tensor<16x4xf32>, %[[OLD:.+]]: tensor<8x4xf32>):
// CHECK-NEXT: %[[MU:.+]] = mpg.constant dense<0.899999976> : tensor<f32>
// CHECK-NEXT: %[[G:.+]] = mpg.matmul %[[A]], %[[B]] transpose_a
// CHECK-NEXT: %[[S:.+]] = mpg.mul %[[OLD]], %[[MU]]
// CHECK-NEXT: %[[N:.+]] = mpg.add %[[S]], %[[G]]
// CHECK-NEXT: mpg.yield %[[N]] : tensor<8x4xf32>
// CHECK-NEXT: }
// CHECK: %[[W:.+]] = mpg.fusion pointwise(%[[M]], %w : tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32> {
// CHECK-DAG: mpg.state_write %m, %[[M]]
// CHECK-DAG: mpg.state_write %w, %[[W]]
// NOEPI-LABEL: mpg.graph @momentum_accumulated_by_its_gemm
// NOEPI: mpg.fusion gemm(%{{.+}}, %{{.+}} : tensor<16x8xf32>, tensor<16x4xf32>) -> tensor<8x4xf32> {
mpg.graph @momentum_accumulated_by_its_gemm {
  %x = mpg.input "x" : tensor<16x8xf32>
  %dy = mpg.input "dy" : tensor<16x4xf32>
  %w = mpg.state "w" init(zeros) : tensor<8x4xf32>
  %m = mpg.state "m" init(zeros) : tensor<8x4xf32>
  %mu = mpg.constant dense<0.9> : tensor<f32>
  %lr = mpg.constant dense<0.05> : tensor<f32>
  %g = mpg.matmul %x, %dy transpose_a : tensor<16x8xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %ms = mpg.mul %m, %mu : tensor<8x4xf32>, tensor<f32> -> tensor<8x4xf32>
  %nm = mpg.add %ms, %g : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  %step = mpg.mul %nm, %lr : tensor<8x4xf32>, tensor<f32> -> tensor<8x4xf32>
  %nw = mpg.sub %w, %step : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  mpg.state_write %m, %nm : tensor<8x4xf32>
  mpg.state_write %w, %nw : tensor<8x4xf32>
}

// -----

// A plain sum into the state (a beta of 1), the product on the add's left.
// CHECK-LABEL: mpg.graph @sum_accumulated_by_its_gemm
// CHECK: mpg.fusion gemm(%{{.+}}, %{{.+}}, %s : {{.*}}) -> tensor<8x4xf32> {
// CHECK: %[[G:.+]] = mpg.matmul
// CHECK-NEXT: %[[N:.+]] = mpg.add %[[G]], %{{.+}}
// CHECK-NEXT: mpg.yield %[[N]]
mpg.graph @sum_accumulated_by_its_gemm {
  %x = mpg.input "x" : tensor<8x16xf32>
  %dy = mpg.input "dy" : tensor<16x4xf32>
  %s = mpg.state "s" init(zeros) : tensor<8x4xf32>
  %g = mpg.matmul %x, %dy : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %ns = mpg.add %g, %s : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  mpg.state_write %s, %ns : tensor<8x4xf32>
}

// -----

// Where the update must stay apart: bf16 operands (widened by a cast
// epilogue; oneDNN's bf16 GEMMs on the CPU accumulate slowly), a product
// read twice (a loss scaler's finite check), a sum written to another state
// than the one it reads, and a product added to a value that is not state.
// Each GEMM writes its product alone.
// CHECK-LABEL: mpg.graph @accumulations_that_stay_apart
// CHECK-COUNT-4: mpg.fusion gemm(%{{[^,]+}}, %{{[^,]+}} : tensor<{{[^,]+}}>, tensor<{{[^,]+}}>) ->
// CHECK-NOT: mpg.fusion gemm
mpg.graph @accumulations_that_stay_apart {
  %x = mpg.input "x" : tensor<16x8xbf16>
  %dy = mpg.input "dy" : tensor<16x4xbf16>
  %xf = mpg.input "xf" : tensor<16x8xf32>
  %dyf = mpg.input "dyf" : tensor<16x4xf32>
  %v = mpg.input "v" : tensor<8x4xf32>
  %m1 = mpg.state "m1" init(zeros) : tensor<8x4xf32>
  %m2 = mpg.state "m2" init(zeros) : tensor<8x4xf32>
  %m3 = mpg.state "m3" init(zeros) : tensor<8x4xf32>
  %other = mpg.state "other" init(zeros) : tensor<8x4xf32>
  %mu = mpg.constant dense<0.9> : tensor<f32>
  %g1 = mpg.matmul %x, %dy transpose_a : tensor<16x8xbf16>, tensor<16x4xbf16> -> tensor<8x4xbf16>
  %w1 = mpg.cast %g1 : tensor<8x4xbf16> to tensor<8x4xf32>
  %s1 = mpg.mul %m1, %mu : tensor<8x4xf32>, tensor<f32> -> tensor<8x4xf32>
  %n1 = mpg.add %s1, %w1 : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  mpg.state_write %m1, %n1 : tensor<8x4xf32>
  %g2 = mpg.matmul %xf, %dyf transpose_a : tensor<16x8xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %s2 = mpg.mul %m2, %mu : tensor<8x4xf32>, tensor<f32> -> tensor<8x4xf32>
  %n2 = mpg.add %s2, %g2 : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  mpg.state_write %m2, %n2 : tensor<8x4xf32>
  %r2 = mpg.reduce_sum %g2 axes [0, 1] : tensor<8x4xf32> -> tensor<f32>
  mpg.output "r2" %r2 : tensor<f32>
  %g3 = mpg.matmul %xf, %dyf transpose_a : tensor<16x8xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %s3 = mpg.mul %m3, %mu : tensor<8x4xf32>, tensor<f32> -> tensor<8x4xf32>
  %n3 = mpg.add %s3, %g3 : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  mpg.state_write %other, %n3 : tensor<8x4xf32>
  %g4 = mpg.matmul %xf, %dyf transpose_a : tensor<16x8xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %n4 = mpg.add %g4, %v : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  mpg.output "n4" %n4 : tensor<8x4xf32>
}
