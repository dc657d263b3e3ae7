// A stride no 32-bit size holds.
mpg.graph @strided {
  %x = mpg.input "x" : tensor<2x4x8x8xf32>
  %w = mpg.param "w" init(he_normal) : tensor<4x4x3x3xf32>
  %y = mpg.conv2d %x, %w stride [9223372036854775807, 1] : tensor<2x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<2x4x1x6xf32>
  mpg.output "y" %y : tensor<2x4x1x6xf32>
}
