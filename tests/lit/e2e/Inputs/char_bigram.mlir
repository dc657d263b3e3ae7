// A bigram model over characters with batch-major targets: chars [8, 5],
// targets [8, 5] (targets[b, t] follows chars[b, t]) -> logits [40, 96].
mpg.graph @char_bigram {
  %chars = mpg.input "chars" : tensor<8x5xi32>
  %targets = mpg.input "targets" : tensor<8x5xi32>
  %table = mpg.param "table" init(zeros) : tensor<96x96xf32>
  %ids = mpg.reshape %chars : tensor<8x5xi32> -> tensor<40xi32>
  %next = mpg.reshape %targets : tensor<8x5xi32> -> tensor<40xi32>
  %logits = mpg.embedding %table, %ids : tensor<96x96xf32>, tensor<40xi32> -> tensor<40x96xf32>
  %loss = mpg.softmax_cross_entropy %logits, %next : tensor<40x96xf32>, tensor<40xi32> -> tensor<f32>
  mpg.output "logits" %logits : tensor<40x96xf32>
  mpg.minimize %loss optimizer(adam, lr = 5.0e-2) : tensor<f32>
}
