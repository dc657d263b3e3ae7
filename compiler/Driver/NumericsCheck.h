//===- NumericsCheck.h - `mpc train --check-numerics` ------------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// With --check-numerics every run of the training step waits for the device
// and keeps a copy of the parameters it starts from and of its batch's
// examples. When a run's loss is not finite, the check reruns that run's
// forward pass from the kept parameters, in the training's precision, with
// every op's value stored and read back (NumericsProbes.h; dropout draws
// the run's own masks: the check keys it with the training step's seed and
// run counter), and reports the
// first value that is not finite: the op, its source location, its
// precision, how many of its elements are NaN or infinite, and the range
// of each operand. A parameter that is not finite before the run (an
// earlier update or the checkpoint made it so) is reported instead. The
// check's program is compiled and loaded when training starts; it keeps
// every op's value, so it needs more memory than the forward step.
//
// Each op's value is stored in its storage type, so an op whose value
// leaves that type's range is found even where fusion would have kept the
// value in fp32 registers inside one kernel.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DRIVER_NUMERICSCHECK_H
#define MPC_COMPILER_DRIVER_NUMERICSCHECK_H

#include "compiler/Data/BatchBinder.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Driver/NumericsProbes.h"
#include "compiler/Driver/TrainOptions.h"

#include "mpc/runtime.h"

#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mpc::driver {

class NumericsCheck {
public:
  /// Compiles the forward step of `options.source` (a graph) with every
  /// op's value as an output into `dir` and loads it on `options.device`;
  /// `data` is the training data, which the check binds again.
  static llvm::Expected<std::unique_ptr<NumericsCheck>>
  create(const TrainOptions &options, llvm::StringRef dir, const mpc::Dataset &data);

  /// Keeps what the next run of `training` starts from: its parameters and
  /// the examples of its batch (`batchSize` of them).
  llvm::Error keepStart(const mpc_program *training, const int64_t *examples);

  /// The error that ends the run whose loss was `loss` at step `step`: the
  /// kept run's forward pass again, and the first value that is not finite.
  llvm::Error diagnose(uint64_t step, double loss);

private:
  NumericsCheck(ProgramHandle program, mpc::BatchBinder binder, std::vector<NumericsProbe> probes)
      : program(std::move(program)), binder(std::move(binder)), probes(std::move(probes)) {}

  ProgramHandle program;
  mpc::BatchBinder binder;
  std::vector<NumericsProbe> probes;
  /// The kept parameters (by name) and examples.
  std::map<std::string, std::vector<char>> params;
  std::vector<int64_t> examples;
};

} // namespace mpc::driver

#endif // MPC_COMPILER_DRIVER_NUMERICSCHECK_H
