//===- Backend.h - where a loaded program's memory lives and steps run ----===//
//
// Part of mpc, a mixed-precision training compiler.
//
// A Program (Program.h) does what every backend shares: reading the bundle,
// initialising parameters, binding inputs and outputs by name, checkpoints,
// the ring of telemetry records. A backend owns the program's two memory
// spaces and runs its steps. The ranges passed to it have been checked
// against the manifest.
//
// Runs may be asynchronous (the CUDA backend enqueues them and returns):
// run() takes the inputs by value (the backend copies them before it
// returns), read() and write() wait for the runs in flight, and the
// telemetry of each run — the bytes of a few small outputs, chosen at
// creation — is handed back by collect() once the run has completed,
// without waiting for later runs.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_BACKEND_H
#define MPC_RUNTIME_BACKEND_H

#include "mpc/format/Manifest.h"
#include "mpc/format/Status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mpc::rt {

class Collective;

/// Host bytes for one input of a run.
struct InputBytes {
  BufferRef buffer;
  const void *data = nullptr;
  size_t bytes = 0;
};

/// A run's telemetry: the bytes of the telemetry outputs, concatenated in
/// the order of BackendConfig::telemetry.
struct TelemetryRecord {
  /// The run's number, counting from 0 at load.
  uint64_t run = 0;
  std::vector<uint8_t> bytes;
};

/// What a backend is created with besides the manifest.
struct BackendConfig {
  /// "cpu", "cuda" or "cuda:N" (the backend's own part of it).
  std::string device = "cpu";
  /// The outputs each run reports as telemetry, in order.
  std::vector<TensorSpec> telemetry;
  /// The job that all_reduce steps reduce over (owned by the program);
  /// null when the manifest has none.
  Collective *collective = nullptr;
};

/// Counters of a backend's work, for benchmarks and tests.
struct BackendStats {
  /// Runs started since load.
  uint64_t runs = 0;
  /// CUDA graphs launched (one per run on the CUDA backend, 0 on the CPU).
  uint64_t graphLaunches = 0;
  /// Times the host waited for the device to finish all its work (a read or
  /// write of memory, collect with wait); 0 on the CPU.
  uint64_t hostSyncs = 0;
  /// Times run() waited for the oldest run in flight to free its staging
  /// slot (the device is that many runs behind the host); 0 on the CPU.
  uint64_t throttleWaits = 0;
  /// Bytes of device memory the backend allocated (the CPU backend's host
  /// memory on the CPU).
  uint64_t deviceBytes = 0;
  /// The device, e.g. "cpu" or "cuda:0 (NVIDIA H200, sm_90)".
  std::string device;
};

class Backend {
public:
  virtual ~Backend() = default;

  /// Copies `size` bytes from host memory at `data` to `at`, after the runs
  /// in flight.
  virtual Status write(const BufferRef &at, const void *data, size_t size) = 0;

  /// Copies `size` bytes at `at` to host memory at `data`, after the runs in
  /// flight.
  virtual Status read(const BufferRef &at, void *data, size_t size) = 0;

  /// Starts one run: copies `inputs` (one per manifest input, in order) into
  /// the arena, then performs the manifest's steps in order.
  virtual Status run(const std::vector<InputBytes> &inputs) = 0;

  /// Appends to `out`, in run order, the telemetry of the runs that have
  /// completed since the last call; with `wait`, first waits for every run
  /// in flight. A run that failed on the device fails the call.
  virtual Status collect(bool wait, std::vector<TelemetryRecord> &out) = 0;

  virtual BackendStats stats() const = 0;
};

} // namespace mpc::rt

#endif // MPC_RUNTIME_BACKEND_H
