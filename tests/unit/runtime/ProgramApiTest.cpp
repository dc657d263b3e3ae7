//===- ProgramApiTest.cpp - errors of the program C API -------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Every way a load or a call can fail, with its status code and a last-error
// text that names the problem: damaged, foreign and inconsistent bundles,
// devices this build lacks, unknown names, wrong sizes, calls out of order,
// NULL arguments. The last error is per thread.
//
//===----------------------------------------------------------------------===//

#include "ProgramTestUtil.h"

#include <gtest/gtest.h>

#include <thread>

using mpc::rt::CopyStep;
using mpc::rt::DType;
using mpc::rt::Manifest;
using mpc::test::arena;
using mpc::test::copyManifest;
using mpc::test::LoadedProgram;
using mpc::test::readBytes;
using mpc::test::TempDir;
using mpc::test::tensorSpec;
using mpc::test::writeBytes;
using mpc::test::writeProgramBundle;

namespace {

bool lastErrorHas(const std::string &fragment) {
  return std::string(mpc_last_error()).find(fragment) != std::string::npos;
}

class ProgramApi : public ::testing::Test {
protected:
  void SetUp() override {
    path_ = dir_.file("copy.mpcb");
    writeProgramBundle(path_, copyManifest());
  }

  TempDir dir_;
  std::string path_;
};

TEST_F(ProgramApi, RunsACopyProgram) {
  LoadedProgram program;
  ASSERT_EQ(program.load(path_), MPC_OK) << mpc_last_error();
  float x[4] = {1.5f, -2.0f, 0.0f, 3.0f}, out[4] = {};
  ASSERT_EQ(mpc_program_set_input(program.get(), "x", x, sizeof x), MPC_OK);
  ASSERT_EQ(mpc_program_run(program.get()), MPC_OK);
  ASSERT_EQ(mpc_program_get_output(program.get(), "out", out, sizeof out),
            MPC_OK);
  EXPECT_EQ(std::vector<float>(out, out + 4), std::vector<float>(x, x + 4));
}

TEST_F(ProgramApi, RunsAnAllReduceInAJobOfOneRank) {
  // (no launcher started this process: a job of one rank)
  std::string path = dir_.file("all_reduce.mpcb");
  writeProgramBundle(path, mpc::test::copyAndAllReduceManifest());
  LoadedProgram program;
  ASSERT_EQ(program.load(path), MPC_OK) << mpc_last_error();
  float x[4] = {1.5f, -2.0f, 0.0f, 3.0f}, out[4] = {};
  ASSERT_EQ(mpc_program_set_input(program.get(), "x", x, sizeof x), MPC_OK);
  ASSERT_EQ(mpc_program_run(program.get()), MPC_OK) << mpc_last_error();
  ASSERT_EQ(mpc_program_get_output(program.get(), "out", out, sizeof out), MPC_OK);
  EXPECT_EQ(std::vector<float>(out, out + 4), std::vector<float>(x, x + 4));
}

TEST_F(ProgramApi, DefaultOptions) {
  mpc_program_options options;
  options.device = "gpu";
  options.seed = 99;
  mpc_program_options_initialize(&options);
  EXPECT_STREQ(options.device, "cpu");
  EXPECT_EQ(options.seed, 0u);
  mpc_program *program = nullptr;
  ASSERT_EQ(mpc_program_load(path_.c_str(), nullptr, &program), MPC_OK)
      << mpc_last_error();
  mpc_program_release(program);
  mpc_program_release(nullptr);
}

TEST_F(ProgramApi, RefusesATelemetryDepthItCannotAllocate) {
  mpc_program_options options;
  mpc_program_options_initialize(&options);
  mpc_program *program = nullptr;
  for (size_t depth : {(size_t(1) << 20) + 1, SIZE_MAX}) {
    options.telemetry_depth = depth;
    EXPECT_EQ(mpc_program_load(path_.c_str(), &options, &program), MPC_INVALID_ARGUMENT);
    EXPECT_EQ(program, nullptr);
    EXPECT_TRUE(lastErrorHas("telemetry_depth " + std::to_string(depth) + " is above 1048576"))
        << mpc_last_error();
  }
  options.telemetry_depth = size_t(1) << 20;
  ASSERT_EQ(mpc_program_load(path_.c_str(), &options, &program), MPC_OK) << mpc_last_error();
  mpc_program_release(program);
}

TEST_F(ProgramApi, RefusesADamagedBundle) {
  std::string bytes = readBytes(path_);
  bytes[bytes.size() / 2] ^= 0x04;
  writeBytes(path_, bytes);
  LoadedProgram program;
  EXPECT_EQ(program.load(path_), MPC_FORMAT_ERROR);
  EXPECT_EQ(program.get(), nullptr);
  EXPECT_TRUE(lastErrorHas(path_ + ": damaged: checksum mismatch"))
      << mpc_last_error();
}

TEST_F(ProgramApi, RefusesAForeignFile) {
  writeBytes(path_, "PK\x03\x04 a zip archive, not a bundle");
  LoadedProgram program;
  EXPECT_EQ(program.load(path_), MPC_FORMAT_ERROR);
  EXPECT_TRUE(lastErrorHas("is not an mpc bundle (bad magic)"))
      << mpc_last_error();
}

TEST_F(ProgramApi, RefusesAMissingFile) {
  LoadedProgram program;
  EXPECT_EQ(program.load(dir_.file("none.mpcb")), MPC_NOT_FOUND);
  EXPECT_TRUE(lastErrorHas("none.mpcb: no such file")) << mpc_last_error();
}

TEST_F(ProgramApi, RefusesABundleWithoutAManifest) {
  ASSERT_TRUE(mpc::rt::writeBundle(path_, {{"host.so", ""}}).isOk());
  LoadedProgram program;
  EXPECT_EQ(program.load(path_), MPC_FORMAT_ERROR);
  EXPECT_TRUE(lastErrorHas("the bundle has no \"manifest.json\" section"))
      << mpc_last_error();
}

TEST_F(ProgramApi, RefusesAnInvalidManifestWithItsPath) {
  Manifest m = copyManifest();
  m.outputs[0].buffer = arena(120);
  writeProgramBundle(path_, m);
  LoadedProgram program;
  EXPECT_EQ(program.load(path_), MPC_FORMAT_ERROR);
  EXPECT_TRUE(lastErrorHas(path_ + ": manifest.json: outputs[0].buffer.offset: "
                                   "the output's f32 [4] needs bytes [120, "
                                   "136) of the arena"))
      << mpc_last_error();
}

TEST_F(ProgramApi, RefusesUnknownDevices) {
  LoadedProgram program;
  for (const char *device : {"tpu", "cuda:", "cuda:x", "CUDA", "cpu:0", "cuda:99999999999"}) {
    EXPECT_EQ(program.load(path_, 0, device), MPC_UNSUPPORTED) << device;
    EXPECT_EQ(program.get(), nullptr);
    EXPECT_TRUE(lastErrorHas("unknown device \"" + std::string(device) + "\""))
        << mpc_last_error();
    EXPECT_EQ(mpc_device_check(device), MPC_UNSUPPORTED) << device;
  }
  EXPECT_EQ(mpc_device_check("cpu"), MPC_OK);
}

// Where the CUDA backend cannot run (not built, no driver, no GPU), asking
// for it says so and points at the CPU; mpc_device_check says the same
// without loading anything.
TEST_F(ProgramApi, CudaWhereItCannotRunNamesTheCpu) {
  if (mpc_device_check("cuda") == MPC_OK)
    GTEST_SKIP() << "this machine can run device \"cuda\"";
  std::string checked = mpc_last_error();
  LoadedProgram program;
  EXPECT_EQ(program.load(path_, 0, "cuda"), MPC_UNSUPPORTED);
  EXPECT_EQ(program.get(), nullptr);
  EXPECT_EQ(checked, mpc_last_error());
  EXPECT_TRUE(lastErrorHas("device \"cuda\"")) << mpc_last_error();
  EXPECT_TRUE(lastErrorHas("use device \"cpu\"")) << mpc_last_error();
#ifdef MPC_HAVE_CUDA_BACKEND
  // Built with CUDA: the missing piece is named.
  EXPECT_TRUE(lastErrorHas("libcuda.so.1") || lastErrorHas("no CUDA GPU") ||
              lastErrorHas("did not initialise"))
      << mpc_last_error();
#else
  EXPECT_TRUE(lastErrorHas("the CUDA backend is not built")) << mpc_last_error();
#endif
}

TEST_F(ProgramApi, RefusesWrongInputs) {
  LoadedProgram program;
  ASSERT_EQ(program.load(path_), MPC_OK) << mpc_last_error();
  float x[5] = {};
  EXPECT_EQ(mpc_program_set_input(program.get(), "x", x, sizeof x),
            MPC_INVALID_ARGUMENT);
  EXPECT_TRUE(lastErrorHas(path_ + ": input \"x\" is f32 [4] (16 bytes), not "
                                   "20 bytes"))
      << mpc_last_error();
  EXPECT_EQ(mpc_program_set_input(program.get(), "pixels", x, 16),
            MPC_NOT_FOUND);
  EXPECT_TRUE(lastErrorHas("no input named \"pixels\" (the inputs: \"x\")"))
      << mpc_last_error();
  EXPECT_EQ(mpc_program_get_output(program.get(), "logits", x, 16),
            MPC_NOT_FOUND);
  EXPECT_TRUE(lastErrorHas("no output named \"logits\" (the outputs: \"out\")"))
      << mpc_last_error();
}

TEST_F(ProgramApi, RefusesCallsOutOfOrder) {
  LoadedProgram program;
  ASSERT_EQ(program.load(path_), MPC_OK) << mpc_last_error();
  float out[4];
  EXPECT_EQ(mpc_program_get_output(program.get(), "out", out, sizeof out),
            MPC_INVALID_ARGUMENT);
  EXPECT_TRUE(lastErrorHas("output \"out\" has no value before the first run"))
      << mpc_last_error();
  EXPECT_EQ(mpc_program_run(program.get()), MPC_INVALID_ARGUMENT);
  EXPECT_TRUE(lastErrorHas("input \"x\" was never set")) << mpc_last_error();
}

TEST_F(ProgramApi, RefusesNullArguments) {
  LoadedProgram program;
  ASSERT_EQ(program.load(path_), MPC_OK) << mpc_last_error();
  mpc_program *out = nullptr;
  float x[4] = {};
  mpc_tensor_info info;
  EXPECT_EQ(mpc_program_load(nullptr, nullptr, &out), MPC_INVALID_ARGUMENT);
  EXPECT_TRUE(lastErrorHas("mpc_program_load: path is NULL"));
  EXPECT_EQ(mpc_program_load(path_.c_str(), nullptr, nullptr),
            MPC_INVALID_ARGUMENT);
  EXPECT_EQ(mpc_program_run(nullptr), MPC_INVALID_ARGUMENT);
  EXPECT_EQ(mpc_program_set_input(program.get(), nullptr, x, 16),
            MPC_INVALID_ARGUMENT);
  EXPECT_TRUE(lastErrorHas("mpc_program_set_input: name is NULL"));
  EXPECT_EQ(mpc_program_set_input(program.get(), "x", nullptr, 16),
            MPC_INVALID_ARGUMENT);
  EXPECT_EQ(mpc_program_get_output(nullptr, "out", x, 16),
            MPC_INVALID_ARGUMENT);
  EXPECT_EQ(mpc_program_input_info(program.get(), 0, nullptr),
            MPC_INVALID_ARGUMENT);
  EXPECT_EQ(mpc_program_output_info(nullptr, 0, &info), MPC_INVALID_ARGUMENT);
  EXPECT_EQ(mpc_program_save_params(program.get(), nullptr),
            MPC_INVALID_ARGUMENT);
  EXPECT_EQ(mpc_program_load_params(nullptr, "x"), MPC_INVALID_ARGUMENT);
  EXPECT_EQ(mpc_program_input_count(nullptr), 0u);
}

TEST_F(ProgramApi, LastErrorIsPerThread) {
  LoadedProgram program;
  EXPECT_EQ(program.load(dir_.file("none.mpcb")), MPC_NOT_FOUND);
  std::string mine = mpc_last_error();
  std::string theirs;
  std::thread([&] {
    theirs = mpc_last_error();
    mpc_program_run(nullptr);
  }).join();
  EXPECT_EQ(theirs, "");
  EXPECT_EQ(mpc_last_error(), mine);
  // A successful call leaves the text alone.
  ASSERT_EQ(program.load(path_), MPC_OK);
  EXPECT_EQ(mpc_last_error(), mine);
}

TEST_F(ProgramApi, SavesAndLoadsAProgramWithoutParameters) {
  LoadedProgram program;
  ASSERT_EQ(program.load(path_), MPC_OK) << mpc_last_error();
  std::string checkpoint = dir_.file("empty.safetensors");
  ASSERT_EQ(mpc_program_save_params(program.get(), checkpoint.c_str()), MPC_OK)
      << mpc_last_error();
  EXPECT_EQ(mpc_program_load_params(program.get(), checkpoint.c_str()), MPC_OK)
      << mpc_last_error();
}

} // namespace
