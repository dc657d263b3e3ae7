// A linear model of the digits whose features are shifted by the square root
// of a parameter that starts at zero: the first step's loss is finite, but
// the gradient of a square root at zero is infinite, so the update makes
// the parameter infinite and the second step's loss is not finite
// (check-numerics.test).
mpg.graph @infinite_update {
  %pixels = mpg.input "pixels" : tensor<64x64xf32>
  %labels = mpg.input "labels" : tensor<64xi32>
  %shift = mpg.param "shift" init(zeros) : tensor<64xf32>
  %w = mpg.param "fc.weight" init(glorot_uniform) : tensor<64x10xf32>
  %root = mpg.sqrt %shift : tensor<64xf32>
  %shifted = mpg.add %pixels, %root : tensor<64x64xf32>, tensor<64xf32> -> tensor<64x64xf32>
  %logits = mpg.matmul %shifted, %w : tensor<64x64xf32>, tensor<64x10xf32> -> tensor<64x10xf32>
  %loss = mpg.softmax_cross_entropy %logits, %labels : tensor<64x10xf32>, tensor<64xi32> -> tensor<f32>
  mpg.minimize %loss optimizer(sgd, lr = 0.1) : tensor<f32>
}
