// A wider perceptron for Fashion-MNIST (784 -> 1024 -> 1024 -> 10, ReLU): big enough for
// its GEMMs to dominate a step, the benchmarks' model of a compute-bound MLP.
// Data: Fashion-MNIST (28x28 grey-level images flattened to 784 features, pixels / 255,
// 10 classes), one batch of 256 images per step.
// Shapes: pixels [256, 784] f32, labels [256] i32 -> logits [256, 10]; loss: mean
// cross-entropy. Optimizer: SGD with momentum 0.9, lr 0.05.
mpg.graph @wide_mlp {
  // Data
  %pixels = mpg.input "pixels" : tensor<256x784xf32>
  %labels = mpg.input "labels" : tensor<256xi32>

  // Parameters
  %fc1.weight = mpg.param "fc1.weight" init(he_normal) : tensor<784x1024xf32>
  %fc1.bias = mpg.param "fc1.bias" init(zeros) : tensor<1024xf32>
  %fc2.weight = mpg.param "fc2.weight" init(he_normal) : tensor<1024x1024xf32>
  %fc2.bias = mpg.param "fc2.bias" init(zeros) : tensor<1024xf32>
  %fc3.weight = mpg.param "fc3.weight" init(glorot_uniform) : tensor<1024x10xf32>
  %fc3.bias = mpg.param "fc3.bias" init(zeros) : tensor<10xf32>

  // fc1 + ReLU, fc2 + ReLU
  %fc1 = mpg.matmul %pixels, %fc1.weight : tensor<256x784xf32>, tensor<784x1024xf32> -> tensor<256x1024xf32>
  %h1_pre = mpg.add %fc1, %fc1.bias : tensor<256x1024xf32>, tensor<1024xf32> -> tensor<256x1024xf32>
  %h1 = mpg.relu %h1_pre : tensor<256x1024xf32>
  %fc2 = mpg.matmul %h1, %fc2.weight : tensor<256x1024xf32>, tensor<1024x1024xf32> -> tensor<256x1024xf32>
  %h2_pre = mpg.add %fc2, %fc2.bias : tensor<256x1024xf32>, tensor<1024xf32> -> tensor<256x1024xf32>
  %h2 = mpg.relu %h2_pre : tensor<256x1024xf32>

  // fc3 -> logits
  %fc3 = mpg.matmul %h2, %fc3.weight : tensor<256x1024xf32>, tensor<1024x10xf32> -> tensor<256x10xf32>
  %logits = mpg.add %fc3, %fc3.bias : tensor<256x10xf32>, tensor<10xf32> -> tensor<256x10xf32>

  // Loss and update
  %loss = mpg.softmax_cross_entropy %logits, %labels : tensor<256x10xf32>, tensor<256xi32> -> tensor<f32>
  mpg.output "logits" %logits : tensor<256x10xf32>
  mpg.minimize %loss optimizer(sgd, lr = 0.05, momentum = 0.9) : tensor<f32>
}
