//===- BundleWriter.h - write a compiled program as one bundle --*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// A bundle holds everything the runtime needs to run one program: the
// manifest (buffers, inputs, outputs, parameters, constants, kernels, steps;
// runtime/format/include/mpc/format/Manifest.h), the generated CUDA C++ source, the host shared
// object for the CPU backend, a cubin and PTX per requested GPU
// architecture, and the constants' data. The container format is
// runtime/format/include/mpc/format/Bundle.h's; docs/bundle-format.md describes both.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_CODEGEN_BUNDLEWRITER_H
#define MPC_COMPILER_CODEGEN_BUNDLEWRITER_H

#include "compiler/CodeGen/CudaEmitter.h"
#include "compiler/CodeGen/KernelCompiler.h"

#include "mpc/format/HostTensor.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mpc {

/// The targets a bundle carries binaries for.
struct BundleTargets {
  bool cpu = true;
  std::vector<std::string> gpuArchs; // "sm_80", "sm_90", ...
  /// How the CPU target's kernels are compiled.
  HostCompilerOptions host = HostCompilerOptions::fromEnvironment();
};

/// Parses "cpu,sm_80,sm_90" (any order, at least one target).
llvm::Expected<BundleTargets> parseTargets(llvm::StringRef list);

/// Where writeProgramBundle spent its time: the kernels' compilation for
/// the host and the GPUs (or their reading from the kernel cache), which run
/// at the same time (`kernelSeconds` from the first's start to the last's
/// end), the rest.
struct BundleTimings {
  double hostSeconds = 0, gpuSeconds = 0, kernelSeconds = 0, otherSeconds = 0;
  bool hostCached = false, gpuCached = false;
};

/// The manifest's dtype of elements of `type` (f32 for a type it has none
/// for).
rt::DType manifestDtypeOf(mlir::Type type);

/// The manifest of `program` (runtime/format/include/mpc/format/Manifest.h) as the bundle would
/// hold it: JSON text, verified.
llvm::Expected<std::string> programManifest(mlir::mpk::ProgramOp program,
                                            const GeneratedKernels &kernels);

/// Compiles the kernels of `program` for `targets` and writes the bundle to
/// `path` atomically; with `timings`, records where the time went.
llvm::Error writeProgramBundle(mlir::mpk::ProgramOp program, const GeneratedKernels &kernels,
                               const BundleTargets &targets, const std::string &path,
                               BundleTimings *timings = nullptr);

} // namespace mpc

#endif // MPC_COMPILER_CODEGEN_BUNDLEWRITER_H
