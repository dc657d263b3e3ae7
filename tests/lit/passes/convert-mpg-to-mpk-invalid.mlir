// RUN: mpc-opt %s --convert-mpg-to-mpk -split-input-file -verify-diagnostics

// Hand-written planned graphs that the conversion must refuse with an error
// rather than lower wrongly or crash.

mpg.graph @input_without_offset attributes {mpg.arena_bytes = 256 : i64, mpg.persistent_bytes = 0 : i64} {
  // expected-error @+1 {{convert-mpg-to-mpk expects a planned graph: 'mpg.input' has no mpg.arena_offsets (run mpg-plan-memory)}}
  %x = mpg.input "x" : tensor<4xf32>
  mpg.output "x" %x : tensor<4xf32>
}

// -----

mpg.graph @param_without_offset attributes {mpg.arena_bytes = 256 : i64, mpg.persistent_bytes = 256 : i64} {
  // expected-error @+1 {{convert-mpg-to-mpk expects a planned graph: 'mpg.param' has no mpg.persistent_offset (run mpg-plan-memory)}}
  %w = mpg.param "w" init(zeros) : tensor<4xf32>
  mpg.output "w" %w : tensor<4xf32>
}

// -----

mpg.graph @cross_entropy_without_scratch attributes {mpg.arena_bytes = 1024 : i64, mpg.persistent_bytes = 0 : i64} {
  %x = mpg.input "x" {mpg.arena_offsets = array<i64: 0>} : tensor<4x8xf32>
  %y = mpg.input "y" {mpg.arena_offsets = array<i64: 256>} : tensor<4xi32>
  // expected-error @+1 {{convert-mpg-to-mpk expects a planned graph: 'mpg.fusion' has no mpg.scratch_offset (run mpg-plan-memory)}}
  %l = mpg.fusion row(%x, %y : tensor<4x8xf32>, tensor<4xi32>) -> tensor<f32> attributes {mpg.arena_offsets = array<i64: 512>} {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<4xi32>):
    %0 = mpg.softmax_cross_entropy %a, %b : tensor<4x8xf32>, tensor<4xi32> -> tensor<f32>
    mpg.yield %0 : tensor<f32>
  }
  mpg.output "l" %l : tensor<f32>
}

// -----

mpg.graph @gemm_with_foreign_op attributes {mpg.arena_bytes = 1024 : i64, mpg.persistent_bytes = 0 : i64} {
  %x = mpg.input "x" {mpg.arena_offsets = array<i64: 0>} : tensor<4x4xf32>
  %y = mpg.fusion gemm(%x : tensor<4x4xf32>) -> tensor<4x4xf32> attributes {mpg.arena_offsets = array<i64: 256>} {
  ^bb0(%a: tensor<4x4xf32>):
    %0 = mpg.matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    // expected-error @+1 {{'mpg.exp' in a gemm group is not a cuBLASLt epilogue (bias, then relu or approximate gelu, then a cast; or a cast, then an accumulation into a matrix)}}
    %1 = mpg.exp %0 : tensor<4x4xf32>
    mpg.yield %1 : tensor<4x4xf32>
  }
  mpg.output "y" %y : tensor<4x4xf32>
}

// -----

mpg.graph @conv_group_with_relu attributes {mpg.arena_bytes = 8192 : i64, mpg.persistent_bytes = 256 : i64} {
  %x = mpg.input "x" {mpg.arena_offsets = array<i64: 0>} : tensor<1x1x4x4xf32>
  %w = mpg.param "w" init(zeros) {mpg.persistent_offset = 0 : i64} : tensor<1x1x3x3xf32>
  %y = mpg.fusion conv(%x, %w : tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x4x4xf32> attributes {mpg.arena_offsets = array<i64: 256>, mpg.scratch_offset = 512 : i64} {
  ^bb0(%a: tensor<1x1x4x4xf32>, %b: tensor<1x1x3x3xf32>):
    %0 = mpg.conv2d %a, %b padding [1, 1, 1, 1] : tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32> -> tensor<1x1x4x4xf32>
    // expected-error @+1 {{'mpg.relu' in a conv group is not its epilogue (one cast of the convolution's result)}}
    %1 = mpg.relu %0 : tensor<1x1x4x4xf32>
    mpg.yield %1 : tensor<1x1x4x4xf32>
  }
  mpg.output "y" %y : tensor<1x1x4x4xf32>
}

// -----

mpg.graph @conv_group_yielding_the_convolution attributes {mpg.arena_bytes = 8192 : i64, mpg.persistent_bytes = 256 : i64} {
  %x = mpg.input "x" {mpg.arena_offsets = array<i64: 0>} : tensor<1x1x4x4xf16>
  %w = mpg.param "w" init(zeros) {mpg.persistent_offset = 0 : i64} : tensor<1x1x3x3xf16>
  // expected-error @+1 {{a conv group yields exactly the end of its epilogue}}
  %y = mpg.fusion conv(%x, %w : tensor<1x1x4x4xf16>, tensor<1x1x3x3xf16>) -> tensor<1x1x4x4xf16> attributes {mpg.arena_offsets = array<i64: 256>, mpg.scratch_offset = 512 : i64} {
  ^bb0(%a: tensor<1x1x4x4xf16>, %b: tensor<1x1x3x3xf16>):
    %0 = mpg.conv2d %a, %b padding [1, 1, 1, 1] : tensor<1x1x4x4xf16>, tensor<1x1x3x3xf16> -> tensor<1x1x4x4xf16>
    %1 = mpg.cast %0 : tensor<1x1x4x4xf16> to tensor<1x1x4x4xf32>
    mpg.yield %0 : tensor<1x1x4x4xf16>
  }
  mpg.output "y" %y : tensor<1x1x4x4xf16>
}

// -----

mpg.graph @gemm_with_exact_gelu attributes {mpg.arena_bytes = 1024 : i64, mpg.persistent_bytes = 0 : i64} {
  %x = mpg.input "x" {mpg.arena_offsets = array<i64: 0>} : tensor<4x4xf32>
  %y = mpg.fusion gemm(%x : tensor<4x4xf32>) -> tensor<4x4xf32> attributes {mpg.arena_offsets = array<i64: 256>} {
  ^bb0(%a: tensor<4x4xf32>):
    %0 = mpg.matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    // expected-error @+1 {{'mpg.gelu' in a gemm group is not a cuBLASLt epilogue}}
    %1 = mpg.gelu %0 : tensor<4x4xf32>
    mpg.yield %1 : tensor<4x4xf32>
  }
  mpg.output "y" %y : tensor<4x4xf32>
}

// -----

mpg.graph @row_group_with_two_ops attributes {mpg.arena_bytes = 1024 : i64, mpg.persistent_bytes = 0 : i64} {
  %x = mpg.input "x" {mpg.arena_offsets = array<i64: 0>} : tensor<4x8xf32>
  // expected-error @+1 {{a 'row' group lowers one op; this one holds more}}
  %y = mpg.fusion row(%x : tensor<4x8xf32>) -> tensor<4x8xf32> attributes {mpg.arena_offsets = array<i64: 256>} {
  ^bb0(%a: tensor<4x8xf32>):
    %0 = mpg.softmax %a : tensor<4x8xf32> -> tensor<4x8xf32>
    %1 = mpg.exp %0 : tensor<4x8xf32>
    mpg.yield %1 : tensor<4x8xf32>
  }
  mpg.output "y" %y : tensor<4x8xf32>
}

// -----

mpg.graph @non_splat_constant_in_kernel attributes {mpg.arena_bytes = 1024 : i64, mpg.persistent_bytes = 0 : i64} {
  %x = mpg.input "x" {mpg.arena_offsets = array<i64: 0>} : tensor<2xf32>
  %y = mpg.fusion pointwise(%x : tensor<2xf32>) -> tensor<2xf32> attributes {mpg.arena_offsets = array<i64: 256>} {
  ^bb0(%a: tensor<2xf32>):
    // expected-error @+1 {{'mpg.constant' has no scalar form for a generated kernel}}
    %c = mpg.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %0 = mpg.add %a, %c : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
    mpg.yield %0 : tensor<2xf32>
  }
  mpg.output "y" %y : tensor<2xf32>
}

// -----

// An accumulation's mul scales a matrix the group reads, by a splat.
mpg.graph @gemm_mul_of_the_product attributes {mpg.arena_bytes = 1024 : i64, mpg.persistent_bytes = 0 : i64} {
  %x = mpg.input "x" {mpg.arena_offsets = array<i64: 0>} : tensor<4x4xf32>
  %y = mpg.fusion gemm(%x : tensor<4x4xf32>) -> tensor<4x4xf32> attributes {mpg.arena_offsets = array<i64: 256>} {
  ^bb0(%a: tensor<4x4xf32>):
    %0 = mpg.matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    // expected-error @+1 {{'mpg.mul' in a gemm group is not a cuBLASLt epilogue}}
    %1 = mpg.mul %0, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    mpg.yield %1 : tensor<4x4xf32>
  }
  mpg.output "y" %y : tensor<4x4xf32>
}

// -----

// A mul that no accumulation reads.
mpg.graph @gemm_unused_scale attributes {mpg.arena_bytes = 1024 : i64, mpg.persistent_bytes = 0 : i64} {
  %x = mpg.input "x" {mpg.arena_offsets = array<i64: 0>} : tensor<4x4xf32>
  // expected-error @+1 {{a mul in a gemm group scales the matrix its result accumulates into; this group accumulates into none}}
  %y = mpg.fusion gemm(%x : tensor<4x4xf32>) -> tensor<4x4xf32> attributes {mpg.arena_offsets = array<i64: 256>} {
  ^bb0(%a: tensor<4x4xf32>):
    %c = mpg.constant dense<0.5> : tensor<f32>
    %0 = mpg.matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    %1 = mpg.mul %a, %c : tensor<4x4xf32>, tensor<f32> -> tensor<4x4xf32>
    mpg.yield %0 : tensor<4x4xf32>
  }
  mpg.output "y" %y : tensor<4x4xf32>
}

// -----

// An accumulation follows the product or its cast, not a bias.
mpg.graph @gemm_accumulation_after_a_bias attributes {mpg.arena_bytes = 1024 : i64, mpg.persistent_bytes = 0 : i64} {
  %x = mpg.input "x" {mpg.arena_offsets = array<i64: 0>} : tensor<4x4xf32>
  %b = mpg.input "b" {mpg.arena_offsets = array<i64: 512>} : tensor<4xf32>
  %y = mpg.fusion gemm(%x, %b : tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32> attributes {mpg.arena_offsets = array<i64: 256>} {
  ^bb0(%a: tensor<4x4xf32>, %bias: tensor<4xf32>):
    %0 = mpg.matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    %1 = mpg.add %0, %bias : tensor<4x4xf32>, tensor<4xf32> -> tensor<4x4xf32>
    // expected-error @+1 {{'mpg.add' in a gemm group is not a cuBLASLt epilogue}}
    %2 = mpg.add %1, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    mpg.yield %2 : tensor<4x4xf32>
  }
  mpg.output "y" %y : tensor<4x4xf32>
}

// -----

// An accumulation into an f16 matrix (the GEMM accumulates in f32 or f64).
mpg.graph @gemm_accumulation_into_f16 attributes {mpg.arena_bytes = 1024 : i64, mpg.persistent_bytes = 0 : i64} {
  %x = mpg.input "x" {mpg.arena_offsets = array<i64: 0>} : tensor<4x4xf16>
  %y = mpg.fusion gemm(%x : tensor<4x4xf16>) -> tensor<4x4xf16> attributes {mpg.arena_offsets = array<i64: 256>} {
  ^bb0(%a: tensor<4x4xf16>):
    %0 = mpg.matmul %a, %a : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf16>
    // expected-error @+1 {{'mpg.add' in a gemm group is not a cuBLASLt epilogue}}
    %1 = mpg.add %0, %a : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf16>
    mpg.yield %1 : tensor<4x4xf16>
  }
  mpg.output "y" %y : tensor<4x4xf16>
}
