// RUN: mpc-opt %s | mpc-opt | FileCheck %s
// RUN: mpc-opt %s -mlir-print-op-generic | mpc-opt | FileCheck %s

// Round trip of the fused attention ops: causal without a mask, a mask
// without causal, fp16 operands with the f32 log-sum-exp, and the gradient.

// CHECK-LABEL: mpg.graph @causal
// CHECK: %{{.+}}, %{{.+}} = mpg.attention %q, %k, %v scale 1.250000e-01 causal : tensor<2x3x8x16xf16>, tensor<2x3x8x16xf16>, tensor<2x3x8x16xf16> -> tensor<2x3x8x16xf16>, tensor<2x3x8xf32>
mpg.graph @causal {
  %q = mpg.input "q" : tensor<2x3x8x16xf16>
  %k = mpg.input "k" : tensor<2x3x8x16xf16>
  %v = mpg.input "v" : tensor<2x3x8x16xf16>
  %y, %lse = mpg.attention %q, %k, %v scale 0.125 causal
      : tensor<2x3x8x16xf16>, tensor<2x3x8x16xf16>, tensor<2x3x8x16xf16>
      -> tensor<2x3x8x16xf16>, tensor<2x3x8xf32>
  mpg.output "y" %y : tensor<2x3x8x16xf16>
}

// CHECK-LABEL: mpg.graph @masked
// CHECK: mpg.attention %q, %k, %v mask(%m : tensor<4x6xf32>) scale -5.000000e-01 : tensor<5x4x8xf32>, tensor<5x6x8xf32>, tensor<5x6x8xf32> -> tensor<5x4x8xf32>, tensor<5x4xf32>
mpg.graph @masked {
  %q = mpg.input "q" : tensor<5x4x8xf32>
  %k = mpg.input "k" : tensor<5x6x8xf32>
  %v = mpg.input "v" : tensor<5x6x8xf32>
  %m = mpg.input "m" : tensor<4x6xf32>
  %y, %lse = mpg.attention %q, %k, %v mask(%m : tensor<4x6xf32>) scale -0.5
      : tensor<5x4x8xf32>, tensor<5x6x8xf32>, tensor<5x6x8xf32>
      -> tensor<5x4x8xf32>, tensor<5x4xf32>
  mpg.output "y" %y : tensor<5x4x8xf32>
}

// CHECK-LABEL: mpg.graph @grad
// CHECK: %{{.+}}, %{{.+}}, %{{.+}} = mpg.attention_grad %q, %k, %v, %y, %lse, %dy mask(%m : tensor<4x4xf32>) scale 2.500000e-01 causal : tensor<2x4x8xbf16>, tensor<2x4x8xbf16>, tensor<2x4x8xbf16>, tensor<2x4x8xbf16>, tensor<2x4xf32>, tensor<2x4x8xbf16> -> tensor<2x4x8xbf16>, tensor<2x4x8xbf16>, tensor<2x4x8xbf16>
mpg.graph @grad {
  %q = mpg.input "q" : tensor<2x4x8xbf16>
  %k = mpg.input "k" : tensor<2x4x8xbf16>
  %v = mpg.input "v" : tensor<2x4x8xbf16>
  %y = mpg.input "y" : tensor<2x4x8xbf16>
  %lse = mpg.input "lse" : tensor<2x4xf32>
  %dy = mpg.input "dy" : tensor<2x4x8xbf16>
  %m = mpg.input "m" : tensor<4x4xf32>
  %dq, %dk, %dv = mpg.attention_grad %q, %k, %v, %y, %lse, %dy mask(%m : tensor<4x4xf32>)
      scale 0.25 causal
      : tensor<2x4x8xbf16>, tensor<2x4x8xbf16>, tensor<2x4x8xbf16>, tensor<2x4x8xbf16>,
        tensor<2x4xf32>, tensor<2x4x8xbf16>
      -> tensor<2x4x8xbf16>, tensor<2x4x8xbf16>, tensor<2x4x8xbf16>
  mpg.output "dq" %dq : tensor<2x4x8xbf16>
}
