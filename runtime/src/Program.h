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
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_PROGRAM_H
#define MPC_RUNTIME_PROGRAM_H

#include "Backend.h"
#include "HostTensor.h"
#include "Manifest.h"
#include "Status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mpc::rt {

struct ProgramOptions {
  /// "cpu"; this build has no other backend.
  std::string device = "cpu";
  uint64_t seed = 0;
};

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
  /// The bundle's path, which messages start with.
  std::string path_;
  Manifest manifest_;
  std::unique_ptr<Backend> backend_;
  /// The bytes of each input, empty until it is set.
  std::vector<std::vector<uint8_t>> inputs_;
  std::vector<bool> inputSet_;
  bool hasRun_ = false;
};

} // namespace mpc::rt

#endif // MPC_RUNTIME_PROGRAM_H
