// RUN: mpc-opt %s | mpc-opt | FileCheck %s
// RUN: mpc-opt %s -mlir-print-op-generic | mpc-opt | FileCheck %s

// Round-trip tests of the graph-structure ops: mpg.graph, input, param (every
// initializer kind and argument), constant, output, minimize (every optimizer
// kind and hyper-parameter), state and state_write.

// CHECK-LABEL: mpg.graph @linear {
// CHECK-NEXT:    %[[X:.+]] = mpg.input "x" : tensor<8x4xf32>
// CHECK-NEXT:    %[[Y:.+]] = mpg.input "y" : tensor<8xi32>
// CHECK-NEXT:    %[[W:.+]] = mpg.param "w" init(glorot_uniform) : tensor<4x3xf32>
// CHECK-NEXT:    %[[L:.+]] = mpg.matmul %[[X]], %[[W]] : tensor<8x4xf32>, tensor<4x3xf32> -> tensor<8x3xf32>
// CHECK-NEXT:    %[[LOSS:.+]] = mpg.softmax_cross_entropy %[[L]], %[[Y]] : tensor<8x3xf32>, tensor<8xi32> -> tensor<f32>
// CHECK-NEXT:    mpg.output "logits" %[[L]] : tensor<8x3xf32>
// CHECK-NEXT:    mpg.minimize %[[LOSS]] optimizer(sgd, lr = 1.000000e-01) : tensor<f32>
// CHECK-NEXT:  }
mpg.graph @linear {
  %x = mpg.input "x" : tensor<8x4xf32>
  %y = mpg.input "y" : tensor<8xi32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<4x3xf32>
  %logits = mpg.matmul %x, %w : tensor<8x4xf32>, tensor<4x3xf32> -> tensor<8x3xf32>
  %loss = mpg.softmax_cross_entropy %logits, %y : tensor<8x3xf32>, tensor<8xi32> -> tensor<f32>
  mpg.output "logits" %logits : tensor<8x3xf32>
  mpg.minimize %loss optimizer(sgd, lr = 1.000000e-01) : tensor<f32>
}

// An empty graph (no minimize: inference only).
// CHECK-LABEL: mpg.graph @empty {
// CHECK-NEXT:  }
mpg.graph @empty {
}

// CHECK-LABEL: mpg.graph @graph_attributes attributes {mpc.tag = "t"} {
// CHECK-NEXT:    %[[X:.+]] = mpg.input "x" {mpc.note = 1 : i64} : tensor<4xf32>
// CHECK-NEXT:    mpg.output "x" %[[X]] {mpc.out} : tensor<4xf32>
// CHECK-NEXT:  }
mpg.graph @graph_attributes attributes {mpc.tag = "t"} {
  %x = mpg.input "x" {mpc.note = 1 : i64} : tensor<4xf32>
  mpg.output "x" %x {mpc.out} : tensor<4xf32>
}

// Results of input/param/state are named after their name string (sanitised
// and uniqued by the printer).
// CHECK-LABEL: mpg.graph @result_names {
// CHECK-NEXT:    %[[A:x]] = mpg.input "x" : tensor<4xf32>
// CHECK-NEXT:    %[[B:x_0]] = mpg.param "x" init(zeros) : tensor<4xf32>
// CHECK-NEXT:    %[[C:fc1.weight]] = mpg.param "fc1.weight" init(ones) : tensor<4xf32>
// CHECK-NEXT:    %[[D:_0]] = mpg.input "0" : tensor<4xf32>
// CHECK-NEXT:    %[[E:x_y]] = mpg.state "x y" init(zeros) : tensor<4xf32>
// CHECK-NEXT:    %[[S:.+]] = mpg.add %[[A]], %[[B]] : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    mpg.output "x" %[[S]] : tensor<4xf32>
// CHECK-NEXT:    mpg.output "fc1.weight" %[[C]] : tensor<4xf32>
// CHECK-NEXT:    mpg.output "0" %[[D]] : tensor<4xf32>
// CHECK-NEXT:    mpg.output "x y" %[[E]] : tensor<4xf32>
// CHECK-NEXT:  }
mpg.graph @result_names {
  %a = mpg.input "x" : tensor<4xf32>
  %b = mpg.param "x" init(zeros) : tensor<4xf32>
  %c = mpg.param "fc1.weight" init(ones) : tensor<4xf32>
  %d = mpg.input "0" : tensor<4xf32>
  %e = mpg.state "x y" init(zeros) : tensor<4xf32>
  %s = mpg.add %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  mpg.output "x" %s : tensor<4xf32>
  mpg.output "fc1.weight" %c : tensor<4xf32>
  mpg.output "0" %d : tensor<4xf32>
  mpg.output "x y" %e : tensor<4xf32>
}

// Every element type and rank-0 inputs.
// CHECK-LABEL: mpg.graph @input_types {
// CHECK-NEXT:    mpg.input "f16" : tensor<2x3xf16>
// CHECK-NEXT:    mpg.input "bf16" : tensor<2x3xbf16>
// CHECK-NEXT:    mpg.input "f32" : tensor<2x3xf32>
// CHECK-NEXT:    mpg.input "f64" : tensor<2x3xf64>
// CHECK-NEXT:    mpg.input "i32" : tensor<2x3xi32>
// CHECK-NEXT:    mpg.input "i64" : tensor<2x3xi64>
// CHECK-NEXT:    mpg.input "i1" : tensor<2x3xi1>
// CHECK-NEXT:    mpg.input "scalar" : tensor<f32>
// CHECK-NEXT:    mpg.input "flag" : tensor<i1>
// CHECK-NEXT:    mpg.input "rank5" : tensor<1x2x3x4x5xf32>
// CHECK-NEXT:    mpg.input "empty" : tensor<0x4xf32>
// CHECK-NEXT:  }
mpg.graph @input_types {
  %0 = mpg.input "f16" : tensor<2x3xf16>
  %1 = mpg.input "bf16" : tensor<2x3xbf16>
  %2 = mpg.input "f32" : tensor<2x3xf32>
  %3 = mpg.input "f64" : tensor<2x3xf64>
  %4 = mpg.input "i32" : tensor<2x3xi32>
  %5 = mpg.input "i64" : tensor<2x3xi64>
  %6 = mpg.input "i1" : tensor<2x3xi1>
  %7 = mpg.input "scalar" : tensor<f32>
  %8 = mpg.input "flag" : tensor<i1>
  %9 = mpg.input "rank5" : tensor<1x2x3x4x5xf32>
  %10 = mpg.input "empty" : tensor<0x4xf32>
}

// Every initializer kind, with defaults and with every argument. Arguments
// print sorted by name, without types, numbers in exponent form.
// CHECK-LABEL: mpg.graph @param_initializers {
// CHECK-NEXT:    mpg.param "zeros" init(zeros) : tensor<4xf32>
// CHECK-NEXT:    mpg.param "ones" init(ones) : tensor<4xf32>
// CHECK-NEXT:    mpg.param "const" init(constant, value = 2.500000e-01) : tensor<4xf32>
// CHECK-NEXT:    mpg.param "const_neg" init(constant, value = -3.000000e+00) : tensor<4xf32>
// CHECK-NEXT:    mpg.param "const_int" init(constant, value = 3) : tensor<4xf32>
// CHECK-NEXT:    mpg.param "normal" init(normal) : tensor<4xf32>
// CHECK-NEXT:    mpg.param "normal_std" init(normal, std = 2.000000e-02) : tensor<4xf32>
// CHECK-NEXT:    mpg.param "normal_both" init(normal, mean = -1.000000e+00, std = 5.000000e-01) : tensor<4xf32>
// CHECK-NEXT:    mpg.param "normal_int" init(normal, mean = 0, std = 2) : tensor<4xf32>
// CHECK-NEXT:    mpg.param "uniform" init(uniform) : tensor<4xf32>
// CHECK-NEXT:    mpg.param "uniform_args" init(uniform, high = 5.000000e-01, low = -5.000000e-01) : tensor<4xf32>
// CHECK-NEXT:    mpg.param "uniform_high" init(uniform, high = 2.000000e+00) : tensor<4xf32>
// CHECK-NEXT:    mpg.param "glorot" init(glorot_uniform) : tensor<4x8xf32>
// CHECK-NEXT:    mpg.param "glorot_gain" init(glorot_uniform, gain = 1.414000e+00) : tensor<16x3x3x3xf32>
// CHECK-NEXT:    mpg.param "he" init(he_normal) : tensor<16x3x3x3xf32>
// CHECK-NEXT:    mpg.param "he_gain" init(he_normal, gain = 1.000000e+00) : tensor<4x8xf32>
// CHECK-NEXT:  }
mpg.graph @param_initializers {
  %0 = mpg.param "zeros" init(zeros) : tensor<4xf32>
  %1 = mpg.param "ones" init(ones) : tensor<4xf32>
  %2 = mpg.param "const" init(constant, value = 0.25) : tensor<4xf32>
  %3 = mpg.param "const_neg" init(constant, value = -3.0) : tensor<4xf32>
  %4 = mpg.param "const_int" init(constant, value = 3) : tensor<4xf32>
  %5 = mpg.param "normal" init(normal) : tensor<4xf32>
  %6 = mpg.param "normal_std" init(normal, std = 2.000000e-02) : tensor<4xf32>
  %7 = mpg.param "normal_both" init(normal, std = 0.5, mean = -1.0) : tensor<4xf32>
  %8 = mpg.param "normal_int" init(normal, mean = 0, std = 2) : tensor<4xf32>
  %9 = mpg.param "uniform" init(uniform) : tensor<4xf32>
  %10 = mpg.param "uniform_args" init(uniform, low = -0.5, high = 0.5) : tensor<4xf32>
  %11 = mpg.param "uniform_high" init(uniform, high = 2.0) : tensor<4xf32>
  %12 = mpg.param "glorot" init(glorot_uniform) : tensor<4x8xf32>
  %13 = mpg.param "glorot_gain" init(glorot_uniform, gain = 1.414) : tensor<16x3x3x3xf32>
  %14 = mpg.param "he" init(he_normal) : tensor<16x3x3x3xf32>
  %15 = mpg.param "he_gain" init(he_normal, gain = 1.0) : tensor<4x8xf32>
}

// frozen, every float element type, rank-0 parameters, and an initializer
// written as an attribute in the generic form.
// CHECK-LABEL: mpg.graph @param_forms {
// CHECK-NEXT:    %[[E:.+]] = mpg.param "embed" frozen init(normal, std = 2.000000e-02) : tensor<96x32xf32>
// CHECK-NEXT:    mpg.param "h" init(zeros) : tensor<8xf16>
// CHECK-NEXT:    mpg.param "b" frozen init(ones) : tensor<8xbf16>
// CHECK-NEXT:    mpg.param "d" init(uniform, high = 1.000000e-01, low = -1.000000e-01) : tensor<8x8xf64>
// CHECK-NEXT:    mpg.param "s" init(constant, value = 1.000000e+00) : tensor<f32>
// CHECK-NEXT:    mpg.param "g" init(normal, std = 2.000000e-02) : tensor<4x4xf32>
// CHECK-NEXT:    mpg.param "n" init(zeros) {mpc.note} : tensor<2xf32>
// CHECK-NEXT:    mpg.output "e" %[[E]] : tensor<96x32xf32>
// CHECK-NEXT:  }
mpg.graph @param_forms {
  %e = mpg.param "embed" frozen init(normal, std = 2.000000e-02) : tensor<96x32xf32>
  %h = mpg.param "h" init(zeros) : tensor<8xf16>
  %b = mpg.param "b" frozen init(ones) : tensor<8xbf16>
  %d = mpg.param "d" init(uniform, low = -0.1, high = 0.1) : tensor<8x8xf64>
  %s = mpg.param "s" init(constant, value = 1.0) : tensor<f32>
  %g = "mpg.param"() <{init = #mpg.init<normal, {std = 2.000000e-02 : f64}>, name = "g"}> : () -> tensor<4x4xf32>
  %n = mpg.param "n" init(zeros) {mpc.note} : tensor<2xf32>
  mpg.output "e" %e : tensor<96x32xf32>
}

// CHECK-LABEL: mpg.graph @constants {
// CHECK-NEXT:    %[[A:.+]] = mpg.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    %[[B:.+]] = mpg.constant dense<[0, 2, 1]> : tensor<3xi32>
// CHECK-NEXT:    %[[C:.+]] = mpg.constant dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi64>
// CHECK-NEXT:    %[[D:.+]] = mpg.constant dense<[true, false]> : tensor<2xi1>
// CHECK-NEXT:    %[[E:.+]] = mpg.constant dense<1.500000e+00> : tensor<4xf16>
// CHECK-NEXT:    %[[F:.+]] = mpg.constant dense<-2.000000e+00> : tensor<2x2xbf16>
// CHECK-NEXT:    %[[G:.+]] = mpg.constant dense<[1.000000e+00, 2.500000e-01]> : tensor<2xf64>
// CHECK-NEXT:    %[[H:.+]] = mpg.constant {mpc.note} dense<0> : tensor<i64>
// CHECK-NEXT:    mpg.output "a" %[[A]] : tensor<f32>
// CHECK-NEXT:    mpg.output "b" %[[B]] : tensor<3xi32>
// CHECK-NEXT:    mpg.output "c" %[[C]] : tensor<2x2xi64>
// CHECK-NEXT:    mpg.output "d" %[[D]] : tensor<2xi1>
// CHECK-NEXT:    mpg.output "e" %[[E]] : tensor<4xf16>
// CHECK-NEXT:    mpg.output "f" %[[F]] : tensor<2x2xbf16>
// CHECK-NEXT:    mpg.output "g" %[[G]] : tensor<2xf64>
// CHECK-NEXT:    mpg.output "h" %[[H]] : tensor<i64>
// CHECK-NEXT:  }
mpg.graph @constants {
  %a = mpg.constant dense<5.000000e-01> : tensor<f32>
  %b = mpg.constant dense<[0, 2, 1]> : tensor<3xi32>
  %c = mpg.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %d = mpg.constant dense<[true, false]> : tensor<2xi1>
  %e = mpg.constant dense<1.5> : tensor<4xf16>
  %f = mpg.constant dense<-2.0> : tensor<2x2xbf16>
  %g = mpg.constant dense<[1.0, 0.25]> : tensor<2xf64>
  %h = mpg.constant {mpc.note} dense<0> : tensor<i64>
  mpg.output "a" %a : tensor<f32>
  mpg.output "b" %b : tensor<3xi32>
  mpg.output "c" %c : tensor<2x2xi64>
  mpg.output "d" %d : tensor<2xi1>
  mpg.output "e" %e : tensor<4xf16>
  mpg.output "f" %f : tensor<2x2xbf16>
  mpg.output "g" %g : tensor<2xf64>
  mpg.output "h" %h : tensor<i64>
}

// The same name may be used once as an input, once as an output and once as
// a parameter: the three namespaces are separate.
// CHECK-LABEL: mpg.graph @separate_namespaces {
// CHECK-NEXT:    %[[I:.+]] = mpg.input "n" : tensor<2xf32>
// CHECK-NEXT:    %[[P:.+]] = mpg.param "n" init(zeros) : tensor<2xf32>
// CHECK-NEXT:    mpg.output "n" %[[I]] : tensor<2xf32>
// CHECK-NEXT:    mpg.output "p" %[[P]] : tensor<2xf32>
// CHECK-NEXT:  }
mpg.graph @separate_namespaces {
  %i = mpg.input "n" : tensor<2xf32>
  %p = mpg.param "n" init(zeros) : tensor<2xf32>
  mpg.output "n" %i : tensor<2xf32>
  mpg.output "p" %p : tensor<2xf32>
}

// State of every element type, its initializers and a write per state.
// CHECK-LABEL: mpg.graph @state {
// CHECK-NEXT:    %[[MEAN:.+]] = mpg.state "bn1.running_mean" init(zeros) : tensor<16xf32>
// CHECK-NEXT:    %[[VAR:.+]] = mpg.state "bn1.running_var" init(ones) : tensor<16xf32>
// CHECK-NEXT:    %[[STEP:.+]] = mpg.state "step" init(zeros) : tensor<i64>
// CHECK-NEXT:    %[[SCALE:.+]] = mpg.state "loss_scale" init(constant, value = 6.553600e+04) : tensor<f32>
// CHECK-NEXT:    %[[GOOD:.+]] = mpg.state "good_steps" init(constant, value = 0) : tensor<i32>
// CHECK-NEXT:    %[[FLAG:.+]] = mpg.state "flag" init(ones) : tensor<i1>
// CHECK-NEXT:    %[[NOISE:.+]] = mpg.state "noise" init(uniform, high = 1.000000e+00, low = 0.000000e+00) : tensor<4xf16>
// CHECK-NEXT:    %[[K:.+]] = mpg.state "kernel" init(he_normal, gain = 2.000000e+00) : tensor<4x4xbf16>
// CHECK-NEXT:    %[[N:.+]] = mpg.state "n" init(normal, mean = 1.000000e+00) : tensor<2xf64>
// CHECK-NEXT:    %[[G:.+]] = mpg.state "g" init(glorot_uniform) {mpc.note} : tensor<4x4xf32>
// CHECK-NEXT:    %[[ONE:.+]] = mpg.constant dense<1> : tensor<i64>
// CHECK-NEXT:    %[[NEXT:.+]] = mpg.add %[[STEP]], %[[ONE]] : tensor<i64>, tensor<i64> -> tensor<i64>
// CHECK-NEXT:    mpg.state_write %[[STEP]], %[[NEXT]] : tensor<i64>
// CHECK-NEXT:    mpg.state_write %[[MEAN]], %[[VAR]] : tensor<16xf32>
// CHECK-NEXT:    mpg.state_write %[[FLAG]], %[[FLAG]] {mpc.note} : tensor<i1>
// CHECK-NEXT:  }
mpg.graph @state {
  %mean = mpg.state "bn1.running_mean" init(zeros) : tensor<16xf32>
  %var = mpg.state "bn1.running_var" init(ones) : tensor<16xf32>
  %step = mpg.state "step" init(zeros) : tensor<i64>
  %scale = mpg.state "loss_scale" init(constant, value = 65536.0) : tensor<f32>
  %good = mpg.state "good_steps" init(constant, value = 0) : tensor<i32>
  %flag = mpg.state "flag" init(ones) : tensor<i1>
  %noise = mpg.state "noise" init(uniform, low = 0.0, high = 1.0) : tensor<4xf16>
  %k = mpg.state "kernel" init(he_normal, gain = 2.0) : tensor<4x4xbf16>
  %n = mpg.state "n" init(normal, mean = 1.0) : tensor<2xf64>
  %g = mpg.state "g" init(glorot_uniform) {mpc.note} : tensor<4x4xf32>
  %one = mpg.constant dense<1> : tensor<i64>
  %next = mpg.add %step, %one : tensor<i64>, tensor<i64> -> tensor<i64>
  mpg.state_write %step, %next : tensor<i64>
  mpg.state_write %mean, %var : tensor<16xf32>
  mpg.state_write %flag, %flag {mpc.note} : tensor<i1>
}

// SGD and every hyper-parameter.
// CHECK-LABEL: mpg.graph @minimize_sgd {
// CHECK-NEXT:    %[[L:.+]] = mpg.input "loss" : tensor<f32>
// CHECK-NEXT:    mpg.minimize %[[L]] optimizer(sgd, lr = 1.000000e-01, momentum = 9.000000e-01, nesterov = true, weight_decay = 5.000000e-04) : tensor<f32>
// CHECK-NEXT:  }
mpg.graph @minimize_sgd {
  %l = mpg.input "loss" : tensor<f32>
  mpg.minimize %l optimizer(sgd, weight_decay = 5.0e-4, nesterov = true, momentum = 0.9, lr = 0.1) : tensor<f32>
}

// CHECK-LABEL: mpg.graph @minimize_sgd_momentum {
// CHECK-NEXT:    %[[L:.+]] = mpg.input "loss" : tensor<f32>
// CHECK-NEXT:    mpg.minimize %[[L]] optimizer(sgd, lr = 1.000000e-02, momentum = 9.000000e-01) : tensor<f32>
// CHECK-NEXT:  }
mpg.graph @minimize_sgd_momentum {
  %l = mpg.input "loss" : tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 1.000000e-02, momentum = 9.000000e-01) : tensor<f32>
}

// nesterov = false needs no momentum; an integer learning rate is a number.
// CHECK-LABEL: mpg.graph @minimize_sgd_flags {
// CHECK-NEXT:    %[[L:.+]] = mpg.input "loss" : tensor<f16>
// CHECK-NEXT:    mpg.minimize %[[L]] optimizer(sgd, lr = 1, momentum = 0.000000e+00, nesterov = false, weight_decay = 0) {mpc.note} : tensor<f16>
// CHECK-NEXT:  }
mpg.graph @minimize_sgd_flags {
  %l = mpg.input "loss" : tensor<f16>
  mpg.minimize %l optimizer(sgd, lr = 1, momentum = 0.0, nesterov = false, weight_decay = 0) {mpc.note} : tensor<f16>
}

// CHECK-LABEL: mpg.graph @minimize_adam {
// CHECK-NEXT:    %[[L:.+]] = mpg.input "loss" : tensor<bf16>
// CHECK-NEXT:    mpg.minimize %[[L]] optimizer(adam, lr = 1.000000e-03) : tensor<bf16>
// CHECK-NEXT:  }
mpg.graph @minimize_adam {
  %l = mpg.input "loss" : tensor<bf16>
  mpg.minimize %l optimizer(adam, lr = 1.0e-3) : tensor<bf16>
}

// CHECK-LABEL: mpg.graph @minimize_adam_all {
// CHECK-NEXT:    %[[L:.+]] = mpg.input "loss" : tensor<f64>
// CHECK-NEXT:    mpg.minimize %[[L]] optimizer(adam, beta1 = 0.000000e+00, beta2 = 9.687500e-01, eps = 1.000000e-08, lr = 1.000000e-03, weight_decay = 1.000000e-04) : tensor<f64>
// CHECK-NEXT:  }
mpg.graph @minimize_adam_all {
  %l = mpg.input "loss" : tensor<f64>
  mpg.minimize %l optimizer(adam, lr = 1.0e-3, beta1 = 0.0, beta2 = 0.96875, eps = 1.0e-8, weight_decay = 1.0e-4) : tensor<f64>
}

// CHECK-LABEL: mpg.graph @minimize_adamw {
// CHECK-NEXT:    %[[L:.+]] = mpg.input "loss" : tensor<f32>
// CHECK-NEXT:    mpg.minimize %[[L]] optimizer(adamw, lr = 1.000000e-03, weight_decay = 1.000000e-02) : tensor<f32>
// CHECK-NEXT:  }
mpg.graph @minimize_adamw {
  %l = mpg.input "loss" : tensor<f32>
  mpg.minimize %l optimizer(adamw, lr = 1.000000e-03, weight_decay = 1.000000e-02) : tensor<f32>
}

// CHECK-LABEL: mpg.graph @minimize_adamw_all {
// CHECK-NEXT:    %[[L:.+]] = mpg.input "loss" : tensor<f32>
// CHECK-NEXT:    mpg.minimize %[[L]] optimizer(adamw, beta1 = 8.750000e-01, beta2 = 9.375000e-01, eps = 2.500000e-01, lr = 2.000000e-04, weight_decay = 0.000000e+00) : tensor<f32>
// CHECK-NEXT:  }
mpg.graph @minimize_adamw_all {
  %l = mpg.input "loss" : tensor<f32>
  mpg.minimize %l optimizer(adamw, weight_decay = 0.0, eps = 0.25, beta2 = 0.9375, beta1 = 0.875, lr = 2.0e-4) : tensor<f32>
}

// An optimizer written as an attribute in the generic form.
// CHECK-LABEL: mpg.graph @minimize_generic {
// CHECK-NEXT:    %[[L:.+]] = mpg.input "loss" : tensor<f32>
// CHECK-NEXT:    mpg.minimize %[[L]] optimizer(sgd, lr = 5.000000e-01) : tensor<f32>
// CHECK-NEXT:  }
mpg.graph @minimize_generic {
  %l = mpg.input "loss" : tensor<f32>
  "mpg.minimize"(%l) <{optimizer = #mpg.optimizer<sgd, {lr = 5.000000e-01 : f64}>}> : (tensor<f32>) -> ()
}
