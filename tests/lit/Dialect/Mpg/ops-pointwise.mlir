// RUN: mpc-opt %s | mpc-opt | FileCheck %s
// RUN: mpc-opt %s -mlir-print-op-generic | mpc-opt | FileCheck %s

// Round-trip tests of the pointwise ops: unary math and activations,
// broadcasting binary ops, compare, select and cast.

// CHECK-LABEL: mpg.graph @unary {
// CHECK-NEXT:    %[[X:.+]] = mpg.input "x" : tensor<4x8xf32>
// CHECK-NEXT:    %[[NEG:.+]] = mpg.neg %[[X]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[ABS:.+]] = mpg.abs %[[NEG]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[EXP:.+]] = mpg.exp %[[ABS]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[LOG:.+]] = mpg.log %[[EXP]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[SQRT:.+]] = mpg.sqrt %[[LOG]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[RSQRT:.+]] = mpg.rsqrt %[[SQRT]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[TANH:.+]] = mpg.tanh %[[RSQRT]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[SIG:.+]] = mpg.sigmoid %[[TANH]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[RELU:.+]] = mpg.relu %[[SIG]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[LRELU:.+]] = mpg.leaky_relu %[[RELU]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[GELU:.+]] = mpg.gelu %[[LRELU]] : tensor<4x8xf32>
// CHECK-NEXT:    mpg.output "y" %[[GELU]] : tensor<4x8xf32>
// CHECK-NEXT:  }
mpg.graph @unary {
  %x = mpg.input "x" : tensor<4x8xf32>
  %0 = mpg.neg %x : tensor<4x8xf32>
  %1 = mpg.abs %0 : tensor<4x8xf32>
  %2 = mpg.exp %1 : tensor<4x8xf32>
  %3 = mpg.log %2 : tensor<4x8xf32>
  %4 = mpg.sqrt %3 : tensor<4x8xf32>
  %5 = mpg.rsqrt %4 : tensor<4x8xf32>
  %6 = mpg.tanh %5 : tensor<4x8xf32>
  %7 = mpg.sigmoid %6 : tensor<4x8xf32>
  %8 = mpg.relu %7 : tensor<4x8xf32>
  %9 = mpg.leaky_relu %8 : tensor<4x8xf32>
  %10 = mpg.gelu %9 : tensor<4x8xf32>
  mpg.output "y" %10 : tensor<4x8xf32>
}

// neg and abs also take integers; every op takes every float type and rank 0.
// CHECK-LABEL: mpg.graph @unary_types {
// CHECK-NEXT:    %[[I:.+]] = mpg.input "i" : tensor<3xi32>
// CHECK-NEXT:    %[[L:.+]] = mpg.input "l" : tensor<2x2xi64>
// CHECK-NEXT:    %[[H:.+]] = mpg.input "h" : tensor<5xf16>
// CHECK-NEXT:    %[[B:.+]] = mpg.input "b" : tensor<5xbf16>
// CHECK-NEXT:    %[[D:.+]] = mpg.input "d" : tensor<5xf64>
// CHECK-NEXT:    %[[S:.+]] = mpg.input "s" : tensor<f32>
// CHECK-NEXT:    mpg.neg %[[I]] : tensor<3xi32>
// CHECK-NEXT:    mpg.abs %[[I]] : tensor<3xi32>
// CHECK-NEXT:    mpg.neg %[[L]] : tensor<2x2xi64>
// CHECK-NEXT:    mpg.abs %[[L]] : tensor<2x2xi64>
// CHECK-NEXT:    mpg.neg %[[H]] : tensor<5xf16>
// CHECK-NEXT:    mpg.abs %[[B]] : tensor<5xbf16>
// CHECK-NEXT:    mpg.exp %[[H]] : tensor<5xf16>
// CHECK-NEXT:    mpg.log %[[B]] : tensor<5xbf16>
// CHECK-NEXT:    mpg.sqrt %[[D]] : tensor<5xf64>
// CHECK-NEXT:    mpg.rsqrt %[[S]] : tensor<f32>
// CHECK-NEXT:    mpg.tanh %[[H]] : tensor<5xf16>
// CHECK-NEXT:    mpg.sigmoid %[[B]] : tensor<5xbf16>
// CHECK-NEXT:    mpg.relu %[[D]] : tensor<5xf64>
// CHECK-NEXT:    mpg.relu %[[S]] {mpc.note} : tensor<f32>
// CHECK-NEXT:    mpg.neg %[[S]] : tensor<f32>
// CHECK-NEXT:    mpg.exp %[[S]] : tensor<f32>
mpg.graph @unary_types {
  %i = mpg.input "i" : tensor<3xi32>
  %l = mpg.input "l" : tensor<2x2xi64>
  %h = mpg.input "h" : tensor<5xf16>
  %b = mpg.input "b" : tensor<5xbf16>
  %d = mpg.input "d" : tensor<5xf64>
  %s = mpg.input "s" : tensor<f32>
  %0 = mpg.neg %i : tensor<3xi32>
  %1 = mpg.abs %i : tensor<3xi32>
  %2 = mpg.neg %l : tensor<2x2xi64>
  %3 = mpg.abs %l : tensor<2x2xi64>
  %4 = mpg.neg %h : tensor<5xf16>
  %5 = mpg.abs %b : tensor<5xbf16>
  %6 = mpg.exp %h : tensor<5xf16>
  %7 = mpg.log %b : tensor<5xbf16>
  %8 = mpg.sqrt %d : tensor<5xf64>
  %9 = mpg.rsqrt %s : tensor<f32>
  %10 = mpg.tanh %h : tensor<5xf16>
  %11 = mpg.sigmoid %b : tensor<5xbf16>
  %12 = mpg.relu %d : tensor<5xf64>
  %13 = mpg.relu %s {mpc.note} : tensor<f32>
  %14 = mpg.neg %s : tensor<f32>
  %15 = mpg.exp %s : tensor<f32>
}

// alpha prints unless it is the default 0.01.
// CHECK-LABEL: mpg.graph @leaky_relu {
// CHECK-NEXT:    %[[X:.+]] = mpg.input "x" : tensor<4x8xf32>
// CHECK-NEXT:    %[[H:.+]] = mpg.input "h" : tensor<8xf16>
// CHECK-NEXT:    mpg.leaky_relu %[[X]] : tensor<4x8xf32>
// CHECK-NEXT:    mpg.leaky_relu %[[X]] alpha 2.000000e-01 : tensor<4x8xf32>
// CHECK-NEXT:    mpg.leaky_relu %[[X]] : tensor<4x8xf32>
// CHECK-NEXT:    mpg.leaky_relu %[[X]] alpha 0.000000e+00 : tensor<4x8xf32>
// CHECK-NEXT:    mpg.leaky_relu %[[X]] alpha 1.500000e+00 : tensor<4x8xf32>
// CHECK-NEXT:    mpg.leaky_relu %[[H]] alpha 1.000000e-01 {mpc.note} : tensor<8xf16>
// CHECK-NEXT:    mpg.leaky_relu %[[H]] alpha 3.000000e-01 : tensor<8xf16>
mpg.graph @leaky_relu {
  %x = mpg.input "x" : tensor<4x8xf32>
  %h = mpg.input "h" : tensor<8xf16>
  %0 = mpg.leaky_relu %x : tensor<4x8xf32>
  %1 = mpg.leaky_relu %x alpha 2.000000e-01 : tensor<4x8xf32>
  %2 = mpg.leaky_relu %x alpha 0.01 : tensor<4x8xf32>
  %3 = mpg.leaky_relu %x alpha 0.0 : tensor<4x8xf32>
  %4 = mpg.leaky_relu %x alpha 1.5 : tensor<4x8xf32>
  %5 = mpg.leaky_relu %h alpha 0.1 {mpc.note} : tensor<8xf16>
  %6 = "mpg.leaky_relu"(%h) <{alpha = 3.000000e-01 : f64}> : (tensor<8xf16>) -> tensor<8xf16>
}

// CHECK-LABEL: mpg.graph @gelu {
// CHECK-NEXT:    %[[X:.+]] = mpg.input "x" : tensor<4x8xf32>
// CHECK-NEXT:    %[[B:.+]] = mpg.input "b" : tensor<bf16>
// CHECK-NEXT:    mpg.gelu %[[X]] : tensor<4x8xf32>
// CHECK-NEXT:    mpg.gelu %[[X]] approximate : tensor<4x8xf32>
// CHECK-NEXT:    mpg.gelu %[[B]] approximate {mpc.note} : tensor<bf16>
// CHECK-NEXT:    mpg.gelu %[[B]] approximate : tensor<bf16>
mpg.graph @gelu {
  %x = mpg.input "x" : tensor<4x8xf32>
  %b = mpg.input "b" : tensor<bf16>
  %0 = mpg.gelu %x : tensor<4x8xf32>
  %1 = mpg.gelu %x approximate : tensor<4x8xf32>
  %2 = mpg.gelu %b approximate {mpc.note} : tensor<bf16>
  %3 = "mpg.gelu"(%b) <{approximate}> : (tensor<bf16>) -> tensor<bf16>
}

// CHECK-LABEL: mpg.graph @binary {
// CHECK-NEXT:    %[[A:.+]] = mpg.input "a" : tensor<4x8xf32>
// CHECK-NEXT:    %[[B:.+]] = mpg.input "b" : tensor<4x8xf32>
// CHECK-NEXT:    mpg.add %[[A]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    mpg.sub %[[A]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    mpg.mul %[[A]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    mpg.div %[[A]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    mpg.pow %[[A]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    mpg.maximum %[[A]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    mpg.minimum %[[A]], %[[B]] {mpc.note} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
mpg.graph @binary {
  %a = mpg.input "a" : tensor<4x8xf32>
  %b = mpg.input "b" : tensor<4x8xf32>
  %0 = mpg.add %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = mpg.sub %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = mpg.mul %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %3 = mpg.div %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %4 = mpg.pow %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %5 = mpg.maximum %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %6 = mpg.minimum %a, %b {mpc.note} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
}

// NumPy broadcasting: trailing alignment, missing leading dimensions, size-1
// dimensions on either side, rank-0 operands on either side.
// CHECK-LABEL: mpg.graph @broadcasting {
// CHECK-NEXT:    %[[M:.+]] = mpg.input "m" : tensor<64x128xf32>
// CHECK-NEXT:    %[[V:.+]] = mpg.input "v" : tensor<128xf32>
// CHECK-NEXT:    %[[C:.+]] = mpg.input "c" : tensor<4x1xf32>
// CHECK-NEXT:    %[[R:.+]] = mpg.input "r" : tensor<1x5xf32>
// CHECK-NEXT:    %[[S:.+]] = mpg.input "s" : tensor<f32>
// CHECK-NEXT:    %[[T:.+]] = mpg.input "t" : tensor<2x1x3xf32>
// CHECK-NEXT:    %[[U:.+]] = mpg.input "u" : tensor<4x1xf32>
// CHECK-NEXT:    mpg.add %[[M]], %[[V]] : tensor<64x128xf32>, tensor<128xf32> -> tensor<64x128xf32>
// CHECK-NEXT:    mpg.sub %[[V]], %[[M]] : tensor<128xf32>, tensor<64x128xf32> -> tensor<64x128xf32>
// CHECK-NEXT:    mpg.mul %[[C]], %[[R]] : tensor<4x1xf32>, tensor<1x5xf32> -> tensor<4x5xf32>
// CHECK-NEXT:    mpg.div %[[M]], %[[S]] : tensor<64x128xf32>, tensor<f32> -> tensor<64x128xf32>
// CHECK-NEXT:    mpg.pow %[[S]], %[[M]] : tensor<f32>, tensor<64x128xf32> -> tensor<64x128xf32>
// CHECK-NEXT:    mpg.maximum %[[S]], %[[S]] : tensor<f32>, tensor<f32> -> tensor<f32>
// CHECK-NEXT:    mpg.minimum %[[T]], %[[U]] : tensor<2x1x3xf32>, tensor<4x1xf32> -> tensor<2x4x3xf32>
// CHECK-NEXT:    mpg.add %[[C]], %[[U]] : tensor<4x1xf32>, tensor<4x1xf32> -> tensor<4x1xf32>
mpg.graph @broadcasting {
  %m = mpg.input "m" : tensor<64x128xf32>
  %v = mpg.input "v" : tensor<128xf32>
  %c = mpg.input "c" : tensor<4x1xf32>
  %r = mpg.input "r" : tensor<1x5xf32>
  %s = mpg.input "s" : tensor<f32>
  %t = mpg.input "t" : tensor<2x1x3xf32>
  %u = mpg.input "u" : tensor<4x1xf32>
  %0 = mpg.add %m, %v : tensor<64x128xf32>, tensor<128xf32> -> tensor<64x128xf32>
  %1 = mpg.sub %v, %m : tensor<128xf32>, tensor<64x128xf32> -> tensor<64x128xf32>
  %2 = mpg.mul %c, %r : tensor<4x1xf32>, tensor<1x5xf32> -> tensor<4x5xf32>
  %3 = mpg.div %m, %s : tensor<64x128xf32>, tensor<f32> -> tensor<64x128xf32>
  %4 = mpg.pow %s, %m : tensor<f32>, tensor<64x128xf32> -> tensor<64x128xf32>
  %5 = mpg.maximum %s, %s : tensor<f32>, tensor<f32> -> tensor<f32>
  %6 = mpg.minimum %t, %u : tensor<2x1x3xf32>, tensor<4x1xf32> -> tensor<2x4x3xf32>
  %7 = mpg.add %c, %u : tensor<4x1xf32>, tensor<4x1xf32> -> tensor<4x1xf32>
}

// Broadcasting against a zero-sized dimension gives a zero-sized one.
// CHECK-LABEL: mpg.graph @broadcasting_empty {
// CHECK:         mpg.add %{{.+}}, %{{.+}} : tensor<0x3xf32>, tensor<1x3xf32> -> tensor<0x3xf32>
mpg.graph @broadcasting_empty {
  %a = mpg.input "a" : tensor<0x3xf32>
  %b = mpg.input "b" : tensor<1x3xf32>
  %0 = mpg.add %a, %b : tensor<0x3xf32>, tensor<1x3xf32> -> tensor<0x3xf32>
}

// Integer and every float element type.
// CHECK-LABEL: mpg.graph @binary_types {
// CHECK-NEXT:    %[[I:.+]] = mpg.input "i" : tensor<3xi32>
// CHECK-NEXT:    %[[L:.+]] = mpg.input "l" : tensor<3xi64>
// CHECK-NEXT:    %[[H:.+]] = mpg.input "h" : tensor<3xf16>
// CHECK-NEXT:    %[[B:.+]] = mpg.input "b" : tensor<3xbf16>
// CHECK-NEXT:    %[[D:.+]] = mpg.input "d" : tensor<3xf64>
// CHECK-NEXT:    %[[IS:.+]] = mpg.input "is" : tensor<i32>
// CHECK-NEXT:    mpg.add %[[I]], %[[IS]] : tensor<3xi32>, tensor<i32> -> tensor<3xi32>
// CHECK-NEXT:    mpg.sub %[[L]], %[[L]] : tensor<3xi64>, tensor<3xi64> -> tensor<3xi64>
// CHECK-NEXT:    mpg.mul %[[H]], %[[H]] : tensor<3xf16>, tensor<3xf16> -> tensor<3xf16>
// CHECK-NEXT:    mpg.div %[[I]], %[[I]] : tensor<3xi32>, tensor<3xi32> -> tensor<3xi32>
// CHECK-NEXT:    mpg.div %[[B]], %[[B]] : tensor<3xbf16>, tensor<3xbf16> -> tensor<3xbf16>
// CHECK-NEXT:    mpg.pow %[[D]], %[[D]] : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
// CHECK-NEXT:    mpg.pow %[[H]], %[[H]] : tensor<3xf16>, tensor<3xf16> -> tensor<3xf16>
// CHECK-NEXT:    mpg.maximum %[[IS]], %[[I]] : tensor<i32>, tensor<3xi32> -> tensor<3xi32>
// CHECK-NEXT:    mpg.minimum %[[L]], %[[L]] : tensor<3xi64>, tensor<3xi64> -> tensor<3xi64>
// CHECK-NEXT:    mpg.maximum %[[B]], %[[B]] : tensor<3xbf16>, tensor<3xbf16> -> tensor<3xbf16>
mpg.graph @binary_types {
  %i = mpg.input "i" : tensor<3xi32>
  %l = mpg.input "l" : tensor<3xi64>
  %h = mpg.input "h" : tensor<3xf16>
  %b = mpg.input "b" : tensor<3xbf16>
  %d = mpg.input "d" : tensor<3xf64>
  %is = mpg.input "is" : tensor<i32>
  %0 = mpg.add %i, %is : tensor<3xi32>, tensor<i32> -> tensor<3xi32>
  %1 = mpg.sub %l, %l : tensor<3xi64>, tensor<3xi64> -> tensor<3xi64>
  %2 = mpg.mul %h, %h : tensor<3xf16>, tensor<3xf16> -> tensor<3xf16>
  %3 = mpg.div %i, %i : tensor<3xi32>, tensor<3xi32> -> tensor<3xi32>
  %4 = mpg.div %b, %b : tensor<3xbf16>, tensor<3xbf16> -> tensor<3xbf16>
  %5 = mpg.pow %d, %d : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
  %6 = mpg.pow %h, %h : tensor<3xf16>, tensor<3xf16> -> tensor<3xf16>
  %7 = mpg.maximum %is, %i : tensor<i32>, tensor<3xi32> -> tensor<3xi32>
  %8 = mpg.minimum %l, %l : tensor<3xi64>, tensor<3xi64> -> tensor<3xi64>
  %9 = mpg.maximum %b, %b : tensor<3xbf16>, tensor<3xbf16> -> tensor<3xbf16>
}

// Every predicate, with broadcasting and several element types. (The printer
// writes two spaces before the predicate; FileCheck folds whitespace.)
// CHECK-LABEL: mpg.graph @compare {
// CHECK-NEXT:    %[[X:.+]] = mpg.input "x" : tensor<4x8xf32>
// CHECK-NEXT:    %[[Z:.+]] = mpg.input "z" : tensor<f32>
// CHECK-NEXT:    %[[I:.+]] = mpg.input "i" : tensor<8xi32>
// CHECK-NEXT:    %[[L:.+]] = mpg.input "l" : tensor<2x1xi64>
// CHECK-NEXT:    %[[H:.+]] = mpg.input "h" : tensor<8xf16>
// CHECK-NEXT:    mpg.compare eq, %[[X]], %[[Z]] : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xi1>
// CHECK-NEXT:    mpg.compare ne, %[[Z]], %[[X]] : tensor<f32>, tensor<4x8xf32> -> tensor<4x8xi1>
// CHECK-NEXT:    mpg.compare lt, %[[X]], %[[X]] : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xi1>
// CHECK-NEXT:    mpg.compare le, %[[I]], %[[I]] : tensor<8xi32>, tensor<8xi32> -> tensor<8xi1>
// CHECK-NEXT:    mpg.compare gt, %[[L]], %[[L]] : tensor<2x1xi64>, tensor<2x1xi64> -> tensor<2x1xi1>
// CHECK-NEXT:    mpg.compare ge, %[[H]], %[[H]] {mpc.note} : tensor<8xf16>, tensor<8xf16> -> tensor<8xi1>
// CHECK-NEXT:    mpg.compare gt, %[[Z]], %[[Z]] : tensor<f32>, tensor<f32> -> tensor<i1>
// CHECK-NEXT:    mpg.compare lt, %[[X]], %[[Z]] : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xi1>
mpg.graph @compare {
  %x = mpg.input "x" : tensor<4x8xf32>
  %z = mpg.input "z" : tensor<f32>
  %i = mpg.input "i" : tensor<8xi32>
  %l = mpg.input "l" : tensor<2x1xi64>
  %h = mpg.input "h" : tensor<8xf16>
  %0 = mpg.compare eq, %x, %z : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xi1>
  %1 = mpg.compare ne, %z, %x : tensor<f32>, tensor<4x8xf32> -> tensor<4x8xi1>
  %2 = mpg.compare lt, %x, %x : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xi1>
  %3 = mpg.compare le, %i, %i : tensor<8xi32>, tensor<8xi32> -> tensor<8xi1>
  %4 = mpg.compare gt, %l, %l : tensor<2x1xi64>, tensor<2x1xi64> -> tensor<2x1xi1>
  %5 = mpg.compare ge, %h, %h {mpc.note} : tensor<8xf16>, tensor<8xf16> -> tensor<8xi1>
  %6 = mpg.compare gt, %z, %z : tensor<f32>, tensor<f32> -> tensor<i1>
  %7 = "mpg.compare"(%x, %z) <{predicate = 2 : i32}> : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xi1>
}

// The three operands broadcast together; i1 and integer values.
// CHECK-LABEL: mpg.graph @select {
// CHECK-NEXT:    %[[X:.+]] = mpg.input "x" : tensor<4x8xf32>
// CHECK-NEXT:    %[[Z:.+]] = mpg.input "z" : tensor<f32>
// CHECK-NEXT:    %[[M:.+]] = mpg.compare gt, %[[X]], %[[Z]] : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xi1>
// CHECK-NEXT:    mpg.select %[[M]], %[[X]], %[[Z]] : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[C:.+]] = mpg.input "c" : tensor<i1>
// CHECK-NEXT:    mpg.select %[[C]], %[[X]], %[[X]] : tensor<i1>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    mpg.select %[[C]], %[[Z]], %[[Z]] : tensor<i1>, tensor<f32>, tensor<f32> -> tensor<f32>
// CHECK-NEXT:    %[[R:.+]] = mpg.input "r" : tensor<4x1xi1>
// CHECK-NEXT:    %[[A:.+]] = mpg.input "a" : tensor<1x5xi32>
// CHECK-NEXT:    %[[B:.+]] = mpg.input "b" : tensor<3x1x1xi32>
// CHECK-NEXT:    mpg.select %[[R]], %[[A]], %[[B]] : tensor<4x1xi1>, tensor<1x5xi32>, tensor<3x1x1xi32> -> tensor<3x4x5xi32>
// CHECK-NEXT:    %[[P:.+]] = mpg.input "p" : tensor<5xi1>
// CHECK-NEXT:    mpg.select %[[R]], %[[P]], %[[C]] {mpc.note} : tensor<4x1xi1>, tensor<5xi1>, tensor<i1> -> tensor<4x5xi1>
// CHECK-NEXT:    %[[D:.+]] = mpg.input "d" : tensor<2xf64>
// CHECK-NEXT:    mpg.select %[[C]], %[[D]], %[[D]] : tensor<i1>, tensor<2xf64>, tensor<2xf64> -> tensor<2xf64>
mpg.graph @select {
  %x = mpg.input "x" : tensor<4x8xf32>
  %z = mpg.input "z" : tensor<f32>
  %m = mpg.compare gt, %x, %z : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xi1>
  %0 = mpg.select %m, %x, %z : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %c = mpg.input "c" : tensor<i1>
  %1 = mpg.select %c, %x, %x : tensor<i1>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = mpg.select %c, %z, %z : tensor<i1>, tensor<f32>, tensor<f32> -> tensor<f32>
  %r = mpg.input "r" : tensor<4x1xi1>
  %a = mpg.input "a" : tensor<1x5xi32>
  %b = mpg.input "b" : tensor<3x1x1xi32>
  %3 = mpg.select %r, %a, %b : tensor<4x1xi1>, tensor<1x5xi32>, tensor<3x1x1xi32> -> tensor<3x4x5xi32>
  %p = mpg.input "p" : tensor<5xi1>
  %4 = mpg.select %r, %p, %c {mpc.note} : tensor<4x1xi1>, tensor<5xi1>, tensor<i1> -> tensor<4x5xi1>
  %d = mpg.input "d" : tensor<2xf64>
  %5 = mpg.select %c, %d, %d : tensor<i1>, tensor<2xf64>, tensor<2xf64> -> tensor<2xf64>
}

// Between every pair of kinds of element type, and to the same type (the
// folder is not run by mpc-opt without passes).
// CHECK-LABEL: mpg.graph @cast {
// CHECK-NEXT:    %[[X:.+]] = mpg.input "x" : tensor<4x8xf32>
// CHECK-NEXT:    %[[I:.+]] = mpg.input "i" : tensor<4x8xi32>
// CHECK-NEXT:    %[[B:.+]] = mpg.input "b" : tensor<4x8xi1>
// CHECK-NEXT:    %[[S:.+]] = mpg.input "s" : tensor<i64>
// CHECK-NEXT:    %[[H:.+]] = mpg.cast %[[X]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT:    mpg.cast %[[H]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK-NEXT:    mpg.cast %[[X]] : tensor<4x8xf32> to tensor<4x8xbf16>
// CHECK-NEXT:    mpg.cast %[[X]] : tensor<4x8xf32> to tensor<4x8xf64>
// CHECK-NEXT:    mpg.cast %[[X]] : tensor<4x8xf32> to tensor<4x8xi32>
// CHECK-NEXT:    mpg.cast %[[X]] : tensor<4x8xf32> to tensor<4x8xi1>
// CHECK-NEXT:    mpg.cast %[[I]] : tensor<4x8xi32> to tensor<4x8xf32>
// CHECK-NEXT:    mpg.cast %[[I]] : tensor<4x8xi32> to tensor<4x8xi64>
// CHECK-NEXT:    mpg.cast %[[B]] : tensor<4x8xi1> to tensor<4x8xf16>
// CHECK-NEXT:    mpg.cast %[[B]] : tensor<4x8xi1> to tensor<4x8xi32>
// CHECK-NEXT:    mpg.cast %[[S]] : tensor<i64> to tensor<i1>
// CHECK-NEXT:    mpg.cast %[[S]] {mpc.note} : tensor<i64> to tensor<bf16>
// CHECK-NEXT:    mpg.cast %[[X]] : tensor<4x8xf32> to tensor<4x8xf32>
mpg.graph @cast {
  %x = mpg.input "x" : tensor<4x8xf32>
  %i = mpg.input "i" : tensor<4x8xi32>
  %b = mpg.input "b" : tensor<4x8xi1>
  %s = mpg.input "s" : tensor<i64>
  %h = mpg.cast %x : tensor<4x8xf32> to tensor<4x8xf16>
  %0 = mpg.cast %h : tensor<4x8xf16> to tensor<4x8xf32>
  %1 = mpg.cast %x : tensor<4x8xf32> to tensor<4x8xbf16>
  %2 = mpg.cast %x : tensor<4x8xf32> to tensor<4x8xf64>
  %3 = mpg.cast %x : tensor<4x8xf32> to tensor<4x8xi32>
  %4 = mpg.cast %x : tensor<4x8xf32> to tensor<4x8xi1>
  %5 = mpg.cast %i : tensor<4x8xi32> to tensor<4x8xf32>
  %6 = mpg.cast %i : tensor<4x8xi32> to tensor<4x8xi64>
  %7 = mpg.cast %b : tensor<4x8xi1> to tensor<4x8xf16>
  %8 = mpg.cast %b : tensor<4x8xi1> to tensor<4x8xi32>
  %9 = mpg.cast %s : tensor<i64> to tensor<i1>
  %10 = mpg.cast %s {mpc.note} : tensor<i64> to tensor<bf16>
  %11 = mpg.cast %x : tensor<4x8xf32> to tensor<4x8xf32>
}

// CHECK-LABEL: mpg.graph @trigonometry
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK-NEXT: %{{.+}} = mpg.sin %[[X]] : tensor<4x8xf32>
// CHECK-NEXT: %[[H:.+]] = mpg.cast %[[X]] : tensor<4x8xf32> to tensor<4x8xbf16>
// CHECK-NEXT: %{{.+}} = mpg.cos %[[H]] : tensor<4x8xbf16>
mpg.graph @trigonometry {
  %x = mpg.input "x" : tensor<4x8xf32>
  %s = mpg.sin %x : tensor<4x8xf32>
  %h = mpg.cast %x : tensor<4x8xf32> to tensor<4x8xbf16>
  %c = mpg.cos %h : tensor<4x8xbf16>
}
