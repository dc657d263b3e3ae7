mpg.graph @unknown {
  %x = mpg.input "x" : tensor<4x8xf32>
  %y = mpg.softplus %x : tensor<4x8xf32>
}
