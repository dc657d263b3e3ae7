// RUN: mpc compile %s --emit manifest | FileCheck %s
// RUN: mpc compile %examples/cnn.mlir --step train --precision fp16 --emit manifest | FileCheck %s --check-prefix=CNN

// A convolution's GEMM whose B is the im2col columns that the launch just
// before it writes, and that nothing reads after it, gets an im2col_b hint
// naming the image and the windows. The CPU then gathers the widened
// columns of an f16 image itself and skips the launch; the CUDA backend
// runs both. The forward product reads the columns as they are, the filter
// gradient's transposed.
// CHECK-LABEL: "program":"conv"
// CHECK: "op":"launch","kernel":"k0","buffers":[{"space":"arena","offset":[[X:[0-9]+]]},{"space":"arena","offset":[[COLS:[0-9]+]]}]
// CHECK-NEXT: "op":"gemm",{{.*}}"b":{"space":"arena","offset":[[COLS]]},{{.*}}"m":6,"n":20,"k":36,"batch":2,{{.*}}"stride_b":720,{{.*}}"transpose_b":false,"im2col_b":{"input":{"space":"arena","offset":[[X]]},"shape":[2,4,4,5],"kernel":[3,3],"stride":[1,1],"padding":[1,1,1,1],"dilation":[1,1]},"epilogue":"none"}
// CHECK: "op":"launch","kernel":"k{{[0-9]+}}","buffers":[{"space":"arena","offset":[[X]]},{"space":"arena","offset":[[COLS2:[0-9]+]]}]
// CHECK-NEXT: "op":"gemm",{{.*}}"b":{"space":"arena","offset":[[COLS2]]},{{.*}}"m":6,"n":36,"k":20,"batch":2,{{.*}}"transpose_b":true,"im2col_b":{"input":{"space":"arena","offset":[[X]]},"shape":[2,4,4,5],"kernel":[3,3],"stride":[1,1],"padding":[1,1,1,1],"dilation":[1,1]},"epilogue":"none"}
mpg.graph @conv {
  %x = mpg.input "x" : tensor<2x4x4x5xf16>
  %w = mpg.input "w" : tensor<6x4x3x3xf16>
  %dy = mpg.input "dy" : tensor<2x6x4x5xf16>
  %y = mpg.conv2d %x, %w padding [1, 1, 1, 1] : tensor<2x4x4x5xf16>, tensor<6x4x3x3xf16> -> tensor<2x6x4x5xf16>
  %dw = mpg.conv2d_grad_filter %x, %dy padding [1, 1, 1, 1] : tensor<2x4x4x5xf16>, tensor<2x6x4x5xf16> -> tensor<6x4x3x3xf16>
  mpg.output "y" %y : tensor<2x6x4x5xf16>
  mpg.output "dw" %dw : tensor<6x4x3x3xf16>
}

// Grouped: each group's GEMM reads its rows of the same columns, so the
// first is not their last reader, and the second's previous step is a GEMM.
// No hint.
// CHECK-LABEL: "program":"grouped"
// CHECK: "op":"launch","kernel":"k0"
// CHECK-NEXT: "op":"gemm"
// CHECK-NOT: im2col_b
// CHECK-SAME: "epilogue":"none"}
// CHECK-NEXT: "op":"gemm"
// CHECK-NOT: im2col_b
// CHECK-SAME: "epilogue":"none"}
mpg.graph @grouped {
  %x = mpg.input "x" : tensor<2x4x8x8xf16>
  %w = mpg.input "w" : tensor<6x2x3x3xf16>
  %y = mpg.conv2d %x, %w stride [2, 2] padding [1, 1, 1, 1] groups 2 : tensor<2x4x8x8xf16>, tensor<6x2x3x3xf16> -> tensor<2x6x4x4xf16>
  mpg.output "y" %y : tensor<2x6x4x4xf16>
}

// The CNN's training step: both convolutions' forward products and filter
// gradients take their columns from the hint; the input gradient's GEMM
// reads the output gradient, not columns.
// CNN: "m":8,"n":784,"k":9,"batch":32,{{.*}}"im2col_b":{"input":{{.*}}"shape":[32,1,28,28]
// CNN: "m":16,"n":196,"k":72,"batch":32,{{.*}}"im2col_b":{"input":{{.*}}"shape":[32,8,14,14]
// CNN: "m":72,"n":196,"k":16,"batch":32,
// CNN-NOT: im2col_b
// CNN-SAME: "epilogue"
// CNN: "m":16,"n":72,"k":196,"batch":32,{{.*}}"im2col_b":{"input":{{.*}}"shape":[32,8,14,14]
// CNN: "m":8,"n":9,"k":784,"batch":32,{{.*}}"im2col_b":{"input":{{.*}}"shape":[32,1,28,28]
