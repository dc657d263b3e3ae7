// RUN: mpc-opt %s --mpg-assign-precision=mode=fp16 --mpg-verify-precision -split-input-file | FileCheck %s
// RUN: mpc-opt %s --mpg-assign-precision=mode=bf16 --mpg-verify-precision -split-input-file | FileCheck %s --check-prefix=BF16
// RUN: mpc-opt %s --mpg-assign-precision=mode=fp32 --mpg-verify-precision -split-input-file | FileCheck %s --check-prefix=FP32

// Fused attention is category "attention": queries, keys, values, the
// output and the gradients in the low-precision type, accumulation in f32;
// the log-sum-exp stays f32 and the mask keeps its type (it is added to
// fp32 scores).

// CHECK-LABEL: mpg.graph @forward_and_grad
// CHECK: %[[Y:.+]], %[[LSE:.+]] = mpg.attention %{{.+}}, %{{.+}}, %{{.+}} mask(%m : tensor<4x4xf32>) scale 5.000000e-01 causal {mpg.precision_decision = {accumulate = f32, category = "attention", compute = f32, {{.+}}storage = f16}} : tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<2x4x8xf16> -> tensor<2x4x8xf16>, tensor<2x4xf32>
// CHECK: mpg.attention_grad %{{.+}}, %{{.+}}, %{{.+}}, %[[Y]], %[[LSE]], %{{.+}} mask(%m : tensor<4x4xf32>) scale 5.000000e-01 causal {mpg.precision_decision = {accumulate = f32, category = "attention"{{.+}}} : tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<2x4xf32>, tensor<2x4x8xf16> -> tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<2x4x8xf16>
// BF16: mpg.attention {{.+}} -> tensor<2x4x8xbf16>, tensor<2x4xf32>
// FP32: mpg.attention {{.+}} -> tensor<2x4x8xf32>, tensor<2x4xf32>
mpg.graph @forward_and_grad {
  %q = mpg.input "q" : tensor<2x4x8xf32>
  %m = mpg.input "m" : tensor<4x4xf32>
  %dy = mpg.input "dy" : tensor<2x4x8xf32>
  %y, %lse = mpg.attention %q, %q, %q mask(%m : tensor<4x4xf32>) scale 0.5 causal
      : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>, tensor<2x4xf32>
  %dq, %dk, %dv = mpg.attention_grad %q, %q, %q, %y, %lse, %dy mask(%m : tensor<4x4xf32>)
      scale 0.5 causal
      : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>,
        tensor<2x4xf32>, tensor<2x4x8xf32>
      -> tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>
  mpg.output "dq" %dq : tensor<2x4x8xf32>
}
