// RUN: mpc-opt %s --mpg-assign-precision=mode=fp16 --mpg-verify-precision -split-input-file -verify-diagnostics | FileCheck %s
// RUN: mpc-opt %s --mpg-assign-precision=mode=fp16 -split-input-file -verify-diagnostics | mpc-opt -split-input-file --mpg-verify-precision | FileCheck %s --check-prefix=REPARSE
// RUN: mpc-opt %s --mpg-assign-precision=mode=bf16 -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=BF16
// RUN: mpc-opt %s --mpg-assign-precision=mode=fp32 -split-input-file > %t.fp32
// RUN: mpc-opt %s -split-input-file > %t.plain
// RUN: diff %t.plain %t.fp32

// Category decisions for each op family, casts at boundaries only, one cast
// per value, cast-pair removal, constants converted, outputs and state
// writes keeping their types. The second RUN line re-parses the output and
// verifies it; in fp32 mode nothing changes (the diff).

// REPARSE-COUNT-6: mpg.graph @

// A linear layer: the weight is cast once although two matmuls read it; the
// bias add follows the matmul into f16; the loss reads f32 and computes in
// f32; the outputs are widened back to their declared f32 (5 casts: x, w, b
// and the two outputs).
// CHECK-LABEL: mpg.graph @linear attributes {mpg.precision_summary = {casts_inserted = 5 : i64, casts_removed = 0 : i64, mode = "fp16"}}
// CHECK: %[[X:.+]] = mpg.input "x" : tensor<8x16xf32>
// CHECK-NEXT: %[[XH:.+]] = mpg.cast %[[X]] : tensor<8x16xf32> to tensor<8x16xf16>
// CHECK: %[[W:.+]] = mpg.param "w"
// CHECK-NEXT: %[[WH:.+]] = mpg.cast %[[W]] : tensor<16x4xf32> to tensor<16x4xf16>
// CHECK: %[[B:.+]] = mpg.param "b"
// CHECK-NEXT: %[[BH:.+]] = mpg.cast %[[B]] : tensor<4xf32> to tensor<4xf16>
// CHECK: %[[Y:.+]] = mpg.matmul %[[XH]], %[[WH]] {mpg.precision_decision = {accumulate = f32, category = "dot-product", compute = f32, reason = "dot-product: {{.*}}", storage = f16}} : tensor<8x16xf16>, tensor<16x4xf16> -> tensor<8x4xf16>
// CHECK-NEXT: %[[Z:.+]] = mpg.add %[[Y]], %[[BH]] {mpg.precision_decision = {category = "follow", {{.*}}storage = f16}} : tensor<8x4xf16>, tensor<4xf16> -> tensor<8x4xf16>
// CHECK-NEXT: %[[ZF:.+]] = mpg.cast %[[Z]] : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[Y2:.+]] = mpg.matmul %[[XH]], %[[WH]] {{.*}}-> tensor<8x4xf16>
// CHECK-NEXT: mpg.cast %[[Y2]] : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[L:.+]] = mpg.softmax_cross_entropy %[[ZF]], %{{.+}} {mpg.precision_decision = {category = "loss", compute = f32, {{.*}}storage = f32}} : tensor<8x4xf32>, tensor<8xi32> -> tensor<f32>
// CHECK-NEXT: mpg.output "logits" %[[ZF]] : tensor<8x4xf32>
// CHECK-NEXT: mpg.output "again" %{{.+}} : tensor<8x4xf32>
// CHECK-NEXT: mpg.minimize %[[L]]
// BF16-LABEL: mpg.graph @linear attributes {mpg.precision_summary = {casts_inserted = 5 : i64, casts_removed = 0 : i64, mode = "bf16"}}
// BF16: mpg.matmul {{.*}}storage = bf16}} : tensor<8x16xbf16>, tensor<16x4xbf16> -> tensor<8x4xbf16>
mpg.graph @linear {
  %x = mpg.input "x" : tensor<8x16xf32>
  %labels = mpg.input "labels" : tensor<8xi32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<16x4xf32>
  %b = mpg.param "b" init(zeros) : tensor<4xf32>
  %y = mpg.matmul %x, %w : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %z = mpg.add %y, %b : tensor<8x4xf32>, tensor<4xf32> -> tensor<8x4xf32>
  %y2 = mpg.matmul %x, %w : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %l = mpg.softmax_cross_entropy %z, %labels : tensor<8x4xf32>, tensor<8xi32> -> tensor<f32>
  mpg.output "logits" %z : tensor<8x4xf32>
  mpg.output "again" %y2 : tensor<8x4xf32>
  mpg.minimize %l optimizer(sgd, lr = 0.1) : tensor<f32>
}

// -----

// Reductions, softmax, norms and sensitive ops compute and store f32 (their
// f16 operands are widened); data movement and pointwise ops follow their
// operands; a constant is converted, not cast; a comparison with a constant
// stays in f16; a gather from an f32 table stays f32.
// CHECK-LABEL: mpg.graph @families
// CHECK: %[[HALF:.+]] = mpg.constant dense<5.000000e-01> : tensor<f16>
// CHECK: %[[A:.+]] = mpg.matmul {{.*}}-> tensor<4x8xf16>
// CHECK-NEXT: %[[AF:.+]] = mpg.cast %[[A]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK-NEXT: %[[T:.+]] = mpg.transpose %[[A]] perm [1, 0] {mpg.precision_decision = {category = "follow", {{.*}}storage = f16}} : tensor<4x8xf16> -> tensor<8x4xf16>
// CHECK-NEXT: mpg.cast %[[T]]
// CHECK-NEXT: mpg.reduce_sum %[[AF]] axes [1] {mpg.precision_decision = {category = "reduction", {{.*}}storage = f32}} : tensor<4x8xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[M:.+]] = mpg.reduce_max %[[A]] axes [1] {mpg.precision_decision = {category = "follow", {{.*}}storage = f16}} : tensor<4x8xf16> -> tensor<4xf16>
// CHECK-NEXT: mpg.cast %[[M]]
// CHECK-NEXT: mpg.softmax %[[AF]] {mpg.precision_decision = {category = "softmax", {{.*}}storage = f32}} : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: mpg.layer_norm %[[AF]], %{{.+}}, %{{.+}} {mpg.precision_decision = {category = "norm", {{.*}}storage = f32}} : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: mpg.exp %[[AF]] {mpg.precision_decision = {category = "sensitive", {{.*}}storage = f32}} : tensor<4x8xf32>
// CHECK-NEXT: %[[H:.+]] = mpg.mul %[[A]], %[[HALF]] {{.*}}: tensor<4x8xf16>, tensor<f16> -> tensor<4x8xf16>
// CHECK-NEXT: mpg.cast %[[H]]
// CHECK-NEXT: mpg.compare gt, %[[A]], %[[HALF]] {{.*}}: tensor<4x8xf16>, tensor<f16> -> tensor<4x8xi1>
// CHECK-NEXT: mpg.embedding %{{.+}}, %{{.+}} {mpg.precision_decision = {category = "follow", {{.*}}storage = f32}} : tensor<10x8xf32>, tensor<4xi32> -> tensor<4x8xf32>
// CHECK-NOT: dense<5.000000e-01> : tensor<f32>
mpg.graph @families {
  %x = mpg.input "x" : tensor<4x6xf32>
  %ids = mpg.input "ids" : tensor<4xi32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<6x8xf32>
  %g = mpg.param "g" init(ones) : tensor<8xf32>
  %be = mpg.param "be" init(zeros) : tensor<8xf32>
  %table = mpg.param "table" init(normal, std = 0.1) : tensor<10x8xf32>
  %half = mpg.constant dense<0.5> : tensor<f32>
  %a = mpg.matmul %x, %w : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  %t = mpg.transpose %a perm [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %s = mpg.reduce_sum %a axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %m = mpg.reduce_max %a axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %p = mpg.softmax %a : tensor<4x8xf32> -> tensor<4x8xf32>
  %n = mpg.layer_norm %a, %g, %be : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %e = mpg.exp %a : tensor<4x8xf32>
  %h = mpg.mul %a, %half : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %c = mpg.compare gt, %a, %half : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xi1>
  %r = mpg.embedding %table, %ids : tensor<10x8xf32>, tensor<4xi32> -> tensor<4x8xf32>
  mpg.output "t" %t : tensor<8x4xf32>
  mpg.output "s" %s : tensor<4xf32>
  mpg.output "m" %m : tensor<4xf32>
  mpg.output "p" %p : tensor<4x8xf32>
  mpg.output "n" %n : tensor<4x8xf32>
  mpg.output "e" %e : tensor<4x8xf32>
  mpg.output "h" %h : tensor<4x8xf32>
  mpg.output "c" %c : tensor<4x8xi1>
  mpg.output "r" %r : tensor<4x8xf32>
}

// -----

// Overrides: mpg.precision = "f32" keeps a matmul in f32, "f16" puts an exp
// in f16; a comparison of an f16 and an f32 value compares in f32.
// CHECK-LABEL: mpg.graph @overrides
// CHECK: mpg.matmul %{{.+}}, %{{.+}} {mpg.precision = "f32", mpg.precision_decision = {accumulate = f32, category = "dot-product", compute = f32, forced, reason = "override: mpg.precision = \22f32\22 on the op", storage = f32}} : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
// CHECK: mpg.exp %{{.+}} {mpg.precision = "f16", mpg.precision_decision = {category = "sensitive", {{.*}}reason = "override: {{.*}}storage = f16}} : tensor<4x8xf16>
// CHECK: mpg.compare lt, {{.*}}: tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xi1>
mpg.graph @overrides {
  %x = mpg.input "x" : tensor<4x6xf32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<6x8xf32>
  %v = mpg.param "v" init(glorot_uniform) : tensor<6x8xf32>
  %a = mpg.matmul %x, %w {mpg.precision = "f32"} : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  %e = mpg.exp %a {mpg.precision = "f16"} : tensor<4x8xf32>
  %b = mpg.matmul %x, %v : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  %c = mpg.compare lt, %b, %a : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xi1>
  mpg.output "e" %e : tensor<4x8xf32>
  mpg.output "c" %c : tensor<4x8xi1>
}

// -----

// Cast pairs: a dot-product that needs the f16 value of the author's
// widening reads the original instead of narrowing it again (a removed
// pair; the casts inserted are w's and the output's).
// CHECK-LABEL: mpg.graph @cast_pairs attributes {mpg.precision_summary = {casts_inserted = 2 : i64, casts_removed = 1 : i64, mode = "fp16"}}
// CHECK: %[[X:.+]] = mpg.input "x" : tensor<4x6xf16>
// CHECK-NEXT: %[[UP:.+]] = mpg.cast %[[X]] : tensor<4x6xf16> to tensor<4x6xf32>
// CHECK: mpg.matmul %[[X]], %{{.+}} {{.*}}: tensor<4x6xf16>, tensor<6x8xf16> -> tensor<4x8xf16>
// CHECK: mpg.output "up" %[[UP]]
mpg.graph @cast_pairs {
  %x = mpg.input "x" : tensor<4x6xf16>
  %up = mpg.cast %x : tensor<4x6xf16> to tensor<4x6xf32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<6x8xf32>
  %a = mpg.matmul %up, %w : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  mpg.output "a" %a : tensor<4x8xf32>
  mpg.output "up" %up : tensor<4x6xf32>
}

// -----

// f64 ops (reference runs) are left as written.
// CHECK-LABEL: mpg.graph @f64
// CHECK-NOT: mpg.cast
// CHECK: mpg.matmul %{{.+}}, %{{.+}} : tensor<4x6xf64>, tensor<6x8xf64> -> tensor<4x8xf64>
mpg.graph @f64 {
  %x = mpg.input "x" : tensor<4x6xf64>
  %w = mpg.param "w" init(glorot_uniform) : tensor<6x8xf64>
  %a = mpg.matmul %x, %w : tensor<4x6xf64>, tensor<6x8xf64> -> tensor<4x8xf64>
  mpg.output "a" %a : tensor<4x8xf64>
}

// -----

// A graph without float math is left alone (apart from its summary).
// CHECK-LABEL: mpg.graph @integers
// CHECK-NOT: mpg.cast
// CHECK: mpg.add %{{.+}}, %{{.+}} : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
mpg.graph @integers {
  %x = mpg.input "x" : tensor<4xi32>
  %y = mpg.add %x, %x : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  mpg.output "y" %y : tensor<4xi32>
}

