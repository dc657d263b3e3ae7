// A contraction over 10^11 elements: GEMM libraries take 32-bit sizes.
mpg.graph @huge {
  %x = mpg.input "x" : tensor<4x100000000000xf32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<100000000000x4xf32>
  %y = mpg.matmul %x, %w : tensor<4x100000000000xf32>, tensor<100000000000x4xf32> -> tensor<4x4xf32>
  mpg.output "y" %y : tensor<4x4xf32>
}
