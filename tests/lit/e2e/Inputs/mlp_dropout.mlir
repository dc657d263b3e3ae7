// The MLP of examples/mlp.mlir with dropout (rate 0.2) after its ReLU: what
// tests/lit/e2e/dropout.test and the emulated-GPU training test train.
// Data: the scikit-learn digits set (8x8 grey-level images flattened to 64 features,
// 10 classes), one batch of 64 images per step.
// Shapes: pixels [64, 64] f32, labels [64] i32 -> logits [64, 10]; loss: mean cross-entropy.
// Optimizer: SGD, lr 0.1, momentum 0.9.
mpg.graph @mlp {
  // Data
  %pixels = mpg.input "pixels" : tensor<64x64xf32>
  %labels = mpg.input "labels" : tensor<64xi32>

  // Parameters
  %fc1.weight = mpg.param "fc1.weight" init(glorot_uniform) : tensor<64x128xf32>
  %fc1.bias = mpg.param "fc1.bias" init(zeros) : tensor<128xf32>
  %fc2.weight = mpg.param "fc2.weight" init(glorot_uniform) : tensor<128x10xf32>
  %fc2.bias = mpg.param "fc2.bias" init(zeros) : tensor<10xf32>

  // fc1 + ReLU + dropout
  %fc1 = mpg.matmul %pixels, %fc1.weight : tensor<64x64xf32>, tensor<64x128xf32> -> tensor<64x128xf32>
  %h1_pre = mpg.add %fc1, %fc1.bias : tensor<64x128xf32>, tensor<128xf32> -> tensor<64x128xf32>
  %h1_relu = mpg.relu %h1_pre : tensor<64x128xf32>
  %h1 = mpg.dropout %h1_relu rate 0.2 : tensor<64x128xf32>

  // fc2 -> logits
  %fc2 = mpg.matmul %h1, %fc2.weight : tensor<64x128xf32>, tensor<128x10xf32> -> tensor<64x10xf32>
  %logits = mpg.add %fc2, %fc2.bias : tensor<64x10xf32>, tensor<10xf32> -> tensor<64x10xf32>

  // Loss and update
  %loss = mpg.softmax_cross_entropy %logits, %labels : tensor<64x10xf32>, tensor<64xi32> -> tensor<f32>
  mpg.output "logits" %logits : tensor<64x10xf32>
  mpg.minimize %loss optimizer(sgd, lr = 0.1, momentum = 0.9) : tensor<f32>
}
