// One dropout (rate 0.25) of x * w, and a loss whose gradient is that
// dropout's own gradient: the training step of dropout_masks.py.
mpg.graph @masks {
  %x = mpg.input "x" : tensor<48x40xf32>
  %w = mpg.param "w" init(ones) : tensor<48x40xf32>
  %h = mpg.mul %x, %w : tensor<48x40xf32>, tensor<48x40xf32> -> tensor<48x40xf32>
  %d = mpg.dropout %h rate 0.25 : tensor<48x40xf32>
  %l = mpg.reduce_sum %d axes [0, 1] : tensor<48x40xf32> -> tensor<f32>
  mpg.output "d" %d : tensor<48x40xf32>
  mpg.minimize %l optimizer(sgd, lr = 0.5) : tensor<f32>
}
