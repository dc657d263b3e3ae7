//===- NvrtcHeaderTest.cpp - the device headers compile with NVRTC --------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Generated kernels include runtime/device/*.cuh and are compiled by NVRTC,
// which has no standard headers. This compiles a kernel that uses every
// conversion of mpc_types.cuh for the architectures mpc targets and checks
// that the fp16 conversions became the PTX instructions. No GPU is needed;
// without the CUDA toolkit (MPC_ENABLE_CUDA=OFF) the test skips.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#ifdef MPC_HAVE_NVRTC
#include "TestUtil.h"

#include <nvrtc.h>

#include "mpc/toolchain/DeviceHeaders.h"

#include <string>
#include <vector>
#endif

namespace {

#ifdef MPC_HAVE_NVRTC
constexpr char kKernel[] = R"(
#include "mpc/device/types.cuh"

extern "C" __global__ void convert(const float *in, mpc::half_t *half,
                                   mpc::bf16_t *bf16, float *f32,
                                   double *f64, int64_t n) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n)
    return;
  half[i] = mpc::from_f32<mpc::half_t>(in[i]);
  bf16[i] = mpc::from_f32<mpc::bf16_t>(in[i]);
  f32[i] = mpc::to_f32(half[i]) + mpc::to_f32(bf16[i]) +
           mpc::to_f32(mpc::from_f32<float>(in[i])) + mpc::to_f32(f64[i]);
  f64[i] = mpc::from_f32<double>(f32[i]);
}
)";

/// Compiles kKernel for `arch` against the embedded device headers; returns
/// the PTX, or fails the test.
std::string compileForArch(const std::string &arch) {
  std::vector<const char *> headers, includeNames;
  for (unsigned i = 0; i < mpc::rt::kNumDeviceHeaders; ++i) {
    headers.push_back(mpc::rt::kDeviceHeaders[i].contents);
    includeNames.push_back(mpc::rt::kDeviceHeaders[i].name);
  }
  nvrtcProgram program;
  EXPECT_EQ(nvrtcCreateProgram(&program, kKernel, "convert.cu",
                               static_cast<int>(headers.size()), headers.data(),
                               includeNames.data()),
            NVRTC_SUCCESS);
  std::string archOption = "--gpu-architecture=" + arch;
  const char *options[] = {archOption.c_str(), "-std=c++17"};
  nvrtcResult result = nvrtcCompileProgram(program, 2, options);
  size_t logSize = 0;
  nvrtcGetProgramLogSize(program, &logSize);
  std::string log(logSize, '\0');
  nvrtcGetProgramLog(program, log.data());
  std::string ptx;
  EXPECT_EQ(result, NVRTC_SUCCESS) << nvrtcGetErrorString(result) << "\n"
                                   << log;
  if (result == NVRTC_SUCCESS) {
    size_t ptxSize = 0;
    nvrtcGetPTXSize(program, &ptxSize);
    ptx.resize(ptxSize);
    nvrtcGetPTX(program, ptx.data());
  }
  nvrtcDestroyProgram(&program);
  return ptx;
}
#endif

TEST(DeviceHeaders, MpcTypesCompileWithNvrtc) {
#ifndef MPC_HAVE_NVRTC
  GTEST_SKIP() << "built without the CUDA toolkit (MPC_ENABLE_CUDA=OFF), so "
                  "there is no NVRTC";
#else
  for (const char *arch : {"compute_80", "compute_90"}) {
    SCOPED_TRACE(arch);
    std::string ptx = compileForArch(arch);
    ASSERT_FALSE(ptx.empty());
    EXPECT_NE(ptx.find(".entry convert"), std::string::npos) << ptx;
    EXPECT_NE(ptx.find("cvt.rn.f16.f32"), std::string::npos) << ptx;
    EXPECT_NE(ptx.find("cvt.f32.f16"), std::string::npos) << ptx;
  }
#endif
}

} // namespace
