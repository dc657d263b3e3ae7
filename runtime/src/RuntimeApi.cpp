//===- RuntimeApi.cpp - the C API over Program ----------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Each entry point checks its pointers, calls Program and turns a failed
// Status, or an exception such as std::bad_alloc, into a status code and
// the thread's last-error text. No exception leaves the C API.
//
//===----------------------------------------------------------------------===//

#include "mpc/runtime.h"

#include "ApiError.h"
#include "Program.h"
#include "ProgramHandle.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <new>
#include <string>
#include <vector>

using mpc::rt::Program;
using mpc::rt::ProgramOptions;
using mpc::rt::Status;
using mpc::rt::TensorSpec;

namespace {

thread_local std::string lastError;

mpc_status_code fail(mpc_status_code code, std::string message) {
  lastError = std::move(message);
  return code;
}

mpc_status_code report(const Status &status) {
  if (!status.isOk())
    lastError = status.message();
  return status.code();
}

/// Runs `body`, which returns a status code, and reports an exception it
/// throws instead of letting it cross the C boundary.
template <typename Body>
mpc_status_code guarded(const char *function, Body body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return fail(MPC_RESOURCE_EXHAUSTED,
                std::string(function) + ": out of host memory");
  } catch (const std::exception &error) {
    return fail(MPC_INTERNAL, std::string(function) +
                                  ": unexpected exception: " + error.what());
  }
}

/// Runs `body` (as guarded does) as the program's only caller: a call made
/// on the same program meanwhile, from another thread, returns MPC_BUSY
/// without touching it, instead of racing with this one.
template <typename Body>
mpc_status_code exclusive(const char *function, const mpc_program *program, Body body) {
  if (program->inUse.exchange(true, std::memory_order_acquire))
    return fail(MPC_BUSY, std::string(function) +
                              ": another thread is inside a call on this program; a program "
                              "takes one call at a time (serialise them, e.g. with a mutex)");
  struct Release {
    const mpc_program *program;
    ~Release() { program->inUse.store(false, std::memory_order_release); }
  } release{program};
  return guarded(function, body);
}

mpc_status_code nullArgument(const char *function, const char *argument) {
  return fail(MPC_INVALID_ARGUMENT,
              std::string(function) + ": " + argument + " is NULL");
}

mpc_tensor_info infoOf(const TensorSpec &spec, uint32_t flags) {
  mpc_tensor_info info;
  info.name = spec.name.c_str();
  info.dtype = mpc::rt::dtypeName(spec.dtype);
  info.rank = spec.shape.size();
  info.shape = spec.shape.data();
  info.bytes =
      static_cast<size_t>(mpc::rt::tensorBytes(spec.dtype, spec.shape));
  info.flags = flags;
  return info;
}

mpc_status_code infoAt(const char *function, const mpc_program *program,
                       const std::vector<mpc_tensor_info> mpc_program::*list,
                       size_t index, mpc_tensor_info *info) {
  if (!program)
    return nullArgument(function, "program");
  if (!info)
    return nullArgument(function, "info");
  const std::vector<mpc_tensor_info> &infos = program->*list;
  if (index >= infos.size())
    return fail(MPC_INVALID_ARGUMENT, std::string(function) + ": index " +
                                          std::to_string(index) +
                                          " is out of range (the program has " +
                                          std::to_string(infos.size()) + ")");
  *info = infos[index];
  return MPC_OK;
}

/// Checks the arguments shared by the functions that move tensor data.
mpc_status_code checkDataArguments(const char *function, const void *program,
                                   const char *name, const void *data,
                                   size_t bytes) {
  if (!program)
    return nullArgument(function, "program");
  if (!name)
    return nullArgument(function, "name");
  if (!data && bytes > 0)
    return nullArgument(function, "data");
  return MPC_OK;
}

} // namespace

mpc_status_code mpc::rt::failApiCall(mpc_status_code code, std::string message) {
  return fail(code, std::move(message));
}

extern "C" {

const char *mpc_last_error(void) { return lastError.c_str(); }

void mpc_program_options_initialize(mpc_program_options *options) {
  if (!options)
    return;
  options->device = "cpu";
  options->seed = 0;
  options->telemetry = nullptr;
  options->telemetry_depth = 1024;
}

mpc_status_code mpc_device_check(const char *device) {
  static const char kFunction[] = "mpc_device_check";
  if (!device)
    return nullArgument(kFunction, "device");
  return guarded(kFunction, [&] { return report(mpc::rt::checkDevice(device)); });
}

mpc_status_code mpc_program_load(const char *path,
                                 const mpc_program_options *options,
                                 mpc_program **out) {
  static const char kFunction[] = "mpc_program_load";
  if (!path)
    return nullArgument(kFunction, "path");
  if (!out)
    return nullArgument(kFunction, "out");
  return guarded(kFunction, [&] {
    ProgramOptions programOptions;
    if (options) {
      if (options->device)
        programOptions.device = options->device;
      programOptions.seed = options->seed;
      if (options->telemetry) {
        std::vector<std::string> names;
        std::string list = options->telemetry;
        for (size_t start = 0; start < list.size();) {
          size_t comma = std::min(list.find(',', start), list.size());
          if (comma > start)
            names.push_back(list.substr(start, comma - start));
          start = comma + 1;
        }
        programOptions.telemetry = std::move(names);
      }
      // (each kept run is a slot of the ring, allocated at load)
      constexpr size_t kMaxTelemetryDepth = size_t(1) << 20;
      if (options->telemetry_depth > kMaxTelemetryDepth)
        return report(Status::error(MPC_INVALID_ARGUMENT,
                                    "telemetry_depth " + std::to_string(options->telemetry_depth) +
                                        " is above " + std::to_string(kMaxTelemetryDepth)));
      programOptions.telemetryDepth = options->telemetry_depth;
    }
    auto handle = std::make_unique<mpc_program>();
    if (Status status = Program::load(path, programOptions, handle->program);
        !status.isOk())
      return report(status);
    const mpc::rt::Manifest &manifest = handle->program->manifest();
    for (const TensorSpec &input : manifest.inputs)
      handle->inputs.push_back(infoOf(input, 0));
    for (const TensorSpec &output : manifest.outputs)
      handle->outputs.push_back(infoOf(output, 0));
    for (const mpc::rt::ParamSpec &param : manifest.params)
      handle->params.push_back(
          infoOf(param, (param.trainable ? MPC_TENSOR_TRAINABLE : 0u) |
                            (param.state ? MPC_TENSOR_STATE : 0u) |
                            (param.castOf.empty() ? 0u : MPC_TENSOR_WORKING_COPY)));
    *out = handle.release();
    return MPC_OK;
  });
}

void mpc_program_release(mpc_program *program) { delete program; }

size_t mpc_program_input_count(const mpc_program *program) {
  return program ? program->inputs.size() : 0;
}

size_t mpc_program_output_count(const mpc_program *program) {
  return program ? program->outputs.size() : 0;
}

size_t mpc_program_param_count(const mpc_program *program) {
  return program ? program->params.size() : 0;
}

mpc_status_code mpc_program_input_info(const mpc_program *program, size_t index,
                                       mpc_tensor_info *info) {
  return infoAt("mpc_program_input_info", program, &mpc_program::inputs, index,
                info);
}

mpc_status_code mpc_program_output_info(const mpc_program *program,
                                        size_t index, mpc_tensor_info *info) {
  return infoAt("mpc_program_output_info", program, &mpc_program::outputs,
                index, info);
}

mpc_status_code mpc_program_param_info(const mpc_program *program, size_t index,
                                       mpc_tensor_info *info) {
  return infoAt("mpc_program_param_info", program, &mpc_program::params, index,
                info);
}

mpc_status_code mpc_program_set_input(mpc_program *program, const char *name,
                                      const void *data, size_t bytes) {
  static const char kFunction[] = "mpc_program_set_input";
  if (mpc_status_code code =
          checkDataArguments(kFunction, program, name, data, bytes))
    return code;
  return exclusive(kFunction, program,
                   [&] { return report(program->program->setInput(name, data, bytes)); });
}

mpc_status_code mpc_program_run(mpc_program *program) {
  static const char kFunction[] = "mpc_program_run";
  if (!program)
    return nullArgument(kFunction, "program");
  return exclusive(kFunction, program, [&] { return report(program->program->run()); });
}

mpc_status_code mpc_program_run_count(const mpc_program *program,
                                      uint64_t *count) {
  static const char kFunction[] = "mpc_program_run_count";
  if (!program)
    return nullArgument(kFunction, "program");
  if (!count)
    return nullArgument(kFunction, "count");
  return exclusive(kFunction, program, [&] {
    *count = program->program->runCount();
    return MPC_OK;
  });
}

mpc_status_code mpc_program_completed_runs(mpc_program *program,
                                           uint64_t *count) {
  static const char kFunction[] = "mpc_program_completed_runs";
  if (!program)
    return nullArgument(kFunction, "program");
  if (!count)
    return nullArgument(kFunction, "count");
  return exclusive(kFunction, program,
                   [&] { return report(program->program->completedRuns(*count)); });
}

mpc_status_code mpc_program_synchronize(mpc_program *program) {
  static const char kFunction[] = "mpc_program_synchronize";
  if (!program)
    return nullArgument(kFunction, "program");
  return exclusive(kFunction, program, [&] { return report(program->program->synchronize()); });
}

mpc_status_code mpc_program_get_telemetry(mpc_program *program, uint64_t run,
                                          const char *name, void *data,
                                          size_t bytes) {
  static const char kFunction[] = "mpc_program_get_telemetry";
  if (mpc_status_code code =
          checkDataArguments(kFunction, program, name, data, bytes))
    return code;
  return exclusive(kFunction, program,
                   [&] { return report(program->program->telemetry(run, name, data, bytes)); });
}

mpc_status_code mpc_program_get_stats(const mpc_program *program,
                                      mpc_program_stats *stats) {
  static const char kFunction[] = "mpc_program_get_stats";
  if (!program)
    return nullArgument(kFunction, "program");
  if (!stats)
    return nullArgument(kFunction, "stats");
  return exclusive(kFunction, program, [&] {
    mpc::rt::BackendStats counters = program->program->stats();
    program->statsDevice = counters.device;
    stats->runs = counters.runs;
    stats->graph_launches = counters.graphLaunches;
    stats->host_syncs = counters.hostSyncs;
    stats->throttle_waits = counters.throttleWaits;
    stats->device_bytes = counters.deviceBytes;
    stats->device = program->statsDevice.c_str();
    return MPC_OK;
  });
}

mpc_status_code mpc_program_get_output(const mpc_program *program,
                                       const char *name, void *data,
                                       size_t bytes) {
  static const char kFunction[] = "mpc_program_get_output";
  if (mpc_status_code code =
          checkDataArguments(kFunction, program, name, data, bytes))
    return code;
  return exclusive(kFunction, program,
                   [&] { return report(program->program->getOutput(name, data, bytes)); });
}

mpc_status_code mpc_program_get_param(const mpc_program *program,
                                      const char *name, void *data,
                                      size_t bytes) {
  static const char kFunction[] = "mpc_program_get_param";
  if (mpc_status_code code =
          checkDataArguments(kFunction, program, name, data, bytes))
    return code;
  return exclusive(kFunction, program,
                   [&] { return report(program->program->getParam(name, data, bytes)); });
}

mpc_status_code mpc_program_set_param(mpc_program *program, const char *name,
                                      const void *data, size_t bytes) {
  static const char kFunction[] = "mpc_program_set_param";
  if (mpc_status_code code =
          checkDataArguments(kFunction, program, name, data, bytes))
    return code;
  return exclusive(kFunction, program,
                   [&] { return report(program->program->setParam(name, data, bytes)); });
}

mpc_status_code mpc_program_save_params(const mpc_program *program,
                                        const char *path) {
  static const char kFunction[] = "mpc_program_save_params";
  if (!program)
    return nullArgument(kFunction, "program");
  if (!path)
    return nullArgument(kFunction, "path");
  return exclusive(kFunction, program, [&] { return report(program->program->saveParams(path)); });
}

mpc_status_code mpc_program_load_params(mpc_program *program,
                                        const char *path) {
  static const char kFunction[] = "mpc_program_load_params";
  if (!program)
    return nullArgument(kFunction, "program");
  if (!path)
    return nullArgument(kFunction, "path");
  return exclusive(kFunction, program, [&] { return report(program->program->loadParams(path)); });
}

} // extern "C"
