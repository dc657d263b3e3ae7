//===- mpc-bench.cpp - time a bundle's step on a device -------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Runs a bundle's step on synthetic batches (StepRunner.h) and reports, as
// JSON, the wall time per step (the median of several repetitions of N
// steps, each ended by waiting for the device), what a step costs the host
// (graph launches, synchronisations, throttle waits per step), the device
// memory the program holds and, with --gemms on a GPU, each GEMM step timed
// alone (on the GPU, in a CUDA graph) against the best of cuBLASLt's other
// algorithms for it, and with
// --profile on the CPU each step of the program timed where it runs in the
// step (the median over the --steps more steps it takes). Needs only
// the runtime, so it builds on a GPU machine without the compiler.
//
//===----------------------------------------------------------------------===//

#include "StepRunner.h"

#include "CpuBackend.h"
#ifdef MPC_HAVE_CUDA_BACKEND
#include "CudaBackend.h"
#endif
#include "mpc/format/Json.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace {

constexpr char kUsage[] =
    "usage: mpc-bench BUNDLE [--device cpu|cuda|cuda:N] [--steps N] [--warmup N]\n"
    "                 [--repeats R] [--gemms] [--profile] [--label TEXT] [--json FILE]\n"
    "\n"
    "Times BUNDLE's step on synthetic batches (floats in [0, 1), integers in [0, 10)).\n"
    "  --device   where to run (default cpu)\n"
    "  --steps    steps per repetition (default 100)\n"
    "  --warmup   untimed steps first (default 10)\n"
    "  --repeats  repetitions; the median is reported (default 5)\n"
    "  --gemms    also time each GEMM step alone, 50 calls in a CUDA graph, against\n"
    "             cuBLASLt's top 8 algorithms for it (CUDA only)\n"
    "  --profile  also time each step of the program where it runs, the median over\n"
    "             --steps more steps on the same batches (CPU only): where the time goes\n"
    "  --label    a name for the result (default: the bundle's program)\n"
    "  --json     write the result there too (default: standard output only)\n"
    "Exit codes: 0 done, 1 failed, 2 bad command line, 77 the device is not available.\n";

int usage(const std::string &problem) {
  std::cerr << "mpc-bench: error: " << problem << "\n" << kUsage;
  return 2;
}

/// `value` as a JSON number; null when it is not finite (JSON has no NaN).
std::string number(double value) {
  if (!std::isfinite(value))
    return "null";
  std::ostringstream os;
  os.precision(6);
  os << value;
  return os.str();
}

} // namespace

int main(int argc, char **argv) {
  using namespace mpc;
  std::string bundle, device = "cpu", label, jsonPath;
  int steps = 100, warmup = 10, repeats = 5;
  bool gemms = false, profile = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *name) -> const char * {
      if (i + 1 >= argc) {
        usage(std::string(name) + " needs a value");
        std::exit(2);
      }
      return argv[++i];
    };
    auto count = [&](const char *name, int minimum) {
      const char *text = value(name);
      char *end = nullptr;
      long n = std::strtol(text, &end, 10);
      if (!*text || *end || n < minimum || n > 1000000) {
        usage(std::string(name) + " expects an integer >= " + std::to_string(minimum) +
              ", got '" + text + "'");
        std::exit(2);
      }
      return static_cast<int>(n);
    };
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (arg == "--device") {
      device = value("--device");
    } else if (arg == "--steps") {
      steps = count("--steps", 1);
    } else if (arg == "--warmup") {
      warmup = count("--warmup", 0);
    } else if (arg == "--repeats") {
      repeats = count("--repeats", 1);
    } else if (arg == "--gemms") {
      gemms = true;
    } else if (arg == "--profile") {
      profile = true;
    } else if (arg == "--label") {
      label = value("--label");
    } else if (arg == "--json") {
      jsonPath = value("--json");
    } else if (!arg.empty() && arg[0] == '-') {
      return usage("unknown option '" + arg + "'");
    } else if (bundle.empty()) {
      bundle = arg;
    } else {
      return usage("one bundle only, got '" + arg + "' too");
    }
  }
  if (bundle.empty())
    return usage("no bundle given");
  if (profile && device != "cpu")
    return usage("--profile times the CPU backend's steps; it needs --device cpu");
  if (rt::Status status = rt::checkDevice(device); !status.isOk()) {
    std::cerr << "mpc-bench: " << status.message() << "\n";
    return 77;
  }
  std::unique_ptr<rt::Program> program;
  if (rt::Status status = bench::loadProgram(bundle, device, 1, program); !status.isOk()) {
    std::cerr << "mpc-bench: error: " << status.message() << "\n";
    return 1;
  }
  if (label.empty())
    label = program->manifest().program;
  std::vector<bench::Batch> batches = bench::syntheticBatches(program->manifest(), 8, 1);
  auto fail = [](const rt::Status &status) {
    std::cerr << "mpc-bench: error: " << status.message() << "\n";
    return 1;
  };
  uint64_t run = 0;
  for (int i = 0; i < warmup; ++i, ++run)
    if (rt::Status status = bench::runBatch(*program, batches[run % batches.size()]);
        !status.isOk())
      return fail(status);
  if (rt::Status status = program->synchronize(); !status.isOk())
    return fail(status);

  std::vector<double> msPerStep;
  rt::BackendStats before = program->stats();
  uint64_t loopSyncs = 0;
  for (int r = 0; r < repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    uint64_t syncsBefore = program->stats().hostSyncs;
    for (int i = 0; i < steps; ++i, ++run)
      if (rt::Status status = bench::runBatch(*program, batches[run % batches.size()]);
          !status.isOk())
        return fail(status);
    loopSyncs += program->stats().hostSyncs - syncsBefore;
    if (rt::Status status = program->synchronize(); !status.isOk())
      return fail(status);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    msPerStep.push_back(seconds * 1e3 / steps);
  }
  rt::BackendStats after = program->stats();
  std::vector<double> sorted = msPerStep;
  std::sort(sorted.begin(), sorted.end());
  double median = sorted[sorted.size() / 2];
  double timedSteps = static_cast<double>(steps) * repeats;
  float loss = NAN;
  bool hasLoss = false;
  for (const rt::TensorSpec &spec : program->telemetryOutputs())
    hasLoss |= spec.name == "loss";
  if (hasLoss)
    (void)bench::telemetryScalar(*program, run - 1, "loss", loss);

  std::ostringstream os;
  os << "{\"label\": " << rt::quoteJson(label) << ", \"bundle\": " << rt::quoteJson(bundle)
     << ", \"device\": " << rt::quoteJson(after.device) << ", \"steps\": " << steps
     << ", \"repeats\": " << repeats << ", \"ms_per_step\": " << number(median)
     << ", \"ms_per_step_all\": [";
  for (size_t i = 0; i < msPerStep.size(); ++i)
    os << (i ? ", " : "") << number(msPerStep[i]);
  os << "], \"graph_launches_per_step\": "
     << number((after.graphLaunches - before.graphLaunches) / timedSteps)
     << ", \"host_syncs_per_step\": " << number(loopSyncs / timedSteps)
     << ", \"throttle_waits_per_step\": "
     << number((after.throttleWaits - before.throttleWaits) / timedSteps)
     << ", \"device_bytes\": " << after.deviceBytes << ", \"last_loss\": "
     << (std::isfinite(loss) ? number(loss) : "null");
#ifdef MPC_HAVE_CUDA_BACKEND
  if (gemms && device != "cpu") {
    std::vector<rt::GemmTiming> timings;
    if (rt::Status status = rt::timeGemmSteps(program->backend(), 50, timings); !status.isOk())
      return fail(status);
    os << ", \"gemms\": [";
    for (size_t i = 0; i < timings.size(); ++i) {
      const rt::GemmTiming &t = timings[i];
      double flop = 2.0 * t.m * t.n * t.k * t.batch;
      os << (i ? ", " : "") << "{\"step\": " << t.step << ", \"m\": " << t.m << ", \"n\": " << t.n
         << ", \"k\": " << t.k << ", \"batch\": " << t.batch
         << ", \"types\": " << rt::quoteJson(t.types) << ", \"ms\": " << number(t.stepMs)
         << ", \"best_ms\": " << number(t.bestMs)
         << ", \"tflops\": " << number(flop / (t.stepMs * 1e-3) / 1e12)
         << ", \"best_tflops\": " << number(flop / (t.bestMs * 1e-3) / 1e12)
         << ", \"efficiency\": " << number(t.bestMs / t.stepMs)
         << ", \"algorithms_tried\": " << t.algorithmsTried
         << ", \"algorithm\": " << rt::quoteJson(t.algorithm) << "}";
    }
    os << "]";
  }
#else
  if (gemms && device != "cpu")
    return fail(rt::Status::error(MPC_UNSUPPORTED, "--gemms needs the CUDA backend"));
#endif
  if (profile) {
    // The same synthetic batches, bound to the inputs' buffers.
    const rt::Manifest &manifest = program->manifest();
    std::vector<std::vector<rt::InputBytes>> inputs;
    for (const bench::Batch &batch : batches) {
      inputs.emplace_back();
      for (size_t i = 0; i < manifest.inputs.size(); ++i)
        inputs.back().push_back({manifest.inputs[i].buffer, batch[i].data(), batch[i].size()});
    }
    std::vector<rt::CpuStepTiming> timings;
    if (rt::Status status = rt::timeCpuSteps(program->backend(), inputs, steps, timings);
        !status.isOk())
      return fail(status);
    double total = 0;
    for (const rt::CpuStepTiming &t : timings)
      total += t.microseconds;
    os << ", \"profile_us_per_step\": " << number(total) << ", \"profile\": [";
    for (size_t i = 0; i < timings.size(); ++i) {
      const rt::CpuStepTiming &t = timings[i];
      os << (i ? ", " : "") << "{\"step\": " << t.step << ", \"what\": " << rt::quoteJson(t.what)
         << ", \"us\": " << number(t.microseconds)
         << ", \"share\": " << number(total > 0 ? t.microseconds / total : 0) << "}";
    }
    os << "]";
  }
  os << "}\n";
  std::cout << os.str();
  if (!jsonPath.empty()) {
    std::ofstream file(jsonPath);
    file << os.str();
    if (!file)
      return fail(rt::Status::error(MPC_IO_ERROR, "cannot write " + jsonPath));
  }
  return 0;
}
