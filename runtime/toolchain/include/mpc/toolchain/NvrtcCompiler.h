//===- NvrtcCompiler.h - generated kernels to GPU binaries with NVRTC -----===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The one place that runs NVRTC on generated kernels: `mpc compile
// --target sm_XX` calls it to put a cubin and PTX into a bundle, and the
// CUDA backend calls it at load for a device whose architecture the bundle
// has no binary of. The device helper headers are handed to NVRTC as named
// headers ("mpc/device/types.cuh", ...), so an error points at a real file
// and line. Results are cached on disk (KernelCache.h), keyed by the source,
// the target, the options and NVRTC's version.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_TOOLCHAIN_NVRTCCOMPILER_H
#define MPC_TOOLCHAIN_NVRTCCOMPILER_H

#include "mpc/toolchain/CudaApi.h"
#include "mpc/format/Status.h"

#include <string>
#include <vector>

namespace mpc::rt {

/// The options of every NVRTC compilation for `target`.
std::vector<std::string> nvrtcOptions(const std::string &target);

/// "MAJOR.MINOR" of `nvrtc`.
std::string nvrtcVersionString(const NvrtcApi &nvrtc);

/// The kernel-cache entry name of `source` compiled for `target` by NVRTC
/// `version`: the key (KernelCache.h) plus ".cubin" or ".ptx".
std::string nvrtcCacheEntry(const std::string &source, const std::string &target,
                            const std::string &version);

/// Compiles the generated kernels `source` for `target`: "sm_XX" gives a
/// cubin, "compute_XX" PTX. The result comes from the kernel cache when it
/// holds it (`fromCache`, when given, tells). On a compile error the
/// MPC_FORMAT_ERROR message names the target, the kernel holding the first
/// error and NVRTC's log; a target that is neither form is
/// MPC_INVALID_ARGUMENT.
Status compileWithNvrtc(const NvrtcApi &nvrtc, const std::string &source,
                        const std::string &target, std::string &binary,
                        bool *fromCache = nullptr);

} // namespace mpc::rt

#endif // MPC_TOOLCHAIN_NVRTCCOMPILER_H
