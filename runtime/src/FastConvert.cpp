//===- FastConvert.cpp - fp16 and bf16 arrays to and from f32, fast -------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "FastConvert.h"

#include "mpc/device/types.cuh"

#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define MPC_HAVE_X86_DISPATCH 1
#endif

namespace mpc::rt {

namespace {

void widenHalfPortable(const uint16_t *source, float *target, size_t count) {
  for (size_t i = 0; i < count; ++i)
    target[i] = mpc::to_f32(mpc::half_t{source[i]});
}

void narrowToHalfPortable(const float *source, uint16_t *target, size_t count) {
  for (size_t i = 0; i < count; ++i)
    target[i] = mpc::from_f32<mpc::half_t>(source[i]).bits;
}

#ifdef MPC_HAVE_X86_DISPATCH
__attribute__((target("avx,f16c"))) void widenHalfF16c(const uint16_t *source, float *target,
                                                      size_t count) {
  size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    __m128i half = _mm_loadu_si128(reinterpret_cast<const __m128i *>(source + i));
    _mm256_storeu_ps(target + i, _mm256_cvtph_ps(half));
  }
  widenHalfPortable(source + i, target + i, count - i);
}

__attribute__((target("avx,f16c"))) void narrowToHalfF16c(const float *source, uint16_t *target,
                                                         size_t count) {
  size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    __m128i half = _mm256_cvtps_ph(_mm256_loadu_ps(source + i),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(target + i), half);
  }
  narrowToHalfPortable(source + i, target + i, count - i);
}
#endif

} // namespace

bool haveF16c() {
#ifdef MPC_HAVE_X86_DISPATCH
  static const bool have = __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
  return have;
#else
  return false;
#endif
}

void widenHalf(const uint16_t *source, float *target, size_t count) {
#ifdef MPC_HAVE_X86_DISPATCH
  if (haveF16c())
    return widenHalfF16c(source, target, count);
#endif
  widenHalfPortable(source, target, count);
}

void narrowToHalf(const float *source, uint16_t *target, size_t count) {
#ifdef MPC_HAVE_X86_DISPATCH
  if (haveF16c())
    return narrowToHalfF16c(source, target, count);
#endif
  narrowToHalfPortable(source, target, count);
}

// bf16 is the top half of an f32: widening shifts, narrowing adds the
// rounding bias (0x7fff and the kept lsb) unless the value is a NaN, which
// keeps its sign and top payload and is made quiet. Branch-free, so the
// compiler vectorises both loops.
void widenBf16(const uint16_t *source, float *target, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    uint32_t bits = static_cast<uint32_t>(source[i]) << 16;
    std::memcpy(&target[i], &bits, sizeof bits);
  }
}

void narrowToBf16(const float *source, uint16_t *target, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &source[i], sizeof bits);
    uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
    uint32_t quiet = (bits >> 16) | 0x40u;
    bool nan = (bits & 0x7fffffffu) > 0x7f800000u;
    target[i] = static_cast<uint16_t>(nan ? quiet : rounded);
  }
}

} // namespace mpc::rt
