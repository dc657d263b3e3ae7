// Convolutions whose im2col has host forms of their own: im2col-forms.test.
// Kernels of up to 49 elements write each element's columns in code with
// numeric bounds: "same" (3x3, padding 1), "strided" (3x3 at stride 2 with
// uneven padding: rows and columns that read only padding), "dilated" (a
// 3x2 kernel, dilation 2, padding larger than the image reach) and "half"
// (bf16, copied as bits). "wide" has an 8x8 kernel (64 elements): the loop
// over rows of columns. "edge" reads a one-row image at stride 2 with
// padding 1: its kernel's first and last rows read padding only.
mpg.graph @im2col_forms {
  %x1 = mpg.input "x1" : tensor<2x3x14x14xf32>
  %w1 = mpg.input "w1" : tensor<4x3x3x3xf32>
  %same = mpg.conv2d %x1, %w1 padding [1, 1, 1, 1]
      : tensor<2x3x14x14xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x14x14xf32>
  mpg.output "same" %same : tensor<2x4x14x14xf32>

  %x2 = mpg.input "x2" : tensor<1x2x9x11xf32>
  %w2 = mpg.input "w2" : tensor<3x2x3x3xf32>
  %strided = mpg.conv2d %x2, %w2 stride [2, 2] padding [2, 0, 1, 3]
      : tensor<1x2x9x11xf32>, tensor<3x2x3x3xf32> -> tensor<1x3x5x6xf32>
  mpg.output "strided" %strided : tensor<1x3x5x6xf32>

  %x3 = mpg.input "x3" : tensor<1x2x6x7xf32>
  %w3 = mpg.input "w3" : tensor<2x2x3x2xf32>
  %dilated = mpg.conv2d %x3, %w3 padding [5, 1, 5, 1] dilation [2, 2]
      : tensor<1x2x6x7xf32>, tensor<2x2x3x2xf32> -> tensor<1x2x12x7xf32>
  mpg.output "dilated" %dilated : tensor<1x2x12x7xf32>

  %x4 = mpg.cast %x1 : tensor<2x3x14x14xf32> to tensor<2x3x14x14xbf16>
  %w4 = mpg.cast %w1 : tensor<4x3x3x3xf32> to tensor<4x3x3x3xbf16>
  %half16 = mpg.conv2d %x4, %w4 padding [1, 1, 1, 1]
      : tensor<2x3x14x14xbf16>, tensor<4x3x3x3xbf16> -> tensor<2x4x14x14xbf16>
  %half = mpg.cast %half16 : tensor<2x4x14x14xbf16> to tensor<2x4x14x14xf32>
  mpg.output "half" %half : tensor<2x4x14x14xf32>

  %x5 = mpg.input "x5" : tensor<1x2x12x12xf32>
  %w5 = mpg.input "w5" : tensor<2x2x8x8xf32>
  %wide = mpg.conv2d %x5, %w5 padding [3, 3, 3, 3]
      : tensor<1x2x12x12xf32>, tensor<2x2x8x8xf32> -> tensor<1x2x11x11xf32>
  mpg.output "wide" %wide : tensor<1x2x11x11xf32>

  %x6 = mpg.input "x6" : tensor<1x1x1x5xf32>
  %w6 = mpg.input "w6" : tensor<2x1x3x3xf32>
  %edge = mpg.conv2d %x6, %w6 stride [2, 1] padding [1, 1, 1, 1]
      : tensor<1x1x1x5xf32>, tensor<2x1x3x3xf32> -> tensor<1x2x1x5xf32>
  mpg.output "edge" %edge : tensor<1x2x1x5xf32>
}
