// Convolution input gradients, whose col2im has a host form of its own (an
// image plane summed a band of rows at a time): col2im-forms.test.
// "plane": a 14x14 image that is one band; "bands": 90 rows of 100 (bands
// of 40, 40 and 10 rows) at stride 2 with uneven padding; "dilated": 70x70
// (bands of 58 and 12) with dilation 2; "half": a bf16 image (staged
// through floats), its values casts of f32 inputs and output.
mpg.graph @col2im_forms {
  %dy1 = mpg.input "dy1" : tensor<2x4x14x14xf32>
  %w1 = mpg.input "w1" : tensor<4x3x3x3xf32>
  %plane = mpg.conv2d_grad_input %dy1, %w1 padding [1, 1, 1, 1]
      : tensor<2x4x14x14xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x14x14xf32>
  mpg.output "plane" %plane : tensor<2x3x14x14xf32>

  %dy2 = mpg.input "dy2" : tensor<1x2x45x50xf32>
  %w2 = mpg.input "w2" : tensor<2x2x3x3xf32>
  %bands = mpg.conv2d_grad_input %dy2, %w2 stride [2, 2] padding [1, 1, 0, 0]
      : tensor<1x2x45x50xf32>, tensor<2x2x3x3xf32> -> tensor<1x2x90x100xf32>
  mpg.output "bands" %bands : tensor<1x2x90x100xf32>

  %dy3 = mpg.input "dy3" : tensor<1x2x70x70xf32>
  %w3 = mpg.input "w3" : tensor<2x1x3x3xf32>
  %dilated = mpg.conv2d_grad_input %dy3, %w3 padding [2, 2, 2, 2] dilation [2, 2]
      : tensor<1x2x70x70xf32>, tensor<2x1x3x3xf32> -> tensor<1x1x70x70xf32>
  mpg.output "dilated" %dilated : tensor<1x1x70x70xf32>

  %dy4 = mpg.cast %dy1 : tensor<2x4x14x14xf32> to tensor<2x4x14x14xbf16>
  %w4 = mpg.cast %w1 : tensor<4x3x3x3xf32> to tensor<4x3x3x3xbf16>
  %half16 = mpg.conv2d_grad_input %dy4, %w4 padding [1, 1, 1, 1]
      : tensor<2x4x14x14xbf16>, tensor<4x3x3x3xbf16> -> tensor<2x3x14x14xbf16>
  %half = mpg.cast %half16 : tensor<2x3x14x14xbf16> to tensor<2x3x14x14xf32>
  mpg.output "half" %half : tensor<2x3x14x14xf32>
}
