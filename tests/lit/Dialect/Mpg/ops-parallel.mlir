// RUN: mpc-opt %s | mpc-opt | FileCheck %s
// RUN: mpc-opt %s -mlir-print-op-generic | mpc-opt | FileCheck %s

// Round trip of the data-parallel op: mpg.all_reduce with each reduction
// and element type it takes.

// CHECK-LABEL: mpg.graph @all_reduce
// CHECK: %[[G:.+]] = mpg.input "g" : tensor<1290xf32>
// CHECK: mpg.all_reduce mean %[[G]] : tensor<1290xf32>
// CHECK: mpg.all_reduce sum %{{.+}} : tensor<8x4xbf16>
// CHECK: mpg.all_reduce max %{{.+}} : tensor<f16>
// CHECK: mpg.all_reduce sum %{{.+}} : tensor<3xi32>
// CHECK: mpg.all_reduce mean %{{.+}} : tensor<2xf64>
mpg.graph @all_reduce {
  %g = mpg.input "g" : tensor<1290xf32>
  %h = mpg.input "h" : tensor<8x4xbf16>
  %f = mpg.input "f" : tensor<f16>
  %n = mpg.input "n" : tensor<3xi32>
  %d = mpg.input "d" : tensor<2xf64>
  %0 = mpg.all_reduce mean %g : tensor<1290xf32>
  %1 = mpg.all_reduce sum %h : tensor<8x4xbf16>
  %2 = mpg.all_reduce max %f : tensor<f16>
  %3 = mpg.all_reduce sum %n : tensor<3xi32>
  %4 = mpg.all_reduce mean %d : tensor<2xf64>
  mpg.output "g" %0 : tensor<1290xf32>
  mpg.output "h" %1 : tensor<8x4xbf16>
  mpg.output "f" %2 : tensor<f16>
  mpg.output "n" %3 : tensor<3xi32>
  mpg.output "d" %4 : tensor<2xf64>
}
