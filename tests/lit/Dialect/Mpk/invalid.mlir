// RUN: mpc-opt %s -split-input-file -verify-diagnostics

// Diagnostics of the mpk dialect: the verifier errors of mpk.buffer,
// mpk.pointwise, mpk.reduce, mpk.gemm, mpk.im2col and mpk.col2im, and the
// ODS constraints (buffer types, operand types, indexing attributes, enums,
// copy types). The program and its declarations: invalid-program.mlir; the
// row kernels: invalid-row-kernels.mlir; pooling and gathers:
// invalid-pool-gather.mlir.

//===----------------------------------------------------------------------===//
// mpk.buffer
//===----------------------------------------------------------------------===//

mpk.program @negative_offset arena 256 persistent 0 {
  // expected-error @below {{'mpk.buffer' op expects a non-negative offset}}
  %0 = mpk.buffer arena -256 : memref<4xf32>
}

// -----

mpk.program @negative_offset_persistent arena 0 persistent 256 {
  // expected-error @below {{'mpk.buffer' op expects a non-negative offset}}
  %0 = mpk.buffer persistent -1 : memref<f16>
}

// -----

mpk.program @strided_layout arena 256 persistent 0 {
  // expected-error @below {{'mpk.buffer' op expects a contiguous row-major memref (identity layout)}}
  %0 = mpk.buffer arena 0 : memref<4x4xf32, strided<[8, 1]>>
}

// -----

mpk.program @permuted_layout arena 256 persistent 0 {
  // expected-error @below {{'mpk.buffer' op expects a contiguous row-major memref (identity layout)}}
  %0 = mpk.buffer arena 0 : memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>
}

// -----

mpk.program @element_type arena 256 persistent 0 {
  // expected-error @below {{'mpk.buffer' op result #0 must be 0D/1D/2D/3D/4D/5D/6D/7D/8D memref of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'memref<4xi8>'}}
  %0 = mpk.buffer arena 0 : memref<4xi8>
}

// -----

mpk.program @rank_nine arena 256 persistent 0 {
  // expected-error @below {{'mpk.buffer' op result #0 must be 0D/1D/2D/3D/4D/5D/6D/7D/8D memref}}
  %0 = mpk.buffer arena 0 : memref<1x1x1x1x1x1x1x1x2xf32>
}

// -----

mpk.program @bad_space arena 256 persistent 0 {
  // expected-error @below {{custom op 'mpk.buffer' expected string or keyword containing one of the following enum values for attribute 'space' [arena, persistent]}}
  %0 = mpk.buffer shared 0 : memref<4xf32>
}

//===----------------------------------------------------------------------===//
// Declarations and copies
//===----------------------------------------------------------------------===//

// -----

mpk.program @input_not_a_buffer arena 0 persistent 0 {
  %c = arith.constant dense<1.0> : tensor<4xf32>
  // expected-error @below {{'mpk.input' op operand #0 must be 0D/1D/2D/3D/4D/5D/6D/7D/8D memref}}
  "mpk.input"(%c) <{name = "x"}> : (tensor<4xf32>) -> ()
}

// -----

mpk.program @copy_types arena 512 persistent 0 {
  %0 = mpk.buffer arena 0 : memref<4xf32>
  %1 = mpk.buffer arena 256 : memref<4xf16>
  // expected-error @below {{'mpk.copy' op failed to verify that all of {source, target} have same type}}
  "mpk.copy"(%0, %1) : (memref<4xf32>, memref<4xf16>) -> ()
}

// -----

mpk.program @copy_shapes arena 512 persistent 0 {
  %0 = mpk.buffer arena 0 : memref<4xf32>
  %1 = mpk.buffer arena 256 : memref<2x2xf32>
  // expected-error @below {{'mpk.copy' op failed to verify that all of {source, target} have same type}}
  "mpk.copy"(%0, %1) : (memref<4xf32>, memref<2x2xf32>) -> ()
}

//===----------------------------------------------------------------------===//
// mpk.pointwise
//===----------------------------------------------------------------------===//

// -----

mpk.program @pointwise_map_count arena 512 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x8xf32>
  %y = mpk.buffer arena 256 : memref<4x8xf32>
  // expected-error @below {{'mpk.pointwise' op expects one indexing map per buffer (2), got 1}}
  mpk.pointwise @k0 ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>) iteration [4, 8]
      indexing [affine_map<(d0, d1) -> (d0, d1)>] {
  ^bb0(%a: f32):
    mpk.yield %a : f32
  }
}

// -----

mpk.program @pointwise_map_count_extra arena 512 persistent 0 {
  %y = mpk.buffer arena 256 : memref<4x8xf32>
  // expected-error @below {{'mpk.pointwise' op expects one indexing map per buffer (1), got 2}}
  mpk.pointwise @k0 outs(%y : memref<4x8xf32>) iteration [4, 8]
      indexing [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>] {
    %0 = arith.constant 0.0 : f32
    mpk.yield %0 : f32
  }
}

// -----

// An input map over 1 dimension for a rank-2 iteration space.
mpk.program @pointwise_map_dims arena 512 persistent 0 {
  %x = mpk.buffer arena 0 : memref<8xf32>
  %y = mpk.buffer arena 256 : memref<4x8xf32>
  // expected-error @below {{'mpk.pointwise' op indexing map 0 must map 2 dimensions to the 1 dimensions of its buffer, got affine_map<(d0) -> (d0)>}}
  mpk.pointwise @k0 ins(%x : memref<8xf32>) outs(%y : memref<4x8xf32>) iteration [4, 8]
      indexing [affine_map<(d0) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>] {
  ^bb0(%a: f32):
    mpk.yield %a : f32
  }
}

// -----

// An output map with one result for a rank-2 buffer.
mpk.program @pointwise_map_results arena 512 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x8xf32>
  %y = mpk.buffer arena 256 : memref<4x8xf32>
  // expected-error @below {{'mpk.pointwise' op indexing map 1 must map 2 dimensions to the 2 dimensions of its buffer, got affine_map<(d0, d1) -> (d1)>}}
  mpk.pointwise @k0 ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>) iteration [4, 8]
      indexing [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>] {
  ^bb0(%a: f32):
    mpk.yield %a : f32
  }
}

// -----

// A rank-0 buffer takes a map with no results.
mpk.program @pointwise_map_rank0 arena 512 persistent 0 {
  %s = mpk.buffer arena 0 : memref<f32>
  %y = mpk.buffer arena 256 : memref<4xf32>
  // expected-error @below {{'mpk.pointwise' op indexing map 0 must map 1 dimensions to the 0 dimensions of its buffer, got affine_map<(d0) -> (0)>}}
  mpk.pointwise @k0 ins(%s : memref<f32>) outs(%y : memref<4xf32>) iteration [4]
      indexing [affine_map<(d0) -> (0)>, affine_map<(d0) -> (d0)>] {
  ^bb0(%a: f32):
    mpk.yield %a : f32
  }
}

// -----

mpk.program @pointwise_map_symbols arena 512 persistent 0 {
  %x = mpk.buffer arena 0 : memref<8xf32>
  %y = mpk.buffer arena 256 : memref<4xf32>
  // expected-error @below {{'mpk.pointwise' op indexing map 0 must map 1 dimensions to the 1 dimensions of its buffer, got affine_map<(d0)[s0] -> (d0 + s0)>}}
  mpk.pointwise @k0 ins(%x : memref<8xf32>) outs(%y : memref<4xf32>) iteration [4]
      indexing [affine_map<(d0)[s0] -> (d0 + s0)>, affine_map<(d0) -> (d0)>] {
  ^bb0(%a: f32):
    mpk.yield %a : f32
  }
}

// -----

mpk.program @pointwise_indexing_attr arena 512 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4xf32>
  // expected-error @below {{'mpk.pointwise' op attribute 'indexing' failed to satisfy constraint: AffineMap array attribute}}
  mpk.pointwise @k0 ins(%x : memref<4xf32>) outs(%x : memref<4xf32>) iteration [4] indexing [1, 2] {
  ^bb0(%a: f32):
    mpk.yield %a : f32
  }
}

// -----

mpk.program @pointwise_body_arguments arena 512 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4xf32>
  %b = mpk.buffer arena 256 : memref<4xf32>
  // expected-error @below {{'mpk.pointwise' op the body expects 2 arguments, got 1}}
  mpk.pointwise @k0 ins(%x, %b : memref<4xf32>, memref<4xf32>) outs(%x : memref<4xf32>) iteration [4]
      indexing [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>] {
  ^bb0(%a: f32):
    mpk.yield %a : f32
  }
}

// -----

mpk.program @pointwise_body_extra_argument arena 512 persistent 0 {
  %y = mpk.buffer arena 256 : memref<4xf32>
  // expected-error @below {{'mpk.pointwise' op the body expects 0 arguments, got 1}}
  mpk.pointwise @k0 outs(%y : memref<4xf32>) iteration [4] indexing [affine_map<(d0) -> (d0)>] {
  ^bb0(%a: f32):
    mpk.yield %a : f32
  }
}

// -----

mpk.program @pointwise_yield_count arena 512 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4xf32>
  %y = mpk.buffer arena 256 : memref<4xf32>
  // expected-error @below {{'mpk.pointwise' op the body must end with an mpk.yield of 2 values}}
  mpk.pointwise @k0 ins(%x : memref<4xf32>) outs(%x, %y : memref<4xf32>, memref<4xf32>) iteration [4]
      indexing [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>] {
  ^bb0(%a: f32):
    mpk.yield %a : f32
  }
}

// -----

// An empty body gets an implicit mpk.yield of no values.
mpk.program @pointwise_empty_body arena 512 persistent 0 {
  %y = mpk.buffer arena 256 : memref<4xf32>
  // expected-error @below {{'mpk.pointwise' op the body must end with an mpk.yield of 1 values}}
  mpk.pointwise @k0 outs(%y : memref<4xf32>) iteration [4] indexing [affine_map<(d0) -> (d0)>] {
  }
}

// -----

mpk.program @pointwise_input_type arena 512 persistent 0 {
  %y = mpk.buffer arena 256 : memref<4xf32>
  %c = arith.constant dense<1.0> : tensor<4xf32>
  // expected-error @below {{'mpk.pointwise' op operand #0 must be variadic of 0D/1D/2D/3D/4D/5D/6D/7D/8D memref}}
  "mpk.pointwise"(%c, %y) <{indexing = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iteration = array<i64: 4>, operandSegmentSizes = array<i32: 1, 1>, sym_name = "k0"}> ({
  ^bb0(%a: f32):
    mpk.yield %a : f32
  }) : (tensor<4xf32>, memref<4xf32>) -> ()
}

//===----------------------------------------------------------------------===//
// mpk.reduce
//===----------------------------------------------------------------------===//

// -----

mpk.program @reduce_dim_too_large arena 512 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x8xf32>
  %s = mpk.buffer arena 256 : memref<4xf32>
  // expected-error @below {{'mpk.reduce' op reduction dimension 2 is out of range}}
  mpk.reduce @k0 sum ins(%x : memref<4x8xf32>) epilogue_ins() outs(%s : memref<4xf32>)
      iteration [4, 8] reduction_dims [2]
      indexing [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0) -> (d0)>] {
  ^bb0(%v: f32):
    mpk.yield %v : f32
  } epilogue {
  ^bb0(%acc: f32):
    mpk.yield %acc : f32
  }
}

// -----

mpk.program @reduce_dim_negative arena 512 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x8xf32>
  %s = mpk.buffer arena 256 : memref<4xf32>
  // expected-error @below {{'mpk.reduce' op reduction dimension -1 is out of range}}
  mpk.reduce @k0 sum ins(%x : memref<4x8xf32>) epilogue_ins() outs(%s : memref<4xf32>)
      iteration [4, 8] reduction_dims [-1]
      indexing [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0) -> (d0)>] {
  ^bb0(%v: f32):
    mpk.yield %v : f32
  } epilogue {
  ^bb0(%acc: f32):
    mpk.yield %acc : f32
  }
}

// -----

mpk.program @reduce_map_count arena 512 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x8xf32>
  %b = mpk.buffer arena 256 : memref<4xf32>
  %s = mpk.buffer arena 256 : memref<4xf32>
  // expected-error @below {{'mpk.reduce' op expects one indexing map per buffer (3), got 2}}
  mpk.reduce @k0 sum ins(%x : memref<4x8xf32>) epilogue_ins(%b : memref<4xf32>) outs(%s : memref<4xf32>)
      iteration [4, 8] reduction_dims [1]
      indexing [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0) -> (d0)>] {
  ^bb0(%v: f32):
    mpk.yield %v : f32
  } epilogue {
  ^bb0(%acc: f32, %c: f32):
    mpk.yield %acc : f32
  }
}

// -----

// Inputs are indexed over the iteration space...
mpk.program @reduce_input_map_dims arena 512 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x8xf32>
  %s = mpk.buffer arena 256 : memref<4xf32>
  // expected-error @below {{'mpk.reduce' op indexing map 0 must map 2 dimensions to the 2 dimensions of its buffer, got affine_map<(d0) -> (d0, 0)>}}
  mpk.reduce @k0 sum ins(%x : memref<4x8xf32>) epilogue_ins() outs(%s : memref<4xf32>)
      iteration [4, 8] reduction_dims [1]
      indexing [affine_map<(d0) -> (d0, 0)>, affine_map<(d0) -> (d0)>] {
  ^bb0(%v: f32):
    mpk.yield %v : f32
  } epilogue {
  ^bb0(%acc: f32):
    mpk.yield %acc : f32
  }
}

// -----

// ... epilogue inputs over the output space (here 1 dimension)...
mpk.program @reduce_epilogue_map_dims arena 512 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x8xf32>
  %b = mpk.buffer arena 256 : memref<4xf32>
  %s = mpk.buffer arena 256 : memref<4xf32>
  // expected-error @below {{'mpk.reduce' op indexing map 1 must map 1 dimensions to the 1 dimensions of its buffer, got affine_map<(d0, d1) -> (d0)>}}
  mpk.reduce @k0 sum ins(%x : memref<4x8xf32>) epilogue_ins(%b : memref<4xf32>) outs(%s : memref<4xf32>)
      iteration [4, 8] reduction_dims [1]
      indexing [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0) -> (d0)>] {
  ^bb0(%v: f32):
    mpk.yield %v : f32
  } epilogue {
  ^bb0(%acc: f32, %c: f32):
    mpk.yield %acc : f32
  }
}

// -----

// ... and so are outputs, with one result per buffer dimension.
mpk.program @reduce_output_map_results arena 512 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x8xf32>
  %s = mpk.buffer arena 256 : memref<4x1xf32>
  // expected-error @below {{'mpk.reduce' op indexing map 1 must map 1 dimensions to the 2 dimensions of its buffer, got affine_map<(d0) -> (d0)>}}
  mpk.reduce @k0 max ins(%x : memref<4x8xf32>) epilogue_ins() outs(%s : memref<4x1xf32>)
      iteration [4, 8] reduction_dims [1]
      indexing [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0) -> (d0)>] {
  ^bb0(%v: f32):
    mpk.yield %v : f32
  } epilogue {
  ^bb0(%acc: f32):
    mpk.yield %acc : f32
  }
}

// -----

// A full reduction has a 0-dimensional output space.
mpk.program @reduce_output_map_full arena 512 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x8xf32>
  %s = mpk.buffer arena 256 : memref<f32>
  // expected-error @below {{'mpk.reduce' op indexing map 1 must map 0 dimensions to the 0 dimensions of its buffer, got affine_map<(d0) -> ()>}}
  mpk.reduce @k0 sum ins(%x : memref<4x8xf32>) epilogue_ins() outs(%s : memref<f32>)
      iteration [4, 8] reduction_dims [0, 1]
      indexing [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0) -> ()>] {
  ^bb0(%v: f32):
    mpk.yield %v : f32
  } epilogue {
  ^bb0(%acc: f32):
    mpk.yield %acc : f32
  }
}

// -----

mpk.program @reduce_prologue_arguments arena 512 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x8xf32>
  %s = mpk.buffer arena 256 : memref<4xf32>
  // expected-error @below {{'mpk.reduce' op the prologue expects 1 arguments, got 2}}
  mpk.reduce @k0 sum ins(%x : memref<4x8xf32>) epilogue_ins() outs(%s : memref<4xf32>)
      iteration [4, 8] reduction_dims [1]
      indexing [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0) -> (d0)>] {
  ^bb0(%v: f32, %w: f32):
    mpk.yield %v : f32
  } epilogue {
  ^bb0(%acc: f32):
    mpk.yield %acc : f32
  }
}

// -----

mpk.program @reduce_prologue_yield arena 512 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x8xf32>
  %s = mpk.buffer arena 256 : memref<4xf32>
  // expected-error @below {{'mpk.reduce' op the prologue must end with an mpk.yield of 1 values}}
  mpk.reduce @k0 sum ins(%x : memref<4x8xf32>) epilogue_ins() outs(%s : memref<4xf32>)
      iteration [4, 8] reduction_dims [1]
      indexing [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0) -> (d0)>] {
  ^bb0(%v: f32):
    mpk.yield %v, %v : f32, f32
  } epilogue {
  ^bb0(%acc: f32):
    mpk.yield %acc : f32
  }
}

// -----

// The epilogue takes the accumulator and one value per epilogue input.
mpk.program @reduce_epilogue_arguments arena 512 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x8xf32>
  %b = mpk.buffer arena 256 : memref<4xf32>
  %s = mpk.buffer arena 256 : memref<4xf32>
  // expected-error @below {{'mpk.reduce' op the epilogue expects 2 arguments, got 1}}
  mpk.reduce @k0 sum ins(%x : memref<4x8xf32>) epilogue_ins(%b : memref<4xf32>) outs(%s : memref<4xf32>)
      iteration [4, 8] reduction_dims [1]
      indexing [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>] {
  ^bb0(%v: f32):
    mpk.yield %v : f32
  } epilogue {
  ^bb0(%acc: f32):
    mpk.yield %acc : f32
  }
}

// -----

mpk.program @reduce_epilogue_yield arena 512 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4x8xf32>
  %s = mpk.buffer arena 256 : memref<4xf32>
  %t = mpk.buffer arena 256 : memref<4xf32>
  // expected-error @below {{'mpk.reduce' op the epilogue must end with an mpk.yield of 2 values}}
  mpk.reduce @k0 sum ins(%x : memref<4x8xf32>) epilogue_ins() outs(%s, %t : memref<4xf32>, memref<4xf32>)
      iteration [4, 8] reduction_dims [1]
      indexing [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>] {
  ^bb0(%v: f32):
    mpk.yield %v : f32
  } epilogue {
  ^bb0(%acc: f32):
    mpk.yield %acc : f32
  }
}

// -----

// A body must end with mpk.yield, not another dialect's terminator.
mpk.program @reduce_epilogue_terminator arena 512 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4xf32>
  %s = mpk.buffer arena 256 : memref<f32>
  // expected-error @below {{'mpk.reduce' op the epilogue must end with an mpk.yield of 1 values}}
  mpk.reduce @k0 sum ins(%x : memref<4xf32>) epilogue_ins() outs(%s : memref<f32>)
      iteration [4] reduction_dims [0]
      indexing [affine_map<(d0) -> (d0)>, affine_map<() -> ()>] {
  ^bb0(%v: f32):
    mpk.yield %v : f32
  } epilogue {
  ^bb0(%acc: f32):
    mpg.yield
  }
}

// -----

mpk.program @reduce_kind arena 512 persistent 0 {
  %x = mpk.buffer arena 0 : memref<4xf32>
  %s = mpk.buffer arena 256 : memref<f32>
  // expected-error @below {{custom op 'mpk.reduce' expected string or keyword containing one of the following enum values for attribute 'kind' [sum, max]}}
  mpk.reduce @k0 mean ins(%x : memref<4xf32>) epilogue_ins() outs(%s : memref<f32>)
      iteration [4] reduction_dims [0]
      indexing [affine_map<(d0) -> (d0)>, affine_map<() -> ()>] {
  ^bb0(%v: f32):
    mpk.yield %v : f32
  } epilogue {
  ^bb0(%acc: f32):
    mpk.yield %acc : f32
  }
}

//===----------------------------------------------------------------------===//
// mpk.gemm
//===----------------------------------------------------------------------===//

// -----

mpk.program @gemm_zero_m arena 65536 persistent 0 {
  %a = mpk.buffer arena 0 : memref<4x8xf32>
  %b = mpk.buffer arena 256 : memref<8x16xf32>
  %c = mpk.buffer arena 1024 : memref<4x16xf32>
  // expected-error @below {{'mpk.gemm' op expects positive batch, m, n and k}}
  mpk.gemm %a, %b -> %c m 0 n 16 k 8 : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>
}

// -----

mpk.program @gemm_negative_k arena 65536 persistent 0 {
  %a = mpk.buffer arena 0 : memref<4x8xf32>
  %b = mpk.buffer arena 256 : memref<8x16xf32>
  %c = mpk.buffer arena 1024 : memref<4x16xf32>
  // expected-error @below {{'mpk.gemm' op expects positive batch, m, n and k}}
  mpk.gemm %a, %b -> %c m 4 n 16 k -8 : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>
}

// -----

mpk.program @gemm_zero_batch arena 65536 persistent 0 {
  %a = mpk.buffer arena 0 : memref<4x8xf32>
  %b = mpk.buffer arena 256 : memref<8x16xf32>
  %c = mpk.buffer arena 1024 : memref<4x16xf32>
  // expected-error @below {{'mpk.gemm' op expects positive batch, m, n and k}}
  mpk.gemm %a, %b -> %c m 4 n 16 k 8 {batch = 0 : i64} : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>
}

// -----

// beta accumulates into C only in a single product without an epilogue,
// into an f32 or f64 C, and is finite.
mpk.program @gemm_beta_with_epilogue arena 65536 persistent 0 {
  %a = mpk.buffer arena 0 : memref<4x8xf32>
  %b = mpk.buffer arena 256 : memref<8x16xf32>
  %c = mpk.buffer arena 1024 : memref<4x16xf32>
  // expected-error @below {{'mpk.gemm' op accumulates into C (beta) only in a single product without an epilogue, into an f32 C (or with A, B and C in f64)}}
  mpk.gemm %a, %b -> %c m 4 n 16 k 8 epilogue relu beta 0.9 : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>
}

// -----

mpk.program @gemm_beta_into_f16 arena 65536 persistent 0 {
  %a = mpk.buffer arena 0 : memref<4x8xf16>
  %b = mpk.buffer arena 256 : memref<8x16xf16>
  %c = mpk.buffer arena 1024 : memref<4x16xf16>
  // expected-error @below {{'mpk.gemm' op accumulates into C (beta) only in a single product without an epilogue, into an f32 C (or with A, B and C in f64)}}
  mpk.gemm %a, %b -> %c m 4 n 16 k 8 beta 1.0 : memref<4x8xf16>, memref<8x16xf16>, memref<4x16xf16>
}

// -----

mpk.program @gemm_beta_into_f64_of_f32 arena 65536 persistent 0 {
  %a = mpk.buffer arena 0 : memref<4x8xf32>
  %b = mpk.buffer arena 256 : memref<8x16xf32>
  %c = mpk.buffer arena 1024 : memref<4x16xf64>
  // expected-error @below {{'mpk.gemm' op accumulates into C (beta) only in a single product without an epilogue, into an f32 C (or with A, B and C in f64)}}
  mpk.gemm %a, %b -> %c m 4 n 16 k 8 beta 1.0 : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf64>
}

// -----

mpk.program @gemm_beta_batched arena 65536 persistent 0 {
  %a = mpk.buffer arena 0 : memref<4x8xf32>
  %b = mpk.buffer arena 256 : memref<8x16xf32>
  %c = mpk.buffer arena 1024 : memref<2x4x16xf32>
  // expected-error @below {{'mpk.gemm' op accumulates into C (beta) only in a single product without an epilogue, into an f32 C (or with A, B and C in f64)}}
  mpk.gemm %a, %b -> %c m 4 n 16 k 8 beta 0.5 {batch = 2 : i64, stride_c = 64 : i64} : memref<4x8xf32>, memref<8x16xf32>, memref<2x4x16xf32>
}

// -----

mpk.program @gemm_beta_infinite arena 65536 persistent 0 {
  %a = mpk.buffer arena 0 : memref<4x8xf32>
  %b = mpk.buffer arena 256 : memref<8x16xf32>
  %c = mpk.buffer arena 1024 : memref<4x16xf32>
  // expected-error @below {{'mpk.gemm' op expects a finite beta of an f32's range}}
  mpk.gemm %a, %b -> %c m 4 n 16 k 8 beta 0x7FF0000000000000 : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>
}

// -----

mpk.program @gemm_beta_beyond_f32 arena 65536 persistent 0 {
  %a = mpk.buffer arena 0 : memref<4x8xf32>
  %b = mpk.buffer arena 256 : memref<8x16xf32>
  %c = mpk.buffer arena 1024 : memref<4x16xf32>
  // expected-error @below {{'mpk.gemm' op expects a finite beta of an f32's range}}
  mpk.gemm %a, %b -> %c m 4 n 16 k 8 beta 1.0e300 : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>
}

// -----

// A is 4 x 8 but m * k = 5 * 8.
mpk.program @gemm_a_too_small arena 65536 persistent 0 {
  %a = mpk.buffer arena 0 : memref<4x8xf32>
  %b = mpk.buffer arena 256 : memref<8x16xf32>
  %c = mpk.buffer arena 1024 : memref<5x16xf32>
  // expected-error @below {{'mpk.gemm' op expects every batch of A, B and C to lie inside its buffer}}
  mpk.gemm %a, %b -> %c m 5 n 16 k 8 : memref<4x8xf32>, memref<8x16xf32>, memref<5x16xf32>
}

// -----

// B's offset puts its matrix past the end.
mpk.program @gemm_b_offset arena 65536 persistent 0 {
  %a = mpk.buffer arena 0 : memref<4x8xf32>
  %b = mpk.buffer arena 256 : memref<8x16xf32>
  %c = mpk.buffer arena 1024 : memref<4x16xf32>
  // expected-error @below {{'mpk.gemm' op expects every batch of A, B and C to lie inside its buffer}}
  mpk.gemm %a, %b -> %c m 4 n 16 k 8 {offset_b = 1 : i64} : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>
}

// -----

// The last of 3 batches of C, 64 elements apart, ends at 192 > 128.
mpk.program @gemm_c_batches arena 65536 persistent 0 {
  %a = mpk.buffer arena 0 : memref<4x8xf32>
  %b = mpk.buffer arena 256 : memref<8x16xf32>
  %c = mpk.buffer arena 1024 : memref<2x4x16xf32>
  // expected-error @below {{'mpk.gemm' op expects every batch of A, B and C to lie inside its buffer}}
  mpk.gemm %a, %b -> %c m 4 n 16 k 8 {batch = 3 : i64, stride_c = 64 : i64} : memref<4x8xf32>, memref<8x16xf32>, memref<2x4x16xf32>
}

// -----

mpk.program @gemm_negative_offset arena 65536 persistent 0 {
  %a = mpk.buffer arena 0 : memref<4x8xf32>
  %b = mpk.buffer arena 256 : memref<8x16xf32>
  %c = mpk.buffer arena 1024 : memref<4x16xf32>
  // expected-error @below {{'mpk.gemm' op expects every batch of A, B and C to lie inside its buffer}}
  mpk.gemm %a, %b -> %c m 4 n 16 k 8 {offset_a = -1 : i64} : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>
}

// -----

mpk.program @gemm_negative_stride arena 65536 persistent 0 {
  %a = mpk.buffer arena 0 : memref<2x4x8xf32>
  %b = mpk.buffer arena 256 : memref<8x16xf32>
  %c = mpk.buffer arena 1024 : memref<2x4x16xf32>
  // expected-error @below {{'mpk.gemm' op expects every batch of A, B and C to lie inside its buffer}}
  mpk.gemm %a, %b -> %c m 4 n 16 k 8 {batch = 2 : i64, offset_a = 32 : i64, stride_a = -32 : i64, stride_c = 64 : i64} : memref<2x4x8xf32>, memref<8x16xf32>, memref<2x4x16xf32>
}

// -----

mpk.program @gemm_bias_without_epilogue arena 65536 persistent 256 {
  %a = mpk.buffer arena 0 : memref<4x8xf32>
  %b = mpk.buffer arena 256 : memref<8x16xf32>
  %c = mpk.buffer arena 1024 : memref<4x16xf32>
  %bias = mpk.buffer persistent 0 : memref<16xf32>
  // expected-error @below {{'mpk.gemm' op expects a bias operand exactly when the epilogue adds one}}
  mpk.gemm %a, %b -> %c bias %bias m 4 n 16 k 8 epilogue relu : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>, memref<16xf32>
}

// -----

mpk.program @gemm_epilogue_without_bias arena 65536 persistent 0 {
  %a = mpk.buffer arena 0 : memref<4x8xf32>
  %b = mpk.buffer arena 256 : memref<8x16xf32>
  %c = mpk.buffer arena 1024 : memref<4x16xf32>
  // expected-error @below {{'mpk.gemm' op expects a bias operand exactly when the epilogue adds one}}
  mpk.gemm %a, %b -> %c m 4 n 16 k 8 epilogue bias_gelu : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>
}

// -----

mpk.program @gemm_bias_size arena 65536 persistent 256 {
  %a = mpk.buffer arena 0 : memref<4x8xf32>
  %b = mpk.buffer arena 256 : memref<8x16xf32>
  %c = mpk.buffer arena 1024 : memref<4x16xf32>
  %bias = mpk.buffer persistent 0 : memref<4xf32>
  // expected-error @below {{'mpk.gemm' op expects a bias of 16 elements}}
  mpk.gemm %a, %b -> %c bias %bias m 4 n 16 k 8 epilogue bias : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>, memref<4xf32>
}

// -----

mpk.program @gemm_epilogue_kind arena 65536 persistent 0 {
  %a = mpk.buffer arena 0 : memref<4x8xf32>
  %b = mpk.buffer arena 256 : memref<8x16xf32>
  %c = mpk.buffer arena 1024 : memref<4x16xf32>
  // expected-error @below {{custom op 'mpk.gemm' expected string or keyword containing one of the following enum values for attribute 'epilogue' [none, bias, relu, bias_relu, gelu, bias_gelu]}}
  mpk.gemm %a, %b -> %c m 4 n 16 k 8 epilogue tanh : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>
}

//===----------------------------------------------------------------------===//
// mpk.im2col and mpk.col2im
//===----------------------------------------------------------------------===//

// -----

mpk.program @im2col_attribute_counts arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<1x2x6x6xf32>
  %c = mpk.buffer arena 512 : memref<1x18x36xf32>
  // expected-error @below {{'mpk.im2col' op expects 2 kernel sizes, 2 strides, 4 paddings (top, left, bottom, right) and 2 dilations}}
  mpk.im2col @k0 %x -> %c kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] : memref<1x2x6x6xf32>, memref<1x18x36xf32>
}

// -----

mpk.program @im2col_zero_stride arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<1x2x6x6xf32>
  %c = mpk.buffer arena 512 : memref<1x18x36xf32>
  // expected-error @below {{'mpk.im2col' op expects positive kernel sizes, strides and dilations and non-negative paddings}}
  mpk.im2col @k0 %x -> %c kernel [3, 3] stride [0, 1] padding [1, 1, 1, 1] dilation [1, 1] : memref<1x2x6x6xf32>, memref<1x18x36xf32>
}

// -----

mpk.program @im2col_ranks arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<2x6x6xf32>
  %c = mpk.buffer arena 512 : memref<1x18x36xf32>
  // expected-error @below {{'mpk.im2col' op expects an image [N, C, H, W] and columns [N, C * kH * kW, Ho * Wo]}}
  mpk.im2col @k0 %x -> %c kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1] dilation [1, 1] : memref<2x6x6xf32>, memref<1x18x36xf32>
}

// -----

mpk.program @im2col_window_too_large arena 65536 persistent 0 {
  %x = mpk.buffer arena 0 : memref<1x2x2x2xf32>
  %c = mpk.buffer arena 512 : memref<1x18x1xf32>
  // expected-error @below {{'mpk.im2col' op expects windows that fit in the padded image}}
  mpk.im2col @k0 %x -> %c kernel [3, 3] stride [1, 1] padding [0, 0, 0, 0] dilation [1, 1] : memref<1x2x2x2xf32>, memref<1x18x1xf32>
}

// -----

mpk.program @col2im_columns_shape arena 65536 persistent 0 {
  %c = mpk.buffer arena 512 : memref<1x18x25xf32>
  %x = mpk.buffer arena 0 : memref<1x2x6x6xf16>
  // expected-error @below {{'mpk.col2im' op expects columns of shape [1, 18, 36] for this image, got 'memref<1x18x25xf32>'}}
  mpk.col2im @k0 %c -> %x kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1] dilation [1, 1] : memref<1x18x25xf32>, memref<1x2x6x6xf16>
}
