// The loss scaler's overflow check on its own: all_finite over four tensors
// of different shapes and types. mpg-decompose turns it into one sum of
// x * 0 per operand; three of those are launched together, the fourth
// combines them.
mpg.graph @finite_checks {
  %a = mpg.input "a" : tensor<4x8xf32>
  %b = mpg.input "b" : tensor<300xf16>
  %c = mpg.input "c" : tensor<2x3x5xf32>
  %d = mpg.input "d" : tensor<1000xf32>
  %ok = mpg.all_finite %a, %b, %c, %d : tensor<4x8xf32>, tensor<300xf16>, tensor<2x3x5xf32>, tensor<1000xf32> -> tensor<i1>
  mpg.output "ok" %ok : tensor<i1>
}
