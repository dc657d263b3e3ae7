//===- OptimizerOptions.h - --lr, --optimizer-arg and more ------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The optimizer's hyper-parameters and learning-rate schedule from the
// command line of mpc compile, mpc train and mpc report, replacing what the graph's
// mpg.minimize says (CompileOptions::optimizerArgs).
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DRIVER_OPTIMIZEROPTIONS_H
#define MPC_COMPILER_DRIVER_OPTIMIZEROPTIONS_H

#include "compiler/Driver/ArgParser.h"

#include <string>
#include <utility>
#include <vector>

namespace mpc::driver {

void addOptimizerOptions(ArgParser &parser);

/// Reads --optimizer-arg NAME=VALUE (each), then --lr, --clip-grad-norm and
/// --accumulate, into `args`; a value that is not a finite number is reported and returns false.
/// The names are checked when the graph's optimizer is.
bool readOptimizerOptions(const ArgParser &parser,
                          std::vector<std::pair<std::string, double>> &args);

} // namespace mpc::driver

#endif // MPC_COMPILER_DRIVER_OPTIMIZEROPTIONS_H
