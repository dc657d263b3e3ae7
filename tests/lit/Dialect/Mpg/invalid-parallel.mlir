// RUN: mpc-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the data-parallel op mpg.all_reduce.

mpg.graph @all_reduce_mean_of_integers {
  %n = mpg.input "n" : tensor<3xi32>
  // expected-error @+1 {{'mpg.all_reduce' op takes the mean of float elements only, not 'i32'}}
  %m = mpg.all_reduce mean %n : tensor<3xi32>
}

// -----

mpg.graph @all_reduce_of_i64 {
  %n = mpg.input "n" : tensor<3xi64>
  // expected-error @+1 {{'mpg.all_reduce' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer values, but got 'tensor<3xi64>'}}
  %m = mpg.all_reduce sum %n : tensor<3xi64>
}

// -----

mpg.graph @all_reduce_changes_type {
  %g = mpg.input "g" : tensor<4xf16>
  // expected-error @+1 {{'mpg.all_reduce' op requires the same type for all operands and results}}
  %m = "mpg.all_reduce"(%g) {reduce = 0 : i32} : (tensor<4xf16>) -> tensor<4xf32>
}

// -----

mpg.graph @all_reduce_unknown_reduction {
  %g = mpg.input "g" : tensor<4xf32>
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'reduce' [sum, mean, max]}}
  %m = mpg.all_reduce min %g : tensor<4xf32>
}
