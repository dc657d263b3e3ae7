//===- HostSgemm.h - mpc's own fp32 GEMM for AVX-512 CPUs -----------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// An fp32 GEMM written for the weight-gradient products of a training step:
// C (m x n) = op(A) op(B) with a sum of at most kMaxDepth products per
// element, over many rows (a batch of 256 summed into a 784x1024 or
// 1024x1024 weight gradient). Both operands are packed (A into panels of
// kRows rows, B into panels of kColumns columns), and a register-blocked
// kernel of kRows x kColumns accumulators (28 zmm) multiplies a panel pair
// with AVX-512 multiply-adds. Measured alone with one thread on AMD Zen 4
// (bench/runtime/mpc-cpu-gemm, bench/results/2026-12-03-host-sgemm.md), it
// takes 0.96x to 1.00x the time of oneDNN 2.6's matmul on those shapes,
// and 1.02x to 1.06x on products over a longer sum with 256 rows (a
// forward layer's, an input gradient's), whose B it packs for too few
// rows; HostGemm therefore uses it only where `takes` says so, and only
// where one thread multiplies (it has no threads of its own). Sums
// longer than kMaxDepth are computed in blocks of at most that depth,
// added into C in order (multiply computes any shape; the unit tests run
// it on all of them).
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_BACKENDS_CPU_HOSTSGEMM_H
#define MPC_RUNTIME_BACKENDS_CPU_HOSTSGEMM_H

#include <cstdint>
#include <vector>

namespace mpc::rt {

class HostSgemm {
public:
  /// Rows and columns of C one kernel call computes, and the longest sum
  /// one packed block holds.
  static constexpr int kRows = 14;
  static constexpr int kColumns = 32;
  static constexpr int kMaxDepth = 256;

  /// Whether this CPU runs multiply (AVX-512F).
  static bool available();

  /// Whether HostGemm multiplies an fp32 product of this shape here rather
  /// than with oneDNN or OpenBLAS: when `usedByDefault` and the shape
  /// `fits`. MPC_CPU_HOST_SGEMM=0 says never and =1 always (any shape, any
  /// CPU, any thread count), for side-by-side measurements and tests.
  static bool takes(int64_t m, int64_t n, int64_t k);

  /// The shapes it was measured faster on: a sum of kMinDepth to kMaxDepth
  /// products (one packed block), at least kMinRows rows and kColumns
  /// columns.
  static bool fits(int64_t m, int64_t n, int64_t k);

  /// Where it was measured faster: a CPU whose AVX-512 instructions run on
  /// 256-bit units (AVX-512F without cpuHasFullWidthAvx512: AMD Zen 4), and
  /// libraries that would multiply on one thread, as it does
  /// (singleThreaded).
  static bool usedByDefault();

  /// Whether the library HostSgemm stands in for would run on one thread:
  /// a process allowed one CPU, or, for oneDNN (OpenMP), OMP_NUM_THREADS=1;
  /// in a build without oneDNN, for OpenBLAS, OPENBLAS_NUM_THREADS=1 or,
  /// that unset, OMP_NUM_THREADS=1.
  static bool singleThreaded();

  /// c = op(a) op(b) + beta c, all row-major: op(a) is m x k (a is k x m
  /// when transposeA), op(b) k x n (b is n x k when transposeB), c m x n; c
  /// is not read when beta is 0. (On a CPU without AVX-512F, in plain
  /// loops.)
  void multiply(bool transposeA, bool transposeB, int64_t m, int64_t n, int64_t k, const float *a,
                const float *b, float *c, float beta = 0.0f);

  static constexpr int64_t kMinDepth = 128;
  static constexpr int64_t kMinRows = 512;

private:
  std::vector<float> packedA_, packedB_;
};

} // namespace mpc::rt

#endif // MPC_RUNTIME_BACKENDS_CPU_HOSTSGEMM_H
