// RUN: mpc-opt %s --mpg-decompose -split-input-file | FileCheck %s
// RUN: mpc-opt %s --mpg-decompose -split-input-file | mpc-opt -split-input-file | FileCheck %s

// Composite ops rewritten into reductions and pointwise ops. The second RUN
// line re-parses the output (the rewrite produces valid IR).

// CHECK-LABEL: mpg.graph @mse_rank2
// CHECK: %[[P:.+]] = mpg.input "p"
// CHECK: %[[T:.+]] = mpg.input "t"
// CHECK-NOT: mpg.mse_loss
// CHECK: %[[D:.+]] = mpg.sub %[[P]], %[[T]] : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[SQ:.+]] = mpg.mul %[[D]], %[[D]] : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[L:.+]] = mpg.reduce_mean %[[SQ]] axes [0, 1] : tensor<8x4xf32> -> tensor<f32>
// CHECK-NOT: mpg.mse_loss
// CHECK: mpg.minimize %[[L]]
mpg.graph @mse_rank2 {
  %p = mpg.input "p" : tensor<8x4xf32>
  %t = mpg.input "t" : tensor<8x4xf32>
  %l = mpg.mse_loss %p, %t : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<f32>
  mpg.minimize %l optimizer(sgd, lr = 0.1) : tensor<f32>
}

// -----

// Rank 0: nothing to reduce, the squared difference is the loss.
// CHECK-LABEL: mpg.graph @mse_rank0
// CHECK: %[[P:.+]] = mpg.input "p"
// CHECK: %[[T:.+]] = mpg.input "t"
// CHECK-NOT: mpg.mse_loss
// CHECK: %[[D:.+]] = mpg.sub %[[P]], %[[T]] : tensor<f32>, tensor<f32> -> tensor<f32>
// CHECK-NEXT: %[[SQ:.+]] = mpg.mul %[[D]], %[[D]] : tensor<f32>, tensor<f32> -> tensor<f32>
// CHECK-NOT: mpg.reduce_mean
// CHECK-NOT: mpg.mse_loss
// CHECK: mpg.output "l" %[[SQ]] : tensor<f32>
mpg.graph @mse_rank0 {
  %p = mpg.input "p" : tensor<f32>
  %t = mpg.input "t" : tensor<f32>
  %l = mpg.mse_loss %p, %t : tensor<f32>, tensor<f32> -> tensor<f32>
  mpg.output "l" %l : tensor<f32>
}

// -----

// fp16 inputs, fp32 loss: the arithmetic stays in fp16 and the reduction
// produces the fp32 loss.
// CHECK-LABEL: mpg.graph @mse_f16_rank2
// CHECK: %[[P:.+]] = mpg.input "p"
// CHECK: %[[T:.+]] = mpg.input "t"
// CHECK: %[[D:.+]] = mpg.sub %[[P]], %[[T]] : tensor<8x4xf16>, tensor<8x4xf16> -> tensor<8x4xf16>
// CHECK-NEXT: %[[SQ:.+]] = mpg.mul %[[D]], %[[D]] : tensor<8x4xf16>, tensor<8x4xf16> -> tensor<8x4xf16>
// CHECK-NEXT: %[[L:.+]] = mpg.reduce_mean %[[SQ]] axes [0, 1] : tensor<8x4xf16> -> tensor<f32>
// CHECK-NOT: mpg.mse_loss
// CHECK: mpg.output "l" %[[L]] : tensor<f32>
mpg.graph @mse_f16_rank2 {
  %p = mpg.input "p" : tensor<8x4xf16>
  %t = mpg.input "t" : tensor<8x4xf16>
  %l = mpg.mse_loss %p, %t : tensor<8x4xf16>, tensor<8x4xf16> -> tensor<f32>
  mpg.output "l" %l : tensor<f32>
}

// -----

// fp16 rank 0 with an fp32 loss: a cast replaces the reduction.
// CHECK-LABEL: mpg.graph @mse_f16_rank0
// CHECK: %[[P:.+]] = mpg.input "p"
// CHECK: %[[T:.+]] = mpg.input "t"
// CHECK: %[[D:.+]] = mpg.sub %[[P]], %[[T]] : tensor<f16>, tensor<f16> -> tensor<f16>
// CHECK-NEXT: %[[SQ:.+]] = mpg.mul %[[D]], %[[D]] : tensor<f16>, tensor<f16> -> tensor<f16>
// CHECK-NEXT: %[[L:.+]] = mpg.cast %[[SQ]] : tensor<f16> to tensor<f32>
// CHECK-NOT: mpg.mse_loss
// CHECK: mpg.output "l" %[[L]] : tensor<f32>
mpg.graph @mse_f16_rank0 {
  %p = mpg.input "p" : tensor<f16>
  %t = mpg.input "t" : tensor<f16>
  %l = mpg.mse_loss %p, %t : tensor<f16>, tensor<f16> -> tensor<f32>
  mpg.output "l" %l : tensor<f32>
}

// -----

// CHECK-LABEL: mpg.graph @global_avg_pool
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK-NOT: mpg.global_avg_pool
// CHECK: %[[M:.+]] = mpg.reduce_mean %[[X]] axes [2, 3] : tensor<8x32x7x7xf32> -> tensor<8x32xf32>
// CHECK-NOT: mpg.global_avg_pool
// CHECK: mpg.output "f" %[[M]] : tensor<8x32xf32>
mpg.graph @global_avg_pool {
  %x = mpg.input "x" : tensor<8x32x7x7xf32>
  %f = mpg.global_avg_pool %x : tensor<8x32x7x7xf32> -> tensor<8x32xf32>
  mpg.output "f" %f : tensor<8x32xf32>
}

// -----

// NCHW batch norm: statistics over N, H, W kept as [1, C, 1, 1]; the running
// variance takes the unbiased variance, count / (count - 1) with
// count = 32 * 28 * 28 = 25088, i.e. 1.0000398...
// CHECK-LABEL: mpg.graph @batch_norm_nchw
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[GAMMA:.+]] = mpg.param "gamma"
// CHECK: %[[BETA:.+]] = mpg.param "beta"
// CHECK: %[[RM:.+]] = mpg.state "mean"
// CHECK: %[[RV:.+]] = mpg.state "var"
// CHECK-NOT: mpg.batch_norm
// CHECK: %[[MEAN:.+]] = mpg.reduce_mean %[[X]] axes [0, 2, 3] keepdim : tensor<32x16x28x28xf32> -> tensor<1x16x1x1xf32>
// CHECK: %[[C:.+]] = mpg.sub %[[X]], %[[MEAN]] : tensor<32x16x28x28xf32>, tensor<1x16x1x1xf32> -> tensor<32x16x28x28xf32>
// CHECK: %[[SQ:.+]] = mpg.mul %[[C]], %[[C]] : tensor<32x16x28x28xf32>, tensor<32x16x28x28xf32> -> tensor<32x16x28x28xf32>
// CHECK: %[[VAR:.+]] = mpg.reduce_mean %[[SQ]] axes [0, 2, 3] keepdim : tensor<32x16x28x28xf32> -> tensor<1x16x1x1xf32>
// CHECK: %[[EPS:.+]] = mpg.constant dense<1.000000e-03> : tensor<f32>
// CHECK: %[[VE:.+]] = mpg.add %[[VAR]], %[[EPS]] : tensor<1x16x1x1xf32>, tensor<f32> -> tensor<1x16x1x1xf32>
// CHECK: %[[INV:.+]] = mpg.rsqrt %[[VE]] : tensor<1x16x1x1xf32>
// CHECK-DAG: %[[G4:.+]] = mpg.reshape %[[GAMMA]] : tensor<16xf32> -> tensor<1x16x1x1xf32>
// CHECK-DAG: %[[B4:.+]] = mpg.reshape %[[BETA]] : tensor<16xf32> -> tensor<1x16x1x1xf32>
// CHECK: %[[N:.+]] = mpg.mul %[[C]], %[[INV]] : tensor<32x16x28x28xf32>, tensor<1x16x1x1xf32> -> tensor<32x16x28x28xf32>
// CHECK: %[[NG:.+]] = mpg.mul %[[N]], %[[G4]] : tensor<32x16x28x28xf32>, tensor<1x16x1x1xf32> -> tensor<32x16x28x28xf32>
// CHECK: %[[Y:.+]] = mpg.add %[[NG]], %[[B4]] : tensor<32x16x28x28xf32>, tensor<1x16x1x1xf32> -> tensor<32x16x28x28xf32>
// CHECK-DAG: %[[BM:.+]] = mpg.reshape %[[MEAN]] : tensor<1x16x1x1xf32> -> tensor<16xf32>
// CHECK-DAG: %[[BV:.+]] = mpg.reshape %[[VAR]] : tensor<1x16x1x1xf32> -> tensor<16xf32>
// CHECK: %[[BESSEL:.+]] = mpg.constant dense<1.000039{{[0-9]*}}> : tensor<f32>
// CHECK: %[[UV:.+]] = mpg.mul %[[BV]], %[[BESSEL]] : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
// CHECK-DAG: %[[MOM0:.+]] = mpg.constant dense<2.000000e-01> : tensor<f32>
// CHECK-DAG: %[[KEEP0:.+]] = mpg.constant dense<8.000000e-01> : tensor<f32>
// CHECK-DAG: %[[NEW0:.+]] = mpg.mul %[[BM]], %[[MOM0]] : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
// CHECK-DAG: %[[OLD0:.+]] = mpg.mul %[[RM]], %[[KEEP0]] : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
// CHECK: %[[NEWMEAN:.+]] = mpg.add %[[OLD0]], %[[NEW0]] : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
// CHECK-DAG: %[[MOM1:.+]] = mpg.constant dense<2.000000e-01> : tensor<f32>
// CHECK-DAG: %[[KEEP1:.+]] = mpg.constant dense<8.000000e-01> : tensor<f32>
// CHECK-DAG: %[[NEW1:.+]] = mpg.mul %[[UV]], %[[MOM1]] : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
// CHECK-DAG: %[[OLD1:.+]] = mpg.mul %[[RV]], %[[KEEP1]] : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
// CHECK: %[[NEWVAR:.+]] = mpg.add %[[OLD1]], %[[NEW1]] : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
// CHECK-NOT: mpg.batch_norm
// CHECK: mpg.state_write %[[RM]], %[[NEWMEAN]] : tensor<16xf32>
// CHECK: mpg.state_write %[[RV]], %[[NEWVAR]] : tensor<16xf32>
// CHECK: mpg.output "y" %[[Y]] : tensor<32x16x28x28xf32>
mpg.graph @batch_norm_nchw {
  %x = mpg.input "x" : tensor<32x16x28x28xf32>
  %gamma = mpg.param "gamma" init(ones) : tensor<16xf32>
  %beta = mpg.param "beta" init(zeros) : tensor<16xf32>
  %mean = mpg.state "mean" init(zeros) : tensor<16xf32>
  %var = mpg.state "var" init(ones) : tensor<16xf32>
  %y, %mean2, %var2 = mpg.batch_norm %x, %gamma, %beta, %mean, %var momentum 0.2 eps 1.0e-3
      : tensor<32x16x28x28xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
      -> tensor<32x16x28x28xf32>, tensor<16xf32>, tensor<16xf32>
  mpg.state_write %mean, %mean2 : tensor<16xf32>
  mpg.state_write %var, %var2 : tensor<16xf32>
  mpg.output "y" %y : tensor<32x16x28x28xf32>
}

// -----

// [N, C] input with the default momentum (0.1) and eps (1e-5): statistics
// over axis 0, kept as [1, C]; count 8 gives the factor 8 / 7.
// CHECK-LABEL: mpg.graph @batch_norm_nc
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[GAMMA:.+]] = mpg.param "gamma"
// CHECK: %[[BETA:.+]] = mpg.param "beta"
// CHECK: %[[RM:.+]] = mpg.state "mean"
// CHECK: %[[RV:.+]] = mpg.state "var"
// CHECK: %[[MEAN:.+]] = mpg.reduce_mean %[[X]] axes [0] keepdim : tensor<8x4xf32> -> tensor<1x4xf32>
// CHECK: %[[C:.+]] = mpg.sub %[[X]], %[[MEAN]] : tensor<8x4xf32>, tensor<1x4xf32> -> tensor<8x4xf32>
// CHECK: %[[SQ:.+]] = mpg.mul %[[C]], %[[C]]
// CHECK: %[[VAR:.+]] = mpg.reduce_mean %[[SQ]] axes [0] keepdim : tensor<8x4xf32> -> tensor<1x4xf32>
// CHECK: %[[EPS:.+]] = mpg.constant dense<9.99999974E-6> : tensor<f32>
// CHECK: %[[VE:.+]] = mpg.add %[[VAR]], %[[EPS]]
// CHECK: %[[INV:.+]] = mpg.rsqrt %[[VE]] : tensor<1x4xf32>
// CHECK-DAG: %[[G2:.+]] = mpg.reshape %[[GAMMA]] : tensor<4xf32> -> tensor<1x4xf32>
// CHECK-DAG: %[[B2:.+]] = mpg.reshape %[[BETA]] : tensor<4xf32> -> tensor<1x4xf32>
// CHECK: %[[N:.+]] = mpg.mul %[[C]], %[[INV]]
// CHECK: %[[NG:.+]] = mpg.mul %[[N]], %[[G2]]
// CHECK: %[[Y:.+]] = mpg.add %[[NG]], %[[B2]] : tensor<8x4xf32>, tensor<1x4xf32> -> tensor<8x4xf32>
// CHECK-DAG: %[[BM:.+]] = mpg.reshape %[[MEAN]] : tensor<1x4xf32> -> tensor<4xf32>
// CHECK-DAG: %[[BV:.+]] = mpg.reshape %[[VAR]] : tensor<1x4xf32> -> tensor<4xf32>
// CHECK: %[[BESSEL:.+]] = mpg.constant dense<1.14285719> : tensor<f32>
// CHECK: %[[UV:.+]] = mpg.mul %[[BV]], %[[BESSEL]]
// CHECK-DAG: %[[MOM0:.+]] = mpg.constant dense<1.000000e-01> : tensor<f32>
// CHECK-DAG: %[[KEEP0:.+]] = mpg.constant dense<0.899999976> : tensor<f32>
// CHECK-DAG: %[[NEW0:.+]] = mpg.mul %[[BM]], %[[MOM0]]
// CHECK-DAG: %[[OLD0:.+]] = mpg.mul %[[RM]], %[[KEEP0]]
// CHECK: %[[NEWMEAN:.+]] = mpg.add %[[OLD0]], %[[NEW0]] : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
// CHECK-DAG: %[[MOM1:.+]] = mpg.constant dense<1.000000e-01> : tensor<f32>
// CHECK-DAG: %[[KEEP1:.+]] = mpg.constant dense<0.899999976> : tensor<f32>
// CHECK-DAG: %[[NEW1:.+]] = mpg.mul %[[UV]], %[[MOM1]]
// CHECK-DAG: %[[OLD1:.+]] = mpg.mul %[[RV]], %[[KEEP1]]
// CHECK: %[[NEWVAR:.+]] = mpg.add %[[OLD1]], %[[NEW1]] : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
// CHECK-NOT: mpg.batch_norm
// CHECK: mpg.state_write %[[RM]], %[[NEWMEAN]] : tensor<4xf32>
// CHECK: mpg.state_write %[[RV]], %[[NEWVAR]] : tensor<4xf32>
// CHECK: mpg.output "y" %[[Y]] : tensor<8x4xf32>
mpg.graph @batch_norm_nc {
  %x = mpg.input "x" : tensor<8x4xf32>
  %gamma = mpg.param "gamma" init(ones) : tensor<4xf32>
  %beta = mpg.param "beta" init(zeros) : tensor<4xf32>
  %mean = mpg.state "mean" init(zeros) : tensor<4xf32>
  %var = mpg.state "var" init(ones) : tensor<4xf32>
  %y, %mean2, %var2 = mpg.batch_norm %x, %gamma, %beta, %mean, %var
      : tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
      -> tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>
  mpg.state_write %mean, %mean2 : tensor<4xf32>
  mpg.state_write %var, %var2 : tensor<4xf32>
  mpg.output "y" %y : tensor<8x4xf32>
}

// -----

// fp16 input, fp32 parameters and running statistics: the statistics and
// the normalisation compute in fp32 (the input is widened once, the result
// rounded once at the end); the unbiasing factor 25088/25087 is applied in
// fp32 (in f16 it would be 1).
// CHECK-LABEL: mpg.graph @batch_norm_f16
// CHECK: %[[X:.+]] = mpg.input "x"
// CHECK: %[[GAMMA:.+]] = mpg.param "gamma"
// CHECK: %[[BETA:.+]] = mpg.param "beta"
// CHECK: %[[RM:.+]] = mpg.state "mean"
// CHECK: %[[RV:.+]] = mpg.state "var"
// CHECK: %[[X32:.+]] = mpg.cast %[[X]] : tensor<32x16x28x28xf16> to tensor<32x16x28x28xf32>
// CHECK: %[[MEAN:.+]] = mpg.reduce_mean %[[X32]] axes [0, 2, 3] keepdim : tensor<32x16x28x28xf32> -> tensor<1x16x1x1xf32>
// CHECK: %[[C:.+]] = mpg.sub %[[X32]], %[[MEAN]]
// CHECK: %[[VAR:.+]] = mpg.reduce_mean %{{.+}} axes [0, 2, 3] keepdim : tensor<32x16x28x28xf32> -> tensor<1x16x1x1xf32>
// CHECK: %[[EPS:.+]] = mpg.constant dense<{{.+}}> : tensor<f32>
// CHECK: %[[INV:.+]] = mpg.rsqrt
// CHECK-DAG: %[[G4:.+]] = mpg.reshape %[[GAMMA]] : tensor<16xf32> -> tensor<1x16x1x1xf32>
// CHECK-DAG: %[[B4:.+]] = mpg.reshape %[[BETA]] : tensor<16xf32> -> tensor<1x16x1x1xf32>
// CHECK: %[[N:.+]] = mpg.mul %[[C]], %[[INV]] : tensor<32x16x28x28xf32>, tensor<1x16x1x1xf32> -> tensor<32x16x28x28xf32>
// CHECK: %[[NG:.+]] = mpg.mul %[[N]], %[[G4]]
// CHECK: %[[Y32:.+]] = mpg.add %[[NG]], %[[B4]]
// CHECK: %[[Y:.+]] = mpg.cast %[[Y32]] : tensor<32x16x28x28xf32> to tensor<32x16x28x28xf16>
// CHECK: %[[BM:.+]] = mpg.reshape %[[MEAN]] : tensor<1x16x1x1xf32> -> tensor<16xf32>
// CHECK: %[[BV:.+]] = mpg.reshape %[[VAR]] : tensor<1x16x1x1xf32> -> tensor<16xf32>
// CHECK: %[[FACTOR:.+]] = mpg.constant dense<1.00003982> : tensor<f32>
// CHECK: %[[UNBIASED:.+]] = mpg.mul %[[BV]], %[[FACTOR]]
// CHECK: %[[NEWMEAN:.+]] = mpg.add %{{.+}}, %{{.+}} : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
// CHECK: %[[NEWVAR:.+]] = mpg.add %{{.+}}, %{{.+}} : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
// CHECK-NOT: mpg.batch_norm
// CHECK: mpg.state_write %[[RM]], %[[NEWMEAN]] : tensor<16xf32>
// CHECK: mpg.state_write %[[RV]], %[[NEWVAR]] : tensor<16xf32>
// CHECK: mpg.output "y" %[[Y]] : tensor<32x16x28x28xf16>
mpg.graph @batch_norm_f16 {
  %x = mpg.input "x" : tensor<32x16x28x28xf16>
  %gamma = mpg.param "gamma" init(ones) : tensor<16xf32>
  %beta = mpg.param "beta" init(zeros) : tensor<16xf32>
  %mean = mpg.state "mean" init(zeros) : tensor<16xf32>
  %var = mpg.state "var" init(ones) : tensor<16xf32>
  %y, %mean2, %var2 = mpg.batch_norm %x, %gamma, %beta, %mean, %var
      : tensor<32x16x28x28xf16>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
      -> tensor<32x16x28x28xf16>, tensor<16xf32>, tensor<16xf32>
  mpg.state_write %mean, %mean2 : tensor<16xf32>
  mpg.state_write %var, %var2 : tensor<16xf32>
  mpg.output "y" %y : tensor<32x16x28x28xf16>
}

// -----

// softmax, layer_norm and reduce_mean are not composites: left as they are.
// CHECK-LABEL: mpg.graph @left_alone
// CHECK-NEXT: %[[X:.+]] = mpg.input "x" : tensor<4x8xf32>
// CHECK-NEXT: %[[G:.+]] = mpg.param "gamma" init(ones) : tensor<8xf32>
// CHECK-NEXT: %[[B:.+]] = mpg.param "beta" init(zeros) : tensor<8xf32>
// CHECK-NEXT: %[[S:.+]] = mpg.softmax %[[X]] : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[LN:.+]] = mpg.layer_norm %[[S]], %[[G]], %[[B]] eps 1.000000e-03 : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[M:.+]] = mpg.reduce_mean %[[LN]] axes [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT: mpg.output "m" %[[M]] : tensor<4x1xf32>
// CHECK-NEXT: }
mpg.graph @left_alone {
  %x = mpg.input "x" : tensor<4x8xf32>
  %g = mpg.param "gamma" init(ones) : tensor<8xf32>
  %b = mpg.param "beta" init(zeros) : tensor<8xf32>
  %s = mpg.softmax %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %ln = mpg.layer_norm %s, %g, %b eps 1.0e-3 : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %m = mpg.reduce_mean %ln axes [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
  mpg.output "m" %m : tensor<4x1xf32>
}

// -----

// all_finite: one sum of x * 0 per operand (NaN exactly when an element is
// inf or NaN; f16 operands widened first), the total compared with itself.
// The sums are marked as finite checks (mpg-fuse puts them side by side).
// CHECK-LABEL: mpg.graph @all_finite
// CHECK: %[[A:.+]] = mpg.input "a" : tensor<4x8xf16>
// CHECK: %[[B:.+]] = mpg.input "b" : tensor<8xf32>
// CHECK-NOT: mpg.all_finite
// CHECK: %[[AW:.+]] = mpg.cast %[[A]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK: %[[Z:.+]] = mpg.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[AZ:.+]] = mpg.mul %[[AW]], %[[Z]]
// CHECK-NEXT: %[[SA:.+]] = mpg.reduce_sum %[[AZ]] axes [0, 1] {mpg.finite_check} : tensor<4x8xf32> -> tensor<f32>
// CHECK: %[[BZ:.+]] = mpg.mul %[[B]], %{{.+}}
// CHECK-NEXT: %[[SB:.+]] = mpg.reduce_sum %[[BZ]] axes [0] {mpg.finite_check} : tensor<8xf32> -> tensor<f32>
// CHECK-NEXT: %[[T:.+]] = mpg.add %[[SA]], %[[SB]]
// CHECK-NEXT: %[[OK:.+]] = mpg.compare eq, %[[T]], %[[T]] : tensor<f32>, tensor<f32> -> tensor<i1>
// CHECK-NEXT: mpg.output "ok" %[[OK]]
mpg.graph @all_finite {
  %a = mpg.input "a" : tensor<4x8xf16>
  %b = mpg.input "b" : tensor<8xf32>
  %ok = mpg.all_finite %a, %b : tensor<4x8xf16>, tensor<8xf32> -> tensor<i1>
  mpg.output "ok" %ok : tensor<i1>
}

// -----

// update_loss_scale: the signed counter (finite steps, or minus consecutive
// overflows), growth at the interval, backoff at -hysteresis, both bounded.
// CHECK-LABEL: mpg.graph @update_loss_scale
// CHECK-NOT: mpg.update_loss_scale
// CHECK: %[[UP:.+]] = mpg.maximum %[[N:.+]], %{{.+}} : tensor<i64>
// CHECK: %[[DOWN:.+]] = mpg.minimum %[[N]], %{{.+}} : tensor<i64>
// CHECK: %[[NEXT:.+]] = mpg.select %[[OK:.+]], %{{.+}}, %{{.+}} : tensor<i1>, tensor<i64>, tensor<i64> -> tensor<i64>
// CHECK: %[[I:.+]] = mpg.constant dense<100> : tensor<i64>
// CHECK-NEXT: %[[GROW:.+]] = mpg.compare ge, %[[NEXT]], %[[I]]
// CHECK-NEXT: %[[H:.+]] = mpg.constant dense<-3> : tensor<i64>
// CHECK-NEXT: %[[BACK:.+]] = mpg.compare le, %[[NEXT]], %[[H]]
// CHECK: dense<4.000000e+00> : tensor<f32>
// CHECK: mpg.minimum
// CHECK: dense<2.500000e-01> : tensor<f32>
// CHECK: mpg.maximum
// CHECK: mpg.output "s2"
// CHECK: mpg.output "n2"
mpg.graph @update_loss_scale {
  %s = mpg.input "s" : tensor<f32>
  %n = mpg.input "n" : tensor<i64>
  %ok = mpg.input "ok" : tensor<i1>
  %s2, %n2 = mpg.update_loss_scale %s, %n, %ok growth_factor 4.0 backoff_factor 0.25
      growth_interval 100 hysteresis 3 : tensor<f32>, tensor<i64>, tensor<i1>
  mpg.output "s2" %s2 : tensor<f32>
  mpg.output "n2" %n2 : tensor<i64>
}
