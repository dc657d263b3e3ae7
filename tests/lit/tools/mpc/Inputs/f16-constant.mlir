// A constant initializer that f16 cannot hold (its largest value is 65504).
mpg.graph @constant {
  %x = mpg.input "x" : tensor<4x4xf16>
  %b = mpg.param "b" init(constant, value = 1.0e5) : tensor<4xf16>
  %y = mpg.add %x, %b : tensor<4x4xf16>, tensor<4xf16> -> tensor<4x4xf16>
  mpg.output "y" %y : tensor<4x4xf16>
}
