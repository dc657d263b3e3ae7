//===- NvrtcCompilerTest.cpp - NVRTC on generated kernels, cached ---------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Cache keys change with everything a binary depends on (source, target,
// options, NVRTC's version; device headers and mpc's version through
// kernelCacheKey) and nothing else; a second compile of the same source is
// read from the cache, a changed one is compiled again; errors name the
// target and the kernel. Needs NVRTC (it runs without a GPU).
//
//===----------------------------------------------------------------------===//

#include "mpc/toolchain/KernelCache.h"
#include "mpc/toolchain/NvrtcCompiler.h"
#include "ProgramTestUtil.h"

#include <gtest/gtest.h>

using mpc::rt::compileWithNvrtc;
using mpc::rt::kernelCacheKey;
using mpc::rt::nvrtcCacheEntry;
using mpc::test::ScopedCacheDir;

namespace {

constexpr char kSource[] = R"(
#include "mpc/device/pointwise.cuh"
struct k0_fn {
  float *y;
  MPC_HD void operator()(int64_t i) const { y[i] = 2.0f * i; }
};
MPC_KERNEL(k0) { mpc::pointwise(8, k0_fn{static_cast<float *>(mpc_buffers[0])}); }
)";

constexpr char kBroken[] = R"(
#include "mpc/device/pointwise.cuh"
struct k0_fn {
  float *y;
  MPC_HD void operator()(int64_t i) const { y[i] = 1.0f; }
};
MPC_KERNEL(k0) { mpc::pointwise(8, k0_fn{static_cast<float *>(mpc_buffers[0])}); }
struct k1_fn {
  float *y;
  MPC_HD void operator()(int64_t i) const { y[i] = undeclared_name; }
};
MPC_KERNEL(k1) { mpc::pointwise(8, k1_fn{static_cast<float *>(mpc_buffers[0])}); }
)";

// An error in the body of a kernel with launch bounds (a long reduction's).
constexpr char kBrokenBounded[] = R"(
#include "mpc/device/pointwise.cuh"
struct k0_fn {
  float *y;
  MPC_HD void operator()(int64_t i) const { y[i] = 1.0f; }
};
MPC_KERNEL_BOUNDED(k3, 1024) {
  float *y = static_cast<float *>(mpc_buffers[0]);
  y[0] = undeclared_in_k3;
}
)";

TEST(KernelCacheKey, DigestsEveryPartSeparately) {
  EXPECT_EQ(kernelCacheKey({"a", "b"}), kernelCacheKey({"a", "b"}));
  EXPECT_NE(kernelCacheKey({"ab", "c"}), kernelCacheKey({"a", "bc"}));
  EXPECT_NE(kernelCacheKey({"a"}), kernelCacheKey({"a", ""}));
  EXPECT_EQ(kernelCacheKey({"a"}).size(), 16u);
}

TEST(NvrtcCacheEntry, ChangesWithSourceTargetAndVersion) {
  std::string base = nvrtcCacheEntry(kSource, "sm_90", "13.0");
  EXPECT_EQ(base, nvrtcCacheEntry(kSource, "sm_90", "13.0"));
  EXPECT_EQ(base.substr(base.size() - 6), ".cubin");
  EXPECT_NE(base, nvrtcCacheEntry(std::string(kSource) + " ", "sm_90", "13.0"));
  EXPECT_NE(base, nvrtcCacheEntry(kSource, "sm_80", "13.0"));
  EXPECT_NE(base, nvrtcCacheEntry(kSource, "sm_90", "13.1"));
  std::string ptx = nvrtcCacheEntry(kSource, "compute_90", "13.0");
  EXPECT_EQ(ptx.substr(ptx.size() - 4), ".ptx");
}

class NvrtcCompiler : public ::testing::Test {
protected:
  void SetUp() override {
    mpc::rt::Status status = mpc::rt::loadNvrtcApi(nvrtc_);
    if (!status.isOk()) // built with the CUDA toolkit: NVRTC must load
      FAIL() << "NVRTC is not available: " << status.message();
  }
  const mpc::rt::NvrtcApi *nvrtc_ = nullptr;
  ScopedCacheDir cache_;
};

TEST_F(NvrtcCompiler, CompilesOnceAndReadsTheCacheAfter) {
  std::string cubin, again, ptx;
  bool cached = true;
  ASSERT_TRUE(compileWithNvrtc(*nvrtc_, kSource, "sm_90", cubin, &cached).isOk());
  EXPECT_FALSE(cached);
  EXPECT_EQ(cubin.substr(0, 4), "\x7f" "ELF");
  ASSERT_TRUE(compileWithNvrtc(*nvrtc_, kSource, "sm_90", again, &cached).isOk());
  EXPECT_TRUE(cached);
  EXPECT_EQ(again, cubin);
  ASSERT_TRUE(compileWithNvrtc(*nvrtc_, kSource, "compute_90", ptx, &cached).isOk());
  EXPECT_FALSE(cached);
  EXPECT_NE(ptx.find(".entry k0"), std::string::npos);
  // A changed source is another entry.
  std::string changed = std::string(kSource) + "\n// changed\n";
  ASSERT_TRUE(compileWithNvrtc(*nvrtc_, changed, "sm_90", again, &cached).isOk());
  EXPECT_FALSE(cached);
}

TEST_F(NvrtcCompiler, ErrorsNameTheTargetAndTheKernel) {
  std::string binary;
  mpc::rt::Status status = compileWithNvrtc(*nvrtc_, kBroken, "sm_80", binary);
  EXPECT_EQ(status.code(), MPC_FORMAT_ERROR);
  EXPECT_NE(status.message().find("NVRTC failed to compile the generated kernels for sm_80 "
                                  "(first error in kernel k1)"),
            std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("undeclared_name"), std::string::npos) << status.message();
  status = compileWithNvrtc(*nvrtc_, kBrokenBounded, "sm_90", binary);
  EXPECT_NE(status.message().find("(first error in kernel k3)"), std::string::npos)
      << status.message();
  status = compileWithNvrtc(*nvrtc_, kSource, "gfx90a", binary);
  EXPECT_EQ(status.code(), MPC_INVALID_ARGUMENT);
}

} // namespace
