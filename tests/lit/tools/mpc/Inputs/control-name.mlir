// An input named with a newline (\0A): a bundle's names may not hold one.
mpg.graph @named {
  %x = mpg.input "pix\0Aels" : tensor<4x4xf32>
  %y = mpg.relu %x : tensor<4x4xf32>
  mpg.output "y" %y : tensor<4x4xf32>
}
