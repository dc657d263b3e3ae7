//===- TrainingPlots.h - the charts of training runs ------------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// From the logs of `mpc train --log` (RunLog.h), as SVG (SvgChart.h):
//   - the loss curves of several runs on one chart (fp32 vs fp16 vs fp16
//     without loss scaling, say);
//   - the loss scale of each run over the steps, skipped steps marked;
//   - the paper's Figure 3: one step's gradient values by power of two
//     (from --grad-stats) against the range fp16 represents, as measured and
//     as the loss scale of that step shifts them.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DRIVER_TRAININGPLOTS_H
#define MPC_COMPILER_DRIVER_TRAININGPLOTS_H

#include "compiler/Driver/RunLog.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace mpc::driver {

std::string lossCurvesSvg(const std::vector<RunLog> &runs);

/// An error when no run has a loss scale (bf16 and fp32 runs have none).
llvm::Expected<std::string> lossScaleSvg(const std::vector<RunLog> &runs);

/// The histogram of step `step` of `run` (the last step with gradient
/// counts when not given); an error when the run has none (train with
/// --grad-stats).
llvm::Expected<std::string> gradientHistogramSvg(const RunLog &run, std::optional<int64_t> step);

} // namespace mpc::driver

#endif // MPC_COMPILER_DRIVER_TRAININGPLOTS_H
