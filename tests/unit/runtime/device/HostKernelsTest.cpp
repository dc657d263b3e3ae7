//===- HostKernelsTest.cpp - the device headers' host implementation ------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Loads the sample kernels' shared object as the CPU backend would (dlopen,
// dlsym by kernel name), calls each through its buffer table and compares
// with references computed in double precision.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

using Kernel = void (*)(void *const *);

Kernel lookUpKernel(const char *name) {
  static void *module = dlopen(MPC_SAMPLE_KERNELS_PATH, RTLD_NOW | RTLD_LOCAL);
  if (!module) {
    ADD_FAILURE() << "dlopen " << MPC_SAMPLE_KERNELS_PATH << ": " << dlerror();
    return nullptr;
  }
  auto *kernel = reinterpret_cast<Kernel>(dlsym(module, name));
  if (!kernel)
    ADD_FAILURE() << "dlsym " << name << ": " << dlerror();
  return kernel;
}

void runKernel(const char *name, std::vector<void *> buffers) {
  Kernel kernel = lookUpKernel(name);
  ASSERT_NE(kernel, nullptr);
  kernel(buffers.data());
}

std::vector<float> randomFloats(size_t n, float low, float high,
                                unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> distribution(low, high);
  std::vector<float> values(n);
  for (float &value : values)
    value = distribution(engine);
  return values;
}

/// |got - want| <= relTol * |want|.
::testing::AssertionResult isClose(float got, double want, double relTol) {
  if (std::abs(got - want) <= relTol * std::abs(want))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << got << " differs from " << want << " by more than " << relTol
         << " relative";
}

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

void checkBroadcastAdd(const char *name, int64_t rows, int64_t cols) {
  std::vector<float> x = randomFloats(rows * cols, -4.0f, 4.0f, 1);
  std::vector<float> b = randomFloats(cols, -4.0f, 4.0f, 2);
  std::vector<float> y(rows * cols, kNaN);
  runKernel(name, {x.data(), b.data(), y.data()});
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      // One fp32 addition: the double sum rounded once to f32.
      double want = static_cast<double>(x[r * cols + c]) + b[c];
      ASSERT_EQ(y[r * cols + c], static_cast<float>(want))
          << "at [" << r << ", " << c << "]";
    }
}

TEST(DeviceKernelsOnHost, BroadcastAddSmall) {
  checkBroadcastAdd("mpc_test_broadcast_add_5x7", 5, 7);
}

TEST(DeviceKernelsOnHost, BroadcastAddParallel) {
  checkBroadcastAdd("mpc_test_broadcast_add_257x131", 257, 131);
}

TEST(DeviceKernelsOnHost, MaxMinPropagateNaN) {
  std::vector<float> a = {1.0f, -2.0f, kNaN, 3.0f, kNaN,
                          kInf, -kInf, 0.0f, 5.0f};
  std::vector<float> b = {2.0f, -3.0f, 1.0f,  kNaN, kNaN,
                          7.0f, 1.0f,  -0.0f, 5.0f};
  std::vector<float> hi(9), lo(9);
  runKernel("mpc_test_max_min_9", {a.data(), b.data(), hi.data(), lo.data()});
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) {
      EXPECT_TRUE(std::isnan(hi[i])) << "max at " << i << " is " << hi[i];
      EXPECT_TRUE(std::isnan(lo[i])) << "min at " << i << " is " << lo[i];
      continue;
    }
    EXPECT_EQ(hi[i], std::max(a[i], b[i])) << "max at " << i;
    EXPECT_EQ(lo[i], std::min(a[i], b[i])) << "min at " << i;
  }
  // Equal operands give the first one, signed zeros included.
  EXPECT_FALSE(std::signbit(hi[7]));
  EXPECT_FALSE(std::signbit(lo[7]));
}

void checkSoftmax(const char *name, int64_t rows, int64_t cols) {
  std::vector<float> x = randomFloats(rows * cols, -20.0f, 20.0f, 3);
  std::vector<float> y(rows * cols, kNaN);
  runKernel(name, {x.data(), y.data()});
  for (int64_t r = 0; r < rows; ++r) {
    const float *xr = x.data() + r * cols;
    float m = *std::max_element(xr, xr + cols);
    // The kernel subtracts the max in fp32; starting from the same rounded
    // differences, the tolerance measures its exp, sum and division.
    std::vector<double> e(cols);
    double s = 0.0;
    for (int64_t c = 0; c < cols; ++c)
      s += e[c] = std::exp(static_cast<double>(xr[c] - m));
    for (int64_t c = 0; c < cols; ++c)
      ASSERT_TRUE(isClose(y[r * cols + c], e[c] / s, 1e-6))
          << "at [" << r << ", " << c << "]";
  }
}

TEST(DeviceKernelsOnHost, Softmax) {
  checkSoftmax("mpc_test_softmax_6x37", 6, 37);
}

TEST(DeviceKernelsOnHost, SoftmaxParallelRows) {
  checkSoftmax("mpc_test_softmax_300x17", 300, 17);
}

TEST(DeviceKernelsOnHost, RowSumAndMaxOfLongRows) {
  const int64_t rows = 3, cols = 1000;
  std::vector<float> x = randomFloats(rows * cols, 0.0f, 1.0f, 4);
  // Row 2 has its maximum at the last column, past the host's first
  // pairwise block and a GPU block's first stride.
  x[2 * cols + cols - 1] = 1.5f;
  std::vector<float> sum(rows, kNaN), max(rows, kNaN);
  runKernel("mpc_test_row_sum_max_3x1000", {x.data(), sum.data(), max.data()});
  for (int64_t r = 0; r < rows; ++r) {
    const float *xr = x.data() + r * cols;
    double wantSum = 0.0;
    for (int64_t c = 0; c < cols; ++c)
      wantSum += xr[c];
    EXPECT_TRUE(isClose(sum[r], wantSum, 1e-6)) << "sum of row " << r;
    EXPECT_EQ(max[r], *std::max_element(xr, xr + cols)) << "max of row " << r;
  }
  EXPECT_EQ(max[2], 1.5f);
}

TEST(DeviceKernelsOnHost, RowMaxPropagatesNaN) {
  std::vector<float> x = {1.0f, 4.0f, -2.0f, 3.0f, 0.5f,
                          1.0f, 4.0f, -2.0f, kNaN, 0.5f};
  std::vector<float> sum(2, 0.0f), max(2, 0.0f);
  runKernel("mpc_test_row_sum_max_2x5", {x.data(), sum.data(), max.data()});
  EXPECT_EQ(sum[0], 6.5f);
  EXPECT_EQ(max[0], 4.0f);
  EXPECT_TRUE(std::isnan(sum[1])) << sum[1];
  EXPECT_TRUE(std::isnan(max[1])) << max[1];
}

TEST(DeviceKernelsOnHost, RowsOfOneColumn) {
  std::vector<float> x = {-3.0f, 0.25f, kInf, -0.0f};
  std::vector<float> sum(4, kNaN), max(4, kNaN);
  runKernel("mpc_test_row_sum_max_4x1", {x.data(), sum.data(), max.data()});
  for (size_t r = 0; r < x.size(); ++r) {
    EXPECT_EQ(sum[r], x[r]) << "sum of row " << r;
    EXPECT_EQ(max[r], x[r]) << "max of row " << r;
  }
}

TEST(DeviceKernelsOnHost, RowsOfNoColumns) {
  std::vector<float> sum(4, kNaN), max(4, kNaN);
  runKernel("mpc_test_row_sum_max_4x0", {nullptr, sum.data(), max.data()});
  for (size_t r = 0; r < sum.size(); ++r) {
    EXPECT_EQ(sum[r], 0.0f) << "sum of row " << r;
    EXPECT_EQ(max[r], -kInf) << "max of row " << r;
  }
}

} // namespace
