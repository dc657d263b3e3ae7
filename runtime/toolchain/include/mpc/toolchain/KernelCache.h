//===- KernelCache.h - compiled kernels cached on disk by what they are made of ===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Compiling generated kernels (NVRTC for a GPU architecture, the host C++
// compiler for the CPU backend) takes long enough to be worth doing once.
// Both the compiler (`mpc compile`) and the runtime (NVRTC at load, for a
// GPU the bundle has no binary of) keep the results in the folder "kernels"
// of the object cache (ObjectCache.h), each under a key that digests
// everything the binary depends on: the source, the compiler and its
// version, the options, the target, the device helper headers the source
// includes and the version of mpc. A change to any of them gives another
// key, so a stale binary is never found; entries are written atomically.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_TOOLCHAIN_KERNELCACHE_H
#define MPC_TOOLCHAIN_KERNELCACHE_H

#include <string>
#include <vector>

namespace mpc::rt {

/// 16 hex digits of a digest of `parts` (each delimited, so that
/// {"ab", "c"} and {"a", "bc"} differ), of mpc's version and of the names
/// and contents of the device helper headers.
std::string kernelCacheKey(const std::vector<std::string> &parts);

/// The cache folder of compiled kernels, created when missing; "" when
/// there is no usable cache folder (the cache is then skipped).
std::string kernelCacheDirectory();

/// Reads the entry `name` (a key and an extension, e.g. "0123...cdef.cubin")
/// into `bytes`; false when the cache has no such entry.
bool readCachedKernel(const std::string &name, std::string &bytes);

/// Stores `bytes` as entry `name`, atomically. The cache is an
/// optimisation: a failure to write it is ignored.
void writeCachedKernel(const std::string &name, const std::string &bytes);

} // namespace mpc::rt

#endif // MPC_TOOLCHAIN_KERNELCACHE_H
