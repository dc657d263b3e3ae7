//===- GemmPlan.h - manifest GEMM steps as cuBLASLt matmuls ---------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// A manifest's gemm step (Manifest.h) is row-major: C = epilogue(op(A)
// op(B) + bias), C m x n. cuBLASLt is column-major, and a row-major matrix
// is the column-major layout of its transpose, so the step runs as
//   C^T = op(B)^T op(A)^T
// cuBLASLt's A is the step's B and its B the step's A, its sizes are
// (n, m, k), and its D (n x m, column-major) is exactly C's memory. The
// step's bias, one value per column of C, is one per row of D, which is how
// cuBLASLt broadcasts a bias. No operand is copied or transposed.
//
// Types: f16 or bf16 operands accumulate in fp32 (CUBLAS_COMPUTE_32F) and
// write D in their own type or in f32; f32 operands compute in plain fp32
// (not TF32) and f64 in fp64, as on the CPU. cuBLASLt takes the bias in D's
// type; `mpc compile` only fuses a bias of the result's type.
//
// planGemm is pure logic (tested without a GPU); GemmCall creates the
// cuBLASLt descriptors of a plan and picks its algorithm.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_BACKENDS_CUDA_GEMMPLAN_H
#define MPC_RUNTIME_BACKENDS_CUDA_GEMMPLAN_H

#include "mpc/toolchain/CudaApi.h"
#include "mpc/format/Manifest.h"
#include "mpc/format/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mpc::rt {

/// One cuBLASLt matrix layout (column-major).
struct LtMatrix {
  cudaDataType type = CUDA_R_32F;
  uint64_t rows = 0, cols = 0;
  int64_t ld = 0;
  int32_t batch = 1;
  /// Elements between consecutive matrices of a batch (0: shared).
  int64_t batchStride = 0;
};

/// A gemm step as one cublasLtMatmul call.
struct LtGemmPlan {
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  /// The type of alpha and beta.
  cudaDataType scaleType = CUDA_R_32F;
  cublasOperation_t transA = CUBLAS_OP_N, transB = CUBLAS_OP_N;
  /// cuBLASLt's A (the step's B), B (the step's A) and D (also its C,
  /// which beta = 0 leaves unread).
  LtMatrix a, b, d;
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  /// The step's beta: D = alpha op(A) op(B) + beta C with C = D, read in
  /// place (cuBLASLt reads C only when beta is not 0).
  double beta = 0;
  bool hasBias = false;
  cudaDataType biasType = CUDA_R_32F;
  /// Where each operand starts, in bytes from its buffer.
  uint64_t aOffsetBytes = 0, bOffsetBytes = 0, dOffsetBytes = 0;

  /// Text that identifies the plan (types, sizes, transposes, epilogue).
  std::string key() const;
};

/// The cuBLASLt form of `step` (a verified step); MPC_UNSUPPORTED, with a
/// message starting "steps[`index`]", for a type combination cuBLASLt does
/// not run or a bias of another type than the result.
Status planGemm(const GemmStep &step, size_t index, LtGemmPlan &out);

/// The largest power of two, at most 256, that divides `address` and, with
/// a batch, the byte stride between its matrices (cuBLASLt's
/// CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*_BYTES).
uint32_t operandAlignment(uint64_t address, int64_t strideBytes, int32_t batch);

/// The most of cuBLASLt's choices a GEMM call keeps for timing.
constexpr int kMaxGemmCandidates = 8;

/// Forgets every algorithm chosen in the process (for tests).
void resetGemmAlgorithmCache();

/// A plan's cuBLASLt descriptors and chosen algorithm, on fixed operand
/// addresses; destroys the descriptors with it.
class GemmCall {
public:
  GemmCall() = default;
  GemmCall(const GemmCall &) = delete;
  GemmCall &operator=(const GemmCall &) = delete;
  GemmCall(GemmCall &&other) noexcept;
  GemmCall &operator=(GemmCall &&other) = delete;
  ~GemmCall();

  /// Creates the descriptors of `plan` on device addresses `a`, `b`, `d` and
  /// `bias` (0 without one) — the step's operands, offsets included — and
  /// takes the algorithm cuBLASLt's heuristic ranks first among those that
  /// fit `workspace` bytes and the operands' alignment. The choice is
  /// cached for the process per `device` (a text naming the GPU), plan,
  /// alignment and workspace (key()), so equal shapes ask once. With
  /// `candidates` > 1 the heuristic's first `candidates` choices are kept
  /// (candidates()) for the caller to time, unless the process has already
  /// timed this key, whose winner is taken. `what` starts error messages.
  Status create(const CublasLtApi &blas, cublasLtHandle_t handle, const std::string &device,
                const LtGemmPlan &plan, CUdeviceptr a, CUdeviceptr b, CUdeviceptr d,
                CUdeviceptr bias, uint64_t workspaceBytes, const std::string &what,
                int candidates = 1);

  /// Enqueues the matmul on `stream` with `workspace`.
  Status enqueue(cublasLtHandle_t handle, CUstream stream, CUdeviceptr workspace,
                 uint64_t workspaceBytes, const std::string &what) const;

  /// Enqueues it with `algo`, writing (and, with beta != 0, reading) `d`
  /// instead of the step's result: `d` holds dBytes() with the same layout.
  /// For timing candidates without touching the program's memory.
  Status enqueueWith(cublasLtHandle_t handle, CUstream stream, const cublasLtMatmulAlgo_t &algo,
                     CUdeviceptr d, CUdeviceptr workspace, uint64_t workspaceBytes,
                     const std::string &what) const;

  /// The heuristic's choices kept by create() for timing, best ranked
  /// first; empty when there is nothing to choose between.
  const std::vector<cublasLtMatmulAlgo_t> &candidates() const { return candidates_; }

  /// Takes `algo` (the candidate a timing chose; `source` says how) for
  /// this call and every call of the same key created later in the
  /// process, unless another load settled that key first, whose choice it
  /// takes instead.
  void choose(const cublasLtMatmulAlgo_t &algo, const std::string &source);

  /// Keeps the heuristic's first choice, untimed (`source` says why), and
  /// leaves the key to a later load's timing.
  void keepFirstChoice(const std::string &source);

  /// How the algorithm was chosen: "cuBLASLt's heuristic", "timed at load:
  /// cuBLASLt's choice R of N", or the heuristic's with the reason it was
  /// not timed.
  const std::string &algorithmSource() const { return source_; }

  /// What the algorithm choice depends on (see create()).
  const std::string &key() const { return key_; }
  /// Bytes of the result matrix, batches included.
  int64_t dBytes() const { return dBytes_; }

  /// Restricts `preference` to algorithms for this call's operand
  /// alignment (as create() did for its own choice).
  cublasStatus_t preferOperandAlignment(const CublasLtApi &blas,
                                        cublasLtMatmulPreference_t preference) const;

  cublasLtMatmulDesc_t desc() const { return desc_; }
  cublasLtMatrixLayout_t layoutA() const { return a_; }
  cublasLtMatrixLayout_t layoutB() const { return b_; }
  cublasLtMatrixLayout_t layoutD() const { return d_; }
  const cublasLtMatmulAlgo_t &algorithm() const { return algo_; }
  CUdeviceptr a() const { return aPtr_; }
  CUdeviceptr b() const { return bPtr_; }
  CUdeviceptr d() const { return dPtr_; }
  const void *alpha() const { return scaleIsDouble_ ? static_cast<const void *>(&alphaDouble_)
                                                    : &alphaFloat_; }
  const void *beta() const { return scaleIsDouble_ ? static_cast<const void *>(&betaDouble_)
                                                   : &betaFloat_; }

private:
  const CublasLtApi *blas_ = nullptr;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, d_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  std::vector<cublasLtMatmulAlgo_t> candidates_;
  std::string key_;
  std::string source_;
  int64_t dBytes_ = 0;
  CUdeviceptr aPtr_ = 0, bPtr_ = 0, dPtr_ = 0;
  uint32_t alignA_ = 256, alignB_ = 256, alignD_ = 256; // bytes
  bool scaleIsDouble_ = false;
  float alphaFloat_ = 1.0f, betaFloat_ = 0.0f;
  double alphaDouble_ = 1.0, betaDouble_ = 0.0;
};

} // namespace mpc::rt

#endif // MPC_RUNTIME_BACKENDS_CUDA_GEMMPLAN_H
