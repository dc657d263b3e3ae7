// RUN: rm -rf %t && split-file %s %t
// RUN: mpc-opt %t/lowering.mlir --mpg-decompose --mpg-fuse --mpg-plan-memory --convert-mpg-to-mpk -split-input-file | FileCheck %s
// RUN: mpc-opt %t/lowering.mlir --mpg-decompose --mpg-fuse --mpg-plan-memory --convert-mpg-to-mpk -split-input-file | mpc-opt -split-input-file | FileCheck %s
// RUN: mpc-opt %t/pipeline-errors.mlir --mpg-fuse --mpg-plan-memory --convert-mpg-to-mpk -split-input-file -verify-diagnostics
// RUN: mpc-opt %t/planned-errors.mlir --convert-mpg-to-mpk -split-input-file -verify-diagnostics

// Lowering of planned graphs to mpk programs, one case per fusion group kind
// and per graph-level op. Each graph goes through the whole forward pipeline
// (decompose, fuse, plan, convert); the second RUN line re-parses the
// programs (the conversion produces valid mpk). Buffer offsets come from the
// plan and are checked where they say something (views, in-place results,
// scratch). The parts after lowering.mlir hold the errors: ops without a
// kernel met on the way through the pipeline, and hand-written planned
// graphs the conversion rejects.

//--- lowering.mlir

//===----------------------------------------------------------------------===//
// Graph-level ops
//===----------------------------------------------------------------------===//

// Inputs and group results are arena buffers; parameters and the non-splat
// constant are persistent buffers, declared with their initializer (frozen
// parameters say so) and value. Outputs name buffers.
// CHECK-LABEL: mpk.program @declarations arena 512 persistent 768 {
// CHECK-NEXT: %[[X:.+]] = mpk.buffer arena 0 : memref<4xf32>
// CHECK-NEXT: mpk.input "x" %[[X]] : memref<4xf32>
// CHECK-NEXT: %[[W:.+]] = mpk.buffer persistent 0 : memref<4xf32>
// CHECK-NEXT: mpk.param "w" %[[W]] init(#mpg.init<zeros, {}>) : memref<4xf32>
// CHECK-NEXT: %[[F:.+]] = mpk.buffer persistent 256 : memref<4xf32>
// CHECK-NEXT: mpk.param "f" %[[F]] frozen init(#mpg.init<ones, {}>) : memref<4xf32>
// CHECK-NEXT: %[[C:.+]] = mpk.buffer persistent 512 : memref<4xf32>
// CHECK-NEXT: mpk.constant %[[C]] dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32> : memref<4xf32>
// CHECK-NEXT: mpk.output "x" %[[X]] : memref<4xf32>
// CHECK-NEXT: %[[Y:.+]] = mpk.buffer arena 256 : memref<4xf32>
// CHECK-NEXT: mpk.pointwise @k0 ins(%[[X]], %[[W]], %[[F]], %[[C]] : memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>) outs(%[[Y]] : memref<4xf32>)
// CHECK: mpk.output "y" %[[Y]] : memref<4xf32>
// CHECK-NEXT: }
mpg.graph @declarations {
  %x = mpg.input "x" : tensor<4xf32>
  %w = mpg.param "w" init(zeros) : tensor<4xf32>
  %f = mpg.param "f" frozen init(ones) : tensor<4xf32>
  %c = mpg.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %a = mpg.mul %x, %w : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %b = mpg.mul %f, %c : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %y = mpg.add %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  mpg.output "y" %y : tensor<4xf32>
  mpg.output "x" %x : tensor<4xf32>
}

// -----

// State is a frozen persistent param marked `state`. Nothing reads its old
// value after the group that computes the new one, so that group writes it in
// the state's own memory (a second view of it) and no copy ends the program.
// A rank-0 pointwise group iterates over [] with maps () -> (); the splat
// constant is a literal in its body.
// CHECK-DAG: #[[$MAP0:.+]] = affine_map<() -> ()>
// CHECK-LABEL: mpk.program @state_write arena 256 persistent 256 {
// CHECK-NEXT: %[[S:.+]] = mpk.buffer persistent 0 : memref<i64>
// CHECK-NEXT: mpk.param "step" %[[S]] state frozen init(#mpg.init<zeros, {}>) : memref<i64>
// CHECK: %[[N:.+]] = mpk.buffer persistent 0 : memref<i64>
// CHECK-NEXT: mpk.pointwise @k0 ins(%[[S]] : memref<i64>) outs(%[[N]] : memref<i64>) iteration [] indexing [#[[$MAP0]], #[[$MAP0]]]
// CHECK-NEXT: ^bb0(%[[A:.+]]: i64):
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1 : i64
// CHECK-NEXT: %[[R:.+]] = arith.addi %[[A]], %[[ONE]] : i64
// CHECK-NEXT: mpk.yield %[[R]] : i64
// CHECK: mpk.output "y"
// CHECK-NOT: mpk.copy
// CHECK: }
mpg.graph @state_write {
  %st = mpg.state "step" init(zeros) : tensor<i64>
  %one = mpg.constant dense<1> : tensor<i64>
  %next = mpg.add %st, %one : tensor<i64>, tensor<i64> -> tensor<i64>
  mpg.state_write %st, %next : tensor<i64>
  %x = mpg.input "x" : tensor<4xf32>
  %y = mpg.exp %x : tensor<4xf32>
  mpg.output "y" %y : tensor<4xf32>
}

// -----

// A GEMM after the update reads the state's old value: the new one goes to
// the arena and is copied into the state at the very end of the program,
// after every kernel and output.
// CHECK-LABEL: mpk.program @state_read_after_its_update
// CHECK: %[[S:.+]] = mpk.buffer persistent 0 : memref<4x4xf32>
// CHECK: %[[N:.+]] = mpk.buffer arena {{[0-9]+}} : memref<4x4xf32>
// CHECK-NEXT: mpk.pointwise @k0 ins(%[[S]] : memref<4x4xf32>) outs(%[[N]] : memref<4x4xf32>)
// CHECK-NOT: mpk.copy
// CHECK: mpk.gemm %{{.+}}, %[[S]]
// CHECK: mpk.output "y"
// CHECK-NEXT: mpk.copy %[[N]], %[[S]] : memref<4x4xf32>
// CHECK-NEXT: }
mpg.graph @state_read_after_its_update {
  %x = mpg.input "x" : tensor<4x4xf32>
  %s = mpg.state "s" init(zeros) : tensor<4x4xf32>
  %n = mpg.exp %s : tensor<4x4xf32>
  mpg.state_write %s, %n : tensor<4x4xf32>
  %y = mpg.matmul %x, %s : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  mpg.output "y" %y : tensor<4x4xf32>
}

// -----

// A reshape is a second buffer at its operand's offset, in the operand's
// memory (arena or persistent); kernels and outputs use the view.
// CHECK-LABEL: mpk.program @reshape_views
// CHECK-NEXT: %[[X:.+]] = mpk.buffer arena 0 : memref<4x8xf32>
// CHECK-NEXT: mpk.input "x" %[[X]] : memref<4x8xf32>
// CHECK-NEXT: %[[B:.+]] = mpk.buffer persistent 0 : memref<32xf32>
// CHECK-NEXT: mpk.param "b" %[[B]]
// CHECK-NEXT: %[[XV:.+]] = mpk.buffer arena 0 : memref<32xf32>
// CHECK-NEXT: %[[BV:.+]] = mpk.buffer persistent 0 : memref<4x8xf32>
// CHECK-NEXT: mpk.output "s" %[[BV]] : memref<4x8xf32>
// CHECK-NEXT: %[[Y:.+]] = mpk.buffer arena 256 : memref<32xf32>
// CHECK-NEXT: mpk.pointwise @k0 ins(%[[XV]], %[[B]] : memref<32xf32>, memref<32xf32>) outs(%[[Y]] : memref<32xf32>)
// CHECK: %[[YV:.+]] = mpk.buffer arena 256 : memref<8x4xf32>
// CHECK-NEXT: mpk.output "z" %[[YV]] : memref<8x4xf32>
mpg.graph @reshape_views {
  %x = mpg.input "x" : tensor<4x8xf32>
  %b = mpg.param "b" init(zeros) : tensor<32xf32>
  %r = mpg.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %s = mpg.reshape %b : tensor<32xf32> -> tensor<4x8xf32>
  %y = mpg.add %r, %b : tensor<32xf32>, tensor<32xf32> -> tensor<32xf32>
  %z = mpg.reshape %y : tensor<32xf32> -> tensor<8x4xf32>
  mpg.output "z" %z : tensor<8x4xf32>
  mpg.output "s" %s : tensor<4x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Pointwise groups
//===----------------------------------------------------------------------===//

// Broadcast operands are indexing maps over the [4, 8] iteration space: the
// [8] bias reads d1, the [4, 1] column reads (d0, 0), the rank-0 scalar ().
// The result is written in place of x.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$COL:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[$SCALAR:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: mpk.program @pointwise_broadcast
// CHECK: %[[X:.+]] = mpk.buffer arena 0 : memref<4x8xf32>
// CHECK: %[[B:.+]] = mpk.buffer persistent 0 : memref<8xf32>
// CHECK: %[[C:.+]] = mpk.buffer arena {{[0-9]+}} : memref<4x1xf32>
// CHECK: %[[S:.+]] = mpk.buffer arena {{[0-9]+}} : memref<f32>
// CHECK: %[[Y:.+]] = mpk.buffer arena 0 : memref<4x8xf32>
// CHECK-NEXT: mpk.pointwise @k0 ins(%[[X]], %[[B]], %[[C]], %[[S]] : memref<4x8xf32>, memref<8xf32>, memref<4x1xf32>, memref<f32>) outs(%[[Y]] : memref<4x8xf32>)
// CHECK-SAME: iteration [4, 8] indexing [#[[$ID]], #[[$ROW]], #[[$COL]], #[[$SCALAR]], #[[$ID]]]
// CHECK-NEXT: ^bb0(%[[A0:.+]]: f32, %[[A1:.+]]: f32, %[[A2:.+]]: f32, %[[A3:.+]]: f32):
// CHECK-NEXT: %[[ADD:.+]] = arith.addf %[[A0]], %[[A1]] : f32
// CHECK-NEXT: %[[MUL:.+]] = arith.mulf %[[ADD]], %[[A2]] : f32
// CHECK-NEXT: %[[SUB:.+]] = arith.subf %[[MUL]], %[[A3]] : f32
// CHECK-NEXT: mpk.yield %[[SUB]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: mpk.output "y" %[[Y]] : memref<4x8xf32>
mpg.graph @pointwise_broadcast {
  %x = mpg.input "x" : tensor<4x8xf32>
  %b = mpg.param "b" init(zeros) : tensor<8xf32>
  %c = mpg.input "c" : tensor<4x1xf32>
  %s = mpg.input "s" : tensor<f32>
  %0 = mpg.add %x, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %1 = mpg.mul %0, %c : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %2 = mpg.sub %1, %s : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  mpg.output "y" %2 : tensor<4x8xf32>
}

// -----

// A size-1 dimension of the iteration space itself is indexed by its
// dimension, not by 0; a [1, 8] operand of a [4, 8] space reads (0, d1).
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: mpk.program @pointwise_size_one_dims
// CHECK: mpk.pointwise @k0 ins(%{{.+}}, %{{.+}} : memref<1x8xf32>, memref<1x8xf32>) outs(%{{.+}} : memref<1x8xf32>) iteration [1, 8] indexing [#[[$ID]], #[[$ID]], #[[$ID]]]
// CHECK: mpk.pointwise @k1 ins(%{{.+}}, %{{.+}} : memref<4x8xf32>, memref<1x8xf32>) outs(%{{.+}} : memref<4x8xf32>) iteration [4, 8] indexing [#[[$ID]], #[[$ROW]], #[[$ID]]]
mpg.graph @pointwise_size_one_dims {
  %a = mpg.input "a" : tensor<1x8xf32>
  %b = mpg.input "b" : tensor<1x8xf32>
  %x = mpg.input "x" : tensor<4x8xf32>
  %s = mpg.add %a, %b : tensor<1x8xf32>, tensor<1x8xf32> -> tensor<1x8xf32>
  %y = mpg.mul %x, %s : tensor<4x8xf32>, tensor<1x8xf32> -> tensor<4x8xf32>
  mpg.output "s" %s : tensor<1x8xf32>
  mpg.output "y" %y : tensor<4x8xf32>
}

// -----

// Arithmetic and math ops map one to one onto arith/math.
// CHECK-LABEL: mpk.program @scalar_arith
// CHECK: mpk.pointwise @k0
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32):
// CHECK-NEXT: %[[DIV:.+]] = arith.divf %[[X]], %[[Y]] : f32
// CHECK-NEXT: %[[POW:.+]] = math.powf %[[DIV]], %[[Y]] : f32
// CHECK-NEXT: %[[ABS:.+]] = math.absf %[[POW]] : f32
// CHECK-NEXT: %[[LOG:.+]] = math.log %[[ABS]] : f32
// CHECK-NEXT: %[[SQRT:.+]] = math.sqrt %[[LOG]] : f32
// CHECK-NEXT: %[[RSQRT:.+]] = math.rsqrt %[[SQRT]] : f32
// CHECK-NEXT: %[[TANH:.+]] = math.tanh %[[RSQRT]] : f32
// CHECK-NEXT: %[[NEG:.+]] = arith.negf %[[TANH]] : f32
// CHECK-NEXT: %[[EXP:.+]] = math.exp %[[NEG]] : f32
// CHECK-NEXT: %[[MAX:.+]] = arith.maximumf %[[EXP]], %[[X]] : f32
// CHECK-NEXT: %[[MIN:.+]] = arith.minimumf %[[MAX]], %[[Y]] : f32
// CHECK-NEXT: mpk.yield %[[MIN]] : f32
// CHECK-NEXT: }
mpg.graph @scalar_arith {
  %x = mpg.input "x" : tensor<4x8xf32>
  %y = mpg.input "y" : tensor<4x8xf32>
  %0 = mpg.div %x, %y : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = mpg.pow %0, %y : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = mpg.abs %1 : tensor<4x8xf32>
  %3 = mpg.log %2 : tensor<4x8xf32>
  %4 = mpg.sqrt %3 : tensor<4x8xf32>
  %5 = mpg.rsqrt %4 : tensor<4x8xf32>
  %6 = mpg.tanh %5 : tensor<4x8xf32>
  %7 = mpg.neg %6 : tensor<4x8xf32>
  %8 = mpg.exp %7 : tensor<4x8xf32>
  %9 = mpg.maximum %8, %x : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %10 = mpg.minimum %9, %y : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  mpg.output "z" %10 : tensor<4x8xf32>
}

// -----

// relu is max(x, 0); sigmoid is 1 / (1 + exp(-x)); leaky_relu selects x or
// alpha * x on x > 0.
// CHECK-LABEL: mpk.program @scalar_activations
// CHECK: mpk.pointwise @k0
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32):
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[RELU:.+]] = arith.maximumf %[[X]], %[[ZERO]] : f32
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[NEG:.+]] = arith.negf %[[RELU]] : f32
// CHECK-NEXT: %[[EXP:.+]] = math.exp %[[NEG]] : f32
// CHECK-NEXT: %[[DEN:.+]] = arith.addf %[[ONE]], %[[EXP]] : f32
// CHECK-NEXT: %[[SIG:.+]] = arith.divf %[[ONE]], %[[DEN]] : f32
// CHECK-NEXT: %[[ZERO2:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[POS:.+]] = arith.cmpf ogt, %[[SIG]], %[[ZERO2]] : f32
// CHECK-NEXT: %[[ALPHA:.+]] = arith.constant 2.000000e-01 : f32
// CHECK-NEXT: %[[SCALED:.+]] = arith.mulf %[[SIG]], %[[ALPHA]] : f32
// CHECK-NEXT: %[[LEAKY:.+]] = arith.select %[[POS]], %[[SIG]], %[[SCALED]] : f32
// CHECK-NEXT: mpk.yield %[[LEAKY]] : f32
// CHECK-NEXT: }
mpg.graph @scalar_activations {
  %x = mpg.input "x" : tensor<4x8xf32>
  %0 = mpg.relu %x : tensor<4x8xf32>
  %1 = mpg.sigmoid %0 : tensor<4x8xf32>
  %2 = mpg.leaky_relu %1 alpha 0.2 : tensor<4x8xf32>
  mpg.output "y" %2 : tensor<4x8xf32>
}

// -----

// Exact GELU: x * 0.5 * (1 + erf(x / sqrt(2))).
// CHECK-LABEL: mpk.program @scalar_gelu_exact
// CHECK: mpk.pointwise @k0
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32):
// CHECK-NEXT: %[[RSQRT2:.+]] = arith.constant 0.707106769 : f32
// CHECK-NEXT: %[[XS:.+]] = arith.mulf %[[X]], %[[RSQRT2]] : f32
// CHECK-NEXT: %[[ERF:.+]] = math.erf %[[XS]] : f32
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[ONE]], %[[ERF]] : f32
// CHECK-NEXT: %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[CDF:.+]] = arith.mulf %[[SUM]], %[[HALF]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.mulf %[[X]], %[[CDF]] : f32
// CHECK-NEXT: mpk.yield %[[R]] : f32
// CHECK-NEXT: }
mpg.graph @scalar_gelu_exact {
  %x = mpg.input "x" : tensor<4x8xf32>
  %y = mpg.gelu %x : tensor<4x8xf32>
  mpg.output "y" %y : tensor<4x8xf32>
}

// -----

// Tanh GELU: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
// CHECK-LABEL: mpk.program @scalar_gelu_tanh
// CHECK: mpk.pointwise @k0
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32):
// CHECK-NEXT: %[[X2:.+]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK-NEXT: %[[X3:.+]] = arith.mulf %[[X2]], %[[X]] : f32
// CHECK-NEXT: %[[C:.+]] = arith.constant 4.471500e-02 : f32
// CHECK-NEXT: %[[CX3:.+]] = arith.mulf %[[X3]], %[[C]] : f32
// CHECK-NEXT: %[[INNER:.+]] = arith.addf %[[X]], %[[CX3]] : f32
// CHECK-NEXT: %[[K:.+]] = arith.constant 0.797884583 : f32
// CHECK-NEXT: %[[ARG:.+]] = arith.mulf %[[INNER]], %[[K]] : f32
// CHECK-NEXT: %[[T:.+]] = math.tanh %[[ARG]] : f32
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[ONEPT:.+]] = arith.addf %[[ONE]], %[[T]] : f32
// CHECK-NEXT: %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[HX:.+]] = arith.mulf %[[X]], %[[HALF]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.mulf %[[HX]], %[[ONEPT]] : f32
// CHECK-NEXT: mpk.yield %[[R]] : f32
// CHECK-NEXT: }
mpg.graph @scalar_gelu_tanh {
  %x = mpg.input "x" : tensor<4x8xf32>
  %y = mpg.gelu %x approximate : tensor<4x8xf32>
  mpg.output "y" %y : tensor<4x8xf32>
}

// -----

// Values are f32 in registers whatever their storage: a bf16 buffer is
// loaded as f32, a cast to f32 is free, a cast to f16 rounds (truncf, then
// extf back to f32) and the store rounds once to the buffer's type.
// CHECK-LABEL: mpk.program @scalar_casts
// CHECK: mpk.pointwise @k0 ins(%{{.+}} : memref<4x8xbf16>) outs(%{{.+}} : memref<4x8xf16>)
// CHECK-NEXT: ^bb0(%[[B:.+]]: f32):
// CHECK-NEXT: %[[E:.+]] = math.exp %[[B]] : f32
// CHECK-NEXT: %[[T:.+]] = arith.truncf %[[E]] : f32 to f16
// CHECK-NEXT: %[[H:.+]] = arith.extf %[[T]] : f16 to f32
// CHECK-NEXT: mpk.yield %[[H]] : f32
// CHECK-NEXT: }
mpg.graph @scalar_casts {
  %b = mpg.input "b" : tensor<4x8xbf16>
  %e = mpg.exp %b : tensor<4x8xbf16>
  %f = mpg.cast %e : tensor<4x8xbf16> to tensor<4x8xf32>
  %h = mpg.cast %f : tensor<4x8xf32> to tensor<4x8xf16>
  mpg.output "h" %h : tensor<4x8xf16>
}

// -----

// Integers stay integers (addi, subi from 0 for neg, maxsi, cmpi, sitofp);
// float compare is cmpf (ne is unordered: true for NaN); select is
// arith.select. The integer group's i1 result is an output and its f32
// one feeds the select, so the select's group absorbs it: one kernel with
// two results, an i1 and an f32.
// CHECK-LABEL: mpk.program @scalar_int_and_compare
// CHECK: mpk.pointwise @k0 ins(%{{.+}}, %{{.+}}, %{{.+}} : memref<8xi32>, memref<8xi32>, memref<8xf16>) outs(%{{.+}}, %{{.+}} : memref<8xi1>, memref<8xf32>)
// CHECK-NEXT: ^bb0(%[[I:.+]]: i32, %[[J:.+]]: i32, %[[X:.+]]: f32):
// CHECK-NEXT: %[[ADD:.+]] = arith.addi %[[I]], %[[J]] : i32
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK-NEXT: %[[NEG:.+]] = arith.subi %[[ZERO]], %[[ADD]] : i32
// CHECK-NEXT: %[[MAX:.+]] = arith.maxsi %[[NEG]], %[[J]] : i32
// CHECK-NEXT: %[[LT:.+]] = arith.cmpi slt, %[[MAX]], %[[I]] : i32
// CHECK-NEXT: %[[F:.+]] = arith.sitofp %[[MAX]] : i32 to f32
// CHECK-NEXT: %[[NE:.+]] = arith.cmpf une, %[[X]], %[[X]] : f32
// CHECK-NEXT: %[[SEL:.+]] = arith.select %[[NE]], %[[F]], %[[X]] : f32
// CHECK-NEXT: mpk.yield %[[LT]], %[[SEL]] : i1, f32
// CHECK-NEXT: }
// CHECK-NOT: mpk.pointwise
// CHECK: mpk.output "c"
mpg.graph @scalar_int_and_compare {
  %i = mpg.input "i" : tensor<8xi32>
  %j = mpg.input "j" : tensor<8xi32>
  %a = mpg.add %i, %j : tensor<8xi32>, tensor<8xi32> -> tensor<8xi32>
  %n = mpg.neg %a : tensor<8xi32>
  %m = mpg.maximum %n, %j : tensor<8xi32>, tensor<8xi32> -> tensor<8xi32>
  %c = mpg.compare lt, %m, %i : tensor<8xi32>, tensor<8xi32> -> tensor<8xi1>
  %f = mpg.cast %m : tensor<8xi32> to tensor<8xf32>
  %x = mpg.input "x" : tensor<8xf16>
  %d = mpg.compare ne, %x, %x : tensor<8xf16>, tensor<8xf16> -> tensor<8xi1>
  %h = mpg.cast %x : tensor<8xf16> to tensor<8xf32>
  %s = mpg.select %d, %f, %h : tensor<8xi1>, tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  mpg.output "c" %c : tensor<8xi1>
  mpg.output "s" %s : tensor<8xf32>
}

// -----

// unscale divides an f16 gradient by the f32 scale, scale multiplies.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$SCALAR:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: mpk.program @scalar_scale
// CHECK: mpk.pointwise @k0 ins(%{{.+}}, %{{.+}} : memref<4x8xf16>, memref<f32>) outs(%{{.+}} : memref<4x8xf16>) iteration [4, 8] indexing [#[[$ID]], #[[$SCALAR]], #[[$ID]]]
// CHECK-NEXT: ^bb0(%[[G:.+]]: f32, %[[S:.+]]: f32):
// CHECK-NEXT: %[[U:.+]] = arith.divf %[[G]], %[[S]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.mulf %[[U]], %[[S]] : f32
// CHECK-NEXT: mpk.yield %[[R]] : f32
// CHECK-NEXT: }
mpg.graph @scalar_scale {
  %g = mpg.input "g" : tensor<4x8xf16>
  %s = mpg.input "s" : tensor<f32>
  %a = mpg.unscale %g, %s : tensor<4x8xf16>, tensor<f32> -> tensor<4x8xf32>
  %b = mpg.scale %a, %s : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf16>
  mpg.output "b" %b : tensor<4x8xf16>
}

// -----

//===----------------------------------------------------------------------===//
// Reduction groups
//===----------------------------------------------------------------------===//

// The prologue (exp) runs per input element over [4, 8]; the epilogue gets
// the row sum and the epilogue input v, indexed over the output space [4].
// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: mpk.program @reduce_prologue_epilogue
// CHECK: %[[X:.+]] = mpk.buffer arena {{[0-9]+}} : memref<4x8xf32>
// CHECK: %[[V:.+]] = mpk.buffer arena {{[0-9]+}} : memref<4xf32>
// CHECK: %[[Y:.+]] = mpk.buffer arena {{[0-9]+}} : memref<4xf32>
// CHECK-NEXT: mpk.reduce @k0 sum ins(%[[X]] : memref<4x8xf32>) epilogue_ins(%[[V]] : memref<4xf32>) outs(%[[Y]] : memref<4xf32>)
// CHECK-SAME: iteration [4, 8] reduction_dims [1] indexing [#[[$ID2]], #[[$ID1]], #[[$ID1]]]
// CHECK-NEXT: ^bb0(%[[P:.+]]: f32):
// CHECK-NEXT: %[[E:.+]] = math.exp %[[P]] : f32
// CHECK-NEXT: mpk.yield %[[E]] : f32
// CHECK-NEXT: } epilogue {
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: f32, %[[VV:.+]]: f32):
// CHECK-NEXT: %[[THREE:.+]] = arith.constant 3.000000e+00 : f32
// CHECK-NEXT: %[[M:.+]] = arith.mulf %[[ACC]], %[[THREE]] : f32
// CHECK-NEXT: %[[D:.+]] = arith.divf %[[M]], %[[VV]] : f32
// CHECK-NEXT: mpk.yield %[[D]] : f32
// CHECK-NEXT: }
mpg.graph @reduce_prologue_epilogue {
  %x = mpg.input "x" : tensor<4x8xf32>
  %v = mpg.input "v" : tensor<4xf32>
  %e = mpg.exp %x : tensor<4x8xf32>
  %s = mpg.reduce_sum %e axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %three = mpg.constant dense<3.0> : tensor<f32>
  %t = mpg.mul %s, %three : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %y = mpg.div %t, %v : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  mpg.output "y" %y : tensor<4xf32>
}

// -----

// A mean is a sum scaled by 1 / count (here 1 / (2 * 4)) in the epilogue.
// With keepdim the output keeps its size-1 dimensions, indexed by 0: the
// output space is [3], the output [1, 3, 1] is read at (0, d0, 0) and the
// [3, 1] epilogue input at (d0, 0). f16 elements accumulate in f32.
// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$EPI:.+]] = affine_map<(d0) -> (d0, 0)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0) -> (0, d0, 0)>
// CHECK-LABEL: mpk.program @reduce_mean_keepdim
// CHECK: mpk.reduce @k0 sum ins(%{{.+}} : memref<2x3x4xf16>) epilogue_ins(%{{.+}} : memref<3x1xf32>) outs(%{{.+}} : memref<1x3x1xf32>)
// CHECK-SAME: iteration [2, 3, 4] reduction_dims [0, 2] indexing [#[[$ID3]], #[[$EPI]], #[[$OUT]]]
// CHECK-NEXT: ^bb0(%[[P:.+]]: f32):
// CHECK-NEXT: %[[E:.+]] = math.exp %[[P]] : f32
// CHECK-NEXT: mpk.yield %[[E]] : f32
// CHECK-NEXT: } epilogue {
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: f32, %[[G:.+]]: f32):
// CHECK-NEXT: %[[SCALE:.+]] = arith.constant 1.250000e-01 : f32
// CHECK-NEXT: %[[MEAN:.+]] = arith.mulf %[[ACC]], %[[SCALE]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.mulf %[[MEAN]], %[[G]] : f32
// CHECK-NEXT: mpk.yield %[[R]] : f32
// CHECK-NEXT: }
mpg.graph @reduce_mean_keepdim {
  %x = mpg.input "x" : tensor<2x3x4xf16>
  %g = mpg.param "g" init(ones) : tensor<3x1xf32>
  %e = mpg.exp %x : tensor<2x3x4xf16>
  %m = mpg.reduce_mean %e axes [0, 2] keepdim : tensor<2x3x4xf16> -> tensor<1x3x1xf32>
  %y = mpg.mul %m, %g : tensor<1x3x1xf32>, tensor<3x1xf32> -> tensor<1x3x1xf32>
  mpg.output "y" %y : tensor<1x3x1xf32>
}

// -----

// reduce_max over a middle axis without keepdim: output space [2, 4]. The
// max itself and an epilogue value of it are both outputs; the [4]
// epilogue input broadcasts along the output space's last dimension.
// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: mpk.program @reduce_max_two_outputs
// CHECK: mpk.reduce @k0 max ins(%{{.+}} : memref<2x3x4xf32>) epilogue_ins(%{{.+}} : memref<4xf32>) outs(%[[M:.+]], %[[Y:.+]] : memref<2x4xf32>, memref<2x4xf32>)
// CHECK-SAME: iteration [2, 3, 4] reduction_dims [1] indexing [#[[$ID3]], #[[$ROW]], #[[$OUT]], #[[$OUT]]]
// CHECK-NEXT: ^bb0(%[[P:.+]]: f32):
// CHECK-NEXT: mpk.yield %[[P]] : f32
// CHECK-NEXT: } epilogue {
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: f32, %[[V:.+]]: f32):
// CHECK-NEXT: %[[D:.+]] = arith.subf %[[ACC]], %[[V]] : f32
// CHECK-NEXT: mpk.yield %[[ACC]], %[[D]] : f32, f32
// CHECK-NEXT: }
// CHECK-NEXT: mpk.output "m" %[[M]]
// CHECK-NEXT: mpk.output "y" %[[Y]]
mpg.graph @reduce_max_two_outputs {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  %v = mpg.input "v" : tensor<4xf32>
  %m = mpg.reduce_max %x axes [1] : tensor<2x3x4xf32> -> tensor<2x4xf32>
  %y = mpg.sub %m, %v : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  mpg.output "m" %m : tensor<2x4xf32>
  mpg.output "y" %y : tensor<2x4xf32>
}

// -----

// Integer reductions accumulate in their own type; a reduction over the
// first axis has the last iteration dimension as its output space.
// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$KEEP:.+]] = affine_map<(d0) -> (d0, 0)>
// CHECK-LABEL: mpk.program @reduce_int
// CHECK: mpk.reduce @k0 sum ins(%{{.+}} : memref<4x8xi32>) epilogue_ins() outs(%{{.+}} : memref<8xi32>)
// CHECK-SAME: iteration [4, 8] reduction_dims [0] indexing [#[[$ID2]], #[[$ID1]]]
// CHECK-NEXT: ^bb0(%[[P:.+]]: i32):
// CHECK-NEXT: mpk.yield %[[P]] : i32
// CHECK-NEXT: } epilogue {
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: i32):
// CHECK-NEXT: mpk.yield %[[ACC]] : i32
// CHECK-NEXT: }
// CHECK: mpk.reduce @k1 max ins(%{{.+}} : memref<4x8xi32>) epilogue_ins() outs(%{{.+}} : memref<4x1xi32>)
// CHECK-SAME: iteration [4, 8] reduction_dims [1] indexing [#[[$ID2]], #[[$KEEP]]]
mpg.graph @reduce_int {
  %x = mpg.input "x" : tensor<4x8xi32>
  %s = mpg.reduce_sum %x axes [0] : tensor<4x8xi32> -> tensor<8xi32>
  %m = mpg.reduce_max %x axes [1] keepdim : tensor<4x8xi32> -> tensor<4x1xi32>
  mpg.output "s" %s : tensor<8xi32>
  mpg.output "m" %m : tensor<4x1xi32>
}

// -----

// mse_loss, decomposed, is a mean over all axes with a two-input prologue and
// a rank-0 output (map to ()); the loss of mpg.minimize is the output "loss".
// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$NONE:.+]] = affine_map<() -> ()>
// CHECK-LABEL: mpk.program @mse_minimize
// CHECK: %[[P:.+]] = mpk.buffer arena {{[0-9]+}} : memref<8x4xf32>
// CHECK-NEXT: mpk.input "p" %[[P]]
// CHECK-NEXT: %[[T:.+]] = mpk.buffer arena {{[0-9]+}} : memref<8x4xf32>
// CHECK-NEXT: mpk.input "t" %[[T]]
// CHECK-NEXT: %[[L:.+]] = mpk.buffer arena {{[0-9]+}} : memref<f32>
// CHECK-NEXT: mpk.reduce @k0 sum ins(%[[P]], %[[T]] : memref<8x4xf32>, memref<8x4xf32>) epilogue_ins() outs(%[[L]] : memref<f32>)
// CHECK-SAME: iteration [8, 4] reduction_dims [0, 1] indexing [#[[$ID2]], #[[$ID2]], #[[$NONE]]]
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32):
// CHECK-NEXT: %[[D:.+]] = arith.subf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[SQ:.+]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK-NEXT: mpk.yield %[[SQ]] : f32
// CHECK-NEXT: } epilogue {
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: f32):
// CHECK-NEXT: %[[SCALE:.+]] = arith.constant 3.125000e-02 : f32
// CHECK-NEXT: %[[MEAN:.+]] = arith.mulf %[[ACC]], %[[SCALE]] : f32
// CHECK-NEXT: mpk.yield %[[MEAN]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: mpk.output "loss" %[[L]] : memref<f32>
mpg.graph @mse_minimize {
  %p = mpg.input "p" : tensor<8x4xf32>
  %t = mpg.input "t" : tensor<8x4xf32>
  %l = mpg.mse_loss %p, %t : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.1) : tensor<f32>
}

// -----

//===----------------------------------------------------------------------===//
// Row groups
//===----------------------------------------------------------------------===//

// softmax along the middle axis of [2, 5, 3]: 2 * 3 rows of 5 elements, 3
// apart. log_softmax along the last axis: 10 contiguous rows of 3.
// layer_norm from axis 1 normalises the 15 trailing elements of 2 rows.
// CHECK-LABEL: mpk.program @rows
// CHECK: %[[X:.+]] = mpk.buffer arena {{[0-9]+}} : memref<2x5x3xf32>
// CHECK: %[[G:.+]] = mpk.buffer persistent 0 : memref<5x3xf32>
// CHECK: %[[B:.+]] = mpk.buffer persistent 256 : memref<5x3xf32>
// CHECK: %[[S:.+]] = mpk.buffer arena {{[0-9]+}} : memref<2x5x3xf32>
// CHECK-NEXT: mpk.softmax @k0 %[[X]] -> %[[S]] outer 2 cols 5 inner 3
// CHECK-NOT: log
// CHECK-SAME: : memref<2x5x3xf32>, memref<2x5x3xf32>
// CHECK-NEXT: %[[L:.+]] = mpk.buffer arena {{[0-9]+}} : memref<2x5x3xf32>
// CHECK-NEXT: mpk.softmax @k1 %[[X]] -> %[[L]] outer 10 cols 3 inner 1 log
// CHECK-SAME: : memref<2x5x3xf32>, memref<2x5x3xf32>
// CHECK-NEXT: %[[N:.+]] = mpk.buffer arena {{[0-9]+}} : memref<2x5x3xf32>
// CHECK-NEXT: mpk.layer_norm @k2 %[[X]], %[[G]], %[[B]] -> %[[N]] rows 2 cols 15 eps 1.000000e-03
// CHECK-SAME: : memref<2x5x3xf32>, memref<5x3xf32>, memref<5x3xf32>, memref<2x5x3xf32>
mpg.graph @rows {
  %x = mpg.input "x" : tensor<2x5x3xf32>
  %g = mpg.param "g" init(ones) : tensor<5x3xf32>
  %b = mpg.param "b" init(zeros) : tensor<5x3xf32>
  %s = mpg.softmax %x axis 1 : tensor<2x5x3xf32> -> tensor<2x5x3xf32>
  %l = mpg.log_softmax %x : tensor<2x5x3xf32> -> tensor<2x5x3xf32>
  %n = mpg.layer_norm %x, %g, %b axis 1 eps 1.0e-3 : tensor<2x5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32> -> tensor<2x5x3xf32>
  mpg.output "s" %s : tensor<2x5x3xf32>
  mpg.output "l" %l : tensor<2x5x3xf32>
  mpg.output "n" %n : tensor<2x5x3xf32>
}

// -----

// A [4, 16, 64] layer_norm over the last axis (default eps): 64 rows of 64;
// an f16 softmax with an f32 result over the first axis: no outer dimension.
// CHECK-LABEL: mpk.program @rows_defaults
// CHECK: mpk.layer_norm @k0 %{{.+}}, %{{.+}}, %{{.+}} -> %{{.+}} rows 64 cols 64 eps 1.000000e-05
// CHECK: mpk.softmax @k1 %{{.+}} -> %{{.+}} outer 1 cols 4 inner 1024
// CHECK-SAME: : memref<4x16x64xf16>, memref<4x16x64xf32>
mpg.graph @rows_defaults {
  %x = mpg.input "x" : tensor<4x16x64xf32>
  %h = mpg.input "h" : tensor<4x16x64xf16>
  %g = mpg.param "g" init(ones) : tensor<64xf32>
  %b = mpg.param "b" init(zeros) : tensor<64xf32>
  %n = mpg.layer_norm %x, %g, %b : tensor<4x16x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<4x16x64xf32>
  %s = mpg.softmax %h axis 0 : tensor<4x16x64xf16> -> tensor<4x16x64xf32>
  mpg.output "n" %n : tensor<4x16x64xf32>
  mpg.output "s" %s : tensor<4x16x64xf32>
}

// -----

// softmax_cross_entropy: per-row losses (f32 for f16 logits) into the
// group's scratch buffer, then their mean (1 / 8) into the loss.
// CHECK-DAG: #[[$ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$NONE:.+]] = affine_map<() -> ()>
// CHECK-LABEL: mpk.program @cross_entropy arena 1024 persistent 0 {
// CHECK: %[[X:.+]] = mpk.buffer arena 0 : memref<8x10xf16>
// CHECK: %[[Y:.+]] = mpk.buffer arena 256 : memref<8xi32>
// CHECK: %[[L:.+]] = mpk.buffer arena 512 : memref<f32>
// CHECK-NEXT: %[[R:.+]] = mpk.buffer arena 768 : memref<8xf32>
// CHECK-NEXT: mpk.cross_entropy @k0 %[[X]], %[[Y]] -> %[[R]] rows 8 cols 10
// CHECK-SAME: : memref<8x10xf16>, memref<8xi32>, memref<8xf32>
// CHECK-NEXT: mpk.reduce @k1 sum ins(%[[R]] : memref<8xf32>) epilogue_ins() outs(%[[L]] : memref<f32>)
// CHECK-SAME: iteration [8] reduction_dims [0] indexing [#[[$ID1]], #[[$NONE]]]
// CHECK-NEXT: ^bb0(%[[P:.+]]: f32):
// CHECK-NEXT: mpk.yield %[[P]] : f32
// CHECK-NEXT: } epilogue {
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: f32):
// CHECK-NEXT: %[[SCALE:.+]] = arith.constant 1.250000e-01 : f32
// CHECK-NEXT: %[[MEAN:.+]] = arith.mulf %[[ACC]], %[[SCALE]] : f32
// CHECK-NEXT: mpk.yield %[[MEAN]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: mpk.output "loss" %[[L]] : memref<f32>
mpg.graph @cross_entropy {
  %x = mpg.input "x" : tensor<8x10xf16>
  %y = mpg.input "y" : tensor<8xi32>
  %l = mpg.softmax_cross_entropy %x, %y : tensor<8x10xf16>, tensor<8xi32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.1) : tensor<f32>
}

// -----

//===----------------------------------------------------------------------===//
// GEMM groups
//===----------------------------------------------------------------------===//

// Bias (added on either side) and relu: one GEMM with the bias_relu
// epilogue. cuBLASLt adds a bias of the result's type only, so the cast to
// f16 after the f32 bias is a pointwise kernel of its own.
// CHECK-LABEL: mpk.program @gemm_bias_relu_cast
// CHECK: %[[X:.+]] = mpk.buffer arena {{[0-9]+}} : memref<4x8xf32>
// CHECK: %[[W:.+]] = mpk.buffer persistent {{[0-9]+}} : memref<8x16xf32>
// CHECK: %[[B:.+]] = mpk.buffer persistent {{[0-9]+}} : memref<16xf32>
// CHECK: %[[Y:.+]] = mpk.buffer arena {{[0-9]+}} : memref<4x16xf32>
// CHECK-NEXT: mpk.gemm %[[X]], %[[W]] -> %[[Y]] bias %[[B]] m 4 n 16 k 8 epilogue bias_relu
// CHECK-NOT: batch
// CHECK-SAME: : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>, memref<16xf32>
// CHECK: %[[C:.+]] = mpk.buffer arena {{[0-9]+}} : memref<4x16xf16>
// CHECK-NEXT: mpk.pointwise @{{.+}} ins(%[[Y]] : memref<4x16xf32>) outs(%[[C]] : memref<4x16xf16>)
// CHECK-SAME: mpk.fused = ["mpg.cast"]
// CHECK: mpk.output "c" %[[C]]
mpg.graph @gemm_bias_relu_cast {
  %x = mpg.input "x" : tensor<4x8xf32>
  %w = mpg.param "w" init(zeros) : tensor<8x16xf32>
  %b = mpg.param "b" init(zeros) : tensor<16xf32>
  %y = mpg.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %z = mpg.add %b, %y : tensor<16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  %r = mpg.relu %z : tensor<4x16xf32>
  %c = mpg.cast %r : tensor<4x16xf32> to tensor<4x16xf16>
  mpg.output "c" %c : tensor<4x16xf16>
}

// -----

// m, n and k come from the transposed operands (A stored 8x4, B 16x8); the
// tanh GELU is cuBLASLt's gelu epilogue.
// CHECK-LABEL: mpk.program @gemm_transposed_gelu
// CHECK: mpk.gemm %{{.+}}, %{{.+}} -> %{{.+}} m 4 n 16 k 8 epilogue gelu
// CHECK-SAME: transpose_a
// CHECK-SAME: transpose_b
// CHECK-SAME: : memref<8x4xf16>, memref<16x8xf16>, memref<4x16xf32>
mpg.graph @gemm_transposed_gelu {
  %x = mpg.input "x" : tensor<8x4xf16>
  %w = mpg.param "w" init(zeros) : tensor<16x8xf16>
  %y = mpg.matmul %x, %w transpose_a transpose_b : tensor<8x4xf16>, tensor<16x8xf16> -> tensor<4x16xf32>
  %r = mpg.gelu %y approximate : tensor<4x16xf32>
  mpg.output "y" %r : tensor<4x16xf32>
}

// -----

// The exact GELU is no cuBLASLt epilogue: a plain GEMM, then a pointwise
// kernel (writing in place of the GEMM's result).
// CHECK-LABEL: mpk.program @gemm_then_gelu_exact
// CHECK: %[[Y:.+]] = mpk.buffer arena 256 : memref<4x16xf32>
// CHECK-NEXT: mpk.gemm %{{.+}}, %{{.+}} -> %[[Y]] m 4 n 16 k 8
// CHECK-NOT: epilogue
// CHECK-SAME: : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>
// CHECK-NEXT: %[[G:.+]] = mpk.buffer arena 256 : memref<4x16xf32>
// CHECK-NEXT: mpk.pointwise @k0 ins(%[[Y]] : memref<4x16xf32>) outs(%[[G]] : memref<4x16xf32>)
// CHECK: math.erf
mpg.graph @gemm_then_gelu_exact {
  %x = mpg.input "x" : tensor<4x8xf32>
  %w = mpg.param "w" init(zeros) : tensor<8x16xf32>
  %y = mpg.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %r = mpg.gelu %y : tensor<4x16xf32>
  mpg.output "y" %r : tensor<4x16xf32>
}

// -----

// A weight gradient's GEMM accumulating into the momentum (mpg-fuse's
// accumulate epilogue), written in the momentum's own memory: one GEMM with
// beta into it, no copy; the parameter's update reads the new momentum
// there.
// CHECK-LABEL: mpk.program @gemm_accumulates_into_state
// CHECK: %[[M:.+]] = mpk.buffer persistent [[MOFF:[0-9]+]] : memref<8x4xf32>
// CHECK: mpk.param "m"
// CHECK-NOT: mpk.copy
// CHECK: %[[C:.+]] = mpk.buffer persistent [[MOFF]] : memref<8x4xf32>
// CHECK-NEXT: mpk.gemm %{{.+}}, %{{.+}} -> %[[C]] m 8 n 4 k 16 beta 0.89999997615814208 {mpk.fused = ["mpg.matmul", "mpg.mul", "mpg.add"], transpose_a}
// CHECK-NEXT: mpk.buffer persistent
// CHECK-NEXT: mpk.pointwise @{{.+}} ins(%{{.+}}, %[[C]] : memref<8x4xf32>, memref<8x4xf32>)
// CHECK-NOT: mpk.copy
mpg.graph @gemm_accumulates_into_state {
  %x = mpg.input "x" : tensor<16x8xf32>
  %dy = mpg.input "dy" : tensor<16x4xf32>
  %m = mpg.state "m" init(zeros) : tensor<8x4xf32>
  %w = mpg.state "w" init(zeros) : tensor<8x4xf32>
  %mu = mpg.constant dense<0.9> : tensor<f32>
  %g = mpg.matmul %x, %dy transpose_a : tensor<16x8xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %ms = mpg.mul %m, %mu : tensor<8x4xf32>, tensor<f32> -> tensor<8x4xf32>
  %nm = mpg.add %ms, %g : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  %nw = mpg.sub %w, %nm : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  mpg.state_write %m, %nm : tensor<8x4xf32>
  mpg.state_write %w, %nw : tensor<8x4xf32>
}

// -----

// The same when a later kernel reads the momentum's old value: the new
// value is planned in the arena, so the momentum is copied there first and
// the GEMM accumulates into the copy (a beta of 1: no mul), which the state
// write copies back when the step ends.
// CHECK-LABEL: mpk.program @gemm_accumulates_into_a_copy
// CHECK: %[[M:.+]] = mpk.buffer persistent [[MOFF:[0-9]+]] : memref<8x4xf32>
// CHECK: %[[C:.+]] = mpk.buffer arena {{[0-9]+}} : memref<8x4xf32>
// CHECK-NEXT: mpk.copy %[[M]], %[[C]] {{.*}}: memref<8x4xf32>
// CHECK-NEXT: mpk.gemm %{{.+}}, %{{.+}} -> %[[C]] m 8 n 4 k 16 beta 1.000000e+00 {{{.*}}transpose_a}
// CHECK: mpk.copy %[[C]], %{{.+}} : memref<8x4xf32>
mpg.graph @gemm_accumulates_into_a_copy {
  %x = mpg.input "x" : tensor<16x8xf32>
  %dy = mpg.input "dy" : tensor<16x4xf32>
  %m = mpg.state "m" init(zeros) : tensor<8x4xf32>
  %g = mpg.matmul %x, %dy transpose_a : tensor<16x8xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %nm = mpg.add %m, %g : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  %late = mpg.sub %m, %nm : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  mpg.state_write %m, %nm : tensor<8x4xf32>
  mpg.output "late" %late : tensor<8x4xf32>
}

// -----

// batch_matmul: one strided-batched GEMM over the 2 * 3 batch, strides of
// m * k, k * n and m * n elements; relu without a bias.
// CHECK-LABEL: mpk.program @batch_matmul_relu
// CHECK: mpk.gemm %{{.+}}, %{{.+}} -> %{{.+}} m 4 n 16 k 8 epilogue relu
// CHECK-SAME: batch = 6 : i64
// CHECK-SAME: stride_a = 32 : i64, stride_b = 128 : i64, stride_c = 64 : i64
// CHECK-SAME: : memref<2x3x4x8xf32>, memref<2x3x8x16xf32>, memref<2x3x4x16xf32>
mpg.graph @batch_matmul_relu {
  %x = mpg.input "x" : tensor<2x3x4x8xf32>
  %w = mpg.input "w" : tensor<2x3x8x16xf32>
  %y = mpg.batch_matmul %x, %w : tensor<2x3x4x8xf32>, tensor<2x3x8x16xf32> -> tensor<2x3x4x16xf32>
  %r = mpg.relu %y : tensor<2x3x4x16xf32>
  mpg.output "y" %r : tensor<2x3x4x16xf32>
}

// -----

// batch_matmul with a bias and transposed B (attention scores).
// CHECK-LABEL: mpk.program @batch_matmul_bias
// CHECK: %[[B:.+]] = mpk.buffer persistent 0 : memref<16xf32>
// CHECK: mpk.gemm %{{.+}}, %{{.+}} -> %{{.+}} bias %[[B]] m 16 n 16 k 32 epilogue bias
// CHECK-SAME: batch = 8 : i64
// CHECK-SAME: stride_a = 512 : i64, stride_b = 512 : i64, stride_c = 256 : i64
// CHECK-SAME: transpose_b
// CHECK-SAME: : memref<8x16x32xf32>, memref<8x16x32xf32>, memref<8x16x16xf32>, memref<16xf32>
mpg.graph @batch_matmul_bias {
  %q = mpg.input "q" : tensor<8x16x32xf32>
  %k = mpg.input "k" : tensor<8x16x32xf32>
  %b = mpg.param "b" init(zeros) : tensor<16xf32>
  %s = mpg.batch_matmul %q, %k transpose_b : tensor<8x16x32xf32>, tensor<8x16x32xf32> -> tensor<8x16x16xf32>
  %t = mpg.add %s, %b : tensor<8x16x16xf32>, tensor<16xf32> -> tensor<8x16x16xf32>
  mpg.output "t" %t : tensor<8x16x16xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Convolution groups
//===----------------------------------------------------------------------===//

// im2col writes columns [N, C * kH * kW, Ho * Wo] = [2, 36, 16] into the
// group's scratch; then one GEMM per group of channels (groups = 2): filter
// rows g * 3 (offset_a = g * 3 * 18, shared across images: stride_a = 0)
// times column rows g * 18 (offset_b = g * 18 * 16) into output channels
// g * 3 (offset_c = g * 3 * 16), batched over the 2 images.
// CHECK-LABEL: mpk.program @conv_groups arena 7424
// CHECK: %[[X:.+]] = mpk.buffer arena 4608 : memref<2x4x8x8xf32>
// CHECK: %[[W:.+]] = mpk.buffer persistent 0 : memref<6x2x3x3xf32>
// CHECK: %[[Y:.+]] = mpk.buffer arena 6656 : memref<2x6x4x4xf32>
// CHECK-NEXT: %[[COLS:.+]] = mpk.buffer arena 0 : memref<2x36x16xf32>
// CHECK-NEXT: mpk.im2col @k0 %[[X]] -> %[[COLS]] kernel [3, 3] stride [2, 2] padding [1, 1, 1, 1] dilation [1, 1]
// CHECK-SAME: : memref<2x4x8x8xf32>, memref<2x36x16xf32>
// CHECK-NEXT: mpk.gemm %[[W]], %[[COLS]] -> %[[Y]] m 3 n 16 k 18
// CHECK-NOT: offset_
// CHECK-SAME: batch = 2 : i64
// CHECK-NOT: offset_
// CHECK-SAME: stride_b = 576 : i64, stride_c = 96 : i64
// CHECK-SAME: : memref<6x2x3x3xf32>, memref<2x36x16xf32>, memref<2x6x4x4xf32>
// CHECK-NEXT: mpk.gemm %[[W]], %[[COLS]] -> %[[Y]] m 3 n 16 k 18
// CHECK-SAME: batch = 2 : i64
// CHECK-SAME: offset_a = 54 : i64, offset_b = 288 : i64, offset_c = 48 : i64, stride_b = 576 : i64, stride_c = 96 : i64
// CHECK-NEXT: mpk.output "y" %[[Y]]
mpg.graph @conv_groups {
  %x = mpg.input "x" : tensor<2x4x8x8xf32>
  %w = mpg.param "w" init(zeros) : tensor<6x2x3x3xf32>
  %y = mpg.conv2d %x, %w stride [2, 2] padding [1, 1, 1, 1] groups 2 : tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32> -> tensor<2x6x4x4xf32>
  mpg.output "y" %y : tensor<2x6x4x4xf32>
}

// -----

// A conv group with a widening cast as its epilogue: the GEMM reads the
// f16 columns and writes the f32 result.
// CHECK-LABEL: mpk.program @conv_cast_epilogue
// CHECK: %[[Y:.+]] = mpk.buffer arena {{[0-9]+}} : memref<2x4x8x8xf32>
// CHECK-NEXT: %[[COLS:.+]] = mpk.buffer arena {{[0-9]+}} : memref<2x27x64xf16>
// CHECK-NEXT: mpk.im2col @k0 %{{.+}} -> %[[COLS]]
// CHECK-NEXT: mpk.gemm %{{.+}}, %[[COLS]] -> %[[Y]] m 4 n 64 k 27
// CHECK-SAME: : memref<4x3x3x3xf16>, memref<2x27x64xf16>, memref<2x4x8x8xf32>
// CHECK-NEXT: mpk.output "y" %[[Y]]
mpg.graph @conv_cast_epilogue {
  %x = mpg.input "x" : tensor<2x3x8x8xf16>
  %w = mpg.param "w" init(zeros) : tensor<4x3x3x3xf16>
  %c = mpg.conv2d %x, %w padding [1, 1, 1, 1] : tensor<2x3x8x8xf16>, tensor<4x3x3x3xf16> -> tensor<2x4x8x8xf16>
  %y = mpg.cast %c : tensor<2x4x8x8xf16> to tensor<2x4x8x8xf32>
  mpg.output "y" %y : tensor<2x4x8x8xf32>
}

// -----

// Dilation reaches im2col; one group is one GEMM.
// CHECK-LABEL: mpk.program @conv_dilated
// CHECK: mpk.im2col @k0 %{{.+}} -> %{{.+}} kernel [3, 3] stride [1, 1] padding [0, 0, 0, 0] dilation [2, 2]
// CHECK-SAME: : memref<1x3x9x9xf32>, memref<1x27x25xf32>
// CHECK-NEXT: mpk.gemm %{{.+}}, %{{.+}} -> %{{.+}} m 4 n 25 k 27
// CHECK-NOT: mpk.gemm
// CHECK: mpk.output
mpg.graph @conv_dilated {
  %x = mpg.input "x" : tensor<1x3x9x9xf32>
  %w = mpg.param "w" init(zeros) : tensor<4x3x3x3xf32>
  %y = mpg.conv2d %x, %w dilation [2, 2] : tensor<1x3x9x9xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x5x5xf32>
  mpg.output "y" %y : tensor<1x4x5x5xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Convolution gradients
//===----------------------------------------------------------------------===//

// The input gradient: per group, the transposed filter rows g * 3 (offset_a
// = g * 3 * 18, shared: stride_a = 0) times the output gradient's channels
// g * 3 (offset_b = g * 3 * 16) give the column rows g * 18 of each image
// (offset_c = g * 18 * 16), in fp32 scratch; col2im folds them onto the
// fp16 input gradient.
// CHECK-LABEL: mpk.program @conv_grad_input_groups
// CHECK: %[[W:.+]] = mpk.buffer persistent 0 : memref<6x2x3x3xf16>
// CHECK: %[[DY:.+]] = mpk.buffer arena {{[0-9]+}} : memref<2x6x4x4xf16>
// CHECK: %[[DX:.+]] = mpk.buffer arena {{[0-9]+}} : memref<2x4x8x8xf16>
// CHECK-NEXT: %[[COLS:.+]] = mpk.buffer arena 0 : memref<2x36x16xf32>
// CHECK-NEXT: mpk.gemm %[[W]], %[[DY]] -> %[[COLS]] m 18 n 16 k 3
// CHECK-NOT: offset_
// CHECK-SAME: batch = 2 : i64
// CHECK-NOT: offset_
// CHECK-SAME: stride_b = 96 : i64, stride_c = 576 : i64, transpose_a}
// CHECK-NEXT: mpk.gemm %[[W]], %[[DY]] -> %[[COLS]] m 18 n 16 k 3
// CHECK-SAME: offset_a = 54 : i64, offset_b = 48 : i64, offset_c = 288 : i64, stride_b = 96 : i64, stride_c = 576 : i64, transpose_a}
// CHECK-NEXT: mpk.col2im @k0 %[[COLS]] -> %[[DX]] kernel [3, 3] stride [2, 2] padding [1, 1, 1, 1] dilation [1, 1]
// CHECK-SAME: : memref<2x36x16xf32>, memref<2x4x8x8xf16>
// CHECK-NEXT: mpk.output "dx" %[[DX]]
mpg.graph @conv_grad_input_groups {
  %w = mpg.param "w" init(zeros) : tensor<6x2x3x3xf16>
  %dy = mpg.input "dy" : tensor<2x6x4x4xf16>
  %dx = mpg.conv2d_grad_input %dy, %w stride [2, 2] padding [1, 1, 1, 1] groups 2 : tensor<2x6x4x4xf16>, tensor<6x2x3x3xf16> -> tensor<2x4x8x8xf16>
  mpg.output "dx" %dx : tensor<2x4x8x8xf16>
}

// -----

// The filter gradient: im2col of the input (fp16 columns, scratch), per
// group the output gradient's channels g * 3 times the transposed column
// rows g * 18 into per-image partial sums [2, 6 * 18] (fp32, in the same
// scratch after the columns' 2304 bytes), and their sum over the images
// into the gradient viewed flat.
// CHECK-LABEL: mpk.program @conv_grad_filter_groups
// CHECK: %[[X:.+]] = mpk.buffer arena {{[0-9]+}} : memref<2x4x8x8xf16>
// CHECK: %[[DY:.+]] = mpk.buffer arena {{[0-9]+}} : memref<2x6x4x4xf16>
// CHECK: %[[DW:.+]] = mpk.buffer arena [[DWOFF:[0-9]+]] : memref<6x2x3x3xf16>
// CHECK-NEXT: %[[COLS:.+]] = mpk.buffer arena 0 : memref<2x36x16xf16>
// CHECK-NEXT: %[[PART:.+]] = mpk.buffer arena 2304 : memref<2x108xf32>
// CHECK-NEXT: mpk.im2col @k0 %[[X]] -> %[[COLS]] kernel [3, 3] stride [2, 2] padding [1, 1, 1, 1] dilation [1, 1]
// CHECK-NEXT: mpk.gemm %[[DY]], %[[COLS]] -> %[[PART]] m 3 n 18 k 16
// CHECK-SAME: stride_a = 96 : i64, stride_b = 576 : i64, stride_c = 108 : i64, transpose_b}
// CHECK-NEXT: mpk.gemm %[[DY]], %[[COLS]] -> %[[PART]] m 3 n 18 k 16
// CHECK-SAME: offset_a = 48 : i64, offset_b = 288 : i64, offset_c = 54 : i64
// CHECK-NEXT: %[[FLAT:.+]] = mpk.buffer arena [[DWOFF]] : memref<108xf16>
// CHECK-NEXT: mpk.reduce @k1 sum ins(%[[PART]] : memref<2x108xf32>) epilogue_ins() outs(%[[FLAT]] : memref<108xf16>) iteration [2, 108] reduction_dims [0]
// CHECK: mpk.output "dw" %[[DW]]
mpg.graph @conv_grad_filter_groups {
  %x = mpg.input "x" : tensor<2x4x8x8xf16>
  %dy = mpg.input "dy" : tensor<2x6x4x4xf16>
  %dw = mpg.conv2d_grad_filter %x, %dy stride [2, 2] padding [1, 1, 1, 1] groups 2 : tensor<2x4x8x8xf16>, tensor<2x6x4x4xf16> -> tensor<6x2x3x3xf16>
  mpg.output "dw" %dw : tensor<6x2x3x3xf16>
}

// -----

//===----------------------------------------------------------------------===//
// Single-op groups
//===----------------------------------------------------------------------===//

// Max pooling (stride defaults to the kernel), average pooling with padding
// counted.
// CHECK-LABEL: mpk.program @pooling
// CHECK: %[[X:.+]] = mpk.buffer arena {{[0-9]+}} : memref<2x4x8x8xf32>
// CHECK: mpk.pool2d @k0 max %[[X]] -> %{{.+}} kernel [2, 2] stride [2, 2] padding [0, 0, 0, 0]
// CHECK-NOT: count_include_pad
// CHECK-SAME: : memref<2x4x8x8xf32>, memref<2x4x4x4xf32>
// CHECK: mpk.pool2d @k1 avg %[[X]] -> %{{.+}} kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1] count_include_pad
// CHECK-SAME: : memref<2x4x8x8xf32>, memref<2x4x8x8xf32>
// CHECK: mpk.pool2d @k2 avg %[[X]] -> %{{.+}} kernel [2, 2] stride [2, 2] padding [0, 0, 0, 0]
// CHECK-NOT: count_include_pad
// CHECK-SAME: : memref<2x4x8x8xf32>, memref<2x4x4x4xf32>
mpg.graph @pooling {
  %x = mpg.input "x" : tensor<2x4x8x8xf32>
  %a = mpg.max_pool2d %x kernel [2, 2] : tensor<2x4x8x8xf32> -> tensor<2x4x4x4xf32>
  %b = mpg.avg_pool2d %x kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1] count_include_pad : tensor<2x4x8x8xf32> -> tensor<2x4x8x8xf32>
  %c = mpg.avg_pool2d %x kernel [2, 2] : tensor<2x4x8x8xf32> -> tensor<2x4x4x4xf32>
  mpg.output "a" %a : tensor<2x4x4x4xf32>
  mpg.output "b" %b : tensor<2x4x8x8xf32>
  mpg.output "c" %c : tensor<2x4x4x4xf32>
}

// -----

// Copies are pointwise kernels whose body yields its argument. Transpose
// [2, 0, 1]: result[d0, d1, d2] = x[d1, d2, d0]. Slice with start
// [0, 1, 0] and step [1, 1, 2]: x[d0, d1 + 1, d2 * 2]. Concat along axis 1:
// one copy per input over the input's shape, the second shifted by 3.
// CHECK-DAG: #[[$TRANSPOSE:.+]] = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$SLICE:.+]] = affine_map<(d0, d1, d2) -> (d0, d1 + 1, d2 * 2)>
// CHECK-DAG: #[[$SHIFT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1 + 3, d2)>
// CHECK-LABEL: mpk.program @copies
// CHECK: %[[X:.+]] = mpk.buffer arena {{[0-9]+}} : memref<2x3x4xf32>
// CHECK: %[[Y:.+]] = mpk.buffer arena {{[0-9]+}} : memref<2x5x4xf32>
// CHECK: %[[T:.+]] = mpk.buffer arena {{[0-9]+}} : memref<4x2x3xf32>
// CHECK-NEXT: mpk.pointwise @k0 ins(%[[X]] : memref<2x3x4xf32>) outs(%[[T]] : memref<4x2x3xf32>) iteration [4, 2, 3] indexing [#[[$TRANSPOSE]], #[[$ID]]]
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32):
// CHECK-NEXT: mpk.yield %[[A]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: %[[S:.+]] = mpk.buffer arena {{[0-9]+}} : memref<2x2x2xf32>
// CHECK-NEXT: mpk.pointwise @k1 ins(%[[X]] : memref<2x3x4xf32>) outs(%[[S]] : memref<2x2x2xf32>) iteration [2, 2, 2] indexing [#[[$SLICE]], #[[$ID]]]
// CHECK-NEXT: ^bb0(%[[B:.+]]: f32):
// CHECK-NEXT: mpk.yield %[[B]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: %[[C:.+]] = mpk.buffer arena {{[0-9]+}} : memref<2x8x4xf32>
// CHECK-NEXT: mpk.pointwise @k2 ins(%[[X]] : memref<2x3x4xf32>) outs(%[[C]] : memref<2x8x4xf32>) iteration [2, 3, 4] indexing [#[[$ID]], #[[$ID]]]
// CHECK: mpk.pointwise @k3 ins(%[[Y]] : memref<2x5x4xf32>) outs(%[[C]] : memref<2x8x4xf32>) iteration [2, 5, 4] indexing [#[[$ID]], #[[$SHIFT]]]
mpg.graph @copies {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  %y = mpg.input "y" : tensor<2x5x4xf32>
  %t = mpg.transpose %x perm [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %s = mpg.slice %x start [0, 1, 0] limit [2, 3, 4] step [1, 1, 2] : tensor<2x3x4xf32> -> tensor<2x2x2xf32>
  %c = mpg.concat %x, %y axis 1 : tensor<2x3x4xf32>, tensor<2x5x4xf32> -> tensor<2x8x4xf32>
  mpg.output "t" %t : tensor<4x2x3xf32>
  mpg.output "s" %s : tensor<2x2x2xf32>
  mpg.output "c" %c : tensor<2x8x4xf32>
}

// -----

// A copy of integers keeps their type; concat along a negative axis (-1,
// the last) shifts the last dimension.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$SHIFT:.+]] = affine_map<(d0, d1) -> (d0, d1 + 2)>
// CHECK-LABEL: mpk.program @concat_last_axis
// CHECK: mpk.pointwise @k0 ins(%{{.+}} : memref<3x2xi32>) outs(%[[C:.+]] : memref<3x5xi32>) iteration [3, 2] indexing [#[[$ID]], #[[$ID]]]
// CHECK-NEXT: ^bb0(%[[A:.+]]: i32):
// CHECK-NEXT: mpk.yield %[[A]] : i32
// CHECK: mpk.pointwise @k1 ins(%{{.+}} : memref<3x3xi32>) outs(%[[C]] : memref<3x5xi32>) iteration [3, 3] indexing [#[[$ID]], #[[$SHIFT]]]
mpg.graph @concat_last_axis {
  %a = mpg.input "a" : tensor<3x2xi32>
  %b = mpg.input "b" : tensor<3x3xi32>
  %c = mpg.concat %a, %b axis -1 : tensor<3x2xi32>, tensor<3x3xi32> -> tensor<3x5xi32>
  mpg.output "c" %c : tensor<3x5xi32>
}

// -----

// embedding gathers table rows by index.
// CHECK-LABEL: mpk.program @embedding
// CHECK: %[[T:.+]] = mpk.buffer persistent 0 : memref<96x32xf32>
// CHECK: %[[I:.+]] = mpk.buffer arena {{[0-9]+}} : memref<8x16xi32>
// CHECK: %[[E:.+]] = mpk.buffer arena {{[0-9]+}} : memref<8x16x32xf32>
// CHECK-NEXT: mpk.gather @k0 %[[T]], %[[I]] -> %[[E]]
// CHECK-SAME: : memref<96x32xf32>, memref<8x16xi32>, memref<8x16x32xf32>
mpg.graph @embedding {
  %t = mpg.param "t" init(zeros) : tensor<96x32xf32>
  %i = mpg.input "i" : tensor<8x16xi32>
  %e = mpg.embedding %t, %i : tensor<96x32xf32>, tensor<8x16xi32> -> tensor<8x16x32xf32>
  mpg.output "e" %e : tensor<8x16x32xf32>
}

//--- pipeline-errors.mlir

// Composite ops that mpg-decompose rewrites (here without it) reach the
// conversion in a `single` group and are reported.

// -----

mpg.graph @not_decomposed {
  %g = mpg.input "g" : tensor<8x16xf32>
  // expected-error @below {{'mpg.all_finite' must be decomposed before code generation (run mpg-decompose)}}
  %ok = mpg.all_finite %g : tensor<8x16xf32> -> tensor<i1>
  mpg.output "ok" %ok : tensor<i1>
}

// -----

mpg.graph @not_decomposed_scale {
  %s = mpg.input "s" : tensor<f32>
  %n = mpg.input "n" : tensor<i64>
  %ok = mpg.input "ok" : tensor<i1>
  // expected-error @below {{'mpg.update_loss_scale' must be decomposed before code generation (run mpg-decompose)}}
  %s2, %n2 = mpg.update_loss_scale %s, %n, %ok : tensor<f32>, tensor<i64>, tensor<i1>
  mpg.output "s2" %s2 : tensor<f32>
}

//--- planned-errors.mlir

// The conversion needs the plan's attributes on the graph.

// expected-error @below {{convert-mpg-to-mpk expects a planned graph (run mpg-fuse and mpg-plan-memory first)}}
mpg.graph @unplanned {
  %x = mpg.input "x" : tensor<4xf32>
  %y = mpg.exp %x : tensor<4xf32>
  mpg.output "y" %y : tensor<4xf32>
}

// -----

// expected-error @below {{convert-mpg-to-mpk expects a planned graph}}
mpg.graph @arena_only attributes {mpg.arena_bytes = 256 : i64} {
  %x = mpg.input "x" {mpg.arena_offsets = array<i64: 0>} : tensor<4xf32>
  mpg.output "x" %x : tensor<4xf32>
}

// -----

// A hand-written planned graph with a training op in a single group.
mpg.graph @sgd_planned attributes {mpg.arena_bytes = 768 : i64, mpg.persistent_bytes = 256 : i64} {
  %p = mpg.param "p" init(zeros) {mpg.persistent_offset = 0 : i64} : tensor<4x3xf32>
  %g = mpg.input "g" {mpg.arena_offsets = array<i64: 0>} : tensor<4x3xf32>
  %lr = mpg.input "lr" {mpg.arena_offsets = array<i64: 256>} : tensor<f32>
  %p2 = mpg.fusion single(%p, %g, %lr : tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32> attributes {mpg.arena_offsets = array<i64: 512>} {
  ^bb0(%a: tensor<4x3xf32>, %b: tensor<4x3xf32>, %c: tensor<f32>):
    // expected-error @below {{'mpg.sgd' must be decomposed before code generation (run mpg-decompose)}}
    %0 = mpg.sgd %a, %b, %c : tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf32>
    mpg.yield %0 : tensor<4x3xf32>
  }
  mpg.output "p2" %p2 : tensor<4x3xf32>
}

// -----

// Composite ops must be decomposed first.
mpg.graph @mse_planned attributes {mpg.arena_bytes = 768 : i64, mpg.persistent_bytes = 0 : i64} {
  %p = mpg.input "p" {mpg.arena_offsets = array<i64: 0>} : tensor<8x4xf32>
  %t = mpg.input "t" {mpg.arena_offsets = array<i64: 256>} : tensor<8x4xf32>
  %l = mpg.fusion single(%p, %t : tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<f32> attributes {mpg.arena_offsets = array<i64: 512>} {
  ^bb0(%a: tensor<8x4xf32>, %b: tensor<8x4xf32>):
    // expected-error @below {{'mpg.mse_loss' must be decomposed before code generation (run mpg-decompose)}}
    %0 = mpg.mse_loss %a, %b : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<f32>
    mpg.yield %0 : tensor<f32>
  }
  mpg.output "l" %l : tensor<f32>
}

// -----

// Compute ops must be inside fusion groups.
mpg.graph @outside_group attributes {mpg.arena_bytes = 256 : i64, mpg.persistent_bytes = 0 : i64} {
  %x = mpg.input "x" {mpg.arena_offsets = array<i64: 0>} : tensor<4xf32>
  // expected-error @below {{convert-mpg-to-mpk expects a fused graph; 'mpg.exp' is outside any fusion group}}
  %y = mpg.exp %x : tensor<4xf32>
  mpg.output "y" %y : tensor<4xf32>
}

// -----

// One pointwise kernel has one iteration space.
mpg.graph @pointwise_shapes attributes {mpg.arena_bytes = 1024 : i64, mpg.persistent_bytes = 0 : i64} {
  %x = mpg.input "x" {mpg.arena_offsets = array<i64: 0>} : tensor<4x8xf32>
  %b = mpg.input "b" {mpg.arena_offsets = array<i64: 256>} : tensor<8xf32>
  // expected-error @below {{a pointwise group's results must share one shape}}
  %y:2 = mpg.fusion pointwise(%x, %b : tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>, tensor<8xf32> attributes {mpg.arena_offsets = array<i64: 512, 768>} {
  ^bb0(%a: tensor<4x8xf32>, %c: tensor<8xf32>):
    %0 = mpg.exp %a : tensor<4x8xf32>
    %1 = mpg.neg %c : tensor<8xf32>
    mpg.yield %0, %1 : tensor<4x8xf32>, tensor<8xf32>
  }
  mpg.output "y" %y#0 : tensor<4x8xf32>
  mpg.output "z" %y#1 : tensor<8xf32>
}
