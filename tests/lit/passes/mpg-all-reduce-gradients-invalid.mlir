// RUN: not mpc-opt %s --mpg-all-reduce-gradients=reduce-type=f64 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not mpc-opt %s --mpg-all-reduce-gradients=bucket-bytes=0 2>&1 | FileCheck %s --check-prefix=BUCKET

// TYPE: error: mpg-all-reduce-gradients: unknown reduce-type 'f64'; expected f32 or storage
// BUCKET: error: mpg-all-reduce-gradients: bucket-bytes must be at least 1, not 0
mpg.graph @g {
  %x = mpg.input "x" : tensor<4xf32>
  mpg.output "x" %x : tensor<4xf32>
}
