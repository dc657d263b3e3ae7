// RUN: mpc-opt %s --mpg-assign-precision=mode=fp16 -split-input-file -verify-diagnostics
// RUN: not mpc-opt %s --mpg-assign-precision=mode=fp32 -split-input-file -verify-diagnostics 2>&1 | FileCheck %s --check-prefix=FP32
// FP32: expected warning "converted to 'f16'{{.*}}" was not produced

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

// -----

// A constant that a low-precision user needs but fp16 cannot hold is warned
// about (in fp16 mode only: in fp32 it is not converted).
mpg.graph @lossy_constant {
  %x = mpg.input "x" : tensor<2x4xf32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<4x4xf32>
  // expected-warning @+1 {{converted to 'f16' for its users, this constant overflows to infinity; keep them in f32 with mpg.precision = "f32"}}
  %big = mpg.constant dense<-1.0e9> : tensor<f32>
  %y = mpg.matmul %x, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %z = mpg.add %y, %big : tensor<2x4xf32>, tensor<f32> -> tensor<2x4xf32>
  mpg.output "z" %z : tensor<2x4xf32>
}
