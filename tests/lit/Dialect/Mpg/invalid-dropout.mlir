// RUN: mpc-opt %s -split-input-file -verify-diagnostics

// Diagnostics of mpg.dropout and of the seed initializer.

mpg.graph @rate_one {
  %x = mpg.input "x" : tensor<8xf32>
  // expected-error @+1 {{'mpg.dropout' op expects a rate in [0, 1), got 1.000000e+00}}
  %y = mpg.dropout %x rate 1.0 : tensor<8xf32>
}

// -----

mpg.graph @rate_negative {
  %x = mpg.input "x" : tensor<8xf32>
  // expected-error @+1 {{'mpg.dropout' op expects a rate in [0, 1), got -1.000000e-01}}
  %y = mpg.dropout %x rate -0.1 : tensor<8xf32>
}

// -----

mpg.graph @integer_input {
  %x = mpg.input "x" : tensor<8xi32>
  // expected-error @+1 {{'mpg.dropout' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %y = mpg.dropout %x rate 0.5 : tensor<8xi32>
}

// -----

mpg.graph @one_key_part {
  %x = mpg.input "x" : tensor<8xf32>
  %s = mpg.input "s" : tensor<i64>
  // expected-error @+1 {{'mpg.dropout' op expects a key of two i64 scalars (seed, run), got 1 operands}}
  %y = mpg.dropout %x rate 0.5 key(%s) stream 0 : tensor<8xf32>, tensor<i64>
}

// -----

mpg.graph @i32_key {
  %x = mpg.input "x" : tensor<8xf32>
  %s = mpg.input "s" : tensor<i32>
  // expected-error @+1 {{'mpg.dropout' op expects a key of i64 scalars, got 'tensor<i32>'}}
  %y = mpg.dropout %x rate 0.5 key(%s, %s) stream 0 : tensor<8xf32>, tensor<i32>, tensor<i32>
}

// -----

mpg.graph @stream_without_key {
  %x = mpg.input "x" : tensor<8xf32>
  // expected-error @+1 {{'mpg.dropout' op expects a stream number only with a key}}
  %y = "mpg.dropout"(%x) {rate = 0.5 : f64, stream = 1 : i64} : (tensor<8xf32>) -> tensor<8xf32>
}

// -----

mpg.graph @key_without_stream {
  %x = mpg.input "x" : tensor<8xf32>
  %s = mpg.input "s" : tensor<i64>
  // expected-error @+1 {{'mpg.dropout' op with a key expects a stream number}}
  %y = "mpg.dropout"(%x, %s, %s) {rate = 0.5 : f64} : (tensor<8xf32>, tensor<i64>, tensor<i64>) -> tensor<8xf32>
}

// -----

mpg.graph @stream_too_large {
  %x = mpg.input "x" : tensor<8xf32>
  %s = mpg.input "s" : tensor<i64>
  // expected-error @+1 {{'mpg.dropout' op expects a stream in [0, 2^32), got 4294967296}}
  %y = mpg.dropout %x rate 0.5 key(%s, %s) stream 4294967296 : tensor<8xf32>, tensor<i64>, tensor<i64>
}

// -----

mpg.graph @too_many_elements {
  %x = mpg.input "x" : tensor<131072x131072xf16>
  // expected-error @+1 {{'mpg.dropout' op expects fewer than 2^34 elements (the random counter's range), got 17179869184}}
  %y = mpg.dropout %x rate 0.5 : tensor<131072x131072xf16>
}

// -----

mpg.graph @result_type {
  %x = mpg.input "x" : tensor<8xf32>
  // expected-error @+1 {{'mpg.dropout' op failed to verify that all of {input, result} have same type}}
  %y = "mpg.dropout"(%x) {rate = 0.5 : f64} : (tensor<8xf32>) -> tensor<8xf16>
}

// -----

mpg.graph @seed_of_floats {
  // expected-error @+1 {{'mpg.state' op initializer 'seed' needs an i32 or i64 tensor, got element type 'f32'}}
  %s = mpg.state "s" init(seed) : tensor<f32>
}
