// RUN: rm -rf %t && mkdir -p %t
// RUN: mpc compile %s --emit cuda | FileCheck %s --check-prefix=STAGED
// RUN: mpc compile %s -o %t/sums.mpcb
// RUN: %pynum -c "import numpy as np; rng = np.random.default_rng(3); [np.save('%t/' + n + '.npy', rng.uniform(-2, 2, (64, 300)).astype(np.float16)) for n in 'ab']"
// RUN: mpc run %t/sums.mpcb --input a=%t/a.npy --input b=%t/b.npy --output columns=%t/columns.npy --output rows=%t/rows.npy > /dev/null
// RUN: %pynum -c "import numpy as np; x = lambda n: np.load('%t/' + n + '.npy').astype(np.float64); print([float(np.abs(np.load('%t/' + n + '.npy') - x(i).sum(axis=a)).max()) < 1e-4 for n, i, a in (('columns', 'a', 0), ('rows', 'b', 1))])" | FileCheck %s

// The host forms of reductions over fp16 inputs, which widen blocks of up
// to 256 before summing them (codegen/host-forms.mlir), against numpy's
// sums in float64: column sums in two tiles of columns, row sums in two
// blocks.
// STAGED-COUNT-2: mpc::widen_chunk(p0 +
// CHECK: [True, True]
mpg.graph @half_sums {
  %a = mpg.input "a" : tensor<64x300xf16>
  %b = mpg.input "b" : tensor<64x300xf16>
  %wa = mpg.cast %a : tensor<64x300xf16> to tensor<64x300xf32>
  %wb = mpg.cast %b : tensor<64x300xf16> to tensor<64x300xf32>
  %columns = mpg.reduce_sum %wa axes [0] : tensor<64x300xf32> -> tensor<300xf32>
  %rows = mpg.reduce_sum %wb axes [1] : tensor<64x300xf32> -> tensor<64xf32>
  mpg.output "columns" %columns : tensor<300xf32>
  mpg.output "rows" %rows : tensor<64xf32>
}
