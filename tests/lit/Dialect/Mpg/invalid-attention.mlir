// RUN: mpc-opt %s -split-input-file -verify-diagnostics

// Diagnostics of mpg.attention and mpg.attention_grad: one case per
// verifier error.

mpg.graph @rank2 {
  %q = mpg.input "q" : tensor<4x8xf32>
  // expected-error @+1 {{'mpg.attention' op expects queries, keys and values of one rank >= 3 ([..., S, D]), got 4x8, 4x8 and 4x8}}
  %y, %lse = mpg.attention %q, %q, %q scale 1.0 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4xf32>
}

// -----

mpg.graph @batch {
  %q = mpg.input "q" : tensor<2x4x8xf32>
  %k = mpg.input "k" : tensor<3x4x8xf32>
  // expected-error @+1 {{expects identical batch dimensions, got 2x4x8, 3x4x8 and 3x4x8}}
  %y, %lse = mpg.attention %q, %k, %k scale 1.0 : tensor<2x4x8xf32>, tensor<3x4x8xf32>, tensor<3x4x8xf32> -> tensor<2x4x8xf32>, tensor<2x4xf32>
}

// -----

mpg.graph @head {
  %q = mpg.input "q" : tensor<2x4x8xf32>
  %k = mpg.input "k" : tensor<2x4x6xf32>
  // expected-error @+1 {{expects queries, keys and values of one head size, got 8, 6 and 6}}
  %y, %lse = mpg.attention %q, %k, %k scale 1.0 : tensor<2x4x8xf32>, tensor<2x4x6xf32>, tensor<2x4x6xf32> -> tensor<2x4x8xf32>, tensor<2x4xf32>
}

// -----

mpg.graph @values {
  %q = mpg.input "q" : tensor<2x4x8xf32>
  %k = mpg.input "k" : tensor<2x5x8xf32>
  %v = mpg.input "v" : tensor<2x6x8xf32>
  // expected-error @+1 {{expects as many values as keys, got 6 and 5}}
  %y, %lse = mpg.attention %q, %k, %v scale 1.0 : tensor<2x4x8xf32>, tensor<2x5x8xf32>, tensor<2x6x8xf32> -> tensor<2x4x8xf32>, tensor<2x4xf32>
}

// -----

mpg.graph @empty {
  %q = mpg.input "q" : tensor<2x0x8xf32>
  // expected-error @+1 {{expects at least one query, key and head element, got 2x0x8 and 2x0x8}}
  %y, %lse = mpg.attention %q, %q, %q scale 1.0 : tensor<2x0x8xf32>, tensor<2x0x8xf32>, tensor<2x0x8xf32> -> tensor<2x0x8xf32>, tensor<2x0xf32>
}

// -----

mpg.graph @element_types {
  %q = mpg.input "q" : tensor<2x4x8xf16>
  %k = mpg.input "k" : tensor<2x4x8xf32>
  // expected-error @+1 {{expects queries, keys and values of one element type, got 'f16', 'f32' and 'f32'}}
  %y, %lse = mpg.attention %q, %k, %k scale 1.0 : tensor<2x4x8xf16>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf16>, tensor<2x4xf32>
}

// -----

mpg.graph @scale_zero {
  %q = mpg.input "q" : tensor<2x4x8xf32>
  // expected-error @+1 {{expects a finite, nonzero scale, got 0}}
  %y, %lse = mpg.attention %q, %q, %q scale 0.0 : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>, tensor<2x4xf32>
}

// -----

mpg.graph @causal_lengths {
  %q = mpg.input "q" : tensor<2x4x8xf32>
  %k = mpg.input "k" : tensor<2x5x8xf32>
  // expected-error @+1 {{expects as many queries as keys when causal, got 4 and 5}}
  %y, %lse = mpg.attention %q, %k, %k scale 1.0 causal : tensor<2x4x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32> -> tensor<2x4x8xf32>, tensor<2x4xf32>
}

// -----

mpg.graph @mask_shape {
  %q = mpg.input "q" : tensor<2x4x8xf32>
  %m = mpg.input "m" : tensor<2x4x4xf32>
  // expected-error @+1 {{expects a mask of shape 4x4 ([queries, keys]), got 2x4x4}}
  %y, %lse = mpg.attention %q, %q, %q mask(%m : tensor<2x4x4xf32>) scale 1.0 : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>, tensor<2x4xf32>
}

// -----

mpg.graph @result_type {
  %q = mpg.input "q" : tensor<2x4x8xf16>
  // expected-error @+1 {{expects the result of type 'tensor<2x4x8xf16>', got 'tensor<2x4x8xf32>'}}
  %y, %lse = mpg.attention %q, %q, %q scale 1.0 : tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<2x4x8xf16> -> tensor<2x4x8xf32>, tensor<2x4xf32>
}

// -----

mpg.graph @lse_type {
  %q = mpg.input "q" : tensor<2x4x8xf16>
  // expected-error @+1 {{expects the log-sum-exp of type 'tensor<2x4xf32>', got 'tensor<2x4xf16>'}}
  %y, %lse = mpg.attention %q, %q, %q scale 1.0 : tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<2x4x8xf16> -> tensor<2x4x8xf16>, tensor<2x4xf16>
}

// -----

mpg.graph @grad_forward_result {
  %q = mpg.input "q" : tensor<2x4x8xf32>
  %y = mpg.input "y" : tensor<2x4x4xf32>
  %lse = mpg.input "lse" : tensor<2x4xf32>
  // expected-error @+1 {{'mpg.attention_grad' op expects the forward result of type 'tensor<2x4x8xf32>', got 'tensor<2x4x4xf32>'}}
  %dq, %dk, %dv = mpg.attention_grad %q, %q, %q, %y, %lse, %q scale 1.0 : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x4xf32>, tensor<2x4xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>
}

// -----

mpg.graph @grad_result_gradient {
  %q = mpg.input "q" : tensor<2x4x8xf32>
  %dy = mpg.input "dy" : tensor<2x4x8xf16>
  %lse = mpg.input "lse" : tensor<2x4xf32>
  // expected-error @+1 {{expects the result's gradient of type 'tensor<2x4x8xf32>', got 'tensor<2x4x8xf16>'}}
  %dq, %dk, %dv = mpg.attention_grad %q, %q, %q, %q, %lse, %dy scale 1.0 : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4x8xf16> -> tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>
}

// -----

mpg.graph @grad_lse {
  %q = mpg.input "q" : tensor<2x4x8xf32>
  %lse = mpg.input "lse" : tensor<2x5xf32>
  // expected-error @+1 {{expects the log-sum-exp of type 'tensor<2x4xf32>', got 'tensor<2x5xf32>'}}
  %dq, %dk, %dv = mpg.attention_grad %q, %q, %q, %q, %lse, %q scale 1.0 : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x5xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>
}

// -----

mpg.graph @grad_query_type {
  %q = mpg.input "q" : tensor<2x4x8xf32>
  %lse = mpg.input "lse" : tensor<2x4xf32>
  // expected-error @+1 {{expects grad_query of type 'tensor<2x4x8xf32>', got 'tensor<2x4x8xf16>'}}
  %dq, %dk, %dv = mpg.attention_grad %q, %q, %q, %q, %lse, %q scale 1.0 : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf16>, tensor<2x4x8xf32>, tensor<2x4x8xf32>
}

// -----

mpg.graph @grad_key_type {
  %q = mpg.input "q" : tensor<2x4x8xf32>
  %lse = mpg.input "lse" : tensor<2x4xf32>
  // expected-error @+1 {{expects grad_key of type 'tensor<2x4x8xf32>', got 'tensor<2x4x8xbf16>'}}
  %dq, %dk, %dv = mpg.attention_grad %q, %q, %q, %q, %lse, %q scale 1.0 : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>, tensor<2x4x8xbf16>, tensor<2x4x8xf32>
}

// -----

mpg.graph @grad_value_type {
  %q = mpg.input "q" : tensor<2x4x8xf32>
  %lse = mpg.input "lse" : tensor<2x4xf32>
  // expected-error @+1 {{expects grad_value of type 'tensor<2x4x8xf32>', got 'tensor<2x4x4xf32>'}}
  %dq, %dk, %dv = mpg.attention_grad %q, %q, %q, %q, %lse, %q scale 1.0 : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x4xf32>
}
