//===- NvrtcCompileTest.cpp - the device headers under NVRTC --------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Compiles SampleKernels.cu with NVRTC, the headers handed over as named
// headers from the runtime's string resources, exactly as the CUDA backend
// will: cubins for sm_80 and sm_90, PTX for compute_90. No GPU is needed.
//
//===----------------------------------------------------------------------===//

#include "mpc/toolchain/DeviceHeaders.h"

#include <nvrtc.h>

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

const char *const kSampleKernels[] = {
    "mpc_test_broadcast_add_5x7", "mpc_test_broadcast_add_257x131",
    "mpc_test_max_min_9",         "mpc_test_softmax_6x37",
    "mpc_test_softmax_300x17",    "mpc_test_row_sum_max_3x1000",
    "mpc_test_row_sum_max_2x5",   "mpc_test_row_sum_max_4x1",
    "mpc_test_row_sum_max_4x0",
};

/// What one NVRTC compilation produced.
struct Compiled {
  bool ok = false;
  std::string log;
  std::string cubin;
  std::string ptx;
};

/// Compiles `source` (named `name` in messages) for `arch`: a cubin for an
/// sm_ target, PTX for any.
Compiled compile(const std::string &name, const std::string &source,
                 const std::string &arch) {
  std::vector<const char *> headers, includeNames;
  for (unsigned i = 0; i < mpc::rt::kNumDeviceHeaders; ++i) {
    headers.push_back(mpc::rt::kDeviceHeaders[i].contents);
    includeNames.push_back(mpc::rt::kDeviceHeaders[i].name);
  }

  Compiled compiled;
  nvrtcProgram program;
  if (nvrtcCreateProgram(&program, source.c_str(), name.c_str(),
                         static_cast<int>(headers.size()), headers.data(),
                         includeNames.data()) != NVRTC_SUCCESS) {
    compiled.log = "nvrtcCreateProgram failed";
    return compiled;
  }
  std::string archOption = "--gpu-architecture=" + arch;
  const char *options[] = {archOption.c_str(), "-std=c++17"};
  nvrtcResult result = nvrtcCompileProgram(program, 2, options);

  size_t size = 0;
  nvrtcGetProgramLogSize(program, &size);
  std::string log(size, '\0');
  nvrtcGetProgramLog(program, log.data());
  compiled.log = log.c_str();
  compiled.ok = result == NVRTC_SUCCESS;
  if (compiled.ok && arch.rfind("sm_", 0) == 0) {
    nvrtcGetCUBINSize(program, &size);
    compiled.cubin.resize(size);
    nvrtcGetCUBIN(program, compiled.cubin.data());
  }
  if (compiled.ok) {
    nvrtcGetPTXSize(program, &size);
    compiled.ptx.resize(size);
    nvrtcGetPTX(program, compiled.ptx.data());
  }
  nvrtcDestroyProgram(&program);
  return compiled;
}

Compiled compileSampleKernels(const std::string &arch) {
  std::ifstream in(MPC_SAMPLE_KERNELS_CU, std::ios::binary);
  std::string source(std::istreambuf_iterator<char>(in), {});
  EXPECT_FALSE(source.empty()) << "cannot read " << MPC_SAMPLE_KERNELS_CU;
  return compile(MPC_SAMPLE_KERNELS_CU, source, arch);
}

void expectCleanCompile(const Compiled &compiled) {
  ASSERT_TRUE(compiled.ok) << compiled.log;
  EXPECT_EQ(compiled.log.find("warning"), std::string::npos) << compiled.log;
}

TEST(DeviceHeadersNvrtc, CubinForSm80) {
  Compiled compiled = compileSampleKernels("sm_80");
  expectCleanCompile(compiled);
  EXPECT_GT(compiled.cubin.size(), 0u);
}

TEST(DeviceHeadersNvrtc, CubinForSm90) {
  Compiled compiled = compileSampleKernels("sm_90");
  expectCleanCompile(compiled);
  EXPECT_GT(compiled.cubin.size(), 0u);
}

TEST(DeviceHeadersNvrtc, PtxForCompute90HasEveryKernelUnmangled) {
  Compiled compiled = compileSampleKernels("compute_90");
  expectCleanCompile(compiled);
  ASSERT_GT(compiled.ptx.size(), 0u);
  for (const char *kernel : kSampleKernels)
    EXPECT_NE(compiled.ptx.find(std::string(".entry ") + kernel + "("),
              std::string::npos)
        << kernel << " is not a PTX entry";
}

TEST(DeviceHeadersNvrtc, ErrorsInAHeaderNameIt) {
  // An int is no functor: the error is in pointwise.cuh, where it is called.
  Compiled compiled = compile("bad.cu",
                              "#include \"mpc/device/pointwise.cuh\"\n"
                              "MPC_KERNEL(bad) { mpc::pointwise(4, 5); }\n",
                              "compute_90");
  EXPECT_FALSE(compiled.ok);
  EXPECT_NE(compiled.log.find("mpc/device/pointwise.cuh("), std::string::npos)
      << compiled.log;
}

} // namespace
