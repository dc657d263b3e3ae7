// Zero-element tensors for zero-elements.test.
mpg.graph @zero {
  %e = mpg.input "e" : tensor<0x4xf32>
  %y = mpg.exp %e : tensor<0x4xf32>
  %s = mpg.reduce_sum %e axes [0] : tensor<0x4xf32> -> tensor<4xf32>
  %t = mpg.reduce_sum %e axes [1] : tensor<0x4xf32> -> tensor<0xf32>
  mpg.output "y" %y : tensor<0x4xf32>
  mpg.output "s" %s : tensor<4xf32>
  mpg.output "t" %t : tensor<0xf32>
}
