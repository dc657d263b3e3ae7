//===- CudaBackend.h - running programs on an NVIDIA GPU ------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The CUDA backend keeps the arena (with cuBLASLt's workspace after it),
// persistent memory and the kernels' buffer tables in device memory, loads
// the generated kernels from the bundle's cubin or PTX for the GPU (or
// compiles their source with NVRTC, KernelImage.h), runs GEMM steps with
// cuBLASLt (GemmPlan.h) and copies with the driver.
//
// A run is one CUDA graph launch. At load the backend captures the whole
// run — copying the inputs in from pinned host memory, every step, and
// copying the telemetry outputs out to pinned host memory — into a graph,
// once for each of kRunsInFlight staging slots (a graph's addresses are
// fixed, so each slot has its own). run() copies the inputs into the next
// slot, launches that slot's graph and records an event; it waits only when
// all slots are busy (the GPU is that many runs behind) for the oldest run
// to finish. The loss-scale check, the skipped update and the scale's
// update are kernels of the step, so nothing needs the host between runs:
// a training loop makes no host synchronisation per step, and reads each
// run's telemetry once that run's event has completed.
//
// Every call makes the GPU's primary context current, so a program may be
// used from one thread at a time, not necessarily always the same one.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_BACKENDS_CUDA_CUDABACKEND_H
#define MPC_RUNTIME_BACKENDS_CUDA_CUDABACKEND_H

#include "Backend.h"
#include "mpc/format/Bundle.h"
#include "mpc/format/Manifest.h"

#include <memory>
#include <string>
#include <vector>

namespace mpc::rt {

/// Runs enqueued before run() waits for the oldest (staging slots).
constexpr int kRunsInFlight = 3;

/// Bytes of cuBLASLt workspace after the arena of a program with GEMMs.
constexpr uint64_t kGemmWorkspaceBytes = 4u << 20;

// GEMM algorithms: at load, each kind of GEMM step (its plan, operand
// alignment and workspace) times cuBLASLt's first kMaxGemmCandidates
// heuristic choices, each in a CUDA graph of 8 calls writing a scratch
// result, three times interleaved, and keeps the fastest for the process
// where it beats the heuristic's first choice by 2%; a kind whose first
// choice takes over 0.25 ms a call keeps that one. MPC_GEMM_AUTOTUNE=0 in
// the environment keeps the heuristic's first choice for the kinds the
// process has not timed yet. Algorithms may round differently, so the
// choice can differ between processes in the last bits of results;
// MPC_GEMM_AUTOTUNE=0 gives every process the heuristic's choices.

/// OK when `device` ("cuda" or "cuda:N") can run programs: the CUDA
/// libraries load (loadCudaApi), the driver initialises and has that GPU.
/// MPC_UNSUPPORTED otherwise, with a message that says what is missing and
/// suggests device "cpu".
Status checkCudaDevice(const std::string &device);

/// Creates the CUDA backend of `manifest` (verified) for config.device.
Status createCudaBackend(const std::string &bundlePath, const Manifest &manifest,
                         const std::vector<BundleSection> &sections,
                         const BackendConfig &config, std::unique_ptr<Backend> &out);

/// One GEMM step timed on its own, for the benchmarks.
struct GemmTiming {
  size_t step = 0;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  std::string types;
  /// Milliseconds per call with the algorithm and workspace the step uses.
  double stepMs = 0;
  /// The fastest of cuBLASLt's top heuristic choices for the same operands,
  /// with a 32 MiB workspace.
  double bestMs = 0;
  int algorithmsTried = 0;
  /// How the step's algorithm was chosen (GemmCall::algorithmSource).
  std::string algorithm;
};

/// Times every GEMM step of a CUDA backend's program on the program's own
/// buffers, on the GPU alone: `repetitions` calls captured into a CUDA
/// graph, launched once to warm up and once timed (a call enqueued from the
/// host costs microseconds, as long as a small GEMM takes); MPC_UNSUPPORTED
/// for another backend. A step that accumulates into C (beta: a momentum buffer) does
/// so on every call, so the program's state is not that of its last step
/// afterwards (mpc-bench times the GEMMs after its steps).
Status timeGemmSteps(Backend &backend, int repetitions, std::vector<GemmTiming> &out);

/// One step of a CUDA backend's program timed on its own, for the
/// benchmarks' per-step breakdown.
struct DeviceStepTiming {
  /// The step's index in the manifest.
  size_t step = 0;
  /// "kernel k3", "gemm 64x128x64 f16*f16->f16" (describeGemm) or "copy 8
  /// bytes", as CpuStepTiming names a step.
  std::string what;
  /// Milliseconds per call.
  double ms = 0;
};

/// Times every step of a CUDA backend's program but its all-reduces on the
/// program's own buffers, each alone as timeGemmSteps times a GEMM:
/// `repetitions` calls in a CUDA graph. A step that updates state in place
/// (an optimizer's update, the loss scaler) does so on every call, so the
/// program's state is not that of its last step afterwards.
/// MPC_UNSUPPORTED for another backend.
Status timeDeviceSteps(Backend &backend, int repetitions, std::vector<DeviceStepTiming> &out);

} // namespace mpc::rt

#endif // MPC_RUNTIME_BACKENDS_CUDA_CUDABACKEND_H
