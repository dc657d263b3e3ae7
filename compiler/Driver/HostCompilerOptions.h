//===- HostCompilerOptions.h - --host-cxx, --host-arch, ... ------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The options of mpc compile and train that choose how the CPU backend's
// kernels are compiled. Each defaults to its environment variable
// (MPC_HOST_CXX, MPC_HOST_ARCH, MPC_HOST_KERNEL_FORM).
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DRIVER_HOSTCOMPILEROPTIONS_H
#define MPC_COMPILER_DRIVER_HOSTCOMPILEROPTIONS_H

#include "compiler/CodeGen/KernelCompiler.h"
#include "compiler/Driver/ArgParser.h"

namespace mpc::driver {

/// Declares --host-cxx, --host-arch and --host-kernel-form.
void addHostCompilerOptions(ArgParser &parser);

/// The settings the command line gives, over those of the environment.
mpc::HostCompilerOptions readHostCompilerOptions(const ArgParser &parser);

} // namespace mpc::driver

#endif // MPC_COMPILER_DRIVER_HOSTCOMPILEROPTIONS_H
