// Pooling gradients whose windows do not overlap (the host's plane form),
// with padding and with strides larger than the window, in bf16 and f32
// storage (staged through float planes, or not); the bf16 values are
// casts of f32 inputs and outputs: pool-grad-forms.test. Max pooling's
// windows that tile the plane (stride = kernel, no padding) have a form of
// their own: 2x2 windows over 9x9 planes leave a row and a column that no
// window covers, 3x3 ones cover them all, and "xs" holds ties, +0 and -0,
// NaNs and infinities. Rows of 7, 10 and 15 windows run in blocks of 4 or
// 8 windows, the last block overlapping the one before it: over a plane
// with a row and column left out, in f32 and bf16, and over "xw", normal
// values mixed with the special ones, with 3x3 and 2x2 windows.
mpg.graph @pool_grads {
  %x32 = mpg.input "x" : tensor<2x3x9x9xf32>
  %dy132 = mpg.input "dy1" : tensor<2x3x5x5xf32>
  %dy232 = mpg.input "dy2" : tensor<2x3x3x3xf32>
  %x = mpg.cast %x32 : tensor<2x3x9x9xf32> to tensor<2x3x9x9xbf16>
  %dy1 = mpg.cast %dy132 : tensor<2x3x5x5xf32> to tensor<2x3x5x5xbf16>
  %dy2 = mpg.cast %dy232 : tensor<2x3x3x3xf32> to tensor<2x3x3x3xbf16>
  %dy332 = mpg.input "dy3" : tensor<2x3x4x4xf32>
  %dy3 = mpg.cast %dy332 : tensor<2x3x4x4xf32> to tensor<2x3x4x4xbf16>
  %xs32 = mpg.input "xs" : tensor<2x3x9x9xf32>
  %xs = mpg.cast %xs32 : tensor<2x3x9x9xf32> to tensor<2x3x9x9xbf16>
  %xf = mpg.input "xf" : tensor<2x3x9x9xf32>
  %dyf = mpg.input "dyf" : tensor<2x3x5x5xf32>
  // Windows 2x2 at stride 2 over a plane padded by one on every side.
  %max1 = mpg.max_pool2d_grad %x, %dy1 kernel [2, 2] stride [2, 2] padding [1, 1, 1, 1]
      : tensor<2x3x9x9xbf16>, tensor<2x3x5x5xbf16> -> tensor<2x3x9x9xbf16>
  // Windows 2x2 every 3 rows and columns: inputs between windows get 0.
  %max2 = mpg.max_pool2d_grad %x, %dy2 kernel [2, 2] stride [3, 3]
      : tensor<2x3x9x9xbf16>, tensor<2x3x3x3xbf16> -> tensor<2x3x9x9xbf16>
  // Windows that tile the plane: 2x2 leaving the last row and column out,
  // and 3x3 covering it; then the special values, in bf16 and f32.
  %max3 = mpg.max_pool2d_grad %x, %dy3 kernel [2, 2] stride [2, 2]
      : tensor<2x3x9x9xbf16>, tensor<2x3x4x4xbf16> -> tensor<2x3x9x9xbf16>
  %max4 = mpg.max_pool2d_grad %x, %dy2 kernel [3, 3] stride [3, 3]
      : tensor<2x3x9x9xbf16>, tensor<2x3x3x3xbf16> -> tensor<2x3x9x9xbf16>
  %maxs = mpg.max_pool2d_grad %xs, %dy3 kernel [2, 2] stride [2, 2]
      : tensor<2x3x9x9xbf16>, tensor<2x3x4x4xbf16> -> tensor<2x3x9x9xbf16>
  %maxsf = mpg.max_pool2d_grad %xs32, %dy332 kernel [2, 2] stride [2, 2]
      : tensor<2x3x9x9xf32>, tensor<2x3x4x4xf32> -> tensor<2x3x9x9xf32>
  %maxf3 = mpg.max_pool2d_grad %xf, %dy332 kernel [2, 2] stride [2, 2]
      : tensor<2x3x9x9xf32>, tensor<2x3x4x4xf32> -> tensor<2x3x9x9xf32>
  %avg1 = mpg.avg_pool2d_grad %dy1 kernel [2, 2] stride [2, 2] padding [1, 1, 1, 1]
      : tensor<2x3x5x5xbf16> -> tensor<2x3x9x9xbf16>
  %avg2 = mpg.avg_pool2d_grad %dy1 kernel [2, 2] stride [2, 2] padding [1, 1, 1, 1] count_include_pad
      : tensor<2x3x5x5xbf16> -> tensor<2x3x9x9xbf16>
  %avg3 = mpg.avg_pool2d_grad %dy2 kernel [2, 2] stride [3, 3]
      : tensor<2x3x3x3xbf16> -> tensor<2x3x9x9xbf16>
  %maxf = mpg.max_pool2d_grad %xf, %dyf kernel [2, 2] stride [2, 2] padding [1, 1, 1, 1]
      : tensor<2x3x9x9xf32>, tensor<2x3x5x5xf32> -> tensor<2x3x9x9xf32>
  %avgf = mpg.avg_pool2d_grad %dyf kernel [2, 2] stride [2, 2] padding [1, 1, 1, 1]
      : tensor<2x3x5x5xf32> -> tensor<2x3x9x9xf32>
  %xm = mpg.input "xm" : tensor<2x3x15x15xf32>
  %dy7 = mpg.input "dy7" : tensor<2x3x7x7xf32>
  %xw32 = mpg.input "xw" : tensor<2x3x30x30xf32>
  %dy1032 = mpg.input "dy10" : tensor<2x3x10x10xf32>
  %dy15 = mpg.input "dy15" : tensor<2x3x15x15xf32>
  %maxb7 = mpg.max_pool2d_grad %xm, %dy7 kernel [2, 2] stride [2, 2]
      : tensor<2x3x15x15xf32>, tensor<2x3x7x7xf32> -> tensor<2x3x15x15xf32>
  %xmh = mpg.cast %xm : tensor<2x3x15x15xf32> to tensor<2x3x15x15xbf16>
  %dy7h = mpg.cast %dy7 : tensor<2x3x7x7xf32> to tensor<2x3x7x7xbf16>
  %maxb7h = mpg.max_pool2d_grad %xmh, %dy7h kernel [2, 2] stride [2, 2]
      : tensor<2x3x15x15xbf16>, tensor<2x3x7x7xbf16> -> tensor<2x3x15x15xbf16>
  %xw = mpg.cast %xw32 : tensor<2x3x30x30xf32> to tensor<2x3x30x30xbf16>
  %dy10 = mpg.cast %dy1032 : tensor<2x3x10x10xf32> to tensor<2x3x10x10xbf16>
  %maxb10 = mpg.max_pool2d_grad %xw, %dy10 kernel [3, 3] stride [3, 3]
      : tensor<2x3x30x30xbf16>, tensor<2x3x10x10xbf16> -> tensor<2x3x30x30xbf16>
  %maxb15 = mpg.max_pool2d_grad %xw32, %dy15 kernel [2, 2] stride [2, 2]
      : tensor<2x3x30x30xf32>, tensor<2x3x15x15xf32> -> tensor<2x3x30x30xf32>
  %max132 = mpg.cast %max1 : tensor<2x3x9x9xbf16> to tensor<2x3x9x9xf32>
  mpg.output "max1" %max132 : tensor<2x3x9x9xf32>
  %max232 = mpg.cast %max2 : tensor<2x3x9x9xbf16> to tensor<2x3x9x9xf32>
  mpg.output "max2" %max232 : tensor<2x3x9x9xf32>
  %max332 = mpg.cast %max3 : tensor<2x3x9x9xbf16> to tensor<2x3x9x9xf32>
  mpg.output "max3" %max332 : tensor<2x3x9x9xf32>
  %max432 = mpg.cast %max4 : tensor<2x3x9x9xbf16> to tensor<2x3x9x9xf32>
  mpg.output "max4" %max432 : tensor<2x3x9x9xf32>
  %maxs32 = mpg.cast %maxs : tensor<2x3x9x9xbf16> to tensor<2x3x9x9xf32>
  mpg.output "maxs" %maxs32 : tensor<2x3x9x9xf32>
  mpg.output "maxsf" %maxsf : tensor<2x3x9x9xf32>
  mpg.output "maxf3" %maxf3 : tensor<2x3x9x9xf32>
  %avg132 = mpg.cast %avg1 : tensor<2x3x9x9xbf16> to tensor<2x3x9x9xf32>
  mpg.output "avg1" %avg132 : tensor<2x3x9x9xf32>
  %avg232 = mpg.cast %avg2 : tensor<2x3x9x9xbf16> to tensor<2x3x9x9xf32>
  mpg.output "avg2" %avg232 : tensor<2x3x9x9xf32>
  %avg332 = mpg.cast %avg3 : tensor<2x3x9x9xbf16> to tensor<2x3x9x9xf32>
  mpg.output "avg3" %avg332 : tensor<2x3x9x9xf32>
  mpg.output "maxf" %maxf : tensor<2x3x9x9xf32>
  mpg.output "avgf" %avgf : tensor<2x3x9x9xf32>
  mpg.output "maxb7" %maxb7 : tensor<2x3x15x15xf32>
  %maxb7h32 = mpg.cast %maxb7h : tensor<2x3x15x15xbf16> to tensor<2x3x15x15xf32>
  mpg.output "maxb7h" %maxb7h32 : tensor<2x3x15x15xf32>
  %maxb1032 = mpg.cast %maxb10 : tensor<2x3x30x30xbf16> to tensor<2x3x30x30xf32>
  mpg.output "maxb10" %maxb1032 : tensor<2x3x30x30xf32>
  mpg.output "maxb15" %maxb15 : tensor<2x3x30x30xf32>
}
