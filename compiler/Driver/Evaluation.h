//===- Evaluation.h - `mpc train`'s evaluation of the trained step -*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// After training, the forward step takes the trained parameters and state
// and runs over the evaluation data: the loss is the mean of the full
// batches' losses; the accuracy (where the step has an f32 output "logits"
// of [rows, classes]) counts every example, the last partial batch being
// filled up with examples from the start whose predictions are not counted.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DRIVER_EVALUATION_H
#define MPC_COMPILER_DRIVER_EVALUATION_H

#include "compiler/Data/BatchBinder.h"

#include "mpc/runtime.h"

#include "llvm/Support/Error.h"

#include <cmath>

namespace mpc::driver {

struct EvaluationResult {
  double loss = NAN;
  /// NaN where the step has no "logits" to count predictions of.
  double accuracy = NAN;
};

/// Copies the parameters and state of `trained` (working copies follow
/// their parameters) into `forward`, then evaluates it on `binder`'s data.
/// With a `job` of several ranks, each rank evaluates every N-th batch and
/// the sums are reduced: every rank returns the same result.
llvm::Expected<EvaluationResult> evaluateTrainedStep(const mpc_program *trained,
                                                     mpc_program *forward, mpc::BatchBinder &binder,
                                                     mpc_job *job = nullptr);

} // namespace mpc::driver

#endif // MPC_COMPILER_DRIVER_EVALUATION_H
