// Linear regression with a mean squared error: 10 features in, one float
// target out, 32 examples a step (the diabetes data of scikit-learn,
// standardised by regression.py).
mpg.graph @linear_regression {
  %x = mpg.input "features" : tensor<32x10xf32>
  %y = mpg.input "targets" : tensor<32x1xf32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<10x1xf32>
  %b = mpg.param "b" init(zeros) : tensor<1xf32>
  %xw = mpg.matmul %x, %w : tensor<32x10xf32>, tensor<10x1xf32> -> tensor<32x1xf32>
  %pred = mpg.add %xw, %b : tensor<32x1xf32>, tensor<1xf32> -> tensor<32x1xf32>
  %loss = mpg.mse_loss %pred, %y : tensor<32x1xf32>, tensor<32x1xf32> -> tensor<f32>
  mpg.output "prediction" %pred : tensor<32x1xf32>
  mpg.minimize %loss optimizer(sgd, lr = 0.05) : tensor<f32>
}
