// RUN: mpc-opt %s --mpg-autodiff -split-input-file -verify-diagnostics | FileCheck %s

// The VJP of mpg.all_reduce: the same all-reduce of the incoming gradient
// (the job's objective is the sum of every rank's loss); a max has none.

// CHECK-LABEL: mpg.graph @mean_of_features
// CHECK: %[[H:.+]] = mpg.all_reduce mean %{{.+}} : tensor<8x3xf32>
// CHECK: %[[DZ:.+]] = mpg.softmax_cross_entropy_grad
// CHECK: %[[DH:.+]] = mpg.all_reduce mean %[[DZ]] : tensor<8x3xf32>
// CHECK: mpg.matmul %x, %[[DH]] transpose_a
mpg.graph @mean_of_features {
  %x = mpg.input "x" : tensor<8x4xf32>
  %y = mpg.input "y" : tensor<8xi32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<4x3xf32>
  %z = mpg.matmul %x, %w : tensor<8x4xf32>, tensor<4x3xf32> -> tensor<8x3xf32>
  %h = mpg.all_reduce mean %z : tensor<8x3xf32>
  %l = mpg.softmax_cross_entropy %h, %y : tensor<8x3xf32>, tensor<8xi32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.5) : tensor<f32>
}

// -----

// CHECK-LABEL: mpg.graph @sum_of_features
// CHECK: %[[DZ:.+]] = mpg.softmax_cross_entropy_grad
// CHECK: mpg.all_reduce sum %[[DZ]] : tensor<8x3xf32>
mpg.graph @sum_of_features {
  %x = mpg.input "x" : tensor<8x4xf32>
  %y = mpg.input "y" : tensor<8xi32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<4x3xf32>
  %z = mpg.matmul %x, %w : tensor<8x4xf32>, tensor<4x3xf32> -> tensor<8x3xf32>
  %h = mpg.all_reduce sum %z : tensor<8x3xf32>
  %l = mpg.softmax_cross_entropy %h, %y : tensor<8x3xf32>, tensor<8xi32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.5) : tensor<f32>
}

// -----

mpg.graph @max_has_no_gradient {
  %x = mpg.input "x" : tensor<8x4xf32>
  %y = mpg.input "y" : tensor<8xi32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<4x3xf32>
  %z = mpg.matmul %x, %w : tensor<8x4xf32>, tensor<4x3xf32> -> tensor<8x3xf32>
  // expected-error @+1 {{'mpg.all_reduce' op max has no gradient here (only sum and mean all-reduces are differentiated)}}
  %h = mpg.all_reduce max %z : tensor<8x3xf32>
  %l = mpg.softmax_cross_entropy %h, %y : tensor<8x3xf32>, tensor<8xi32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.5) : tensor<f32>
}
