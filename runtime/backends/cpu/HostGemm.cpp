//===- HostGemm.cpp - GEMM steps on the CPU with OpenBLAS -----------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "HostGemm.h"

#include "CpuSettings.h"
#include "Elements.h"
#include "mpc/toolchain/HostCpu.h"
#include "HostSgemm.h"

#ifdef MPC_HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef MPC_HAVE_ONEDNN
#include "OnednnMatmul.h"
#endif

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace mpc::rt {

namespace {

template <typename T> constexpr DType kComputeDtype = DType::F32;
template <> constexpr DType kComputeDtype<double> = DType::F64;

#ifdef MPC_HAVE_OPENBLAS
/// c = op(a) op(b) + beta c (c unread when beta is 0).
void blasGemm(bool transposeA, bool transposeB, int m, int n, int k, const float *a, const float *b,
              float *c, float beta) {
  cblas_sgemm(CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans,
              transposeB ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a, transposeA ? m : k, b,
              transposeB ? k : n, beta, c, n);
}

void blasGemm(bool transposeA, bool transposeB, int m, int n, int k, const double *a,
              const double *b, double *c, double beta) {
  cblas_dgemm(CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans,
              transposeB ? CblasTrans : CblasNoTrans, m, n, k, 1.0, a, transposeA ? m : k, b,
              transposeB ? k : n, beta, c, n);
}
#else
/// The row-major product without a BLAS, c = op(a) op(b) + beta c (c
/// unread when beta is 0): operands copied untransposed, then rows of C
/// accumulated from rows of B (a loop the compiler vectorises).
template <typename T>
void blasGemm(bool transposeA, bool transposeB, int m, int n, int k, const T *a, const T *b, T *c,
              T beta) {
  std::vector<T> aRows, bRows;
  if (transposeA) {
    aRows.resize(static_cast<size_t>(m) * k);
    for (int p = 0; p < k; ++p)
      for (int i = 0; i < m; ++i)
        aRows[static_cast<size_t>(i) * k + p] = a[static_cast<size_t>(p) * m + i];
    a = aRows.data();
  }
  if (transposeB) {
    bRows.resize(static_cast<size_t>(k) * n);
    for (int j = 0; j < n; ++j)
      for (int p = 0; p < k; ++p)
        bRows[static_cast<size_t>(p) * n + j] = b[static_cast<size_t>(j) * k + p];
    b = bRows.data();
  }
  for (int i = 0; i < m; ++i) {
    T *row = c + static_cast<size_t>(i) * n;
    for (int j = 0; j < n; ++j)
      row[j] = beta == 0 ? T(0) : beta * row[j];
    for (int p = 0; p < k; ++p) {
      T scale = a[static_cast<size_t>(i) * k + p];
      const T *from = b + static_cast<size_t>(p) * n;
      for (int j = 0; j < n; ++j)
        row[j] += scale * from[j];
    }
  }
}
#endif

/// `count` elements of `dtype` at `data` as T: the memory itself when it
/// already holds T, else a widened copy in `scratch`.
template <typename T>
const T *asCompute(DType dtype, const uint8_t *data, size_t count,
                   std::vector<T> &scratch) {
  if (dtype == kComputeDtype<T>)
    return reinterpret_cast<const T *>(data);
  // Grown, never shrunk: GEMMs of different sizes share the scratch, and
  // growing it again would zero what the widening overwrites anyway.
  if (scratch.size() < count)
    scratch.resize(count);
  widenElements(dtype, data, scratch.data(), count);
  return scratch.data();
}

template <typename T> T gelu(T x) {
  const T kSqrt2OverPi = static_cast<T>(0.79788456080286535588);
  const T kCubic = static_cast<T>(0.044715);
  return static_cast<T>(0.5) * x *
         (static_cast<T>(1) +
          std::tanh(kSqrt2OverPi * (x + kCubic * x * x * x)));
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MPC_HAVE_X86_DISPATCH 1
/// Whether the loops below run their AVX2 builds on this CPU.
bool haveAvx2() {
  static const bool have = __builtin_cpu_supports("avx2");
  return have;
}
#endif

/// The bias and ReLU epilogues on f32 rows in place: `value + bias[col]`,
/// then `value < 0 ? 0 : value` (NaN and -0 kept). Written once and built
/// twice, for AVX2 and for any x86-64, which give the same values (the
/// compiler only vectorises it wider).
__attribute__((always_inline)) inline void biasReluRowsBody(const float *bias, bool relu,
                                                             float *c, int64_t m, int64_t n) {
  for (int64_t row = 0; row < m; ++row) {
    float *values = c + row * n;
    if (bias && relu) {
      for (int64_t col = 0; col < n; ++col) {
        float value = values[col] + bias[col];
        values[col] = value < 0 ? 0.0f : value;
      }
    } else if (bias) {
      for (int64_t col = 0; col < n; ++col)
        values[col] += bias[col];
    } else {
      for (int64_t col = 0; col < n; ++col)
        values[col] = values[col] < 0 ? 0.0f : values[col];
    }
  }
}

void biasReluRowsPortable(const float *bias, bool relu, float *c, int64_t m, int64_t n) {
  biasReluRowsBody(bias, relu, c, m, n);
}

#ifdef MPC_HAVE_X86_DISPATCH
__attribute__((target("avx2"))) void biasReluRowsAvx2(const float *bias, bool relu, float *c,
                                                       int64_t m, int64_t n) {
  biasReluRowsBody(bias, relu, c, m, n);
}
#endif

void biasReluRows(const float *bias, bool relu, float *c, int64_t m, int64_t n) {
#ifdef MPC_HAVE_X86_DISPATCH
  if (haveAvx2())
    return biasReluRowsAvx2(bias, relu, c, m, n);
#endif
  biasReluRowsPortable(bias, relu, c, m, n);
}

/// The bias and ReLU epilogues of an f32 result and its rounding to fp16
/// in one pass over it (instead of one pass each): the values of
/// biasReluRows followed by narrowToHalf; with `rounded`, the stored fp16
/// values also go there widened (a kept result's copy). With F16C eight at
/// a time; the scalar tail rounds as the device headers do (to nearest
/// even).
__attribute__((always_inline)) inline void biasReluHalfTail(const float *bias, bool relu,
                                                             const float *c, uint16_t *out,
                                                             float *rounded, int64_t from,
                                                             int64_t n) {
  for (int64_t col = from; col < n; ++col) {
    float value = bias ? c[col] + bias[col] : c[col];
    if (relu)
      value = value < 0 ? 0.0f : value;
    mpc::half_t half = mpc::from_f32<mpc::half_t>(value);
    out[col] = half.bits;
    if (rounded)
      rounded[col] = mpc::to_f32(half);
  }
}

void biasReluHalfRowsPortable(const float *bias, bool relu, const float *c, uint16_t *out,
                              float *rounded, int64_t m, int64_t n) {
  for (int64_t row = 0; row < m; ++row)
    biasReluHalfTail(bias, relu, c + row * n, out + row * n, rounded ? rounded + row * n : nullptr,
                     0, n);
}

#ifdef MPC_HAVE_X86_DISPATCH
__attribute__((target("avx2,f16c"))) void biasReluHalfRowsF16c(const float *bias, bool relu,
                                                              const float *c, uint16_t *out,
                                                              float *rounded, int64_t m,
                                                              int64_t n) {
  const __m256 zero = _mm256_setzero_ps();
  for (int64_t row = 0; row < m; ++row) {
    const float *values = c + row * n;
    uint16_t *halves = out + row * n;
    float *widened = rounded ? rounded + row * n : nullptr;
    int64_t col = 0;
    for (; col + 8 <= n; col += 8) {
      __m256 value = _mm256_loadu_ps(values + col);
      if (bias)
        value = _mm256_add_ps(value, _mm256_loadu_ps(bias + col));
      if (relu) // value < 0 ? 0 : value, so NaN and -0 stay
        value = _mm256_blendv_ps(value, zero, _mm256_cmp_ps(value, zero, _CMP_LT_OQ));
      __m128i half = _mm256_cvtps_ph(value, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      _mm_storeu_si128(reinterpret_cast<__m128i *>(halves + col), half);
      if (widened)
        _mm256_storeu_ps(widened + col, _mm256_cvtph_ps(half));
    }
    biasReluHalfTail(bias, relu, values, halves, widened, col, n);
  }
}
#endif

void biasReluHalfRows(const float *bias, bool relu, const float *c, uint16_t *out,
                      float *rounded, int64_t m, int64_t n) {
#ifdef MPC_HAVE_X86_DISPATCH
  if (haveAvx2() && haveF16c())
    return biasReluHalfRowsF16c(bias, relu, c, out, rounded, m, n);
#endif
  biasReluHalfRowsPortable(bias, relu, c, out, rounded, m, n);
}

/// Applies `epilogue` to the m x n result `c` in place.
template <typename T>
void applyEpilogue(Epilogue epilogue, const T *bias, T *c, int64_t m,
                   int64_t n) {
  if (epilogue == Epilogue::None)
    return;
  if constexpr (std::is_same_v<T, float>) {
    if (epilogue != Epilogue::Gelu && epilogue != Epilogue::BiasGelu)
      return biasReluRows(epilogueHasBias(epilogue) ? bias : nullptr,
                          epilogue == Epilogue::Relu || epilogue == Epilogue::BiasRelu, c, m, n);
  }
  bool addBias = epilogueHasBias(epilogue);
  bool relu = epilogue == Epilogue::Relu || epilogue == Epilogue::BiasRelu;
  bool useGelu = epilogue == Epilogue::Gelu || epilogue == Epilogue::BiasGelu;
  for (int64_t row = 0; row < m; ++row) {
    T *values = c + row * n;
    for (int64_t col = 0; col < n; ++col) {
      T value = values[col];
      if (addBias)
        value += bias[col];
      if (relu)
        value = value < 0 ? static_cast<T>(0) : value;
      else if (useGelu)
        value = gelu(value);
      values[col] = value;
    }
  }
}

/// max(x, 0) over `count` bf16 elements of C, NaN kept: what
/// applyEpilogue's ReLU gives before the rounding, except that a negative
/// value bf16 rounds to -0 stays -0 (a zero either way). Built twice like
/// biasReluRows.
__attribute__((always_inline)) inline void reluBf16Body(uint16_t *bits, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    uint16_t value = bits[i];
    // Negative, non-zero and not NaN: sign set, magnitude in (0, inf].
    bool negative = (value & 0x8000u) && (value & 0x7fffu) != 0 && (value & 0x7fffu) <= 0x7f80u;
    bits[i] = negative ? uint16_t(0) : value;
  }
}

void reluBf16Portable(uint16_t *bits, size_t count) { reluBf16Body(bits, count); }

#ifdef MPC_HAVE_X86_DISPATCH
__attribute__((target("avx2"))) void reluBf16Avx2(uint16_t *bits, size_t count) {
  reluBf16Body(bits, count);
}
#endif

/// max(x, 0) over `count` elements of C, stored as `dtype` (F32 or BF16),
/// NaN kept.
void reluInPlace(DType dtype, uint8_t *c, size_t count) {
  if (dtype != DType::BF16)
    return biasReluRows(nullptr, /*relu=*/true, reinterpret_cast<float *>(c), 1,
                        static_cast<int64_t>(count));
  auto *bits = reinterpret_cast<uint16_t *>(c);
#ifdef MPC_HAVE_X86_DISPATCH
  if (haveAvx2())
    return reluBf16Avx2(bits, count);
#endif
  reluBf16Portable(bits, count);
}

/// out = aux > 0 ? stored : +0 over `count` elements of a result as stored
/// (Stored: float for f32, the bits for f16 and bf16); `stored` may be
/// `out`. For an f16 or bf16 aux, "> 0" is the bits of a positive number up
/// to +infinity (NaN, zeros and negative numbers are not). Selects only,
/// written once and built twice like biasReluRows.
/// Whether the f16 or bf16 `bits` are a positive number up to `infinity`
/// (its bits), without branches.
__attribute__((always_inline)) inline bool positiveBits(uint16_t bits, uint16_t infinity) {
  return static_cast<uint16_t>(bits - 1u) < infinity;
}

template <typename Stored>
__attribute__((always_inline)) inline void maskBody(DType auxDtype, const Stored *stored,
                                                    const uint8_t *aux, Stored *out,
                                                    size_t count) {
  // Each iteration reads and writes element i only (out may be stored or
  // aux), so the loops vectorise.
  if (auxDtype == DType::F32) {
    const auto *values = reinterpret_cast<const float *>(aux);
#pragma GCC ivdep
    for (size_t i = 0; i < count; ++i) {
      Stored value = stored[i]; // read either way: no branch
      out[i] = values[i] > 0.0f ? value : Stored(0);
    }
    return;
  }
  const auto *bits = reinterpret_cast<const uint16_t *>(aux);
  const uint16_t infinity = auxDtype == DType::F16 ? 0x7c00u : 0x7f80u;
#pragma GCC ivdep
  for (size_t i = 0; i < count; ++i) {
    Stored value = stored[i];
    out[i] = positiveBits(bits[i], infinity) ? value : Stored(0);
  }
}

template <typename Stored>
void maskPortable(DType auxDtype, const Stored *stored, const uint8_t *aux, Stored *out,
                  size_t count) {
  maskBody(auxDtype, stored, aux, out, count);
}

#ifdef MPC_HAVE_X86_DISPATCH
template <typename Stored>
__attribute__((target("avx2"))) void maskAvx2(DType auxDtype, const Stored *stored,
                                               const uint8_t *aux, Stored *out, size_t count) {
  maskBody(auxDtype, stored, aux, out, count);
}
#endif

/// maskBody on elements stored as Stored, in the build this CPU runs.
template <typename Stored>
void maskAs(DType auxDtype, const uint8_t *stored, const uint8_t *aux, uint8_t *out,
            size_t count) {
  const auto *from = reinterpret_cast<const Stored *>(stored);
  auto *to = reinterpret_cast<Stored *>(out);
#ifdef MPC_HAVE_X86_DISPATCH
  if (haveAvx2())
    return maskAvx2(auxDtype, from, aux, to, count);
#endif
  maskPortable(auxDtype, from, aux, to, count);
}

/// A relu_grad hint on a result already stored in `dtype` (F32, F16 or
/// BF16) at `stored`: out = aux > 0 ? stored : +0, the values of the launch
/// the hint stands for. `stored` may be `out`.
void maskStored(DType dtype, const uint8_t *stored, DType auxDtype, const uint8_t *aux,
                uint8_t *out, size_t count) {
  if (dtype == DType::F32)
    return maskAs<float>(auxDtype, stored, aux, out, count);
  maskAs<uint16_t>(auxDtype, stored, aux, out, count);
}

#ifdef MPC_HAVE_X86_DISPATCH
/// reluGrad of an f16 result with an f16 aux in one pass, eight at a time:
/// the rounded halves masked where aux's bits are not in [1, 0x7c00].
__attribute__((target("avx2,f16c"))) void reluGradHalfF16c(const float *c, const uint8_t *aux,
                                                            uint8_t *out, size_t count) {
  const auto *auxBits = reinterpret_cast<const uint16_t *>(aux);
  auto *bits = reinterpret_cast<uint16_t *>(out);
  const __m128i zero = _mm_setzero_si128(), aboveInfinity = _mm_set1_epi16(0x7c01);
  size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    __m128i half = _mm256_cvtps_ph(_mm256_loadu_ps(c + i),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m128i mask = _mm_loadu_si128(reinterpret_cast<const __m128i *>(auxBits + i));
    // As signed 16-bit integers: 0 < bits < 0x7c01.
    mask = _mm_and_si128(_mm_cmpgt_epi16(mask, zero), _mm_cmpgt_epi16(aboveInfinity, mask));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(bits + i), _mm_and_si128(half, mask));
  }
  for (; i < count; ++i)
    bits[i] = positiveBits(auxBits[i], 0x7c00u) ? mpc::from_f32<mpc::half_t>(c[i]).bits
                                                : uint16_t(0);
}
#endif

/// A relu_grad hint on the f32 result `c` (which may be C itself when C is
/// f32): out = aux > 0 ? c rounded to `dtype` : +0. out may be aux (the
/// gradient written in place of the activation), so an f16 or bf16 result
/// is rounded into `rounded` first, not into out.
void reluGrad(DType dtype, const float *c, DType auxDtype, const uint8_t *aux, uint8_t *out,
              size_t count, std::vector<uint8_t> &rounded) {
#ifdef MPC_HAVE_X86_DISPATCH
  if (dtype == DType::F16 && auxDtype == DType::F16 && haveAvx2() && haveF16c())
    return reluGradHalfF16c(c, aux, out, count); // (reads aux i before writing out i)
#endif
  if (dtype == DType::F32)
    return maskStored(dtype, reinterpret_cast<const uint8_t *>(c), auxDtype, aux, out, count);
  // Grown, never shrunk, like the widening scratch.
  if (rounded.size() < count * 2)
    rounded.resize(count * 2);
  narrowElements(c, dtype, rounded.data(), count);
  maskStored(dtype, rounded.data(), auxDtype, aux, out, count);
}

#ifdef MPC_HAVE_ONEDNN
/// Whether a strided batch of fp32 (or widened fp16) matrices too small for
/// oneDNN alone is one oneDNN call: MPC_CPU_BATCH_SMALL_F32=1 says yes, =0
/// no (matrix by matrix in OpenBLAS), for side-by-side measurements and
/// tests of both ways on any CPU. Otherwise yes on x86-64 CPUs with
/// full-width AVX-512 (measured on Zen 5) and no on other x86-64 CPUs
/// (measured on Zen 4 only); other architectures keep the one call.
bool smallF32BatchesInOneCall() {
  if (const std::optional<bool> setting = cpuSetting("MPC_CPU_BATCH_SMALL_F32"))
    return *setting;
#if defined(__x86_64__)
  return cpuHasFullWidthAvx512();
#else
  return true;
#endif
}
#endif

} // namespace

#ifdef MPC_HAVE_ONEDNN
HostGemm::HostGemm() : onednn_(new OnednnMatmul), batchesSmallF32_(smallF32BatchesInOneCall()) {}
void HostGemm::OnednnDeleter::operator()(OnednnMatmul *matmul) const { delete matmul; }
#else
HostGemm::HostGemm() = default;
void HostGemm::OnednnDeleter::operator()(OnednnMatmul *) const {}
#endif
HostGemm::~HostGemm() = default;

bool HostGemm::multipliesMatrixByMatrix(const GemmStep &step) {
#ifdef MPC_HAVE_ONEDNN
  if (step.aDtype == DType::F64 && step.bDtype == DType::F64 && step.cDtype == DType::F64)
    return true;
  if (step.aDtype == DType::BF16 && step.bDtype == DType::BF16)
    return false;
  return !batchesSmallF32_ && !onednn_->handles(DType::F32, step.m, step.n, step.k);
#else
  (void)step;
  return true;
#endif
}

/// The most scratch (fp32 elements: 64 MiB) a strided batch's widened
/// operands and fp32 products may take to be one oneDNN call (see runIn).
constexpr size_t kMaxBatchScratchFloats = size_t(16) << 20;

template <typename T>
void HostGemm::runIn(const GemmStep &step, const uint8_t *a, const uint8_t *b,
                     const uint8_t *bias, uint8_t *c, GemmScratch<T> &scratch,
                     const GemmOperandCopies &copies,
                     const GemmReluGradBuffers &reluGrad) {
  const size_t aSize = dtypeSize(step.aDtype), bSize = dtypeSize(step.bDtype),
               cSize = dtypeSize(step.cDtype);
  const size_t aCount = static_cast<size_t>(step.m * step.k);
  const size_t bCount = static_cast<size_t>(step.k * step.n);
  const size_t cCount = static_cast<size_t>(step.m * step.n);
  const T *biasValues =
      bias ? asCompute(step.biasDtype, bias, static_cast<size_t>(step.n),
                       scratch.bias)
           : nullptr;
#ifdef MPC_HAVE_ONEDNN
  // bf16 operands as they are when oneDNN multiplies them.
  bool nativeBf16 = false;
  // Whether oneDNN may write C itself, bias added and rounded to C's dtype
  // (a ReLU then runs on C in place; GELU needs the fp32 result).
  bool onednnWritesC = false;
  if constexpr (std::is_same_v<T, float>) {
    nativeBf16 = onednn_ && step.aDtype == DType::BF16 && step.bDtype == DType::BF16 &&
                 onednn_->handles(DType::BF16, step.m, step.n, step.k);
    onednnWritesC = (step.cDtype == DType::F32 || step.cDtype == DType::BF16) &&
                    step.epilogue != Epilogue::Gelu && step.epilogue != Epilogue::BiasGelu;
  }
#endif
  const bool relu = step.epilogue == Epilogue::Relu || step.epilogue == Epilogue::BiasRelu;
  // C = product + beta * C (verified: a single product into an f32 or f64 C
  // without an epilogue, which every path below writes directly).
  const T beta = static_cast<T>(step.beta);
  // The fp32 products of the whole batch, when one oneDNN call computed
  // them into scratch (product i at i * cCount); the loop below applies the
  // epilogue and rounds each into C.
  T *batchedProducts = nullptr;
#ifdef MPC_HAVE_ONEDNN
  if constexpr (std::is_same_v<T, float>) {
    // A strided batch (a convolution's per-image GEMMs, attention's
    // per-head ones) in one oneDNN call: for small matrices a call each,
    // or widening each to fp32 for OpenBLAS, costs more than the products
    // on a CPU with full-width AVX-512: a convolution's fp32 and fp16 ones
    // took 3-4x as long as 32 OpenBLAS calls on Zen 5
    // (bench/results/2026-12-02-cpu-vs-pytorch-5.md). On Zen 4, whose
    // AVX-512 units are 256 bits wide, the CNN's fp32 convolutions' GEMMs
    // of 56k to 226k multiply-adds each take 1.2x as long in one oneDNN
    // call as in OpenBLAS matrix by matrix
    // (bench/results/2026-12-03-cpu-conv-gemms-ab.md), so there, and on
    // x86-64 CPUs without AVX-512 (not measured), batches of fp32 matrices
    // too small for oneDNN alone run matrix by matrix (batchesSmallF32_);
    // bf16 batches stay one call. bf16 operands are multiplied as they
    // are, others widened to fp32 once for the batch. oneDNN writes C
    // itself when it can (bf16 operands into an fp32 or bf16 C, fp32 ones
    // into an fp32 C: it has no fp32-operand kernel
    // for a bf16 C here); any other C is rounded from the batch's fp32
    // products (in scratch) by the loop below. Narrow fp32 products stay
    // matrix by matrix (OnednnMatmul::transposesNarrow), and so do batches
    // whose widened copies and products would take more than
    // kMaxBatchScratchFloats of scratch, which the backend keeps.
    if (onednn_ && step.batch > 1 && beta == 0) {
      const bool bf16Operands = step.aDtype == DType::BF16 && step.bDtype == DType::BF16;
      const DType operands = bf16Operands ? DType::BF16 : DType::F32;
      const bool intoC = onednnWritesC && (bf16Operands || step.cDtype == DType::F32);
      const bool viaScratch = !intoC && step.cDtype != DType::F32;
      // The elements a strided batch spans (a stride of 0 shares one).
      auto span = [&](int64_t stride, size_t count) {
        return stride == 0 ? count : static_cast<size_t>((step.batch - 1) * stride) + count;
      };
      const bool widensA = !bf16Operands && step.aDtype != DType::F32;
      // Columns gathered in fp32 for an im2col_b hint (an f16 B, verified)
      // count as widened, so that the step with the hint and without it
      // take the same path, whose products have the same bits.
      const bool widensB = !bf16Operands && (step.bDtype != DType::F32 || step.im2colB);
      const size_t scratchFloats = (widensA ? span(step.strideA, aCount) : 0) +
                                   (widensB ? span(step.strideB, bCount) : 0) +
                                   (viaScratch ? static_cast<size_t>(step.batch) * cCount : 0);
      if ((intoC || viaScratch) &&
          !(!bf16Operands && OnednnMatmul::transposesNarrow(step.m, step.n)) &&
          scratchFloats <= kMaxBatchScratchFloats &&
          (bf16Operands || batchesSmallF32_ ||
           onednn_->handles(operands, step.m, step.n, step.k)) &&
          onednn_->handles(operands, step.batch * step.m, step.n, step.k)) {
        const uint8_t *aFirst = a + step.offsetA * aSize, *bFirst = b + step.offsetB * bSize;
        const void *aAll =
            bf16Operands ? static_cast<const void *>(aFirst)
                         : asCompute(step.aDtype, aFirst, span(step.strideA, aCount), scratch.a);
        const void *bAll =
            bf16Operands ? static_cast<const void *>(bFirst)
                         : asCompute(step.bDtype, bFirst, span(step.strideB, bCount), scratch.b);
        if (intoC) {
          if (onednn_->runBatched(operands, step.cDtype, step.transposeA, step.transposeB, step.m,
                                  step.n, step.k, step.batch, aAll, step.strideA, bAll,
                                  step.strideB, biasValues, c + step.offsetC * cSize,
                                  step.strideC)) {
            if (relu)
              for (int64_t i = 0; i < step.batch; ++i)
                reluInPlace(step.cDtype, c + (step.offsetC + i * step.strideC) * cSize, cCount);
            return;
          }
        } else {
          if (scratch.c.size() < step.batch * cCount)
            scratch.c.resize(step.batch * cCount);
          if (onednn_->runBatched(operands, DType::F32, step.transposeA, step.transposeB, step.m,
                                  step.n, step.k, step.batch, aAll, step.strideA, bAll,
                                  step.strideB, nullptr, scratch.c.data(),
                                  static_cast<int64_t>(cCount)))
            batchedProducts = scratch.c.data();
        }
      }
    }
  }
#endif
  for (int64_t i = 0; i < step.batch; ++i) {
    const uint8_t *aBytes = a + (step.offsetA + i * step.strideA) * aSize;
    const uint8_t *bBytes = b + (step.offsetB + i * step.strideB) * bSize;
    uint8_t *cBytes = c + (step.offsetC + i * step.strideC) * cSize;
    bool direct = step.cDtype == kComputeDtype<T>;
    T *cValues = nullptr;
    auto computeValues = [&] {
      if (!direct && scratch.c.size() < cCount)
        scratch.c.resize(cCount);
      cValues = direct ? reinterpret_cast<T *>(cBytes) : scratch.c.data();
    };
    bool done = false, wroteC = false;
    const T *aValues = nullptr, *bValues = nullptr; // widened once, when needed
    auto widenOperands = [&] {
      if (aValues)
        return;
      if constexpr (std::is_same_v<T, float>) {
        // Kept and reused copies (single f16 products only).
        aValues = copies.reuseA ? copies.reuseA->data()
                                : asCompute(step.aDtype, aBytes, aCount,
                                            copies.keepA ? *copies.keepA : scratch.a);
        bValues = copies.reuseB ? copies.reuseB->data()
                                : asCompute(step.bDtype, bBytes, bCount,
                                            copies.keepB ? *copies.keepB : scratch.b);
      } else {
        aValues = asCompute(step.aDtype, aBytes, aCount, scratch.a);
        bValues = asCompute(step.bDtype, bBytes, bCount, scratch.b);
      }
    };
    if (batchedProducts) {
      cValues = batchedProducts + i * cCount;
      done = true;
    }
    // fp32 products of the shapes mpc's own GEMM takes (HostSgemm.h),
    // before oneDNN's fp32 kernels and OpenBLAS; not bf16 operands oneDNN
    // multiplies as they are.
    auto runHostSgemm = [&] {
      if constexpr (std::is_same_v<T, float>) {
        if (HostSgemm::takes(step.m, step.n, step.k)) {
          widenOperands();
          computeValues();
          sgemm_.multiply(step.transposeA, step.transposeB, step.m, step.n, step.k, aValues,
                          bValues, cValues, beta);
          return true;
        }
      }
      return false;
    };
#ifdef MPC_HAVE_ONEDNN
    if constexpr (std::is_same_v<T, float>) {
      // Tries C written by oneDNN, then its f32 product.
      auto runOnednn = [&](DType operands, const void *aData, const void *bData) {
        if (onednnWritesC &&
            onednn_->run(operands, step.cDtype, step.transposeA, step.transposeB, step.m, step.n,
                         step.k, aData, bData, biasValues, cBytes, beta))
          return wroteC = true;
        computeValues();
        return onednn_->run(operands, DType::F32, step.transposeA, step.transposeB, step.m, step.n,
                            step.k, aData, bData, nullptr, cValues, beta);
      };
      if (!done && nativeBf16)
        done = runOnednn(DType::BF16, aBytes, bBytes);
      if (!done)
        done = runHostSgemm();
      if (!done && onednn_ && onednn_->handles(DType::F32, step.m, step.n, step.k)) {
        widenOperands();
        done = runOnednn(DType::F32, aValues, bValues);
      }
    }
#else
    done = done || runHostSgemm();
#endif
    if (!done) {
      widenOperands();
      computeValues();
      blasGemm(step.transposeA, step.transposeB, static_cast<int>(step.m), static_cast<int>(step.n),
               static_cast<int>(step.k), aValues, bValues, cValues, beta);
    }
    if (wroteC) {
      if (relu)
        reluInPlace(step.cDtype, cBytes, cCount);
      else if (reluGrad.out) // (verified: no epilogue)
        maskStored(step.cDtype, cBytes, step.reluGrad->auxDtype, reluGrad.aux, reluGrad.out,
                   cCount);
      continue;
    }
    if constexpr (std::is_same_v<T, float>) {
      if (reluGrad.out) { // (verified: batch 1, no epilogue, no kept result)
        mpc::rt::reluGrad(step.cDtype, cValues, step.reluGrad->auxDtype, reluGrad.aux,
                          reluGrad.out, cCount, scratch.rounded);
        continue;
      }
    }
    // A kept f16 result's copy (single f16 products only).
    float *rounded = nullptr;
    if (copies.keepC) {
      copies.keepC->resize(cCount);
      rounded = copies.keepC->data();
    }
    if constexpr (std::is_same_v<T, float>) {
      // (Without an epilogue and a kept copy, narrowElements below is that
      // one pass.)
      if (step.cDtype == DType::F16 && (step.epilogue != Epilogue::None || rounded) &&
          step.epilogue != Epilogue::Gelu && step.epilogue != Epilogue::BiasGelu) {
        biasReluHalfRows(epilogueHasBias(step.epilogue) ? biasValues : nullptr, relu, cValues,
                         reinterpret_cast<uint16_t *>(cBytes), rounded, step.m, step.n);
        continue;
      }
    }
    applyEpilogue(step.epilogue, biasValues, cValues, step.m, step.n);
    if (!direct)
      narrowElements(cValues, step.cDtype, cBytes, cCount);
    if (rounded) // a GELU result: the stored values widened again
      widenElements(step.cDtype, cBytes, rounded, cCount);
  }
}

void HostGemm::run(const GemmStep &step, const uint8_t *a, const uint8_t *b,
                   const uint8_t *bias, uint8_t *c, const GemmOperandCopies &copies,
                   const GemmReluGradBuffers &reluGrad) {
  if (step.aDtype == DType::F64 && step.bDtype == DType::F64 &&
      step.cDtype == DType::F64)
    runIn(step, a, b, bias, c, double_, copies, reluGrad);
  else
    runIn(step, a, b, bias, c, single_, copies, reluGrad);
}

} // namespace mpc::rt
