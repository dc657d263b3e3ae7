//===- CpuBackend.h - running programs on the host ------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The CPU backend keeps the arena and persistent memory in host memory
// (256-byte aligned, zeroed), runs kernels from the bundle's host object,
// GEMMs with OpenBLAS (HostGemm.h) and copies with memcpy. It takes the
// manifest's relu_grad hints (the launch after the GEMM runs inside it) and
// the im2col_b hints of f16 columns (the launch before it is skipped and
// the GEMM's fp32 columns are gathered from the image, HostIm2col.h), in
// memory of its own counted in its device bytes; MPC_CPU_GEMM_HINTS=0 in
// the environment leaves both out. Kernel pointer
// tables and step operands are resolved once, at creation. A run is done
// when run() returns, and its telemetry is collected at once. For the
// benchmarks, timeCpuSteps times each step of the program where it runs.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_BACKENDS_CPU_CPUBACKEND_H
#define MPC_RUNTIME_BACKENDS_CPU_CPUBACKEND_H

#include "Backend.h"
#include "mpc/format/Bundle.h"
#include "mpc/format/Manifest.h"

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

/// One step of a CPU backend's program timed where it runs in the step.
struct CpuStepTiming {
  /// The step's index in the manifest.
  size_t step = 0;
  /// "kernel k3", "gemm 64x128x64 f16*f16->f16 bias_relu" (m x n x k, a
  /// transposed operand marked ^T) or "copy 8 bytes".
  std::string what;
  /// The median over the runs, in microseconds.
  double microseconds = 0;
};

/// Performs a CPU backend's whole program `runs` more times, run r on the
/// inputs of batches[r % batches.size()] (copied in untimed, as run() would),
/// timing every step on its own: one entry per step the backend runs, in
/// order (a launch that a GEMM's hint stands for has none). Parameters
/// and state change as in a run, but the runs are not counted and record no
/// telemetry (for the benchmarks). MPC_UNSUPPORTED for another backend.
Status timeCpuSteps(Backend &backend, const std::vector<std::vector<InputBytes>> &batches,
                    int runs, std::vector<CpuStepTiming> &out);

} // namespace mpc::rt

#endif // MPC_RUNTIME_BACKENDS_CPU_CPUBACKEND_H
