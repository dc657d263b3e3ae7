// RUN: mpc-opt %s --mpg-autodiff -split-input-file -verify-diagnostics | FileCheck %s

// The VJP of mpg.attention: one mpg.attention_grad that reads the forward
// op's result and log-sum-exp (no probabilities), with the forward op's
// mask, scale and causal flag; the mask gets no gradient.

// CHECK-LABEL: mpg.graph @causal
// CHECK: %[[Y:.+]], %[[LSE:.+]] = mpg.attention %[[Q:.+]], %k, %v mask(%m : tensor<4x4xf32>) scale 5.000000e-01 causal
// CHECK: %[[DQ:.+]], %{{.+}}, %[[DV:.+]] = mpg.attention_grad %[[Q]], %k, %v, %[[Y]], %[[LSE]], %{{.+}} mask(%m : tensor<4x4xf32>) scale 5.000000e-01 causal
// CHECK-NOT: mpg.softmax
mpg.graph @causal {
  %q = mpg.input "q" : tensor<2x4x8xf32>
  %k = mpg.input "k" : tensor<2x4x8xf32>
  %v = mpg.param "v" init(zeros) : tensor<2x4x8xf32>
  %m = mpg.input "m" : tensor<4x4xf32>
  %w = mpg.param "w" init(ones) : tensor<2x4x8xf32>
  %qw = mpg.mul %q, %w : tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %y, %lse = mpg.attention %qw, %k, %v mask(%m : tensor<4x4xf32>) scale 0.5 causal
      : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>, tensor<2x4xf32>
  %l = mpg.reduce_sum %y axes [0, 1, 2] : tensor<2x4x8xf32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.5) : tensor<f32>
}

// -----

// A loss that reads the log-sum-exp has no gradient rule.
mpg.graph @lse_in_loss {
  %q = mpg.param "q" init(zeros) : tensor<2x4x8xf32>
  // expected-error @+1 {{'mpg.attention' op has no gradient rule for its log-sum-exp result; only the attention output may reach the loss}}
  %y, %lse = mpg.attention %q, %q, %q scale 0.5
      : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>, tensor<2x4xf32>
  %l = mpg.reduce_sum %lse axes [0, 1] : tensor<2x4xf32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.5) : tensor<f32>
}

// -----

// A mask computed from a trainable parameter would need a gradient.
mpg.graph @trained_mask {
  %q = mpg.param "q" init(zeros) : tensor<2x4x8xf32>
  %b = mpg.param "b" init(zeros) : tensor<4x4xf32>
  %m = mpg.neg %b : tensor<4x4xf32>
  // expected-error @+1 {{'mpg.attention' op has a mask computed from trainable parameters, which gets no gradient here}}
  %y, %lse = mpg.attention %q, %q, %q mask(%m : tensor<4x4xf32>) scale 0.5
      : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>, tensor<2x4xf32>
  %l = mpg.reduce_sum %y axes [0, 1, 2] : tensor<2x4x8xf32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.5) : tensor<f32>
}
