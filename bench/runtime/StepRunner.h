//===- StepRunner.h - runs a bundle's step on synthetic batches -----------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// What mpc-bench (timing a step) and mpc-gpu-check (a GPU against the CPU)
// share, on the runtime alone (no compiler, no data files): a program
// loaded for a device, and batches of synthetic inputs made from a seed —
// floats uniform in [0, 1), integers uniform in [0, 10) (a class or token
// of every example model), booleans false — so two backends, or mpc and a
// PyTorch peer, see the same numbers.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_BENCH_RUNTIME_STEPRUNNER_H
#define MPC_BENCH_RUNTIME_STEPRUNNER_H

#include "Program.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mpc::bench {

/// The bytes of every input of a program, in manifest order.
using Batch = std::vector<std::vector<uint8_t>>;

/// `count` synthetic batches for the inputs of `manifest`, batch b drawn
/// from `seed` and b.
std::vector<Batch> syntheticBatches(const rt::Manifest &manifest, int count, uint64_t seed);

/// Loads `bundle` for `device` with initializer seed `seed` and the default
/// telemetry; messages name the bundle.
rt::Status loadProgram(const std::string &bundle, const std::string &device, uint64_t seed,
                       std::unique_ptr<rt::Program> &out);

/// Sets the parameters that safetensors file `path` holds (an ONNX model's
/// weights, which `mpc compile` writes beside the bundle); the others keep
/// their initializers. Every tensor must be a parameter of the program, of
/// its dtype and shape.
rt::Status setWeights(rt::Program &program, const std::string &path);

/// Sets every input from `batch` and starts one run.
rt::Status runBatch(rt::Program &program, const Batch &batch);

/// Reads f32 telemetry output `name` of `run` once it has completed
/// (waiting for it when needed).
rt::Status telemetryScalar(rt::Program &program, uint64_t run, const std::string &name,
                           float &out);

} // namespace mpc::bench

#endif // MPC_BENCH_RUNTIME_STEPRUNNER_H
