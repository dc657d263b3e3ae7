//===- TrainingLoop.h - the steps of `mpc train` -----------------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// One step per batch; batches are consecutive slices of a permutation of the
// data drawn for each epoch from --seed and the epoch's number, so a run
// resumed from a checkpoint sees the batches an uninterrupted run would (the
// last partial batch of an epoch is dropped). A worker thread gathers the
// next batch while the step runs (BatchPrefetcher.h). The log and the progress line
// read each step's telemetry as the step completes: on a GPU the loop never
// waits for the device except when it runs the runtime's limit of steps
// ahead. Every --eval-every or --save-every steps it waits for the step,
// then evaluates or writes a checkpoint; it stops when --max-floor-steps
// steps in a row were skipped at one loss scale.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DRIVER_TRAININGLOOP_H
#define MPC_COMPILER_DRIVER_TRAININGLOOP_H

#include "compiler/Data/BatchBinder.h"
#include "compiler/Driver/NumericsCheck.h"
#include "compiler/Driver/StepTelemetry.h"
#include "compiler/Driver/TrainOptions.h"

#include "mpc/runtime.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <functional>

namespace mpc::driver {

/// What the steps left: the last step's loss, the steps loss scaling skipped
/// in this run, and how long the run took.
struct TrainingResult {
  double loss = 0;
  int64_t skippedSteps = 0;
  double seconds = 0;
  /// The program counts skipped steps (it has loss scaling).
  bool countsSkips = false;
  /// The step counter after the run.
  uint64_t lastStep = 0;
};

/// Evaluates the program as it stands after step `step` and reports it
/// (--eval-every).
using PeriodicEvaluation = std::function<llvm::Error(uint64_t step)>;

/// Runs `options.steps` steps of the training step `program` from where its
/// step counters stand (0, or a checkpoint's), binding batches of `binder`'s
/// data, writing a line per step to `log` when it is not null and drawing
/// progress on stderr; with options.evalEvery, calls `evaluate` every so
/// many steps but the last. In a data-parallel `job` of several ranks, each
/// rank takes its part of every batch (options.rank of options.ranks), and
/// rank 0 alone writes checkpoints, after checking that the ranks agree. A
/// failure (a non-finite loss included) is an
/// error that says what happened; with `numerics`, every run waits for the
/// device, and the error of a non-finite loss is the check's report.
llvm::Expected<TrainingResult>
runTrainingSteps(mpc_program *program, mpc::BatchBinder &binder, const StepTelemetry &telemetry,
                 llvm::raw_ostream *log, const TrainOptions &options, mpc_job *job,
                 const PeriodicEvaluation &evaluate = {}, NumericsCheck *numerics = nullptr);

} // namespace mpc::driver

#endif // MPC_COMPILER_DRIVER_TRAININGLOOP_H
