//===- PrecisionOptions.h - --precision and --loss-scale ---------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The options of mpc compile, train and report that choose mixed precision
// and loss scaling, declared and read in one place.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DRIVER_PRECISIONOPTIONS_H
#define MPC_COMPILER_DRIVER_PRECISIONOPTIONS_H

#include "compiler/Driver/ArgParser.h"
#include "passes/Passes.h"

namespace mpc::driver {

/// Declares --precision and --loss-scale.
void addPrecisionOptions(ArgParser &parser);

/// Reads them into `config`; on a bad --loss-scale spec, reports it and
/// returns false.
bool readPrecisionOptions(const ArgParser &parser, mpc::PrecisionConfig &config);

} // namespace mpc::driver

#endif // MPC_COMPILER_DRIVER_PRECISIONOPTIONS_H
