//===- RunLog.h - the JSONL log of a training run ---------------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Reads what `mpc train --log` writes: one JSON object per step ("step",
// "loss", and when the step has them "lr", "loss_scale", "skipped",
// "grad_nonzero", "grad_fp16_flush_fraction", "grad_exponent_counts"), then
// a summary object ("summary": true). For `mpc plot` and the HTML report.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DRIVER_RUNLOG_H
#define MPC_COMPILER_DRIVER_RUNLOG_H

#include "llvm/Support/Error.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mpc::driver {

struct LoggedStep {
  int64_t step = 0;
  double loss = NAN;
  double lossScale = NAN;
  bool skipped = false;
  /// With --grad-stats: the count of gradient values with 2^e <= |g| <
  /// 2^(e+1), by e (the lowest bucket also holds everything smaller).
  std::map<int, int64_t> gradExponentCounts;
};

struct RunLog {
  /// The file's name without folders and extension ("fp16" for
  /// runs/fp16.jsonl), used as the run's label.
  std::string name;
  std::vector<LoggedStep> steps;
  /// From the summary line, when present.
  double evalAccuracy = NAN;
};

/// Reads the log at `path`; errors name the file and line.
llvm::Expected<RunLog> readRunLog(const std::string &path);

} // namespace mpc::driver

#endif // MPC_COMPILER_DRIVER_RUNLOG_H
