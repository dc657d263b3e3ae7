//===- FastConvertTest.cpp - array conversions agree with the device headers ===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The runtime's fast fp16/bf16 array conversions (F16C where the CPU has it)
// against the device headers' scalar to_f32/from_f32, bitwise: every fp16
// and bf16 pattern widened, and f32 values narrowed — every exponent with
// many mantissas, ties, the fp16 overflow and subnormal boundaries, infinities
// and NaNs of both signs, at every position of the eight-wide blocks.
//
//===----------------------------------------------------------------------===//

#include "FastConvert.h"

#include "mpc/device/types.cuh"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

namespace {

float fromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

std::vector<float> interestingFloats() {
  std::vector<float> values;
  std::mt19937 engine(5);
  for (uint32_t sign : {0u, 0x80000000u})
    for (uint32_t exponent = 0; exponent < 256; ++exponent) {
      for (uint32_t mantissa : {0u, 1u, 0x1000u, 0xfffu, 0x2000u, 0x1fffu, 0x3fffu, 0x400000u,
                                0x7fffffu, 0x7fe000u, 0x7ff000u, 0x7fefffu, 0x8000u, 0x18000u})
        values.push_back(fromBits(sign | exponent << 23 | mantissa));
      for (int i = 0; i < 64; ++i)
        values.push_back(fromBits(sign | exponent << 23 | (engine() & 0x7fffffu)));
    }
  for (float v : {65504.0f, 65519.99f, 65520.0f, 0x1p-24f, 0x1p-25f, 0x1.8p-25f, 0x1p-26f,
                  0x1p-14f, 0x1.ffcp-15f})
    values.push_back(v);
  return values;
}

TEST(FastConvert, WidensEveryHalfAsTheDeviceHeadersDo) {
  std::vector<uint16_t> all(65536);
  for (uint32_t i = 0; i < 65536; ++i)
    all[i] = static_cast<uint16_t>(i);
  for (size_t offset = 0; offset < 8; ++offset) {
    std::vector<float> fast(all.size() - offset), slow(all.size() - offset),
        bf16(all.size() - offset);
    mpc::rt::widenHalf(all.data() + offset, fast.data(), fast.size());
    mpc::rt::widenBf16(all.data() + offset, bf16.data(), bf16.size());
    for (size_t i = 0; i < fast.size(); ++i) {
      float half = mpc::to_f32(mpc::half_t{all[offset + i]});
      float brain = mpc::to_f32(mpc::bf16_t{all[offset + i]});
      ASSERT_EQ(std::memcmp(&fast[i], &half, 4), 0) << "fp16 0x" << std::hex << all[offset + i];
      ASSERT_EQ(std::memcmp(&bf16[i], &brain, 4), 0) << "bf16 0x" << std::hex << all[offset + i];
    }
  }
}

TEST(FastConvert, NarrowsAsTheDeviceHeadersDo) {
  std::vector<float> values = interestingFloats();
  for (size_t offset = 0; offset < 8; ++offset) {
    size_t count = values.size() - offset;
    std::vector<uint16_t> half(count), brain(count);
    mpc::rt::narrowToHalf(values.data() + offset, half.data(), count);
    mpc::rt::narrowToBf16(values.data() + offset, brain.data(), count);
    for (size_t i = 0; i < count; ++i) {
      float v = values[offset + i];
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      ASSERT_EQ(half[i], mpc::from_f32<mpc::half_t>(v).bits) << "f32 0x" << std::hex << bits;
      ASSERT_EQ(brain[i], mpc::from_f32<mpc::bf16_t>(v).bits) << "f32 0x" << std::hex << bits;
    }
  }
}

TEST(FastConvert, ReportsWhetherItUsesF16c) {
#if defined(__x86_64__)
  EXPECT_EQ(mpc::rt::haveF16c(),
            __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c"));
#else
  EXPECT_FALSE(mpc::rt::haveF16c());
#endif
}

} // namespace
