//===- RealGpuProgramTest.cpp - the CUDA backend on the GPU of this machine ===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The step program of StepProgram.h on a real GPU, skipped where there is
// none: its kernels compiled from the bundle's source by NVRTC at load for
// the GPU's architecture, its GEMM by cuBLASLt, each run one CUDA graph.
// Results against the CPU backend's on the same seed and inputs (f16
// roundings and summation orders differ, so within tolerances), telemetry
// without host synchronisation, the persistent counter exact. And a
// bundle's all_reduce steps through the machine's NCCL, a job of one rank:
// the data unchanged, the step one graph launch.
//
//===----------------------------------------------------------------------===//

#include "Elements.h"
#include "ProgramTestUtil.h"
#include "StepProgram.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mpc::test;

namespace {

TEST(RealGpu, RunsTheStepProgramAsTheCpuDoes) {
  MPC_SKIP_WITHOUT_GPU();
  ScopedCacheDir cache;
  TempDir dir;
  ASSERT_FALSE(hostObject().empty());
  std::string bundle = writeSourceBundle(dir);
  const int runs = 6;
  std::vector<float> expected = cpuLosses(bundle, runs);
  LoadedProgram cpu, gpu;
  ASSERT_EQ(cpu.load(bundle, 7, "cpu"), MPC_OK) << mpc_last_error();
  ASSERT_EQ(gpu.load(bundle, 7, "cuda"), MPC_OK) << mpc_last_error();
  for (int run = 0; run < runs; ++run) {
    setInput(cpu, run);
    setInput(gpu, run);
    ASSERT_EQ(mpc_program_run(cpu.get()), MPC_OK) << mpc_last_error();
    ASSERT_EQ(mpc_program_run(gpu.get()), MPC_OK) << mpc_last_error();
  }
  mpc_program_stats stats;
  ASSERT_EQ(mpc_program_get_stats(gpu.get(), &stats), MPC_OK);
  EXPECT_EQ(stats.graph_launches, static_cast<uint64_t>(runs));
  EXPECT_EQ(stats.host_syncs, 0u);
  ASSERT_EQ(mpc_program_synchronize(gpu.get()), MPC_OK) << mpc_last_error();
  for (int run = 0; run < runs; ++run) {
    float loss = telemetryOf<float>(gpu, run, "loss");
    EXPECT_NEAR(loss, expected[run], 2e-3 * std::abs(expected[run]) + 1e-6) << "run " << run;
    EXPECT_EQ(telemetryOf<float>(gpu, run, "count"), run + 1.0f);
  }
  // z is f16 of 2 relu(x w + b): a rounding apart at most.
  std::vector<uint8_t> cpuZ = bytesOf(cpu.get(), "z", 128, true),
                       gpuZ = bytesOf(gpu.get(), "z", 128, true);
  std::vector<float> a(64), b(64);
  mpc::rt::widenElements(mpc::rt::DType::F16, cpuZ.data(), a.data(), 64);
  mpc::rt::widenElements(mpc::rt::DType::F16, gpuZ.data(), b.data(), 64);
  for (int i = 0; i < 64; ++i)
    EXPECT_NEAR(a[i], b[i], 2e-3 * std::abs(a[i]) + 1e-6) << "z[" << i << "]";
}

TEST(RealGpu, RunsAllReduceStepsThroughNccl) {
  MPC_SKIP_WITHOUT_GPU();
  TempDir dir;
  std::string path = dir.file("all_reduce.mpcb");
  mpc::rt::Manifest manifest = copyAndAllReduceManifest();
  manifest.steps.push_back(
      mpc::rt::AllReduceStep{arena(64), mpc::rt::DType::F32, 4, mpc::rt::AllReduceOp::Mean});
  writeProgramBundle(path, manifest);
  LoadedProgram gpu;
  ASSERT_EQ(gpu.load(path, 7, "cuda"), MPC_OK) << mpc_last_error();
  for (int run = 0; run < 3; ++run) {
    float x[4] = {1.5f + run, -2.0f, 0.25f, 3.0f}, out[4] = {};
    ASSERT_EQ(mpc_program_set_input(gpu.get(), "x", x, sizeof x), MPC_OK);
    ASSERT_EQ(mpc_program_run(gpu.get()), MPC_OK) << mpc_last_error();
    ASSERT_EQ(mpc_program_get_output(gpu.get(), "out", out, sizeof out), MPC_OK)
        << mpc_last_error();
    EXPECT_EQ(std::vector<float>(out, out + 4), std::vector<float>(x, x + 4)) << "run " << run;
  }
  mpc_program_stats stats;
  ASSERT_EQ(mpc_program_get_stats(gpu.get(), &stats), MPC_OK);
  EXPECT_EQ(stats.graph_launches, 3u);
}

} // namespace
