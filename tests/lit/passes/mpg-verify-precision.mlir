// RUN: mpc-opt %s --mpg-verify-precision -split-input-file -verify-diagnostics | FileCheck %s

// Each error mpg-verify-precision reports, on hand-written decisions; graphs
// without mpg.precision_summary (precision not assigned) are not checked.

// CHECK-LABEL: mpg.graph @not_assigned
mpg.graph @not_assigned {
  %x = mpg.input "x" : tensor<4x4xf16>
  %y = mpg.matmul %x, %x : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf16>
  mpg.output "y" %y : tensor<4x4xf16>
}

// -----

// A forced fp32-category op in f16 and a well-formed dot-product pass.
// CHECK-LABEL: mpg.graph @valid
mpg.graph @valid attributes {mpg.precision_summary = {casts_inserted = 0 : i64, casts_removed = 0 : i64, mode = "fp16"}} {
  %x = mpg.input "x" : tensor<4x4xf16>
  %y = mpg.matmul %x, %x {mpg.precision_decision = {accumulate = f32, category = "dot-product", compute = f32, reason = "r", storage = f16}} : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf16>
  %e = mpg.exp %y {mpg.precision_decision = {category = "sensitive", compute = f32, forced, reason = "r", storage = f16}} : tensor<4x4xf16>
  mpg.output "e" %e : tensor<4x4xf16>
}

// -----

mpg.graph @missing attributes {mpg.precision_summary = {casts_inserted = 0 : i64, casts_removed = 0 : i64, mode = "fp16"}} {
  %x = mpg.input "x" : tensor<4x4xf16>
  // expected-error @+1 {{'mpg.matmul' op has no mpg.precision_decision (mpg-assign-precision did not decide its precision)}}
  %y = mpg.matmul %x, %x : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf16>
  mpg.output "y" %y : tensor<4x4xf16>
}

// -----

mpg.graph @incomplete attributes {mpg.precision_summary = {casts_inserted = 0 : i64, casts_removed = 0 : i64, mode = "fp16"}} {
  %x = mpg.input "x" : tensor<4x4xf16>
  // expected-error @+1 {{'mpg.relu' op has an mpg.precision_decision without category, storage, compute and reason}}
  %y = mpg.relu %x {mpg.precision_decision = {category = "follow", compute = f32, storage = f16}} : tensor<4x4xf16>
  mpg.output "y" %y : tensor<4x4xf16>
}

// -----

mpg.graph @no_accumulate attributes {mpg.precision_summary = {casts_inserted = 0 : i64, casts_removed = 0 : i64, mode = "fp16"}} {
  %x = mpg.input "x" : tensor<4x4xf16>
  // expected-error @+1 {{'mpg.matmul' op is a dot-product that does not accumulate in f32}}
  %y = mpg.matmul %x, %x {mpg.precision_decision = {accumulate = f16, category = "dot-product", compute = f32, reason = "r", storage = f16}} : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf16>
  mpg.output "y" %y : tensor<4x4xf16>
}

// -----

mpg.graph @compute_f16 attributes {mpg.precision_summary = {casts_inserted = 0 : i64, casts_removed = 0 : i64, mode = "fp16"}} {
  %x = mpg.input "x" : tensor<4x4xf16>
  // expected-error @+1 {{'mpg.relu' op computes in 'f16'; mixed precision computes in f32}}
  %y = mpg.relu %x {mpg.precision_decision = {category = "follow", compute = f16, reason = "r", storage = f16}} : tensor<4x4xf16>
  mpg.output "y" %y : tensor<4x4xf16>
}

// -----

mpg.graph @storage_mismatch attributes {mpg.precision_summary = {casts_inserted = 0 : i64, casts_removed = 0 : i64, mode = "fp16"}} {
  %x = mpg.input "x" : tensor<4x4xf16>
  // expected-error @+1 {{'mpg.relu' op stores its result in 'f16' but its decision says 'f32'}}
  %y = mpg.relu %x {mpg.precision_decision = {category = "follow", compute = f32, reason = "r", storage = f32}} : tensor<4x4xf16>
  mpg.output "y" %y : tensor<4x4xf16>
}

// -----

mpg.graph @reduction_in_f16 attributes {mpg.precision_summary = {casts_inserted = 0 : i64, casts_removed = 0 : i64, mode = "fp16"}} {
  %x = mpg.input "x" : tensor<4x4xf16>
  // expected-error @+1 {{'mpg.reduce_sum' op is in category 'reduction', which computes in f32, but has a 'f16' operand or result}}
  %y = mpg.reduce_sum %x axes [1] {mpg.precision_decision = {category = "reduction", compute = f32, reason = "r", storage = f16}} : tensor<4x4xf16> -> tensor<4xf16>
  mpg.output "y" %y : tensor<4xf16>
}

// -----

mpg.graph @unknown_category attributes {mpg.precision_summary = {casts_inserted = 0 : i64, casts_removed = 0 : i64, mode = "fp16"}} {
  %x = mpg.input "x" : tensor<4x4xf16>
  // expected-error @+1 {{'mpg.relu' op has unknown precision category 'pointwise'}}
  %y = mpg.relu %x {mpg.precision_decision = {category = "pointwise", compute = f32, reason = "r", storage = f16}} : tensor<4x4xf16>
  mpg.output "y" %y : tensor<4x4xf16>
}
