// RUN: mpc-opt %s | mpc-opt | FileCheck %s
// RUN: mpc-opt %s -mlir-print-op-generic | mpc-opt | FileCheck %s

// Round trip of the reductions, normalisation and pooling ops: reduce_sum,
// reduce_mean, reduce_max, softmax, log_softmax, layer_norm, batch_norm,
// max_pool2d, avg_pool2d and global_avg_pool.

// CHECK-LABEL: mpg.graph @reduce_sum_one_axis
mpg.graph @reduce_sum_one_axis {
  // CHECK: %x = mpg.input "x" : tensor<4x8xf32>
  %x = mpg.input "x" : tensor<4x8xf32>
  // CHECK: %[[S:.+]] = mpg.reduce_sum %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %s = mpg.reduce_sum %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  // CHECK: mpg.output "s" %[[S]] : tensor<4xf32>
  mpg.output "s" %s : tensor<4xf32>
}

// CHECK-LABEL: mpg.graph @reduce_sum_negative_axis_f16_to_f32
mpg.graph @reduce_sum_negative_axis_f16_to_f32 {
  %x = mpg.input "x" : tensor<4x8xf16>
  // CHECK: mpg.reduce_sum %x axes [-1] : tensor<4x8xf16> -> tensor<4xf32>
  %s = mpg.reduce_sum %x axes [-1] : tensor<4x8xf16> -> tensor<4xf32>
}

// CHECK-LABEL: mpg.graph @reduce_sum_several_axes_keepdim
mpg.graph @reduce_sum_several_axes_keepdim {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  // CHECK: mpg.reduce_sum %x axes [0, -1] keepdim : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  %s = mpg.reduce_sum %x axes [0, -1] keepdim : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
}

// CHECK-LABEL: mpg.graph @reduce_sum_all_axes_to_scalar
mpg.graph @reduce_sum_all_axes_to_scalar {
  %x = mpg.input "x" : tensor<2x3xbf16>
  // CHECK: mpg.reduce_sum %x axes [1, 0] : tensor<2x3xbf16> -> tensor<f32>
  %s = mpg.reduce_sum %x axes [1, 0] : tensor<2x3xbf16> -> tensor<f32>
}

// CHECK-LABEL: mpg.graph @reduce_sum_integer
mpg.graph @reduce_sum_integer {
  %x = mpg.input "x" : tensor<4x8xi32>
  // CHECK: mpg.reduce_sum %x axes [0] : tensor<4x8xi32> -> tensor<8xi32>
  %s = mpg.reduce_sum %x axes [0] : tensor<4x8xi32> -> tensor<8xi32>
}

// CHECK-LABEL: mpg.graph @reduce_mean
mpg.graph @reduce_mean {
  %x = mpg.input "x" : tensor<2x3x4xf32>
  // CHECK: %[[M:.+]] = mpg.reduce_mean %x axes [1] : tensor<2x3x4xf32> -> tensor<2x4xf32>
  %m = mpg.reduce_mean %x axes [1] : tensor<2x3x4xf32> -> tensor<2x4xf32>
  // CHECK: mpg.reduce_mean %[[M]] axes [-2, -1] keepdim : tensor<2x4xf32> -> tensor<1x1xf32>
  %k = mpg.reduce_mean %m axes [-2, -1] keepdim : tensor<2x4xf32> -> tensor<1x1xf32>
}

// CHECK-LABEL: mpg.graph @reduce_mean_f16_to_f32
mpg.graph @reduce_mean_f16_to_f32 {
  %x = mpg.input "x" : tensor<2x3x4xf16>
  // CHECK: mpg.reduce_mean %x axes [0, 2] keepdim : tensor<2x3x4xf16> -> tensor<1x3x1xf32>
  %m = mpg.reduce_mean %x axes [0, 2] keepdim : tensor<2x3x4xf16> -> tensor<1x3x1xf32>
}

// CHECK-LABEL: mpg.graph @reduce_max
mpg.graph @reduce_max {
  %x = mpg.input "x" : tensor<4x8xf16>
  // CHECK: mpg.reduce_max %x axes [-1] : tensor<4x8xf16> -> tensor<4xf16>
  %m = mpg.reduce_max %x axes [-1] : tensor<4x8xf16> -> tensor<4xf16>
  // CHECK: mpg.reduce_max %x axes [1, 0] keepdim : tensor<4x8xf16> -> tensor<1x1xf16>
  %k = mpg.reduce_max %x axes [1, 0] keepdim : tensor<4x8xf16> -> tensor<1x1xf16>
}

// CHECK-LABEL: mpg.graph @reduce_max_integer
mpg.graph @reduce_max_integer {
  %x = mpg.input "x" : tensor<4x8xi64>
  // CHECK: mpg.reduce_max %x axes [0] keepdim : tensor<4x8xi64> -> tensor<1x8xi64>
  %m = mpg.reduce_max %x axes [0] keepdim : tensor<4x8xi64> -> tensor<1x8xi64>
}

// CHECK-LABEL: mpg.graph @softmax
mpg.graph @softmax {
  %x = mpg.input "x" : tensor<4x8xf32>
  // CHECK: %[[A:.+]] = mpg.softmax %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %a = mpg.softmax %x : tensor<4x8xf32> -> tensor<4x8xf32>
  // The default axis -1 is not printed.
  // CHECK-NEXT: %[[B:.+]] = mpg.softmax %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %b = mpg.softmax %x axis -1 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK-NEXT: mpg.softmax %x axis 0 : tensor<4x8xf32> -> tensor<4x8xf32>
  %c = mpg.softmax %x axis 0 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK-NEXT: mpg.softmax %x axis -2 : tensor<4x8xf32> -> tensor<4x8xf32>
  %d = mpg.softmax %x axis -2 : tensor<4x8xf32> -> tensor<4x8xf32>
}

// CHECK-LABEL: mpg.graph @softmax_f16_to_f32
mpg.graph @softmax_f16_to_f32 {
  %x = mpg.input "x" : tensor<4x8xf16>
  // CHECK: mpg.softmax %x axis 1 : tensor<4x8xf16> -> tensor<4x8xf32>
  %p = mpg.softmax %x axis 1 : tensor<4x8xf16> -> tensor<4x8xf32>
}

// CHECK-LABEL: mpg.graph @log_softmax
mpg.graph @log_softmax {
  %x = mpg.input "x" : tensor<2x4x8xf32>
  // CHECK: mpg.log_softmax %x : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %a = mpg.log_softmax %x : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  // CHECK-NEXT: mpg.log_softmax %x : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %b = mpg.log_softmax %x axis -1 : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  // CHECK-NEXT: mpg.log_softmax %x axis 1 : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %c = mpg.log_softmax %x axis 1 : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  // CHECK-NEXT: mpg.log_softmax %x axis -3 : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %d = mpg.log_softmax %x axis -3 : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
}

// CHECK-LABEL: mpg.graph @log_softmax_bf16_to_f32
mpg.graph @log_softmax_bf16_to_f32 {
  %x = mpg.input "x" : tensor<8xbf16>
  // CHECK: mpg.log_softmax %x : tensor<8xbf16> -> tensor<8xf32>
  %p = mpg.log_softmax %x : tensor<8xbf16> -> tensor<8xf32>
}

// CHECK-LABEL: mpg.graph @layer_norm
mpg.graph @layer_norm {
  %x = mpg.input "x" : tensor<4x16x64xf32>
  %gamma = mpg.input "gamma" : tensor<64xf32>
  %beta = mpg.input "beta" : tensor<64xf32>
  // CHECK: mpg.layer_norm %x, %gamma, %beta : tensor<4x16x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<4x16x64xf32>
  %a = mpg.layer_norm %x, %gamma, %beta
      : tensor<4x16x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<4x16x64xf32>
  // axis -1 and eps 1e-5 are the defaults and are not printed.
  // CHECK-NEXT: mpg.layer_norm %x, %gamma, %beta : tensor<4x16x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<4x16x64xf32>
  %b = mpg.layer_norm %x, %gamma, %beta axis -1 eps 1.000000e-05
      : tensor<4x16x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<4x16x64xf32>
  // CHECK-NEXT: mpg.layer_norm %x, %gamma, %beta axis 2 : tensor<4x16x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<4x16x64xf32>
  %c = mpg.layer_norm %x, %gamma, %beta axis 2
      : tensor<4x16x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<4x16x64xf32>
  // CHECK-NEXT: mpg.layer_norm %x, %gamma, %beta eps 1.000000e-03 : tensor<4x16x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<4x16x64xf32>
  %d = mpg.layer_norm %x, %gamma, %beta eps 1.0e-3
      : tensor<4x16x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<4x16x64xf32>
}

// CHECK-LABEL: mpg.graph @layer_norm_several_dims
mpg.graph @layer_norm_several_dims {
  %x = mpg.input "x" : tensor<4x16x64xf32>
  %gamma = mpg.input "gamma" : tensor<16x64xf32>
  %beta = mpg.input "beta" : tensor<16x64xf32>
  // CHECK: mpg.layer_norm %x, %gamma, %beta axis 1 eps 2.500000e-01 : tensor<4x16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32> -> tensor<4x16x64xf32>
  %y = mpg.layer_norm %x, %gamma, %beta axis 1 eps 2.500000e-01
      : tensor<4x16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32> -> tensor<4x16x64xf32>
  // CHECK-NEXT: mpg.layer_norm %x, %gamma, %beta axis -2 : tensor<4x16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32> -> tensor<4x16x64xf32>
  %z = mpg.layer_norm %x, %gamma, %beta axis -2
      : tensor<4x16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32> -> tensor<4x16x64xf32>
}

// CHECK-LABEL: mpg.graph @layer_norm_f16_to_f32
mpg.graph @layer_norm_f16_to_f32 {
  %x = mpg.input "x" : tensor<8x32xf16>
  %gamma = mpg.input "gamma" : tensor<32xf16>
  %beta = mpg.input "beta" : tensor<32xf16>
  // CHECK: mpg.layer_norm %x, %gamma, %beta : tensor<8x32xf16>, tensor<32xf16>, tensor<32xf16> -> tensor<8x32xf32>
  %y = mpg.layer_norm %x, %gamma, %beta
      : tensor<8x32xf16>, tensor<32xf16>, tensor<32xf16> -> tensor<8x32xf32>
}

// CHECK-LABEL: mpg.graph @batch_norm
mpg.graph @batch_norm {
  %x = mpg.input "x" : tensor<8x16x28x28xf32>
  %gamma = mpg.input "gamma" : tensor<16xf32>
  %beta = mpg.input "beta" : tensor<16xf32>
  %mean = mpg.input "mean" : tensor<16xf32>
  %var = mpg.input "var" : tensor<16xf32>
  // CHECK: %[[Y:[^ ,]+]], %[[MEAN2:[^ ,]+]], %[[VAR2:[^ ,]+]] = mpg.batch_norm %x, %gamma, %beta, %mean, %var : tensor<8x16x28x28xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<8x16x28x28xf32>, tensor<16xf32>, tensor<16xf32>
  %y, %mean2, %var2 = mpg.batch_norm %x, %gamma, %beta, %mean, %var
      : tensor<8x16x28x28xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
      -> tensor<8x16x28x28xf32>, tensor<16xf32>, tensor<16xf32>
  // CHECK: mpg.output "y" %[[Y]] : tensor<8x16x28x28xf32>
  mpg.output "y" %y : tensor<8x16x28x28xf32>
  // CHECK: mpg.output "mean2" %[[MEAN2]] : tensor<16xf32>
  mpg.output "mean2" %mean2 : tensor<16xf32>
  // CHECK: mpg.output "var2" %[[VAR2]] : tensor<16xf32>
  mpg.output "var2" %var2 : tensor<16xf32>
}

// CHECK-LABEL: mpg.graph @batch_norm_attrs
mpg.graph @batch_norm_attrs {
  %x = mpg.input "x" : tensor<8x16xf32>
  %c = mpg.input "c" : tensor<16xf32>
  // momentum 0.1 and eps 1e-5 are the defaults and are not printed.
  // CHECK: mpg.batch_norm %x, %c, %c, %c, %c : tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>
  %a:3 = mpg.batch_norm %x, %c, %c, %c, %c momentum 1.000000e-01 eps 1.000000e-05
      : tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
      -> tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>
  // CHECK-NEXT: mpg.batch_norm %x, %c, %c, %c, %c momentum 2.000000e-01 eps 1.000000e-03 : tensor<8x16xf32>
  %b:3 = mpg.batch_norm %x, %c, %c, %c, %c momentum 0.2 eps 1.0e-3
      : tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
      -> tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>
  // CHECK-NEXT: mpg.batch_norm %x, %c, %c, %c, %c momentum 1.000000e+00 : tensor<8x16xf32>
  %d:3 = mpg.batch_norm %x, %c, %c, %c, %c momentum 1.0
      : tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
      -> tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>
  // CHECK-NEXT: mpg.batch_norm %x, %c, %c, %c, %c momentum 0.000000e+00 eps 2.000000e-05 : tensor<8x16xf32>
  %e:3 = mpg.batch_norm %x, %c, %c, %c, %c momentum 0.0 eps 2.0e-5
      : tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
      -> tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>
}

// CHECK-LABEL: mpg.graph @batch_norm_f16_to_f32
mpg.graph @batch_norm_f16_to_f32 {
  %x = mpg.input "x" : tensor<4x3x5xf16>
  %c = mpg.input "c" : tensor<3xf16>
  // CHECK: mpg.batch_norm %x, %c, %c, %c, %c : tensor<4x3x5xf16>, tensor<3xf16>, tensor<3xf16>, tensor<3xf16>, tensor<3xf16> -> tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>
  %y:3 = mpg.batch_norm %x, %c, %c, %c, %c
      : tensor<4x3x5xf16>, tensor<3xf16>, tensor<3xf16>, tensor<3xf16>, tensor<3xf16>
      -> tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: mpg.graph @max_pool2d
mpg.graph @max_pool2d {
  %x = mpg.input "x" : tensor<8x16x28x28xf32>
  // CHECK: mpg.max_pool2d %x kernel [2, 2] : tensor<8x16x28x28xf32> -> tensor<8x16x14x14xf32>
  %a = mpg.max_pool2d %x kernel [2, 2] : tensor<8x16x28x28xf32> -> tensor<8x16x14x14xf32>
  // CHECK-NEXT: mpg.max_pool2d %x kernel [3, 3] stride [2, 1] : tensor<8x16x28x28xf32> -> tensor<8x16x13x26xf32>
  %b = mpg.max_pool2d %x kernel [3, 3] stride [2, 1] : tensor<8x16x28x28xf32> -> tensor<8x16x13x26xf32>
  // CHECK-NEXT: mpg.max_pool2d %x kernel [3, 2] padding [1, 0, 2, 1] : tensor<8x16x28x28xf32> -> tensor<8x16x10x14xf32>
  %c = mpg.max_pool2d %x kernel [3, 2] padding [1, 0, 2, 1] : tensor<8x16x28x28xf32> -> tensor<8x16x10x14xf32>
  // CHECK-NEXT: mpg.max_pool2d %x kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1] : tensor<8x16x28x28xf32> -> tensor<8x16x28x28xf32>
  %d = mpg.max_pool2d %x kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1]
      : tensor<8x16x28x28xf32> -> tensor<8x16x28x28xf32>
}

// CHECK-LABEL: mpg.graph @max_pool2d_f16
mpg.graph @max_pool2d_f16 {
  %x = mpg.input "x" : tensor<1x2x5x7xf16>
  // CHECK: mpg.max_pool2d %x kernel [2, 3] stride [2, 2] : tensor<1x2x5x7xf16> -> tensor<1x2x2x3xf16>
  %y = mpg.max_pool2d %x kernel [2, 3] stride [2, 2] : tensor<1x2x5x7xf16> -> tensor<1x2x2x3xf16>
}

// CHECK-LABEL: mpg.graph @avg_pool2d
mpg.graph @avg_pool2d {
  %x = mpg.input "x" : tensor<8x16x28x28xf32>
  // CHECK: mpg.avg_pool2d %x kernel [2, 2] : tensor<8x16x28x28xf32> -> tensor<8x16x14x14xf32>
  %a = mpg.avg_pool2d %x kernel [2, 2] : tensor<8x16x28x28xf32> -> tensor<8x16x14x14xf32>
  // CHECK-NEXT: mpg.avg_pool2d %x kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1] : tensor<8x16x28x28xf32> -> tensor<8x16x28x28xf32>
  %b = mpg.avg_pool2d %x kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1]
      : tensor<8x16x28x28xf32> -> tensor<8x16x28x28xf32>
  // CHECK-NEXT: mpg.avg_pool2d %x kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1] count_include_pad : tensor<8x16x28x28xf32> -> tensor<8x16x28x28xf32>
  %c = mpg.avg_pool2d %x kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1] count_include_pad
      : tensor<8x16x28x28xf32> -> tensor<8x16x28x28xf32>
  // CHECK-NEXT: mpg.avg_pool2d %x kernel [4, 4] stride [3, 3] count_include_pad : tensor<8x16x28x28xf32> -> tensor<8x16x9x9xf32>
  %d = mpg.avg_pool2d %x kernel [4, 4] stride [3, 3] count_include_pad
      : tensor<8x16x28x28xf32> -> tensor<8x16x9x9xf32>
  // CHECK-NEXT: mpg.avg_pool2d %x kernel [2, 2] padding [0, 1, 1, 0] : tensor<8x16x28x28xf32> -> tensor<8x16x14x14xf32>
  %e = mpg.avg_pool2d %x kernel [2, 2] padding [0, 1, 1, 0]
      : tensor<8x16x28x28xf32> -> tensor<8x16x14x14xf32>
}

// CHECK-LABEL: mpg.graph @global_avg_pool
mpg.graph @global_avg_pool {
  %x = mpg.input "x" : tensor<8x32x7x7xf32>
  // CHECK: %[[F:.+]] = mpg.global_avg_pool %x : tensor<8x32x7x7xf32> -> tensor<8x32xf32>
  %f = mpg.global_avg_pool %x : tensor<8x32x7x7xf32> -> tensor<8x32xf32>
  // CHECK: mpg.output "f" %[[F]] : tensor<8x32xf32>
  mpg.output "f" %f : tensor<8x32xf32>
}

// CHECK-LABEL: mpg.graph @global_avg_pool_bf16
mpg.graph @global_avg_pool_bf16 {
  %x = mpg.input "x" : tensor<2x3x4x5xbf16>
  // CHECK: mpg.global_avg_pool %x : tensor<2x3x4x5xbf16> -> tensor<2x3xbf16>
  %f = mpg.global_avg_pool %x : tensor<2x3x4x5xbf16> -> tensor<2x3xbf16>
}
