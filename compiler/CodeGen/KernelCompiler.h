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

/// The x86-64 level host kernels are compiled for: `$MPC_HOST_ARCH`
/// ("x86-64" or "x86-64-v3"), else x86-64-v3 (AVX2, FMA, F16C) when this CPU
/// has it, else x86-64. A bundle of x86-64-v3 kernels is refused at load on
/// a CPU without them (compile it with MPC_HOST_ARCH=x86-64 for such one).
llvm::Expected<std::string> hostArchitecture();

/// Compiles `source` with the host C++ compiler (`$MPC_HOST_CXX`, else
/// `c++`) into a shared object and returns its bytes. Pointwise kernels run
/// their host form, rows of contiguous elements; with
/// `$MPC_HOST_KERNEL_FORM=elements` they run the GPU's, one element per
/// index (what the tests' emulated GPU runs, to check the GPU's indexing).
/// With `fromCache`, says whether it came from the kernel cache.
llvm::Expected<std::string> compileForHost(const std::string &source, bool *fromCache = nullptr);

/// The directory compiled kernels are cached in: "kernels" inside the
/// runtime's cache folder (`$MPC_CACHE_DIR`, else `$XDG_CACHE_HOME/mpc`, else
/// `$HOME/.cache/mpc`, else a private folder in /tmp); empty when none can be
/// used, and then nothing is cached.
std::string kernelCacheDirectory();

} // namespace mpc

#endif // MPC_COMPILER_CODEGEN_KERNELCOMPILER_H
