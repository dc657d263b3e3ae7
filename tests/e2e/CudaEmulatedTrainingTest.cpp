//===- CudaEmulatedTrainingTest.cpp - example training steps on the CUDA backend ===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Every example's training step (and the MLP with dropout of
// tests/lit/e2e/Inputs, whose masks the two backends draw alike), compiled by `mpc compile --step
// train
// --target cpu,sm_90` (fp16 with loss scaling and working copies, bf16,
// fp32), trained for a few steps on the CPU backend and on the CUDA backend
// over the emulated GPU (tests/support/CudaEmulator.h) from the same seed
// and batches:
//   - every step's loss (read as telemetry) and every parameter and piece of
//     optimizer and loss-scale state at the end agree bitwise: the CUDA
//     backend's graph replays the step exactly, GEMMs included, and the
//     emulated GPU's kernels, which index elements as the GPU's do, compute
//     what the CPU's row forms compute;
//   - the training loop is one graph launch per step, every kernel and GEMM
//     inside the graph, and no host synchronisation: telemetry is read as
//     runs complete.
//
//===----------------------------------------------------------------------===//

#include "mpc/format/Bundle.h"
#include "CudaEmulator.h"

#include "mpc/runtime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

struct Example {
  const char *graph; // under the source tree, without .mlir
  const char *precision;
};

/// The graph's file name without its folder.
std::string baseName(const char *graph) {
  std::string path = graph;
  return path.substr(path.rfind('/') + 1);
}

void PrintTo(const Example &example, std::ostream *out) {
  *out << example.graph << " " << example.precision;
}

constexpr int kSteps = 6;

std::string tempDirectory() {
  char pattern[] = "/tmp/mpc-cuda-e2e-XXXXXX";
  const char *dir = mkdtemp(pattern);
  return dir ? dir : "";
}

struct Program {
  mpc_program *handle = nullptr;
  ~Program() { mpc_program_release(handle); }
};

mpc_status_code load(const std::string &bundle, const char *device, Program &out) {
  mpc_program_options options;
  mpc_program_options_initialize(&options);
  options.device = device;
  options.seed = 3;
  options.telemetry = "loss";
  return mpc_program_load(bundle.c_str(), &options, &out.handle);
}

/// The inputs of step `step`: features in [0, 1), integers in [0, 10) (a
/// class or a token of every example).
std::vector<std::vector<uint8_t>> inputsOf(mpc_program *program, int step) {
  std::mt19937 engine(1000 + step);
  std::vector<std::vector<uint8_t>> inputs;
  for (size_t i = 0, e = mpc_program_input_count(program); i < e; ++i) {
    mpc_tensor_info info;
    mpc_program_input_info(program, i, &info);
    std::vector<uint8_t> bytes(info.bytes);
    std::string dtype = info.dtype;
    if (dtype == "f32") {
      std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
      for (size_t at = 0; at < bytes.size(); at += 4) {
        float value = uniform(engine);
        std::memcpy(&bytes[at], &value, 4);
      }
    } else if (dtype == "i32" || dtype == "i64") {
      std::uniform_int_distribution<int32_t> classes(0, 9);
      size_t width = dtype == "i32" ? 4 : 8;
      for (size_t at = 0; at < bytes.size(); at += width) {
        int64_t value = classes(engine);
        std::memcpy(&bytes[at], &value, width); // little-endian
      }
    } else {
      ADD_FAILURE() << "no test data for a " << dtype << " input";
    }
    inputs.push_back(std::move(bytes));
  }
  return inputs;
}

void runStep(mpc_program *program, int step) {
  std::vector<std::vector<uint8_t>> inputs = inputsOf(program, step);
  for (size_t i = 0; i < inputs.size(); ++i) {
    mpc_tensor_info info;
    mpc_program_input_info(program, i, &info);
    ASSERT_EQ(mpc_program_set_input(program, info.name, inputs[i].data(), inputs[i].size()),
              MPC_OK)
        << mpc_last_error();
  }
  ASSERT_EQ(mpc_program_run(program), MPC_OK) << mpc_last_error();
}

class CudaEmulatedTraining : public ::testing::TestWithParam<Example> {};

TEST_P(CudaEmulatedTraining, MatchesTheCpuBitwiseInOneGraphLaunchPerStep) {
  const Example &example = GetParam();
  std::string dir = tempDirectory();
  ASSERT_FALSE(dir.empty());
  std::string bundle = dir + "/train.mpcb";
  std::string command = std::string("'") + MPC_TOOL + "' compile '" + MPC_SOURCE_DIR + "/" +
                        example.graph + ".mlir' --step train --precision " + example.precision +
                        " --target cpu,sm_90 -o '" + bundle + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  // The emulated GPU runs host kernels that index as the GPU's do (one
  // element per index, MPC_HOST_KERNEL_FORM=elements), the CPU its own rows:
  // the two agree bitwise.
  std::string gpuForm = dir + "/train-elements.mpcb";
  std::string elementsCommand = std::string("MPC_HOST_KERNEL_FORM=elements '") + MPC_TOOL +
                                "' compile '" + MPC_SOURCE_DIR + "/" + example.graph +
                                ".mlir' --step train --precision " + example.precision +
                                " --target cpu -o '" + gpuForm + "'";
  ASSERT_EQ(std::system(elementsCommand.c_str()), 0) << elementsCommand;
  std::vector<mpc::rt::BundleSection> sections;
  mpc::rt::Status read = mpc::rt::readBundle(gpuForm, sections);
  ASSERT_TRUE(read.isOk()) << read.message();
  const mpc::rt::BundleSection *host = mpc::rt::findSection(sections, "host.so");
  ASSERT_NE(host, nullptr);
  std::vector<mpc::rt::BundleSection> cudaSections;
  ASSERT_TRUE(mpc::rt::readBundle(bundle, cudaSections).isOk());
  ASSERT_NE(mpc::rt::findSection(cudaSections, "cubin.sm_90"), nullptr);
  std::string hostPath = dir + "/host.so";
  std::ofstream(hostPath, std::ios::binary) << host->bytes;

  mpc::test::CudaEmulator emulator(hostPath); // outlives the programs
  Program cpu, cuda;
  ASSERT_EQ(load(bundle, "cpu", cpu), MPC_OK) << mpc_last_error();
  ASSERT_EQ(load(bundle, "cuda", cuda), MPC_OK) << mpc_last_error();
  EXPECT_EQ(emulator.counters().loadedImages.size(), 1u);
  EXPECT_EQ(emulator.counters().loadedImages.front().substr(0, 6), "cubin:");
  const int syncsAtLoad =
      emulator.counters().streamSynchronizations + emulator.counters().eventSynchronizations;

  std::vector<float> cpuLosses, cudaLosses;
  for (int step = 0; step < kSteps; ++step) {
    runStep(cpu.handle, step);
    runStep(cuda.handle, step);
    float loss = 0;
    ASSERT_EQ(mpc_program_get_telemetry(cpu.handle, step, "loss", &loss, sizeof loss), MPC_OK);
    cpuLosses.push_back(loss);
    if (step % 2 == 1) {
      // The GPU catches up every other step; the host reads what completed.
      emulator.drain();
      uint64_t completed = 0;
      ASSERT_EQ(mpc_program_completed_runs(cuda.handle, &completed), MPC_OK);
      EXPECT_EQ(completed, static_cast<uint64_t>(step + 1));
      for (uint64_t run = cudaLosses.size(); run < completed; ++run) {
        ASSERT_EQ(mpc_program_get_telemetry(cuda.handle, run, "loss", &loss, sizeof loss), MPC_OK)
            << mpc_last_error();
        cudaLosses.push_back(loss);
      }
    }
  }
  EXPECT_EQ(emulator.counters().streamSynchronizations + emulator.counters().eventSynchronizations,
            syncsAtLoad);
  mpc_program_stats stats;
  ASSERT_EQ(mpc_program_get_stats(cuda.handle, &stats), MPC_OK);
  EXPECT_EQ(stats.graph_launches, static_cast<uint64_t>(kSteps));
  EXPECT_EQ(stats.host_syncs, 0u);
  EXPECT_EQ(stats.throttle_waits, 0u);
  EXPECT_EQ(emulator.counters().uncapturedWork, 0);
  EXPECT_EQ(cudaLosses, cpuLosses);

  for (size_t i = 0, e = mpc_program_param_count(cpu.handle); i < e; ++i) {
    mpc_tensor_info info;
    mpc_program_param_info(cpu.handle, i, &info);
    std::vector<uint8_t> onCpu(info.bytes), onCuda(info.bytes);
    ASSERT_EQ(mpc_program_get_param(cpu.handle, info.name, onCpu.data(), onCpu.size()), MPC_OK);
    ASSERT_EQ(mpc_program_get_param(cuda.handle, info.name, onCuda.data(), onCuda.size()), MPC_OK)
        << mpc_last_error();
    EXPECT_TRUE(onCpu == onCuda) << info.name << " differs after " << kSteps << " steps";
  }
  std::system(("rm -rf '" + dir + "'").c_str());
}

INSTANTIATE_TEST_SUITE_P(Examples, CudaEmulatedTraining,
                         ::testing::Values(Example{"examples/mlp", "fp16"},
                                           Example{"examples/mlp", "fp32"},
                                           Example{"examples/mlp", "bf16"},
                                           Example{"examples/cnn", "fp16"},
                                           Example{"examples/transformer_block", "fp16"},
                                           Example{"examples/transformer_block", "bf16"},
                                           Example{"examples/char_lstm", "fp16"},
                                           Example{"tests/lit/e2e/Inputs/mlp_dropout", "fp16"},
                                           Example{"tests/lit/e2e/Inputs/mlp_dropout", "bf16"}),
                         [](const ::testing::TestParamInfo<Example> &info) {
                           return baseName(info.param.graph) + "_" + info.param.precision;
                         });

} // namespace
