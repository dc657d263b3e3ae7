// RUN: mpc compile %s --emit manifest | FileCheck %s
// RUN: mpc compile %examples/mlp.mlir --step train --precision fp16 --emit manifest | FileCheck %s --check-prefix=FP16
// RUN: mpc compile %examples/mlp.mlir --step train --precision fp32 --emit manifest | FileCheck %s --check-prefix=NONE
// RUN: mpc compile %examples/mlp.mlir --step train --precision bf16 --emit manifest | FileCheck %s --check-prefix=NONE

// The CPU widens f16 GEMM operands to fp32 (it has no fp16 GEMM). A GEMM
// operand that is the same elements as one an earlier GEMM read, with no
// step writing them in between, reuses that widened copy: keep_x on the
// first reader, reuse_x on the later ones.

// The weight is read twice, unchanged: kept, then reused. x is overwritten
// in place by the product between the GEMMs (u = 3x, x dead after it), so
// the second GEMM's A is at the same offset but holds other values: no
// copy of A is kept or reused.
// CHECK: "op":"gemm","a":{"space":"arena","offset":[[X:[0-9]+]]}
// CHECK-NOT: keep_a
// CHECK-SAME: "keep_b":true,"epilogue"
// CHECK-NEXT: "op":"launch","kernel":"k0","buffers":[{"space":"arena","offset":[[X]]},{"space":"arena","offset":[[X]]}]
// CHECK-NEXT: "op":"gemm","a":{"space":"arena","offset":[[X]]}
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

// The digits MLP's fp16 training step: the input batch x, the hidden
// activation h, fc2's weight and the logits' gradient are each read by two
// GEMMs (forward, then the input or weight gradient), widened once.
// FP16: "m":64,"n":128,"k":64,{{.*}}"transpose_a":false,"transpose_b":false,"keep_a":true,"epilogue":"bias_relu"
// FP16: "m":64,"n":10,"k":128,{{.*}}"transpose_a":false,"transpose_b":false,"keep_a":true,"keep_b":true,"epilogue":"bias"
// FP16: "m":64,"n":128,"k":10,{{.*}}"transpose_a":false,"transpose_b":true,"keep_a":true,"reuse_b":true,"epilogue":"none"
// FP16: "m":128,"n":10,"k":64,{{.*}}"transpose_a":true,"transpose_b":false,"reuse_a":true,"reuse_b":true,"epilogue":"none"
// FP16: "m":64,"n":128,"k":64,{{.*}}"transpose_a":true,"transpose_b":false,"reuse_a":true,"epilogue":"none"

// fp32 operands are not widened, and bf16 ones go to oneDNN as they are:
// nothing is kept.
// NONE: "op":"gemm"
// NONE-NOT: keep_
// NONE-NOT: reuse_
