//===- BackendCheck.h - a device's results against the CPU backend's -------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The GPU tests of bench/gpu/run.sh: for one model, its bundles (compiled
// elsewhere with --target cpu,sm_XX) run on the CPU backend and on the
// device from the same seed and synthetic batches, and compared:
//   - forward: every output of the forward step;
//   - gradients: the change one training step makes to every trainable
//     parameter where that is linear in the gradient (SGD), else the
//     gradient itself (Adam's first moment) and the change where the
//     gradient's sign is not in doubt (BackendCheck.cpp says why);
//   - curve: the losses of a short training run, and on the device one
//     graph launch per step and no host synchronisation in the loop;
//   - where the model comes with a float64 reference (GPT-2's, written by
//     bench/gpu/float64_reference.py), the device's forward outputs and
//     first SGD update on the reference's batch against it: an
//     independent check, not only one backend against the other.
// Each comparison is the largest difference relative to the largest
// magnitude (for gradients, at least a hundredth of the model's largest),
// against a tolerance for the model's precision (fp32 results differ only by
// summation order; fp16/bf16 ones by a few roundings).
//
//===----------------------------------------------------------------------===//

#ifndef MPC_BENCH_RUNTIME_BACKENDCHECK_H
#define MPC_BENCH_RUNTIME_BACKENDCHECK_H

#include "mpc/format/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mpc::bench {

/// A model's bundles.
struct CheckCase {
  std::string name;
  /// "fp32", "fp16" or "bf16": picks the tolerances.
  std::string precision;
  std::string trainBundle;
  /// Empty when the model has no forward bundle to check.
  std::string forwardBundle;
  /// Safetensors files, empty when none: parameters set after loading (an
  /// ONNX model's weights), and the float64 reference: inputs
  /// "input.NAME", forward outputs "forward.NAME" and SGD updates
  /// "update.PARAM".
  std::string weights, reference;
};

struct CheckOptions {
  std::string device = "cuda";
  int curveSteps = 40;
};

/// One comparison.
struct Measure {
  std::string what;
  double error = 0;
  double tolerance = 0;
  /// The pairs of values compared (1 for a count such as host syncs). A
  /// measure that compared none fails: it would pass whatever the device
  /// computed.
  uint64_t elements = 0;
  bool passed() const { return elements > 0 && error <= tolerance; }
};

struct CaseReport {
  std::string name;
  std::string precision;
  std::vector<Measure> measures;
  std::vector<float> cpuLosses, deviceLosses;
  int steps = 0;
  uint64_t graphLaunches = 0, hostSyncsInLoop = 0;
  /// Set when the case could not be run at all.
  std::string error;
  bool passed() const;
};

/// Runs every comparison of `check` on `options.device`.
CaseReport checkCase(const CheckCase &check, const CheckOptions &options);

/// How far `device` is from `cpu`: the largest |cpu - device| over their
/// finite elements, relative to the larger of the largest finite |cpu| and
/// `floor`; infinite where the sizes differ or an element is not finite on
/// one side only, or NaN against an infinity, or infinities of other signs.
double relativeError(const std::vector<double> &cpu, const std::vector<double> &device,
                     double floor = 0);

/// The reports as a JSON object: {"device": ..., "passed": ..., "cases": [...]}.
std::string reportJson(const std::string &device, const std::vector<CaseReport> &reports);

/// Reads the model list bench/gpu/prepare.sh writes: one model per line,
/// "NAME<TAB>PRECISION<TAB>TRAIN.mpcb<TAB>FORWARD.mpcb", optionally followed
/// by "<TAB>WEIGHTS<TAB>REFERENCE" (paths relative to the list's folder; "-"
/// for none; '#' starts a comment line).
rt::Status readModelList(const std::string &path, std::vector<CheckCase> &out);

} // namespace mpc::bench

#endif // MPC_BENCH_RUNTIME_BACKENDCHECK_H
