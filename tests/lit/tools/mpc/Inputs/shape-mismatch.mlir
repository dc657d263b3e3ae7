mpg.graph @mismatch {
  %x = mpg.input "x" : tensor<4x8xf32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<7x3xf32>
  %y = mpg.matmul %x, %w : tensor<4x8xf32>, tensor<7x3xf32> -> tensor<4x3xf32>
}
