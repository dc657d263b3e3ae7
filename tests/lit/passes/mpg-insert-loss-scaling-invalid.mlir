// RUN: not mpc-opt %s --mpg-autodiff --mpg-insert-loss-scaling=mode=sometimes 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not mpc-opt %s --mpg-autodiff --mpg-insert-loss-scaling=init-scale=0 2>&1 | FileCheck %s --check-prefix=INIT
// RUN: not mpc-opt %s --mpg-autodiff --mpg-insert-loss-scaling=growth-interval=0 2>&1 | FileCheck %s --check-prefix=INTERVAL
// RUN: sed 's/f32/f64/g' %s | not mpc-opt --mpg-autodiff --mpg-insert-loss-scaling 2>&1 | FileCheck %s --check-prefix=F64

// MODE: error: mpg-insert-loss-scaling: unknown mode 'sometimes'; expected dynamic, static or none
// INIT: error: mpg-insert-loss-scaling: init-scale must be a finite number > 0, not 0
// INTERVAL: error: 'mpg.update_loss_scale' op expects growth_interval >= 1
// F64: error: 'mpg.constant' op is the seed of the backward pass in 'f64'; loss scaling needs an f32 loss
mpg.graph @linear {
  %x = mpg.input "x" : tensor<2x8xf32>
  %labels = mpg.input "labels" : tensor<2xi32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<8x4xf32>
  %y = mpg.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %l = mpg.softmax_cross_entropy %y, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.1) : tensor<f32>
}
