// A small convolutional network: two conv3x3 -> batch-norm -> ReLU -> max-pool stages
// (1 -> 8 -> 16 channels), global average pooling and a linear classifier.
// Data: Fashion-MNIST (28x28 grey-level images, 10 classes), one batch of 32 images per step.
// Shapes: images [32, 1, 28, 28] f32, labels [32] i32; 28x28 -> 14x14 -> 7x7 -> [32, 16]
// -> logits [32, 10]. Batch-norm running statistics are persistent state (no conv bias:
// batch-norm's shift makes it redundant). Optimizer: Adam, lr 1e-3.
mpg.graph @cnn {
  // Data
  %images = mpg.input "images" : tensor<32x1x28x28xf32>
  %labels = mpg.input "labels" : tensor<32xi32>

  // Parameters and batch-norm state
  %conv1.weight = mpg.param "conv1.weight" init(he_normal) : tensor<8x1x3x3xf32>
  %bn1.weight = mpg.param "bn1.weight" init(ones) : tensor<8xf32>
  %bn1.bias = mpg.param "bn1.bias" init(zeros) : tensor<8xf32>
  %bn1.running_mean = mpg.state "bn1.running_mean" init(zeros) : tensor<8xf32>
  %bn1.running_var = mpg.state "bn1.running_var" init(ones) : tensor<8xf32>
  %conv2.weight = mpg.param "conv2.weight" init(he_normal) : tensor<16x8x3x3xf32>
  %bn2.weight = mpg.param "bn2.weight" init(ones) : tensor<16xf32>
  %bn2.bias = mpg.param "bn2.bias" init(zeros) : tensor<16xf32>
  %bn2.running_mean = mpg.state "bn2.running_mean" init(zeros) : tensor<16xf32>
  %bn2.running_var = mpg.state "bn2.running_var" init(ones) : tensor<16xf32>
  %fc.weight = mpg.param "fc.weight" init(glorot_uniform) : tensor<16x10xf32>
  %fc.bias = mpg.param "fc.bias" init(zeros) : tensor<10xf32>

  // Stage 1: conv 3x3 (pad 1) -> batch-norm -> ReLU -> max-pool 2x2: [32,1,28,28] -> [32,8,14,14]
  %conv1 = mpg.conv2d %images, %conv1.weight padding [1, 1, 1, 1]
      : tensor<32x1x28x28xf32>, tensor<8x1x3x3xf32> -> tensor<32x8x28x28xf32>
  %bn1, %bn1_mean, %bn1_var = mpg.batch_norm %conv1, %bn1.weight, %bn1.bias, %bn1.running_mean, %bn1.running_var
      : tensor<32x8x28x28xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
      -> tensor<32x8x28x28xf32>, tensor<8xf32>, tensor<8xf32>
  mpg.state_write %bn1.running_mean, %bn1_mean : tensor<8xf32>
  mpg.state_write %bn1.running_var, %bn1_var : tensor<8xf32>
  %relu1 = mpg.relu %bn1 : tensor<32x8x28x28xf32>
  %pool1 = mpg.max_pool2d %relu1 kernel [2, 2] : tensor<32x8x28x28xf32> -> tensor<32x8x14x14xf32>

  // Stage 2: conv 3x3 (pad 1) -> batch-norm -> ReLU -> max-pool 2x2: [32,8,14,14] -> [32,16,7,7]
  %conv2 = mpg.conv2d %pool1, %conv2.weight padding [1, 1, 1, 1]
      : tensor<32x8x14x14xf32>, tensor<16x8x3x3xf32> -> tensor<32x16x14x14xf32>
  %bn2, %bn2_mean, %bn2_var = mpg.batch_norm %conv2, %bn2.weight, %bn2.bias, %bn2.running_mean, %bn2.running_var
      : tensor<32x16x14x14xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
      -> tensor<32x16x14x14xf32>, tensor<16xf32>, tensor<16xf32>
  mpg.state_write %bn2.running_mean, %bn2_mean : tensor<16xf32>
  mpg.state_write %bn2.running_var, %bn2_var : tensor<16xf32>
  %relu2 = mpg.relu %bn2 : tensor<32x16x14x14xf32>
  %pool2 = mpg.max_pool2d %relu2 kernel [2, 2] : tensor<32x16x14x14xf32> -> tensor<32x16x7x7xf32>

  // Head: global average pool -> linear: [32,16,7,7] -> [32,16] -> [32,10]
  %features = mpg.global_avg_pool %pool2 : tensor<32x16x7x7xf32> -> tensor<32x16xf32>
  %fc = mpg.matmul %features, %fc.weight : tensor<32x16xf32>, tensor<16x10xf32> -> tensor<32x10xf32>
  %logits = mpg.add %fc, %fc.bias : tensor<32x10xf32>, tensor<10xf32> -> tensor<32x10xf32>
  %probs = mpg.softmax %logits : tensor<32x10xf32> -> tensor<32x10xf32>

  // Loss and update
  %loss = mpg.softmax_cross_entropy %logits, %labels : tensor<32x10xf32>, tensor<32xi32> -> tensor<f32>
  mpg.output "logits" %logits : tensor<32x10xf32>
  mpg.output "probs" %probs : tensor<32x10xf32>
  mpg.minimize %loss optimizer(adam, lr = 1.0e-3) : tensor<f32>
}
