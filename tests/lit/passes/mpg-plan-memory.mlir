// RUN: rm -rf %t && split-file %s %t
// RUN: mpc-opt %t/plan.mlir --mpg-fuse --mpg-plan-memory -split-input-file | FileCheck %s
// RUN: mpc-opt %t/plan.mlir --mpg-fuse --mpg-plan-memory -split-input-file | mpc-opt -split-input-file | FileCheck %s
// RUN: mpc-opt %t/plan.mlir --mpg-fuse --mpg-plan-memory=in-place=false -split-input-file | FileCheck %s --check-prefix=NOIP
// RUN: mpc-opt %t/plan.mlir --mpg-fuse --mpg-plan-memory=alignment=64 -split-input-file | FileCheck %s --check-prefix=A64
// RUN: mpc-opt %t/report.mlir --mpg-fuse --mpg-plan-memory=report=true -split-input-file -verify-diagnostics > /dev/null
// RUN: mpc-opt %t/unfused.mlir --mpg-plan-memory -split-input-file -verify-diagnostics
// RUN: mpc-opt %t/alignment-48.mlir --mpg-fuse --mpg-plan-memory=alignment=48 -verify-diagnostics
// RUN: mpc-opt %t/alignment-0.mlir --mpg-fuse --mpg-plan-memory=alignment=0 -verify-diagnostics

// The memory plan of a fused step, read from the attributes the pass writes:
// `mpg.arena_offsets` on inputs and fusion groups, `mpg.scratch_offset` on
// groups that need scratch, `mpg.persistent_offset` on params, state and
// constants, and `mpg.arena_bytes` / `mpg.persistent_bytes` on the graph.
// Every graph is fused by `mpg-fuse` first; the schedule is the fused order.
// The second RUN line re-parses the plan; the NOIP and A64 lines exercise the
// `in-place` and `alignment` options. The parts after plan.mlir hold the
// `report` remark and the errors.

//--- plan.mlir

//===----------------------------------------------------------------------===//
// Reuse and live ranges
//===----------------------------------------------------------------------===//

// A chain x -> a -> b -> c of 16 KiB GEMM results: each buffer is dead once
// the next GEMM has read it, so b reuses x's memory and c reuses a's.
// CHECK-LABEL: mpg.graph @chain attributes {mpg.arena_bytes = 32768 : i64, mpg.persistent_bytes = 16384 : i64}
// CHECK: %[[X:.+]] = mpg.input "x" {mpg.arena_offsets = array<i64: 0>}
// CHECK: %[[W:.+]] = mpg.param "w" init(zeros) {mpg.persistent_offset = 0 : i64}
// CHECK: %[[A:.+]] = mpg.fusion gemm(%[[X]], %[[W]] : {{.*}}) -> tensor<64x64xf32> attributes {mpg.arena_offsets = array<i64: 16384>}
// CHECK: %[[B:.+]] = mpg.fusion gemm(%[[A]], %[[W]] : {{.*}}) -> tensor<64x64xf32> attributes {mpg.arena_offsets = array<i64: 0>}
// CHECK: %[[C:.+]] = mpg.fusion gemm(%[[B]], %[[W]] : {{.*}}) -> tensor<64x64xf32> attributes {mpg.arena_offsets = array<i64: 16384>}
// CHECK: mpg.output "c" %[[C]]
mpg.graph @chain {
  %x = mpg.input "x" : tensor<64x64xf32>
  %w = mpg.param "w" init(zeros) : tensor<64x64xf32>
  %a = mpg.matmul %x, %w : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %b = mpg.matmul %a, %w : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %c = mpg.matmul %b, %w : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  mpg.output "c" %c : tensor<64x64xf32>
}

// -----

// Every input is written before the step begins, so inputs are live
// together from its start: an input that nothing reads keeps bytes of its
// own (the runtime refuses inputs that share bytes).
// CHECK-LABEL: mpg.graph @unused_input attributes {mpg.arena_bytes = 512 : i64
// CHECK: mpg.input "unused" {mpg.arena_offsets = array<i64: 0>}
// CHECK: mpg.input "x" {mpg.arena_offsets = array<i64: 256>}
mpg.graph @unused_input {
  %u = mpg.input "unused" : tensor<4x4xf32>
  %x = mpg.input "x" : tensor<4x4xf32>
  %y = mpg.relu %x : tensor<4x4xf32>
  mpg.output "y" %y : tensor<4x4xf32>
}

// -----

// a is read again by the last GEMM, so a, b and c are live together and get
// three distinct places (b reuses x, dead after the first GEMM).
// CHECK-LABEL: mpg.graph @overlapping attributes {mpg.arena_bytes = 49152 : i64, mpg.persistent_bytes = 16384 : i64}
// CHECK: %[[X:.+]] = mpg.input "x" {mpg.arena_offsets = array<i64: 0>}
// CHECK: %[[A:.+]] = mpg.fusion gemm(%[[X]], %{{.+}}) -> tensor<64x64xf32> attributes {mpg.arena_offsets = array<i64: 16384>}
// CHECK: %[[B:.+]] = mpg.fusion gemm(%[[A]], %{{.+}}) -> tensor<64x64xf32> attributes {mpg.arena_offsets = array<i64: 0>}
// CHECK: %[[C:.+]] = mpg.fusion gemm(%[[A]], %[[B]] : {{.*}}) -> tensor<64x64xf32> attributes {mpg.arena_offsets = array<i64: 32768>}
mpg.graph @overlapping {
  %x = mpg.input "x" : tensor<64x64xf32>
  %w = mpg.param "w" init(zeros) : tensor<64x64xf32>
  %a = mpg.matmul %x, %w : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %b = mpg.matmul %a, %w : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %c = mpg.matmul %a, %b : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  mpg.output "c" %c : tensor<64x64xf32>
}

// -----

// The chain again, but a is also an output: it lives until the end of the
// step, so c cannot take its place (compare @chain).
// CHECK-LABEL: mpg.graph @output_lives_to_end attributes {mpg.arena_bytes = 49152 : i64, mpg.persistent_bytes = 16384 : i64}
// CHECK: mpg.input "x" {mpg.arena_offsets = array<i64: 0>}
// CHECK: %[[A:.+]] = mpg.fusion gemm({{.*}}) -> tensor<64x64xf32> attributes {mpg.arena_offsets = array<i64: 16384>}
// CHECK: %[[B:.+]] = mpg.fusion gemm(%[[A]], {{.*}}) -> tensor<64x64xf32> attributes {mpg.arena_offsets = array<i64: 0>}
// CHECK: %[[C:.+]] = mpg.fusion gemm(%[[B]], {{.*}}) -> tensor<64x64xf32> attributes {mpg.arena_offsets = array<i64: 32768>}
// CHECK: mpg.output "a" %[[A]]
// CHECK: mpg.output "c" %[[C]]
mpg.graph @output_lives_to_end {
  %x = mpg.input "x" : tensor<64x64xf32>
  %w = mpg.param "w" init(zeros) : tensor<64x64xf32>
  %a = mpg.matmul %x, %w : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %b = mpg.matmul %a, %w : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %c = mpg.matmul %b, %w : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  mpg.output "a" %a : tensor<64x64xf32>
  mpg.output "c" %c : tensor<64x64xf32>
}

// -----

// %r is a view of x: x stays live until the last GEMM reads %r, although the
// first GEMM is the last to read x itself. So c cannot reuse x's place (0)
// and goes above b; d, 256 bytes, reuses b's place once b is dead. The
// reshape itself gets no buffer.
// CHECK-LABEL: mpg.graph @reshape_extends_source attributes {mpg.arena_bytes = 3072 : i64, mpg.persistent_bytes = 2048 : i64}
// CHECK: %[[X:.+]] = mpg.input "x" {mpg.arena_offsets = array<i64: 0>}
// CHECK: %[[R:.+]] = mpg.reshape %[[X]] : tensor<16x16xf32> -> tensor<8x32xf32>
// CHECK-NOT: mpg.arena_offsets
// CHECK: %[[B:.+]] = mpg.fusion gemm(%[[X]], {{.*}}) -> tensor<16x16xf32> attributes {mpg.arena_offsets = array<i64: 1024>}
// CHECK: %[[C:.+]] = mpg.fusion gemm(%[[B]], {{.*}}) -> tensor<16x16xf32> attributes {mpg.arena_offsets = array<i64: 2048>}
// CHECK: %[[D:.+]] = mpg.fusion gemm(%[[R]], {{.*}}) -> tensor<8x8xf32> attributes {mpg.arena_offsets = array<i64: 1024>}
mpg.graph @reshape_extends_source {
  %x = mpg.input "x" : tensor<16x16xf32>
  %w = mpg.param "w" init(zeros) : tensor<16x16xf32>
  %v = mpg.param "v" init(zeros) : tensor<32x8xf32>
  %r = mpg.reshape %x : tensor<16x16xf32> -> tensor<8x32xf32>
  %b = mpg.matmul %x, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %c = mpg.matmul %b, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %d = mpg.matmul %r, %v : tensor<8x32xf32>, tensor<32x8xf32> -> tensor<8x8xf32>
  mpg.output "c" %c : tensor<16x16xf32>
  mpg.output "d" %d : tensor<8x8xf32>
}

// -----

// A view of a group result: d reads a through %r, so a (at 1024) is live
// while d is written and d goes elsewhere.
// CHECK-LABEL: mpg.graph @reshape_of_group_result attributes {mpg.arena_bytes = 3072 : i64, mpg.persistent_bytes = 2048 : i64}
// CHECK: mpg.input "x" {mpg.arena_offsets = array<i64: 0>}
// CHECK: %[[A:.+]] = mpg.fusion gemm({{.*}}) -> tensor<16x16xf32> attributes {mpg.arena_offsets = array<i64: 1024>}
// CHECK: %[[B:.+]] = mpg.fusion gemm({{.*}}) -> tensor<16x16xf32> attributes {mpg.arena_offsets = array<i64: 2048>}
// CHECK: %[[C:.+]] = mpg.fusion gemm(%[[B]], {{.*}}) -> tensor<16x16xf32> attributes {mpg.arena_offsets = array<i64: 0>}
// CHECK: %[[R:.+]] = mpg.reshape %[[A]] : tensor<16x16xf32> -> tensor<8x32xf32>
// CHECK: %[[D:.+]] = mpg.fusion gemm(%[[R]], {{.*}}) -> tensor<8x8xf32> attributes {mpg.arena_offsets = array<i64: 2048>}
mpg.graph @reshape_of_group_result {
  %x = mpg.input "x" : tensor<16x16xf32>
  %w = mpg.param "w" init(zeros) : tensor<16x16xf32>
  %v = mpg.param "v" init(zeros) : tensor<32x8xf32>
  %a = mpg.matmul %x, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %r = mpg.reshape %a : tensor<16x16xf32> -> tensor<8x32xf32>
  %b = mpg.matmul %x, %w transpose_a : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %c = mpg.matmul %b, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %d = mpg.matmul %r, %v : tensor<8x32xf32>, tensor<32x8xf32> -> tensor<8x8xf32>
  mpg.output "c" %c : tensor<16x16xf32>
  mpg.output "d" %d : tensor<8x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// In-place pointwise groups
//===----------------------------------------------------------------------===//

// The group reads x for the last time and writes a result of x's type: the
// result takes x's place. With in-place=false it gets a place of its own.
// CHECK-LABEL: mpg.graph @in_place attributes {mpg.arena_bytes = 256 : i64, mpg.persistent_bytes = 0 : i64}
// CHECK: %[[X:.+]] = mpg.input "x" {mpg.arena_offsets = array<i64: 0>}
// CHECK: mpg.fusion pointwise(%[[X]] : tensor<4x8xf32>) -> tensor<4x8xf32> attributes {mpg.arena_offsets = array<i64: 0>}
// NOIP-LABEL: mpg.graph @in_place attributes {mpg.arena_bytes = 512 : i64, mpg.persistent_bytes = 0 : i64}
// NOIP: %[[X:.+]] = mpg.input "x" {mpg.arena_offsets = array<i64: 0>}
// NOIP: mpg.fusion pointwise(%[[X]] : tensor<4x8xf32>) -> tensor<4x8xf32> attributes {mpg.arena_offsets = array<i64: 256>}
mpg.graph @in_place {
  %x = mpg.input "x" : tensor<4x8xf32>
  %y = mpg.exp %x : tensor<4x8xf32>
  mpg.output "y" %y : tensor<4x8xf32>
}

// -----

// Of the group's inputs, b has another type (it is broadcast) and x is read
// again by the GEMM; only y is read for the last time, so the result takes
// y's place.
// CHECK-LABEL: mpg.graph @in_place_over_last_read_input attributes {mpg.arena_bytes = 768 : i64, mpg.persistent_bytes = 256 : i64}
// CHECK: %[[X:.+]] = mpg.input "x" {mpg.arena_offsets = array<i64: 0>}
// CHECK: %[[Y:.+]] = mpg.input "y" {mpg.arena_offsets = array<i64: 256>}
// CHECK: %[[B:.+]] = mpg.input "b" {mpg.arena_offsets = array<i64: 512>}
// CHECK: %[[T:.+]] = mpg.fusion pointwise(%[[B]], %[[X]], %[[Y]] : {{.*}}) -> tensor<4x8xf32> attributes {mpg.arena_offsets = array<i64: 256>}
// CHECK: %[[M:.+]] = mpg.fusion gemm(%[[X]], {{.*}}) -> tensor<4x8xf32> attributes {mpg.arena_offsets = array<i64: 512>}
// NOIP-LABEL: mpg.graph @in_place_over_last_read_input attributes {mpg.arena_bytes = 1024 : i64, mpg.persistent_bytes = 256 : i64}
// NOIP: mpg.fusion pointwise({{.*}}) -> tensor<4x8xf32> attributes {mpg.arena_offsets = array<i64: 768>}
// NOIP: mpg.fusion gemm({{.*}}) -> tensor<4x8xf32> attributes {mpg.arena_offsets = array<i64: 256>}
mpg.graph @in_place_over_last_read_input {
  %x = mpg.input "x" : tensor<4x8xf32>
  %y = mpg.input "y" : tensor<4x8xf32>
  %b = mpg.input "b" : tensor<8xf32>
  %w = mpg.param "w" init(zeros) : tensor<8x8xf32>
  %s = mpg.add %b, %x : tensor<8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %t = mpg.mul %s, %y : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %m = mpg.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  mpg.output "t" %t : tensor<4x8xf32>
  mpg.output "m" %m : tensor<4x8xf32>
}

// -----

// The only input is read again later (by the GEMM): no in-place write.
// CHECK-LABEL: mpg.graph @in_place_refused_read_later attributes {mpg.arena_bytes = 768 : i64
// CHECK: %[[X:.+]] = mpg.input "x" {mpg.arena_offsets = array<i64: 0>}
// CHECK: mpg.fusion pointwise(%[[X]] : tensor<4x8xf32>) -> tensor<4x8xf32> attributes {mpg.arena_offsets = array<i64: 256>}
// CHECK: mpg.fusion gemm(%[[X]], {{.*}}) -> tensor<4x8xf32> attributes {mpg.arena_offsets = array<i64: 512>}
mpg.graph @in_place_refused_read_later {
  %x = mpg.input "x" : tensor<4x8xf32>
  %w = mpg.param "w" init(zeros) : tensor<8x8xf32>
  %e = mpg.exp %x : tensor<4x8xf32>
  %m = mpg.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  mpg.output "e" %e : tensor<4x8xf32>
  mpg.output "m" %m : tensor<4x8xf32>
}

// -----

// An f16 result does not take the place of its f32 input.
// CHECK-LABEL: mpg.graph @in_place_refused_type attributes {mpg.arena_bytes = 512 : i64, mpg.persistent_bytes = 0 : i64}
// CHECK: %[[X:.+]] = mpg.input "x" {mpg.arena_offsets = array<i64: 0>}
// CHECK: mpg.fusion pointwise(%[[X]] : tensor<4x8xf32>) -> tensor<4x8xf16> attributes {mpg.arena_offsets = array<i64: 256>}
mpg.graph @in_place_refused_type {
  %x = mpg.input "x" : tensor<4x8xf32>
  %h = mpg.cast %x : tensor<4x8xf32> to tensor<4x8xf16>
  mpg.output "h" %h : tensor<4x8xf16>
}

// -----

// Two results, one input: only one result can take x's place.
// CHECK-LABEL: mpg.graph @in_place_one_result attributes {mpg.arena_bytes = 512 : i64, mpg.persistent_bytes = 0 : i64}
// CHECK: %[[X:.+]] = mpg.input "x" {mpg.arena_offsets = array<i64: 0>}
// CHECK: mpg.fusion pointwise(%[[X]] : tensor<4x8xf32>) -> tensor<4x8xf32>, tensor<4x8xf32> attributes {mpg.arena_offsets = array<i64: 0, 256>}
// NOIP-LABEL: mpg.graph @in_place_one_result attributes {mpg.arena_bytes = 768 : i64, mpg.persistent_bytes = 0 : i64}
// NOIP: mpg.fusion pointwise({{.*}}) -> tensor<4x8xf32>, tensor<4x8xf32> attributes {mpg.arena_offsets = array<i64: 256, 512>}
mpg.graph @in_place_one_result {
  %x = mpg.input "x" : tensor<4x8xf32>
  %a = mpg.exp %x : tensor<4x8xf32>
  %b = mpg.neg %a : tensor<4x8xf32>
  mpg.output "a" %a : tensor<4x8xf32>
  mpg.output "b" %b : tensor<4x8xf32>
}

// -----

// A chain across a GEMM: exp writes over x, tanh over the GEMM's result.
// CHECK-LABEL: mpg.graph @in_place_chain attributes {mpg.arena_bytes = 512 : i64, mpg.persistent_bytes = 256 : i64}
// CHECK: %[[X:.+]] = mpg.input "x" {mpg.arena_offsets = array<i64: 0>}
// CHECK: %[[E:.+]] = mpg.fusion pointwise(%[[X]] : tensor<4x8xf32>) -> tensor<4x8xf32> attributes {mpg.arena_offsets = array<i64: 0>}
// CHECK: %[[M:.+]] = mpg.fusion gemm(%[[E]], {{.*}}) -> tensor<4x8xf32> attributes {mpg.arena_offsets = array<i64: 256>}
// CHECK: mpg.fusion pointwise(%[[M]] : tensor<4x8xf32>) -> tensor<4x8xf32> attributes {mpg.arena_offsets = array<i64: 256>}
// NOIP-LABEL: mpg.graph @in_place_chain attributes {mpg.arena_bytes = 512 : i64, mpg.persistent_bytes = 256 : i64}
// NOIP: mpg.input "x" {mpg.arena_offsets = array<i64: 0>}
// NOIP: mpg.fusion pointwise({{.*}}) -> tensor<4x8xf32> attributes {mpg.arena_offsets = array<i64: 256>}
// NOIP: mpg.fusion gemm({{.*}}) -> tensor<4x8xf32> attributes {mpg.arena_offsets = array<i64: 0>}
// NOIP: mpg.fusion pointwise({{.*}}) -> tensor<4x8xf32> attributes {mpg.arena_offsets = array<i64: 256>}
mpg.graph @in_place_chain {
  %x = mpg.input "x" : tensor<4x8xf32>
  %w = mpg.param "w" init(zeros) : tensor<8x8xf32>
  %a = mpg.exp %x : tensor<4x8xf32>
  %m = mpg.matmul %a, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %b = mpg.tanh %m : tensor<4x8xf32>
  mpg.output "b" %b : tensor<4x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Alignment
//===----------------------------------------------------------------------===//

// 12-, 5- and 10-byte buffers, all live at the end: each offset and size is
// rounded up to 256 bytes (64 with alignment=64), in the arena and in
// persistent memory alike.
// CHECK-LABEL: mpg.graph @alignment attributes {mpg.arena_bytes = 1024 : i64, mpg.persistent_bytes = 512 : i64}
// CHECK: mpg.input "a" {mpg.arena_offsets = array<i64: 0>} : tensor<3xf32>
// CHECK: mpg.input "m" {mpg.arena_offsets = array<i64: 256>} : tensor<5xi1>
// CHECK: mpg.param "p" init(zeros) {mpg.persistent_offset = 0 : i64} : tensor<3xf32>
// CHECK: mpg.param "q" init(zeros) {mpg.persistent_offset = 256 : i64} : tensor<5xf16>
// CHECK: mpg.fusion pointwise({{.*}}) -> tensor<3xf32> attributes {mpg.arena_offsets = array<i64: 512>}
// CHECK: mpg.fusion pointwise({{.*}}) -> tensor<5xf16> attributes {mpg.arena_offsets = array<i64: 768>}
// A64-LABEL: mpg.graph @alignment attributes {mpg.arena_bytes = 256 : i64, mpg.persistent_bytes = 128 : i64}
// A64: mpg.input "a" {mpg.arena_offsets = array<i64: 0>} : tensor<3xf32>
// A64: mpg.input "m" {mpg.arena_offsets = array<i64: 64>} : tensor<5xi1>
// A64: mpg.param "p" init(zeros) {mpg.persistent_offset = 0 : i64} : tensor<3xf32>
// A64: mpg.param "q" init(zeros) {mpg.persistent_offset = 64 : i64} : tensor<5xf16>
// A64: mpg.fusion pointwise({{.*}}) -> tensor<3xf32> attributes {mpg.arena_offsets = array<i64: 128>}
// A64: mpg.fusion pointwise({{.*}}) -> tensor<5xf16> attributes {mpg.arena_offsets = array<i64: 192>}
mpg.graph @alignment {
  %a = mpg.input "a" : tensor<3xf32>
  %m = mpg.input "m" : tensor<5xi1>
  %p = mpg.param "p" init(zeros) : tensor<3xf32>
  %q = mpg.param "q" init(zeros) : tensor<5xf16>
  %s = mpg.add %a, %p : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %n = mpg.neg %q : tensor<5xf16>
  mpg.output "s" %s : tensor<3xf32>
  mpg.output "a" %a : tensor<3xf32>
  mpg.output "m" %m : tensor<5xi1>
  mpg.output "n" %n : tensor<5xf16>
}

// -----

//===----------------------------------------------------------------------===//
// Persistent memory
//===----------------------------------------------------------------------===//

// State, parameters and the non-splat constant are laid out one after the
// other in program order (8 -> 256, 3200 -> 3328, 12 -> 256 bytes). The splat
// constant is cloned into the group and the unused constant removed by
// mpg-fuse: neither takes persistent memory.
// CHECK-LABEL: mpg.graph @persistent attributes {mpg.arena_bytes = 256 : i64, mpg.persistent_bytes = 4096 : i64}
// CHECK: mpg.state "step" init(zeros) {mpg.persistent_offset = 0 : i64} : tensor<i64>
// CHECK: mpg.param "w" init(zeros) {mpg.persistent_offset = 256 : i64} : tensor<8x100xf32>
// CHECK: %[[C:.+]] = mpg.constant {mpg.persistent_offset = 3584 : i64} dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK: mpg.param "f" frozen init(ones) {mpg.persistent_offset = 3840 : i64} : tensor<3xf32>
// CHECK: mpg.fusion pointwise
// CHECK-NEXT: ^bb0
// CHECK-NEXT: mpg.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NOT: persistent_offset
// CHECK: mpg.output "e"
// A64-LABEL: mpg.graph @persistent attributes {mpg.arena_bytes = 64 : i64, mpg.persistent_bytes = 3392 : i64}
// A64: mpg.state "step" init(zeros) {mpg.persistent_offset = 0 : i64}
// A64: mpg.param "w" init(zeros) {mpg.persistent_offset = 64 : i64}
// A64: mpg.constant {mpg.persistent_offset = 3264 : i64}
// A64: mpg.param "f" frozen init(ones) {mpg.persistent_offset = 3328 : i64}
mpg.graph @persistent {
  %st = mpg.state "step" init(zeros) : tensor<i64>
  %w = mpg.param "w" init(zeros) : tensor<8x100xf32>
  %c = mpg.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %h = mpg.constant dense<0.5> : tensor<f32>
  %u = mpg.constant dense<[1, 2]> : tensor<2xi32>
  %f = mpg.param "f" frozen init(ones) : tensor<3xf32>
  %x = mpg.input "x" : tensor<3xf32>
  %a = mpg.mul %x, %c : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %b = mpg.mul %a, %h : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  %e = mpg.add %b, %f : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  mpg.output "e" %e : tensor<3xf32>
  mpg.output "w" %w : tensor<8x100xf32>
  mpg.output "step" %st : tensor<i64>
}

// -----

//===----------------------------------------------------------------------===//
// Scratch memory
//===----------------------------------------------------------------------===//

// The im2col columns [2, 4 * 3 * 3, 8 * 8] f32 take 18432 bytes, live only
// while the convolution runs: the pooling result reuses them.
// CHECK-LABEL: mpg.graph @conv_scratch attributes {mpg.arena_bytes = 24576 : i64, mpg.persistent_bytes = 1280 : i64}
// CHECK: %[[X:.+]] = mpg.input "x" {mpg.arena_offsets = array<i64: 22528>}
// CHECK: %[[Y:.+]] = mpg.fusion conv(%[[X]], {{.*}}) -> tensor<2x8x8x8xf32> attributes {mpg.arena_offsets = array<i64: 18432>, mpg.scratch_offset = 0 : i64}
// CHECK: mpg.fusion single(%[[Y]] : tensor<2x8x8x8xf32>) -> tensor<2x8x4x4xf32> attributes {mpg.arena_offsets = array<i64: 0>}
mpg.graph @conv_scratch {
  %x = mpg.input "x" : tensor<2x4x8x8xf32>
  %w = mpg.param "w" init(zeros) : tensor<8x4x3x3xf32>
  %y = mpg.conv2d %x, %w padding [1, 1, 1, 1] : tensor<2x4x8x8xf32>, tensor<8x4x3x3xf32> -> tensor<2x8x8x8xf32>
  %p = mpg.max_pool2d %y kernel [2, 2] : tensor<2x8x8x8xf32> -> tensor<2x8x4x4xf32>
  mpg.output "p" %p : tensor<2x8x4x4xf32>
}

// -----

// Per-row losses in the compute type: 100 f32 values for f16 logits...
// CHECK-LABEL: mpg.graph @xent_scratch_f16 attributes {mpg.arena_bytes = 3328 : i64, mpg.persistent_bytes = 0 : i64}
// CHECK: %[[X:.+]] = mpg.input "x" {mpg.arena_offsets = array<i64: 0>}
// CHECK: %[[Y:.+]] = mpg.input "y" {mpg.arena_offsets = array<i64: 2048>}
// CHECK: %[[L:.+]] = mpg.fusion row(%[[X]], %[[Y]] : {{.*}}) -> tensor<f32> attributes {mpg.arena_offsets = array<i64: 3072>, mpg.scratch_offset = 2560 : i64}
// CHECK: mpg.minimize %[[L]]
mpg.graph @xent_scratch_f16 {
  %x = mpg.input "x" : tensor<100x10xf16>
  %y = mpg.input "y" : tensor<100xi32>
  %l = mpg.softmax_cross_entropy %x, %y : tensor<100x10xf16>, tensor<100xi32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.1) : tensor<f32>
}

// -----

// ... and 100 f64 values (800 bytes -> 1024) for f64 logits.
// CHECK-LABEL: mpg.graph @xent_scratch_f64 attributes {mpg.arena_bytes = 10496 : i64, mpg.persistent_bytes = 0 : i64}
// CHECK: %[[X:.+]] = mpg.input "x" {mpg.arena_offsets = array<i64: 0>}
// CHECK: %[[Y:.+]] = mpg.input "y" {mpg.arena_offsets = array<i64: 8192>}
// CHECK: mpg.fusion row(%[[X]], %[[Y]] : {{.*}}) -> tensor<f64> attributes {mpg.arena_offsets = array<i64: 10240>, mpg.scratch_offset = 9216 : i64}
mpg.graph @xent_scratch_f64 {
  %x = mpg.input "x" : tensor<100x10xf64>
  %y = mpg.input "y" : tensor<100xi64>
  %l = mpg.softmax_cross_entropy %x, %y : tensor<100x10xf64>, tensor<100xi64> -> tensor<f64>
  mpg.minimize %l optimizer(sgd, lr = 0.1) : tensor<f64>
}

// -----

// Finite checks side by side run as one launch, so each gradient they read
// stays live until the last of them: the third check's scalar does not go
// to %g2's memory (offset 0, free once the second check has read it, in
// a plan of one kernel per group), which the second check still reads in
// the same launch.
// CHECK-LABEL: mpg.graph @finite_checks_keep_their_gradients
// CHECK: %[[G1:.+]] = mpg.fusion gemm(%a, %w1 {{.*}} attributes {mpg.arena_offsets = array<i64: 1792>}
// CHECK: %[[G2:.+]] = mpg.fusion gemm(%a, %w2 {{.*}} attributes {mpg.arena_offsets = array<i64: 0>}
// CHECK: %[[G3:.+]] = mpg.fusion gemm(%a, %w3 {{.*}} attributes {mpg.arena_offsets = array<i64: 256>}
// CHECK: mpg.fusion reduction(%[[G1]] : tensor<4x16xf32>) -> tensor<f32> attributes {mpg.arena_offsets = array<i64: 512>}
// CHECK: mpg.fusion reduction(%[[G2]] : tensor<4x16xf32>) -> tensor<f32> attributes {mpg.arena_offsets = array<i64: 768>}
// CHECK: mpg.fusion reduction(%[[G3]] : tensor<4x16xf32>) -> tensor<f32> attributes {mpg.arena_offsets = array<i64: 1024>}
mpg.graph @finite_checks_keep_their_gradients {
  %a = mpg.input "a" : tensor<4x8xf32>
  %w1 = mpg.input "w1" : tensor<8x16xf32>
  %w2 = mpg.input "w2" : tensor<8x16xf32>
  %w3 = mpg.input "w3" : tensor<8x16xf32>
  %zero = mpg.constant dense<0.0> : tensor<f32>
  %g1 = mpg.matmul %a, %w1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %g2 = mpg.matmul %a, %w2 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %g3 = mpg.matmul %a, %w3 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %z1 = mpg.mul %g1, %zero : tensor<4x16xf32>, tensor<f32> -> tensor<4x16xf32>
  %s1 = mpg.reduce_sum %z1 axes [0, 1] {mpg.finite_check} : tensor<4x16xf32> -> tensor<f32>
  %z2 = mpg.mul %g2, %zero : tensor<4x16xf32>, tensor<f32> -> tensor<4x16xf32>
  %s2 = mpg.reduce_sum %z2 axes [0, 1] {mpg.finite_check} : tensor<4x16xf32> -> tensor<f32>
  %z3 = mpg.mul %g3, %zero : tensor<4x16xf32>, tensor<f32> -> tensor<4x16xf32>
  %s3 = mpg.reduce_sum %z3 axes [0, 1] {mpg.finite_check} : tensor<4x16xf32> -> tensor<f32>
  %za = mpg.mul %a, %zero : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %sa = mpg.reduce_sum %za axes [0, 1] {mpg.finite_check} : tensor<4x8xf32> -> tensor<f32>
  %t0 = mpg.add %sa, %s1 : tensor<f32>, tensor<f32> -> tensor<f32>
  %t1 = mpg.add %t0, %s2 : tensor<f32>, tensor<f32> -> tensor<f32>
  %t2 = mpg.add %t1, %s3 : tensor<f32>, tensor<f32> -> tensor<f32>
  mpg.output "t" %t2 : tensor<f32>
}

//--- report.mlir

// With report=true the pass says how large the arena is, its lower bound
// (the peak of live bytes) and what no reuse would need.

// expected-remark @below {{arena 32768 bytes (peak live 32768, without reuse 65536), persistent 16384 bytes}}
mpg.graph @chain {
  %x = mpg.input "x" : tensor<64x64xf32>
  %w = mpg.param "w" init(zeros) : tensor<64x64xf32>
  %a = mpg.matmul %x, %w : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %b = mpg.matmul %a, %w : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %c = mpg.matmul %b, %w : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  mpg.output "c" %c : tensor<64x64xf32>
}

// -----

// A result written in place shares its input's memory: counted once in the
// peak, twice without reuse.
// expected-remark @below {{arena 256 bytes (peak live 256, without reuse 512), persistent 0 bytes}}
mpg.graph @in_place {
  %x = mpg.input "x" : tensor<4x8xf32>
  %y = mpg.exp %x : tensor<4x8xf32>
  mpg.output "y" %y : tensor<4x8xf32>
}

// -----

// Scratch counts like any other buffer.
// expected-remark @below {{arena 24576 bytes (peak live 24576, without reuse 24576), persistent 1280 bytes}}
mpg.graph @conv {
  %x = mpg.input "x" : tensor<2x4x8x8xf32>
  %w = mpg.param "w" init(zeros) : tensor<8x4x3x3xf32>
  %y = mpg.conv2d %x, %w padding [1, 1, 1, 1] : tensor<2x4x8x8xf32>, tensor<8x4x3x3xf32> -> tensor<2x8x8x8xf32>
  mpg.output "y" %y : tensor<2x8x8x8xf32>
}

//--- unfused.mlir

// Without mpg-fuse, compute ops are outside any group.
mpg.graph @unfused {
  %x = mpg.input "x" : tensor<4xf32>
  // expected-error @below {{mpg-plan-memory expects a fused graph (run mpg-fuse first); 'mpg.exp' is outside any fusion group}}
  %y = mpg.exp %x : tensor<4xf32>
  mpg.output "y" %y : tensor<4xf32>
}

// -----

mpg.graph @unfused_after_group {
  %x = mpg.input "x" : tensor<4xf32>
  %y = mpg.fusion pointwise(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = mpg.exp %a : tensor<4xf32>
    mpg.yield %e : tensor<4xf32>
  }
  // expected-error @below {{mpg-plan-memory expects a fused graph (run mpg-fuse first); 'mpg.reduce_sum' is outside any fusion group}}
  %s = mpg.reduce_sum %y axes [0] : tensor<4xf32> -> tensor<f32>
  mpg.output "s" %s : tensor<f32>
}

//--- alignment-48.mlir

// The value after "got" is left unchecked: the message prints it wrongly
// (as a character).
// expected-error @below {{mpg-plan-memory: alignment must be a power of two, got}}
mpg.graph @alignment_48 {
  %x = mpg.input "x" : tensor<4xf32>
  mpg.output "x" %x : tensor<4xf32>
}

//--- alignment-0.mlir

// expected-error @below {{mpg-plan-memory: alignment must be a power of two, got}}
mpg.graph @alignment_0 {
  %x = mpg.input "x" : tensor<4xf32>
  mpg.output "x" %x : tensor<4xf32>
}
