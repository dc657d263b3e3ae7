//===- mpc/runtime.hpp - a thin C++ wrapper of the runtime C API ----------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// RAII and exceptions over mpc/runtime.h, header-only:
//
//   mpc::Program program("mlp.mpcb", {/*device=*/"cpu", /*seed=*/42});
//   program.setInput("pixels", pixels);             // a std::vector<float>
//   program.run();
//   std::vector<float> logits = program.output<float>("logits");
//
// A failing call throws mpc::Error, which carries the status code and the
// runtime's message. Thread safety and data layout are those of the C API.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_HPP
#define MPC_RUNTIME_HPP

#include "mpc/runtime.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mpc {

/// A failed runtime call.
class Error : public std::runtime_error {
public:
  Error(mpc_status_code code, const std::string &message)
      : std::runtime_error(message), code_(code) {}

  mpc_status_code code() const { return code_; }

private:
  mpc_status_code code_;
};

/// Throws the thread's last error unless `code` is MPC_OK.
inline void check(mpc_status_code code) {
  if (code != MPC_OK)
    throw Error(code, mpc_last_error());
}

/// An input, output or parameter (see mpc_tensor_info).
struct TensorInfo {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  size_t bytes = 0;
  uint32_t flags = 0;
};

struct ProgramOptions {
  std::string device = "cpu";
  uint64_t seed = 0;
  /// Comma-separated telemetry outputs; empty with `defaultTelemetry` for
  /// every scalar output (mpc_program_options.telemetry).
  std::string telemetry;
  bool defaultTelemetry = true;
  size_t telemetryDepth = 1024;
};

/// A loaded program; movable, not copyable.
class Program {
public:
  explicit Program(const std::string &path,
                   const ProgramOptions &options = ProgramOptions()) {
    mpc_program_options raw;
    mpc_program_options_initialize(&raw);
    raw.device = options.device.c_str();
    raw.seed = options.seed;
    raw.telemetry = options.defaultTelemetry && options.telemetry.empty()
                        ? nullptr
                        : options.telemetry.c_str();
    raw.telemetry_depth = options.telemetryDepth;
    check(mpc_program_load(path.c_str(), &raw, &program_));
  }
  Program(Program &&other) noexcept
      : program_(std::exchange(other.program_, nullptr)) {}
  Program &operator=(Program &&other) noexcept {
    std::swap(program_, other.program_);
    return *this;
  }
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;
  ~Program() { mpc_program_release(program_); }

  /// The C handle, owned by this object.
  mpc_program *handle() const { return program_; }

  std::vector<TensorInfo> inputs() const {
    return infos(mpc_program_input_count(program_), mpc_program_input_info);
  }
  std::vector<TensorInfo> outputs() const {
    return infos(mpc_program_output_count(program_), mpc_program_output_info);
  }
  std::vector<TensorInfo> params() const {
    return infos(mpc_program_param_count(program_), mpc_program_param_info);
  }

  void setInput(const std::string &name, const void *data, size_t bytes) {
    check(mpc_program_set_input(program_, name.c_str(), data, bytes));
  }
  template <typename T>
  void setInput(const std::string &name, const std::vector<T> &values) {
    setInput(name, values.data(), values.size() * sizeof(T));
  }

  void run() { check(mpc_program_run(program_)); }
  /// Waits for the runs in flight.
  void synchronize() { check(mpc_program_synchronize(program_)); }
  /// How many runs have completed, without waiting.
  uint64_t completedRuns() {
    uint64_t count = 0;
    check(mpc_program_completed_runs(program_, &count));
    return count;
  }
  /// Reads telemetry output `name` of run `run` into `value`; false while
  /// the run is in flight.
  template <typename T> bool telemetry(uint64_t run, const std::string &name, T &value) {
    mpc_status_code code =
        mpc_program_get_telemetry(program_, run, name.c_str(), &value, sizeof value);
    if (code == MPC_NOT_READY)
      return false;
    check(code);
    return true;
  }
  mpc_program_stats stats() const {
    mpc_program_stats stats;
    check(mpc_program_get_stats(program_, &stats));
    return stats;
  }

  void getOutput(const std::string &name, void *data, size_t bytes) const {
    check(mpc_program_get_output(program_, name.c_str(), data, bytes));
  }
  /// Output `name` as elements of T, whose size must divide the output's.
  template <typename T> std::vector<T> output(const std::string &name) const {
    std::vector<T> values(find(outputs(), name, "output").bytes / sizeof(T));
    getOutput(name, values.data(), values.size() * sizeof(T));
    return values;
  }

  void getParam(const std::string &name, void *data, size_t bytes) const {
    check(mpc_program_get_param(program_, name.c_str(), data, bytes));
  }
  void setParam(const std::string &name, const void *data, size_t bytes) {
    check(mpc_program_set_param(program_, name.c_str(), data, bytes));
  }
  template <typename T> std::vector<T> param(const std::string &name) const {
    std::vector<T> values(find(params(), name, "parameter").bytes / sizeof(T));
    getParam(name, values.data(), values.size() * sizeof(T));
    return values;
  }

  void saveParams(const std::string &path) const {
    check(mpc_program_save_params(program_, path.c_str()));
  }
  void loadParams(const std::string &path) {
    check(mpc_program_load_params(program_, path.c_str()));
  }

private:
  using InfoFunction = mpc_status_code (*)(const mpc_program *, size_t,
                                           mpc_tensor_info *);

  std::vector<TensorInfo> infos(size_t count, InfoFunction function) const {
    std::vector<TensorInfo> result;
    for (size_t i = 0; i < count; ++i) {
      mpc_tensor_info raw;
      check(function(program_, i, &raw));
      TensorInfo info;
      info.name = raw.name;
      info.dtype = raw.dtype;
      info.shape.assign(raw.shape, raw.shape + raw.rank);
      info.bytes = raw.bytes;
      info.flags = raw.flags;
      result.push_back(std::move(info));
    }
    return result;
  }

  static const TensorInfo &find(const std::vector<TensorInfo> &infos,
                                const std::string &name, const char *what) {
    for (const TensorInfo &info : infos)
      if (info.name == name)
        return info;
    throw Error(MPC_NOT_FOUND,
                std::string("no ") + what + " named '" + name + "'");
  }

  mpc_program *program_ = nullptr;
};

} // namespace mpc

#endif // MPC_RUNTIME_HPP
