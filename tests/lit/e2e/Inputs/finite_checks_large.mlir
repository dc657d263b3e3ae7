// The loss scaler's overflow check over operands large enough that
// mpg-decompose sums each in two stages (partial sums over the trailing
// axes, then their sum; passes/mpg-decompose-finite-split.mlir).
mpg.graph @finite_checks_large {
  %a = mpg.input "a" : tensor<256x256xf32>
  %b = mpg.input "b" : tensor<8x16x512xf16>
  %ok = mpg.all_finite %a, %b : tensor<256x256xf32>, tensor<8x16x512xf16> -> tensor<i1>
  mpg.output "ok" %ok : tensor<i1>
}
