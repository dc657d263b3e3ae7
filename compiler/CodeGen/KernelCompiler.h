//===- KernelCompiler.h - compile generated kernels for each target -*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The same generated source is compiled by NVRTC for each requested GPU
// architecture (a cubin for sm_XX and PTX for compute_XX, so newer GPUs can
// JIT it; the runtime's NvrtcCompiler.h, which the CUDA backend also uses at
// load) and by the host C++ compiler into the CPU backend's shared object.
// Results are cached on disk (runtime/toolchain/include/mpc/toolchain/KernelCache.h), keyed by a hash of
// the source, the device headers, the options, the target, the compiler's
// identity and the version of mpc.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_CODEGEN_KERNELCOMPILER_H
#define MPC_COMPILER_CODEGEN_KERNELCOMPILER_H

#include "llvm/Support/Error.h"

#include <string>

namespace mpc {

/// Binaries of one source for one GPU architecture.
struct GpuBinary {
  std::string cubin; // for sm_XX
  std::string ptx;   // for compute_XX
};

/// Whether this build can compile for GPUs: it was built with the CUDA
/// toolkit and NVRTC loads.
bool haveNvrtc();

/// Compiles `source` for GPU architecture `arch` ("sm_80", "sm_90", ...).
/// On failure the error names the kernel the first error is in and holds
/// NVRTC's log.
/// With `fromCache`, says whether both came from the kernel cache.
llvm::Expected<GpuBinary> compileForGpu(const std::string &source, const std::string &arch,
                                        bool *fromCache = nullptr);

/// How the CPU backend's kernels are compiled. Each setting's default comes
/// from the environment, so a variable still applies where no option is
/// given.
struct HostCompilerOptions {
  /// The host C++ compiler, a name on PATH or a path ($MPC_HOST_CXX; empty:
  /// "c++").
  std::string compiler;
  /// The x86-64 level: "x86-64", "x86-64-v3" (AVX2, FMA, F16C) or
  /// "x86-64-v4" (AVX-512) ($MPC_HOST_ARCH; empty: the highest this CPU
  /// runs). A bundle's kernels are refused at load on a CPU below their level.
  std::string arch;
  /// "rows" (pointwise kernels walk rows of contiguous elements) or
  /// "elements" (the GPU's form, one element per index: what the tests'
  /// emulated GPU runs) ($MPC_HOST_KERNEL_FORM; empty: rows).
  std::string kernelForm;

  static HostCompilerOptions fromEnvironment();
};

/// The x86-64 level host kernels are compiled for (see
/// HostCompilerOptions::arch); an error for a level mpc does not know.
llvm::Expected<std::string>
hostArchitecture(const HostCompilerOptions &options = HostCompilerOptions::fromEnvironment());

/// Compiles `source` with the host C++ compiler into a shared object and
/// returns its bytes. With `fromCache`, says whether it came from the
/// kernel cache.
llvm::Expected<std::string>
compileForHost(const std::string &source, bool *fromCache = nullptr,
               const HostCompilerOptions &options = HostCompilerOptions::fromEnvironment());

/// The directory compiled kernels are cached in: "kernels" inside the
/// runtime's cache folder (`$MPC_CACHE_DIR`, else `$XDG_CACHE_HOME/mpc`, else
/// `$HOME/.cache/mpc`, else a private folder in /tmp); empty when none can be
/// used, and then nothing is cached.
std::string kernelCacheDirectory();

} // namespace mpc

#endif // MPC_COMPILER_CODEGEN_KERNELCOMPILER_H
