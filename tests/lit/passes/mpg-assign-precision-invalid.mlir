// RUN: mpc-opt %s --mpg-assign-precision=mode=fp16 -split-input-file -verify-diagnostics
// RUN: mpc-opt %s --mpg-assign-precision=mode=fp32 -split-input-file -verify-diagnostics

// A bad override is an error in every mode, fp32 included.
mpg.graph @bad_override {
  %x = mpg.input "x" : tensor<4xf32>
  // expected-error @+1 {{'mpg.exp' op has mpg.precision = "f8"; expected "f32", "f16" or "bf16"}}
  %e = mpg.exp %x {mpg.precision = "f8"} : tensor<4xf32>
  mpg.output "e" %e : tensor<4xf32>
}

// -----

mpg.graph @override_not_a_string {
  %x = mpg.input "x" : tensor<4xf32>
  // expected-error @+1 {{'mpg.exp' op has mpg.precision = 16 : i64; expected "f32", "f16" or "bf16"}}
  %e = mpg.exp %x {mpg.precision = 16} : tensor<4xf32>
  mpg.output "e" %e : tensor<4xf32>
}
