// RUN: mpc-opt %s --mpg-fuse --mpg-plan-memory | FileCheck %s
// RUN: not mpc-opt %s --mpg-fuse --mpg-plan-memory=alignment=100 2>&1 | FileCheck %s --check-prefix=ALIGN

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

// The alignment in the error is printed as a number.
// ALIGN: error: mpg-plan-memory: alignment must be a power of two, got 100
