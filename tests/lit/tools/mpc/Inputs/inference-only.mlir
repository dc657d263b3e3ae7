// An inference graph: no mpg.minimize, hence nothing to train.
mpg.graph @inference {
  %x = mpg.input "x" : tensor<4x4xf32>
  %y = mpg.relu %x : tensor<4x4xf32>
  mpg.output "y" %y : tensor<4x4xf32>
}
