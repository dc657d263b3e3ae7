// A two-layer perceptron for Fashion-MNIST (784 -> 256 -> 10, ReLU).
// Data: Fashion-MNIST (28x28 grey-level images flattened to 784 features, pixels / 255,
// 10 classes), one batch of 128 images per step.
// Shapes: pixels [128, 784] f32, labels [128] i32 -> logits [128, 10]; loss: mean
// cross-entropy. Optimizer: Adam, lr 1e-3.
mpg.graph @fashion_mlp {
  // Data
  %pixels = mpg.input "pixels" : tensor<128x784xf32>
  %labels = mpg.input "labels" : tensor<128xi32>

  // Parameters
  %fc1.weight = mpg.param "fc1.weight" init(glorot_uniform) : tensor<784x256xf32>
  %fc1.bias = mpg.param "fc1.bias" init(zeros) : tensor<256xf32>
  %fc2.weight = mpg.param "fc2.weight" init(glorot_uniform) : tensor<256x10xf32>
  %fc2.bias = mpg.param "fc2.bias" init(zeros) : tensor<10xf32>

  // fc1 + ReLU
  %fc1 = mpg.matmul %pixels, %fc1.weight : tensor<128x784xf32>, tensor<784x256xf32> -> tensor<128x256xf32>
  %h1_pre = mpg.add %fc1, %fc1.bias : tensor<128x256xf32>, tensor<256xf32> -> tensor<128x256xf32>
  %h1 = mpg.relu %h1_pre : tensor<128x256xf32>

  // fc2 -> logits
  %fc2 = mpg.matmul %h1, %fc2.weight : tensor<128x256xf32>, tensor<256x10xf32> -> tensor<128x10xf32>
  %logits = mpg.add %fc2, %fc2.bias : tensor<128x10xf32>, tensor<10xf32> -> tensor<128x10xf32>

  // Loss and update
  %loss = mpg.softmax_cross_entropy %logits, %labels : tensor<128x10xf32>, tensor<128xi32> -> tensor<f32>
  mpg.output "logits" %logits : tensor<128x10xf32>
  mpg.minimize %loss optimizer(adam, lr = 1.0e-3) : tensor<f32>
}
