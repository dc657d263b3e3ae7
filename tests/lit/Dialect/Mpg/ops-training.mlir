// RUN: mpc-opt %s | mpc-opt | FileCheck %s
// RUN: mpc-opt %s -mlir-print-op-generic | mpc-opt | FileCheck %s

// Round trip of the training ops: optimizer updates (sgd, adam, adamw) and
// loss scaling (scale, unscale, all_finite, update_loss_scale). Attributes
// equal to their default value are not printed.

// CHECK-LABEL: mpg.graph @sgd_plain
// CHECK: %p = mpg.param "p" init(zeros) : tensor<4x3xf32>
// CHECK: %g = mpg.input "g" : tensor<4x3xf32>
// CHECK: %lr = mpg.input "lr" : tensor<f32>
// CHECK: %[[R:.+]] = mpg.sgd %p, %g, %lr : tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf32>
// CHECK: mpg.output "p2" %[[R]] : tensor<4x3xf32>
mpg.graph @sgd_plain {
  %p = mpg.param "p" init(zeros) : tensor<4x3xf32>
  %g = mpg.input "g" : tensor<4x3xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %p2 = mpg.sgd %p, %g, %lr : tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf32>
  mpg.output "p2" %p2 : tensor<4x3xf32>
}

// Explicit default values (momentum 0, weight_decay 0) are dropped.
// CHECK-LABEL: mpg.graph @sgd_explicit_defaults
// CHECK: %[[P:.+]] = mpg.param "p"
// CHECK: %[[G:.+]] = mpg.input "g"
// CHECK: %[[LR:.+]] = mpg.input "lr"
// CHECK: %[[R:.+]] = mpg.sgd %[[P]], %[[G]], %[[LR]] : tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf32>
// CHECK-NOT: momentum
// CHECK-NOT: weight_decay
// CHECK: mpg.output "p2" %[[R]]
mpg.graph @sgd_explicit_defaults {
  %p = mpg.param "p" init(zeros) : tensor<4x3xf32>
  %g = mpg.input "g" : tensor<4x3xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %p2 = mpg.sgd %p, %g, %lr momentum 0.0 weight_decay 0.0
      : tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf32>
  mpg.output "p2" %p2 : tensor<4x3xf32>
}

// CHECK-LABEL: mpg.graph @sgd_weight_decay
// CHECK: %[[P:.+]] = mpg.param "p"
// CHECK: %[[G:.+]] = mpg.input "g"
// CHECK: %[[LR:.+]] = mpg.input "lr"
// CHECK: %[[R:.+]] = mpg.sgd %[[P]], %[[G]], %[[LR]] weight_decay 1.000000e-04 : tensor<16xf32>, tensor<16xf16>, tensor<f16> -> tensor<16xf32>
mpg.graph @sgd_weight_decay {
  %p = mpg.param "p" init(ones) : tensor<16xf32>
  %g = mpg.input "g" : tensor<16xf16>
  %lr = mpg.input "lr" : tensor<f16>
  %p2 = mpg.sgd %p, %g, %lr weight_decay 1.0e-4
      : tensor<16xf32>, tensor<16xf16>, tensor<f16> -> tensor<16xf32>
  mpg.output "p2" %p2 : tensor<16xf32>
}

// CHECK-LABEL: mpg.graph @sgd_momentum
// CHECK: %[[P:.+]] = mpg.param "p"
// CHECK: %[[G:.+]] = mpg.input "g"
// CHECK: %[[LR:.+]] = mpg.input "lr"
// CHECK: %[[V:.+]] = mpg.state "v" init(zeros) : tensor<4x3xf32>
// CHECK: %[[NP:[^ ,]+]], %[[NV:[^ ,]+]] = mpg.sgd %[[P]], %[[G]], %[[LR]], %[[V]] momentum 9.000000e-01 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>, tensor<4x3xf32> -> tensor<4x3xf32>, tensor<4x3xf32>
// CHECK: mpg.state_write %[[V]], %[[NV]] : tensor<4x3xf32>
// CHECK: mpg.output "p2" %[[NP]]
mpg.graph @sgd_momentum {
  %p = mpg.param "p" init(zeros) : tensor<4x3xf32>
  %g = mpg.input "g" : tensor<4x3xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %v = mpg.state "v" init(zeros) : tensor<4x3xf32>
  %p2, %v2 = mpg.sgd %p, %g, %lr, %v momentum 0.9
      : tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>, tensor<4x3xf32>
      -> tensor<4x3xf32>, tensor<4x3xf32>
  mpg.state_write %v, %v2 : tensor<4x3xf32>
  mpg.output "p2" %p2 : tensor<4x3xf32>
}

// CHECK-LABEL: mpg.graph @sgd_nesterov
// CHECK: %[[P:.+]] = mpg.param "p"
// CHECK: %[[G:.+]] = mpg.input "g"
// CHECK: %[[LR:.+]] = mpg.input "lr"
// CHECK: %[[V:.+]] = mpg.state "v"
// CHECK: %[[NP:[^ ,]+]], %[[NV:[^ ,]+]] = mpg.sgd %[[P]], %[[G]], %[[LR]], %[[V]] momentum 8.750000e-01 nesterov weight_decay 5.000000e-04 : tensor<2x8xbf16>, tensor<2x8xbf16>, tensor<bf16>, tensor<2x8xbf16> -> tensor<2x8xbf16>, tensor<2x8xbf16>
mpg.graph @sgd_nesterov {
  %p = mpg.param "p" init(zeros) : tensor<2x8xbf16>
  %g = mpg.input "g" : tensor<2x8xbf16>
  %lr = mpg.input "lr" : tensor<bf16>
  %v = mpg.state "v" init(zeros) : tensor<2x8xbf16>
  %p2, %v2 = mpg.sgd %p, %g, %lr, %v momentum 0.875 nesterov weight_decay 5.0e-4
      : tensor<2x8xbf16>, tensor<2x8xbf16>, tensor<bf16>, tensor<2x8xbf16>
      -> tensor<2x8xbf16>, tensor<2x8xbf16>
  mpg.output "p2" %p2 : tensor<2x8xbf16>
  mpg.output "v2" %v2 : tensor<2x8xbf16>
}

// CHECK-LABEL: mpg.graph @adam_defaults
// CHECK: %[[P:.+]] = mpg.param "p"
// CHECK: %[[G:.+]] = mpg.input "g"
// CHECK: %[[M:.+]] = mpg.state "m"
// CHECK: %[[V:.+]] = mpg.state "v"
// CHECK: %[[LR:.+]] = mpg.input "lr"
// CHECK: %[[T:.+]] = mpg.state "step" init(zeros) : tensor<i64>
// CHECK: %[[NP:[^ ,]+]], %[[NM:[^ ,]+]], %[[NV:[^ ,]+]] = mpg.adam %[[P]], %[[G]], %[[M]], %[[V]], %[[LR]], %[[T]] : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<f32>, tensor<i64> -> tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
// CHECK: mpg.state_write %[[M]], %[[NM]]
// CHECK: mpg.state_write %[[V]], %[[NV]]
// CHECK: mpg.output "p2" %[[NP]]
mpg.graph @adam_defaults {
  %p = mpg.param "p" init(zeros) : tensor<16xf32>
  %g = mpg.input "g" : tensor<16xf32>
  %m = mpg.state "m" init(zeros) : tensor<16xf32>
  %v = mpg.state "v" init(zeros) : tensor<16xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %t = mpg.state "step" init(zeros) : tensor<i64>
  %p2, %m2, %v2 = mpg.adam %p, %g, %m, %v, %lr, %t
      : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<f32>, tensor<i64>
      -> tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
  mpg.state_write %m, %m2 : tensor<16xf32>
  mpg.state_write %v, %v2 : tensor<16xf32>
  mpg.output "p2" %p2 : tensor<16xf32>
}

// Explicit defaults of adam (beta1 0.9, beta2 0.999, eps 1e-8, weight_decay 0)
// are dropped.
// CHECK-LABEL: mpg.graph @adam_explicit_defaults
// CHECK: mpg.adam %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} : tensor<16xf32>,
// CHECK-NOT: beta1
// CHECK-NOT: beta2
// CHECK-NOT: eps
// CHECK-NOT: weight_decay
// CHECK: mpg.output
mpg.graph @adam_explicit_defaults {
  %p = mpg.param "p" init(zeros) : tensor<16xf32>
  %g = mpg.input "g" : tensor<16xf32>
  %m = mpg.state "m" init(zeros) : tensor<16xf32>
  %v = mpg.state "v" init(zeros) : tensor<16xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %t = mpg.state "step" init(zeros) : tensor<i32>
  %p2, %m2, %v2 = mpg.adam %p, %g, %m, %v, %lr, %t
      beta1 0.9 beta2 0.999 eps 1.0e-8 weight_decay 0.0
      : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<f32>, tensor<i32>
      -> tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
  mpg.output "p2" %p2 : tensor<16xf32>
}

// CHECK-LABEL: mpg.graph @adam_all_attrs
// CHECK: %[[P:.+]] = mpg.param "p"
// CHECK: %[[G:.+]] = mpg.input "g"
// CHECK: %[[M:.+]] = mpg.state "m"
// CHECK: %[[V:.+]] = mpg.state "v"
// CHECK: %[[LR:.+]] = mpg.input "lr"
// CHECK: %[[T:.+]] = mpg.state "step"
// CHECK: %[[NP:[^ ,]+]], %[[NM:[^ ,]+]], %[[NV:[^ ,]+]] = mpg.adam %[[P]], %[[G]], %[[M]], %[[V]], %[[LR]], %[[T]] beta1 8.000000e-01 beta2 9.375000e-01 eps 1.000000e-04 weight_decay 1.000000e-02 : tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>, tensor<i64> -> tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
mpg.graph @adam_all_attrs {
  %p = mpg.param "p" init(zeros) : tensor<4x8xf32>
  %g = mpg.input "g" : tensor<4x8xf16>
  %m = mpg.state "m" init(zeros) : tensor<4x8xf32>
  %v = mpg.state "v" init(zeros) : tensor<4x8xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %t = mpg.state "step" init(zeros) : tensor<i64>
  %p2, %m2, %v2 = mpg.adam %p, %g, %m, %v, %lr, %t
      beta1 0.8 beta2 0.9375 eps 1.0e-4 weight_decay 0.01
      : tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>, tensor<i64>
      -> tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  mpg.output "p2" %p2 : tensor<4x8xf32>
}

// CHECK-LABEL: mpg.graph @adamw_defaults
// CHECK: %[[P:.+]] = mpg.param "p"
// CHECK: %[[G:.+]] = mpg.input "g"
// CHECK: %[[M:.+]] = mpg.state "m"
// CHECK: %[[V:.+]] = mpg.state "v"
// CHECK: %[[LR:.+]] = mpg.input "lr"
// CHECK: %[[T:.+]] = mpg.state "step"
// CHECK: %[[NP:[^ ,]+]], %[[NM:[^ ,]+]], %[[NV:[^ ,]+]] = mpg.adamw %[[P]], %[[G]], %[[M]], %[[V]], %[[LR]], %[[T]] : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<f32>, tensor<i64> -> tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
mpg.graph @adamw_defaults {
  %p = mpg.param "p" init(zeros) : tensor<16xf32>
  %g = mpg.input "g" : tensor<16xf32>
  %m = mpg.state "m" init(zeros) : tensor<16xf32>
  %v = mpg.state "v" init(zeros) : tensor<16xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %t = mpg.state "step" init(zeros) : tensor<i64>
  %p2, %m2, %v2 = mpg.adamw %p, %g, %m, %v, %lr, %t
      : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<f32>, tensor<i64>
      -> tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
  mpg.output "p2" %p2 : tensor<16xf32>
}

// adamw's default weight_decay is 0.01 (adam's is 0): 0.01 is dropped, an
// explicit 0 is kept.
// CHECK-LABEL: mpg.graph @adamw_weight_decay
// CHECK: %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} = mpg.adamw %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} : tensor<16xf32>,
// CHECK: mpg.adamw %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} weight_decay 0.000000e+00 : tensor<16xf32>,
mpg.graph @adamw_weight_decay {
  %p = mpg.param "p" init(zeros) : tensor<16xf32>
  %g = mpg.input "g" : tensor<16xf32>
  %m = mpg.state "m" init(zeros) : tensor<16xf32>
  %v = mpg.state "v" init(zeros) : tensor<16xf32>
  %lr = mpg.input "lr" : tensor<f32>
  %t = mpg.state "step" init(zeros) : tensor<i64>
  %p2, %m2, %v2 = mpg.adamw %p, %g, %m, %v, %lr, %t weight_decay 0.01
      : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<f32>, tensor<i64>
      -> tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
  %p3, %m3, %v3 = mpg.adamw %p, %g, %m, %v, %lr, %t weight_decay 0.0
      : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<f32>, tensor<i64>
      -> tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
  mpg.output "p2" %p2 : tensor<16xf32>
  mpg.output "p3" %p3 : tensor<16xf32>
}

// CHECK-LABEL: mpg.graph @adamw_all_attrs
// CHECK: %[[P:.+]] = mpg.param "p"
// CHECK: %[[G:.+]] = mpg.input "g"
// CHECK: %[[M:.+]] = mpg.state "m"
// CHECK: %[[V:.+]] = mpg.state "v"
// CHECK: %[[LR:.+]] = mpg.input "lr"
// CHECK: %[[T:.+]] = mpg.state "step"
// CHECK: %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} = mpg.adamw %[[P]], %[[G]], %[[M]], %[[V]], %[[LR]], %[[T]] beta1 5.000000e-01 beta2 8.750000e-01 eps 1.000000e-05 weight_decay 1.000000e-01 : tensor<3x3xf64>, tensor<3x3xf64>, tensor<3x3xf64>, tensor<3x3xf64>, tensor<f64>, tensor<i32> -> tensor<3x3xf64>, tensor<3x3xf64>, tensor<3x3xf64>
mpg.graph @adamw_all_attrs {
  %p = mpg.param "p" init(zeros) : tensor<3x3xf64>
  %g = mpg.input "g" : tensor<3x3xf64>
  %m = mpg.state "m" init(zeros) : tensor<3x3xf64>
  %v = mpg.state "v" init(zeros) : tensor<3x3xf64>
  %lr = mpg.input "lr" : tensor<f64>
  %t = mpg.state "step" init(zeros) : tensor<i32>
  %p2, %m2, %v2 = mpg.adamw %p, %g, %m, %v, %lr, %t
      beta1 0.5 beta2 0.875 eps 1.0e-5 weight_decay 0.1
      : tensor<3x3xf64>, tensor<3x3xf64>, tensor<3x3xf64>, tensor<3x3xf64>, tensor<f64>, tensor<i32>
      -> tensor<3x3xf64>, tensor<3x3xf64>, tensor<3x3xf64>
  mpg.output "p2" %p2 : tensor<3x3xf64>
}

// CHECK-LABEL: mpg.graph @scale
// CHECK: %[[L:.+]] = mpg.input "loss"
// CHECK: %[[S:.+]] = mpg.input "s"
// CHECK: %[[R:.+]] = mpg.scale %[[L]], %[[S]] : tensor<f32>, tensor<f32> -> tensor<f32>
// CHECK: mpg.scale %[[L]], %[[S]] : tensor<f32>, tensor<f32> -> tensor<f16>
mpg.graph @scale {
  %loss = mpg.input "loss" : tensor<f32>
  %s = mpg.input "s" : tensor<f32>
  %r = mpg.scale %loss, %s : tensor<f32>, tensor<f32> -> tensor<f32>
  %h = mpg.scale %loss, %s : tensor<f32>, tensor<f32> -> tensor<f16>
  mpg.output "r" %r : tensor<f32>
  mpg.output "h" %h : tensor<f16>
}

// CHECK-LABEL: mpg.graph @unscale
// CHECK: %[[G:.+]] = mpg.input "g"
// CHECK: %[[S:.+]] = mpg.input "s"
// CHECK: %[[R:.+]] = mpg.unscale %[[G]], %[[S]] : tensor<64x10xf16>, tensor<f32> -> tensor<64x10xf32>
// CHECK: mpg.unscale %[[G]], %[[S]] : tensor<64x10xf16>, tensor<f32> -> tensor<64x10xf16>
// CHECK: mpg.unscale %[[G]], %[[S]] {power_of_two_scale} : tensor<64x10xf16>, tensor<f32> -> tensor<64x10xf32>
// CHECK: mpg.output "r" %[[R]]
mpg.graph @unscale {
  %g = mpg.input "g" : tensor<64x10xf16>
  %s = mpg.input "s" : tensor<f32>
  %r = mpg.unscale %g, %s : tensor<64x10xf16>, tensor<f32> -> tensor<64x10xf32>
  %h = mpg.unscale %g, %s : tensor<64x10xf16>, tensor<f32> -> tensor<64x10xf16>
  %p = mpg.unscale %g, %s {power_of_two_scale} : tensor<64x10xf16>, tensor<f32> -> tensor<64x10xf32>
  mpg.output "r" %r : tensor<64x10xf32>
  mpg.output "h" %h : tensor<64x10xf16>
  mpg.output "p" %p : tensor<64x10xf32>
}

// CHECK-LABEL: mpg.graph @all_finite
// CHECK: %[[A:.+]] = mpg.input "a"
// CHECK: %[[B:.+]] = mpg.input "b"
// CHECK: %[[C:.+]] = mpg.input "c"
// CHECK: %[[ONE:.+]] = mpg.all_finite %[[A]] : tensor<64x10xf16> -> tensor<i1>
// CHECK: %[[ALL:.+]] = mpg.all_finite %[[A]], %[[B]], %[[C]] : tensor<64x10xf16>, tensor<10xf16>, tensor<f32> -> tensor<i1>
// CHECK: mpg.output "all" %[[ALL]] : tensor<i1>
mpg.graph @all_finite {
  %a = mpg.input "a" : tensor<64x10xf16>
  %b = mpg.input "b" : tensor<10xf16>
  %c = mpg.input "c" : tensor<f32>
  %one = mpg.all_finite %a : tensor<64x10xf16> -> tensor<i1>
  %all = mpg.all_finite %a, %b, %c : tensor<64x10xf16>, tensor<10xf16>, tensor<f32> -> tensor<i1>
  mpg.output "one" %one : tensor<i1>
  mpg.output "all" %all : tensor<i1>
}

// CHECK-LABEL: mpg.graph @update_loss_scale_defaults
// CHECK: %[[S:.+]] = mpg.state "scale"
// CHECK: %[[N:.+]] = mpg.state "good_steps"
// CHECK: %[[OK:.+]] = mpg.input "ok"
// CHECK: %[[NS:[^ ,]+]], %[[NN:[^ ,]+]] = mpg.update_loss_scale %[[S]], %[[N]], %[[OK]] : tensor<f32>, tensor<i64>, tensor<i1>
// CHECK: mpg.state_write %[[S]], %[[NS]] : tensor<f32>
// CHECK: mpg.state_write %[[N]], %[[NN]] : tensor<i64>
mpg.graph @update_loss_scale_defaults {
  %s = mpg.state "scale" init(constant, value = 65536.0) : tensor<f32>
  %n = mpg.state "good_steps" init(zeros) : tensor<i64>
  %ok = mpg.input "ok" : tensor<i1>
  %s2, %n2 = mpg.update_loss_scale %s, %n, %ok : tensor<f32>, tensor<i64>, tensor<i1>
  mpg.state_write %s, %s2 : tensor<f32>
  mpg.state_write %n, %n2 : tensor<i64>
}

// Explicit defaults (growth 2, backoff 0.5, interval 2000, scales [1, 2^24])
// are dropped.
// CHECK-LABEL: mpg.graph @update_loss_scale_explicit_defaults
// CHECK: mpg.update_loss_scale %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} : tensor<f32>, tensor<i64>, tensor<i1>
mpg.graph @update_loss_scale_explicit_defaults {
  %s = mpg.input "s" : tensor<f32>
  %n = mpg.input "n" : tensor<i64>
  %ok = mpg.input "ok" : tensor<i1>
  %s2, %n2 = mpg.update_loss_scale %s, %n, %ok growth_factor 2.0 backoff_factor 0.5
      growth_interval 2000 min_scale 1.0 max_scale 16777216.0
      : tensor<f32>, tensor<i64>, tensor<i1>
  mpg.output "s2" %s2 : tensor<f32>
}

// CHECK-LABEL: mpg.graph @update_loss_scale_each_attr
// CHECK: %[[S:.+]] = mpg.input "s"
// CHECK: %[[N:.+]] = mpg.input "n"
// CHECK: %[[OK:.+]] = mpg.input "ok"
// CHECK: mpg.update_loss_scale %[[S]], %[[N]], %[[OK]] growth_factor 4.000000e+00 : tensor<f16>, tensor<i32>, tensor<i1>
// CHECK: mpg.update_loss_scale %[[S]], %[[N]], %[[OK]] backoff_factor 2.500000e-01 : tensor<f16>, tensor<i32>, tensor<i1>
// CHECK: mpg.update_loss_scale %[[S]], %[[N]], %[[OK]] growth_interval 1000 : tensor<f16>, tensor<i32>, tensor<i1>
// CHECK: mpg.update_loss_scale %[[S]], %[[N]], %[[OK]] hysteresis 3 : tensor<f16>, tensor<i32>, tensor<i1>
// CHECK: mpg.update_loss_scale %[[S]], %[[N]], %[[OK]] min_scale 1.250000e-01 : tensor<f16>, tensor<i32>, tensor<i1>
// CHECK: mpg.update_loss_scale %[[S]], %[[N]], %[[OK]] max_scale 6.553600e+04 : tensor<f16>, tensor<i32>, tensor<i1>
mpg.graph @update_loss_scale_each_attr {
  %s = mpg.input "s" : tensor<f16>
  %n = mpg.input "n" : tensor<i32>
  %ok = mpg.input "ok" : tensor<i1>
  %s1, %n1 = mpg.update_loss_scale %s, %n, %ok growth_factor 4.0 : tensor<f16>, tensor<i32>, tensor<i1>
  %s2, %n2 = mpg.update_loss_scale %s, %n, %ok backoff_factor 0.25 : tensor<f16>, tensor<i32>, tensor<i1>
  %s3, %n3 = mpg.update_loss_scale %s, %n, %ok growth_interval 1000 : tensor<f16>, tensor<i32>, tensor<i1>
  %s6, %n6 = mpg.update_loss_scale %s, %n, %ok hysteresis 3 : tensor<f16>, tensor<i32>, tensor<i1>
  %s4, %n4 = mpg.update_loss_scale %s, %n, %ok min_scale 0.125 : tensor<f16>, tensor<i32>, tensor<i1>
  %s5, %n5 = mpg.update_loss_scale %s, %n, %ok max_scale 65536.0 : tensor<f16>, tensor<i32>, tensor<i1>
  mpg.output "s1" %s1 : tensor<f16>
  mpg.output "s2" %s2 : tensor<f16>
  mpg.output "s3" %s3 : tensor<f16>
  mpg.output "s4" %s4 : tensor<f16>
  mpg.output "s5" %s5 : tensor<f16>
  mpg.output "s6" %s6 : tensor<f16>
}

// CHECK-LABEL: mpg.graph @update_loss_scale_all_attrs
// CHECK: %[[S:.+]] = mpg.input "s"
// CHECK: %[[N:.+]] = mpg.input "n"
// CHECK: %[[OK:.+]] = mpg.input "ok"
// CHECK: %{{[^ ,]+}}, %{{[^ ,]+}} = mpg.update_loss_scale %[[S]], %[[N]], %[[OK]] growth_factor 1.500000e+00 backoff_factor 7.500000e-01 growth_interval 100 hysteresis 2 min_scale 2.000000e+00 max_scale 3.276800e+04 : tensor<f32>, tensor<i64>, tensor<i1>
mpg.graph @update_loss_scale_all_attrs {
  %s = mpg.input "s" : tensor<f32>
  %n = mpg.input "n" : tensor<i64>
  %ok = mpg.input "ok" : tensor<i1>
  %s2, %n2 = mpg.update_loss_scale %s, %n, %ok growth_factor 1.5 backoff_factor 0.75
      growth_interval 100 hysteresis 2 min_scale 2.0 max_scale 32768.0
      : tensor<f32>, tensor<i64>, tensor<i1>
  mpg.output "s2" %s2 : tensor<f32>
}

// The pieces together: a mixed-precision update with dynamic loss scaling.
// CHECK-LABEL: mpg.graph @loss_scaled_step
// CHECK: %[[LS:.+]] = mpg.state "loss_scale"
// CHECK: %[[N:.+]] = mpg.state "good_steps"
// CHECK: %[[W:.+]] = mpg.param "w"
// CHECK: %[[LOSS:.+]] = mpg.input "loss"
// CHECK: %[[GH:.+]] = mpg.input "grad"
// CHECK: %[[LR:.+]] = mpg.input "lr"
// CHECK: %[[SL:.+]] = mpg.scale %[[LOSS]], %[[LS]] : tensor<f32>, tensor<f32> -> tensor<f16>
// CHECK: %[[G:.+]] = mpg.unscale %[[GH]], %[[LS]] : tensor<8x4xf16>, tensor<f32> -> tensor<8x4xf32>
// CHECK: %[[OK:.+]] = mpg.all_finite %[[GH]], %[[SL]] : tensor<8x4xf16>, tensor<f16> -> tensor<i1>
// CHECK: %[[NLS:[^ ,]+]], %[[NN:[^ ,]+]] = mpg.update_loss_scale %[[LS]], %[[N]], %[[OK]] growth_interval 500 : tensor<f32>, tensor<i64>, tensor<i1>
// CHECK: %[[NW:.+]] = mpg.sgd %[[W]], %[[G]], %[[LR]] : tensor<8x4xf32>, tensor<8x4xf32>, tensor<f32> -> tensor<8x4xf32>
// CHECK: mpg.state_write %[[LS]], %[[NLS]] : tensor<f32>
// CHECK: mpg.state_write %[[N]], %[[NN]] : tensor<i64>
// CHECK: mpg.output "w2" %[[NW]] : tensor<8x4xf32>
mpg.graph @loss_scaled_step {
  %ls = mpg.state "loss_scale" init(constant, value = 32768.0) : tensor<f32>
  %n = mpg.state "good_steps" init(zeros) : tensor<i64>
  %w = mpg.param "w" init(glorot_uniform) : tensor<8x4xf32>
  %loss = mpg.input "loss" : tensor<f32>
  %gh = mpg.input "grad" : tensor<8x4xf16>
  %lr = mpg.input "lr" : tensor<f32>
  %sl = mpg.scale %loss, %ls : tensor<f32>, tensor<f32> -> tensor<f16>
  %g = mpg.unscale %gh, %ls : tensor<8x4xf16>, tensor<f32> -> tensor<8x4xf32>
  %ok = mpg.all_finite %gh, %sl : tensor<8x4xf16>, tensor<f16> -> tensor<i1>
  %ls2, %n2 = mpg.update_loss_scale %ls, %n, %ok growth_interval 500
      : tensor<f32>, tensor<i64>, tensor<i1>
  %w2 = mpg.sgd %w, %g, %lr : tensor<8x4xf32>, tensor<8x4xf32>, tensor<f32> -> tensor<8x4xf32>
  mpg.state_write %ls, %ls2 : tensor<f32>
  mpg.state_write %n, %n2 : tensor<i64>
  mpg.output "w2" %w2 : tensor<8x4xf32>
}
