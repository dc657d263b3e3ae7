//===- CudaBackendTest.cpp - the CUDA backend on an emulated GPU ----------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// A small training-like program — a GEMM with a bias and relu epilogue, a
// pointwise kernel writing f16, a row reduction to a scalar loss, a counter
// in persistent state updated every run — loaded on the CUDA backend over
// the emulated GPU (tests/support/CudaEmulator.h) and on the CPU backend:
//   - the two agree bitwise, run after run, outputs, parameters and
//     telemetry;
//   - a run is one CUDA graph launch, with every kernel and GEMM inside the
//     graph, and no host synchronisation; telemetry of a run becomes
//     readable once the GPU has done it, without a wait; the host waits
//     only when all staging slots are busy, and reading an output waits;
//   - kernel images: the bundle's cubin, then its PTX, then NVRTC on the
//     source (cached on disk), with every failed attempt in the error;
//   - missing GPUs are reported; device memory is released with the program.
//
//===----------------------------------------------------------------------===//

#include "CudaBackend.h"
#include "CudaEmulator.h"
#include "Elements.h"
#include "GemmPlan.h"
#include "mpc/toolchain/NvrtcCompiler.h"
#include "Program.h"
#include "ProgramTestUtil.h"
#include "StepProgram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

using mpc::rt::kRunsInFlight;
using mpc::test::CudaEmulator;
using mpc::test::CudaEmulatorOptions;
using mpc::test::LoadedProgram;
using mpc::test::ScopedCacheDir;
using mpc::test::TempDir;
using mpc::test::writeBytes;
using mpc::test::hostObject;
using mpc::test::kKernelSource;
using mpc::test::writeSourceBundle;
using mpc::test::writeStepBundle;
using mpc::test::bytesOf;
using mpc::test::cpuLosses;
using mpc::test::setInput;
using mpc::test::telemetryOf;

namespace {

class CudaBackend : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(hostObject().empty());
    hostObjectPath_ = dir_.file("host.so");
    writeBytes(hostObjectPath_, hostObject());
    // A bundle with a (fake) cubin for the emulated sm_90, so that NVRTC is
    // not needed; the emulator runs the host object's kernels.
    bundle_ = writeStepBundle(dir_, "step.mpcb", {{"cubin.sm_90", "\x7f" "ELF sm_90"}});
    // Each test chooses GEMM algorithms afresh (the choices are the
    // process's, and emulators differ in what they offer).
    mpc::rt::resetGemmAlgorithmCache();
  }
  void TearDown() override { mpc::rt::resetGemmAlgorithmCache(); }

  /// The step program on the (emulated) GPU, through the C++ API; null,
  /// with a test failure, if it does not load.
  std::unique_ptr<mpc::rt::Program> loadOnGpu() const {
    mpc::rt::ProgramOptions options;
    options.device = "cuda";
    options.seed = 7;
    std::unique_ptr<mpc::rt::Program> program;
    mpc::rt::Status loaded = mpc::rt::Program::load(bundle_, options, program);
    EXPECT_TRUE(loaded.isOk()) << loaded.message();
    return program;
  }

  ScopedCacheDir cache_;
  TempDir dir_;
  std::string hostObjectPath_, bundle_;
};

TEST_F(CudaBackend, RunsAllReduceStepsThroughNcclInsideTheStepsGraph) {
  CudaEmulator emulator(hostObjectPath_);
  std::string path = dir_.file("all_reduce.mpcb");
  mpc::rt::Manifest manifest = mpc::test::copyAndAllReduceManifest();
  manifest.steps.push_back(mpc::rt::AllReduceStep{mpc::test::arena(64), mpc::rt::DType::F32, 4,
                                                  mpc::rt::AllReduceOp::Mean});
  mpc::test::writeProgramBundle(path, manifest);
  {
    mpc::test::LoadedProgram program;
    // (no launcher started this process: NCCL over a job of one rank)
    ASSERT_EQ(program.load(path, 7, "cuda"), MPC_OK) << mpc_last_error();
    EXPECT_EQ(emulator.counters().ncclCommunicators, 1);
    for (int run = 0; run < 3; ++run) {
      float x[4] = {1.5f + run, -2.0f, 0.0f, 3.0f}, out[4] = {};
      ASSERT_EQ(mpc_program_set_input(program.get(), "x", x, sizeof x), MPC_OK);
      ASSERT_EQ(mpc_program_run(program.get()), MPC_OK) << mpc_last_error();
      ASSERT_EQ(mpc_program_get_output(program.get(), "out", out, sizeof out), MPC_OK)
          << mpc_last_error();
      EXPECT_EQ(std::vector<float>(out, out + 4), std::vector<float>(x, x + 4));
    }
    // The steps' calls, captured once per graph (the backend keeps a graph
    // for each run in flight): 4 f32 in place, a sum (0) then a mean (4).
    const std::vector<std::string> &calls = emulator.counters().allReduceCalls;
    ASSERT_GE(calls.size(), 2u);
    ASSERT_EQ(calls.size() % 2, 0u);
    for (size_t i = 0; i < calls.size(); i += 2) {
      EXPECT_EQ(calls[i],
                "4 " + std::to_string(ncclFloat32) + " " + std::to_string(ncclSum) + " in-place");
      EXPECT_EQ(calls[i + 1],
                "4 " + std::to_string(ncclFloat32) + " " + std::to_string(ncclAvg) + " in-place");
    }
    // Each run: one graph launch, with both all-reduces captured in it.
    EXPECT_EQ(emulator.counters().graphLaunches, 3);
    EXPECT_EQ(emulator.counters().allReducesRun, 6);
    EXPECT_EQ(emulator.counters().uncapturedWork, 0);
  }
  EXPECT_EQ(emulator.counters().ncclCommunicators, 0); // destroyed with the program
}

// The machine's own NCCL (the CUDA toolkit's libnccl.so.2; no GPU is
// needed to load it): every entry point the backend uses is there, and it
// is new enough. Where the toolkit ships none, the error says what is
// missing and what to do.
TEST(NcclApi, LoadsTheToolkitsNcclOrSaysWhyNot) {
  const mpc::rt::NcclApi *nccl = nullptr;
  mpc::rt::Status status = mpc::rt::loadNcclApi(nccl);
  if (!status.isOk()) {
    EXPECT_EQ(status.code(), MPC_UNSUPPORTED);
    EXPECT_NE(status.message().find("NCCL (libnccl.so.2) cannot be loaded"), std::string::npos)
        << status.message();
    EXPECT_NE(status.message().find("install NCCL 2"), std::string::npos) << status.message();
    return;
  }
  int version = 0;
  ASSERT_EQ(nccl->ncclGetVersion(&version), ncclSuccess);
  EXPECT_GE(version, 21000);
  EXPECT_STRNE(nccl->ncclGetErrorString(ncclInvalidUsage), "");
}

TEST_F(CudaBackend, RefusesAnNcclWithoutTheMean) {
  mpc::test::CudaEmulatorOptions options;
  options.ncclVersion = 20907;
  CudaEmulator emulator(hostObjectPath_, options);
  std::string path = dir_.file("all_reduce.mpcb");
  mpc::test::writeProgramBundle(path, mpc::test::copyAndAllReduceManifest());
  mpc::test::LoadedProgram program;
  EXPECT_EQ(program.load(path, 7, "cuda"), MPC_UNSUPPORTED);
  EXPECT_NE(std::string(mpc_last_error()).find("NCCL 2.9.7 is older than 2.10"), std::string::npos)
      << mpc_last_error();
}

TEST_F(CudaBackend, RunsAsTheCpuBackendDoes) {
  CudaEmulator emulator(hostObjectPath_);
  LoadedProgram cpu, cuda;
  ASSERT_EQ(cpu.load(bundle_, 7, "cpu"), MPC_OK) << mpc_last_error();
  ASSERT_EQ(cuda.load(bundle_, 7, "cuda"), MPC_OK) << mpc_last_error();
  for (int run = 0; run < 5; ++run) {
    for (LoadedProgram *program : {&cpu, &cuda}) {
      setInput(*program, run);
      ASSERT_EQ(mpc_program_run(program->get()), MPC_OK) << mpc_last_error();
    }
  }
  ASSERT_EQ(mpc_program_synchronize(cuda.get()), MPC_OK) << mpc_last_error();
  for (uint64_t run = 0; run < 5; ++run) {
    EXPECT_EQ(telemetryOf<float>(cuda, run, "loss"), telemetryOf<float>(cpu, run, "loss"))
        << "run " << run;
    EXPECT_EQ(telemetryOf<float>(cuda, run, "count"), run + 1.0f);
  }
  EXPECT_EQ(bytesOf(cuda.get(), "z", 128, true), bytesOf(cpu.get(), "z", 128, true));
  EXPECT_EQ(bytesOf(cuda.get(), "loss", 4, true), bytesOf(cpu.get(), "loss", 4, true));
  for (auto [name, bytes] : {std::pair{"w", 512}, {"b", 64}, {"count", 4}})
    EXPECT_EQ(bytesOf(cuda.get(), name, bytes, false), bytesOf(cpu.get(), name, bytes, false))
        << name;
  float count = 0;
  ASSERT_EQ(mpc_program_get_param(cuda.get(), "count", &count, sizeof count), MPC_OK);
  EXPECT_EQ(count, 5.0f);
}

TEST_F(CudaBackend, ARunIsOneGraphLaunchWithoutHostSyncs) {
  CudaEmulator emulator(hostObjectPath_);
  LoadedProgram cuda;
  ASSERT_EQ(cuda.load(bundle_, 7, "cuda"), MPC_OK) << mpc_last_error();
  // One graph per staging slot, captured at load.
  EXPECT_EQ(emulator.counters().graphsInstantiated, kRunsInFlight);
  const int syncsAtLoad =
      emulator.counters().streamSynchronizations + emulator.counters().eventSynchronizations;
  std::vector<float> expected = cpuLosses(bundle_, kRunsInFlight);

  for (int run = 0; run < kRunsInFlight; ++run) {
    setInput(cuda, run);
    ASSERT_EQ(mpc_program_run(cuda.get()), MPC_OK) << mpc_last_error();
  }
  // Enqueued, not done: telemetry is not ready, and asking does not wait.
  EXPECT_GT(emulator.pending(), 0u);
  float loss = 0;
  EXPECT_EQ(mpc_program_get_telemetry(cuda.get(), 0, "loss", &loss, sizeof loss), MPC_NOT_READY)
      << mpc_last_error();
  uint64_t completed = 99;
  ASSERT_EQ(mpc_program_completed_runs(cuda.get(), &completed), MPC_OK);
  EXPECT_EQ(completed, 0u);

  // The GPU catches up; the host reads every run's telemetry without waiting.
  emulator.drain();
  ASSERT_EQ(mpc_program_completed_runs(cuda.get(), &completed), MPC_OK);
  EXPECT_EQ(completed, static_cast<uint64_t>(kRunsInFlight));
  for (int run = 0; run < kRunsInFlight; ++run)
    EXPECT_EQ(telemetryOf<float>(cuda, run, "loss"), expected[run]) << "run " << run;

  const auto &counters = emulator.counters();
  EXPECT_EQ(counters.graphLaunches, kRunsInFlight);
  EXPECT_EQ(counters.uncapturedWork, 0); // every kernel and GEMM ran inside a graph
  EXPECT_EQ(counters.kernelsRun, 3 * kRunsInFlight);
  EXPECT_EQ(counters.gemmsRun, kRunsInFlight);
  EXPECT_EQ(counters.streamSynchronizations + counters.eventSynchronizations, syncsAtLoad);
  mpc_program_stats stats;
  ASSERT_EQ(mpc_program_get_stats(cuda.get(), &stats), MPC_OK);
  EXPECT_EQ(stats.runs, static_cast<uint64_t>(kRunsInFlight));
  EXPECT_EQ(stats.graph_launches, static_cast<uint64_t>(kRunsInFlight));
  EXPECT_EQ(stats.host_syncs, 0u);
  EXPECT_EQ(stats.throttle_waits, 0u);
  EXPECT_EQ(std::string(stats.device), "cuda:0 (mpc emulated GPU, sm_90)");
  // cuBLASLt's choice of algorithm is cached per shape for the process: at
  // most one query for the one GEMM shape (none if an earlier test asked),
  // none for a second program of the same shapes.
  EXPECT_LE(counters.heuristicQueries, 1);
  const int queries = counters.heuristicQueries;
  LoadedProgram second;
  ASSERT_EQ(second.load(bundle_, 8, "cuda"), MPC_OK) << mpc_last_error();
  EXPECT_EQ(emulator.counters().heuristicQueries, queries);
}

TEST_F(CudaBackend, TheHostWaitsOnlyWhenEverySlotIsBusy) {
  CudaEmulator emulator(hostObjectPath_);
  LoadedProgram cuda;
  ASSERT_EQ(cuda.load(bundle_, 7, "cuda"), MPC_OK) << mpc_last_error();
  const int runs = kRunsInFlight + 2;
  std::vector<float> expected = cpuLosses(bundle_, runs);
  const int eventSyncs = emulator.counters().eventSynchronizations;
  for (int run = 0; run < runs; ++run) {
    setInput(cuda, run);
    ASSERT_EQ(mpc_program_run(cuda.get()), MPC_OK) << mpc_last_error();
  }
  mpc_program_stats stats;
  ASSERT_EQ(mpc_program_get_stats(cuda.get(), &stats), MPC_OK);
  EXPECT_EQ(stats.throttle_waits, 2u);
  EXPECT_EQ(stats.host_syncs, 0u);
  EXPECT_EQ(emulator.counters().eventSynchronizations - eventSyncs, 2);
  // Each run saw the inputs set just before it, though its slot was reused.
  ASSERT_EQ(mpc_program_synchronize(cuda.get()), MPC_OK);
  for (int run = 0; run < runs; ++run)
    EXPECT_EQ(telemetryOf<float>(cuda, run, "loss"), expected[run]) << "run " << run;
  ASSERT_EQ(mpc_program_get_stats(cuda.get(), &stats), MPC_OK);
  EXPECT_EQ(stats.host_syncs, 1u);
}

TEST_F(CudaBackend, ReadingAnOutputWaitsForTheRunsInFlight) {
  CudaEmulator emulator(hostObjectPath_);
  LoadedProgram cuda;
  ASSERT_EQ(cuda.load(bundle_, 7, "cuda"), MPC_OK) << mpc_last_error();
  std::vector<float> expected = cpuLosses(bundle_, 2);
  for (int run = 0; run < 2; ++run) {
    setInput(cuda, run);
    ASSERT_EQ(mpc_program_run(cuda.get()), MPC_OK) << mpc_last_error();
  }
  float loss = 0;
  ASSERT_EQ(mpc_program_get_output(cuda.get(), "loss", &loss, sizeof loss), MPC_OK)
      << mpc_last_error();
  EXPECT_EQ(loss, expected[1]);
  EXPECT_EQ(emulator.pending(), 0u);
  mpc_program_stats stats;
  ASSERT_EQ(mpc_program_get_stats(cuda.get(), &stats), MPC_OK);
  EXPECT_EQ(stats.host_syncs, 1u);
  // The telemetry of both runs stayed readable across the wait.
  EXPECT_EQ(telemetryOf<float>(cuda, 0, "loss"), expected[0]);
  EXPECT_EQ(telemetryOf<float>(cuda, 1, "loss"), expected[1]);
}

TEST_F(CudaBackend, CheckpointsMoveBetweenDevices) {
  CudaEmulator emulator(hostObjectPath_);
  LoadedProgram cpu, cuda;
  ASSERT_EQ(cuda.load(bundle_, 7, "cuda"), MPC_OK) << mpc_last_error();
  ASSERT_EQ(cpu.load(bundle_, 99, "cpu"), MPC_OK) << mpc_last_error();
  for (int run = 0; run < 3; ++run) {
    setInput(cuda, run);
    ASSERT_EQ(mpc_program_run(cuda.get()), MPC_OK) << mpc_last_error();
  }
  std::string checkpoint = dir_.file("step.safetensors");
  ASSERT_EQ(mpc_program_save_params(cuda.get(), checkpoint.c_str()), MPC_OK) << mpc_last_error();
  ASSERT_EQ(mpc_program_load_params(cpu.get(), checkpoint.c_str()), MPC_OK) << mpc_last_error();
  for (auto [name, bytes] : {std::pair{"w", 512}, {"b", 64}, {"count", 4}})
    EXPECT_EQ(bytesOf(cuda.get(), name, bytes, false), bytesOf(cpu.get(), name, bytes, false))
        << name;
  // And back: the GPU continues from the CPU's checkpoint.
  setInput(cpu, 3);
  ASSERT_EQ(mpc_program_run(cpu.get()), MPC_OK);
  ASSERT_EQ(mpc_program_save_params(cpu.get(), checkpoint.c_str()), MPC_OK) << mpc_last_error();
  ASSERT_EQ(mpc_program_load_params(cuda.get(), checkpoint.c_str()), MPC_OK) << mpc_last_error();
  setInput(cuda, 4);
  setInput(cpu, 4);
  ASSERT_EQ(mpc_program_run(cuda.get()), MPC_OK);
  ASSERT_EQ(mpc_program_run(cpu.get()), MPC_OK);
  EXPECT_EQ(bytesOf(cuda.get(), "count", 4, false), bytesOf(cpu.get(), "count", 4, false));
  EXPECT_EQ(bytesOf(cuda.get(), "z", 128, true), bytesOf(cpu.get(), "z", 128, true));
}

TEST_F(CudaBackend, ReleasesItsDeviceMemory) {
  CudaEmulator emulator(hostObjectPath_);
  {
    LoadedProgram cuda;
    ASSERT_EQ(cuda.load(bundle_, 7, "cuda"), MPC_OK) << mpc_last_error();
    mpc_program_stats stats;
    ASSERT_EQ(mpc_program_get_stats(cuda.get(), &stats), MPC_OK);
    // The arena with the GEMM workspace after it, persistent memory, tables.
    EXPECT_GE(stats.device_bytes, 1280 + mpc::rt::kGemmWorkspaceBytes + 1024);
    EXPECT_EQ(emulator.deviceBytesInUse(), stats.device_bytes);
  }
  EXPECT_EQ(emulator.deviceBytesInUse(), 0u);
}

// mpc-bench --gemms: every GEMM step timed with the algorithm it runs and
// against cuBLASLt's top choices for the same operands, each in a CUDA
// graph (the emulated GPU's clock: each algorithm's time exactly); every
// heuristic query, the step's at load and the rivals' when timing, asks
// for algorithms of the operands' alignment.
TEST_F(CudaBackend, TimesEachGemmStepAgainstCublasLtsTopChoices) {
  CudaEmulatorOptions emulated;
  emulated.algorithmMilliseconds = {0.25f, 0.125f, -1.0f};
  CudaEmulator emulator(hostObjectPath_, emulated);
  std::unique_ptr<mpc::rt::Program> program = loadOnGpu();
  ASSERT_TRUE(program);
  const int queriesAtLoad = emulator.counters().heuristicQueries;
  EXPECT_EQ(queriesAtLoad, 1);
  const int uncaptured = emulator.counters().uncapturedWork;
  std::vector<mpc::rt::GemmTiming> timings;
  mpc::rt::Status timed = mpc::rt::timeGemmSteps(program->backend(), 3, timings);
  ASSERT_TRUE(timed.isOk()) << timed.message();
  ASSERT_EQ(timings.size(), 1u);
  EXPECT_EQ(timings[0].step, 0u);
  EXPECT_EQ(timings[0].m, 4);
  EXPECT_EQ(timings[0].n, 16);
  EXPECT_EQ(timings[0].k, 8);
  EXPECT_EQ(timings[0].types, "f32xf32->f32");
  EXPECT_DOUBLE_EQ(timings[0].stepMs, 0.125); // the load's timing chose the faster one
  EXPECT_DOUBLE_EQ(timings[0].bestMs, 0.125);
  EXPECT_EQ(timings[0].algorithmsTried, 2); // the third is refused
  EXPECT_EQ(timings[0].algorithm, "timed at load: cuBLASLt's choice 2 of 3");
  EXPECT_EQ(emulator.counters().uncapturedWork, uncaptured);
  EXPECT_EQ(emulator.counters().heuristicQueries, queriesAtLoad + 1);
  EXPECT_EQ(emulator.counters().alignedHeuristicQueries, emulator.counters().heuristicQueries);
}

// mpc-bench --profile on a GPU: every step of the program timed alone, in
// order, each as calls captured into a CUDA graph (the emulated clock
// advances by GEMMs alone: the GEMM's algorithm's time, the others' 0), and
// named as the CPU backend's profile names them.
TEST_F(CudaBackend, TimesEachStepAloneInACudaGraph) {
  CudaEmulatorOptions emulated;
  emulated.algorithmMilliseconds = {0.25f};
  CudaEmulator emulator(hostObjectPath_, emulated);
  std::unique_ptr<mpc::rt::Program> program = loadOnGpu();
  ASSERT_TRUE(program);
  const int uncaptured = emulator.counters().uncapturedWork;
  const int gemmsBefore = emulator.counters().gemmsRun;
  std::vector<mpc::rt::DeviceStepTiming> timings;
  mpc::rt::Status timed = mpc::rt::timeDeviceSteps(program->backend(), 4, timings);
  ASSERT_TRUE(timed.isOk()) << timed.message();
  ASSERT_EQ(timings.size(), 5u);
  std::vector<std::string> what;
  for (size_t i = 0; i < timings.size(); ++i) {
    EXPECT_EQ(timings[i].step, i);
    what.push_back(timings[i].what);
  }
  EXPECT_EQ(what, (std::vector<std::string>{"gemm 4x16x8 f32*f32->f32 bias_relu", "kernel k_double",
                                            "kernel k_mean", "kernel k_count", "copy 4 bytes"}));
  EXPECT_DOUBLE_EQ(timings[0].ms, 0.25);
  EXPECT_DOUBLE_EQ(timings[1].ms, 0.0);
  // A warm-up launch and a timed one of 4 calls each.
  EXPECT_EQ(emulator.counters().gemmsRun - gemmsBefore, 8);
  EXPECT_EQ(emulator.counters().uncapturedWork, uncaptured);
  // Not on the CPU backend.
  std::unique_ptr<mpc::rt::Program> cpu;
  mpc::rt::ProgramOptions options;
  ASSERT_TRUE(mpc::rt::Program::load(bundle_, options, cpu).isOk());
  timings.clear();
  EXPECT_EQ(mpc::rt::timeDeviceSteps(cpu->backend(), 4, timings).code(), MPC_UNSUPPORTED);
}

// At load each kind of GEMM times cuBLASLt's candidates, each a graph of 8
// calls writing a scratch result, a sample being a warm-up launch and a timed
// one: the heuristic's first choice sampled, then every candidate sampled
// three times, interleaved. The program computes as the CPU does and runs
// the fastest. Refused candidates are passed over; a first choice slower
// than 0.25 ms a call is kept untimed against the rest, and so is one that
// the fastest beats by under 2%; a failed timing leaves the heuristic's
// choice; the winner is kept for the process; MPC_GEMM_AUTOTUNE=0 keeps the
// heuristic's first choice. The GEMM's timing (mpc-bench --gemms) says how
// its algorithm was chosen.
TEST_F(CudaBackend, TimesCublasLtsCandidatesAtLoadAndRunsTheFastest) {
  // The GEMMs each load ran: the timing's algorithms and results, then the
  // runs' algorithms; and how its algorithm was chosen.
  struct Ran {
    std::vector<int> atLoad, inRuns;
    std::vector<uintptr_t> loadResults, runResults;
    std::string algorithm;
    int timedCalls(int rank) const { return std::count(atLoad.begin(), atLoad.end(), rank); }
  };
  auto loadAndRun = [&](CudaEmulator &emulator, Ran &ran) {
    ran = Ran();
    std::vector<float> expected = cpuLosses(bundle_, 2);
    const auto &counters = emulator.counters();
    size_t before = counters.gemmAlgorithms.size();
    std::unique_ptr<mpc::rt::Program> program = loadOnGpu();
    ASSERT_TRUE(program);
    size_t loaded = counters.gemmAlgorithms.size();
    for (int run = 0; run < 2; ++run) {
      std::vector<float> x = mpc::test::inputOfRun(run);
      ASSERT_TRUE(program->setInput("x", x.data(), x.size() * sizeof(float)).isOk());
      ASSERT_TRUE(program->run().isOk());
    }
    ASSERT_TRUE(program->synchronize().isOk());
    for (int run = 0; run < 2; ++run) {
      float loss = 0;
      ASSERT_TRUE(program->telemetry(run, "loss", &loss, sizeof loss).isOk());
      EXPECT_EQ(loss, expected[run]) << "run " << run;
    }
    ran.atLoad.assign(counters.gemmAlgorithms.begin() + before,
                      counters.gemmAlgorithms.begin() + loaded);
    ran.inRuns.assign(counters.gemmAlgorithms.begin() + loaded, counters.gemmAlgorithms.end());
    ran.loadResults.assign(counters.gemmResults.begin() + before,
                           counters.gemmResults.begin() + loaded);
    ran.runResults.assign(counters.gemmResults.begin() + loaded, counters.gemmResults.end());
    std::vector<mpc::rt::GemmTiming> timings;
    ASSERT_TRUE(mpc::rt::timeGemmSteps(program->backend(), 1, timings).isOk());
    ASSERT_EQ(timings.size(), 1u);
    ran.algorithm = timings[0].algorithm;
  };
  Ran ran;
  {
    CudaEmulatorOptions options;
    options.algorithmMilliseconds = {0.004f, -1.0f, 0.001f, 0.002f};
    CudaEmulator emulator(hostObjectPath_, options);
    loadAndRun(emulator, ran);
    // The first choice: four samples, the others three, of 16 calls (8
    // warming up, 8 timed); 1 is refused.
    EXPECT_EQ(ran.timedCalls(0), 4 * 16);
    EXPECT_EQ(ran.timedCalls(1), 0);
    EXPECT_EQ(ran.timedCalls(2), 3 * 16);
    EXPECT_EQ(ran.timedCalls(3), 3 * 16);
    EXPECT_EQ(ran.atLoad.size(), 10u * 16);
    EXPECT_EQ(ran.inRuns, (std::vector<int>{2, 2}));
    EXPECT_EQ(ran.algorithm, "timed at load: cuBLASLt's choice 3 of 4");
    // The timing wrote none of the program's memory (the runs' results).
    ASSERT_EQ(ran.runResults.size(), 2u);
    for (uintptr_t result : ran.loadResults)
      EXPECT_NE(result, ran.runResults[0]);
    EXPECT_EQ(emulator.counters().uncapturedWork, 0);
    // A later program of the same GEMM takes the winner without timing (and
    // without asking the heuristic, but for the rivals of timeGemmSteps).
    const int queries = emulator.counters().heuristicQueries;
    loadAndRun(emulator, ran);
    EXPECT_EQ(ran.atLoad, std::vector<int>{});
    EXPECT_EQ(ran.inRuns, (std::vector<int>{2, 2}));
    EXPECT_EQ(ran.algorithm, "timed at load: cuBLASLt's choice 3 of 4");
    EXPECT_EQ(emulator.counters().heuristicQueries, queries + 1);
  }
  {
    // The heuristic's first choice refused: the first that runs stands in.
    CudaEmulatorOptions options;
    options.algorithmMilliseconds = {-1.0f, 0.002f, 0.001f};
    CudaEmulator emulator(hostObjectPath_, options);
    mpc::rt::resetGemmAlgorithmCache();
    loadAndRun(emulator, ran);
    EXPECT_EQ(ran.timedCalls(0), 0);
    EXPECT_EQ(ran.timedCalls(1), 4 * 16);
    EXPECT_EQ(ran.timedCalls(2), 3 * 16);
    EXPECT_EQ(ran.inRuns, (std::vector<int>{2, 2}));
  }
  {
    CudaEmulatorOptions options;
    options.algorithmMilliseconds = {0.5f, 0.001f};
    CudaEmulator emulator(hostObjectPath_, options);
    mpc::rt::resetGemmAlgorithmCache();
    loadAndRun(emulator, ran);
    EXPECT_EQ(ran.atLoad, std::vector<int>(16, 0)); // one sample
    EXPECT_EQ(ran.inRuns, (std::vector<int>{0, 0}));
    EXPECT_EQ(ran.algorithm,
              "cuBLASLt's choice 1 of 2 (the first that runs): over 0.25 ms a call, not timed "
              "against the others");
  }
  {
    CudaEmulatorOptions options;
    options.algorithmMilliseconds = {0.0100f, 0.0099f}; // 1% faster: not enough
    CudaEmulator emulator(hostObjectPath_, options);
    mpc::rt::resetGemmAlgorithmCache();
    loadAndRun(emulator, ran);
    EXPECT_EQ(ran.timedCalls(1), 3 * 16);
    EXPECT_EQ(ran.inRuns, (std::vector<int>{0, 0}));
    EXPECT_EQ(ran.algorithm, "timed at load: cuBLASLt's choice 1 of 2");
  }
  {
    // The first graph the timing instantiates fails: the load goes on with
    // the heuristic's choice, and says why.
    CudaEmulatorOptions options;
    options.algorithmMilliseconds = {0.004f, 0.001f};
    options.failingGraphInstantiations = 1;
    CudaEmulator emulator(hostObjectPath_, options);
    mpc::rt::resetGemmAlgorithmCache();
    loadAndRun(emulator, ran);
    EXPECT_EQ(ran.atLoad, std::vector<int>{});
    EXPECT_EQ(ran.inRuns, (std::vector<int>{0, 0}));
    EXPECT_EQ(ran.algorithm.rfind("cuBLASLt's heuristic: timing failed (", 0), 0u) << ran.algorithm;
    EXPECT_NE(ran.algorithm.find("instantiating a GEMM's timing"), std::string::npos)
        << ran.algorithm;
    // A later load without timing says the heuristic chose, untimed.
    setenv("MPC_GEMM_AUTOTUNE", "0", 1);
    loadAndRun(emulator, ran);
    unsetenv("MPC_GEMM_AUTOTUNE");
    EXPECT_EQ(ran.atLoad, std::vector<int>{});
    EXPECT_EQ(ran.algorithm, "cuBLASLt's heuristic");
  }
  {
    CudaEmulatorOptions options;
    options.algorithmMilliseconds = {0.004f, 0.001f};
    CudaEmulator emulator(hostObjectPath_, options);
    mpc::rt::resetGemmAlgorithmCache();
    setenv("MPC_GEMM_AUTOTUNE", "0", 1);
    loadAndRun(emulator, ran);
    unsetenv("MPC_GEMM_AUTOTUNE");
    EXPECT_EQ(ran.atLoad, std::vector<int>{});
    EXPECT_EQ(ran.inRuns, (std::vector<int>{0, 0}));
    EXPECT_EQ(ran.algorithm, "cuBLASLt's heuristic");
    // A later load that may time does so: the untimed choice was not final.
    loadAndRun(emulator, ran);
    EXPECT_EQ(ran.timedCalls(1), 3 * 16);
    EXPECT_EQ(ran.inRuns, (std::vector<int>{1, 1}));
  }
}

TEST_F(CudaBackend, MissingGpusAndOldDriversAreReported) {
  {
    CudaEmulatorOptions none;
    none.deviceCount = 0;
    CudaEmulator emulator(hostObjectPath_, none);
    EXPECT_EQ(mpc_device_check("cuda"), MPC_UNSUPPORTED);
    EXPECT_STREQ(mpc_last_error(), "device \"cuda\": this machine has no CUDA GPU; use device "
                                   "\"cpu\" (mpc: --device cpu)");
    LoadedProgram cuda;
    EXPECT_EQ(cuda.load(bundle_, 7, "cuda"), MPC_UNSUPPORTED);
  }
  {
    CudaEmulatorOptions old;
    old.driverVersion = 12080;
    CudaEmulator emulator(hostObjectPath_, old);
    EXPECT_EQ(mpc_device_check("cuda"), MPC_UNSUPPORTED);
    EXPECT_STREQ(mpc_last_error(),
                 ("device \"cuda\": the NVIDIA driver supports CUDA 12.8, this runtime was "
                  "built with CUDA " +
                  std::to_string(CUDA_VERSION / 1000) + "." +
                  std::to_string(CUDA_VERSION % 1000 / 10) +
                  ": update the driver; use device \"cpu\" (mpc: --device cpu)")
                     .c_str());
  }
  CudaEmulator emulator(hostObjectPath_);
  EXPECT_EQ(mpc_device_check("cuda:0"), MPC_OK) << mpc_last_error();
  EXPECT_EQ(mpc_device_check("cuda:1"), MPC_UNSUPPORTED);
  EXPECT_STREQ(mpc_last_error(), "device \"cuda:1\": this machine has 1 CUDA GPU (cuda:0)");
}

TEST_F(CudaBackend, PrefersTheCubinThenThePtxThenTheSource) {
  std::string bundle = writeStepBundle(
      dir_, "images.mpcb",
      {{"cubin.sm_90", "\x7f" "ELF sm_90"}, {"ptx.sm_80", "// ptx for sm_80"},
       {"kernels.cu", kKernelSource}});
  {
    CudaEmulator emulator(hostObjectPath_);
    LoadedProgram cuda;
    ASSERT_EQ(cuda.load(bundle, 7, "cuda"), MPC_OK) << mpc_last_error();
    EXPECT_EQ(emulator.counters().loadedImages, std::vector<std::string>{"cubin:\x7f" "ELF sm_90"});
    EXPECT_EQ(emulator.counters().nvrtcCompilations, 0);
  }
  {
    CudaEmulatorOptions options;
    options.refusedImages = {"cubin"};
    CudaEmulator emulator(hostObjectPath_, options);
    LoadedProgram cuda;
    ASSERT_EQ(cuda.load(bundle, 7, "cuda"), MPC_OK) << mpc_last_error();
    EXPECT_EQ(emulator.counters().loadedImages, std::vector<std::string>{"ptx:// ptx for sm_80"});
  }
  {
    // A GPU without a cubin of its own (sm_86 runs sm_80 cubins, not sm_90's).
    CudaEmulatorOptions options;
    options.arch = 86;
    CudaEmulator emulator(hostObjectPath_, options);
    LoadedProgram cuda;
    ASSERT_EQ(cuda.load(bundle, 7, "cuda"), MPC_OK) << mpc_last_error();
    EXPECT_EQ(emulator.counters().loadedImages, std::vector<std::string>{"ptx:// ptx for sm_80"});
  }
  const mpc::rt::NvrtcApi *nvrtc = nullptr;
  mpc::rt::Status loaded = mpc::rt::loadNvrtcApi(nvrtc);
  ASSERT_TRUE(loaded.isOk()) << "NVRTC is not available: " << loaded.message();
  CudaEmulatorOptions options;
  options.refusedImages = {"cubin", "ptx"};
  CudaEmulator emulator(hostObjectPath_, options);
  LoadedProgram cuda;
  EXPECT_EQ(cuda.load(bundle, 7, "cuda"), MPC_UNSUPPORTED);
  std::string error = mpc_last_error();
  EXPECT_NE(error.find("no kernel binary for this GPU (sm_90) could be loaded"), std::string::npos)
      << error;
  for (const char *attempt : {"\n  cubin.sm_90: ", "\n  ptx.sm_80: ", "\n  kernels.cu: "})
    EXPECT_NE(error.find(attempt), std::string::npos) << attempt << " in " << error;
  EXPECT_EQ(emulator.counters().nvrtcCompilations, 1);
}

TEST_F(CudaBackend, CompilesTheSourceOnceWhenTheBundleHasNoBinaryForTheGpu) {
  const mpc::rt::NvrtcApi *nvrtc = nullptr;
  mpc::rt::Status loaded = mpc::rt::loadNvrtcApi(nvrtc);
  ASSERT_TRUE(loaded.isOk()) << "NVRTC is not available: " << loaded.message();
  std::string bundle = writeSourceBundle(dir_);
  CudaEmulator emulator(hostObjectPath_);
  for (int load = 0; load < 2; ++load) {
    LoadedProgram cuda;
    ASSERT_EQ(cuda.load(bundle, 7, "cuda"), MPC_OK) << mpc_last_error();
    // A real cubin, from NVRTC the first time and from the cache after.
    ASSERT_EQ(emulator.counters().loadedImages.size(), static_cast<size_t>(load + 1));
    EXPECT_EQ(emulator.counters().loadedImages[load].substr(0, 10), "cubin:\x7f" "ELF");
    EXPECT_EQ(emulator.counters().nvrtcCompilations, 1);
    setInput(cuda, 0);
    ASSERT_EQ(mpc_program_run(cuda.get()), MPC_OK) << mpc_last_error();
    ASSERT_EQ(mpc_program_synchronize(cuda.get()), MPC_OK) << mpc_last_error();
    EXPECT_EQ(telemetryOf<float>(cuda, 0, "count"), 1.0f);
  }
}

TEST_F(CudaBackend, RefusesABundleWithoutKernelsForTheGpu) {
  std::string bundle = writeStepBundle(dir_, "cpu-only.mpcb");
  CudaEmulator emulator(hostObjectPath_);
  LoadedProgram cuda;
  EXPECT_EQ(cuda.load(bundle, 7, "cuda"), MPC_UNSUPPORTED);
  EXPECT_NE(std::string(mpc_last_error())
                .find("no kernel binary for this GPU (sm_90) could be loaded: the bundle has no "
                      "cubin or PTX for it and no kernel source; compile it with --target sm_90"),
            std::string::npos)
      << mpc_last_error();
}

} // namespace
