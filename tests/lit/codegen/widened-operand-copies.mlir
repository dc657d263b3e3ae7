// RUN: mpc compile %s --emit manifest | FileCheck %s
// RUN: mpc compile %examples/mlp.mlir --step train --precision fp16 --emit manifest | FileCheck %s --check-prefix=FP16
// RUN: mpc compile %examples/mlp.mlir --step train --precision fp32 --emit manifest | FileCheck %s --check-prefix=NONE
// RUN: mpc compile %examples/mlp.mlir --step train --precision bf16 --emit manifest | FileCheck %s --check-prefix=NONE

// The CPU widens f16 GEMM operands to fp32 (it has no fp16 GEMM). A GEMM
// operand that is the same elements as one an earlier GEMM read or wrote,
// with no step writing them in between, reuses that widened copy: keep_x on
// the first reader (keep_c on the GEMM that wrote them), reuse_x on the
// later ones.

// The weight is read twice, unchanged: kept, then reused. x is overwritten
// in place by the product between the GEMMs (u = 3x, x dead after it), so
// the second GEMM's A is at the same offset but holds other values: no
// copy of A is kept or reused. No GEMM reads y1 or y2: no keep_c.
// CHECK: "op":"gemm","a":{"space":"arena","offset":[[X:[0-9]+]]}
// CHECK-NOT: keep_a
// CHECK-SAME: "keep_b":true,"epilogue"
// CHECK-NEXT: "op":"launch","kernel":"k0","buffers":[{"space":"arena","offset":[[X]]},{"space":"arena","offset":[[X]]}]
// CHECK-NEXT: "op":"gemm","a":{"space":"arena","offset":[[X]]}
// CHECK-NOT: keep_c
// CHECK-NOT: reuse_a
// CHECK-SAME: "reuse_b":true,"epilogue"
mpg.graph @overwritten {
  %x = mpg.input "x" : tensor<16x24xf16>
  %w = mpg.input "w" : tensor<24x20xf16>
  %three = mpg.constant dense<3.0> : tensor<f16>
  %y1 = mpg.matmul %x, %w : tensor<16x24xf16>, tensor<24x20xf16> -> tensor<16x20xf16>
  %u = mpg.mul %x, %three : tensor<16x24xf16>, tensor<f16> -> tensor<16x24xf16>
  %y2 = mpg.matmul %u, %w : tensor<16x24xf16>, tensor<24x20xf16> -> tensor<16x20xf16>
  mpg.output "y1" %y1 : tensor<16x20xf16>
  mpg.output "y2" %y2 : tensor<16x20xf16>
}

// A GEMM's f16 result read by the next GEMM: the first keeps its fp32
// values as it rounds them, the second reads them.
// CHECK-LABEL: "program":"chained"
// CHECK: "op":"gemm","a":{"space":"arena","offset":{{[0-9]+}}},"b":{{.*}},"c":{"space":"arena","offset":[[Y1:[0-9]+]]}
// CHECK-SAME: "keep_c":true,"epilogue"
// CHECK-NEXT: "op":"gemm","a":{"space":"arena","offset":[[Y1]]}
// CHECK-SAME: "reuse_a":true,"epilogue"
mpg.graph @chained {
  %x = mpg.input "x" : tensor<16x24xf16>
  %w = mpg.input "w" : tensor<24x20xf16>
  %w2 = mpg.input "w2" : tensor<20x8xf16>
  %y1 = mpg.matmul %x, %w : tensor<16x24xf16>, tensor<24x20xf16> -> tensor<16x20xf16>
  %y2 = mpg.matmul %y1, %w2 : tensor<16x20xf16>, tensor<20x8xf16> -> tensor<16x8xf16>
  mpg.output "y2" %y2 : tensor<16x8xf16>
}

// The same with the result overwritten in place in between (u = 3 y1): the
// second GEMM reads the same bytes, other values; nothing is kept.
// CHECK-LABEL: "program":"chained_overwritten"
// CHECK: "op":"gemm",{{.*}}"c":{"space":"arena","offset":[[Y:[0-9]+]]}
// CHECK-NOT: keep_c
// CHECK-SAME: "epilogue"
// CHECK-NEXT: "op":"launch","kernel":"k0","buffers":[{"space":"arena","offset":[[Y]]},{"space":"arena","offset":[[Y]]}]
// CHECK-NEXT: "op":"gemm","a":{"space":"arena","offset":[[Y]]}
// CHECK-NOT: reuse_a
// CHECK-SAME: "epilogue"
mpg.graph @chained_overwritten {
  %x = mpg.input "x" : tensor<16x24xf16>
  %w = mpg.input "w" : tensor<24x20xf16>
  %w2 = mpg.input "w2" : tensor<20x8xf16>
  %three = mpg.constant dense<3.0> : tensor<f16>
  %y1 = mpg.matmul %x, %w : tensor<16x24xf16>, tensor<24x20xf16> -> tensor<16x20xf16>
  %u = mpg.mul %y1, %three : tensor<16x20xf16>, tensor<f16> -> tensor<16x20xf16>
  %y2 = mpg.matmul %u, %w2 : tensor<16x20xf16>, tensor<20x8xf16> -> tensor<16x8xf16>
  mpg.output "y2" %y2 : tensor<16x8xf16>
}

// The digits MLP's fp16 training step: the input batch x, fc2's weight and
// the logits' gradient are each read by two GEMMs (forward, then the input
// or weight gradient; the logits' gradient by fc2's weight gradient, then
// by the input gradient, which moves down to the ReLU's gradient it takes
// as relu_grad, see relu-grad-hint.mlir), widened once; the hidden activation h is written by
// fc1's GEMM, which keeps its fp32 values for the two GEMMs reading it.
// FP16: "m":64,"n":128,"k":64,{{.*}}"transpose_a":false,"transpose_b":false,"keep_a":true,"keep_c":true,"epilogue":"bias_relu"
// FP16: "m":64,"n":10,"k":128,{{.*}}"transpose_a":false,"transpose_b":false,"keep_b":true,"reuse_a":true,"epilogue":"bias"
// FP16: "m":128,"n":10,"k":64,{{.*}}"transpose_a":true,"transpose_b":false,"keep_b":true,"reuse_a":true,"epilogue":"none"
// FP16: "m":64,"n":128,"k":10,{{.*}}"transpose_a":false,"transpose_b":true,"reuse_a":true,"reuse_b":true,"relu_grad_aux"
// FP16: "m":64,"n":128,"k":64,{{.*}}"transpose_a":true,"transpose_b":false,"reuse_a":true,"epilogue":"none"

// fp32 operands are not widened, and bf16 ones go to oneDNN as they are
// (in a build without oneDNN they are widened each time): nothing is kept.
// NONE: "op":"gemm"
// NONE-NOT: keep_
// NONE-NOT: reuse_
