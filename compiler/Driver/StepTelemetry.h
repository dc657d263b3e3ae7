//===- StepTelemetry.h - what `mpc train` logs of each step -----*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// A training step reports its loss, and when it has them its learning
// rate, the loss scale it used, whether it skipped its update, and counts
// of its gradients by magnitude (--grad-stats), as telemetry outputs: the
// runtime hands them back once the step has completed, without waiting for
// the device to go idle. This reads them and writes the JSONL log line.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DRIVER_STEPTELEMETRY_H
#define MPC_COMPILER_DRIVER_STEPTELEMETRY_H

#include "mpc/runtime.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace mpc::driver {

/// One step's telemetry; fields the step does not report stay NaN/empty.
struct StepValues {
  double loss = NAN;
  double lr = NAN;
  double lossScale = NAN;
  /// With gradient clipping: the global norm of the unscaled gradients.
  double gradNorm = NAN;
  bool skipped = false;
  /// With --grad-stats: the non-zero gradient values, and how many have
  /// |g| >= 2^k for k = -40, -39, ...
  double gradNonzero = 0;
  std::vector<float> gradAtLeast;
};

/// A number of a log line: JSON has no NaN or infinity, so a value that is
/// not finite (a diverged loss, an overflowing loss scale) is written null.
struct JsonNumber {
  double value;
};
llvm::raw_ostream &operator<<(llvm::raw_ostream &os, JsonNumber number);

class StepTelemetry {
public:
  /// Finds the telemetry outputs of training step `program`; an error when
  /// its loss is not one.
  static llvm::Expected<StepTelemetry> create(const mpc_program *program);

  /// Reads the telemetry of run `run`, which must have completed.
  llvm::Error read(mpc_program *program, uint64_t run, StepValues &out) const;

  /// Writes the log line of step `step`: {"step", "loss", ["lr",]
  /// ["loss_scale", "skipped",] ["grad_norm",] [gradient statistics,] "ms"}; numbers that
  /// are not finite as null.
  void writeLogLine(llvm::raw_ostream &os, uint64_t step, const StepValues &values,
                    double ms) const;

private:
  bool hasLr_ = false, hasLossScale_ = false, hasSkipped_ = false, hasGradStats_ = false,
       hasGradNorm_ = false;
  size_t gradBuckets_ = 0;
};

} // namespace mpc::driver

#endif // MPC_COMPILER_DRIVER_STEPTELEMETRY_H
