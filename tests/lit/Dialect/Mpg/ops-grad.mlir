// RUN: mpc-opt %s | mpc-opt | FileCheck %s
// RUN: mpc-opt %s -mlir-print-op-generic | mpc-opt | FileCheck %s

// Round trip of the gradient ops that autodiff emits. Attributes equal to
// their default value are not printed; optional attributes without a default
// (stride, padding, dilation, groups, step) are kept as written.

// CHECK-LABEL: mpg.graph @conv2d_grad_input
// CHECK: %dy = mpg.input "dy" : tensor<8x16x28x28xf32>
// CHECK: %w = mpg.param "w" init(he_normal) : tensor<16x3x3x3xf32>
// CHECK: %[[DX:.+]] = mpg.conv2d_grad_input %dy, %w padding [1, 1, 1, 1] : tensor<8x16x28x28xf32>, tensor<16x3x3x3xf32> -> tensor<8x3x28x28xf32>
// CHECK: mpg.output "dx" %[[DX]] : tensor<8x3x28x28xf32>
mpg.graph @conv2d_grad_input {
  %dy = mpg.input "dy" : tensor<8x16x28x28xf32>
  %w = mpg.param "w" init(he_normal) : tensor<16x3x3x3xf32>
  %dx = mpg.conv2d_grad_input %dy, %w padding [1, 1, 1, 1]
      : tensor<8x16x28x28xf32>, tensor<16x3x3x3xf32> -> tensor<8x3x28x28xf32>
  mpg.output "dx" %dx : tensor<8x3x28x28xf32>
}

// CHECK-LABEL: mpg.graph @conv2d_grad_input_no_attrs
// CHECK: %[[DY:.+]] = mpg.input "dy"
// CHECK: %[[W:.+]] = mpg.input "w"
// CHECK: %[[DX:.+]] = mpg.conv2d_grad_input %[[DY]], %[[W]] : tensor<2x4x6x6xf16>, tensor<4x3x3x3xf16> -> tensor<2x3x8x8xf16>
mpg.graph @conv2d_grad_input_no_attrs {
  %dy = mpg.input "dy" : tensor<2x4x6x6xf16>
  %w = mpg.input "w" : tensor<4x3x3x3xf16>
  %dx = mpg.conv2d_grad_input %dy, %w
      : tensor<2x4x6x6xf16>, tensor<4x3x3x3xf16> -> tensor<2x3x8x8xf16>
  mpg.output "dx" %dx : tensor<2x3x8x8xf16>
}

// Every window attribute; padding [top, left, bottom, right] asymmetric:
// Ho = (9 + 0 + 2 - 5) / 2 + 1 = 4, Wo = (9 + 1 + 3 - 5) / 2 + 1 = 5.
// CHECK-LABEL: mpg.graph @conv2d_grad_input_all_attrs
// CHECK: %[[DY:.+]] = mpg.input "dy"
// CHECK: %[[W:.+]] = mpg.input "w"
// CHECK: %[[DX:.+]] = mpg.conv2d_grad_input %[[DY]], %[[W]] stride [2, 2] padding [0, 1, 2, 3] dilation [2, 2] groups 2 : tensor<2x8x4x5xf32>, tensor<8x2x3x3xf32> -> tensor<2x4x9x9xf32>
mpg.graph @conv2d_grad_input_all_attrs {
  %dy = mpg.input "dy" : tensor<2x8x4x5xf32>
  %w = mpg.input "w" : tensor<8x2x3x3xf32>
  %dx = mpg.conv2d_grad_input %dy, %w stride [2, 2] padding [0, 1, 2, 3] dilation [2, 2] groups 2
      : tensor<2x8x4x5xf32>, tensor<8x2x3x3xf32> -> tensor<2x4x9x9xf32>
  mpg.output "dx" %dx : tensor<2x4x9x9xf32>
}

// Optional attributes written with their neutral values stay in the output.
// CHECK-LABEL: mpg.graph @conv2d_grad_input_explicit_neutral
// CHECK: mpg.conv2d_grad_input %{{[^ ,]+}}, %{{[^ ,]+}} stride [1, 1] padding [0, 0, 0, 0] dilation [1, 1] groups 1 : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x8x8xf32>
mpg.graph @conv2d_grad_input_explicit_neutral {
  %dy = mpg.input "dy" : tensor<2x4x6x6xf32>
  %w = mpg.input "w" : tensor<4x3x3x3xf32>
  %dx = mpg.conv2d_grad_input %dy, %w stride [1, 1] padding [0, 0, 0, 0] dilation [1, 1] groups 1
      : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x8x8xf32>
  mpg.output "dx" %dx : tensor<2x3x8x8xf32>
}

// CHECK-LABEL: mpg.graph @conv2d_grad_filter
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[DY:.+]] = mpg.input "dy"
// CHECK: %[[DW:.+]] = mpg.conv2d_grad_filter %[[X]], %[[DY]] padding [1, 1, 1, 1] : tensor<8x3x28x28xf32>, tensor<8x16x28x28xf32> -> tensor<16x3x3x3xf32>
// CHECK: mpg.output "dw" %[[DW]]
mpg.graph @conv2d_grad_filter {
  %x = mpg.input "x" : tensor<8x3x28x28xf32>
  %dy = mpg.input "dy" : tensor<8x16x28x28xf32>
  %dw = mpg.conv2d_grad_filter %x, %dy padding [1, 1, 1, 1]
      : tensor<8x3x28x28xf32>, tensor<8x16x28x28xf32> -> tensor<16x3x3x3xf32>
  mpg.output "dw" %dw : tensor<16x3x3x3xf32>
}

// CHECK-LABEL: mpg.graph @conv2d_grad_filter_no_attrs
// CHECK: mpg.conv2d_grad_filter %{{[^ ,]+}}, %{{[^ ,]+}} : tensor<2x3x8x8xbf16>, tensor<2x4x6x6xbf16> -> tensor<4x3x3x3xbf16>
mpg.graph @conv2d_grad_filter_no_attrs {
  %x = mpg.input "x" : tensor<2x3x8x8xbf16>
  %dy = mpg.input "dy" : tensor<2x4x6x6xbf16>
  %dw = mpg.conv2d_grad_filter %x, %dy
      : tensor<2x3x8x8xbf16>, tensor<2x4x6x6xbf16> -> tensor<4x3x3x3xbf16>
  mpg.output "dw" %dw : tensor<4x3x3x3xbf16>
}

// CHECK-LABEL: mpg.graph @conv2d_grad_filter_all_attrs
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[DY:.+]] = mpg.input "dy"
// CHECK: %[[DW:.+]] = mpg.conv2d_grad_filter %[[X]], %[[DY]] stride [2, 2] padding [0, 1, 2, 3] dilation [2, 2] groups 2 : tensor<2x4x9x9xf32>, tensor<2x8x4x5xf32> -> tensor<8x2x3x3xf32>
mpg.graph @conv2d_grad_filter_all_attrs {
  %x = mpg.input "x" : tensor<2x4x9x9xf32>
  %dy = mpg.input "dy" : tensor<2x8x4x5xf32>
  %dw = mpg.conv2d_grad_filter %x, %dy stride [2, 2] padding [0, 1, 2, 3] dilation [2, 2] groups 2
      : tensor<2x4x9x9xf32>, tensor<2x8x4x5xf32> -> tensor<8x2x3x3xf32>
  mpg.output "dw" %dw : tensor<8x2x3x3xf32>
}

// Each window attribute on its own (depthwise: groups = channels).
// CHECK-LABEL: mpg.graph @conv2d_grad_filter_each_attr
// CHECK: mpg.conv2d_grad_filter %{{[^ ,]+}}, %{{[^ ,]+}} stride [2, 1] : tensor<1x4x9x9xf32>, tensor<1x4x4x7xf32> -> tensor<4x4x3x3xf32>
// CHECK: mpg.conv2d_grad_filter %{{[^ ,]+}}, %{{[^ ,]+}} dilation [3, 1] : tensor<1x4x9x9xf32>, tensor<1x4x3x7xf32> -> tensor<4x4x3x3xf32>
// CHECK: mpg.conv2d_grad_filter %{{[^ ,]+}}, %{{[^ ,]+}} groups 4 : tensor<1x4x9x9xf32>, tensor<1x4x7x7xf32> -> tensor<4x1x3x3xf32>
mpg.graph @conv2d_grad_filter_each_attr {
  %x = mpg.input "x" : tensor<1x4x9x9xf32>
  %dy1 = mpg.input "dy1" : tensor<1x4x4x7xf32>
  %dy2 = mpg.input "dy2" : tensor<1x4x3x7xf32>
  %dy3 = mpg.input "dy3" : tensor<1x4x7x7xf32>
  %dw1 = mpg.conv2d_grad_filter %x, %dy1 stride [2, 1]
      : tensor<1x4x9x9xf32>, tensor<1x4x4x7xf32> -> tensor<4x4x3x3xf32>
  %dw2 = mpg.conv2d_grad_filter %x, %dy2 dilation [3, 1]
      : tensor<1x4x9x9xf32>, tensor<1x4x3x7xf32> -> tensor<4x4x3x3xf32>
  %dw3 = mpg.conv2d_grad_filter %x, %dy3 groups 4
      : tensor<1x4x9x9xf32>, tensor<1x4x7x7xf32> -> tensor<4x1x3x3xf32>
  mpg.output "dw1" %dw1 : tensor<4x4x3x3xf32>
  mpg.output "dw2" %dw2 : tensor<4x4x3x3xf32>
  mpg.output "dw3" %dw3 : tensor<4x1x3x3xf32>
}

// CHECK-LABEL: mpg.graph @max_pool2d_grad
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[DY:.+]] = mpg.input "dy"
// CHECK: %[[DX:.+]] = mpg.max_pool2d_grad %[[X]], %[[DY]] kernel [2, 2] : tensor<8x16x28x28xf32>, tensor<8x16x14x14xf32> -> tensor<8x16x28x28xf32>
// CHECK: mpg.output "dx" %[[DX]]
mpg.graph @max_pool2d_grad {
  %x = mpg.input "x" : tensor<8x16x28x28xf32>
  %dy = mpg.input "dy" : tensor<8x16x14x14xf32>
  %dx = mpg.max_pool2d_grad %x, %dy kernel [2, 2]
      : tensor<8x16x28x28xf32>, tensor<8x16x14x14xf32> -> tensor<8x16x28x28xf32>
  mpg.output "dx" %dx : tensor<8x16x28x28xf32>
}

// CHECK-LABEL: mpg.graph @max_pool2d_grad_stride_padding
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[DY1:.+]] = mpg.input "dy1"
// CHECK: %[[DY2:.+]] = mpg.input "dy2"
// CHECK: %[[DY3:.+]] = mpg.input "dy3"
// CHECK: mpg.max_pool2d_grad %[[X]], %[[DY1]] kernel [3, 3] stride [2, 2] padding [1, 1, 1, 1] : tensor<2x4x28x28xf16>, tensor<2x4x14x14xf16> -> tensor<2x4x28x28xf16>
// CHECK: mpg.max_pool2d_grad %[[X]], %[[DY2]] kernel [3, 3] stride [1, 1] : tensor<2x4x28x28xf16>, tensor<2x4x26x26xf16> -> tensor<2x4x28x28xf16>
// CHECK: mpg.max_pool2d_grad %[[X]], %[[DY3]] kernel [2, 3] padding [0, 1, 1, 2] : tensor<2x4x28x28xf16>, tensor<2x4x14x10xf16> -> tensor<2x4x28x28xf16>
mpg.graph @max_pool2d_grad_stride_padding {
  %x = mpg.input "x" : tensor<2x4x28x28xf16>
  %dy1 = mpg.input "dy1" : tensor<2x4x14x14xf16>
  %dy2 = mpg.input "dy2" : tensor<2x4x26x26xf16>
  %dy3 = mpg.input "dy3" : tensor<2x4x14x10xf16>
  %dx1 = mpg.max_pool2d_grad %x, %dy1 kernel [3, 3] stride [2, 2] padding [1, 1, 1, 1]
      : tensor<2x4x28x28xf16>, tensor<2x4x14x14xf16> -> tensor<2x4x28x28xf16>
  %dx2 = mpg.max_pool2d_grad %x, %dy2 kernel [3, 3] stride [1, 1]
      : tensor<2x4x28x28xf16>, tensor<2x4x26x26xf16> -> tensor<2x4x28x28xf16>
  %dx3 = mpg.max_pool2d_grad %x, %dy3 kernel [2, 3] padding [0, 1, 1, 2]
      : tensor<2x4x28x28xf16>, tensor<2x4x14x10xf16> -> tensor<2x4x28x28xf16>
  mpg.output "dx1" %dx1 : tensor<2x4x28x28xf16>
  mpg.output "dx2" %dx2 : tensor<2x4x28x28xf16>
  mpg.output "dx3" %dx3 : tensor<2x4x28x28xf16>
}

// CHECK-LABEL: mpg.graph @avg_pool2d_grad
// CHECK: %[[DY:.+]] = mpg.input "dy"
// CHECK: %[[DX:.+]] = mpg.avg_pool2d_grad %[[DY]] kernel [2, 2] : tensor<8x16x14x14xf32> -> tensor<8x16x28x28xf32>
// CHECK: mpg.output "dx" %[[DX]]
mpg.graph @avg_pool2d_grad {
  %dy = mpg.input "dy" : tensor<8x16x14x14xf32>
  %dx = mpg.avg_pool2d_grad %dy kernel [2, 2] : tensor<8x16x14x14xf32> -> tensor<8x16x28x28xf32>
  mpg.output "dx" %dx : tensor<8x16x28x28xf32>
}

// CHECK-LABEL: mpg.graph @avg_pool2d_grad_all_attrs
// CHECK: %[[DY:.+]] = mpg.input "dy"
// CHECK: %[[A:.+]] = mpg.avg_pool2d_grad %[[DY]] kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1] count_include_pad : tensor<8x16x28x28xf32> -> tensor<8x16x28x28xf32>
// CHECK: %[[B:.+]] = mpg.avg_pool2d_grad %[[DY]] kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1] : tensor<8x16x28x28xf32> -> tensor<8x16x28x28xf32>
// CHECK: %[[C:.+]] = mpg.avg_pool2d_grad %[[DY]] kernel [2, 2] count_include_pad : tensor<8x16x28x28xf32> -> tensor<8x16x56x56xf32>
mpg.graph @avg_pool2d_grad_all_attrs {
  %dy = mpg.input "dy" : tensor<8x16x28x28xf32>
  %a = mpg.avg_pool2d_grad %dy kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1] count_include_pad
      : tensor<8x16x28x28xf32> -> tensor<8x16x28x28xf32>
  %b = mpg.avg_pool2d_grad %dy kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1]
      : tensor<8x16x28x28xf32> -> tensor<8x16x28x28xf32>
  %c = mpg.avg_pool2d_grad %dy kernel [2, 2] count_include_pad
      : tensor<8x16x28x28xf32> -> tensor<8x16x56x56xf32>
  mpg.output "a" %a : tensor<8x16x28x28xf32>
  mpg.output "b" %b : tensor<8x16x28x28xf32>
  mpg.output "c" %c : tensor<8x16x56x56xf32>
}

// CHECK-LABEL: mpg.graph @batch_norm_grad
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[GAMMA:.+]] = mpg.param "gamma"
// CHECK: %[[DY:.+]] = mpg.input "dy"
// CHECK: %[[DX:[^ ,]+]], %[[DG:[^ ,]+]], %[[DB:[^ ,]+]] = mpg.batch_norm_grad %[[X]], %[[GAMMA]], %[[DY]] : tensor<8x16x28x28xf32>, tensor<16xf32>, tensor<8x16x28x28xf32> -> tensor<8x16x28x28xf32>, tensor<16xf32>, tensor<16xf32>
// CHECK: mpg.output "dx" %[[DX]]
// CHECK: mpg.output "dgamma" %[[DG]]
// CHECK: mpg.output "dbeta" %[[DB]]
mpg.graph @batch_norm_grad {
  %x = mpg.input "x" : tensor<8x16x28x28xf32>
  %gamma = mpg.param "gamma" init(ones) : tensor<16xf32>
  %dy = mpg.input "dy" : tensor<8x16x28x28xf32>
  %dx, %dgamma, %dbeta = mpg.batch_norm_grad %x, %gamma, %dy
      : tensor<8x16x28x28xf32>, tensor<16xf32>, tensor<8x16x28x28xf32>
      -> tensor<8x16x28x28xf32>, tensor<16xf32>, tensor<16xf32>
  mpg.output "dx" %dx : tensor<8x16x28x28xf32>
  mpg.output "dgamma" %dgamma : tensor<16xf32>
  mpg.output "dbeta" %dbeta : tensor<16xf32>
}

// eps 1e-5 is the default and is dropped; another eps is kept. A rank-2
// input [N, C] is allowed, and gamma may have another float type.
// CHECK-LABEL: mpg.graph @batch_norm_grad_eps
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[GAMMA:.+]] = mpg.input "gamma"
// CHECK: %[[DY:.+]] = mpg.input "dy"
// CHECK: mpg.batch_norm_grad %[[X]], %[[GAMMA]], %[[DY]] : tensor<32x8xf16>, tensor<8xf32>, tensor<32x8xf16> -> tensor<32x8xf16>, tensor<8xf32>, tensor<8xf32>
// CHECK: mpg.batch_norm_grad %[[X]], %[[GAMMA]], %[[DY]] eps 1.000000e-03 : tensor<32x8xf16>, tensor<8xf32>, tensor<32x8xf16> -> tensor<32x8xf16>, tensor<8xf32>, tensor<8xf32>
mpg.graph @batch_norm_grad_eps {
  %x = mpg.input "x" : tensor<32x8xf16>
  %gamma = mpg.input "gamma" : tensor<8xf32>
  %dy = mpg.input "dy" : tensor<32x8xf16>
  %dx1, %dg1, %db1 = mpg.batch_norm_grad %x, %gamma, %dy eps 1.0e-5
      : tensor<32x8xf16>, tensor<8xf32>, tensor<32x8xf16>
      -> tensor<32x8xf16>, tensor<8xf32>, tensor<8xf32>
  %dx2, %dg2, %db2 = mpg.batch_norm_grad %x, %gamma, %dy eps 1.0e-3
      : tensor<32x8xf16>, tensor<8xf32>, tensor<32x8xf16>
      -> tensor<32x8xf16>, tensor<8xf32>, tensor<8xf32>
  mpg.output "dx1" %dx1 : tensor<32x8xf16>
  mpg.output "dx2" %dx2 : tensor<32x8xf16>
}

// CHECK-LABEL: mpg.graph @layer_norm_grad
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[GAMMA:.+]] = mpg.param "gamma"
// CHECK: %[[DY:.+]] = mpg.input "dy"
// CHECK: %[[DX:[^ ,]+]], %[[DG:[^ ,]+]], %[[DB:[^ ,]+]] = mpg.layer_norm_grad %[[X]], %[[GAMMA]], %[[DY]] : tensor<4x16x64xf32>, tensor<64xf32>, tensor<4x16x64xf32> -> tensor<4x16x64xf32>, tensor<64xf32>, tensor<64xf32>
// CHECK: mpg.output "dx" %[[DX]]
// CHECK: mpg.output "dgamma" %[[DG]]
// CHECK: mpg.output "dbeta" %[[DB]]
mpg.graph @layer_norm_grad {
  %x = mpg.input "x" : tensor<4x16x64xf32>
  %gamma = mpg.param "gamma" init(ones) : tensor<64xf32>
  %dy = mpg.input "dy" : tensor<4x16x64xf32>
  %dx, %dgamma, %dbeta = mpg.layer_norm_grad %x, %gamma, %dy
      : tensor<4x16x64xf32>, tensor<64xf32>, tensor<4x16x64xf32>
      -> tensor<4x16x64xf32>, tensor<64xf32>, tensor<64xf32>
  mpg.output "dx" %dx : tensor<4x16x64xf32>
  mpg.output "dgamma" %dgamma : tensor<64xf32>
  mpg.output "dbeta" %dbeta : tensor<64xf32>
}

// axis -1 and eps 1e-5 are the defaults and are dropped.
// CHECK-LABEL: mpg.graph @layer_norm_grad_attrs
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[G1:.+]] = mpg.input "g1"
// CHECK: %[[G2:.+]] = mpg.input "g2"
// CHECK: %[[DY:.+]] = mpg.input "dy"
// CHECK: mpg.layer_norm_grad %[[X]], %[[G1]], %[[DY]] : tensor<4x16x64xbf16>, tensor<64xbf16>, tensor<4x16x64xbf16> -> tensor<4x16x64xbf16>, tensor<64xbf16>, tensor<64xbf16>
// CHECK: mpg.layer_norm_grad %[[X]], %[[G2]], %[[DY]] axis 1 : tensor<4x16x64xbf16>, tensor<16x64xbf16>, tensor<4x16x64xbf16> -> tensor<4x16x64xbf16>, tensor<16x64xbf16>, tensor<16x64xbf16>
// CHECK: mpg.layer_norm_grad %[[X]], %[[G2]], %[[DY]] axis -2 eps 1.000000e-03 : tensor<4x16x64xbf16>, tensor<16x64xbf16>, tensor<4x16x64xbf16> -> tensor<4x16x64xbf16>, tensor<16x64xbf16>, tensor<16x64xbf16>
// CHECK: mpg.layer_norm_grad %[[X]], %[[G1]], %[[DY]] eps 1.000000e-04 : tensor<4x16x64xbf16>, tensor<64xbf16>, tensor<4x16x64xbf16> -> tensor<4x16x64xbf16>, tensor<64xbf16>, tensor<64xbf16>
mpg.graph @layer_norm_grad_attrs {
  %x = mpg.input "x" : tensor<4x16x64xbf16>
  %g1 = mpg.input "g1" : tensor<64xbf16>
  %g2 = mpg.input "g2" : tensor<16x64xbf16>
  %dy = mpg.input "dy" : tensor<4x16x64xbf16>
  %a:3 = mpg.layer_norm_grad %x, %g1, %dy axis -1 eps 1.0e-5
      : tensor<4x16x64xbf16>, tensor<64xbf16>, tensor<4x16x64xbf16>
      -> tensor<4x16x64xbf16>, tensor<64xbf16>, tensor<64xbf16>
  %b:3 = mpg.layer_norm_grad %x, %g2, %dy axis 1
      : tensor<4x16x64xbf16>, tensor<16x64xbf16>, tensor<4x16x64xbf16>
      -> tensor<4x16x64xbf16>, tensor<16x64xbf16>, tensor<16x64xbf16>
  %c:3 = mpg.layer_norm_grad %x, %g2, %dy axis -2 eps 1.0e-3
      : tensor<4x16x64xbf16>, tensor<16x64xbf16>, tensor<4x16x64xbf16>
      -> tensor<4x16x64xbf16>, tensor<16x64xbf16>, tensor<16x64xbf16>
  %d:3 = mpg.layer_norm_grad %x, %g1, %dy eps 1.0e-4
      : tensor<4x16x64xbf16>, tensor<64xbf16>, tensor<4x16x64xbf16>
      -> tensor<4x16x64xbf16>, tensor<64xbf16>, tensor<64xbf16>
  mpg.output "a" %a#0 : tensor<4x16x64xbf16>
  mpg.output "b" %b#0 : tensor<4x16x64xbf16>
  mpg.output "c" %c#0 : tensor<4x16x64xbf16>
  mpg.output "d" %d#0 : tensor<4x16x64xbf16>
}

// CHECK-LABEL: mpg.graph @softmax_cross_entropy_grad
// CHECK: %[[L:.+]] = mpg.input "logits"
// CHECK: %[[Y:.+]] = mpg.input "labels"
// CHECK: %[[DL:.+]] = mpg.input "dloss"
// CHECK: %[[R:.+]] = mpg.softmax_cross_entropy_grad %[[L]], %[[Y]], %[[DL]] : tensor<64x10xf32>, tensor<64xi32>, tensor<f32> -> tensor<64x10xf32>
// CHECK: mpg.output "dlogits" %[[R]]
mpg.graph @softmax_cross_entropy_grad {
  %logits = mpg.input "logits" : tensor<64x10xf32>
  %labels = mpg.input "labels" : tensor<64xi32>
  %dloss = mpg.input "dloss" : tensor<f32>
  %dlogits = mpg.softmax_cross_entropy_grad %logits, %labels, %dloss
      : tensor<64x10xf32>, tensor<64xi32>, tensor<f32> -> tensor<64x10xf32>
  mpg.output "dlogits" %dlogits : tensor<64x10xf32>
}

// Mixed precision: f16 logits, i64 labels and an f32 loss scale.
// CHECK-LABEL: mpg.graph @softmax_cross_entropy_grad_mixed
// CHECK: mpg.softmax_cross_entropy_grad %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} : tensor<4x3xf16>, tensor<4xi64>, tensor<f32> -> tensor<4x3xf16>
mpg.graph @softmax_cross_entropy_grad_mixed {
  %logits = mpg.input "logits" : tensor<4x3xf16>
  %labels = mpg.input "labels" : tensor<4xi64>
  %scale = mpg.input "scale" : tensor<f32>
  %dlogits = mpg.softmax_cross_entropy_grad %logits, %labels, %scale
      : tensor<4x3xf16>, tensor<4xi64>, tensor<f32> -> tensor<4x3xf16>
  mpg.output "dlogits" %dlogits : tensor<4x3xf16>
}

// CHECK-LABEL: mpg.graph @embedding_grad
// CHECK: %[[IDS:.+]] = mpg.input "ids"
// CHECK: %[[DY:.+]] = mpg.input "dy"
// CHECK: %[[DT:.+]] = mpg.embedding_grad %[[IDS]], %[[DY]] : tensor<8x16xi32>, tensor<8x16x32xf32> -> tensor<96x32xf32>
// CHECK: mpg.output "dtable" %[[DT]]
mpg.graph @embedding_grad {
  %ids = mpg.input "ids" : tensor<8x16xi32>
  %dy = mpg.input "dy" : tensor<8x16x32xf32>
  %dtable = mpg.embedding_grad %ids, %dy
      : tensor<8x16xi32>, tensor<8x16x32xf32> -> tensor<96x32xf32>
  mpg.output "dtable" %dtable : tensor<96x32xf32>
}

// Rank-0 and rank-1 indices.
// CHECK-LABEL: mpg.graph @embedding_grad_ranks
// CHECK: mpg.embedding_grad %{{[^ ,]+}}, %{{[^ ,]+}} : tensor<i64>, tensor<32xf16> -> tensor<10x32xf16>
// CHECK: mpg.embedding_grad %{{[^ ,]+}}, %{{[^ ,]+}} : tensor<5xi64>, tensor<5x32xf16> -> tensor<10x32xf16>
mpg.graph @embedding_grad_ranks {
  %id = mpg.input "id" : tensor<i64>
  %ids = mpg.input "ids" : tensor<5xi64>
  %dy0 = mpg.input "dy0" : tensor<32xf16>
  %dy1 = mpg.input "dy1" : tensor<5x32xf16>
  %a = mpg.embedding_grad %id, %dy0 : tensor<i64>, tensor<32xf16> -> tensor<10x32xf16>
  %b = mpg.embedding_grad %ids, %dy1 : tensor<5xi64>, tensor<5x32xf16> -> tensor<10x32xf16>
  mpg.output "a" %a : tensor<10x32xf16>
  mpg.output "b" %b : tensor<10x32xf16>
}

// CHECK-LABEL: mpg.graph @slice_grad
// CHECK: %[[DY:.+]] = mpg.input "dy"
// CHECK: %[[DX:.+]] = mpg.slice_grad %[[DY]] start [0, 4] limit [8, 12] : tensor<8x8xf32> -> tensor<8x16xf32>
// CHECK: mpg.output "dx" %[[DX]]
mpg.graph @slice_grad {
  %dy = mpg.input "dy" : tensor<8x8xf32>
  %dx = mpg.slice_grad %dy start [0, 4] limit [8, 12] : tensor<8x8xf32> -> tensor<8x16xf32>
  mpg.output "dx" %dx : tensor<8x16xf32>
}

// With a step, an explicit unit step, an integer tensor and a rank-0 tensor.
// CHECK-LABEL: mpg.graph @slice_grad_step
// CHECK: %[[DY:.+]] = mpg.input "dy"
// CHECK: %[[DI:.+]] = mpg.input "di"
// CHECK: %[[DS:.+]] = mpg.input "ds"
// CHECK: mpg.slice_grad %[[DY]] start [0, 1] limit [8, 16] step [2, 3] : tensor<4x5xf32> -> tensor<8x16xf32>
// CHECK: mpg.slice_grad %[[DI]] start [2] limit [5] step [1] : tensor<3xi32> -> tensor<7xi32>
// CHECK: mpg.slice_grad %[[DS]] start [] limit [] : tensor<f16> -> tensor<f16>
mpg.graph @slice_grad_step {
  %dy = mpg.input "dy" : tensor<4x5xf32>
  %di = mpg.input "di" : tensor<3xi32>
  %ds = mpg.input "ds" : tensor<f16>
  %a = mpg.slice_grad %dy start [0, 1] limit [8, 16] step [2, 3] : tensor<4x5xf32> -> tensor<8x16xf32>
  %b = mpg.slice_grad %di start [2] limit [5] step [1] : tensor<3xi32> -> tensor<7xi32>
  %c = mpg.slice_grad %ds start [] limit [] : tensor<f16> -> tensor<f16>
  mpg.output "a" %a : tensor<8x16xf32>
  mpg.output "b" %b : tensor<7xi32>
  mpg.output "c" %c : tensor<f16>
}

// A step larger than the extent selects one element per dimension (the size
// computation must not overflow).
// CHECK-LABEL: mpg.graph @slice_grad_huge_step
// CHECK: %[[DY:.+]] = mpg.input "dy"
// CHECK: mpg.slice_grad %[[DY]] start [0, 3] limit [8, 4] step [9223372036854775807, 9223372036854775807] : tensor<1x1xf32> -> tensor<8x4xf32>
mpg.graph @slice_grad_huge_step {
  %dy = mpg.input "dy" : tensor<1x1xf32>
  %dx = mpg.slice_grad %dy start [0, 3] limit [8, 4] step [9223372036854775807, 9223372036854775807]
      : tensor<1x1xf32> -> tensor<8x4xf32>
  mpg.output "dx" %dx : tensor<8x4xf32>
}

// CHECK-LABEL: mpg.graph @gelu_grad
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[DY:.+]] = mpg.input "dy"
// CHECK: %[[E:.+]] = mpg.gelu_grad %[[X]], %[[DY]] : tensor<4x8xf32>
// CHECK: %[[A:.+]] = mpg.gelu_grad %[[X]], %[[DY]] approximate : tensor<4x8xf32>
// CHECK: mpg.output "exact" %[[E]]
// CHECK: mpg.output "approx" %[[A]]
mpg.graph @gelu_grad {
  %x = mpg.input "x" : tensor<4x8xf32>
  %dy = mpg.input "dy" : tensor<4x8xf32>
  %e = mpg.gelu_grad %x, %dy : tensor<4x8xf32>
  %a = mpg.gelu_grad %x, %dy approximate : tensor<4x8xf32>
  mpg.output "exact" %e : tensor<4x8xf32>
  mpg.output "approx" %a : tensor<4x8xf32>
}
