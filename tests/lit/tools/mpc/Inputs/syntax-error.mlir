mpg.graph @broken {
  %x = mpg.input "x" : tensor<4x8xf32
}
