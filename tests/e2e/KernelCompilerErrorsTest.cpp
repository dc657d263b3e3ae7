//===- KernelCompilerErrorsTest.cpp - errors from compiling kernels -------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// A generated source that does not compile is reported with the kernel the
// first error is in and the compiler's log, for NVRTC and the host compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/CodeGen/KernelCompiler.h"

#include <gtest/gtest.h>

namespace {

/// Two kernels in the ABI of runtime/device/README.md; the second one uses
/// an undeclared name.
const char *kBrokenSource = R"(#include "mpc/device/types.cuh"
#include "mpc/device/pointwise.cuh"

namespace {
struct k0_fn {
  float *p0;
  MPC_HD void operator()(int64_t i) const { p0[i] = 1.0f; }
};
} // namespace

MPC_KERNEL(k0) {
  const k0_fn fn{static_cast<float *>(mpc_buffers[0])};
  mpc::pointwise(4, fn);
}

namespace {
struct k1_fn {
  float *p0;
  MPC_HD void operator()(int64_t i) const { p0[i] = undeclared_value; }
};
} // namespace

MPC_KERNEL(k1) {
  const k1_fn fn{static_cast<float *>(mpc_buffers[0])};
  mpc::pointwise(4, fn);
}
)";

TEST(KernelCompilerErrors, NvrtcErrorNamesTheKernelAndShowsTheLog) {
  if (!mpc::haveNvrtc()) {
#ifdef MPC_EXPECT_NVRTC
    FAIL() << "built with the CUDA toolkit, but NVRTC does not load";
#else
    GTEST_SKIP() << "built without the CUDA toolkit: there is no NVRTC to report errors";
#endif
  }
  llvm::Expected<mpc::GpuBinary> gpu = mpc::compileForGpu(kBrokenSource, "sm_90");
  ASSERT_FALSE(static_cast<bool>(gpu));
  std::string message = llvm::toString(gpu.takeError());
  EXPECT_NE(message.find("for sm_90"), std::string::npos) << message;
  EXPECT_NE(message.find("(first error in kernel k1)"), std::string::npos) << message;
  EXPECT_NE(message.find("undeclared_value"), std::string::npos) << message;
}

TEST(KernelCompilerErrors, HostCompilerErrorShowsItsOutput) {
  llvm::Expected<std::string> host = mpc::compileForHost(kBrokenSource);
  ASSERT_FALSE(static_cast<bool>(host));
  std::string message = llvm::toString(host.takeError());
  EXPECT_NE(message.find("the host compiler failed on the generated kernels"), std::string::npos)
      << message;
  EXPECT_NE(message.find("undeclared_value"), std::string::npos) << message;
}

TEST(KernelCompilerErrors, UnknownGpuTargetIsRefused) {
  llvm::Expected<mpc::GpuBinary> gpu = mpc::compileForGpu("", "gfx90a");
  ASSERT_FALSE(static_cast<bool>(gpu));
  std::string message = llvm::toString(gpu.takeError());
  EXPECT_NE(message.find("gfx90a"), std::string::npos) << message;
}

} // namespace
