// RUN: mpc-opt %s --mpg-autodiff --mpg-clip-gradients -split-input-file -verify-diagnostics

// A graph that already has an output "grad_norm" is refused.
mpg.graph @clipped_elsewhere {
  %x = mpg.input "x" : tensor<2x8xf32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<8x4xf32>
  %y = mpg.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %l = mpg.reduce_mean %y axes [0, 1] : tensor<2x4xf32> -> tensor<f32>
  // expected-error @+1 {{mpg-clip-gradients names the gradients' norm output "grad_norm", but the graph already has an output with that name}}
  mpg.output "grad_norm" %l : tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.1, clip_grad_norm = 1.0) : tensor<f32>
}
