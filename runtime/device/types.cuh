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
// On the GPU fp16 conversions are single PTX `cvt` instructions; everything
// else is the bit-level code below.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_DEVICE_TYPES_CUH
#define MPC_DEVICE_TYPES_CUH

#include "mpc/device/platform.cuh"

#ifndef __CUDACC_RTC__
#include <cstring>
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

/// Shifts `magnitude` right by `shift` (1..31), rounding to nearest even.
MPC_HD uint32_t shiftRightRne(uint32_t magnitude, uint32_t shift) {
  uint32_t kept = magnitude >> shift;
  uint32_t rest = magnitude & ((1u << shift) - 1u);
  uint32_t half = 1u << (shift - 1u);
  if (rest > half || (rest == half && (kept & 1u)))
    ++kept;
  return kept;
}

MPC_HD uint16_t halfBitsFromFloat(float value) {
  uint32_t bits = floatBits(value);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t exponent = (bits >> 23) & 0xffu; // f32 bias 127
  uint32_t mantissa = bits & 0x7fffffu;
  if (exponent == 0xffu) // inf, or NaN made quiet
    return sign | (mantissa ? 0x7e00u | (mantissa >> 13) : 0x7c00u);
  if (exponent >= 143u) // |value| >= 2^16
    return sign | 0x7c00u;
  // An fp16 normal before rounding; a carry out of the mantissa gives the next
  // binade, or inf after the largest finite value, as it should.
  if (exponent >= 113u)
    return sign | static_cast<uint16_t>(
                      shiftRightRne(((exponent - 112u) << 23) | mantissa, 13u));
  if (exponent < 102u) // |value| < 2^-25 rounds to zero
    return sign;
  // An fp16 subnormal counts units of 2^-24; a carry gives the smallest normal.
  return sign | static_cast<uint16_t>(
                    shiftRightRne(mantissa | 0x800000u, 126u - exponent));
}

MPC_HD float floatFromHalfBits(uint16_t half) {
  uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1fu;
  uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0x1fu) // inf, or NaN made quiet
    return floatFromBits(sign | 0x7f800000u |
                         (mantissa ? 0x400000u | (mantissa << 13) : 0u));
  if (exponent == 0u) // zero or subnormal: mantissa * 2^-24, exact in f32
    return floatFromBits(sign |
                         floatBits(static_cast<float>(mantissa) * 0x1p-24f));
  return floatFromBits(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

} // namespace detail

MPC_HD float to_f32(half_t value) {
#ifdef __CUDA_ARCH__
  float result;
  asm("cvt.f32.f16 %0, %1;" : "=f"(result) : "h"(value.bits));
  return result;
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
#else
  return half_t{detail::halfBitsFromFloat(value)};
#endif
}

template <> MPC_HD bf16_t from_f32<bf16_t>(float value) {
  uint32_t bits = detail::floatBits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN: keep sign and top payload
    return bf16_t{static_cast<uint16_t>((bits >> 16) | 0x40u)};
  // Adding 0x7fff plus the kept lsb rounds to nearest even; a carry out of the
  // mantissa moves to the next binade, and past the largest finite to inf.
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return bf16_t{static_cast<uint16_t>(bits >> 16)};
}

template <> MPC_HD float from_f32<float>(float value) { return value; }

template <> MPC_HD double from_f32<double>(float value) {
  return static_cast<double>(value);
}

} // namespace mpc

#endif // MPC_DEVICE_TYPES_CUH
