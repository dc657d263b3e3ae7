//===- RealGpuRowsTest.cpp - rows.cuh's reductions on the GPU of this machine ===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The row reductions of runtime/device/rows.cuh (reduce_sum, reduce_max) in
// a kernel compiled by NVRTC and launched with blocks of 256 and of 1024
// threads, on row lengths around the sizes where a thread's loads change
// from groups of kLoadsInFlight to the leftover loop, with NaN and
// infinities in the grouped part and in the leftover part, and with fewer
// blocks than rows (a block reuses its scratch for the next row). Skipped
// where there is no GPU (after compiling the kernel, which checks its
// source): the emulated GPU runs the host's form of the header, not this
// code.
//
// The elements are multiples of 1/64 of magnitude at most 1, so every
// partial sum is exact in fp32 whatever the order, and the sums are
// compared exactly with fp64's.
//
//===----------------------------------------------------------------------===//

#include "mpc/toolchain/CudaApi.h"
#include "mpc/toolchain/NvrtcCompiler.h"
#include "ProgramTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

using mpc::rt::Status;

// The first and the last thread of each block store its rows' sum and
// maximum (every thread gets a reduction's result, through the broadcast
// slot); the two reductions back to back test the barriers that guard the
// shared scratch.
constexpr char kSource[] = R"(
#include "mpc/device/rows.cuh"
struct SumAndMax {
  const float *x;
  float *sums;
  float *maxes;
  int64_t rows, n;
  MPC_DEVICE_INLINE void operator()(mpc::RowContext &row) const {
    const float *xr = x + row.index() * n;
    float s = row.reduce_sum(n, [=](int64_t c) { return xr[c]; });
    float m = row.reduce_max(n, [=](int64_t c) { return xr[c]; });
    if (threadIdx.x == 0 || threadIdx.x == blockDim.x - 1) {
      int64_t at = row.index() + (threadIdx.x == 0 ? 0 : rows);
      sums[at] = s;
      maxes[at] = m;
    }
  }
};
MPC_KERNEL_BOUNDED(sum_and_max, 1024) {
  const int64_t *shape = static_cast<const int64_t *>(mpc_buffers[3]);
  mpc::rows(shape[0], SumAndMax{static_cast<const float *>(mpc_buffers[0]),
                                static_cast<float *>(mpc_buffers[1]),
                                static_cast<float *>(mpc_buffers[2]), shape[0], shape[1]});
}
)";

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

/// The kernel above on device 0, with the memory of one launch.
class RealGpuRows : public ::testing::Test {
protected:
  void SetUp() override {
    const mpc::rt::NvrtcApi *nvrtc = nullptr;
    // Built with the CUDA toolkit: NVRTC must load.
    if (Status status = mpc::rt::loadNvrtcApi(nvrtc); !status.isOk())
      FAIL() << "NVRTC is not available: " << status.message();
    if (mpc_device_check("cuda") != MPC_OK) {
      // The source is still compiled, for an H100's architecture.
      std::string cubin;
      Status status = mpc::rt::compileWithNvrtc(*nvrtc, kSource, "sm_90", cubin);
      ASSERT_TRUE(status.isOk()) << status.message();
    }
    MPC_SKIP_WITHOUT_GPU();
    ASSERT_TRUE(mpc::rt::loadCudaApi(api_).isOk());
    driver_ = api_.driver;
    CUdevice device;
    ASSERT_TRUE(ok(driver_->cuDeviceGet(&device, 0)));
    ASSERT_TRUE(ok(driver_->cuDevicePrimaryCtxRetain(&context_, device)));
    device_ = device;
    ASSERT_TRUE(ok(driver_->cuCtxSetCurrent(context_)));
    int major = 0, minor = 0;
    ASSERT_TRUE(ok(driver_->cuDeviceGetAttribute(
        &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device)));
    ASSERT_TRUE(ok(driver_->cuDeviceGetAttribute(
        &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device)));
    std::string cubin;
    std::string target = "sm_" + std::to_string(major * 10 + minor);
    Status status = mpc::rt::compileWithNvrtc(*nvrtc, kSource, target, cubin);
    ASSERT_TRUE(status.isOk()) << status.message();
    ASSERT_TRUE(ok(driver_->cuModuleLoadData(&module_, cubin.data())));
    ASSERT_TRUE(ok(driver_->cuModuleGetFunction(&kernel_, module_, "sum_and_max")));
  }

  void TearDown() override {
    for (CUdeviceptr buffer : buffers_)
      driver_->cuMemFree(buffer);
    if (module_)
      driver_->cuModuleUnload(module_);
    if (context_)
      driver_->cuDevicePrimaryCtxRelease(device_);
  }

  bool ok(CUresult result) {
    EXPECT_EQ(result, CUDA_SUCCESS) << mpc::rt::describeCudaResult(*driver_, result);
    return result == CUDA_SUCCESS;
  }

  CUdeviceptr upload(const void *bytes, size_t size) {
    CUdeviceptr buffer = 0;
    if (!ok(driver_->cuMemAlloc(&buffer, std::max<size_t>(size, 4))))
      return 0;
    buffers_.push_back(buffer);
    if (size)
      ok(driver_->cuMemcpyHtoDAsync(buffer, bytes, size, nullptr));
    return buffer;
  }

  /// Runs the kernel over `rows` rows of `n` elements with `blocks` blocks
  /// of `threads`; the rows' sums and maxima as the first threads of their
  /// blocks had them, then as the last threads had them.
  void run(const std::vector<float> &x, int64_t rows, int64_t n, unsigned blocks, unsigned threads,
           std::vector<float> &sums, std::vector<float> &maxes) {
    sums.assign(2 * rows, -1.0f);
    maxes.assign(2 * rows, -1.0f);
    int64_t shape[2] = {rows, n};
    CUdeviceptr table[4] = {
        upload(x.data(), x.size() * sizeof(float)), upload(sums.data(), 2 * rows * sizeof(float)),
        upload(maxes.data(), 2 * rows * sizeof(float)), upload(shape, sizeof shape)};
    CUdeviceptr tableOnDevice = upload(table, sizeof table);
    void *params[] = {&tableOnDevice};
    ASSERT_TRUE(ok(driver_->cuLaunchKernel(kernel_, blocks, 1, 1, threads, 1, 1, 0, nullptr, params,
                                           nullptr)));
    ASSERT_TRUE(
        ok(driver_->cuMemcpyDtoHAsync(sums.data(), table[1], 2 * rows * sizeof(float), nullptr)));
    ASSERT_TRUE(
        ok(driver_->cuMemcpyDtoHAsync(maxes.data(), table[2], 2 * rows * sizeof(float), nullptr)));
    ASSERT_TRUE(ok(driver_->cuStreamSynchronize(nullptr)));
  }

  mpc::test::ScopedCacheDir cache_;
  mpc::rt::CudaApi api_;
  const mpc::rt::CudaDriverApi *driver_ = nullptr;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUmodule module_ = nullptr;
  CUfunction kernel_ = nullptr;
  std::vector<CUdeviceptr> buffers_;
};

/// Row r of the test input: multiples of 1/64 in [-1, 1], then the row's
/// non-finite elements at its first or last column.
std::vector<float> testRows(int64_t rows, int64_t n) {
  std::vector<float> x(rows * n);
  uint32_t state = 12345;
  for (float &v : x) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<float>(static_cast<int>(state >> 25) - 64) / 64.0f;
  }
  if (n == 0)
    return x;
  auto at = [&](int64_t r, int64_t c) -> float & { return x[r * n + c]; };
  // Column 0 is in thread 0's first group of loads when n > 7 blockDim, and
  // column n - 1 in a leftover load for most n (2049 and 8193 at both
  // block sizes, for instance).
  at(1, 0) = kNaN;
  at(2, n - 1) = kNaN;
  at(3, 0) = kInf;
  at(4, n - 1) = kInf;
  at(5, 0) = -kInf; // -inf + inf: NaN; the maximum +inf
  at(5, n - 1) = kInf;
  for (int64_t c = 0; c < n; ++c)
    at(6, c) = -kInf; // the sum -inf, the maximum -inf
  return x;
}

TEST_F(RealGpuRows, SumAndMaxMatchFp64AtBothBlockSizes) {
  const int64_t rows = 7;
  // Around 8 x 256 and 8 x 1024 (a thread's first group of loads), a few
  // groups and a leftover, and long rows (a finite check's).
  const int64_t lengths[] = {0,    1,    33,   255,   2047,  2048,  2049,
                             8191, 8192, 8193, 25599, 40000, 100003};
  for (unsigned threads : {256u, 1024u}) {
    for (int64_t n : lengths) {
      SCOPED_TRACE("threads " + std::to_string(threads) + ", n " + std::to_string(n));
      std::vector<float> x = testRows(rows, n), sums, maxes;
      run(x, rows, n, /*blocks=*/3, threads, sums, maxes);
      for (int64_t r = 0; r < rows; ++r) {
        double sum = 0, max = -INFINITY;
        bool nan = false;
        for (int64_t c = 0; c < n; ++c) {
          double v = x[r * n + c];
          sum += v;
          nan = nan || std::isnan(v);
          max = std::max(max, v);
        }
        if (nan)
          max = NAN;
        for (int64_t at : {r, rows + r}) { // the first thread's, the last thread's
          if (std::isnan(sum))
            EXPECT_TRUE(std::isnan(sums[at])) << "row " << r << " at " << at << ": " << sums[at];
          else
            EXPECT_EQ(sums[at], static_cast<float>(sum)) << "row " << r << " at " << at;
          if (std::isnan(max))
            EXPECT_TRUE(std::isnan(maxes[at])) << "row " << r << " at " << at << ": " << maxes[at];
          else
            EXPECT_EQ(maxes[at], static_cast<float>(max)) << "row " << r << " at " << at;
        }
      }
    }
  }
}

} // namespace
