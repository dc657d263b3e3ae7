//===- mpc-gpu-check.cpp - a GPU's results against the CPU's --------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The GPU tests of bench/gpu/run.sh (BackendCheck.h): every model of a list
// written by bench/gpu/prepare.sh, on the CPU and on the device. Exit codes:
// 0 every comparison passed, 1 one failed, 2 bad command line, 77 skipped
// (the device is not available here; the reason is printed), so that ctest
// counts a machine without a GPU as a skip.
//
//===----------------------------------------------------------------------===//

#include "BackendCheck.h"

#include "mpc/format/Json.h"
#include "Program.h"

#include <fstream>
#include <iostream>

namespace {

constexpr char kUsage[] =
    "usage: mpc-gpu-check MODELS.tsv [--device cuda|cuda:N] [--steps N] [--json FILE]\n"
    "\n"
    "Runs each model of MODELS.tsv (bench/gpu/prepare.sh writes it next to the bundles) on\n"
    "the CPU and on the device from the same seed and synthetic batches, and compares the\n"
    "forward outputs, one training step's parameter updates and a training run's losses;\n"
    "on the device, a step must be one CUDA graph launch without host synchronisation.\n"
    "Exit codes: 0 passed, 1 failed, 2 bad command line, 77 skipped (no such device).\n";

} // namespace

int main(int argc, char **argv) {
  using namespace mpc;
  std::string models, jsonPath;
  bench::CheckOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if ((arg == "--device" || arg == "--steps" || arg == "--json") && i + 1 >= argc) {
      std::cerr << "mpc-gpu-check: error: " << arg << " needs a value\n" << kUsage;
      return 2;
    }
    if (arg == "--device") {
      options.device = argv[++i];
    } else if (arg == "--steps") {
      options.curveSteps = std::atoi(argv[++i]);
      if (options.curveSteps < 1) {
        std::cerr << "mpc-gpu-check: error: --steps expects a positive integer\n";
        return 2;
      }
    } else if (arg == "--json") {
      jsonPath = argv[++i];
    } else if (models.empty() && (arg.empty() || arg[0] != '-')) {
      models = arg;
    } else {
      std::cerr << "mpc-gpu-check: error: unexpected argument '" << arg << "'\n" << kUsage;
      return 2;
    }
  }
  if (models.empty()) {
    std::cerr << "mpc-gpu-check: error: no model list given\n" << kUsage;
    return 2;
  }
  if (rt::Status status = rt::checkDevice(options.device); !status.isOk()) {
    std::cout << "SKIPPED: " << status.message() << "\n";
    if (!jsonPath.empty())
      std::ofstream(jsonPath) << "{\"device\": \"" << options.device
                              << "\", \"skipped\": true, \"reason\": "
                              << rt::quoteJson(status.message()) << "}\n";
    return 77;
  }
  std::vector<bench::CheckCase> cases;
  if (rt::Status status = bench::readModelList(models, cases); !status.isOk()) {
    std::cerr << "mpc-gpu-check: error: " << status.message()
              << " (bench/gpu/prepare.sh writes it with the bundles)\n";
    return 1;
  }
  std::vector<bench::CaseReport> reports;
  bool passed = true;
  for (const bench::CheckCase &check : cases) {
    bench::CaseReport report = bench::checkCase(check, options);
    std::cout << (report.passed() ? "PASS" : "FAIL") << ": " << report.name << " ("
              << report.precision << ")\n";
    if (!report.error.empty())
      std::cout << "  error: " << report.error << "\n";
    for (const bench::Measure &measure : report.measures)
      std::cout << "  " << (measure.passed() ? "ok  " : "FAIL") << " " << measure.what << ": "
                << measure.error << " (tolerance " << measure.tolerance << ")"
                << (measure.elements ? "" : "; nothing compared") << "\n";
    passed &= report.passed();
    reports.push_back(std::move(report));
  }
  std::string json = bench::reportJson(options.device, reports);
  if (!jsonPath.empty()) {
    std::ofstream file(jsonPath);
    file << json;
  }
  return passed ? 0 : 1;
}
