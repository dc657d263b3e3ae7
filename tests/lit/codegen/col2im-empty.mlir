// RUN: mpc compile %s --emit cuda | FileCheck %s
// RUN: mpc compile %s -o %t.mpcb

// An input gradient of an image with no columns (padding makes the
// convolution's output two wide): col2im's host form sums one band of
// nothing, with a one-float array, and the kernels compile for the host.
// CHECK: void row(int64_t r) const {
// CHECK: for (int64_t h0 = 0; h0 < 2; h0 += 1) {
// CHECK: float acc[1];
mpg.graph @empty_columns {
  %dy = mpg.input "dy" : tensor<1x1x2x2xf32>
  %w = mpg.input "w" : tensor<1x1x1x1xf32>
  %dx = mpg.conv2d_grad_input %dy, %w padding [0, 1, 0, 1]
      : tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32> -> tensor<1x1x2x0xf32>
  mpg.output "dx" %dx : tensor<1x1x2x0xf32>
}
