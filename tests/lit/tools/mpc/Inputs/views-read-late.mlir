// A value read through a view (a reshape) long after the view was made:
// its storage stays live until that read, in the arena plan and in the
// report alike (tests/lit/tools/mpc/report-memory.test).
mpg.graph @views {
  %x = mpg.input "x" : tensor<64x64xf32>
  %w = mpg.input "w" : tensor<64x32xf32>
  %a = mpg.matmul %x, %x : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %v = mpg.reshape %a : tensor<64x64xf32> -> tensor<32x128xf32>
  %b = mpg.matmul %x, %x : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %c = mpg.matmul %b, %b : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %e = mpg.matmul %w, %v : tensor<64x32xf32>, tensor<32x128xf32> -> tensor<64x128xf32>
  mpg.output "c" %c : tensor<64x64xf32>
  mpg.output "e" %e : tensor<64x128xf32>
}
