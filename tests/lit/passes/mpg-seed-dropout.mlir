// RUN: mpc-opt %s --mpg-seed-dropout -split-input-file -verify-diagnostics | FileCheck %s
// RUN: mpc-opt %s --mpg-seed-dropout --mpg-autodiff -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=GRAD
// A graph without unkeyed dropouts is left as it was (@no_dropout, @keyed).
// RUN: mpc-opt %s -split-input-file -verify-diagnostics | sed -n '/@no_dropout/,$p' > %t.plain
// RUN: mpc-opt %s --mpg-seed-dropout -split-input-file -verify-diagnostics | sed -n '/@no_dropout/,$p' > %t.seeded
// RUN: diff %t.plain %t.seeded
// An unkeyed dropout has no gradient.
// RUN: not mpc-opt %s --mpg-autodiff -split-input-file 2>&1 | FileCheck %s --check-prefix=UNKEYED

// Two dropouts: the seed and run-counter state first in the graph, streams
// 0 and 1 in graph order, and the counter written run + 1.
// CHECK-LABEL: mpg.graph @two
// CHECK-NEXT: %[[SEED:.+]] = mpg.state "dropout.seed" init(seed) : tensor<i64>
// CHECK-NEXT: %[[COUNTER:.+]] = mpg.state "dropout.run" init(zeros) : tensor<i64>
// CHECK: %[[A:.+]] = mpg.dropout %{{.+}} rate 1.000000e-01 key(%[[SEED]], %[[COUNTER]]) stream 0 : tensor<4x8xf32>, tensor<i64>, tensor<i64>
// CHECK: mpg.dropout %{{.+}} rate 5.000000e-01 key(%[[SEED]], %[[COUNTER]]) stream 1 : tensor<4x8xf32>, tensor<i64>, tensor<i64>
// CHECK: %[[ONE:.+]] = mpg.constant dense<1> : tensor<i64>
// CHECK-NEXT: %[[NEXT:.+]] = mpg.add %[[COUNTER]], %[[ONE]] : tensor<i64>, tensor<i64> -> tensor<i64>
// CHECK-NEXT: mpg.state_write %[[COUNTER]], %[[NEXT]] : tensor<i64>

// The gradient of each dropout is the same dropout (key, stream, rate) of
// the incoming gradient.
// GRAD-LABEL: mpg.graph @two
// GRAD: mpg.dropout %{{.+}} rate 5.000000e-01 key(%[[SEED:.+]], %[[COUNTER:.+]]) stream 1
// GRAD: mpg.dropout %{{.+}} rate 5.000000e-01 key(%[[SEED]], %[[COUNTER]]) stream 1
// GRAD: mpg.dropout %{{.+}} rate 1.000000e-01 key(%[[SEED]], %[[COUNTER]]) stream 0
// GRAD: mpg.sgd
// UNKEYED: error: 'mpg.dropout' op has no key to draw its mask again for the gradient: run mpg-seed-dropout before mpg-autodiff (the training pipeline does)
mpg.graph @two {
  %x = mpg.input "x" : tensor<4x8xf32>
  %w = mpg.param "w" init(ones) : tensor<4x8xf32>
  %h = mpg.mul %x, %w : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %a = mpg.dropout %h rate 0.1 : tensor<4x8xf32>
  %t = mpg.tanh %a : tensor<4x8xf32>
  %b = mpg.dropout %t rate 0.5 : tensor<4x8xf32>
  %l = mpg.reduce_sum %b axes [0, 1] : tensor<4x8xf32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.1) : tensor<f32>
}

// -----

mpg.graph @no_dropout {
  %x = mpg.input "x" : tensor<8xf32>
  %y = mpg.relu %x : tensor<8xf32>
  mpg.output "y" %y : tensor<8xf32>
}

// -----

mpg.graph @keyed {
  %x = mpg.input "x" : tensor<8xf32>
  %s = mpg.input "s" : tensor<i64>
  %y = mpg.dropout %x rate 0.1 key(%s, %s) stream 9 : tensor<8xf32>, tensor<i64>, tensor<i64>
  mpg.output "y" %y : tensor<8xf32>
}
