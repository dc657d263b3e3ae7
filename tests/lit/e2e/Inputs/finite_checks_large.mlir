// The loss scaler's overflow check over two operands large enough that
// mpg-decompose sums each in two stages (partial sums over the trailing
// axes, then their sum; passes/mpg-decompose-finite-split.mlir) and a
// small one summed whole.
mpg.graph @finite_checks_large {
  %a = mpg.input "a" : tensor<256x256xf32>
  %b = mpg.input "b" : tensor<8x16x512xf16>
  %c = mpg.input "c" : tensor<1000xf32>
  %ok = mpg.all_finite %a, %b, %c : tensor<256x256xf32>, tensor<8x16x512xf16>, tensor<1000xf32> -> tensor<i1>
  mpg.output "ok" %ok : tensor<i1>
}
