//===- CudaEmitter.h - mpk programs as CUDA C++ -----------------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Prints the generated kernels of an mpk.program as one CUDA C++ translation
// unit written against the device helper headers (runtime/device). The same
// text compiles with NVRTC for the GPU and with the host compiler for the
// CPU backend. Each kernel follows the ABI of runtime/device/README.md: its
// only parameter is a table of buffer pointers, sizes are literals.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_CODEGEN_CUDAEMITTER_H
#define MPC_COMPILER_CODEGEN_CUDAEMITTER_H

#include "dialects/mpk/IR/MpkOps.h"

#include <map>
#include <string>
#include <vector>

namespace mpc {

/// What the runtime needs to launch one generated kernel.
struct KernelLaunch {
  /// The kernel function launched. Ops whose kernels are the same code (a
  /// repeated layer's) launch one function, each with its own buffers.
  std::string name;
  /// The mpk op this launch runs (its sym_name).
  std::string symbol;
  /// The kernel's buffer table, in order: mpk.buffer values.
  std::vector<mlir::Value> buffers;
  int64_t grid = 1;  // blocks (1-D)
  int64_t block = 1; // threads per block
};

/// The generated source of a program and its launches, in program order
/// (several may launch one kernel function).
struct GeneratedKernels {
  std::string source;
  std::vector<KernelLaunch> kernels;
  /// Kernels (by symbol) that run inside another one's launch: the
  /// consecutive parameter updates (`mpk.update`) of a step are one
  /// multi-tensor kernel named after the first of them.
  std::map<std::string, std::string> mergedInto;
};

/// Emits every generated kernel of `program`; library calls (mpk.gemm) and
/// copies are not kernels and are left to the runtime. Fails with an error
/// on the op that cannot be emitted.
mlir::FailureOr<GeneratedKernels> emitCuda(mlir::mpk::ProgramOp program);

} // namespace mpc

#endif // MPC_COMPILER_CODEGEN_CUDAEMITTER_H
