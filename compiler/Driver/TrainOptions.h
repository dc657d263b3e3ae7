//===- TrainOptions.h - the command line of `mpc train` ----------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// `mpc train`'s options, parsed and checked before anything is loaded or
// compiled: numbers, the device, the folders outputs go to, the exclusive
// evaluation options, and the options that a bundle fixed when it was
// compiled.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DRIVER_TRAINOPTIONS_H
#define MPC_COMPILER_DRIVER_TRAINOPTIONS_H

#include "compiler/Compile/Compile.h"
#include "compiler/Frontend/OnnxImporter.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mpc::driver {

struct TrainOptions {
  /// The graph file or training-step bundle, and the forward-step bundle
  /// given with --forward (empty: none).
  std::string source, forwardBundle;
  /// Whether `source` is a bundle (else a graph to compile).
  bool givenBundle = false;
  /// How an .onnx source becomes a training graph (--batch, --loss, ...).
  mpc::OnnxImportOptions onnx;
  /// How a graph is compiled: its training step (the forward step takes the
  /// same precision and working copies).
  mpc::CompileOptions compile;
  std::string dataSpec, evalSpec;
  /// --holdout: examples of --data kept out for evaluation (0: none).
  int64_t holdout = 0;
  uint64_t steps = 100, seed = 0;
  std::string device;
  std::string logPath, savePath, initPath;
  bool shuffle = true, progress = true;
  /// --check-numerics: find the op behind a loss that is not finite
  /// (NumericsCheck.h).
  bool checkNumerics = false;
  /// --eval-every and --save-every: every so many steps (counted over the
  /// whole training, as the log counts them), evaluate or write a periodic
  /// checkpoint; 0: never.
  uint64_t evalEvery = 0, saveEvery = 0;
  /// --keep-checkpoints: how many of this run's periodic checkpoints stay.
  uint64_t keepCheckpoints = 3;
  /// --max-floor-steps: stop after this many consecutive skipped steps at
  /// one loss scale (0: never).
  uint64_t maxFloorSteps = 100;
  /// Runs of the program per step: its micro-batches when it accumulates
  /// gradients (the state "grad_accum.runs", from --accumulate), else 1.
  /// Read from the program, not the command line.
  uint64_t runsPerStep = 1;
  /// This process's rank and the number of ranks of its data-parallel job
  /// (DataParallel.h); from the launcher, not the command line.
  int rank = 0, ranks = 1;
};

/// Where --save-every writes the checkpoint of `step`: `savePath` with
/// ".stepN" before its extension ("ckpt.safetensors" -> "ckpt.step200.safetensors").
std::string periodicCheckpointPath(const std::string &savePath, uint64_t step);

/// Parses `mpc train`'s arguments into `options`. Returns the exit code to
/// end the command with (after --help, or a wrong command line, reported),
/// or nothing to go on.
std::optional<int> parseTrainOptions(llvm::ArrayRef<std::string> args, TrainOptions &options);

} // namespace mpc::driver

#endif // MPC_COMPILER_DRIVER_TRAINOPTIONS_H
