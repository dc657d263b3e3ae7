//===- pointwise.cuh - the elementwise kernel skeleton --------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// A pointwise kernel hands a functor that computes one output element to
// mpc::pointwise:
//
//   struct K3 {
//     const float *x; const float *b; float *y;
//     MPC_HD void operator()(int64_t i) const { y[i] = x[i] + b[i % 7]; }
//   };
//   MPC_KERNEL(k3) {
//     mpc::pointwise(35, K3{static_cast<const float *>(mpc_buffers[0]), ...});
//   }
//
// The functor must not depend on the order in which elements are visited:
// the GPU visits them in parallel, the host possibly from several threads.
//
// Generated kernels also give the host a form of their own, `row(r)`, run by
// mpc::pointwise_rows: a stretch of elements contiguous in every buffer that
// varies along it, walked in chunks of kHostChunk elements; fp16 and bf16
// operands are widened a chunk at a time into float arrays (widen_chunk),
// results narrowed from them (narrow_chunk), and booleans likewise through
// 32-bit lanes, so that the loop between is plain 32-bit arithmetic the
// host compiler vectorises.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_DEVICE_POINTWISE_CUH
#define MPC_DEVICE_POINTWISE_CUH

#include "mpc/device/platform.cuh"
#include "mpc/device/types.cuh"

#if !defined(__CUDACC__) && defined(_OPENMP)
#include <omp.h>
#endif

namespace mpc {

#ifndef __CUDACC__
namespace detail {
/// Below this many elements the host loop stays on one thread: starting a
/// parallel region costs more than the loop.
constexpr int64_t kHostParallelMinElements = 32768;

/// The threads a host parallel region runs on (1 without OpenMP).
inline int64_t hostThreads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

/// Whether a host loop worth threads (`large`) runs on OpenMP threads: only
/// when there are threads to run it on, since even a one-thread parallel
/// region costs about a microsecond, which small kernels notice.
inline bool hostParallel(bool large) { return large && hostThreads() > 1; }
} // namespace detail

/// The elements a host row form converts and computes at a time.
constexpr int64_t kHostChunk = 128;

/// `target[j] = to_f32(source[j])` for j in [0, n): eight at a time with
/// F16C where the kernels are built for it, the same values.
inline void widen_chunk(const half_t *source, float *target, int64_t n) {
  int64_t j = 0;
#ifdef MPC_HOST_F16C
  for (; j + 8 <= n; j += 8)
    _mm256_storeu_ps(target + j, _mm256_cvtph_ps(_mm_loadu_si128(
                                     reinterpret_cast<const __m128i *>(source + j))));
#endif
  for (; j < n; ++j)
    target[j] = to_f32(source[j]);
}
inline void widen_chunk(const bf16_t *source, float *target, int64_t n) {
  for (int64_t j = 0; j < n; ++j)
    target[j] = detail::floatFromBits(static_cast<uint32_t>(source[j].bits) << 16);
}

/// `target[j] = from_f32<T>(source[j])` for j in [0, n), rounding to nearest
/// even: eight at a time with F16C for fp16 and with AVX2 for bf16 where the
/// kernels are built for them (x86-64-v3), the same bits.
inline void narrow_chunk(const float *source, half_t *target, int64_t n) {
  int64_t j = 0;
#ifdef MPC_HOST_F16C
  for (; j + 8 <= n; j += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i *>(target + j),
                     _mm256_cvtps_ph(_mm256_loadu_ps(source + j),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#endif
  for (; j < n; ++j)
    target[j].bits = from_f32<half_t>(source[j]).bits;
}
inline void narrow_chunk(const float *source, bf16_t *target, int64_t n) {
  int64_t j = 0;
#if defined(MPC_HOST_F16C) && defined(__AVX2__)
  // from_f32<bf16_t> on eight lanes: the top half of (bits + 0x7fff + its
  // lsb), or for a NaN its top half made quiet. (What the compiler makes of
  // the loop below takes about 1.5 times the instructions: it cannot see
  // that the 32-bit lanes fit in 16.)
  const __m256i roundingBias = _mm256_set1_epi32(0x7fff), lowBit = _mm256_set1_epi32(1);
  const __m256i magnitude = _mm256_set1_epi32(0x7fffffff), infinity = _mm256_set1_epi32(0x7f800000);
  const __m256i quiet = _mm256_set1_epi32(0x40);
  for (; j + 8 <= n; j += 8) {
    const __m256i bits = _mm256_castps_si256(_mm256_loadu_ps(source + j));
    const __m256i top = _mm256_srli_epi32(bits, 16);
    const __m256i rounded = _mm256_srli_epi32(
        _mm256_add_epi32(bits, _mm256_add_epi32(roundingBias, _mm256_and_si256(top, lowBit))), 16);
    const __m256i isNan = _mm256_cmpgt_epi32(_mm256_and_si256(bits, magnitude), infinity);
    const __m256i lanes = _mm256_blendv_epi8(rounded, _mm256_or_si256(top, quiet), isNan);
    // Every lane is below 2^16: packing with unsigned saturation keeps it.
    _mm_storeu_si128(reinterpret_cast<__m128i *>(target + j),
                     _mm_packus_epi32(_mm256_castsi256_si128(lanes),
                                      _mm256_extracti128_si256(lanes, 1)));
  }
#endif
  // Through the bits: a loop of struct stores does not vectorise.
  for (; j < n; ++j)
    target[j].bits = from_f32<bf16_t>(source[j]).bits;
}

/// Booleans (one byte each, 0 or 1) to and from 32-bit lanes, so that a
/// loop mixing them with floats has one element width and vectorises.
inline void widen_chunk(const uint8_t *source, int32_t *target, int64_t n) {
  for (int64_t j = 0; j < n; ++j)
    target[j] = source[j] != 0;
}
inline void narrow_chunk(const int32_t *source, uint8_t *target, int64_t n) {
  for (int64_t j = 0; j < n; ++j)
    target[j] = static_cast<uint8_t>(source[j]);
}
#endif

/// Calls `fn(i)` once for every `i` in [0, n). On the GPU a grid-stride loop
/// over any 1-D launch; on the host a loop, run by OpenMP threads when the
/// shared object is built with OpenMP and n is large.
template <typename Fn>
MPC_DEVICE_INLINE void pointwise(int64_t n, const Fn &fn) {
#ifdef __CUDACC__
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       i < n; i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    fn(i);
#else
  if (detail::hostParallel(n >= detail::kHostParallelMinElements)) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i)
      fn(i);
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    fn(i);
#endif
}

/// The skeleton of generated pointwise kernels: on the GPU, `fn(i)` for
/// every element i in [0, elements); on the host, `fn.row(r)` for every row
/// r in [0, rows) (see the file comment), rows on OpenMP threads when there
/// are many elements. Host kernels built with MPC_HOST_ELEMENT_FORM run the
/// GPU's form instead, `fn(i)` element by element: the emulated GPU of the
/// tests runs those, so that the GPU's indexing is checked against the
/// host's.
template <typename Fn>
MPC_DEVICE_INLINE void pointwise_rows(int64_t rows, int64_t elements, const Fn &fn) {
#if defined(__CUDACC__) || defined(MPC_HOST_ELEMENT_FORM)
  (void)rows;
  pointwise(elements, fn);
#else
  if (detail::hostParallel(elements >= detail::kHostParallelMinElements && rows > 1)) {
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; ++r)
      fn.row(r);
    return;
  }
  for (int64_t r = 0; r < rows; ++r)
    fn.row(r);
#endif
}

} // namespace mpc

#endif // MPC_DEVICE_POINTWISE_CUH
