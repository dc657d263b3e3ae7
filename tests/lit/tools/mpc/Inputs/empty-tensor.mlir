// A GEMM of an empty tensor: the dialect takes it, mpc's code generation
// does not.
mpg.graph @empty {
  %x = mpg.input "x" : tensor<0x8xf32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<8x4xf32>
  %y = mpg.matmul %x, %w : tensor<0x8xf32>, tensor<8x4xf32> -> tensor<0x4xf32>
  mpg.output "y" %y : tensor<0x4xf32>
}
