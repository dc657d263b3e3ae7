// RUN: mpc-opt %s --mpg-autodiff --mpg-accumulate-gradients -split-input-file -verify-diagnostics

// A graph that already has a state of the names the pass gives its own is
// refused.
mpg.graph @named_like_an_accumulator {
  %x = mpg.input "x" : tensor<2x8xf32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<8x4xf32>
  // expected-error @+1 {{mpg-accumulate-gradients names its state "grad_accum.*" and "<param>.grad_accum", but the graph already has a state "v.grad_accum"}}
  %v = mpg.state "v.grad_accum" init(zeros) : tensor<8x4xf32>
  %y = mpg.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %l = mpg.reduce_mean %y axes [0, 1] : tensor<2x4xf32> -> tensor<f32>
  mpg.state_write %v, %w : tensor<8x4xf32>
  mpg.minimize %l optimizer(sgd, lr = 0.1, accumulate_steps = 2) : tensor<f32>
}

// -----

// So is a parameter of such a name.
mpg.graph @param_named_like_the_counter {
  %x = mpg.input "x" : tensor<2x8xf32>
  // expected-error @+1 {{mpg-accumulate-gradients names its state "grad_accum.*" and "<param>.grad_accum", but the graph already has a parameter "grad_accum.micro"}}
  %w = mpg.param "grad_accum.micro" init(glorot_uniform) : tensor<8x4xf32>
  %y = mpg.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %l = mpg.reduce_mean %y axes [0, 1] : tensor<2x4xf32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.1, accumulate_steps = 2) : tensor<f32>
}
