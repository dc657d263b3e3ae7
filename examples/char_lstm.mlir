// A character-level LSTM language model (embedding 32, one LSTM layer of 64 units,
// linear read-out), unrolled over 4 time steps; gate layout i, f, g, o as in PyTorch.
// Data: the King James Bible as plain text, characters mapped to 96 ids (printable ASCII and
// newline); a training step reads 16 windows of 4 characters and predicts each next character.
// Shapes: chars [16, 4] i32, targets [64] i32 time-major (targets[t*16 + b] is the character
// after chars[b, t]); h, c [16, 64] start at zero every step -> logits [64, 96]. Adam, lr 2e-3.
mpg.graph @char_lstm {
  // Data
  %chars = mpg.input "chars" : tensor<16x4xi32>
  %targets = mpg.input "targets" : tensor<64xi32>

  // Parameters: embedding, one fused gate matrix over [x_t, h_{t-1}], read-out
  %embed.weight = mpg.param "embed.weight" init(normal, std = 0.1) : tensor<96x32xf32>
  %lstm.weight = mpg.param "lstm.weight" init(glorot_uniform) : tensor<96x256xf32>
  %lstm.bias = mpg.param "lstm.bias" init(zeros) : tensor<256xf32>
  %head.weight = mpg.param "head.weight" init(glorot_uniform) : tensor<64x96xf32>
  %head.bias = mpg.param "head.bias" init(zeros) : tensor<96xf32>

  // Initial state
  %h0 = mpg.constant dense<0.0> : tensor<16x64xf32>
  %c0 = mpg.constant dense<0.0> : tensor<16x64xf32>

  // Step 1: x_1 = embed(chars[:, 0]); gates = [x_1, h0] W + b; c1 = f*c0 + i*g; h1 = o*tanh(c1)
  %ids1_col = mpg.slice %chars start [0, 0] limit [16, 1] : tensor<16x4xi32> -> tensor<16x1xi32>
  %ids1 = mpg.reshape %ids1_col : tensor<16x1xi32> -> tensor<16xi32>
  %x1 = mpg.embedding %embed.weight, %ids1 : tensor<96x32xf32>, tensor<16xi32> -> tensor<16x32xf32>
  %xh1 = mpg.concat %x1, %h0 axis 1 : tensor<16x32xf32>, tensor<16x64xf32> -> tensor<16x96xf32>
  %gates1_mm = mpg.matmul %xh1, %lstm.weight : tensor<16x96xf32>, tensor<96x256xf32> -> tensor<16x256xf32>
  %gates1 = mpg.add %gates1_mm, %lstm.bias : tensor<16x256xf32>, tensor<256xf32> -> tensor<16x256xf32>
  %i1_pre = mpg.slice %gates1 start [0, 0] limit [16, 64] : tensor<16x256xf32> -> tensor<16x64xf32>
  %f1_pre = mpg.slice %gates1 start [0, 64] limit [16, 128] : tensor<16x256xf32> -> tensor<16x64xf32>
  %g1_pre = mpg.slice %gates1 start [0, 128] limit [16, 192] : tensor<16x256xf32> -> tensor<16x64xf32>
  %o1_pre = mpg.slice %gates1 start [0, 192] limit [16, 256] : tensor<16x256xf32> -> tensor<16x64xf32>
  %i1 = mpg.sigmoid %i1_pre : tensor<16x64xf32>
  %f1 = mpg.sigmoid %f1_pre : tensor<16x64xf32>
  %g1 = mpg.tanh %g1_pre : tensor<16x64xf32>
  %o1 = mpg.sigmoid %o1_pre : tensor<16x64xf32>
  %f_c1 = mpg.mul %f1, %c0 : tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  %i_g1 = mpg.mul %i1, %g1 : tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  %c1 = mpg.add %f_c1, %i_g1 : tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  %c1_tanh = mpg.tanh %c1 : tensor<16x64xf32>
  %h1 = mpg.mul %o1, %c1_tanh : tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  %logits1_mm = mpg.matmul %h1, %head.weight : tensor<16x64xf32>, tensor<64x96xf32> -> tensor<16x96xf32>
  %logits1 = mpg.add %logits1_mm, %head.bias : tensor<16x96xf32>, tensor<96xf32> -> tensor<16x96xf32>

  // Step 2: x_2 = embed(chars[:, 1]); gates = [x_2, h1] W + b; c2 = f*c1 + i*g; h2 = o*tanh(c2)
  %ids2_col = mpg.slice %chars start [0, 1] limit [16, 2] : tensor<16x4xi32> -> tensor<16x1xi32>
  %ids2 = mpg.reshape %ids2_col : tensor<16x1xi32> -> tensor<16xi32>
  %x2 = mpg.embedding %embed.weight, %ids2 : tensor<96x32xf32>, tensor<16xi32> -> tensor<16x32xf32>
  %xh2 = mpg.concat %x2, %h1 axis 1 : tensor<16x32xf32>, tensor<16x64xf32> -> tensor<16x96xf32>
  %gates2_mm = mpg.matmul %xh2, %lstm.weight : tensor<16x96xf32>, tensor<96x256xf32> -> tensor<16x256xf32>
  %gates2 = mpg.add %gates2_mm, %lstm.bias : tensor<16x256xf32>, tensor<256xf32> -> tensor<16x256xf32>
  %i2_pre = mpg.slice %gates2 start [0, 0] limit [16, 64] : tensor<16x256xf32> -> tensor<16x64xf32>
  %f2_pre = mpg.slice %gates2 start [0, 64] limit [16, 128] : tensor<16x256xf32> -> tensor<16x64xf32>
  %g2_pre = mpg.slice %gates2 start [0, 128] limit [16, 192] : tensor<16x256xf32> -> tensor<16x64xf32>
  %o2_pre = mpg.slice %gates2 start [0, 192] limit [16, 256] : tensor<16x256xf32> -> tensor<16x64xf32>
  %i2 = mpg.sigmoid %i2_pre : tensor<16x64xf32>
  %f2 = mpg.sigmoid %f2_pre : tensor<16x64xf32>
  %g2 = mpg.tanh %g2_pre : tensor<16x64xf32>
  %o2 = mpg.sigmoid %o2_pre : tensor<16x64xf32>
  %f_c2 = mpg.mul %f2, %c1 : tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  %i_g2 = mpg.mul %i2, %g2 : tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  %c2 = mpg.add %f_c2, %i_g2 : tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  %c2_tanh = mpg.tanh %c2 : tensor<16x64xf32>
  %h2 = mpg.mul %o2, %c2_tanh : tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  %logits2_mm = mpg.matmul %h2, %head.weight : tensor<16x64xf32>, tensor<64x96xf32> -> tensor<16x96xf32>
  %logits2 = mpg.add %logits2_mm, %head.bias : tensor<16x96xf32>, tensor<96xf32> -> tensor<16x96xf32>

  // Step 3: x_3 = embed(chars[:, 2]); gates = [x_3, h2] W + b; c3 = f*c2 + i*g; h3 = o*tanh(c3)
  %ids3_col = mpg.slice %chars start [0, 2] limit [16, 3] : tensor<16x4xi32> -> tensor<16x1xi32>
  %ids3 = mpg.reshape %ids3_col : tensor<16x1xi32> -> tensor<16xi32>
  %x3 = mpg.embedding %embed.weight, %ids3 : tensor<96x32xf32>, tensor<16xi32> -> tensor<16x32xf32>
  %xh3 = mpg.concat %x3, %h2 axis 1 : tensor<16x32xf32>, tensor<16x64xf32> -> tensor<16x96xf32>
  %gates3_mm = mpg.matmul %xh3, %lstm.weight : tensor<16x96xf32>, tensor<96x256xf32> -> tensor<16x256xf32>
  %gates3 = mpg.add %gates3_mm, %lstm.bias : tensor<16x256xf32>, tensor<256xf32> -> tensor<16x256xf32>
  %i3_pre = mpg.slice %gates3 start [0, 0] limit [16, 64] : tensor<16x256xf32> -> tensor<16x64xf32>
  %f3_pre = mpg.slice %gates3 start [0, 64] limit [16, 128] : tensor<16x256xf32> -> tensor<16x64xf32>
  %g3_pre = mpg.slice %gates3 start [0, 128] limit [16, 192] : tensor<16x256xf32> -> tensor<16x64xf32>
  %o3_pre = mpg.slice %gates3 start [0, 192] limit [16, 256] : tensor<16x256xf32> -> tensor<16x64xf32>
  %i3 = mpg.sigmoid %i3_pre : tensor<16x64xf32>
  %f3 = mpg.sigmoid %f3_pre : tensor<16x64xf32>
  %g3 = mpg.tanh %g3_pre : tensor<16x64xf32>
  %o3 = mpg.sigmoid %o3_pre : tensor<16x64xf32>
  %f_c3 = mpg.mul %f3, %c2 : tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  %i_g3 = mpg.mul %i3, %g3 : tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  %c3 = mpg.add %f_c3, %i_g3 : tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  %c3_tanh = mpg.tanh %c3 : tensor<16x64xf32>
  %h3 = mpg.mul %o3, %c3_tanh : tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  %logits3_mm = mpg.matmul %h3, %head.weight : tensor<16x64xf32>, tensor<64x96xf32> -> tensor<16x96xf32>
  %logits3 = mpg.add %logits3_mm, %head.bias : tensor<16x96xf32>, tensor<96xf32> -> tensor<16x96xf32>

  // Step 4: x_4 = embed(chars[:, 3]); gates = [x_4, h3] W + b; c4 = f*c3 + i*g; h4 = o*tanh(c4)
  %ids4_col = mpg.slice %chars start [0, 3] limit [16, 4] : tensor<16x4xi32> -> tensor<16x1xi32>
  %ids4 = mpg.reshape %ids4_col : tensor<16x1xi32> -> tensor<16xi32>
  %x4 = mpg.embedding %embed.weight, %ids4 : tensor<96x32xf32>, tensor<16xi32> -> tensor<16x32xf32>
  %xh4 = mpg.concat %x4, %h3 axis 1 : tensor<16x32xf32>, tensor<16x64xf32> -> tensor<16x96xf32>
  %gates4_mm = mpg.matmul %xh4, %lstm.weight : tensor<16x96xf32>, tensor<96x256xf32> -> tensor<16x256xf32>
  %gates4 = mpg.add %gates4_mm, %lstm.bias : tensor<16x256xf32>, tensor<256xf32> -> tensor<16x256xf32>
  %i4_pre = mpg.slice %gates4 start [0, 0] limit [16, 64] : tensor<16x256xf32> -> tensor<16x64xf32>
  %f4_pre = mpg.slice %gates4 start [0, 64] limit [16, 128] : tensor<16x256xf32> -> tensor<16x64xf32>
  %g4_pre = mpg.slice %gates4 start [0, 128] limit [16, 192] : tensor<16x256xf32> -> tensor<16x64xf32>
  %o4_pre = mpg.slice %gates4 start [0, 192] limit [16, 256] : tensor<16x256xf32> -> tensor<16x64xf32>
  %i4 = mpg.sigmoid %i4_pre : tensor<16x64xf32>
  %f4 = mpg.sigmoid %f4_pre : tensor<16x64xf32>
  %g4 = mpg.tanh %g4_pre : tensor<16x64xf32>
  %o4 = mpg.sigmoid %o4_pre : tensor<16x64xf32>
  %f_c4 = mpg.mul %f4, %c3 : tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  %i_g4 = mpg.mul %i4, %g4 : tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  %c4 = mpg.add %f_c4, %i_g4 : tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  %c4_tanh = mpg.tanh %c4 : tensor<16x64xf32>
  %h4 = mpg.mul %o4, %c4_tanh : tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  %logits4_mm = mpg.matmul %h4, %head.weight : tensor<16x64xf32>, tensor<64x96xf32> -> tensor<16x96xf32>
  %logits4 = mpg.add %logits4_mm, %head.bias : tensor<16x96xf32>, tensor<96xf32> -> tensor<16x96xf32>

  // Logits of all time steps, time-major: [4 x 16, 96]
  %logits = mpg.concat %logits1, %logits2, %logits3, %logits4 axis 0
      : tensor<16x96xf32>, tensor<16x96xf32>, tensor<16x96xf32>, tensor<16x96xf32> -> tensor<64x96xf32>

  // Next-character distribution after the last step (for sampling)
  %probs = mpg.softmax %logits4 : tensor<16x96xf32> -> tensor<16x96xf32>

  // Loss and update
  %loss = mpg.softmax_cross_entropy %logits, %targets : tensor<64x96xf32>, tensor<64xi32> -> tensor<f32>
  mpg.output "logits" %logits : tensor<64x96xf32>
  mpg.output "last_probs" %probs : tensor<16x96xf32>
  mpg.minimize %loss optimizer(adam, lr = 2.0e-3) : tensor<f32>
}
