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
// algorithms for it, and with --profile each step of the program timed: on
// the CPU where it runs in the step (the median over the --steps more steps
// it takes), on a GPU alone in a CUDA graph. An ONNX model's weights
// (--params) and fixed inputs (--input) replace the initializers and the
// synthetic values. Needs only the runtime, so it builds on a GPU machine
// without the compiler.
//
//===----------------------------------------------------------------------===//

#include "KernelKinds.h"
#include "StepRunner.h"

#include "CpuBackend.h"
#ifdef MPC_HAVE_CUDA_BACKEND
#include "CudaBackend.h"
#endif
#include "mpc/format/Json.h"
#include "mpc/format/Npy.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr char kUsage[] =
    "usage: mpc-bench BUNDLE [--device cpu|cuda|cuda:N] [--steps N] [--warmup N]\n"
    "                 [--repeats R] [--gemms] [--profile] [--params FILE.safetensors]\n"
    "                 [--input NAME=FILE.npy ...] [--label TEXT] [--json FILE]\n"
    "\n"
    "Times BUNDLE's step on synthetic batches (floats in [0, 1), integers in [0, 10)).\n"
    "  --device   where to run (default cpu)\n"
    "  --steps    steps per repetition (default 100)\n"
    "  --warmup   untimed steps first (default 10)\n"
    "  --repeats  repetitions; the median is reported (default 5)\n"
    "  --gemms    also time each GEMM step alone, 50 calls in a CUDA graph, against\n"
    "             cuBLASLt's top 8 algorithms for it (CUDA only)\n"
    "  --profile  also time each step of the program: on the CPU where it runs, the\n"
    "             median over --steps more steps on the same batches; on a GPU alone,\n"
    "             20 calls in a CUDA graph. Each kernel is named with what it does (the\n"
    "             device-library loop its CUDA source calls): where the time goes\n"
    "  --params   set the parameters this safetensors file holds (an ONNX model's\n"
    "             weights, which mpc compile writes beside the bundle)\n"
    "  --input    input NAME of every step from a .npy file of its type and shape\n"
    "             (repeatable; e.g. tokens over a whole vocabulary)\n"
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

/// A step of --profile, on either device.
struct ProfiledStep {
  size_t step;
  std::string what;
  double microseconds;
};

/// The profile's JSON fields: the total, then each step with its share and
/// its kind: "gemm", "copy", "all-reduce", or for a kernel what it does
/// (`kinds`, from the bundle's CUDA source; "kernel" without one).
void writeProfile(std::ostream &os, const std::vector<ProfiledStep> &steps,
                  const std::map<std::string, std::string> &kinds) {
  double total = 0;
  for (const ProfiledStep &t : steps)
    total += t.microseconds;
  os << ", \"profile_us_per_step\": " << number(total) << ", \"profile\": [";
  for (size_t i = 0; i < steps.size(); ++i) {
    const ProfiledStep &t = steps[i];
    std::string kind = t.what.substr(0, t.what.find(' '));
    if (kind == "kernel") {
      auto found = kinds.find(t.what.substr(t.what.find(' ') + 1));
      if (found != kinds.end())
        kind = found->second;
    }
    os << (i ? ", " : "") << "{\"step\": " << t.step << ", \"what\": " << mpc::rt::quoteJson(t.what)
       << ", \"kind\": " << mpc::rt::quoteJson(kind) << ", \"us\": " << number(t.microseconds)
       << ", \"share\": " << number(total > 0 ? t.microseconds / total : 0) << "}";
  }
  os << "]";
}

/// Input `name` of every batch from the .npy file `path`, which must hold
/// the input's type and shape.
mpc::rt::Status fixInput(const mpc::rt::Manifest &manifest, const std::string &name,
                         const std::string &path, std::vector<mpc::bench::Batch> &batches) {
  using namespace mpc;
  size_t index = 0;
  while (index < manifest.inputs.size() && manifest.inputs[index].name != name)
    ++index;
  if (index == manifest.inputs.size())
    return rt::Status::error(MPC_INVALID_ARGUMENT,
                             "--input " + name + ": the program has no input of that name");
  rt::HostTensor tensor;
  if (rt::Status status = rt::readNpy(path, tensor); !status.isOk())
    return status;
  const rt::TensorSpec &input = manifest.inputs[index];
  if (tensor.dtype != input.dtype || tensor.shape != input.shape)
    return rt::Status::error(MPC_INVALID_ARGUMENT,
                             path + ": holds " + rt::dtypeName(tensor.dtype) +
                                 rt::formatShape(tensor.shape) + ", but input " + name + " is " +
                                 rt::dtypeName(input.dtype) + rt::formatShape(input.shape));
  for (bench::Batch &batch : batches)
    batch[index] = tensor.bytes;
  return rt::Status();
}

} // namespace

int main(int argc, char **argv) {
  using namespace mpc;
  std::string bundle, device = "cpu", label, jsonPath;
  int steps = 100, warmup = 10, repeats = 5;
  bool gemms = false, profile = false;
  std::string paramsPath;
  std::vector<std::pair<std::string, std::string>> inputFiles;
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
    } else if (arg == "--params") {
      paramsPath = value("--params");
    } else if (arg == "--input") {
      std::string spec = value("--input");
      size_t equals = spec.find('=');
      if (equals == std::string::npos || equals == 0 || equals + 1 == spec.size())
        return usage("--input expects NAME=FILE.npy, got '" + spec + "'");
      inputFiles.emplace_back(spec.substr(0, equals), spec.substr(equals + 1));
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
  if (!paramsPath.empty())
    if (rt::Status status = bench::setWeights(*program, paramsPath); !status.isOk())
      return fail(status);
  for (const auto &[name, path] : inputFiles)
    if (rt::Status status = fixInput(program->manifest(), name, path, batches); !status.isOk())
      return fail(status);
  uint64_t run = 0;
  for (int i = 0; i < warmup; ++i, ++run)
    if (rt::Status status = bench::runBatch(*program, batches[run % batches.size()]);
        !status.isOk())
      return fail(status);
  if (rt::Status status = program->synchronize(); !status.isOk())
    return fail(status);
  bool hasLoss = false;
  for (const rt::TensorSpec &spec : program->telemetryOutputs())
    hasLoss |= spec.name == "loss";
  // The first step's loss (for comparing a peer's from the same weights and
  // batch), while the telemetry still holds it.
  float firstLoss = NAN;
  if (hasLoss && warmup > 0)
    (void)bench::telemetryScalar(*program, 0, "loss", firstLoss);

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
     << ", \"device_bytes\": " << after.deviceBytes << ", \"first_loss\": " << number(firstLoss)
     << ", \"last_loss\": " << number(loss);
  // A failure of the per-GEMM or per-step timing is recorded in the JSON
  // ("gemms_error", "profile_error") with what was measured before it, and
  // the exit code is 1.
  int exitCode = 0;
  [[maybe_unused]] auto recordError = [&](const char *field, const rt::Status &status) {
    std::cerr << "mpc-bench: error: " << status.message() << "\n";
    os << ", \"" << field << "\": " << rt::quoteJson(status.message());
    exitCode = 1;
  };
#ifdef MPC_HAVE_CUDA_BACKEND
  std::vector<rt::GemmTiming> gemmTimings;
  rt::Status gemmStatus;
  if (gemms && device != "cpu")
    gemmStatus = rt::timeGemmSteps(program->backend(), 50, gemmTimings);
  if (!gemmStatus.isOk()) {
    recordError("gemms_error", gemmStatus);
  } else if (gemms && device != "cpu") {
    const std::vector<rt::GemmTiming> &timings = gemmTimings;
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
  std::map<std::string, std::string> kinds;
  if (profile)
    if (rt::Status status = bench::kernelKindsOfBundle(bundle, kinds); !status.isOk())
      return fail(status);
#ifdef MPC_HAVE_CUDA_BACKEND
  if (profile && device != "cpu") {
    std::vector<rt::DeviceStepTiming> timings;
    if (rt::Status status = rt::timeDeviceSteps(program->backend(), 20, timings); !status.isOk()) {
      recordError("profile_error", status);
    } else {
      std::vector<ProfiledStep> profiled;
      for (const rt::DeviceStepTiming &t : timings)
        profiled.push_back({t.step, t.what, t.ms * 1e3});
      writeProfile(os, profiled, kinds);
    }
  }
#else
  if (profile && device != "cpu")
    return fail(rt::Status::error(MPC_UNSUPPORTED, "--profile on a GPU needs the CUDA backend"));
#endif
  if (profile && device == "cpu") {
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
    std::vector<ProfiledStep> profiled;
    for (const rt::CpuStepTiming &t : timings)
      profiled.push_back({t.step, t.what, t.microseconds});
    writeProfile(os, profiled, kinds);
  }
  os << "}\n";
  std::cout << os.str();
  if (!jsonPath.empty()) {
    std::ofstream file(jsonPath);
    file << os.str();
    if (!file)
      return fail(rt::Status::error(MPC_IO_ERROR, "cannot write " + jsonPath));
  }
  return exitCode;
}
