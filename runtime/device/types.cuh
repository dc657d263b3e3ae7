//===- types.cuh - fp16/bf16 storage types for generated kernels ----------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Generated kernels keep tensors in fp16/bf16 (or f32/f64) storage and compute
// in fp32 registers: `to_f32` widens at a load and `from_f32<T>` rounds once at
// a store. The same source compiles with NVRTC (__CUDACC_RTC__, no standard
// headers), with nvcc, and with a plain host C++17 compiler for the CPU
// backend, and both targets round alike:
//   - round to nearest, ties to even;
//   - fp16 overflows to inf from 65520 on (max finite 65504); bf16 keeps
//     f32's range;
//   - fp16 subnormals are kept down to 2^-24;
//   - a NaN stays a NaN and comes out quiet (sign and top payload bits kept
//     on the host; the GPU may return its canonical NaN).
// On the GPU fp16 conversions are single PTX `cvt` instructions, on a host
// with F16C single x86 instructions; everything else is the bit-level code
// below, written without branches (masks of integer and float arithmetic).
// F16C's instructions do not vectorise in a host compiler's loops, the
// bit-level code does: the loops of pointwise kernels convert with
// to_f32_loop and from_f32_loop, the same values in that form.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_DEVICE_TYPES_CUH
#define MPC_DEVICE_TYPES_CUH

#include "mpc/device/platform.cuh"

#ifndef __CUDACC_RTC__
#include <cstring>
#endif
#if !defined(__CUDACC__) && defined(__F16C__)
// A host with F16C (x86-64-v3 kernels) converts one fp16 value in one
// instruction, rounding exactly as the code below does.
#include <immintrin.h>
#define MPC_HOST_F16C 1
#endif


namespace mpc {

/// IEEE 754 binary16, kept as its bit pattern.
struct half_t {
  uint16_t bits;
};

/// bfloat16 (the upper half of an f32), kept as its bit pattern.
struct bf16_t {
  uint16_t bits;
};

namespace detail {

MPC_HD uint32_t floatBits(float value) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(value);
#else
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
#endif
}

MPC_HD float floatFromBits(uint32_t bits) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(bits);
#else
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
#endif
}

/// `yes` when `condition` holds, else `no`: a mask, not a branch.
MPC_HD uint32_t pick(bool condition, uint32_t yes, uint32_t no) {
  uint32_t mask = 0u - static_cast<uint32_t>(condition);
  return (yes & mask) | (no & ~mask);
}

MPC_HD uint16_t halfBitsFromFloat(float value) {
  uint32_t bits = floatBits(value);
  uint32_t sign = (bits >> 16) & 0x8000u;
  uint32_t magnitude = bits & 0x7fffffffu;
  // A NaN stays a NaN, made quiet, with its top payload bits.
  uint32_t nan = 0x7e00u | ((magnitude >> 13) & 0x3ffu);
  // |value| >= 2^16 (and inf): inf. Values in [65520, 2^16) reach inf
  // through the rounding of the normal case.
  uint32_t huge = 0x7c00u;
  // |value| < 2^-14: an fp16 subnormal, or zero. Adding 0.5 puts the value's
  // units of 2^-24 in the low mantissa bits, rounded to nearest even by
  // the float addition itself; values below 2^-25 round to zero.
  uint32_t small =
      floatBits(floatFromBits(magnitude) + floatFromBits(0x3f000000u)) - 0x3f000000u;
  // A normal: rebias the exponent, round the 13 dropped bits to nearest
  // even; a carry out of the mantissa gives the next binade.
  uint32_t odd = (magnitude >> 13) & 1u;
  uint32_t normal = (magnitude + 0xc8000fffu + odd) >> 13; // (15 - 127) << 23, + 0xfff
  uint32_t half = pick(magnitude > 0x7f800000u, nan,
                       pick(magnitude >= 0x47800000u, huge,
                            pick(magnitude < 0x38800000u, small, normal)));
  return static_cast<uint16_t>(sign | half);
}

MPC_HD float floatFromHalfBits(uint16_t half) {
  uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  uint32_t magnitude = half & 0x7fffu;
  // Normal: rebias the exponent (+112); inf and NaN: the top exponent,
  // a NaN made quiet.
  uint32_t normal = (magnitude << 13) + 0x38000000u;
  uint32_t special = (magnitude << 13) | 0x7f800000u | pick(magnitude > 0x7c00u, 0x400000u, 0u);
  // Zero or subnormal: mantissa * 2^-24, exact in f32.
  uint32_t small = floatBits(static_cast<float>(static_cast<int32_t>(magnitude)) * 0x1p-24f);
  uint32_t bits = pick(magnitude >= 0x7c00u, special, pick(magnitude < 0x400u, small, normal));
  return floatFromBits(sign | bits);
}

} // namespace detail

MPC_HD float to_f32(half_t value) {
#ifdef __CUDA_ARCH__
  float result;
  asm("cvt.f32.f16 %0, %1;" : "=f"(result) : "h"(value.bits));
  return result;
#elif defined(MPC_HOST_F16C)
  return _cvtsh_ss(value.bits);
#else
  return detail::floatFromHalfBits(value.bits);
#endif
}

MPC_HD float to_f32(bf16_t value) {
  return detail::floatFromBits(static_cast<uint32_t>(value.bits) << 16);
}

MPC_HD float to_f32(float value) { return value; }

MPC_HD float to_f32(double value) { return static_cast<float>(value); }

/// Rounds an f32 register value to the storage type T.
template <typename T> MPC_HD T from_f32(float value);

template <> MPC_HD half_t from_f32<half_t>(float value) {
#ifdef __CUDA_ARCH__
  uint16_t bits;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(value));
  return half_t{bits};
#elif defined(MPC_HOST_F16C)
  return half_t{static_cast<uint16_t>(
      _cvtss_sh(value, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC))};
#else
  return half_t{detail::halfBitsFromFloat(value)};
#endif
}

template <> MPC_HD bf16_t from_f32<bf16_t>(float value) {
  uint32_t bits = detail::floatBits(value);
  // A NaN keeps its sign and top payload, made quiet. Otherwise adding
  // 0x7fff plus the kept lsb rounds to nearest even; a carry out of the
  // mantissa moves to the next binade, and past the largest finite to inf.
  uint32_t nan = (bits >> 16) | 0x40u;
  uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  return bf16_t{static_cast<uint16_t>(
      detail::pick((bits & 0x7fffffffu) > 0x7f800000u, nan, rounded))};
}

template <> MPC_HD float from_f32<float>(float value) { return value; }

template <> MPC_HD double from_f32<double>(float value) {
  return static_cast<double>(value);
}

/// to_f32 and from_f32 for the loops a host compiler vectorises (the same
/// values; see the file comment).
MPC_HD float to_f32_loop(half_t value) {
#ifdef __CUDA_ARCH__
  return to_f32(value);
#else
  return detail::floatFromHalfBits(value.bits);
#endif
}
MPC_HD float to_f32_loop(bf16_t value) { return to_f32(value); }
MPC_HD float to_f32_loop(float value) { return value; }
MPC_HD float to_f32_loop(double value) { return static_cast<float>(value); }

template <typename T> MPC_HD T from_f32_loop(float value) { return from_f32<T>(value); }
template <> MPC_HD half_t from_f32_loop<half_t>(float value) {
#ifdef __CUDA_ARCH__
  return from_f32<half_t>(value);
#else
  return half_t{detail::halfBitsFromFloat(value)};
#endif
}

} // namespace mpc

#endif // MPC_DEVICE_TYPES_CUH
