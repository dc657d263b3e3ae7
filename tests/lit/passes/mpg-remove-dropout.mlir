// RUN: mpc-opt %s --mpg-remove-dropout -split-input-file | FileCheck %s
// A graph without dropouts is left as it was.
// RUN: mpc-opt %s -split-input-file | sed -n '/@no_dropout/,$p' > %t.plain
// RUN: mpc-opt %s --mpg-remove-dropout -split-input-file | sed -n '/@no_dropout/,$p' > %t.removed
// RUN: diff %t.plain %t.removed
// The forward pipeline removes them; the training pipeline keeps them.
// RUN: mpc-opt %s --mpc-forward-pipeline -split-input-file | FileCheck %s --check-prefix=FORWARD
// RUN: mpc-opt %s --mpc-train-pipeline -split-input-file | FileCheck %s --check-prefix=TRAIN

// An unkeyed dropout passes its input through; a keyed one stays.
// CHECK-LABEL: mpg.graph @mixed
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[S:.+]] = mpg.input "s"
// CHECK-NEXT: %[[R:.+]] = mpg.relu %[[X]] : tensor<8xf32>
// CHECK-NEXT: %[[K:.+]] = mpg.dropout %[[R]] rate 2.000000e-01 key(%[[S]], %[[S]]) stream 1
// CHECK-NEXT: mpg.output "y" %[[K]]
// FORWARD-LABEL: mpk.program @mixed
// FORWARD-COUNT-1: mpk.dropout
// FORWARD-NOT: mpk.dropout
mpg.graph @mixed {
  %x = mpg.input "x" : tensor<8xf32>
  %s = mpg.input "s" : tensor<i64>
  %d = mpg.dropout %x rate 0.5 : tensor<8xf32>
  %r = mpg.relu %d : tensor<8xf32>
  %k = mpg.dropout %r rate 0.2 key(%s, %s) stream 1 : tensor<8xf32>, tensor<i64>, tensor<i64>
  mpg.output "y" %k : tensor<8xf32>
}

// -----

// TRAIN-LABEL: mpk.program @train
// TRAIN: mpk.param "dropout.seed" {{.+}} init(#mpg.init<seed, {}>) : memref<i64>
// TRAIN: mpk.dropout {{.+}} rate 5.000000e-01 stream 0
// TRAIN: mpk.dropout {{.+}} rate 5.000000e-01 stream 0
mpg.graph @train {
  %x = mpg.input "x" : tensor<4x8xf32>
  %w = mpg.param "w" init(ones) : tensor<4x8xf32>
  %h = mpg.mul %x, %w : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %d = mpg.dropout %h rate 0.5 : tensor<4x8xf32>
  %l = mpg.reduce_sum %d axes [0, 1] : tensor<4x8xf32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.1) : tensor<f32>
}

// -----

mpg.graph @no_dropout {
  %x = mpg.input "x" : tensor<8xf32>
  %y = mpg.relu %x : tensor<8xf32>
  mpg.output "y" %y : tensor<8xf32>
}
