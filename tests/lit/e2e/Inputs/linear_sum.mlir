// loss = sum(w * x): the gradient of w is x itself, so a test chooses the
// gradient values through the input.
mpg.graph @linear_sum {
  %x = mpg.input "x" : tensor<8xf32>
  %w = mpg.param "w" init(ones) : tensor<8xf32>
  %p = mpg.mul %w, %x : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %l = mpg.reduce_sum %p axes [0] : tensor<8xf32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.1) : tensor<f32>
}
