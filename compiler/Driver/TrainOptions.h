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
};

/// Parses `mpc train`'s arguments into `options`. Returns the exit code to
/// end the command with (after --help, or a wrong command line, reported),
/// or nothing to go on.
std::optional<int> parseTrainOptions(llvm::ArrayRef<std::string> args, TrainOptions &options);

} // namespace mpc::driver

#endif // MPC_COMPILER_DRIVER_TRAINOPTIONS_H
