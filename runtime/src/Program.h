//===- Program.h - a loaded bundle, ready to run --------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The C++ side of mpc_program (mpc/runtime.h). Loading reads the bundle,
// parses and verifies its manifest, creates the backend (memory, kernels),
// fills the constants from their sections and initialises parameters and
// state from their initializers with the given seed (Initializers.h).
//
// Inputs are kept in host memory when set and copied into the arena at the
// start of each run, so an input keeps its value across runs even though the
// step reuses its arena bytes. A program is not thread-safe.
//
// On the CUDA backend run() returns once the run is enqueued; reading an
// output or a parameter waits for the runs in flight, while the telemetry
// outputs of each run (TelemetryRing.h) can be read as soon as that run has
// completed, without waiting for the device to go idle.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_PROGRAM_H
#define MPC_RUNTIME_PROGRAM_H

#include "Backend.h"
#include "Collective.h"
#include "TelemetryRing.h"
#include "mpc/format/HostTensor.h"
#include "mpc/format/Manifest.h"
#include "mpc/format/Status.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mpc::rt {

/// Outputs of at most this many elements are telemetry unless the options
/// name the telemetry outputs.
constexpr int64_t kDefaultTelemetryElements = 64;

struct ProgramOptions {
  /// "cpu", or "cuda" / "cuda:N" when the runtime is built with CUDA.
  std::string device = "cpu";
  uint64_t seed = 0;
  /// The outputs each run reports as telemetry; unset: every output of at
  /// most kDefaultTelemetryElements elements.
  std::optional<std::vector<std::string>> telemetry;
  /// How many runs' telemetry records are kept.
  size_t telemetryDepth = 1024;
};

/// OK when `device` ("cpu", "cuda", "cuda:N") can run programs on this
/// machine; otherwise the error loading a program for it would give (no
/// driver, no such GPU, a runtime built without CUDA).
Status checkDevice(const std::string &device);

class Program {
public:
  /// Loads the bundle at `path`; see mpc_program_load for the errors.
  static Status load(const std::string &path, const ProgramOptions &options,
                     std::unique_ptr<Program> &out);

  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;
  ~Program();

  const Manifest &manifest() const { return manifest_; }

  /// Sets input `name` from `bytes` bytes at `data` (its exact size).
  Status setInput(const std::string &name, const void *data, size_t bytes);
  /// Sets input `name` from `tensor`, whose dtype and shape must match.
  Status setInput(const std::string &name, const HostTensor &tensor);

  /// Runs the step once; every input must have been set.
  Status run();

  /// How many runs have been started since load.
  uint64_t runCount() const { return runs_; }
  /// How many runs have completed (without waiting).
  Status completedRuns(uint64_t &out);
  /// Waits for every run in flight.
  Status synchronize();
  /// Copies telemetry output `name` of run `run` (0-based) to `data` (its
  /// exact size). MPC_NOT_READY while the run is in flight, MPC_NOT_FOUND
  /// for an output that is not telemetry or a run whose record the ring no
  /// longer holds, MPC_INVALID_ARGUMENT for a run not started yet.
  Status telemetry(uint64_t run, const std::string &name, void *data, size_t bytes);
  /// The telemetry outputs, in record order.
  const std::vector<TensorSpec> &telemetryOutputs() const { return telemetry_; }
  /// The backend's counters, those of loading (the initial values copied
  /// in) excluded.
  BackendStats stats() const;
  /// The backend, for the benchmarks' own measurements.
  Backend &backend() { return *backend_; }

  /// Copies output `name` of the last run to `data` (its exact size).
  Status getOutput(const std::string &name, void *data, size_t bytes) const;
  /// Output `name` of the last run as a tensor.
  Status getOutput(const std::string &name, HostTensor &out) const;

  /// Copies parameter (or state) `name` to or from `data` (its exact size).
  Status getParam(const std::string &name, void *data, size_t bytes) const;
  /// (A working copy cannot be set: it follows its parameter.)
  Status setParam(const std::string &name, const void *data, size_t bytes);

  /// Writes every parameter and piece of state to a safetensors file.
  Status saveParams(const std::string &path) const;
  /// Replaces every parameter and piece of state from a safetensors file
  /// that holds exactly those tensors, with their dtypes and shapes.
  Status loadParams(const std::string &path);

private:
  /// Rewrites the working copies of parameter `master` (of every parameter
  /// when empty) from its current value.
  Status refreshWorkingCopies(const std::string &master);

  Program() = default;

  /// Input `name` of the manifest, or MPC_NOT_FOUND.
  Status findInput(const std::string &name, size_t &index) const;
  Status findOutput(const std::string &name, size_t &index) const;
  Status findParam(const std::string &name, size_t &index) const;
  /// MPC_INVALID_ARGUMENT unless `bytes` is the size of `spec`.
  Status checkSize(const TensorSpec &spec, const char *what,
                   size_t bytes) const;
  /// Moves the telemetry of completed runs into the ring.
  Status collectTelemetry(bool wait);

  /// The bundle's path, which messages start with.
  std::string path_;
  Manifest manifest_;
  /// The data-parallel job (with all_reduce steps only); outlives backend_.
  std::unique_ptr<Collective> collective_;
  std::unique_ptr<Backend> backend_;
  /// The bytes of each input, empty until it is set.
  std::vector<std::vector<uint8_t>> inputs_;
  std::vector<bool> inputSet_;
  bool hasRun_ = false;
  uint64_t runs_ = 0;
  std::vector<TensorSpec> telemetry_;
  /// Where each telemetry output starts in a record.
  std::vector<size_t> telemetryOffsets_;
  TelemetryRing ring_{1};
  /// The backend's counters when the load was done.
  BackendStats statsAtLoad_;
};

} // namespace mpc::rt

#endif // MPC_RUNTIME_PROGRAM_H
