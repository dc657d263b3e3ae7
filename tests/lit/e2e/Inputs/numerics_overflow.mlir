// A two-layer model of the digits whose first weights are all 5000: its
// hidden values (the pixels are scaled to [0, 1]; a row sums to about 20
// to 40) reach 100000 to 200000, finite in fp32 and past fp16's largest
// value (65504), so in fp16 the first matmul's value is infinite and the
// first loss is not finite (check-numerics.test).
mpg.graph @fp16_overflow {
  %pixels = mpg.input "pixels" : tensor<64x64xf32>
  %labels = mpg.input "labels" : tensor<64xi32>
  %w1 = mpg.param "fc1.weight" init(constant, value = 5000.0) : tensor<64x32xf32>
  %w2 = mpg.param "fc2.weight" init(glorot_uniform) : tensor<32x10xf32>
  %hidden = mpg.matmul %pixels, %w1 : tensor<64x64xf32>, tensor<64x32xf32> -> tensor<64x32xf32>
  %relu = mpg.relu %hidden : tensor<64x32xf32>
  %logits = mpg.matmul %relu, %w2 : tensor<64x32xf32>, tensor<32x10xf32> -> tensor<64x10xf32>
  %loss = mpg.softmax_cross_entropy %logits, %labels : tensor<64x10xf32>, tensor<64xi32> -> tensor<f32>
  mpg.output "logits" %logits : tensor<64x10xf32>
  mpg.minimize %loss optimizer(sgd, lr = 0.01) : tensor<f32>
}
