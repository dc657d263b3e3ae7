// One pre-norm transformer block (4-head self-attention + GELU MLP) with token and learned
// positional embeddings, a final layer-norm and a projection to the vocabulary.
// Data: a synthetic sequence task with a target per position, e.g. the input sequence
// sorted (examples/data/make_sequence_task.py); attention is bidirectional (no causal mask).
// Shapes: batch 8, sequence 16, width 64, 4 heads of 16, vocab 32; tokens [8, 16] i32,
// targets [8, 16] i32 -> logits [128, 32] (row-major over [8, 16]). Optimizer: AdamW, lr 1e-3.
mpg.graph @transformer_block {
  // Data
  %tokens = mpg.input "tokens" : tensor<8x16xi32>
  %targets = mpg.input "targets" : tensor<8x16xi32>

  // Parameters
  %tok_emb.weight = mpg.param "tok_emb.weight" init(normal, std = 0.02) : tensor<32x64xf32>
  %pos_emb = mpg.param "pos_emb" init(normal, std = 0.02) : tensor<16x64xf32>
  %ln1.weight = mpg.param "ln1.weight" init(ones) : tensor<64xf32>
  %ln1.bias = mpg.param "ln1.bias" init(zeros) : tensor<64xf32>
  %attn.q_proj.weight = mpg.param "attn.q_proj.weight" init(glorot_uniform) : tensor<64x64xf32>
  %attn.q_proj.bias = mpg.param "attn.q_proj.bias" init(zeros) : tensor<64xf32>
  %attn.k_proj.weight = mpg.param "attn.k_proj.weight" init(glorot_uniform) : tensor<64x64xf32>
  %attn.k_proj.bias = mpg.param "attn.k_proj.bias" init(zeros) : tensor<64xf32>
  %attn.v_proj.weight = mpg.param "attn.v_proj.weight" init(glorot_uniform) : tensor<64x64xf32>
  %attn.v_proj.bias = mpg.param "attn.v_proj.bias" init(zeros) : tensor<64xf32>
  %attn.out_proj.weight = mpg.param "attn.out_proj.weight" init(glorot_uniform) : tensor<64x64xf32>
  %attn.out_proj.bias = mpg.param "attn.out_proj.bias" init(zeros) : tensor<64xf32>
  %ln2.weight = mpg.param "ln2.weight" init(ones) : tensor<64xf32>
  %ln2.bias = mpg.param "ln2.bias" init(zeros) : tensor<64xf32>
  %mlp.fc1.weight = mpg.param "mlp.fc1.weight" init(he_normal) : tensor<64x256xf32>
  %mlp.fc1.bias = mpg.param "mlp.fc1.bias" init(zeros) : tensor<256xf32>
  %mlp.fc2.weight = mpg.param "mlp.fc2.weight" init(glorot_uniform) : tensor<256x64xf32>
  %mlp.fc2.bias = mpg.param "mlp.fc2.bias" init(zeros) : tensor<64xf32>
  %ln_f.weight = mpg.param "ln_f.weight" init(ones) : tensor<64xf32>
  %ln_f.bias = mpg.param "ln_f.bias" init(zeros) : tensor<64xf32>
  %lm_head.weight = mpg.param "lm_head.weight" init(glorot_uniform) : tensor<64x32xf32>
  %lm_head.bias = mpg.param "lm_head.bias" init(zeros) : tensor<32xf32>

  // Embeddings: token rows plus a learned position vector per position -> [8, 16, 64]
  %tok = mpg.embedding %tok_emb.weight, %tokens : tensor<32x64xf32>, tensor<8x16xi32> -> tensor<8x16x64xf32>
  %x0 = mpg.add %tok, %pos_emb : tensor<8x16x64xf32>, tensor<16x64xf32> -> tensor<8x16x64xf32>

  // Attention: layer-norm, Q/K/V projections on the flattened [B*S, D] = [128, 64] tensor
  %ln1 = mpg.layer_norm %x0, %ln1.weight, %ln1.bias
      : tensor<8x16x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<8x16x64xf32>
  %ln1_flat = mpg.reshape %ln1 : tensor<8x16x64xf32> -> tensor<128x64xf32>
  %q_mm = mpg.matmul %ln1_flat, %attn.q_proj.weight : tensor<128x64xf32>, tensor<64x64xf32> -> tensor<128x64xf32>
  %q = mpg.add %q_mm, %attn.q_proj.bias : tensor<128x64xf32>, tensor<64xf32> -> tensor<128x64xf32>
  %k_mm = mpg.matmul %ln1_flat, %attn.k_proj.weight : tensor<128x64xf32>, tensor<64x64xf32> -> tensor<128x64xf32>
  %k = mpg.add %k_mm, %attn.k_proj.bias : tensor<128x64xf32>, tensor<64xf32> -> tensor<128x64xf32>
  %v_mm = mpg.matmul %ln1_flat, %attn.v_proj.weight : tensor<128x64xf32>, tensor<64x64xf32> -> tensor<128x64xf32>
  %v = mpg.add %v_mm, %attn.v_proj.bias : tensor<128x64xf32>, tensor<64xf32> -> tensor<128x64xf32>

  // Split heads: [128, 64] -> [8, 16, 4, 16] -> [8, 4, 16, 16] -> [B*H, S, dh] = [32, 16, 16]
  %q_4d = mpg.reshape %q : tensor<128x64xf32> -> tensor<8x16x4x16xf32>
  %q_t = mpg.transpose %q_4d perm [0, 2, 1, 3] : tensor<8x16x4x16xf32> -> tensor<8x4x16x16xf32>
  %q_heads = mpg.reshape %q_t : tensor<8x4x16x16xf32> -> tensor<32x16x16xf32>
  %k_4d = mpg.reshape %k : tensor<128x64xf32> -> tensor<8x16x4x16xf32>
  %k_t = mpg.transpose %k_4d perm [0, 2, 1, 3] : tensor<8x16x4x16xf32> -> tensor<8x4x16x16xf32>
  %k_heads = mpg.reshape %k_t : tensor<8x4x16x16xf32> -> tensor<32x16x16xf32>
  %v_4d = mpg.reshape %v : tensor<128x64xf32> -> tensor<8x16x4x16xf32>
  %v_t = mpg.transpose %v_4d perm [0, 2, 1, 3] : tensor<8x16x4x16xf32> -> tensor<8x4x16x16xf32>
  %v_heads = mpg.reshape %v_t : tensor<8x4x16x16xf32> -> tensor<32x16x16xf32>

  // Scaled dot-product attention: softmax(q k^T / sqrt(16)) v
  %attn_raw = mpg.batch_matmul %q_heads, %k_heads transpose_b
      : tensor<32x16x16xf32>, tensor<32x16x16xf32> -> tensor<32x16x16xf32>
  %inv_sqrt_dh = mpg.constant dense<0.25> : tensor<f32>
  %attn_scores = mpg.mul %attn_raw, %inv_sqrt_dh : tensor<32x16x16xf32>, tensor<f32> -> tensor<32x16x16xf32>
  %attn_probs = mpg.softmax %attn_scores : tensor<32x16x16xf32> -> tensor<32x16x16xf32>
  %ctx_heads = mpg.batch_matmul %attn_probs, %v_heads
      : tensor<32x16x16xf32>, tensor<32x16x16xf32> -> tensor<32x16x16xf32>

  // Merge heads: [32, 16, 16] -> [8, 4, 16, 16] -> [8, 16, 4, 16] -> [128, 64]
  %ctx_4d = mpg.reshape %ctx_heads : tensor<32x16x16xf32> -> tensor<8x4x16x16xf32>
  %ctx_t = mpg.transpose %ctx_4d perm [0, 2, 1, 3] : tensor<8x4x16x16xf32> -> tensor<8x16x4x16xf32>
  %ctx = mpg.reshape %ctx_t : tensor<8x16x4x16xf32> -> tensor<128x64xf32>

  // Output projection and residual
  %attn_mm = mpg.matmul %ctx, %attn.out_proj.weight : tensor<128x64xf32>, tensor<64x64xf32> -> tensor<128x64xf32>
  %attn_flat = mpg.add %attn_mm, %attn.out_proj.bias : tensor<128x64xf32>, tensor<64xf32> -> tensor<128x64xf32>
  %attn_out = mpg.reshape %attn_flat : tensor<128x64xf32> -> tensor<8x16x64xf32>
  %x1 = mpg.add %x0, %attn_out : tensor<8x16x64xf32>, tensor<8x16x64xf32> -> tensor<8x16x64xf32>

  // MLP: layer-norm, 64 -> 256 GELU -> 64, residual
  %ln2 = mpg.layer_norm %x1, %ln2.weight, %ln2.bias
      : tensor<8x16x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<8x16x64xf32>
  %ln2_flat = mpg.reshape %ln2 : tensor<8x16x64xf32> -> tensor<128x64xf32>
  %fc1_mm = mpg.matmul %ln2_flat, %mlp.fc1.weight : tensor<128x64xf32>, tensor<64x256xf32> -> tensor<128x256xf32>
  %fc1 = mpg.add %fc1_mm, %mlp.fc1.bias : tensor<128x256xf32>, tensor<256xf32> -> tensor<128x256xf32>
  %mlp_hidden = mpg.gelu %fc1 : tensor<128x256xf32>
  %fc2_mm = mpg.matmul %mlp_hidden, %mlp.fc2.weight : tensor<128x256xf32>, tensor<256x64xf32> -> tensor<128x64xf32>
  %mlp_flat = mpg.add %fc2_mm, %mlp.fc2.bias : tensor<128x64xf32>, tensor<64xf32> -> tensor<128x64xf32>
  %mlp_out = mpg.reshape %mlp_flat : tensor<128x64xf32> -> tensor<8x16x64xf32>
  %x2 = mpg.add %x1, %mlp_out : tensor<8x16x64xf32>, tensor<8x16x64xf32> -> tensor<8x16x64xf32>

  // Final layer-norm and projection to the vocabulary: [128, 64] -> [128, 32]
  %ln_f = mpg.layer_norm %x2, %ln_f.weight, %ln_f.bias
      : tensor<8x16x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<8x16x64xf32>
  %ln_f_flat = mpg.reshape %ln_f : tensor<8x16x64xf32> -> tensor<128x64xf32>
  %head_mm = mpg.matmul %ln_f_flat, %lm_head.weight : tensor<128x64xf32>, tensor<64x32xf32> -> tensor<128x32xf32>
  %logits = mpg.add %head_mm, %lm_head.bias : tensor<128x32xf32>, tensor<32xf32> -> tensor<128x32xf32>

  // Loss and update
  %targets_flat = mpg.reshape %targets : tensor<8x16xi32> -> tensor<128xi32>
  %loss = mpg.softmax_cross_entropy %logits, %targets_flat : tensor<128x32xf32>, tensor<128xi32> -> tensor<f32>
  mpg.output "logits" %logits : tensor<128x32xf32>
  mpg.output "attn_probs" %attn_probs : tensor<32x16x16xf32>
  mpg.minimize %loss optimizer(adamw, lr = 1.0e-3, weight_decay = 0.01) : tensor<f32>
}
