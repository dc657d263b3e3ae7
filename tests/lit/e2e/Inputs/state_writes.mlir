// Outputs of a state the step writes show its value at the start of the
// step; a write whose value is another written state (a swap) moves the old
// value; a reduction of a constant reads the constant.
mpg.graph @state_writes {
  %x = mpg.input "x" : tensor<4xf32>
  %s = mpg.state "s" init(ones) : tensor<4xf32>
  %t = mpg.state "t" init(zeros) : tensor<4xf32>
  %n = mpg.add %x, %s : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  mpg.state_write %s, %n : tensor<4xf32>
  mpg.state_write %t, %s : tensor<4xf32>
  mpg.output "s_before" %s : tensor<4xf32>
  %c = mpg.constant dense<2.0> : tensor<4xf32>
  %r = mpg.reduce_sum %c axes [0] : tensor<4xf32> -> tensor<f32>
  mpg.output "r" %r : tensor<f32>
}
