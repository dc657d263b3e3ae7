// RUN: mpc-opt %s -split-input-file -verify-diagnostics

// Diagnostics of the graph-structure ops: mpg.graph and its uniqueness
// checks, input, param and its initializers, constant, output, minimize and
// its optimizers, state and state_write.

//===----------------------------------------------------------------------===//
// mpg.graph
//===----------------------------------------------------------------------===//

mpg.graph @duplicate_input {
  %a = mpg.input "x" : tensor<4xf32>
  // expected-error @+1 {{'mpg.input' op reuses the input name 'x'; names must be unique within a graph (first used at}}
  %b = mpg.input "x" : tensor<2xi32>
}

// -----

mpg.graph @duplicate_output {
  %x = mpg.input "x" : tensor<4xf32>
  mpg.output "y" %x : tensor<4xf32>
  // expected-error @+1 {{'mpg.output' op reuses the output name 'y'; names must be unique within a graph}}
  mpg.output "y" %x : tensor<4xf32>
}

// -----

mpg.graph @duplicate_param {
  %a = mpg.param "w" init(zeros) : tensor<4xf32>
  // expected-error @+1 {{'mpg.param' op reuses the parameter/state name 'w'; names must be unique within a graph}}
  %b = mpg.param "w" frozen init(ones) : tensor<4xf32>
}

// -----

// Parameters and state share one namespace.
mpg.graph @state_reuses_param_name {
  %a = mpg.param "w" init(zeros) : tensor<4xf32>
  // expected-error @+1 {{'mpg.state' op reuses the parameter/state name 'w'}}
  %b = mpg.state "w" init(zeros) : tensor<4xf32>
}

// -----

mpg.graph @param_reuses_state_name {
  %a = mpg.state "step" init(zeros) : tensor<i64>
  // expected-error @+1 {{'mpg.param' op reuses the parameter/state name 'step'}}
  %b = mpg.param "step" init(zeros) : tensor<f32>
}

// -----

mpg.graph @duplicate_state {
  %a = mpg.state "s" init(zeros) : tensor<i64>
  // expected-error @+1 {{'mpg.state' op reuses the parameter/state name 's'}}
  %b = mpg.state "s" init(ones) : tensor<i64>
}

// -----

mpg.graph @state_written_twice {
  %s = mpg.state "s" init(zeros) : tensor<4xf32>
  %x = mpg.input "x" : tensor<4xf32>
  mpg.state_write %s, %x : tensor<4xf32>
  // expected-error @+1 {{'mpg.state_write' op writes state 's' a second time; each state is written at most once per step (first write at}}
  mpg.state_write %s, %s : tensor<4xf32>
}

// -----

mpg.graph @two_minimize {
  %l = mpg.input "loss" : tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 1.0) : tensor<f32>
  // expected-error @+1 {{'mpg.minimize' op is the second mpg.minimize of graph @two_minimize; a graph has at most one (first at}}
  mpg.minimize %l optimizer(adam, lr = 1.0) : tensor<f32>
}

// -----

// expected-note @+1 {{see existing symbol definition here}}
mpg.graph @g {
}
// expected-error @+1 {{redefinition of symbol named 'g'}}
mpg.graph @g {
}

// -----

mpg.graph @outer {
  // expected-error @+1 {{'mpg.graph' op symbol's parent must have the SymbolTable trait}}
  mpg.graph @inner {
  }
}

// -----

%c = mpg.constant dense<1.0> : tensor<f32>
// expected-note @+1 {{required by region isolation constraints}}
mpg.graph @isolated {
  // expected-error @+1 {{'mpg.output' op using value defined outside the region}}
  mpg.output "c" %c : tensor<f32>
}

// -----

// expected-error @+1 {{'mpg.graph' op requires attribute 'sym_name'}}
"mpg.graph"() ({
}) : () -> ()

//===----------------------------------------------------------------------===//
// mpg.input
//===----------------------------------------------------------------------===//

// -----

mpg.graph @input_empty_name {
  // expected-error @+1 {{'mpg.input' op expects a non-empty name}}
  %x = mpg.input "" : tensor<4xf32>
}

// -----

mpg.graph @input_dynamic_shape {
  // expected-error @+1 {{'mpg.input' op result #0 must be statically shaped tensor of}}
  %x = mpg.input "x" : tensor<?x4xf32>
}

// -----

mpg.graph @input_bad_element_type {
  // expected-error @+1 {{'mpg.input' op result #0 must be statically shaped tensor of}}
  %x = mpg.input "x" : tensor<4xi8>
}

// -----

// expected-error @+1 {{'mpg.input' op expects parent op 'mpg.graph'}}
%x = mpg.input "x" : tensor<4xf32>

//===----------------------------------------------------------------------===//
// mpg.output
//===----------------------------------------------------------------------===//

// -----

mpg.graph @output_empty_name {
  %x = mpg.input "x" : tensor<4xf32>
  // expected-error @+1 {{'mpg.output' op expects a non-empty name}}
  mpg.output "" %x : tensor<4xf32>
}

// -----

%c = mpg.constant dense<1.0> : tensor<f32>
// expected-error @+1 {{'mpg.output' op expects parent op 'mpg.graph'}}
mpg.output "c" %c : tensor<f32>

//===----------------------------------------------------------------------===//
// mpg.constant
//===----------------------------------------------------------------------===//

// -----

mpg.graph @constant_bad_element_type {
  // expected-error @+1 {{'mpg.constant' op result #0 must be statically shaped tensor of}}
  %c = mpg.constant dense<1> : tensor<2xi8>
}

// -----

mpg.graph @constant_type_mismatch {
  // expected-error @+1 {{'mpg.constant' op failed to verify that all of {value, result} have same type}}
  %c = "mpg.constant"() <{value = dense<1> : tensor<2xi32>}> : () -> tensor<3xi32>
}

// -----

mpg.graph @constant_not_elements {
  // expected-error @+1 {{'mpg.constant' op attribute 'value' failed to satisfy constraint: constant vector/tensor attribute}}
  %c = "mpg.constant"() {value = 1.0 : f32} : () -> tensor<f32>
}

//===----------------------------------------------------------------------===//
// mpg.param and the initializer attribute
//===----------------------------------------------------------------------===//

// -----

mpg.graph @param_empty_name {
  // expected-error @+1 {{'mpg.param' op expects a non-empty name}}
  %w = mpg.param "" init(zeros) : tensor<4xf32>
}

// -----

mpg.graph @param_integer {
  // expected-error @+1 {{'mpg.param' op result #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %w = mpg.param "w" init(zeros) : tensor<4xi32>
}

// -----

mpg.graph @param_missing_init {
  // expected-error @+1 {{'mpg.param' op requires attribute 'init'}}
  %w = "mpg.param"() <{name = "w"}> : () -> tensor<4xf32>
}

// -----

// expected-error @+1 {{'mpg.param' op expects parent op 'mpg.graph'}}
%w = mpg.param "w" init(zeros) : tensor<4xf32>

// -----

mpg.graph @glorot_rank1 {
  // expected-error @+1 {{'mpg.param' op initializer 'glorot_uniform' needs a tensor of rank >= 2 to define its fans, got rank 1}}
  %w = mpg.param "w" init(glorot_uniform) : tensor<4xf32>
}

// -----

mpg.graph @he_normal_rank0 {
  // expected-error @+1 {{'mpg.param' op initializer 'he_normal' needs a tensor of rank >= 2 to define its fans, got rank 0}}
  %w = mpg.param "w" init(he_normal, gain = 2.0) : tensor<f32>
}

// -----

mpg.graph @unknown_initializer {
  // expected-error @+1 {{unknown initializer 'xavier'; expected one of: zeros, ones, constant, normal, uniform, glorot_uniform, he_normal}}
  %w = mpg.param "w" init(xavier) : tensor<4x4xf32>
}

// -----

mpg.graph @initializer_argument_twice {
  // expected-error @+1 {{argument 'std' is given twice}}
  %w = mpg.param "w" init(normal, std = 1.0, std = 2.0) : tensor<4x4xf32>
}

// -----

mpg.graph @initializer_missing_kind {
  // expected-error @+1 {{expected valid keyword}}
  %w = mpg.param "w" init() : tensor<4x4xf32>
}

// -----

mpg.graph @initializer_missing_value {
  // expected-error @+1 {{expected attribute value}}
  %w = mpg.param "w" init(normal, std = ) : tensor<4x4xf32>
}

// -----

mpg.graph @initializer_missing_comma {
  // expected-error @+1 {{expected ')'}}
  %w = mpg.param "w" init(normal std = 1.0) : tensor<4x4xf32>
}

// -----

mpg.graph @zeros_takes_no_arguments {
  // expected-error @+1 {{unknown argument 'value' for initializer 'zeros'; it takes no arguments}}
  %w = mpg.param "w" init(zeros, value = 0.0) : tensor<4xf32>
}

// -----

mpg.graph @ones_takes_no_arguments {
  // expected-error @+1 {{unknown argument 'gain' for initializer 'ones'; it takes no arguments}}
  %w = mpg.param "w" init(ones, gain = 1.0) : tensor<4xf32>
}

// -----

mpg.graph @constant_unknown_argument {
  // expected-error @+1 {{unknown argument 'mean' for initializer 'constant'; expected one of: value}}
  %w = mpg.param "w" init(constant, value = 1.0, mean = 1.0) : tensor<4xf32>
}

// -----

mpg.graph @normal_unknown_argument {
  // expected-error @+1 {{unknown argument 'stddev' for initializer 'normal'; expected one of: mean, std}}
  %w = mpg.param "w" init(normal, stddev = 1.0) : tensor<4xf32>
}

// -----

mpg.graph @uniform_unknown_argument {
  // expected-error @+1 {{unknown argument 'std' for initializer 'uniform'; expected one of: low, high}}
  %w = mpg.param "w" init(uniform, std = 1.0) : tensor<4xf32>
}

// -----

mpg.graph @glorot_unknown_argument {
  // expected-error @+1 {{unknown argument 'scale' for initializer 'glorot_uniform'; expected one of: gain}}
  %w = mpg.param "w" init(glorot_uniform, scale = 1.0) : tensor<4x4xf32>
}

// -----

mpg.graph @he_normal_unknown_argument {
  // expected-error @+1 {{unknown argument 'mean' for initializer 'he_normal'; expected one of: gain}}
  %w = mpg.param "w" init(he_normal, mean = 0.0) : tensor<4x4xf32>
}

// -----

mpg.graph @constant_requires_value {
  // expected-error @+1 {{initializer 'constant' requires argument 'value'}}
  %w = mpg.param "w" init(constant) : tensor<4xf32>
}

// -----

mpg.graph @argument_string {
  // expected-error @+1 {{argument 'value' of initializer 'constant' must be a number}}
  %w = mpg.param "w" init(constant, value = "one") : tensor<4xf32>
}

// -----

// A boolean is not a number.
mpg.graph @argument_bool {
  // expected-error @+1 {{argument 'mean' of initializer 'normal' must be a number}}
  %w = mpg.param "w" init(normal, mean = true) : tensor<4xf32>
}

// -----

mpg.graph @argument_array {
  // expected-error @+1 {{argument 'gain' of initializer 'glorot_uniform' must be a number}}
  %w = mpg.param "w" init(glorot_uniform, gain = [1.0]) : tensor<4x4xf32>
}

// -----

mpg.graph @argument_infinite {
  // expected-error @+1 {{argument 'value' of initializer 'constant' must be finite}}
  %w = mpg.param "w" init(constant, value = 0x7FF0000000000000 : f64) : tensor<4xf32>
}

// -----

mpg.graph @argument_nan {
  // expected-error @+1 {{argument 'low' of initializer 'uniform' must be finite}}
  %w = mpg.param "w" init(uniform, low = 0x7FF8000000000000 : f64) : tensor<4xf32>
}

// -----

mpg.graph @normal_std_zero {
  // expected-error @+1 {{initializer 'normal' expects std > 0}}
  %w = mpg.param "w" init(normal, std = 0.0) : tensor<4xf32>
}

// -----

mpg.graph @normal_std_negative {
  // expected-error @+1 {{initializer 'normal' expects std > 0}}
  %w = mpg.param "w" init(normal, mean = 1.0, std = -1) : tensor<4xf32>
}

// -----

mpg.graph @uniform_low_equals_high {
  // expected-error @+1 {{initializer 'uniform' expects low < high}}
  %w = mpg.param "w" init(uniform, low = 2.0, high = 2.0) : tensor<4xf32>
}

// -----

// high defaults to 1.
mpg.graph @uniform_low_above_default_high {
  // expected-error @+1 {{initializer 'uniform' expects low < high}}
  %w = mpg.param "w" init(uniform, low = 1.5) : tensor<4xf32>
}

// -----

mpg.graph @glorot_gain_negative {
  // expected-error @+1 {{initializer 'glorot_uniform' expects gain > 0}}
  %w = mpg.param "w" init(glorot_uniform, gain = -1.0) : tensor<4x4xf32>
}

// -----

mpg.graph @he_normal_gain_zero {
  // expected-error @+1 {{initializer 'he_normal' expects gain > 0}}
  %w = mpg.param "w" init(he_normal, gain = 0) : tensor<4x4xf32>
}

// -----

// The attribute verifier also runs on the attribute syntax.
mpg.graph @init_attribute_syntax {
  // expected-error @+1 {{initializer 'normal' expects std > 0}}
  %w = "mpg.param"() <{init = #mpg.init<normal, {std = -1.0 : f64}>, name = "w"}> : () -> tensor<4xf32>
}

// -----

mpg.graph @init_attribute_unknown_kind {
  // expected-error @+2 {{expected ::mlir::mpg::InitKind to be one of: zeros, ones, constant, normal, uniform, glorot_uniform, he_normal}}
  // expected-error @+1 {{failed to parse Mpg_InitializerAttr parameter 'kind'}}
  %w = "mpg.param"() <{init = #mpg.init<xavier, {}>, name = "w"}> : () -> tensor<4xf32>
}

// -----

mpg.graph @init_attribute_unknown_argument {
  // expected-error @+1 {{unknown argument 'value' for initializer 'ones'; it takes no arguments}}
  %w = "mpg.param"() <{init = #mpg.init<ones, {value = 1.0 : f64}>, name = "w"}> : () -> tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// mpg.state and mpg.state_write
//===----------------------------------------------------------------------===//

// -----

mpg.graph @state_empty_name {
  // expected-error @+1 {{'mpg.state' op expects a non-empty name}}
  %s = mpg.state "" init(zeros) : tensor<i64>
}

// -----

mpg.graph @state_bad_element_type {
  // expected-error @+1 {{'mpg.state' op result #0 must be statically shaped tensor of}}
  %s = mpg.state "s" init(zeros) : tensor<i16>
}

// -----

// expected-error @+1 {{'mpg.state' op expects parent op 'mpg.graph'}}
%s = mpg.state "s" init(zeros) : tensor<i64>

// -----

mpg.graph @state_normal_integer {
  // expected-error @+1 {{'mpg.state' op initializer 'normal' needs a float tensor, got element type 'i64'}}
  %s = mpg.state "s" init(normal) : tensor<4xi64>
}

// -----

mpg.graph @state_uniform_integer {
  // expected-error @+1 {{'mpg.state' op initializer 'uniform' needs a float tensor, got element type 'i32'}}
  %s = mpg.state "s" init(uniform, low = -1.0) : tensor<4xi32>
}

// -----

mpg.graph @state_glorot_bool {
  // expected-error @+1 {{'mpg.state' op initializer 'glorot_uniform' needs a float tensor, got element type 'i1'}}
  %s = mpg.state "s" init(glorot_uniform) : tensor<4x4xi1>
}

// -----

mpg.graph @state_he_normal_integer {
  // expected-error @+1 {{'mpg.state' op initializer 'he_normal' needs a float tensor, got element type 'i32'}}
  %s = mpg.state "s" init(he_normal) : tensor<4x4xi32>
}

// -----

mpg.graph @state_glorot_rank1 {
  // expected-error @+1 {{'mpg.state' op initializer 'glorot_uniform' needs a tensor of rank >= 2 to define its fans, got rank 1}}
  %s = mpg.state "s" init(glorot_uniform) : tensor<4xf32>
}

// -----

mpg.graph @state_initializer_error {
  // expected-error @+1 {{initializer 'constant' requires argument 'value'}}
  %s = mpg.state "s" init(constant) : tensor<i64>
}

// -----

mpg.graph @state_write_to_input {
  %x = mpg.input "x" : tensor<4xf32>
  // expected-error @+1 {{'mpg.state_write' op expects its first operand to be the result of an mpg.state}}
  mpg.state_write %x, %x : tensor<4xf32>
}

// -----

mpg.graph @state_write_to_constant {
  %c = mpg.constant dense<1.0> : tensor<4xf32>
  %x = mpg.input "x" : tensor<4xf32>
  // expected-error @+1 {{'mpg.state_write' op expects its first operand to be the result of an mpg.state or an mpg.param}}
  mpg.state_write %c, %x : tensor<4xf32>
}

// -----

mpg.graph @state_write_type_mismatch {
  %s = mpg.state "s" init(zeros) : tensor<4xf32>
  %x = mpg.input "x" : tensor<4xf16>
  // expected-error @+1 {{'mpg.state_write' op failed to verify that all of {state, value} have same type}}
  "mpg.state_write"(%s, %x) : (tensor<4xf32>, tensor<4xf16>) -> ()
}

// -----

mpg.graph @state_write_value_type {
  %s = mpg.state "s" init(zeros) : tensor<4xf32>
  // expected-note @+1 {{prior use here}}
  %x = mpg.input "x" : tensor<4xf16>
  // expected-error @+1 {{use of value '%x' expects different type than prior uses: 'tensor<4xf32>' vs 'tensor<4xf16>'}}
  mpg.state_write %s, %x : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// mpg.minimize and the optimizer attribute
//===----------------------------------------------------------------------===//

// -----

mpg.graph @minimize_non_scalar {
  %l = mpg.input "loss" : tensor<4xf32>
  // expected-error @+1 {{'mpg.minimize' op operand #0 must be 0D tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xf32>'}}
  mpg.minimize %l optimizer(sgd, lr = 1.0) : tensor<4xf32>
}

// -----

mpg.graph @minimize_integer {
  %l = mpg.input "loss" : tensor<i32>
  // expected-error @+1 {{'mpg.minimize' op operand #0 must be 0D tensor of}}
  mpg.minimize %l optimizer(sgd, lr = 1.0) : tensor<i32>
}

// -----

%l = mpg.constant dense<1.0> : tensor<f32>
// expected-error @+1 {{'mpg.minimize' op expects parent op 'mpg.graph'}}
mpg.minimize %l optimizer(sgd, lr = 1.0) : tensor<f32>

// -----

mpg.graph @unknown_optimizer {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{unknown optimizer 'rmsprop'; expected one of: sgd, adam, adamw}}
  mpg.minimize %l optimizer(rmsprop, lr = 1.0) : tensor<f32>
}

// -----

mpg.graph @optimizer_argument_twice {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{argument 'lr' is given twice}}
  mpg.minimize %l optimizer(sgd, lr = 1.0, lr = 2.0) : tensor<f32>
}

// -----

mpg.graph @sgd_requires_lr {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{optimizer 'sgd' requires argument 'lr'}}
  mpg.minimize %l optimizer(sgd, momentum = 0.9) : tensor<f32>
}

// -----

mpg.graph @adam_requires_lr {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{optimizer 'adam' requires argument 'lr'}}
  mpg.minimize %l optimizer(adam) : tensor<f32>
}

// -----

mpg.graph @adamw_requires_lr {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{optimizer 'adamw' requires argument 'lr'}}
  mpg.minimize %l optimizer(adamw, weight_decay = 0.1) : tensor<f32>
}

// -----

mpg.graph @sgd_unknown_argument {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{unknown argument 'beta1' for optimizer 'sgd'; expected one of: lr, momentum, nesterov, weight_decay}}
  mpg.minimize %l optimizer(sgd, lr = 1.0, beta1 = 0.9) : tensor<f32>
}

// -----

mpg.graph @adam_unknown_argument {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{unknown argument 'momentum' for optimizer 'adam'; expected one of: lr, beta1, beta2, eps, weight_decay}}
  mpg.minimize %l optimizer(adam, lr = 1.0, momentum = 0.9) : tensor<f32>
}

// -----

mpg.graph @adamw_unknown_argument {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{unknown argument 'nesterov' for optimizer 'adamw'; expected one of: lr, beta1, beta2, eps, weight_decay}}
  mpg.minimize %l optimizer(adamw, lr = 1.0, nesterov = true) : tensor<f32>
}

// -----

mpg.graph @lr_not_a_number {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{argument 'lr' of optimizer 'adam' must be a number}}
  mpg.minimize %l optimizer(adam, lr = "fast") : tensor<f32>
}

// -----

mpg.graph @nesterov_not_a_bool {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{argument 'nesterov' of optimizer 'sgd' must be true or false}}
  mpg.minimize %l optimizer(sgd, lr = 1.0, momentum = 0.9, nesterov = 1) : tensor<f32>
}

// -----

mpg.graph @lr_infinite {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{argument 'lr' of optimizer 'sgd' must be finite}}
  mpg.minimize %l optimizer(sgd, lr = 0x7FF0000000000000 : f64) : tensor<f32>
}

// -----

mpg.graph @lr_zero {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{optimizer 'sgd' expects lr > 0}}
  mpg.minimize %l optimizer(sgd, lr = 0.0) : tensor<f32>
}

// -----

mpg.graph @lr_negative {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{optimizer 'adamw' expects lr > 0}}
  mpg.minimize %l optimizer(adamw, lr = -1.0e-3) : tensor<f32>
}

// -----

mpg.graph @sgd_weight_decay_negative {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{optimizer 'sgd' expects weight_decay >= 0}}
  mpg.minimize %l optimizer(sgd, lr = 1.0, weight_decay = -1.0) : tensor<f32>
}

// -----

mpg.graph @adam_weight_decay_negative {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{optimizer 'adam' expects weight_decay >= 0}}
  mpg.minimize %l optimizer(adam, lr = 1.0, weight_decay = -1.0e-2) : tensor<f32>
}

// -----

mpg.graph @momentum_one {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{optimizer 'sgd' expects momentum in [0, 1), got 1.000000e+00}}
  mpg.minimize %l optimizer(sgd, lr = 1.0, momentum = 1.0) : tensor<f32>
}

// -----

mpg.graph @momentum_negative {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{optimizer 'sgd' expects momentum in [0, 1), got -5.000000e-01}}
  mpg.minimize %l optimizer(sgd, lr = 1.0, momentum = -0.5) : tensor<f32>
}

// -----

mpg.graph @nesterov_without_momentum {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{optimizer 'sgd' with nesterov requires momentum > 0}}
  mpg.minimize %l optimizer(sgd, lr = 1.0, nesterov = true) : tensor<f32>
}

// -----

mpg.graph @nesterov_zero_momentum {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{optimizer 'sgd' with nesterov requires momentum > 0}}
  mpg.minimize %l optimizer(sgd, lr = 1.0, momentum = 0.0, nesterov = true) : tensor<f32>
}

// -----

mpg.graph @beta1_one {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{optimizer 'adam' expects beta1 in [0, 1), got 1.000000e+00}}
  mpg.minimize %l optimizer(adam, lr = 1.0, beta1 = 1.0) : tensor<f32>
}

// -----

mpg.graph @beta2_negative {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{optimizer 'adamw' expects beta2 in [0, 1), got -1.000000e-01}}
  mpg.minimize %l optimizer(adamw, lr = 1.0, beta2 = -0.1) : tensor<f32>
}

// -----

mpg.graph @eps_zero {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{optimizer 'adam' expects eps > 0}}
  mpg.minimize %l optimizer(adam, lr = 1.0, eps = 0.0) : tensor<f32>
}

// -----

mpg.graph @eps_negative {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{optimizer 'adamw' expects eps > 0}}
  mpg.minimize %l optimizer(adamw, lr = 1.0, eps = -1.0e-8) : tensor<f32>
}

// -----

// The attribute verifier also runs on the attribute syntax.
mpg.graph @optimizer_attribute_syntax {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{optimizer 'adam' expects eps > 0}}
  "mpg.minimize"(%l) <{optimizer = #mpg.optimizer<adam, {lr = 1.0 : f64, eps = -1.0 : f64}>}> : (tensor<f32>) -> ()
}

// -----

mpg.graph @optimizer_attribute_unknown_kind {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+2 {{expected ::mlir::mpg::OptimizerKind to be one of: sgd, adam, adamw}}
  // expected-error @+1 {{failed to parse Mpg_OptimizerAttr parameter 'kind'}}
  "mpg.minimize"(%l) <{optimizer = #mpg.optimizer<lamb, {lr = 1.0 : f64}>}> : (tensor<f32>) -> ()
}

// -----

mpg.graph @optimizer_wrong_attribute {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{Invalid attribute `optimizer` in property conversion}}
  "mpg.minimize"(%l) <{optimizer = #mpg.init<zeros, {}>}> : (tensor<f32>) -> ()
}

// -----

mpg.graph @init_argument_with_type_suffix {
  // expected-error @+1 {{argument 'low' of initializer 'uniform' must be a number (a literal without a type suffix)}}
  %w = mpg.param "w" init(uniform, low = 3000000000 : ui32, high = 1.0) : tensor<4xf32>
}

// -----

mpg.graph @optimizer_argument_with_type_suffix {
  %l = mpg.input "l" : tensor<f32>
  // expected-error @+1 {{argument 'lr' of optimizer 'sgd' must be a number (a literal without a type suffix)}}
  mpg.minimize %l optimizer(sgd, lr = 1.0e-3 : f32) : tensor<f32>
}

// -----

mpg.graph @constant_init_not_integral {
  // expected-error @+1 {{'mpg.state' op initializer 'constant' value 1.500000e+00 is not representable in 'i32'}}
  %s = mpg.state "s" init(constant, value = 1.5) : tensor<i32>
}

// -----

mpg.graph @constant_init_not_boolean {
  // expected-error @+1 {{'mpg.state' op initializer 'constant' value 2.000000e+00 is not a boolean (0 or 1)}}
  %s = mpg.state "s" init(constant, value = 2) : tensor<i1>
}

// -----

mpg.graph @negative_clip_grad_norm {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{optimizer 'adam' expects clip_grad_norm to be a finite number >= 0 (0: no clipping), got -1}}
  mpg.minimize %l optimizer(adam, lr = 1.0, clip_grad_norm = -1.0) : tensor<f32>
}

// -----

mpg.graph @zero_accumulate_steps {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{optimizer 'sgd' expects accumulate_steps to be a whole number in [1, 1048576] (1: no accumulation), got 0}}
  mpg.minimize %l optimizer(sgd, lr = 1.0, accumulate_steps = 0) : tensor<f32>
}

// -----

mpg.graph @fractional_accumulate_steps {
  %l = mpg.input "loss" : tensor<f32>
  // expected-error @+1 {{optimizer 'adamw' expects accumulate_steps to be a whole number in [1, 1048576] (1: no accumulation), got 2.5}}
  mpg.minimize %l optimizer(adamw, lr = 1.0, accumulate_steps = 2.5) : tensor<f32>
}
