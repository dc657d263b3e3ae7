//===- StepProgram.h - a small training-like program for backend tests ----===//
//
// Part of mpc, a mixed-precision training compiler.
//
// h = relu(x w + b) (a GEMM with the bias_relu epilogue), z = f16(2 h) (a
// pointwise kernel), loss = mean(z) (a row reduction), count += 1 (a kernel
// and a copy into persistent state): what a training step needs of a
// backend, small enough to check by hand. Its kernels are written as the
// emitter writes them, compiled for the host here and, from the source
// section, by NVRTC at load on a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_TESTS_UNIT_RUNTIME_CUDA_STEPPROGRAM_H
#define MPC_TESTS_UNIT_RUNTIME_CUDA_STEPPROGRAM_H

#include "ProgramTestUtil.h"

#include <string>
#include <vector>

namespace mpc::test {

using rt::CopyStep;
using rt::DType;
using rt::Epilogue;
using rt::GemmStep;
using rt::InitKind;
using rt::KernelSpec;
using rt::LaunchStep;
using rt::Manifest;
using rt::ParamSpec;

constexpr char kKernelSource[] = R"(
#include "mpc/device/types.cuh"
#include "mpc/device/pointwise.cuh"
#include "mpc/device/rows.cuh"

// z = f16(h * 2)
struct Double {
  const float *h; mpc::half_t *z;
  MPC_HD void operator()(int64_t i) const { z[i] = mpc::from_f32<mpc::half_t>(h[i] * 2.0f); }
};
MPC_KERNEL(k_double) {
  mpc::pointwise(64, Double{static_cast<const float *>(mpc_buffers[0]),
                            static_cast<mpc::half_t *>(mpc_buffers[1])});
}

// loss = mean(z)
struct Mean {
  const mpc::half_t *z; float *loss;
  MPC_DEVICE_INLINE void operator()(mpc::RowContext &row) const {
    float s = row.reduce_sum(64, [=](int64_t c) { return mpc::to_f32(z[c]); });
    row.for_each(1, [=](int64_t) { *loss = s / 64.0f; });
  }
};
MPC_KERNEL(k_mean) {
  mpc::rows(1, Mean{static_cast<const mpc::half_t *>(mpc_buffers[0]),
                    static_cast<float *>(mpc_buffers[1])});
}

// next = count + 1
struct Count {
  const float *count; float *next;
  MPC_HD void operator()(int64_t) const { *next = *count + 1.0f; }
};
MPC_KERNEL(k_count) {
  mpc::pointwise(1, Count{static_cast<const float *>(mpc_buffers[0]),
                          static_cast<float *>(mpc_buffers[1])});
}
)";

inline ParamSpec param(std::string name, std::vector<int64_t> shape, uint64_t offset, InitKind init,
                bool state = false) {
  ParamSpec spec;
  spec.name = std::move(name);
  spec.dtype = DType::F32;
  spec.shape = std::move(shape);
  spec.buffer = persistent(offset);
  spec.init.kind = init;
  spec.trainable = !state;
  spec.state = state;
  return spec;
}

/// h = relu(x w + b); z = f16(2 h); loss = mean(z); count += 1.
inline Manifest stepManifest() {
  Manifest m;
  m.program = "step";
  m.arenaBytes = 1280;
  m.persistentBytes = 1024;
  m.inputs = {tensorSpec("x", DType::F32, {4, 8}, arena(0))};
  m.outputs = {tensorSpec("z", DType::F16, {4, 16}, arena(512)),
               tensorSpec("loss", DType::F32, {}, arena(768)),
               tensorSpec("count", DType::F32, {}, arena(1024))};
  m.params = {param("w", {8, 16}, 0, InitKind::GlorotUniform),
              param("b", {16}, 512, InitKind::Normal),
              param("count", {}, 768, InitKind::Zeros, /*state=*/true)};
  m.kernels = {KernelSpec{"k_double", 1, 256}, KernelSpec{"k_mean", 1, 64},
               KernelSpec{"k_count", 1, 256}};
  GemmStep gemm;
  gemm.a = arena(0);
  gemm.b = persistent(0);
  gemm.bias = persistent(512);
  gemm.c = arena(256);
  gemm.m = 4;
  gemm.n = 16;
  gemm.k = 8;
  gemm.epilogue = Epilogue::BiasRelu;
  m.steps = {gemm,
             LaunchStep{"k_double", {arena(256), arena(512)}},
             LaunchStep{"k_mean", {arena(512), arena(768)}},
             LaunchStep{"k_count", {persistent(768), arena(1024)}},
             CopyStep{arena(1024), persistent(768), 4}};
  return m;
}

inline const std::string &hostObject() {
  static const std::string object = compileHostObject(kKernelSource);
  return object;
}

/// Writes the step's bundle with `sections` added to its host object.
inline std::string writeStepBundle(const TempDir &dir, const std::string &name,
                            std::vector<mpc::rt::BundleSection> sections = {}) {
  sections.insert(sections.begin(), {"host.so", hostObject()});
  std::string path = dir.file(name);
  writeProgramBundle(path, stepManifest(), sections);
  return path;
}

/// A bundle with the kernels' source, for NVRTC at load.
inline std::string writeSourceBundle(const TempDir &dir) {
  return writeStepBundle(dir, "source.mpcb", {{"kernels.cu", kKernelSource}});
}

inline std::vector<float> inputOfRun(int run) {
  return randomValues<float>(32, -1.0, 1.0, 100 + run);
}

inline void setInput(LoadedProgram &program, int run) {
  std::vector<float> x = inputOfRun(run);
  ASSERT_EQ(mpc_program_set_input(program.get(), "x", x.data(), x.size() * sizeof(float)), MPC_OK)
      << mpc_last_error();
}

template <typename T> T telemetryOf(LoadedProgram &program, uint64_t run, const char *name) {
  T value{};
  EXPECT_EQ(mpc_program_get_telemetry(program.get(), run, name, &value, sizeof value), MPC_OK)
      << mpc_last_error();
  return value;
}

inline std::vector<uint8_t> bytesOf(const mpc_program *program, const char *name, size_t bytes,
                             bool isOutput) {
  std::vector<uint8_t> data(bytes);
  mpc_status_code code = isOutput
                             ? mpc_program_get_output(program, name, data.data(), bytes)
                             : mpc_program_get_param(program, name, data.data(), bytes);
  EXPECT_EQ(code, MPC_OK) << mpc_last_error();
  return data;
}

/// The losses the CPU backend gives for runs 0 .. runs - 1.
inline std::vector<float> cpuLosses(const std::string &bundle, int runs) {
  LoadedProgram cpu;
  EXPECT_EQ(cpu.load(bundle, 7, "cpu"), MPC_OK) << mpc_last_error();
  std::vector<float> losses;
  for (int run = 0; run < runs; ++run) {
    setInput(cpu, run);
    EXPECT_EQ(mpc_program_run(cpu.get()), MPC_OK) << mpc_last_error();
    losses.push_back(telemetryOf<float>(cpu, run, "loss"));
  }
  return losses;
}

} // namespace mpc::test

#endif // MPC_TESTS_UNIT_RUNTIME_CUDA_STEPPROGRAM_H
