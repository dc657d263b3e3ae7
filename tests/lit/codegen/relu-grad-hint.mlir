// RUN: mpc compile %s --emit manifest | FileCheck %s
// RUN: mpc compile %examples/mlp.mlir --step train --precision fp32 --emit manifest | FileCheck %s --check-prefix=MLP
// RUN: mpc compile %examples/wide_mlp.mlir --step train --precision bf16 --emit manifest | FileCheck %s --check-prefix=WIDE
// RUN: mpc compile %examples/cnn.mlir --step train --precision fp16 --emit manifest | FileCheck %s --check-prefix=NONE

// A ReLU's gradient, dx = y > 0 ? dy : 0, of a GEMM's result dy that
// nothing else reads: the GEMM step gets a relu_grad hint (aux y, out dx)
// and the launch computing dx follows it. The CPU backend then runs the two
// as the GEMM writing dx, masked as it is rounded; the CUDA backend runs
// both. dx is computed in place of y.
// CHECK-LABEL: "program":"taken"
// CHECK: "op":"gemm",{{.*}}"c":{"space":"arena","offset":[[C:[0-9]+]]},{{.*}}"relu_grad_aux":{"space":"arena","offset":[[Y:[0-9]+]]},"relu_grad_aux_dtype":"f32","relu_grad_out":{"space":"arena","offset":[[Y]]},"epilogue":"none"}
// CHECK-NEXT: "op":"launch","kernel":"k1","buffers":[{"space":"arena","offset":[[Y]]},{"space":"arena","offset":[[C]]},{"space":"arena","offset":[[Y]]}]
mpg.graph @taken {
  %y = mpg.input "y" : tensor<16x24xf32>
  %dz = mpg.input "dz" : tensor<16x8xf32>
  %w = mpg.input "w" : tensor<24x8xf32>
  %zero = mpg.constant dense<0.0> : tensor<f32>
  %zeros = mpg.constant dense<0.0> : tensor<16x24xf32>
  %wt = mpg.transpose %w perm [1, 0] : tensor<24x8xf32> -> tensor<8x24xf32>
  %dy = mpg.matmul %dz, %wt : tensor<16x8xf32>, tensor<8x24xf32> -> tensor<16x24xf32>
  %pos = mpg.compare gt, %y, %zero : tensor<16x24xf32>, tensor<f32> -> tensor<16x24xi1>
  %dx = mpg.select %pos, %dy, %zeros : tensor<16x24xi1>, tensor<16x24xf32>, tensor<16x24xf32> -> tensor<16x24xf32>
  mpg.output "dx" %dx : tensor<16x24xf32>
}

// A GEMM between the two that touches neither dy nor the first GEMM's
// operands (dz and w stay live for the products after): the first GEMM
// moves down to the launch.
// CHECK-LABEL: "program":"moved_down"
// CHECK: "op":"gemm",{{.*}}"m":16,"n":4,"k":8,
// CHECK-NOT: relu_grad
// CHECK-SAME: "epilogue":"none"
// CHECK-NEXT: "op":"gemm",{{.*}}"m":16,"n":24,"k":8,{{.*}}"relu_grad_aux_dtype":"f16"
// CHECK-NEXT: "op":"launch","kernel":"k0"
mpg.graph @moved_down {
  %y = mpg.input "y" : tensor<16x24xf16>
  %dz = mpg.input "dz" : tensor<16x8xf16>
  %w = mpg.input "w" : tensor<8x24xf16>
  %a = mpg.input "a" : tensor<16x8xf16>
  %v = mpg.input "v" : tensor<8x4xf16>
  %zero = mpg.constant dense<0.0> : tensor<f16>
  %zeros = mpg.constant dense<0.0> : tensor<16x24xf16>
  %dy = mpg.matmul %dz, %w : tensor<16x8xf16>, tensor<8x24xf16> -> tensor<16x24xf16>
  %other = mpg.matmul %a, %v : tensor<16x8xf16>, tensor<8x4xf16> -> tensor<16x4xf16>
  %pos = mpg.compare gt, %y, %zero : tensor<16x24xf16>, tensor<f16> -> tensor<16x24xi1>
  %dx = mpg.select %pos, %dy, %zeros : tensor<16x24xi1>, tensor<16x24xf16>, tensor<16x24xf16> -> tensor<16x24xf16>
  mpg.output "dx" %dx : tensor<16x24xf16>
  mpg.output "other" %other : tensor<16x4xf16>
  %w2 = mpg.mul %w, %w : tensor<8x24xf16>, tensor<8x24xf16> -> tensor<8x24xf16>
  mpg.output "w2" %w2 : tensor<8x24xf16>
  %dz2 = mpg.mul %dz, %dz : tensor<16x8xf16>, tensor<16x8xf16> -> tensor<16x8xf16>
  mpg.output "dz2" %dz2 : tensor<16x8xf16>
}

// The same with w dead after the first GEMM: the second writes its result
// over w, so the first cannot move past it; no hint, the order stays.
// CHECK-LABEL: "program":"operand_written_between"
// CHECK: "op":"gemm",{{.*}}"b":{"space":"arena","offset":[[W:[0-9]+]]},{{.*}}"m":16,"n":24,"k":8,
// CHECK-NOT: relu_grad
// CHECK-SAME: "epilogue":"none"
// CHECK-NEXT: "op":"gemm",{{.*}}"c":{"space":"arena","offset":[[W]]},{{.*}}"m":16,"n":4,"k":8,
// CHECK-NEXT: "op":"launch","kernel":"k0"
mpg.graph @operand_written_between {
  %y = mpg.input "y" : tensor<16x24xf16>
  %dz = mpg.input "dz" : tensor<16x8xf16>
  %w = mpg.input "w" : tensor<8x24xf16>
  %a = mpg.input "a" : tensor<16x8xf16>
  %v = mpg.input "v" : tensor<8x4xf16>
  %zero = mpg.constant dense<0.0> : tensor<f16>
  %zeros = mpg.constant dense<0.0> : tensor<16x24xf16>
  %dy = mpg.matmul %dz, %w : tensor<16x8xf16>, tensor<8x24xf16> -> tensor<16x24xf16>
  %other = mpg.matmul %a, %v : tensor<16x8xf16>, tensor<8x4xf16> -> tensor<16x4xf16>
  %pos = mpg.compare gt, %y, %zero : tensor<16x24xf16>, tensor<f16> -> tensor<16x24xi1>
  %dx = mpg.select %pos, %dy, %zeros : tensor<16x24xi1>, tensor<16x24xf16>, tensor<16x24xf16> -> tensor<16x24xf16>
  mpg.output "dx" %dx : tensor<16x24xf16>
  mpg.output "other" %other : tensor<16x4xf16>
}

// dz overwritten in place (u = 3 dz) between the GEMM and the launch: no
// hint.
// CHECK-LABEL: "program":"operand_overwritten"
// CHECK: "op":"gemm",
// CHECK-NOT: relu_grad
// CHECK-SAME: "epilogue":"none"
// CHECK-NEXT: "op":"launch","kernel":"k0"
// CHECK-NEXT: "op":"launch","kernel":"k1"
mpg.graph @operand_overwritten {
  %y = mpg.input "y" : tensor<16x24xf32>
  %dz = mpg.input "dz" : tensor<16x8xf32>
  %w = mpg.input "w" : tensor<8x24xf32>
  %three = mpg.constant dense<3.0> : tensor<f32>
  %zero = mpg.constant dense<0.0> : tensor<f32>
  %zeros = mpg.constant dense<0.0> : tensor<16x24xf32>
  %dy = mpg.matmul %dz, %w : tensor<16x8xf32>, tensor<8x24xf32> -> tensor<16x24xf32>
  %u = mpg.mul %dz, %three : tensor<16x8xf32>, tensor<f32> -> tensor<16x8xf32>
  %pos = mpg.compare gt, %y, %zero : tensor<16x24xf32>, tensor<f32> -> tensor<16x24xi1>
  %dx = mpg.select %pos, %dy, %zeros : tensor<16x24xi1>, tensor<16x24xf32>, tensor<16x24xf32> -> tensor<16x24xf32>
  mpg.output "dx" %dx : tensor<16x24xf32>
  mpg.output "u" %u : tensor<16x8xf32>
}

// dy is an output too: a backend taking the hint would not write it.
// CHECK-LABEL: "program":"read_again"
// CHECK-NOT: relu_grad
mpg.graph @read_again {
  %y = mpg.input "y" : tensor<16x24xf32>
  %dz = mpg.input "dz" : tensor<16x8xf32>
  %w = mpg.input "w" : tensor<8x24xf32>
  %zero = mpg.constant dense<0.0> : tensor<f32>
  %zeros = mpg.constant dense<0.0> : tensor<16x24xf32>
  %dy = mpg.matmul %dz, %w : tensor<16x8xf32>, tensor<8x24xf32> -> tensor<16x24xf32>
  %pos = mpg.compare gt, %y, %zero : tensor<16x24xf32>, tensor<f32> -> tensor<16x24xi1>
  %dx = mpg.select %pos, %dy, %zeros : tensor<16x24xi1>, tensor<16x24xf32>, tensor<16x24xf32> -> tensor<16x24xf32>
  mpg.output "dx" %dx : tensor<16x24xf32>
  mpg.output "dy" %dy : tensor<16x24xf32>
}

// Not a ReLU's gradient: ones where y <= 0, and y >= 0 instead of y > 0.
// CHECK-LABEL: "program":"not_zero"
// CHECK-NOT: relu_grad
// CHECK-LABEL: "program":"greater_equal"
// CHECK-NOT: relu_grad
mpg.graph @not_zero {
  %y = mpg.input "y" : tensor<16x24xf32>
  %dz = mpg.input "dz" : tensor<16x8xf32>
  %w = mpg.input "w" : tensor<8x24xf32>
  %zero = mpg.constant dense<0.0> : tensor<f32>
  %ones = mpg.constant dense<1.0> : tensor<16x24xf32>
  %dy = mpg.matmul %dz, %w : tensor<16x8xf32>, tensor<8x24xf32> -> tensor<16x24xf32>
  %pos = mpg.compare gt, %y, %zero : tensor<16x24xf32>, tensor<f32> -> tensor<16x24xi1>
  %dx = mpg.select %pos, %dy, %ones : tensor<16x24xi1>, tensor<16x24xf32>, tensor<16x24xf32> -> tensor<16x24xf32>
  mpg.output "dx" %dx : tensor<16x24xf32>
}
mpg.graph @greater_equal {
  %y = mpg.input "y" : tensor<16x24xf32>
  %dz = mpg.input "dz" : tensor<16x8xf32>
  %w = mpg.input "w" : tensor<8x24xf32>
  %zero = mpg.constant dense<0.0> : tensor<f32>
  %zeros = mpg.constant dense<0.0> : tensor<16x24xf32>
  %dy = mpg.matmul %dz, %w : tensor<16x8xf32>, tensor<8x24xf32> -> tensor<16x24xf32>
  %pos = mpg.compare ge, %y, %zero : tensor<16x24xf32>, tensor<f32> -> tensor<16x24xi1>
  %dx = mpg.select %pos, %dy, %zeros : tensor<16x24xi1>, tensor<16x24xf32>, tensor<16x24xf32> -> tensor<16x24xf32>
  mpg.output "dx" %dx : tensor<16x24xf32>
}

// The digits MLP's input gradient of fc2 (64 x 128 from the logits'
// gradient) takes the hidden ReLU's gradient, after fc2's weight gradient,
// which reads h first (the gradient is computed in place of h).
// MLP: "m":128,"n":10,"k":64,{{.*}}"epilogue":"none"
// MLP-NEXT: "m":64,"n":128,"k":10,{{.*}}"relu_grad_aux_dtype":"f32",{{.*}}"epilogue":"none"
// MLP-NEXT: "op":"launch"
// MLP-NOT: relu_grad

// In the wide MLP, both hidden layers' input gradients take one.
// WIDE: "m":256,"n":1024,"k":10,{{.*}}"relu_grad_aux_dtype":"bf16",{{.*}}"epilogue":"none"
// WIDE: "m":256,"n":1024,"k":1024,{{.*}}"relu_grad_aux_dtype":"bf16",{{.*}}"epilogue":"none"
// WIDE-NOT: relu_grad

// The CNN's ReLUs' gradients come from pooling, not from GEMMs.
// NONE-NOT: relu_grad
