// RUN: mpc-opt %s --mpg-fuse --mpg-plan-memory | FileCheck %s
// RUN: not mpc-opt %s --mpg-fuse --mpg-plan-memory=alignment=100 2>&1 | FileCheck %s --check-prefix=ALIGN
// RUN: mpc-opt %s --mpg-fuse=pointwise-fusion=false --mpg-plan-memory | FileCheck %s --check-prefix=SPLIT
// RUN: mpc-opt %s --mpg-fuse --mpg-plan-memory=state-in-place=false | FileCheck %s --check-prefix=COPIED

// A value written to state is copied when the step ends, so it stays live to
// the end: the output computed after the write must not take its place.
// CHECK-LABEL: mpg.graph @state_write_lives_to_the_end
// CHECK: %[[T:.+]] = mpg.fusion pointwise({{.*}}) -> tensor<64xf32> attributes {mpg.arena_offsets = array<i64: [[TOFF:[0-9]+]]>}
// CHECK: mpg.state_write %{{.+}}, %[[T]]
// CHECK-NOT: array<i64: [[TOFF]]>
// CHECK: mpg.output "c"
mpg.graph @state_write_lives_to_the_end {
  %x = mpg.input "x" : tensor<64xf32>
  %w = mpg.param "w" init(zeros) : tensor<8x8xf32>
  %s = mpg.state "s" init(zeros) : tensor<64xf32>
  %t = mpg.exp %x : tensor<64xf32>
  mpg.state_write %s, %t : tensor<64xf32>
  %r = mpg.reshape %t : tensor<64xf32> -> tensor<8x8xf32>
  %b = mpg.matmul %r, %w : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  %c = mpg.matmul %b, %w : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  mpg.output "c" %c : tensor<8x8xf32>
}

// A group that computes a state's new value for its write alone, reading the
// old value itself and nothing after it, writes the new value in the state's
// memory: no arena offset (-1), the state's offset in mpg.state_offsets.
// CHECK-LABEL: mpg.graph @update_in_place attributes {mpg.arena_bytes = 0 : i64
// CHECK: mpg.state "s" init(zeros) {mpg.persistent_offset = [[S:[0-9]+]] : i64}
// CHECK: mpg.fusion pointwise({{.*}}) -> tensor<64xf32> attributes {mpg.arena_offsets = array<i64: -1>, mpg.state_offsets = array<i64: [[S]]>}
// Without the option the value goes to the arena (and is copied at the end).
// COPIED-LABEL: mpg.graph @update_in_place
// COPIED: mpg.fusion pointwise({{.*}}) -> tensor<64xf32> attributes {mpg.arena_offsets = array<i64: 0>} {
mpg.graph @update_in_place {
  %s = mpg.state "s" init(zeros) : tensor<64xf32>
  %n = mpg.exp %s : tensor<64xf32>
  mpg.state_write %s, %n : tensor<64xf32>
}

// The two updates are one multi-tensor launch, and the second reads s1's old
// value: s1's new value cannot be written in place (the launch would race),
// s2's can.
// SPLIT-LABEL: mpg.graph @update_read_by_another_update
// SPLIT: mpg.state "s2" init(zeros) {mpg.persistent_offset = [[S2:[0-9]+]] : i64}
// SPLIT: mpg.fusion pointwise(%s1 : tensor<64xf32>) -> tensor<64xf32> attributes {mpg.arena_offsets = array<i64: {{[0-9]+}}>} {
// SPLIT: mpg.fusion pointwise(%s1, %s2 : {{.*}}) -> tensor<64xf32> attributes {mpg.arena_offsets = array<i64: -1>, mpg.state_offsets = array<i64: [[S2]]>}
mpg.graph @update_read_by_another_update {
  %s1 = mpg.state "s1" init(zeros) : tensor<64xf32>
  %s2 = mpg.state "s2" init(zeros) : tensor<64xf32>
  %n1 = mpg.exp %s1 : tensor<64xf32>
  mpg.state_write %s1, %n1 : tensor<64xf32>
  %n2 = mpg.add %s1, %s2 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  mpg.state_write %s2, %n2 : tensor<64xf32>
}

// A GEMM after the update reads the old value: not in place.
// CHECK-LABEL: mpg.graph @state_read_after_its_update
// CHECK: mpg.fusion pointwise(%s : tensor<4x4xf32>) -> tensor<4x4xf32> attributes {mpg.arena_offsets = array<i64: {{[0-9]+}}>} {
// CHECK-NOT: mpg.state_offsets
// CHECK: mpg.output "y"
mpg.graph @state_read_after_its_update {
  %x = mpg.input "x" : tensor<4x4xf32>
  %s = mpg.state "s" init(zeros) : tensor<4x4xf32>
  %n = mpg.exp %s : tensor<4x4xf32>
  mpg.state_write %s, %n : tensor<4x4xf32>
  %y = mpg.matmul %x, %s : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  mpg.output "y" %y : tensor<4x4xf32>
}

// The alignment in the error is printed as a number.
// ALIGN: error: mpg-plan-memory: alignment must be a power of two, got 100

// A GEMM group that accumulates into a state (mpg-fuse's momentum epilogue)
// writes the new value in the state's memory, though a later group (the
// parameter's update) reads it too: it reads the state's memory.
// CHECK-LABEL: mpg.graph @gemm_accumulates_in_place
// CHECK: mpg.state "m" init(zeros) {mpg.persistent_offset = [[M:[0-9]+]] : i64}
// CHECK: mpg.fusion gemm({{.*}}) -> tensor<8x4xf32> attributes {mpg.arena_offsets = array<i64: -1>, mpg.state_offsets = array<i64: [[M]]>}
// COPIED-LABEL: mpg.graph @gemm_accumulates_in_place
// COPIED: mpg.fusion gemm({{.*}}) -> tensor<8x4xf32> attributes {mpg.arena_offsets = array<i64: {{[0-9]+}}>} {
mpg.graph @gemm_accumulates_in_place {
  %x = mpg.input "x" : tensor<16x8xf32>
  %dy = mpg.input "dy" : tensor<16x4xf32>
  %w = mpg.state "w" init(zeros) : tensor<8x4xf32>
  %m = mpg.state "m" init(zeros) : tensor<8x4xf32>
  %mu = mpg.constant dense<0.9> : tensor<f32>
  %g = mpg.matmul %x, %dy transpose_a : tensor<16x8xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %ms = mpg.mul %m, %mu : tensor<8x4xf32>, tensor<f32> -> tensor<8x4xf32>
  %nm = mpg.add %ms, %g : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  %nw = mpg.sub %w, %nm : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  mpg.state_write %m, %nm : tensor<8x4xf32>
  mpg.state_write %w, %nw : tensor<8x4xf32>
}

// The same where a group after the GEMM reads the state's old value: the
// new value goes to the arena (the GEMM accumulates into a copy there).
// CHECK-LABEL: mpg.graph @gemm_accumulation_old_value_read_later
// CHECK: mpg.fusion gemm({{.*}}) -> tensor<8x4xf32> attributes {mpg.arena_offsets = array<i64: {{[0-9]+}}>} {
// CHECK: mpg.output "late"
mpg.graph @gemm_accumulation_old_value_read_later {
  %x = mpg.input "x" : tensor<16x8xf32>
  %dy = mpg.input "dy" : tensor<16x4xf32>
  %m = mpg.state "m" init(zeros) : tensor<8x4xf32>
  %mu = mpg.constant dense<0.9> : tensor<f32>
  %g = mpg.matmul %x, %dy transpose_a : tensor<16x8xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %ms = mpg.mul %m, %mu : tensor<8x4xf32>, tensor<f32> -> tensor<8x4xf32>
  %nm = mpg.add %ms, %g : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  %late = mpg.sub %m, %nm : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  mpg.state_write %m, %nm : tensor<8x4xf32>
  mpg.output "late" %late : tensor<8x4xf32>
}

// A GEMM that also multiplies the state it accumulates into reads whole
// rows of it, not just the element it writes: not in place.
// CHECK-LABEL: mpg.graph @gemm_accumulation_into_its_own_operand
// CHECK: mpg.fusion gemm({{.*}}) -> tensor<8x4xf32> attributes {mpg.arena_offsets = array<i64: {{[0-9]+}}>} {
// CHECK-NOT: mpg.state_offsets
// CHECK: mpg.state_write
mpg.graph @gemm_accumulation_into_its_own_operand {
  %x = mpg.input "x" : tensor<8x8xf32>
  %s = mpg.state "s" init(zeros) : tensor<8x4xf32>
  %mu = mpg.constant dense<0.5> : tensor<f32>
  %g = mpg.matmul %x, %s : tensor<8x8xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  %ss = mpg.mul %s, %mu : tensor<8x4xf32>, tensor<f32> -> tensor<8x4xf32>
  %ns = mpg.add %ss, %g : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  mpg.state_write %s, %ns : tensor<8x4xf32>
}
