//===- HostSgemmTest.cpp - mpc's own fp32 GEMM ----------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "HostSgemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using mpc::rt::HostSgemm;

namespace {

struct Shape {
  int64_t m, n, k;
};

/// op(a) op(b) in fp64, row-major.
std::vector<double> reference(bool transposeA, bool transposeB, const Shape &s,
                              const std::vector<float> &a, const std::vector<float> &b) {
  std::vector<double> c(static_cast<size_t>(s.m * s.n));
  for (int64_t i = 0; i < s.m; ++i)
    for (int64_t j = 0; j < s.n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < s.k; ++p)
        sum += double(transposeA ? a[p * s.m + i] : a[i * s.k + p]) *
               double(transposeB ? b[j * s.k + p] : b[p * s.n + j]);
      c[i * s.n + j] = sum;
    }
  return c;
}

} // namespace

// multiply computes every element of C, and nothing past it, within fp32
// rounding of the fp64 product, for each of the four transpositions: shapes
// that fill the kernel's 14 x 32 tiles and shapes with every kind of tail
// (1 to 13 rows, fewer than 16 columns, 16 to 31, a block of 256 columns
// and a few more), sums that fill the 16-wide transposes or not, over one
// depth block and over several (784 = 264 + 264 + 256, added into C), and
// the empty sum. On a CPU without AVX-512F it runs its plain loops.
TEST(HostSgemm, MatchesTheFp64ProductForEveryTranspositionAndTail) {
  const Shape shapes[] = {{1, 1, 1},     {14, 32, 16},   {13, 17, 3},   {29, 33, 17},
                          {15, 65, 300}, {100, 47, 513}, {28, 290, 64}, {3, 5, 0},
                          {57, 31, 784}, {42, 16, 256},  {2, 300, 257}};
  std::mt19937 generator(7);
  std::uniform_real_distribution<float> values(-1.0f, 1.0f);
  HostSgemm gemm;
  for (const Shape &s : shapes)
    for (int transposeA = 0; transposeA < 2; ++transposeA)
      for (int transposeB = 0; transposeB < 2; ++transposeB) {
        const std::string name = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                                 std::to_string(s.k) + (transposeA ? " A^T" : "") +
                                 (transposeB ? " B^T" : "");
        std::vector<float> a(static_cast<size_t>(s.m * s.k)), b(static_cast<size_t>(s.k * s.n));
        for (float &x : a)
          x = values(generator);
        for (float &x : b)
          x = values(generator);
        // C between guards: 64 values that must keep their bits.
        constexpr size_t kGuard = 64;
        const float kSentinel = -12345.5f;
        std::vector<float> c(static_cast<size_t>(s.m * s.n) + 2 * kGuard, kSentinel);
        gemm.multiply(transposeA, transposeB, s.m, s.n, s.k, a.data(), b.data(), c.data() + kGuard);
        const std::vector<double> expected = reference(transposeA, transposeB, s, a, b);
        // Each product and sum rounds by at most 2^-24 relative; the
        // magnitudes summed are below k.
        const double tolerance = 1e-6 * (s.k + 1) + 1e-6;
        for (size_t i = 0; i < expected.size(); ++i)
          ASSERT_NEAR(c[kGuard + i], expected[i], tolerance) << name << " element " << i;
        for (size_t i = 0; i < kGuard; ++i) {
          ASSERT_EQ(c[i], kSentinel) << name << " wrote before C";
          ASSERT_EQ(c[c.size() - 1 - i], kSentinel) << name << " wrote past C";
        }
      }
}

// The same C from a second call into the same object (its packed buffers
// reused, grown for a larger product in between), bit for bit.
TEST(HostSgemm, RepeatsItsBitsWithBuffersReused) {
  std::mt19937 generator(3);
  std::uniform_real_distribution<float> values(-1.0f, 1.0f);
  std::vector<float> a(600 * 256), b(256 * 300), big(1024 * 400);
  for (float &x : a)
    x = values(generator);
  for (float &x : b)
    x = values(generator);
  for (float &x : big)
    x = values(generator);
  HostSgemm gemm;
  std::vector<float> first(600 * 300), second(600 * 300), scratch(1024 * 1024);
  gemm.multiply(true, false, 600, 300, 256, a.data(), b.data(), first.data());
  gemm.multiply(false, true, 1024, 1024, 400, big.data(), big.data(), scratch.data());
  gemm.multiply(true, false, 600, 300, 256, a.data(), b.data(), second.data());
  EXPECT_EQ(first, second);
}

// takes (without MPC_CPU_HOST_SGEMM, as the suite runs): one depth block of
// kMinDepth to kMaxDepth and at least kMinRows rows, on a CPU with
// AVX-512F only (a weight gradient over a batch of 256: yes; a forward
// layer's sum of 784: no).
TEST(HostSgemm, TakesWeightGradientShapesOnly) {
  if (std::getenv("MPC_CPU_HOST_SGEMM"))
    GTEST_SKIP() << "MPC_CPU_HOST_SGEMM is set";
  const bool avx512 = HostSgemm::available();
  EXPECT_EQ(HostSgemm::takes(1024, 1024, 256), avx512);
  EXPECT_EQ(HostSgemm::takes(784, 1024, 256), avx512);
  EXPECT_EQ(HostSgemm::takes(512, 32, 128), avx512);
  EXPECT_FALSE(HostSgemm::takes(256, 1024, 784));
  EXPECT_FALSE(HostSgemm::takes(256, 1024, 1024));
  EXPECT_FALSE(HostSgemm::takes(1024, 1024, 257));
  EXPECT_FALSE(HostSgemm::takes(1024, 1024, 127));
  EXPECT_FALSE(HostSgemm::takes(511, 1024, 256));
  EXPECT_FALSE(HostSgemm::takes(1024, 31, 256));
}
