// The soak test's gradient probe (tools/soak/soak.py): a two-layer
// perceptron trained with Adam whose loss adds sum(param * probe) for every
// parameter, each probe an input of the parameter's shape. Probes of zeros
// leave the training as it is; one large element in a probe makes that one
// element of that parameter's gradient overflow while the loss stays finite,
// which the loss scaler must catch (skip the step, back off).
mpg.graph @probed_mlp {
  %pixels = mpg.input "pixels" : tensor<32x64xf32>
  %labels = mpg.input "labels" : tensor<32xi32>
  %probe.fc1.weight = mpg.input "probe.fc1.weight" : tensor<64x32xf32>
  %probe.fc1.bias = mpg.input "probe.fc1.bias" : tensor<32xf32>
  %probe.fc2.weight = mpg.input "probe.fc2.weight" : tensor<32x10xf32>
  %probe.fc2.bias = mpg.input "probe.fc2.bias" : tensor<10xf32>

  %fc1.weight = mpg.param "fc1.weight" init(glorot_uniform) : tensor<64x32xf32>
  %fc1.bias = mpg.param "fc1.bias" init(zeros) : tensor<32xf32>
  %fc2.weight = mpg.param "fc2.weight" init(glorot_uniform) : tensor<32x10xf32>
  %fc2.bias = mpg.param "fc2.bias" init(zeros) : tensor<10xf32>

  %fc1 = mpg.matmul %pixels, %fc1.weight : tensor<32x64xf32>, tensor<64x32xf32> -> tensor<32x32xf32>
  %h1_pre = mpg.add %fc1, %fc1.bias : tensor<32x32xf32>, tensor<32xf32> -> tensor<32x32xf32>
  %h1 = mpg.relu %h1_pre : tensor<32x32xf32>
  %fc2 = mpg.matmul %h1, %fc2.weight : tensor<32x32xf32>, tensor<32x10xf32> -> tensor<32x10xf32>
  %logits = mpg.add %fc2, %fc2.bias : tensor<32x10xf32>, tensor<10xf32> -> tensor<32x10xf32>
  %ce = mpg.softmax_cross_entropy %logits, %labels : tensor<32x10xf32>, tensor<32xi32> -> tensor<f32>

  %t1 = mpg.mul %fc1.weight, %probe.fc1.weight : tensor<64x32xf32>, tensor<64x32xf32> -> tensor<64x32xf32>
  %s1 = mpg.reduce_sum %t1 axes [0, 1] : tensor<64x32xf32> -> tensor<f32>
  %t2 = mpg.mul %fc1.bias, %probe.fc1.bias : tensor<32xf32>, tensor<32xf32> -> tensor<32xf32>
  %s2 = mpg.reduce_sum %t2 axes [0] : tensor<32xf32> -> tensor<f32>
  %t3 = mpg.mul %fc2.weight, %probe.fc2.weight : tensor<32x10xf32>, tensor<32x10xf32> -> tensor<32x10xf32>
  %s3 = mpg.reduce_sum %t3 axes [0, 1] : tensor<32x10xf32> -> tensor<f32>
  %t4 = mpg.mul %fc2.bias, %probe.fc2.bias : tensor<10xf32>, tensor<10xf32> -> tensor<10xf32>
  %s4 = mpg.reduce_sum %t4 axes [0] : tensor<10xf32> -> tensor<f32>
  %l1 = mpg.add %ce, %s1 : tensor<f32>, tensor<f32> -> tensor<f32>
  %l2 = mpg.add %l1, %s2 : tensor<f32>, tensor<f32> -> tensor<f32>
  %l3 = mpg.add %l2, %s3 : tensor<f32>, tensor<f32> -> tensor<f32>
  %loss = mpg.add %l3, %s4 : tensor<f32>, tensor<f32> -> tensor<f32>
  mpg.minimize %loss optimizer(adam, lr = 1.0e-3) : tensor<f32>
}
