mpg.graph @tiny {
  %x = mpg.input "x" : tensor<4x3xf32>
  %y = mpg.input "y" : tensor<4xi32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<3x2xf32>
  %b = mpg.param "b" init(zeros) : tensor<2xf32>
  %m = mpg.matmul %x, %w : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
  %z = mpg.add %m, %b : tensor<4x2xf32>, tensor<2xf32> -> tensor<4x2xf32>
  %h = mpg.relu %z : tensor<4x2xf32>
  %loss = mpg.softmax_cross_entropy %h, %y : tensor<4x2xf32>, tensor<4xi32> -> tensor<f32>
  mpg.output "h" %h : tensor<4x2xf32>
  mpg.minimize %loss optimizer(adam, lr = 0.01) : tensor<f32>
}
