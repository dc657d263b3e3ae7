// RUN: mpc-opt %s --mpg-autodiff --mpg-assign-precision=mode=fp16 --mpg-master-weights -verify-diagnostics

// A working copy's name taken by another state is an error at the parameter.
mpg.graph @name_clash {
  %x = mpg.input "x" : tensor<2x8xf32>
  // expected-error @+1 {{'mpg.param' op needs a working copy named "w.f16", but the graph already has a parameter or state of that name}}
  %w = mpg.param "w" init(glorot_uniform) : tensor<8x4xf32>
  %other = mpg.param "w.f16" init(zeros) : tensor<4xf32>
  %y = mpg.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %z = mpg.add %y, %other : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %l = mpg.reduce_mean %z axes [0, 1] : tensor<2x4xf32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.1) : tensor<f32>
}
