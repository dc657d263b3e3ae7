// Causal attention over bf16 queries, keys and values (two heads of 100
// queries, head size 64), its output widened to f32 for NumPy: the host
// kernel takes bf16 dot products where the CPU has AVX512-BF16
// (attention-bf16-dot.test).
mpg.graph @attention_bf16 {
  %q32 = mpg.input "q" : tensor<2x100x64xf32>
  %k32 = mpg.input "k" : tensor<2x100x64xf32>
  %v32 = mpg.input "v" : tensor<2x100x64xf32>
  %q = mpg.cast %q32 : tensor<2x100x64xf32> to tensor<2x100x64xbf16>
  %k = mpg.cast %k32 : tensor<2x100x64xf32> to tensor<2x100x64xbf16>
  %v = mpg.cast %v32 : tensor<2x100x64xf32> to tensor<2x100x64xbf16>
  %y, %lse = mpg.attention %q, %k, %v scale 1.25e-01 causal : tensor<2x100x64xbf16>, tensor<2x100x64xbf16>, tensor<2x100x64xbf16> -> tensor<2x100x64xbf16>, tensor<2x100xf32>
  %y32 = mpg.cast %y : tensor<2x100x64xbf16> to tensor<2x100x64xf32>
  mpg.output "y" %y32 : tensor<2x100x64xf32>
}
