mpg.graph @ok {
  %x = mpg.input "x" : tensor<4xf32>
}
func.func @f() {
  return
}
