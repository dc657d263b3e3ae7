//===- Float16Test.cpp - fp16/bf16 conversions of types.cuh ---------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The host implementation of the kernels' storage types is checked against
// the IEEE definitions (values computed in double), against references that
// round by searching for the nearest representable value, and, for fp16,
// against the x86 F16C instructions.
//
//===----------------------------------------------------------------------===//

#include "mpc/device/types.cuh"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define MPC_TEST_X86 1
#endif

using mpc::bf16_t;
using mpc::from_f32;
using mpc::half_t;
using mpc::to_f32;

static_assert(sizeof(half_t) == 2 && sizeof(bf16_t) == 2);
static_assert(std::is_trivially_copyable_v<half_t> &&
              std::is_trivially_copyable_v<bf16_t>);

namespace {

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float floatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

uint16_t toHalf(float value) { return from_f32<half_t>(value).bits; }
uint16_t toBf16(float value) { return from_f32<bf16_t>(value).bits; }

/// The values of the fp16 patterns 0x0000..0x7bff (every non-negative finite
/// one, ascending), from the IEEE 754 definition.
const std::vector<double> &halfValues() {
  static const std::vector<double> values = [] {
    std::vector<double> result(0x7c00);
    for (uint32_t pattern = 0; pattern < 0x7c00; ++pattern) {
      int exponent = static_cast<int>(pattern >> 10);
      double mantissa = pattern & 0x3ff;
      result[pattern] = exponent == 0
                            ? std::ldexp(mantissa, -24)
                            : std::ldexp(1024 + mantissa, exponent - 25);
    }
    return result;
  }();
  return values;
}

/// f32 to fp16 by search: the nearest fp16 value in double arithmetic, ties
/// to the even pattern; from 65520 (halfway from 65504 to 2^16) on, inf.
/// Not meaningful for NaN.
uint16_t referenceHalf(float value) {
  uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  double magnitude = std::fabs(static_cast<double>(value));
  if (magnitude >= 65520.0)
    return sign | 0x7c00;
  const std::vector<double> &values = halfValues();
  size_t upper = std::upper_bound(values.begin(), values.end(), magnitude) -
                 values.begin();
  size_t lower = upper - 1;
  if (values[lower] == magnitude || upper == values.size())
    return static_cast<uint16_t>(sign | lower);
  double below = magnitude - values[lower];
  double above = values[upper] - magnitude;
  bool down = below < above || (below == above && lower % 2 == 0);
  return static_cast<uint16_t>(sign | (down ? lower : upper));
}

/// f32 to bf16 by comparing the two bf16 neighbours of `value` in double
/// arithmetic, ties to the even pattern; past the largest finite bf16 the
/// upper neighbour is 2^128, i.e. inf. Not meaningful for NaN.
uint16_t referenceBf16(float value) {
  uint32_t bits = bitsOf(value);
  uint16_t truncated = static_cast<uint16_t>(bits >> 16);
  if ((bits & 0xffff) == 0)
    return truncated;
  uint16_t next = truncated + 1;
  double magnitude = std::fabs(static_cast<double>(value));
  double low =
      std::fabs(static_cast<double>(floatOf(uint32_t(truncated) << 16)));
  double high =
      (next & 0x7fff) == 0x7f80
          ? std::ldexp(1.0, 128)
          : std::fabs(static_cast<double>(floatOf(uint32_t(next) << 16)));
  double below = magnitude - low, above = high - magnitude;
  bool down = below < above || (below == above && truncated % 2 == 0);
  return down ? truncated : next;
}

bool isHalfNaN(uint16_t bits) {
  return (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0;
}

/// The fp16 NaN that the f32 NaN `bits` should become: quiet, with the same
/// sign and the top payload bits.
uint16_t quietHalfNaN(uint32_t bits) {
  return static_cast<uint16_t>(((bits >> 16) & 0x8000) | 0x7e00 |
                               ((bits >> 13) & 0x3ff));
}

/// Checks `actual`, the conversion of the f32 `bits`; returns whether it was
/// right so that a sweep can stop at the first failure.
bool expectConverted(uint32_t bits, uint16_t actual, uint16_t expected) {
  EXPECT_EQ(actual, expected) << std::hex << "f32 0x" << bits;
  return actual == expected;
}

bool halfMatchesReference(uint32_t bits) {
  float value = floatOf(bits);
  return expectConverted(bits, toHalf(value),
                         std::isnan(value) ? quietHalfNaN(bits)
                                           : referenceHalf(value));
}

bool bf16MatchesReference(uint32_t bits) {
  float value = floatOf(bits);
  return expectConverted(bits, toBf16(value),
                         std::isnan(value)
                             ? static_cast<uint16_t>((bits >> 16) | 0x40)
                             : referenceBf16(value));
}

/// f32 patterns worth checking on their own: zeros, infinities, NaNs, the
/// ends of each format's range and of the subnormals, rounding ties.
const std::vector<uint32_t> &edgePatterns() {
  static const std::vector<uint32_t> patterns = [] {
    std::vector<uint32_t> result = {
        0x00000000, 0x00000001, 0x007fffff, 0x00800000, // f32 0, subnormals
        0x7f7fffff, 0x7f800000, 0x7f7f8000, 0x7f7f7fff, // f32 max, inf
        0x7f800001, 0x7fc00000, 0x7fffffff, 0x7fa00000, // NaNs
        0x7f802000, 0x3f800000, 0x3f801000, 0x3f802000, // NaN; 1 and ties
        0x3f803000, 0x3f808000, 0x3f818000, 0x477fe000, // ties; fp16 max
        0x477fefff, 0x477ff000, 0x477ff001, 0x47800000, // 65520; 2^16
        0x33800000, 0x33000000, 0x33000001, 0x32ffffff, // 2^-24, 2^-25
        0x33c00000, 0x38800000, 0x387fc000, 0x387fe000, // 1.5 * 2^-24; 2^-14
        0x387ff000, 0x00008000, 0x00018000, 0x00010000, // bf16 subnormals
    };
    size_t count = result.size();
    for (size_t i = 0; i < count; ++i)
      result.push_back(result[i] | 0x80000000u);
    return result;
  }();
  return patterns;
}

/// Calls `check` for every `stride`-th f32 pattern and for the edge
/// patterns, up to the first that fails.
template <typename Check>
void forStridedPatterns(uint32_t stride, Check check) {
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += stride)
    if (!check(static_cast<uint32_t>(bits)))
      return;
  for (uint32_t bits : edgePatterns())
    if (!check(bits))
      return;
  check(0xffffffffu);
}

TEST(Float16, ToF32MatchesTheIeeeDefinitionForEveryPattern) {
  for (uint32_t pattern = 0; pattern <= 0xffff; ++pattern) {
    uint16_t half = static_cast<uint16_t>(pattern);
    uint32_t sign = (pattern & 0x8000u) << 16;
    uint32_t bits = bitsOf(to_f32(half_t{half}));
    uint16_t magnitude = half & 0x7fff;
    if (magnitude < 0x7c00) {
      float expected = static_cast<float>(halfValues()[magnitude]);
      ASSERT_EQ(bits, bitsOf(expected) | sign) << std::hex << pattern;
    } else if (magnitude == 0x7c00) {
      ASSERT_EQ(bits, 0x7f800000u | sign) << std::hex << pattern;
    } else {
      // NaN: quiet, same sign, payload moved up.
      ASSERT_EQ(bits, sign | 0x7fc00000u | ((pattern & 0x3ffu) << 13))
          << std::hex << pattern;
    }
  }
}

TEST(Float16, EveryPatternRoundTripsThroughF32) {
  for (uint32_t pattern = 0; pattern <= 0xffff; ++pattern) {
    uint16_t half = static_cast<uint16_t>(pattern);
    uint16_t back = toHalf(to_f32(half_t{half}));
    if (isHalfNaN(half)) {
      ASSERT_TRUE(isHalfNaN(back)) << std::hex << pattern;
      ASSERT_EQ(back, half | 0x200) << std::hex << pattern;
    } else {
      ASSERT_EQ(back, half) << std::hex << pattern;
    }
  }
}

TEST(Float16, MidpointsRoundToEvenAndTheirNeighboursToNearest) {
  const std::vector<double> &values = halfValues();
  for (uint16_t sign : {0x0000, 0x8000}) {
    float direction = sign ? -1.0f : 1.0f;
    for (uint32_t lower = 0; lower < 0x7c00; ++lower) {
      // Above the largest finite value the next "value" is 2^16 (inf).
      double upperValue =
          lower + 1 < 0x7c00 ? values[lower + 1] : std::ldexp(1.0, 16);
      float midpoint =
          direction * static_cast<float>((values[lower] + upperValue) / 2);
      uint16_t even = static_cast<uint16_t>(lower % 2 == 0 ? lower : lower + 1);
      ASSERT_EQ(toHalf(midpoint), sign | even) << "midpoint above " << lower;
      float below = std::nextafter(midpoint, 0.0f);
      float above = std::nextafter(midpoint, direction * INFINITY);
      ASSERT_EQ(toHalf(below), sign | lower) << "below midpoint " << lower;
      ASSERT_EQ(toHalf(above), sign | (lower + 1))
          << "above midpoint " << lower;
    }
  }
}

TEST(Float16, EdgeCases) {
  struct Case {
    float value;
    uint16_t expected;
  } cases[] = {
      {0.0f, 0x0000},       {-0.0f, 0x8000},           {1.0f, 0x3c00},
      {-2.0f, 0xc000},      {65504.0f, 0x7bff},        {-65504.0f, 0xfbff},
      {65519.996f, 0x7bff}, {65520.0f, 0x7c00},        {-65520.0f, 0xfc00},
      {1e10f, 0x7c00},      {INFINITY, 0x7c00},        {-INFINITY, 0xfc00},
      {0x1p-14f, 0x0400},   {0x1p-24f, 0x0001},        {-0x1p-24f, 0x8001},
      {0x1p-25f, 0x0000},   {0x1.000002p-25f, 0x0001}, {0x1.8p-24f, 0x0002},
      {0x1p-126f, 0x0000},  {-0x1p-149f, 0x8000},      {0x1.002p0f, 0x3c00},
      {0x1.006p0f, 0x3c02}, {0x1.ffcp-15f, 0x0400},    {0x1.ff4p-15f, 0x03fe},
  };
  for (const Case &c : cases)
    EXPECT_EQ(toHalf(c.value), c.expected) << c.value;
  for (uint32_t nan : {0x7fc00000u, 0x7f800001u, 0xffc12345u, 0x7fa00000u})
    expectConverted(nan, toHalf(floatOf(nan)), quietHalfNaN(nan));
}

TEST(Float16, StridedF32PatternsMatchTheNearestSearch) {
  forStridedPatterns(997, halfMatchesReference);
}

#ifdef MPC_TEST_X86
__attribute__((target("f16c"))) uint16_t f16cFromFloat(float value) {
  return static_cast<uint16_t>(_cvtss_sh(value, _MM_FROUND_TO_NEAREST_INT));
}

__attribute__((target("f16c"))) float f16cToFloat(uint16_t half) {
  return _cvtsh_ss(half);
}

/// Whether the CPU can run F16C code: the cpuid flag, plus AVX state support
/// by the OS, which the VEX-encoded instructions need. (Older compilers do
/// not know "f16c" as a __builtin_cpu_supports feature.)
bool cpuHasF16c() {
  unsigned eax, ebx, ecx, edx;
  return __builtin_cpu_supports("avx") &&
         __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C);
}
#endif

TEST(Float16, MatchesTheF16cInstructions) {
#ifndef MPC_TEST_X86
  GTEST_SKIP() << "not an x86 build, so there is no F16C to compare with";
#else
  if (!cpuHasF16c())
    GTEST_SKIP() << "this CPU lacks the F16C instructions";
  for (uint32_t pattern = 0; pattern <= 0xffff; ++pattern)
    ASSERT_EQ(bitsOf(to_f32(half_t{static_cast<uint16_t>(pattern)})),
              bitsOf(f16cToFloat(static_cast<uint16_t>(pattern))))
        << std::hex << pattern;
  auto check = [](uint32_t bits) {
    float value = floatOf(bits);
    return expectConverted(bits, toHalf(value), f16cFromFloat(value));
  };
  forStridedPatterns(997, check);
  // Denser where fp16 has values: exponents 2^-27 .. 2^17, both signs.
  for (uint32_t sign : {0u, 0x80000000u})
    for (uint32_t bits = 100u << 23; bits < 145u << 23; bits += 13)
      if (!check(sign | bits))
        return;
#endif
}

TEST(Bf16, ToF32IsTheUpperHalfOfAnF32) {
  for (uint32_t pattern = 0; pattern <= 0xffff; ++pattern)
    ASSERT_EQ(bitsOf(to_f32(bf16_t{static_cast<uint16_t>(pattern)})),
              pattern << 16)
        << std::hex << pattern;
}

TEST(Bf16, EveryPatternRoundTripsThroughF32) {
  for (uint32_t pattern = 0; pattern <= 0xffff; ++pattern) {
    uint16_t bf16 = static_cast<uint16_t>(pattern);
    uint16_t back = toBf16(to_f32(bf16_t{bf16}));
    bool nan = (bf16 & 0x7f80) == 0x7f80 && (bf16 & 0x7f) != 0;
    ASSERT_EQ(back, nan ? bf16 | 0x40 : bf16) << std::hex << pattern;
  }
}

TEST(Bf16, EdgeCases) {
  struct Case {
    uint32_t bits;
    uint16_t expected;
  } cases[] = {
      {0x00000000, 0x0000}, {0x80000000, 0x8000}, // zeros
      {0x3f800000, 0x3f80}, {0x3f808000, 0x3f80}, // 1; 1 + 2^-8 ties to even
      {0x3f818000, 0x3f82}, {0x3f808001, 0x3f81}, // ties up to even; above
      {0x3f807fff, 0x3f80},                       // below the tie
      {0x7f7f7fff, 0x7f7f}, {0x7f7f8000, 0x7f80}, // max; its tie overflows
      {0x7f7fffff, 0x7f80}, {0xff7fffff, 0xff80}, // f32 max rounds to inf
      {0x7f800000, 0x7f80}, {0xff800000, 0xff80}, // inf
      {0x00000001, 0x0000}, {0x00008000, 0x0000}, // tiny; tie to even zero
      {0x00018000, 0x0002}, {0x00008001, 0x0001}, // subnormal ties and above
      {0x007fffff, 0x0080},                       // to the smallest normal
      {0x7f800001, 0x7fc0}, {0xff810000, 0xffc1}, // NaNs stay NaN, quiet
      {0x7fffffff, 0x7fff},
  };
  for (const Case &c : cases)
    EXPECT_EQ(toBf16(floatOf(c.bits)), c.expected) << std::hex << c.bits;
}

TEST(Bf16, F32PatternsMatchTheNeighbourComparison) {
  forStridedPatterns(997, bf16MatchesReference);
  // Every low half under upper halves that cover zero, subnormals, the
  // normal/subnormal boundary, ordinary values, overflow and NaN.
  for (uint32_t upper : {0x0000u, 0x0001u, 0x007fu, 0x0080u, 0x3f80u, 0x3f81u,
                         0x7f7eu, 0x7f7fu, 0x7f80u, 0x7fc0u})
    for (uint32_t sign : {0u, 0x80000000u})
      for (uint32_t lower = 0; lower <= 0xffff; ++lower)
        if (!bf16MatchesReference(sign | (upper << 16) | lower))
          return;
}

TEST(StorageTypes, F32AndF64PassThrough) {
  for (uint32_t bits : edgePatterns()) {
    float value = floatOf(bits);
    EXPECT_EQ(bitsOf(to_f32(value)), bits);
    EXPECT_EQ(bitsOf(from_f32<float>(value)), bits);
    double wide = from_f32<double>(value);
    if (std::isnan(value))
      EXPECT_TRUE(std::isnan(wide));
    else
      EXPECT_EQ(wide, static_cast<double>(value));
    EXPECT_EQ(bitsOf(to_f32(static_cast<double>(value))), bits)
        << std::hex << bits;
  }
  // Narrowing rounds to nearest even and overflows to inf.
  EXPECT_EQ(to_f32(1.0 + std::ldexp(1.0, -24)), 1.0f);
  EXPECT_EQ(to_f32(1.0 + std::ldexp(3.0, -24)), 1.0f + 0x1p-22f);
  EXPECT_EQ(to_f32(1e300), INFINITY);
  EXPECT_EQ(to_f32(-1e300), -INFINITY);
}

} // namespace
