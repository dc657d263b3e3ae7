// An f32 input rounded to bf16 and to f16 and output in those types.
mpg.graph @narrow {
  %x = mpg.input "x" : tensor<3xf32>
  %b = mpg.cast %x : tensor<3xf32> to tensor<3xbf16>
  %h = mpg.cast %x : tensor<3xf32> to tensor<3xf16>
  mpg.output "b" %b : tensor<3xbf16>
  mpg.output "h" %h : tensor<3xf16>
}
