// RUN: mpc-opt %s | mpc-opt | FileCheck %s
// RUN: mpc-opt %s -mlir-print-op-generic | mpc-opt | FileCheck %s

// Round-trip tests of the mpk dialect: the program and its declarations
// (buffer, input, output, param, constant, copy), the generated kernels
// (pointwise, reduce, softmax, layer_norm, cross_entropy, pool2d,
// pool2d_grad, im2col, gather) and the GEMM library call with every
// optional part. The second RUN line goes through the generic form.

// The indexing maps of the kernels below, printed as aliases.
// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$SCALAR:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[$TRANSPOSE:.+]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[$NONE:.+]] = affine_map<() -> ()>
// CHECK-DAG: #[[$ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$KEEP:.+]] = affine_map<(d0) -> (0, d0)>

//===----------------------------------------------------------------------===//
// Program structure and declarations
//===----------------------------------------------------------------------===//

// Buffers of every element type and of ranks 0 to 8, in both spaces.
// CHECK-LABEL: mpk.program @buffers arena 16384 persistent 1024 {
// CHECK-NEXT: %{{.+}} = mpk.buffer arena 0 : memref<64x64xf32>
// CHECK-NEXT: %{{.+}} = mpk.buffer arena 256 : memref<8xf16>
// CHECK-NEXT: %{{.+}} = mpk.buffer arena 512 : memref<2x3xbf16>
// CHECK-NEXT: %{{.+}} = mpk.buffer arena 768 : memref<f64>
// CHECK-NEXT: %{{.+}} = mpk.buffer persistent 0 : memref<4xi32>
// CHECK-NEXT: %{{.+}} = mpk.buffer persistent 256 : memref<4xi64>
// CHECK-NEXT: %{{.+}} = mpk.buffer persistent 512 : memref<5xi1>
// CHECK-NEXT: %{{.+}} = mpk.buffer arena 1024 : memref<1x1x1x1x1x1x1x2xf32>
// CHECK-NEXT: %{{.+}} = mpk.buffer arena 0 {mpc.note} : memref<16x256xf32>
// CHECK-NEXT: }
mpk.program @buffers arena 16384 persistent 1024 {
  %0 = mpk.buffer arena 0 : memref<64x64xf32>
  %1 = mpk.buffer arena 256 : memref<8xf16>
  %2 = mpk.buffer arena 512 : memref<2x3xbf16>
  %3 = mpk.buffer arena 768 : memref<f64>
  %4 = mpk.buffer persistent 0 : memref<4xi32>
  %5 = mpk.buffer persistent 256 : memref<4xi64>
  %6 = mpk.buffer persistent 512 : memref<5xi1>
  %7 = mpk.buffer arena 1024 : memref<1x1x1x1x1x1x1x2xf32>
  // Two buffers at one offset alias (a reshape).
  %8 = mpk.buffer arena 0 {mpc.note} : memref<16x256xf32>
}

// An empty program; attributes after the keyword.
// CHECK-LABEL: mpk.program @empty arena 0 persistent 0 {
// CHECK-NEXT: }
mpk.program @empty arena 0 persistent 0 {
}

// CHECK-LABEL: mpk.program @attributes arena 0 persistent 0 attributes {mpc.tag = "t"} {
mpk.program @attributes arena 0 persistent 0 attributes {mpc.tag = "t"} {
}

// Inputs, outputs, parameters (state and frozen flags, initializers),
// constants and state copies.
// CHECK-LABEL: mpk.program @declarations arena 16384 persistent 1024 {
// CHECK-NEXT: %[[X:.+]] = mpk.buffer arena 0 : memref<64x64xf32>
// CHECK-NEXT: mpk.input "pixels" %[[X]] : memref<64x64xf32>
// CHECK-NEXT: mpk.output "x copy" %[[X]] : memref<64x64xf32>
// CHECK-NEXT: %[[W:.+]] = mpk.buffer persistent 0 : memref<64x2xf32>
// CHECK-NEXT: mpk.param "fc.weight" %[[W]] init(#mpg.init<glorot_uniform, {}>) : memref<64x2xf32>
// CHECK-NEXT: %[[F:.+]] = mpk.buffer persistent 512 : memref<2xf32>
// CHECK-NEXT: mpk.param "emb" %[[F]] frozen init(#mpg.init<ones, {}>) : memref<2xf32>
// CHECK-NEXT: %[[S:.+]] = mpk.buffer persistent 768 : memref<2xf32>
// CHECK-NEXT: mpk.param "bn.mean" %[[S]] state frozen init(#mpg.init<zeros, {}>) : memref<2xf32>
// CHECK-NEXT: %[[C:.+]] = mpk.buffer persistent 0 : memref<2xf32>
// CHECK-NEXT: mpk.constant %[[C]] dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32> : memref<2xf32>
// CHECK-NEXT: mpk.constant %[[C]] dense<5.000000e-01> : tensor<2xf32> {mpc.note} : memref<2xf32>
// CHECK-NEXT: mpk.copy %[[C]], %[[S]] : memref<2xf32>
// CHECK-NEXT: mpk.copy %[[S]], %[[S]] {mpc.note} : memref<2xf32>
// CHECK-NEXT: }
mpk.program @declarations arena 16384 persistent 1024 {
  %x = mpk.buffer arena 0 : memref<64x64xf32>
  mpk.input "pixels" %x : memref<64x64xf32>
  mpk.output "x copy" %x : memref<64x64xf32>
  %w = mpk.buffer persistent 0 : memref<64x2xf32>
  mpk.param "fc.weight" %w init(#mpg.init<glorot_uniform, {}>) : memref<64x2xf32>
  %f = mpk.buffer persistent 512 : memref<2xf32>
  mpk.param "emb" %f frozen init(#mpg.init<ones, {}>) : memref<2xf32>
  %s = mpk.buffer persistent 768 : memref<2xf32>
  mpk.param "bn.mean" %s state frozen init(#mpg.init<zeros, {}>) : memref<2xf32>
  %c = mpk.buffer persistent 0 : memref<2xf32>
  mpk.constant %c dense<[1.0, 2.0]> : tensor<2xf32> : memref<2xf32>
  mpk.constant %c dense<0.5> : tensor<2xf32> {mpc.note} : memref<2xf32>
  mpk.copy %c, %s : memref<2xf32>
  mpk.copy %s, %s {mpc.note} : memref<2xf32>
}

//===----------------------------------------------------------------------===//
// Generated kernels
//===----------------------------------------------------------------------===//

// A pointwise kernel with broadcast maps, mixed storage types and two
// outputs; a kernel without inputs; a copy kernel with an affine map.
// CHECK-LABEL: mpk.program @pointwise
// CHECK: mpk.pointwise @k0 ins(%[[X:.+]], %[[B:.+]], %[[S:.+]] : memref<64x128xf16>, memref<128xf32>, memref<f32>) outs(%[[Y:.+]], %[[M:.+]] : memref<64x128xf16>, memref<64x128xi1>)
// CHECK-SAME: iteration [64, 128] indexing [#[[$ID2]], #[[$ROW]], #[[$SCALAR]], #[[$ID2]], #[[$ID2]]] {
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %[[C:.+]]: f32, %[[D:.+]]: f32):
// CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[A]], %[[C]] : f32
// CHECK-NEXT: %[[PROD:.+]] = arith.mulf %[[SUM]], %[[D]] : f32
// CHECK-NEXT: %[[GT:.+]] = arith.cmpf ogt, %[[PROD]], %[[D]] : f32
// CHECK-NEXT: mpk.yield %[[PROD]], %[[GT]] : f32, i1
// CHECK-NEXT: }
// CHECK-NEXT: mpk.pointwise @k1 outs(%[[Y]] : memref<64x128xf16>) iteration [64, 128] indexing [#[[$ID2]]] {
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: mpk.yield %[[ZERO]] : f32
// CHECK-NEXT: }
// CHECK: mpk.pointwise @k2 ins(%[[Y]] : memref<64x128xf16>) outs(%[[T:.+]] : memref<128x64xf16>) iteration [128, 64] indexing [#[[$TRANSPOSE]], #[[$ID2]]] attributes {mpc.note} {
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32):
// CHECK-NEXT: mpk.yield %[[V]] : f32
// CHECK-NEXT: }
// CHECK: mpk.pointwise @k3 outs(%{{.+}} : memref<f32>) iteration [] indexing [#[[$NONE]]] {
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: mpk.yield %[[ONE]] : f32
// CHECK-NEXT: }
mpk.program @pointwise arena 65792 persistent 512 {
  %x = mpk.buffer arena 0 : memref<64x128xf16>
  %b = mpk.buffer persistent 0 : memref<128xf32>
  %s = mpk.buffer arena 16384 : memref<f32>
  %y = mpk.buffer arena 16640 : memref<64x128xf16>
  %m = mpk.buffer arena 33024 : memref<64x128xi1>
  mpk.pointwise @k0 ins(%x, %b, %s : memref<64x128xf16>, memref<128xf32>, memref<f32>)
      outs(%y, %m : memref<64x128xf16>, memref<64x128xi1>) iteration [64, 128]
      indexing [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>,
                affine_map<(d0, d1) -> (d0, d1)>] {
  ^bb0(%a: f32, %c: f32, %d: f32):
    %0 = arith.addf %a, %c : f32
    %1 = arith.mulf %0, %d : f32
    %2 = arith.cmpf ogt, %1, %d : f32
    mpk.yield %1, %2 : f32, i1
  }
  mpk.pointwise @k1 outs(%y : memref<64x128xf16>) iteration [64, 128]
      indexing [affine_map<(d0, d1) -> (d0, d1)>] {
    %0 = arith.constant 0.0 : f32
    mpk.yield %0 : f32
  }
  %t = mpk.buffer arena 49408 : memref<128x64xf16>
  mpk.pointwise @k2 ins(%y : memref<64x128xf16>) outs(%t : memref<128x64xf16>)
      iteration [128, 64]
      indexing [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>]
      attributes {mpc.note} {
  ^bb0(%v: f32):
    mpk.yield %v : f32
  }
  %r = mpk.buffer arena 65280 : memref<f32>
  mpk.pointwise @k3 outs(%r : memref<f32>) iteration [] indexing [affine_map<() -> ()>] {
    %0 = arith.constant 1.0 : f32
    mpk.yield %0 : f32
  }
}

// Reductions: a row sum with a prologue and epilogue inputs, a max with no
// epilogue inputs and two outputs, and a full sum into a rank-0 buffer.
// CHECK-LABEL: mpk.program @reduce
// CHECK: mpk.reduce @k0 sum ins(%[[X:.+]] : memref<64x10xf32>) epilogue_ins(%[[B:.+]] : memref<64xf32>) outs(%[[S:.+]] : memref<64xf32>)
// CHECK-SAME: iteration [64, 10] reduction_dims [1] indexing [#[[$ID2]], #[[$ID1]], #[[$ID1]]] {
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32):
// CHECK-NEXT: %[[E:.+]] = math.exp %[[V]] : f32
// CHECK-NEXT: mpk.yield %[[E]] : f32
// CHECK-NEXT: } epilogue {
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: f32, %[[C:.+]]: f32):
// CHECK-NEXT: %[[R:.+]] = arith.addf %[[ACC]], %[[C]] : f32
// CHECK-NEXT: mpk.yield %[[R]] : f32
// CHECK-NEXT: }
// CHECK: mpk.reduce @k1 max ins(%[[X]] : memref<64x10xf32>) epilogue_ins() outs(%[[S]], %{{.+}} : memref<64xf32>, memref<1x10xf16>)
// CHECK-SAME: iteration [64, 10] reduction_dims [0] indexing [#[[$ID2]], #[[$ID1]], #[[$KEEP]]] attributes {mpc.note} {
// CHECK-NEXT: ^bb0(%[[V2:.+]]: f32):
// CHECK-NEXT: mpk.yield %[[V2]] : f32
// CHECK-NEXT: } epilogue {
// CHECK-NEXT: ^bb0(%[[ACC2:.+]]: f32):
// CHECK-NEXT: mpk.yield %[[ACC2]], %[[ACC2]] : f32, f32
// CHECK-NEXT: }
// CHECK: mpk.reduce @k2 sum ins(%[[X]] : memref<64x10xf32>) epilogue_ins() outs(%{{.+}} : memref<f64>)
// CHECK-SAME: iteration [64, 10] reduction_dims [0, 1] indexing [#[[$ID2]], #[[$NONE]]] {
mpk.program @reduce arena 4096 persistent 256 {
  %x = mpk.buffer arena 0 : memref<64x10xf32>
  %b = mpk.buffer persistent 0 : memref<64xf32>
  %s = mpk.buffer arena 2560 : memref<64xf32>
  mpk.reduce @k0 sum ins(%x : memref<64x10xf32>) epilogue_ins(%b : memref<64xf32>)
      outs(%s : memref<64xf32>) iteration [64, 10] reduction_dims [1]
      indexing [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0) -> (d0)>,
                affine_map<(d0) -> (d0)>] {
  ^bb0(%v: f32):
    %0 = math.exp %v : f32
    mpk.yield %0 : f32
  } epilogue {
  ^bb0(%acc: f32, %c: f32):
    %0 = arith.addf %acc, %c : f32
    mpk.yield %0 : f32
  }
  %k = mpk.buffer arena 2816 : memref<1x10xf16>
  mpk.reduce @k1 max ins(%x : memref<64x10xf32>) epilogue_ins() outs(%s, %k : memref<64xf32>, memref<1x10xf16>)
      iteration [64, 10] reduction_dims [0]
      indexing [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0) -> (d0)>,
                affine_map<(d0) -> (0, d0)>] attributes {mpc.note} {
  ^bb0(%v: f32):
    mpk.yield %v : f32
  } epilogue {
  ^bb0(%acc: f32):
    mpk.yield %acc, %acc : f32, f32
  }
  %t = mpk.buffer arena 3072 : memref<f64>
  mpk.reduce @k2 sum ins(%x : memref<64x10xf32>) epilogue_ins() outs(%t : memref<f64>)
      iteration [64, 10] reduction_dims [0, 1]
      indexing [affine_map<(d0, d1) -> (d0, d1)>, affine_map<() -> ()>] {
  ^bb0(%v: f32):
    %0 = arith.extf %v : f32 to f64
    mpk.yield %0 : f64
  } epilogue {
  ^bb0(%acc: f64):
    mpk.yield %acc : f64
  }
}

// Row kernels.
// CHECK-LABEL: mpk.program @rows
// CHECK: mpk.softmax @k0 %[[X:.+]] -> %[[Y:.+]] outer 64 cols 10 inner 1 : memref<64x10xf32>, memref<64x10xf32>
// CHECK-NEXT: mpk.softmax @k1 %[[X]] -> %[[Y]] outer 4 cols 16 inner 10 log {mpc.note} : memref<64x10xf32>, memref<64x10xf32>
// CHECK: mpk.layer_norm @k2 %[[H:.+]], %[[G:.+]], %[[B:.+]] -> %[[O:.+]] rows 128 cols 64 eps 1.000000e-05 : memref<8x16x64xf16>, memref<64xf32>, memref<64xf32>, memref<8x16x64xf32>
// CHECK: mpk.cross_entropy @k3 %[[X]], %[[L:.+]] -> %[[R:.+]] rows 64 cols 10 : memref<64x10xf32>, memref<64xi32>, memref<64xf32>
mpk.program @rows arena 65536 persistent 512 {
  %x = mpk.buffer arena 0 : memref<64x10xf32>
  %y = mpk.buffer arena 2560 : memref<64x10xf32>
  mpk.softmax @k0 %x -> %y outer 64 cols 10 inner 1 : memref<64x10xf32>, memref<64x10xf32>
  mpk.softmax @k1 %x -> %y outer 4 cols 16 inner 10 log {mpc.note} : memref<64x10xf32>, memref<64x10xf32>
  %h = mpk.buffer arena 5120 : memref<8x16x64xf16>
  %g = mpk.buffer persistent 0 : memref<64xf32>
  %b = mpk.buffer persistent 256 : memref<64xf32>
  %o = mpk.buffer arena 21504 : memref<8x16x64xf32>
  mpk.layer_norm @k2 %h, %g, %b -> %o rows 128 cols 64 eps 1.0e-05
      : memref<8x16x64xf16>, memref<64xf32>, memref<64xf32>, memref<8x16x64xf32>
  %l = mpk.buffer arena 54272 : memref<64xi32>
  %r = mpk.buffer arena 54528 : memref<64xf32>
  mpk.cross_entropy @k3 %x, %l -> %r rows 64 cols 10 : memref<64x10xf32>, memref<64xi32>, memref<64xf32>
}

// Pooling and its gradients, im2col, col2im and gather.
// CHECK-LABEL: mpk.program @windows
// CHECK: mpk.pool2d @k0 max %[[X:.+]] -> %[[P:.+]] kernel [2, 2] stride [2, 2] padding [0, 0, 0, 0] : memref<8x16x28x28xf32>, memref<8x16x14x14xf32>
// CHECK-NEXT: mpk.pool2d @k1 avg %[[X]] -> %[[P]] kernel [3, 3] stride [2, 2] padding [1, 1, 1, 1] count_include_pad : memref<8x16x28x28xf32>, memref<8x16x14x14xf32>
// CHECK-NEXT: mpk.pool2d @k2 avg %[[X]] -> %[[P]] kernel [2, 2] stride [2, 2] padding [0, 1, 0, 0] : memref<8x16x28x28xf32>, memref<8x16x14x14xf32>
// CHECK: mpk.pool2d_grad @k6 max %[[P]], %[[X]] -> %[[DX:.+]] kernel [2, 2] stride [2, 2] padding [0, 0, 0, 0] : memref<8x16x14x14xf32>, memref<8x16x28x28xf32>, memref<8x16x28x28xf32>
// CHECK-NEXT: mpk.pool2d_grad @k7 avg %[[P]] -> %[[DX]] kernel [3, 3] stride [2, 2] padding [1, 1, 1, 1] count_include_pad : memref<8x16x14x14xf32>, memref<8x16x28x28xf32>
// CHECK: mpk.im2col @k3 %[[I:.+]] -> %[[C:.+]] kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1] dilation [1, 1] : memref<8x3x28x28xf32>, memref<8x27x784xf32>
// CHECK-NEXT: mpk.col2im @k5 %[[C]] -> %[[I]] kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1] dilation [1, 1] : memref<8x27x784xf32>, memref<8x3x28x28xf32>
// CHECK: mpk.gather @k4 %[[T:.+]], %[[IDS:.+]] -> %[[E:.+]] : memref<96x32xf32>, memref<8x16xi32>, memref<8x16x32xf32>
mpk.program @windows arena 1048576 persistent 16384 {
  %x = mpk.buffer arena 0 : memref<8x16x28x28xf32>
  %p = mpk.buffer arena 401408 : memref<8x16x14x14xf32>
  mpk.pool2d @k0 max %x -> %p kernel [2, 2] stride [2, 2] padding [0, 0, 0, 0]
      : memref<8x16x28x28xf32>, memref<8x16x14x14xf32>
  mpk.pool2d @k1 avg %x -> %p kernel [3, 3] stride [2, 2] padding [1, 1, 1, 1] count_include_pad
      : memref<8x16x28x28xf32>, memref<8x16x14x14xf32>
  mpk.pool2d @k2 avg %x -> %p kernel [2, 2] stride [2, 2] padding [0, 1, 0, 0]
      : memref<8x16x28x28xf32>, memref<8x16x14x14xf32>
  %dx = mpk.buffer arena 501760 : memref<8x16x28x28xf32>
  mpk.pool2d_grad @k6 max %p, %x -> %dx kernel [2, 2] stride [2, 2] padding [0, 0, 0, 0]
      : memref<8x16x14x14xf32>, memref<8x16x28x28xf32>, memref<8x16x28x28xf32>
  // Without the forward input, its type is left out too.
  mpk.pool2d_grad @k7 avg %p -> %dx kernel [3, 3] stride [2, 2] padding [1, 1, 1, 1] count_include_pad
      : memref<8x16x14x14xf32>, memref<8x16x28x28xf32>
  %i = mpk.buffer arena 0 : memref<8x3x28x28xf32>
  %c = mpk.buffer arena 75264 : memref<8x27x784xf32>
  mpk.im2col @k3 %i -> %c kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1] dilation [1, 1]
      : memref<8x3x28x28xf32>, memref<8x27x784xf32>
  mpk.col2im @k5 %c -> %i kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1] dilation [1, 1]
      : memref<8x27x784xf32>, memref<8x3x28x28xf32>
  %t = mpk.buffer persistent 0 : memref<96x32xf32>
  %ids = mpk.buffer arena 0 : memref<8x16xi32>
  %e = mpk.buffer arena 512 : memref<8x16x32xf32>
  mpk.gather @k4 %t, %ids -> %e : memref<96x32xf32>, memref<8x16xi32>, memref<8x16x32xf32>
}

//===----------------------------------------------------------------------===//
// Library calls
//===----------------------------------------------------------------------===//

// A plain GEMM (default attributes are not printed), every epilogue, the
// transposes, and the batch, offset and stride attributes (a stride of 0
// shares an operand across the batch).
// CHECK-LABEL: mpk.program @gemm
// CHECK: mpk.gemm %[[X:.+]], %[[W:.+]] -> %[[Y:.+]] m 64 n 128 k 64 : memref<64x64xf32>, memref<64x128xf32>, memref<64x128xf32>
// CHECK-NEXT: mpk.gemm %[[X]], %[[W]] -> %[[Y]] bias %[[B:.+]] m 64 n 128 k 64 epilogue bias : memref<64x64xf32>, memref<64x128xf32>, memref<64x128xf32>, memref<128xf32>
// CHECK-NEXT: mpk.gemm %[[X]], %[[W]] -> %[[Y]] m 64 n 128 k 64 epilogue relu : memref<64x64xf32>, memref<64x128xf32>, memref<64x128xf32>
// CHECK-NEXT: mpk.gemm %[[X]], %[[W]] -> %[[Y]] bias %[[B]] m 64 n 128 k 64 epilogue bias_relu : memref<64x64xf32>, memref<64x128xf32>, memref<64x128xf32>, memref<128xf32>
// CHECK-NEXT: mpk.gemm %[[X]], %[[W]] -> %[[H:.+]] m 64 n 128 k 64 epilogue gelu : memref<64x64xf32>, memref<64x128xf32>, memref<64x128xf16>
// CHECK-NEXT: mpk.gemm %[[X]], %[[W]] -> %[[H]] bias %[[B]] m 64 n 128 k 64 epilogue bias_gelu : memref<64x64xf32>, memref<64x128xf32>, memref<64x128xf16>, memref<128xf32>
// CHECK-NEXT: mpk.gemm %[[X]], %[[W]] -> %[[Y]] m 64 n 128 k 64 : memref<64x64xf32>, memref<64x128xf32>, memref<64x128xf32>
// CHECK-NEXT: mpk.gemm %[[W]], %[[X]] -> %[[Y]] m 128 n 64 k 64 {transpose_a, transpose_b} : memref<64x128xf32>, memref<64x64xf32>, memref<64x128xf32>
// CHECK: mpk.gemm %[[Q:.+]], %[[K:.+]] -> %[[S:.+]] m 16 n 16 k 32 {batch = 8 : i64, stride_a = 512 : i64, stride_b = 512 : i64, stride_c = 256 : i64, transpose_b} : memref<8x16x32xf32>, memref<8x16x32xf32>, memref<8x16x16xf32>
// CHECK: mpk.gemm %[[F:.+]], %[[C:.+]] -> %[[O:.+]] m 3 n 16 k 18 {batch = 2 : i64, offset_a = 54 : i64, offset_b = 288 : i64, offset_c = 48 : i64, stride_b = 576 : i64, stride_c = 96 : i64} : memref<6x2x3x3xf32>, memref<2x36x16xf32>, memref<2x6x4x4xf32>
// CHECK-NEXT: mpk.gemm %[[X]], %[[W]] -> %[[Y]] m 64 n 128 k 64 beta 9.000000e-01 {transpose_a} : memref<64x64xf32>, memref<64x128xf32>, memref<64x128xf32>
// CHECK-NEXT: mpk.gemm %[[X]], %[[W]] -> %[[Y]] m 64 n 128 k 64 : memref<64x64xf32>, memref<64x128xf32>, memref<64x128xf32>
mpk.program @gemm arena 1048576 persistent 65536 {
  %x = mpk.buffer arena 0 : memref<64x64xf32>
  %w = mpk.buffer persistent 0 : memref<64x128xf32>
  %b = mpk.buffer persistent 32768 : memref<128xf32>
  %y = mpk.buffer arena 16384 : memref<64x128xf32>
  %h = mpk.buffer arena 49152 : memref<64x128xf16>
  mpk.gemm %x, %w -> %y m 64 n 128 k 64 : memref<64x64xf32>, memref<64x128xf32>, memref<64x128xf32>
  mpk.gemm %x, %w -> %y bias %b m 64 n 128 k 64 epilogue bias
      : memref<64x64xf32>, memref<64x128xf32>, memref<64x128xf32>, memref<128xf32>
  mpk.gemm %x, %w -> %y m 64 n 128 k 64 epilogue relu
      : memref<64x64xf32>, memref<64x128xf32>, memref<64x128xf32>
  mpk.gemm %x, %w -> %y bias %b m 64 n 128 k 64 epilogue bias_relu
      : memref<64x64xf32>, memref<64x128xf32>, memref<64x128xf32>, memref<128xf32>
  mpk.gemm %x, %w -> %h m 64 n 128 k 64 epilogue gelu
      : memref<64x64xf32>, memref<64x128xf32>, memref<64x128xf16>
  mpk.gemm %x, %w -> %h bias %b m 64 n 128 k 64 epilogue bias_gelu
      : memref<64x64xf32>, memref<64x128xf32>, memref<64x128xf16>, memref<128xf32>
  // Explicit default values are dropped when printing.
  mpk.gemm %x, %w -> %y m 64 n 128 k 64 epilogue none {batch = 1 : i64, offset_a = 0 : i64, stride_c = 0 : i64}
      : memref<64x64xf32>, memref<64x128xf32>, memref<64x128xf32>
  mpk.gemm %w, %x -> %y m 128 n 64 k 64 {transpose_a, transpose_b}
      : memref<64x128xf32>, memref<64x64xf32>, memref<64x128xf32>
  %q = mpk.buffer arena 65536 : memref<8x16x32xf32>
  %k = mpk.buffer arena 81920 : memref<8x16x32xf32>
  %s = mpk.buffer arena 98304 : memref<8x16x16xf32>
  mpk.gemm %q, %k -> %s m 16 n 16 k 32 {batch = 8 : i64, stride_a = 512 : i64, stride_b = 512 : i64, stride_c = 256 : i64, transpose_b}
      : memref<8x16x32xf32>, memref<8x16x32xf32>, memref<8x16x16xf32>
  %f = mpk.buffer persistent 33280 : memref<6x2x3x3xf32>
  %c = mpk.buffer arena 106496 : memref<2x36x16xf32>
  %o = mpk.buffer arena 111104 : memref<2x6x4x4xf32>
  mpk.gemm %f, %c -> %o m 3 n 16 k 18 {batch = 2 : i64, offset_a = 54 : i64, offset_b = 288 : i64, offset_c = 48 : i64, stride_a = 0 : i64, stride_b = 576 : i64, stride_c = 96 : i64}
      : memref<6x2x3x3xf32>, memref<2x36x16xf32>, memref<2x6x4x4xf32>
  // Accumulating into C (a momentum buffer); a beta of 0 is the default.
  mpk.gemm %x, %w -> %y m 64 n 128 k 64 beta 0.9 {transpose_a}
      : memref<64x64xf32>, memref<64x128xf32>, memref<64x128xf32>
  mpk.gemm %x, %w -> %y m 64 n 128 k 64 beta 0.0
      : memref<64x64xf32>, memref<64x128xf32>, memref<64x128xf32>
}
