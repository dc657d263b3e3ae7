//===- StepRunner.cpp - runs a bundle's step on synthetic batches ---------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "StepRunner.h"

#include "mpc/format/Safetensors.h"

#include <cstring>
#include <map>
#include <random>

namespace mpc::bench {

std::vector<Batch> syntheticBatches(const rt::Manifest &manifest, int count, uint64_t seed) {
  std::vector<Batch> batches;
  for (int b = 0; b < count; ++b) {
    std::mt19937_64 engine(seed * 1000003u + static_cast<uint64_t>(b));
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    std::uniform_int_distribution<int64_t> classes(0, 9);
    Batch batch;
    for (const rt::TensorSpec &input : manifest.inputs) {
      std::vector<uint8_t> bytes(rt::tensorBytes(input.dtype, input.shape));
      size_t width = rt::dtypeSize(input.dtype);
      for (size_t at = 0; at + width <= bytes.size(); at += width) {
        switch (input.dtype) {
        case rt::DType::F32: {
          float value = unit(engine);
          std::memcpy(&bytes[at], &value, width);
          break;
        }
        case rt::DType::F64: {
          double value = unit(engine);
          std::memcpy(&bytes[at], &value, width);
          break;
        }
        case rt::DType::I32:
        case rt::DType::I64: {
          int64_t value = classes(engine);
          std::memcpy(&bytes[at], &value, width); // little-endian
          break;
        }
        default: // f16, bf16, bool: zeros
          break;
        }
      }
      batch.push_back(std::move(bytes));
    }
    batches.push_back(std::move(batch));
  }
  return batches;
}

rt::Status loadProgram(const std::string &bundle, const std::string &device, uint64_t seed,
                       std::unique_ptr<rt::Program> &out) {
  rt::ProgramOptions options;
  options.device = device;
  options.seed = seed;
  return rt::Program::load(bundle, options, out);
}

rt::Status setWeights(rt::Program &program, const std::string &path) {
  std::map<std::string, rt::HostTensor> tensors;
  if (rt::Status status = rt::readSafetensors(path, tensors, nullptr); !status.isOk())
    return status;
  for (const auto &[name, tensor] : tensors) {
    size_t index = 0;
    const std::vector<rt::ParamSpec> &params = program.manifest().params;
    while (index < params.size() && params[index].name != name)
      ++index;
    if (index == params.size())
      return rt::Status::error(MPC_INVALID_ARGUMENT, path + ": tensor \"" + name +
                                                         "\" is not a parameter of the program");
    if (tensor.dtype != params[index].dtype || tensor.shape != params[index].shape)
      return rt::Status::error(MPC_INVALID_ARGUMENT,
                               path + ": tensor \"" + name + "\" is " +
                                   rt::dtypeName(tensor.dtype) + rt::formatShape(tensor.shape) +
                                   ", the parameter " + rt::dtypeName(params[index].dtype) +
                                   rt::formatShape(params[index].shape));
    if (rt::Status status = program.setParam(name, tensor.bytes.data(), tensor.bytes.size());
        !status.isOk())
      return status;
  }
  return rt::Status();
}

rt::Status runBatch(rt::Program &program, const Batch &batch) {
  const rt::Manifest &manifest = program.manifest();
  for (size_t i = 0; i < manifest.inputs.size(); ++i)
    if (rt::Status status =
            program.setInput(manifest.inputs[i].name, batch[i].data(), batch[i].size());
        !status.isOk())
      return status;
  return program.run();
}

rt::Status telemetryScalar(rt::Program &program, uint64_t run, const std::string &name,
                           float &out) {
  rt::Status status = program.telemetry(run, name, &out, sizeof out);
  if (status.code() != MPC_NOT_READY)
    return status;
  if (rt::Status synced = program.synchronize(); !synced.isOk())
    return synced;
  return program.telemetry(run, name, &out, sizeof out);
}

} // namespace mpc::bench
