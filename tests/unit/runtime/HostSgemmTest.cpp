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

#include <sched.h>

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
// depth block and over several (784 = 200 x 3 + 184, added into C), and
// the empty sum. On a CPU without AVX-512F it runs its plain loops (the
// test records which ran: the property avx512).
TEST(HostSgemm, MatchesTheFp64ProductForEveryTranspositionAndTail) {
  ::testing::Test::RecordProperty("avx512", HostSgemm::available() ? "yes" : "no");
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

// With beta, C = op(A) op(B) + beta C: beta times C's old values added in
// the first depth block (one block and three), 1 adding them as they are,
// the empty sum scaling C alone; a NaN in C stays NaN, and a beta of 0
// leaves C unread (a NaN there is overwritten).
TEST(HostSgemm, AccumulatesBetaTimesC) {
  std::mt19937 generator(5);
  std::uniform_real_distribution<float> values(-1.0f, 1.0f);
  HostSgemm gemm;
  const Shape shapes[] = {{30, 45, 200}, {17, 33, 784}, {3, 5, 0}};
  for (const Shape &s : shapes)
    for (float beta : {0.9f, 1.0f, -2.5f}) {
      const std::string name = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                               std::to_string(s.k) + " beta " + std::to_string(beta);
      std::vector<float> a(static_cast<size_t>(s.m * s.k)), b(static_cast<size_t>(s.k * s.n));
      std::vector<float> c(static_cast<size_t>(s.m * s.n));
      for (float &x : a)
        x = values(generator);
      for (float &x : b)
        x = values(generator);
      for (float &x : c)
        x = values(generator);
      const std::vector<float> old = c;
      c[1] = std::nanf("");
      gemm.multiply(true, false, s.m, s.n, s.k, a.data(), b.data(), c.data(), beta);
      const std::vector<double> product = reference(true, false, s, a, b);
      for (size_t i = 0; i < product.size(); ++i) {
        if (i == 1) {
          ASSERT_TRUE(std::isnan(c[i])) << name;
          continue;
        }
        ASSERT_NEAR(c[i], product[i] + double(beta) * old[i], 1e-6 * (s.k + 4))
            << name << " element " << i;
      }
    }
  std::vector<float> a(64 * 30, 0.5f), b(64 * 40, 0.25f), c(30 * 40, std::nanf(""));
  gemm.multiply(true, false, 30, 40, 64, a.data(), b.data(), c.data(), 0.0f);
  for (float x : c)
    ASSERT_EQ(x, 8.0f);
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

// Every row count of the last panel (1 to 14 rows, the kernel of each, and
// a second panel of them), with a column tail and two depth blocks.
TEST(HostSgemm, RunsTheKernelOfEveryTailRowCount) {
  std::mt19937 generator(11);
  std::uniform_real_distribution<float> values(-1.0f, 1.0f);
  HostSgemm gemm;
  for (int64_t m = 1; m <= 2 * HostSgemm::kRows; ++m) {
    const Shape s{m, 37, 300};
    std::vector<float> a(static_cast<size_t>(s.m * s.k)), b(static_cast<size_t>(s.k * s.n));
    for (float &x : a)
      x = values(generator);
    for (float &x : b)
      x = values(generator);
    std::vector<float> c(static_cast<size_t>(s.m * s.n), -1.0f);
    gemm.multiply(false, true, s.m, s.n, s.k, a.data(), b.data(), c.data());
    const std::vector<double> expected = reference(false, true, s, a, b);
    for (size_t i = 0; i < expected.size(); ++i)
      ASSERT_NEAR(c[i], expected[i], 1e-6 * (s.k + 1)) << m << " rows, element " << i;
  }
}

// The shapes it takes: one depth block of kMinDepth to kMaxDepth, at least
// kMinRows rows and kColumns columns (a weight gradient over a batch of
// 256: yes; a forward layer's sum of 784: no); by default (without
// MPC_CPU_HOST_SGEMM, as the suite runs) only where usedByDefault.
TEST(HostSgemm, TakesWeightGradientShapesOnly) {
  EXPECT_TRUE(HostSgemm::fits(1024, 1024, 256));
  EXPECT_TRUE(HostSgemm::fits(784, 1024, 256));
  EXPECT_TRUE(HostSgemm::fits(512, 32, 128));
  EXPECT_FALSE(HostSgemm::fits(256, 1024, 784));
  EXPECT_FALSE(HostSgemm::fits(256, 1024, 1024));
  EXPECT_FALSE(HostSgemm::fits(1024, 1024, 257));
  EXPECT_FALSE(HostSgemm::fits(1024, 1024, 127));
  EXPECT_FALSE(HostSgemm::fits(511, 1024, 256));
  EXPECT_FALSE(HostSgemm::fits(1024, 31, 256));
  if (std::getenv("MPC_CPU_HOST_SGEMM"))
    GTEST_SKIP() << "MPC_CPU_HOST_SGEMM is set";
  EXPECT_EQ(HostSgemm::takes(1024, 1024, 256), HostSgemm::usedByDefault());
  EXPECT_FALSE(HostSgemm::takes(256, 1024, 784));
  if (HostSgemm::usedByDefault()) {
    EXPECT_TRUE(HostSgemm::available());
    EXPECT_TRUE(HostSgemm::singleThreaded());
  }
}

// singleThreaded follows the thread count the libraries read, when the
// process may run on more than one CPU.
TEST(HostSgemm, SingleThreadedFollowsTheEnvironment) {
  const char *saved = std::getenv("OMP_NUM_THREADS");
  const std::string previous = saved ? saved : "";
  const char *savedBlas = std::getenv("OPENBLAS_NUM_THREADS");
  const std::string previousBlas = savedBlas ? savedBlas : "";
  unsetenv("OPENBLAS_NUM_THREADS");
  setenv("OMP_NUM_THREADS", "1", 1);
  EXPECT_TRUE(HostSgemm::singleThreaded());
  setenv("OMP_NUM_THREADS", "1,4", 1);
  EXPECT_TRUE(HostSgemm::singleThreaded());
  setenv("OMP_NUM_THREADS", "12", 1);
  const bool oneCpu = [] {
    cpu_set_t allowed;
    return sched_getaffinity(0, sizeof(allowed), &allowed) == 0 && CPU_COUNT(&allowed) == 1;
  }();
  EXPECT_EQ(HostSgemm::singleThreaded(), oneCpu);
  unsetenv("OMP_NUM_THREADS");
  EXPECT_EQ(HostSgemm::singleThreaded(), oneCpu);
  if (saved)
    setenv("OMP_NUM_THREADS", previous.c_str(), 1);
  if (savedBlas)
    setenv("OPENBLAS_NUM_THREADS", previousBlas.c_str(), 1);
}
