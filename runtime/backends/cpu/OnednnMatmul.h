//===- OnednnMatmul.h - GEMMs on the CPU with oneDNN's matmul -------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// oneDNN (Debian's libdnnl) multiplies bf16 matrices with the CPU's bf16
// dot-product instructions (AVX512-BF16), products accumulated in fp32 (as
// on the GPU; bf16 subnormals count as zero there), at about twice the rate
// of an fp32 GEMM of the widened operands; and its fp32 kernels beat
// OpenBLAS's on large problems. HostGemm runs those GEMMs here, the rest
// with OpenBLAS. Primitives are created once per shape and kept.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_BACKENDS_CPU_ONEDNNMATMUL_H
#define MPC_RUNTIME_BACKENDS_CPU_ONEDNNMATMUL_H

#include "mpc/format/HostTensor.h"

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

namespace mpc::rt {

class OnednnMatmul {
public:
  OnednnMatmul();
  ~OnednnMatmul();
  OnednnMatmul(const OnednnMatmul &) = delete;
  OnednnMatmul &operator=(const OnednnMatmul &) = delete;

  /// Whether run() takes `dtype` operands (F32 or BF16) of this size: bf16
  /// problems of at least kBf16MinMacs multiply-adds when this CPU has a bf16
  /// kernel, f32 ones of at least kF32MinMacs. Below those widening and
  /// OpenBLAS are faster. Measured with one thread on AMD Zen 4, oneDNN's
  /// time against OpenBLAS's: 1.1x to 1.5x below about 2^19 multiply-adds,
  /// 0.81x to 0.93x from 2^20 (bench/results/2026-12-01-cpu-vs-pytorch-4.md);
  /// a C of few columns over a long sum, which OpenBLAS ran faster, is
  /// computed as its transpose (transposesNarrow) or, from 13 columns, is
  /// faster in oneDNN as it is (bench/results/2026-12-02-cpu-narrow-gemms.md).
  bool handles(DType dtype, int64_t m, int64_t n, int64_t k);

  /// c (m x n) = op(a) op(b) [+ bias] [+ beta c], row-major, op a
  /// transpose when asked, bias (n f32 values, or null) added to every row
  /// in fp32 before c is rounded to `cDtype` (F32 or BF16); a non-zero
  /// `beta` (an f32 c, no bias) adds beta times c's old values (oneDNN's sum
  /// post-op). False when oneDNN cannot, and the caller computes c another
  /// way. (No activation: oneDNN's ReLU post-op turns NaN into 0, and a NaN
  /// must reach the loss scaler.) A narrow c (transposesNarrow) is computed
  /// only in f32 without a bias.
  bool run(DType dtype, DType cDtype, bool transposeA, bool transposeB, int64_t m, int64_t n,
           int64_t k, const void *a, const void *b, const float *bias, void *c, float beta = 0.0f);

  /// The same for `batch` products at once, operand i at a + i * strideA
  /// (elements; 0 shares the operand), likewise b and c: one call for a
  /// strided-batched GEMM, which for small matrices (a convolution's
  /// per-image GEMMs) costs far less than a call per matrix.
  bool runBatched(DType dtype, DType cDtype, bool transposeA, bool transposeB, int64_t m,
                  int64_t n, int64_t k, int64_t batch, const void *a, int64_t strideA,
                  const void *b, int64_t strideB, const float *bias, void *c,
                  int64_t strideC);

  /// Whether a single product with this C is computed as its transpose,
  /// C^T = op(B)^T op(A)^T, and transposed back: a C of at most
  /// kMaxNarrowColumns columns and at least 4 rows per column (a logits
  /// layer's product and its weight gradient). oneDNN's kernels run along a
  /// row of C, 16 columns at a time, and a narrow C leaves most lanes idle.
  /// Measured alone with one thread on AMD Zen 4
  /// (bench/results/2026-12-02-cpu-narrow-gemms.md): 256x10x1024 takes 35 µs
  /// instead of 83 in bf16 and 80 instead of 166 in f32 (OpenBLAS: 121),
  /// 1024x10x256 41 instead of 76 and 68 instead of 113 (OpenBLAS: 159).
  /// From 13 columns the gain depends on the shape (256x15x512 is slower
  /// transposed, 256x15x1024 faster), and below 4 rows per column there is
  /// none, so those stay as they are.
  static bool transposesNarrow(int64_t m, int64_t n) {
    return n > 0 && n <= kMaxNarrowColumns && m >= 4 * n;
  }

  static constexpr int64_t kMaxNarrowColumns = 12;
  static constexpr int64_t kBf16MinMacs = int64_t(1) << 16;
  static constexpr int64_t kF32MinMacs = int64_t(1) << 20;

private:
  struct Engine;
  /// Operand dtype, C dtype, transposes, bias or not, m, n, k, then batch
  /// and the strides of a, b and c (1 and 0, 0, 0 for a single product),
  /// then beta (a single product's; 0 without a sum post-op).
  using Key = std::tuple<int, int, bool, bool, bool, int64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, int64_t, float>;
  struct Primitive;
  Primitive *primitive(const Key &key);

  std::unique_ptr<Engine> engine_;
  std::map<Key, std::unique_ptr<Primitive>> primitives_;
  int bf16Support_ = -1; // unknown, no, yes
  /// Runs the primitive of `key` on these operands.
  bool execute(const Key &key, const void *a, const void *b, const float *bias, void *c);
  /// A narrow product (transposesNarrow) into an f32 c: C^T computed into
  /// transposed_, then c = its transpose + beta c (c unread when beta is 0).
  bool narrowProduct(DType dtype, bool transposeA, bool transposeB, int64_t m, int64_t n, int64_t k,
                     const void *a, const void *b, float *c, float beta);
  /// C^T of a narrow product before it is transposed into C.
  std::vector<float> transposed_;
};

} // namespace mpc::rt

#endif // MPC_RUNTIME_BACKENDS_CPU_ONEDNNMATMUL_H
