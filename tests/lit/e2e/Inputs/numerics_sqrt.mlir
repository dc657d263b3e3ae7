// A linear model of the digits whose first op takes the square root of
// pixels - 0.5 (the pixels are scaled to [0, 1]): NaN for every pixel below
// half, so the loss of the first step is NaN (check-numerics.test).
mpg.graph @sqrt_of_negative {
  %pixels = mpg.input "pixels" : tensor<64x64xf32>
  %labels = mpg.input "labels" : tensor<64xi32>
  %w = mpg.param "fc.weight" init(glorot_uniform) : tensor<64x10xf32>
  %half = mpg.constant dense<0.5> : tensor<f32>
  %shifted = mpg.sub %pixels, %half : tensor<64x64xf32>, tensor<f32> -> tensor<64x64xf32>
  %root = mpg.sqrt %shifted : tensor<64x64xf32>
  %logits = mpg.matmul %root, %w : tensor<64x64xf32>, tensor<64x10xf32> -> tensor<64x10xf32>
  %loss = mpg.softmax_cross_entropy %logits, %labels : tensor<64x10xf32>, tensor<64xi32> -> tensor<f32>
  mpg.minimize %loss optimizer(sgd, lr = 0.1) : tensor<f32>
}
