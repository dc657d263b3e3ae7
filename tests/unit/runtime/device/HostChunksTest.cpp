//===- HostChunksTest.cpp - vector chunk conversions against the scalar ones ===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The row forms of generated host kernels widen fp16 and bf16 operands and
// narrow results a chunk at a time (pointwise.cuh); built for x86-64-v3
// those loops run on F16C (fp16) and AVX2 (bf16 narrowing; bf16 widening is
// the compiler's vectorised shift). Every lane must give the bits of the
// scalar to_f32 and from_f32: checked over the edge cases (rounding ties,
// NaN payloads, subnormals, overflow) in the vector lanes and in the tail,
// a sweep of all float bit patterns (one in 251), every 16-bit pattern
// widened, and chunk lengths that leave a tail of each size. The x86-64-v3
// build is a module (HostChunksV3.cpp), loaded only where the CPU runs it;
// so is the same source built for x86-64-v4 (AVX-512), which the compiler
// vectorises with AVX-512's conversions and masks.
//
//===----------------------------------------------------------------------===//

#include "mpc/toolchain/HostCpu.h"
#include "mpc/device/types.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <dlfcn.h>

namespace {

using mpc::detail::floatBits;
using mpc::detail::floatFromBits;

/// Floats whose narrowing is easy to get wrong: zeros, infinities, NaNs
/// with payloads in the kept and the dropped bits (signalling and quiet),
/// the largest finite values (which round to infinity in fp16 and in bf16
/// may), subnormals, and ties of bf16 rounding (low half 0x8000 after an
/// even and an odd kept bit) with their neighbours.
std::vector<float> edgeCases() {
  std::vector<uint32_t> bits = {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000,
                                0xffc00000, 0x7f800001, 0xff800001, 0x7fbfffff, 0x7fffffff,
                                0xffffffff, 0x7f80ffff, 0x7f810000, 0x7f7fffff, 0xff7fffff,
                                0x7f7f8000, 0x7f7f7fff, 0x00000001, 0x807fffff, 0x00008000,
                                0x00018000, 0x3f808000, 0x3f818000, 0x3f807fff, 0x3f808001,
                                0x477fe000, 0x477ff000, 0x38800000, 0x33800000, 0x33000001};
  std::vector<float> values;
  for (uint32_t pattern : bits)
    values.push_back(floatFromBits(pattern));
  return values;
}

/// The edge cases (in the vector lanes), then every 251st float bit
/// pattern.
std::vector<float> sweep() {
  std::vector<float> values = edgeCases();
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 251)
    values.push_back(floatFromBits(static_cast<uint32_t>(bits)));
  return values;
}

using Narrow = void (*)(const float *, uint16_t *, int64_t);
using Widen = void (*)(const uint16_t *, float *, int64_t);

/// A module of the chunk conversions: its x86-64 level and its path.
struct ChunksModule {
  const char *level, *path;
};

/// Function `name` of the module at `path`, or null (and a test failure)
/// when it cannot be loaded.
template <typename Function> Function chunkFunction(const char *path, const char *name) {
  void *module = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!module) {
    ADD_FAILURE() << "dlopen " << path << ": " << dlerror();
    return nullptr;
  }
  auto *function = reinterpret_cast<Function>(dlsym(module, name));
  if (!function)
    ADD_FAILURE() << "dlsym " << name << ": " << dlerror();
  return function;
}

template <typename Narrow, typename Reference>
void expectNarrowedLikeScalar(Narrow narrow, Reference reference) {
  std::vector<float> values = sweep();
  std::vector<uint16_t> vector(values.size());
  narrow(values.data(), vector.data(), static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i)
    ASSERT_EQ(vector[i], reference(values[i]))
        << "float bits 0x" << std::hex << floatBits(values[i]);
  // Every tail length (and no elements at all), every edge case in the
  // tail too; nothing past n is written.
  std::vector<float> edges = edgeCases();
  for (size_t first = 0; first < edges.size(); first += 8)
    for (int64_t n = 0; n <= 20 && first + n <= edges.size(); ++n) {
      std::vector<uint16_t> out(n + 1, 0xabcd);
      narrow(edges.data() + first, out.data(), n);
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(out[i], reference(edges[first + i]))
            << "n " << n << ", element " << first + i;
      EXPECT_EQ(out[n], 0xabcd) << "n " << n;
    }
}

template <typename Widen, typename Reference>
void expectWidenedLikeScalar(Widen widen, Reference reference) {
  std::vector<uint16_t> patterns(0x10000);
  for (uint32_t pattern = 0; pattern <= 0xffff; ++pattern)
    patterns[pattern] = static_cast<uint16_t>(pattern);
  std::vector<float> out(patterns.size() + 1, 1.5f);
  widen(patterns.data(), out.data(), static_cast<int64_t>(patterns.size()));
  for (uint32_t pattern = 0; pattern <= 0xffff; ++pattern)
    ASSERT_EQ(floatBits(out[pattern]), floatBits(reference(static_cast<uint16_t>(pattern))))
        << "pattern 0x" << std::hex << pattern;
  EXPECT_EQ(out[0x10000], 1.5f);
  // A tail of three: nothing past n is written.
  std::vector<float> tail(12, 1.5f);
  widen(patterns.data() + 0x7f80, tail.data(), 11);
  for (uint32_t i = 0; i < 11; ++i)
    ASSERT_EQ(floatBits(tail[i]), floatBits(reference(static_cast<uint16_t>(0x7f80 + i)))) << i;
  EXPECT_EQ(tail[11], 1.5f);
}

} // namespace

/// Skips where the CPU cannot run the module's level.
class HostChunks : public ::testing::TestWithParam<ChunksModule> {
protected:
  void SetUp() override {
    if (!mpc::rt::cpuRunsX8664Level(GetParam().level))
      GTEST_SKIP() << "this CPU cannot run " << GetParam().level << " code";
  }
  template <typename Function> Function function(const char *name) const {
    return chunkFunction<Function>(GetParam().path, name);
  }
};

TEST_P(HostChunks, Bf16NarrowingMatchesFromF32) {
  Narrow narrow = function<Narrow>("mpc_narrow_bf16_chunk");
  ASSERT_NE(narrow, nullptr);
  expectNarrowedLikeScalar(narrow,
                           [](float value) { return mpc::from_f32<mpc::bf16_t>(value).bits; });
}

TEST_P(HostChunks, HalfNarrowingMatchesFromF32) {
  Narrow narrow = function<Narrow>("mpc_narrow_half_chunk");
  ASSERT_NE(narrow, nullptr);
  expectNarrowedLikeScalar(narrow,
                           [](float value) { return mpc::from_f32<mpc::half_t>(value).bits; });
}

TEST_P(HostChunks, Bf16WideningMatchesToF32) {
  Widen widen = function<Widen>("mpc_widen_bf16_chunk");
  ASSERT_NE(widen, nullptr);
  expectWidenedLikeScalar(widen, [](uint16_t bits) { return mpc::to_f32(mpc::bf16_t{bits}); });
}

TEST_P(HostChunks, HalfWideningMatchesToF32) {
  Widen widen = function<Widen>("mpc_widen_half_chunk");
  ASSERT_NE(widen, nullptr);
  expectWidenedLikeScalar(widen, [](uint16_t bits) { return mpc::to_f32(mpc::half_t{bits}); });
}

INSTANTIATE_TEST_SUITE_P(Levels, HostChunks,
                         ::testing::Values(ChunksModule{"x86-64-v3", MPC_CHUNKS_V3_PATH}
#ifdef MPC_CHUNKS_V4_PATH
                                           ,
                                           ChunksModule{"x86-64-v4", MPC_CHUNKS_V4_PATH}
#endif
                                           ),
                         [](const ::testing::TestParamInfo<ChunksModule> &info) {
                           return std::string(info.param.level) == "x86-64-v3" ? "V3" : "V4";
                         });
