// Forward pooling whose windows tile the plane (stride = kernel, no
// padding): the host's plane form, rows of windows in blocks of 8 or 4
// (14, 7, 10, 15 and 33 windows) or in one loop (8 and 4 windows); f32
// planes read in place, bf16 ones widened into floats first unless larger
// than 4096 elements ("xl"), outputs narrowed from floats; "xs" holds ties,
// +0 and -0, NaNs and infinities. The last pooling's windows overlap (the
// row form): pool-forms.test.
mpg.graph @pools {
  %x28 = mpg.input "x28" : tensor<2x3x28x28xf32>
  %x15 = mpg.input "x15" : tensor<2x3x15x15xf32>
  %x30 = mpg.input "x30" : tensor<2x3x30x30xf32>
  %x16 = mpg.input "x16" : tensor<2x3x16x16xf32>
  %xs = mpg.input "xs" : tensor<2x3x30x30xf32>
  %xl = mpg.input "xl" : tensor<2x1x66x66xf32>
  %x9 = mpg.input "x9" : tensor<2x3x9x9xf32>
  %max28 = mpg.max_pool2d %x28 kernel [2, 2] : tensor<2x3x28x28xf32> -> tensor<2x3x14x14xf32>
  %x15h = mpg.cast %x15 : tensor<2x3x15x15xf32> to tensor<2x3x15x15xbf16>
  %max15 = mpg.max_pool2d %x15h kernel [2, 2] : tensor<2x3x15x15xbf16> -> tensor<2x3x7x7xbf16>
  %x30h = mpg.cast %x30 : tensor<2x3x30x30xf32> to tensor<2x3x30x30xbf16>
  %avg30 = mpg.avg_pool2d %x30h kernel [3, 3] : tensor<2x3x30x30xbf16> -> tensor<2x3x10x10xbf16>
  %avg16 = mpg.avg_pool2d %x16 kernel [2, 2] count_include_pad : tensor<2x3x16x16xf32> -> tensor<2x3x8x8xf32>
  %max16 = mpg.max_pool2d %x16 kernel [4, 4] : tensor<2x3x16x16xf32> -> tensor<2x3x4x4xf32>
  %maxs = mpg.max_pool2d %xs kernel [2, 2] : tensor<2x3x30x30xf32> -> tensor<2x3x15x15xf32>
  %xsh = mpg.cast %xs : tensor<2x3x30x30xf32> to tensor<2x3x30x30xbf16>
  %maxsh = mpg.max_pool2d %xsh kernel [3, 3] : tensor<2x3x30x30xbf16> -> tensor<2x3x10x10xbf16>
  %xlh = mpg.cast %xl : tensor<2x1x66x66xf32> to tensor<2x1x66x66xbf16>
  %maxl = mpg.max_pool2d %xlh kernel [2, 2] : tensor<2x1x66x66xbf16> -> tensor<2x1x33x33xbf16>
  %max9 = mpg.max_pool2d %x9 kernel [3, 3] stride [2, 2] padding [1, 1, 1, 1] : tensor<2x3x9x9xf32> -> tensor<2x3x5x5xf32>
  mpg.output "max28" %max28 : tensor<2x3x14x14xf32>
  %max15f = mpg.cast %max15 : tensor<2x3x7x7xbf16> to tensor<2x3x7x7xf32>
  mpg.output "max15" %max15f : tensor<2x3x7x7xf32>
  %avg30f = mpg.cast %avg30 : tensor<2x3x10x10xbf16> to tensor<2x3x10x10xf32>
  mpg.output "avg30" %avg30f : tensor<2x3x10x10xf32>
  mpg.output "avg16" %avg16 : tensor<2x3x8x8xf32>
  mpg.output "max16" %max16 : tensor<2x3x4x4xf32>
  mpg.output "maxs" %maxs : tensor<2x3x15x15xf32>
  %maxshf = mpg.cast %maxsh : tensor<2x3x10x10xbf16> to tensor<2x3x10x10xf32>
  mpg.output "maxsh" %maxshf : tensor<2x3x10x10xf32>
  %maxlf = mpg.cast %maxl : tensor<2x1x33x33xbf16> to tensor<2x1x33x33xf32>
  mpg.output "maxl" %maxlf : tensor<2x1x33x33xf32>
  mpg.output "max9" %max9 : tensor<2x3x5x5xf32>
}
