//===- HostGemm.h - GEMM steps on the CPU: OpenBLAS and oneDNN ------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Runs a manifest's gemm step (see Manifest.h) with OpenBLAS (in a build
// without it, with plain loops of the same arithmetic) and, in a build with
// oneDNN, bf16 GEMMs and large fp32 ones with oneDNN (OnednnMatmul.h),
// but for fp32 weight gradients, which mpc's own GEMM multiplies on a CPU
// with half-width AVX-512 when one thread multiplies (HostSgemm.h).
// Operands that are not already in the compute type are widened into
// scratch memory (bf16 ones only without oneDNN), or, for an f16 operand
// the manifest asks to keep, into a copy that later steps reuse; a kept f16
// result's stored values go to such a copy too (GemmOperandCopies). The
// compute type is f32, which gives fp16/bf16 products accumulated in fp32
// as on the GPU, or f64 (cblas_dgemm) when A, B and C are all f64, for
// reference runs. The epilogue is computed in the compute type and the
// result rounded once to C's dtype (when oneDNN multiplies and C is f32 or
// bf16 without GELU, oneDNN adds the bias and rounds, and the ReLU is
// applied to C after it; except for a narrow C, which oneDNN computes as
// its transpose in f32, OnednnMatmul::transposesNarrow). A strided batch
// that oneDNN takes is one call for the whole batch: bf16 operands as they
// are, others widened to fp32 once for the batch; a C oneDNN does not
// write (fp16, or GELU's) is rounded from the batch's fp32 products. Kept
// copies are memory for the program's life: 4 bytes per kept element,
// counted in the backend's device bytes.
// Epilogues:
//   bias: adds bias[j] to every column j; relu: max(x, 0), NaN stays NaN;
//   gelu: the tanh approximation 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715
//   x^3))).
// A step's beta (C = product + beta C, into an f32 or f64 C) goes to the
// library that multiplies: oneDNN's sum post-op, HostSgemm's and OpenBLAS's
// beta.
// A step's relu_grad hint is taken: the result is masked by aux as it is
// rounded and written to out (or, when oneDNN wrote C, masked from C into
// out); the CPU backend then skips the launch after the step.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_BACKENDS_CPU_HOSTGEMM_H
#define MPC_RUNTIME_BACKENDS_CPU_HOSTGEMM_H

#include "HostSgemm.h"
#include "mpc/format/Manifest.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace mpc::rt {

class OnednnMatmul;

/// Scratch memory for widened operands of one compute type, and for a
/// result rounded before a relu_grad hint's mask.
template <typename T> struct GemmScratch {
  std::vector<T> a, b, c, bias;
  std::vector<uint8_t> rounded;
};

/// Widened fp32 copies of f16 operands that outlive their step (the
/// manifest's keep_a/keep_b/keep_c and reuse_a/reuse_b): a kept operand is
/// widened into its copy, a kept f16 result's stored values go to its copy
/// as the result is rounded, and a reused operand is read from the copy an
/// earlier step kept.
struct GemmOperandCopies {
  std::vector<float> *keepA = nullptr, *keepB = nullptr, *keepC = nullptr;
  const std::vector<float> *reuseA = nullptr, *reuseB = nullptr;
};

/// Where a step's relu_grad hint reads aux and writes out (null without
/// one): the GEMM then writes out (and C only when oneDNN writes it).
struct GemmReluGradBuffers {
  const uint8_t *aux = nullptr;
  uint8_t *out = nullptr;
};

class HostGemm {
public:
  HostGemm();
  ~HostGemm();
  HostGemm(const HostGemm &) = delete;
  HostGemm &operator=(const HostGemm &) = delete;

  /// Runs `step` (a verified step) on its operands: `a`, `b`, `c` and `bias`
  /// (null without a bias) are the addresses of the step's buffers.
  void run(const GemmStep &step, const uint8_t *a, const uint8_t *b,
           const uint8_t *bias, uint8_t *c, const GemmOperandCopies &copies = {},
           const GemmReluGradBuffers &reluGrad = {});

  /// Whether run multiplies `step`'s matrices one by one whatever its batch
  /// (for a gathered im2col_b, whose passes over a few images then give the
  /// bits of the whole batch): fp32 or fp16 operands in matrices too small
  /// for oneDNN alone where such batches are not one call
  /// (batchesSmallF32_), f64 ones, and any in a build without oneDNN.
  bool multipliesMatrixByMatrix(const GemmStep &step);

private:
  template <typename T>
  void runIn(const GemmStep &step, const uint8_t *a, const uint8_t *b, const uint8_t *bias,
             uint8_t *c, GemmScratch<T> &scratch, const GemmOperandCopies &copies,
             const GemmReluGradBuffers &reluGrad);

  HostSgemm sgemm_;
  GemmScratch<float> single_;
  GemmScratch<double> double_;
  /// Deletes what only a build with oneDNN creates.
  struct OnednnDeleter {
    void operator()(OnednnMatmul *matmul) const;
  };
  std::unique_ptr<OnednnMatmul, OnednnDeleter> onednn_; // null in a build without oneDNN
  /// Whether a strided batch of fp32 (or widened fp16) matrices too small
  /// for oneDNN alone is one oneDNN call (else OpenBLAS, matrix by matrix):
  /// smallF32BatchesInOneCall in HostGemm.cpp.
  bool batchesSmallF32_ = false;
};

} // namespace mpc::rt

#endif // MPC_RUNTIME_BACKENDS_CPU_HOSTGEMM_H
