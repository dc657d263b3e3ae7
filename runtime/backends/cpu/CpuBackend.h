//===- CpuBackend.h - running programs on the host ------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The CPU backend keeps the arena and persistent memory in host memory
// (256-byte aligned, zeroed), runs kernels from the bundle's host object,
// GEMMs with OpenBLAS (HostGemm.h) and copies with memcpy. Kernel pointer
// tables and step operands are resolved once, at creation. A run is done
// when run() returns, and its telemetry is collected at once.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_BACKENDS_CPU_CPUBACKEND_H
#define MPC_RUNTIME_BACKENDS_CPU_CPUBACKEND_H

#include "Backend.h"
#include "Bundle.h"
#include "Manifest.h"

#include <memory>
#include <string>
#include <vector>

namespace mpc::rt {

/// Creates the CPU backend of `manifest` (a verified manifest) read from the
/// bundle at `bundlePath` with `sections`, which must hold the host object
/// when the program has kernels. Runs complete before run() returns.
Status createCpuBackend(const std::string &bundlePath, const Manifest &manifest,
                        const std::vector<BundleSection> &sections,
                        const BackendConfig &config, std::unique_ptr<Backend> &out);

} // namespace mpc::rt

#endif // MPC_RUNTIME_BACKENDS_CPU_CPUBACKEND_H
