//===- GemmPlan.cpp - manifest GEMM steps as cuBLASLt matmuls -------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "GemmPlan.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <sstream>

namespace mpc::rt {

namespace {

bool toCudaType(DType dtype, cudaDataType &out) {
  switch (dtype) {
  case DType::F16:
    out = CUDA_R_16F;
    return true;
  case DType::BF16:
    out = CUDA_R_16BF;
    return true;
  case DType::F32:
    out = CUDA_R_32F;
    return true;
  case DType::F64:
    out = CUDA_R_64F;
    return true;
  default:
    return false;
  }
}

/// The compute and scale types of operands `in` written as `out`, if
/// cuBLASLt runs that combination.
bool computeTypes(DType in, DType out, cublasComputeType_t &compute, cudaDataType &scale) {
  scale = CUDA_R_32F;
  compute = CUBLAS_COMPUTE_32F;
  switch (in) {
  case DType::F16:
    return out == DType::F16 || out == DType::F32;
  case DType::BF16:
    return out == DType::BF16 || out == DType::F32;
  case DType::F32:
    return out == DType::F32;
  case DType::F64:
    compute = CUBLAS_COMPUTE_64F;
    scale = CUDA_R_64F;
    return out == DType::F64;
  default:
    return false;
  }
}

cublasLtEpilogue_t toLtEpilogue(Epilogue epilogue) {
  switch (epilogue) {
  case Epilogue::None:
    return CUBLASLT_EPILOGUE_DEFAULT;
  case Epilogue::Bias:
    return CUBLASLT_EPILOGUE_BIAS;
  case Epilogue::Relu:
    return CUBLASLT_EPILOGUE_RELU;
  case Epilogue::BiasRelu:
    return CUBLASLT_EPILOGUE_RELU_BIAS;
  case Epilogue::Gelu:
    return CUBLASLT_EPILOGUE_GELU;
  case Epilogue::BiasGelu:
    return CUBLASLT_EPILOGUE_GELU_BIAS;
  }
  return CUBLASLT_EPILOGUE_DEFAULT;
}

/// The column-major layout of a row-major `rows` x `cols` matrix: its
/// transpose, `cols` x `rows` with leading dimension `cols`.
LtMatrix columnMajorOf(cudaDataType type, int64_t rows, int64_t cols, int64_t batch,
                       int64_t stride) {
  LtMatrix matrix;
  matrix.type = type;
  matrix.rows = static_cast<uint64_t>(cols);
  matrix.cols = static_cast<uint64_t>(rows);
  matrix.ld = cols;
  matrix.batch = static_cast<int32_t>(batch);
  matrix.batchStride = stride;
  return matrix;
}

/// Process-wide algorithm choices: device, plan and alignments -> algorithm.
/// The algorithm chosen for a kind of call. `settled`: a timing chose it
/// (the fastest, or the first choice where that took too long to time the
/// others), or the heuristic offered no other; otherwise `candidates` holds
/// the heuristic's choices for a timing (empty when only its first was
/// asked).
struct CachedAlgorithm {
  cublasLtMatmulAlgo_t algo;
  std::vector<cublasLtMatmulAlgo_t> candidates;
  bool settled = false;
  /// How it was chosen (GemmCall::algorithmSource).
  std::string source;
};

struct AlgorithmCache {
  std::mutex mutex;
  std::map<std::string, CachedAlgorithm> chosen;
};

AlgorithmCache &algorithmCache() {
  static AlgorithmCache *cache = new AlgorithmCache(); // lives with the process
  return *cache;
}

} // namespace

std::string LtGemmPlan::key() const {
  std::ostringstream os;
  auto matrix = [&](const LtMatrix &x) {
    os << x.type << ":" << x.rows << "x" << x.cols << ":" << x.ld << ":" << x.batch << ":"
       << x.batchStride << ";";
  };
  os << compute << ";" << scaleType << ";" << transA << transB << ";";
  matrix(a);
  matrix(b);
  matrix(d);
  os << epilogue << ";" << hasBias << ":" << biasType << ";" << (beta != 0 ? "beta" : "");
  return os.str();
}

Status planGemm(const GemmStep &step, size_t index, LtGemmPlan &out) {
  std::string where = "steps[" + std::to_string(index) + "]: ";
  auto unsupported = [&](const std::string &what) {
    return Status::error(MPC_UNSUPPORTED, where + what);
  };
  LtGemmPlan plan;
  cudaDataType aType, bType, cType;
  if (!toCudaType(step.aDtype, aType) || !toCudaType(step.bDtype, bType) ||
      !toCudaType(step.cDtype, cType))
    return unsupported(std::string("cuBLASLt has no GEMM of ") + dtypeName(step.aDtype) +
                       " x " + dtypeName(step.bDtype) + " -> " + dtypeName(step.cDtype));
  if (step.aDtype != step.bDtype ||
      !computeTypes(step.aDtype, step.cDtype, plan.compute, plan.scaleType))
    return unsupported(std::string("cuBLASLt runs no GEMM of ") + dtypeName(step.aDtype) +
                       " x " + dtypeName(step.bDtype) + " -> " + dtypeName(step.cDtype) +
                       " (f16 or bf16 operands give their own type or f32; f32 and f64 "
                       "give their own)");
  if (step.bias) {
    if (step.biasDtype != step.cDtype)
      return unsupported(std::string("the GEMM's bias is ") + dtypeName(step.biasDtype) +
                         " and its result " + dtypeName(step.cDtype) +
                         "; cuBLASLt takes a bias of the result's type (bundles from this mpc "
                         "fuse only such a bias: compile the graph again)");
    plan.hasBias = true;
    plan.biasType = cType;
  }
  // cuBLASLt's A is the step's B: stored k x n, or n x k when transposed.
  plan.transA = step.transposeB ? CUBLAS_OP_T : CUBLAS_OP_N;
  plan.a = step.transposeB ? columnMajorOf(bType, step.n, step.k, step.batch, step.strideB)
                           : columnMajorOf(bType, step.k, step.n, step.batch, step.strideB);
  // cuBLASLt's B is the step's A: stored m x k, or k x m when transposed.
  plan.transB = step.transposeA ? CUBLAS_OP_T : CUBLAS_OP_N;
  plan.b = step.transposeA ? columnMajorOf(aType, step.k, step.m, step.batch, step.strideA)
                           : columnMajorOf(aType, step.m, step.k, step.batch, step.strideA);
  plan.d = columnMajorOf(cType, step.m, step.n, step.batch, step.strideC);
  plan.epilogue = toLtEpilogue(step.epilogue);
  plan.beta = step.beta;
  plan.aOffsetBytes = static_cast<uint64_t>(step.offsetB) * dtypeSize(step.bDtype);
  plan.bOffsetBytes = static_cast<uint64_t>(step.offsetA) * dtypeSize(step.aDtype);
  plan.dOffsetBytes = static_cast<uint64_t>(step.offsetC) * dtypeSize(step.cDtype);
  out = plan;
  return Status();
}

uint32_t operandAlignment(uint64_t address, int64_t strideBytes, int32_t batch) {
  uint64_t bits = address | 256u;
  if (batch > 1) // a stride of 0 shares the first matrix
    bits |= static_cast<uint64_t>(strideBytes);
  return static_cast<uint32_t>(bits & (~bits + 1)); // the lowest set bit
}

GemmCall::GemmCall(GemmCall &&other) noexcept
    : blas_(other.blas_), desc_(other.desc_), a_(other.a_), b_(other.b_), d_(other.d_),
      algo_(other.algo_), candidates_(std::move(other.candidates_)), key_(std::move(other.key_)),
      source_(std::move(other.source_)), dBytes_(other.dBytes_), aPtr_(other.aPtr_),
      bPtr_(other.bPtr_), dPtr_(other.dPtr_), alignA_(other.alignA_), alignB_(other.alignB_),
      alignD_(other.alignD_), scaleIsDouble_(other.scaleIsDouble_), betaFloat_(other.betaFloat_),
      betaDouble_(other.betaDouble_) {
  other.desc_ = nullptr;
  other.a_ = other.b_ = other.d_ = nullptr;
}

GemmCall::~GemmCall() {
  if (!blas_)
    return;
  if (desc_)
    blas_->cublasLtMatmulDescDestroy(desc_);
  for (cublasLtMatrixLayout_t layout : {a_, b_, d_})
    if (layout)
      blas_->cublasLtMatrixLayoutDestroy(layout);
}

Status GemmCall::create(const CublasLtApi &blas, cublasLtHandle_t handle, const std::string &device,
                        const LtGemmPlan &plan, CUdeviceptr a, CUdeviceptr b, CUdeviceptr d,
                        CUdeviceptr bias, uint64_t workspaceBytes, const std::string &what,
                        int candidates) {
  blas_ = &blas;
  aPtr_ = a;
  bPtr_ = b;
  dPtr_ = d;
  scaleIsDouble_ = plan.scaleType == CUDA_R_64F;
  betaFloat_ = static_cast<float>(plan.beta);
  betaDouble_ = plan.beta;
  auto check = [&](cublasStatus_t result, const char *call) {
    return result == CUBLAS_STATUS_SUCCESS
               ? Status()
               : cublasFailure(blas, result, what + ": " + call);
  };
  if (Status s = check(blas.cublasLtMatmulDescCreate(&desc_, plan.compute, plan.scaleType),
                       "cublasLtMatmulDescCreate");
      !s.isOk())
    return s;
  auto setDesc = [&](cublasLtMatmulDescAttributes_t attribute, const void *value,
                     size_t size) {
    return check(blas.cublasLtMatmulDescSetAttribute(desc_, attribute, value, size),
                 "cublasLtMatmulDescSetAttribute");
  };
  const void *biasPointer = reinterpret_cast<const void *>(static_cast<uintptr_t>(bias));
  int32_t biasType = plan.biasType;
  for (Status s : {setDesc(CUBLASLT_MATMUL_DESC_TRANSA, &plan.transA, sizeof plan.transA),
                   setDesc(CUBLASLT_MATMUL_DESC_TRANSB, &plan.transB, sizeof plan.transB),
                   setDesc(CUBLASLT_MATMUL_DESC_EPILOGUE, &plan.epilogue, sizeof plan.epilogue)})
    if (!s.isOk())
      return s;
  if (plan.hasBias)
    for (Status s : {setDesc(CUBLASLT_MATMUL_DESC_BIAS_POINTER, &biasPointer, sizeof biasPointer),
                     setDesc(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &biasType, sizeof biasType)})
      if (!s.isOk())
        return s;

  auto makeLayout = [&](const LtMatrix &matrix, cublasLtMatrixLayout_t &layout) -> Status {
    if (Status s = check(blas.cublasLtMatrixLayoutCreate(&layout, matrix.type, matrix.rows,
                                                         matrix.cols, matrix.ld),
                         "cublasLtMatrixLayoutCreate");
        !s.isOk())
      return s;
    if (matrix.batch == 1)
      return Status();
    if (Status s = check(blas.cublasLtMatrixLayoutSetAttribute(
                             layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &matrix.batch,
                             sizeof matrix.batch),
                         "cublasLtMatrixLayoutSetAttribute");
        !s.isOk())
      return s;
    return check(blas.cublasLtMatrixLayoutSetAttribute(
                     layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &matrix.batchStride,
                     sizeof matrix.batchStride),
                 "cublasLtMatrixLayoutSetAttribute");
  };
  for (Status s : {makeLayout(plan.a, a_), makeLayout(plan.b, b_), makeLayout(plan.d, d_)})
    if (!s.isOk())
      return s;

  auto elementBytes = [](cudaDataType type) -> int64_t {
    return type == CUDA_R_64F ? 8 : type == CUDA_R_32F ? 4 : 2;
  };
  uint32_t alignA = alignA_ =
      operandAlignment(a, plan.a.batchStride * elementBytes(plan.a.type), plan.a.batch);
  uint32_t alignB = alignB_ =
      operandAlignment(b, plan.b.batchStride * elementBytes(plan.b.type), plan.b.batch);
  uint32_t alignD = alignD_ =
      operandAlignment(d, plan.d.batchStride * elementBytes(plan.d.type), plan.d.batch);
  dBytes_ = (plan.d.batchStride * (plan.d.batch - 1) + plan.d.ld * int64_t(plan.d.cols)) *
            elementBytes(plan.d.type);
  key_ = device + "|" + plan.key() + "|" + std::to_string(alignA) + "," + std::to_string(alignB) +
         "," + std::to_string(alignD) + "|" + std::to_string(workspaceBytes);
  AlgorithmCache &cache = algorithmCache();
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto found = cache.chosen.find(key_);
    if (found != cache.chosen.end()) {
      const CachedAlgorithm &cached = found->second;
      if (cached.settled || candidates <= 1 || !cached.candidates.empty()) {
        algo_ = cached.algo;
        source_ = cached.settled ? cached.source : "cuBLASLt's heuristic";
        if (!cached.settled && candidates > 1) {
          candidates_ = cached.candidates;
          source_ = "cuBLASLt's heuristic, not yet timed";
        }
        return Status();
      }
    }
  }
  candidates = std::clamp(candidates, 1, kMaxGemmCandidates);

  cublasLtMatmulPreference_t preference = nullptr;
  if (Status s = check(blas.cublasLtMatmulPreferenceCreate(&preference),
                       "cublasLtMatmulPreferenceCreate");
      !s.isOk())
    return s;
  auto setPreference = [&](cublasLtMatmulPreferenceAttributes_t attribute, const void *value,
                           size_t size) {
    return check(blas.cublasLtMatmulPreferenceSetAttribute(preference, attribute, value, size),
                 "cublasLtMatmulPreferenceSetAttribute");
  };
  uint64_t workspace = workspaceBytes;
  Status status =
      setPreference(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace);
  if (status.isOk())
    status = check(preferOperandAlignment(blas, preference),
                   "cublasLtMatmulPreferenceSetAttribute");
  cublasLtMatmulHeuristicResult_t results[kMaxGemmCandidates] = {};
  int found = 0;
  if (status.isOk()) {
    cublasStatus_t asked = blas.cublasLtMatmulAlgoGetHeuristic(
        handle, desc_, a_, b_, d_, d_, preference, candidates, results, &found);
    if (asked != CUBLAS_STATUS_SUCCESS)
      status = cublasFailure(blas, asked, what + ": cublasLtMatmulAlgoGetHeuristic");
    else if (found < 1 || results[0].state != CUBLAS_STATUS_SUCCESS)
      status = Status::error(MPC_UNSUPPORTED,
                             what + ": cuBLASLt has no algorithm for this GEMM on this GPU "
                                    "(types, sizes, epilogue or alignment)");
  }
  blas.cublasLtMatmulPreferenceDestroy(preference);
  if (!status.isOk())
    return status;
  algo_ = results[0].algo;
  for (int i = 0; i < found && found > 1; ++i)
    if (results[i].state == CUBLAS_STATUS_SUCCESS)
      candidates_.push_back(results[i].algo);
  if (candidates_.size() < 2)
    candidates_.clear();
  source_ = candidates <= 1       ? "cuBLASLt's heuristic"
            : candidates_.empty() ? "cuBLASLt's heuristic: its only choice"
                                  : "cuBLASLt's heuristic, not yet timed";
  std::lock_guard<std::mutex> lock(cache.mutex);
  auto [entry, added] = cache.chosen.try_emplace(key_);
  if (!added && entry->second.settled) { // another load has settled it meanwhile
    algo_ = entry->second.algo;
    source_ = entry->second.source;
    candidates_.clear();
  } else {
    entry->second =
        CachedAlgorithm{algo_, candidates_, candidates > 1 && candidates_.empty(), source_};
  }
  return Status();
}

void resetGemmAlgorithmCache() {
  AlgorithmCache &cache = algorithmCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  cache.chosen.clear();
}

void GemmCall::choose(const cublasLtMatmulAlgo_t &algo, const std::string &source) {
  candidates_.clear();
  AlgorithmCache &cache = algorithmCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  auto [entry, added] = cache.chosen.try_emplace(key_);
  if (added || !entry->second.settled)
    entry->second = CachedAlgorithm{algo, {}, true, source};
  // A winner settled meanwhile by another load stands, so that the process
  // runs one algorithm per kind of call.
  algo_ = entry->second.algo;
  source_ = entry->second.source;
}

void GemmCall::keepFirstChoice(const std::string &source) {
  candidates_.clear();
  source_ = source;
}

cublasStatus_t GemmCall::preferOperandAlignment(const CublasLtApi &blas,
                                                cublasLtMatmulPreference_t preference) const {
  const std::pair<cublasLtMatmulPreferenceAttributes_t, const uint32_t *> alignments[] = {
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &alignA_},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &alignB_},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &alignD_},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &alignD_}};
  for (auto [attribute, value] : alignments)
    if (cublasStatus_t status = blas.cublasLtMatmulPreferenceSetAttribute(
            preference, attribute, value, sizeof *value);
        status != CUBLAS_STATUS_SUCCESS)
      return status;
  return CUBLAS_STATUS_SUCCESS;
}

Status GemmCall::enqueue(cublasLtHandle_t handle, CUstream stream, CUdeviceptr workspace,
                         uint64_t workspaceBytes, const std::string &what) const {
  return enqueueWith(handle, stream, algo_, dPtr_, workspace, workspaceBytes, what);
}

Status GemmCall::enqueueWith(cublasLtHandle_t handle, CUstream stream,
                             const cublasLtMatmulAlgo_t &algo, CUdeviceptr d, CUdeviceptr workspace,
                             uint64_t workspaceBytes, const std::string &what) const {
  auto pointer = [](CUdeviceptr address) {
    return reinterpret_cast<void *>(static_cast<uintptr_t>(address));
  };
  cublasStatus_t result =
      blas_->cublasLtMatmul(handle, desc_, alpha(), pointer(aPtr_), a_, pointer(bPtr_), b_, beta(),
                            pointer(d), d_, pointer(d), d_, &algo, pointer(workspace),
                            workspaceBytes, reinterpret_cast<cudaStream_t>(stream));
  if (result != CUBLAS_STATUS_SUCCESS)
    return cublasFailure(*blas_, result, what + ": cublasLtMatmul");
  return Status();
}

} // namespace mpc::rt
