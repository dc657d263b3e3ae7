// An embedding of no indices: its gradient would be a GEMM summing over none.
mpg.graph @embed {
  %ids = mpg.input "ids" : tensor<0xi32>
  %table = mpg.param "table" init(normal) : tensor<8x4xf32>
  %x = mpg.embedding %table, %ids : tensor<8x4xf32>, tensor<0xi32> -> tensor<0x4xf32>
  %s = mpg.reduce_sum %x axes [0, 1] : tensor<0x4xf32> -> tensor<f32>
  mpg.output "x" %x : tensor<0x4xf32>
  mpg.minimize %s optimizer(sgd, lr = 0.1) : tensor<f32>
}
