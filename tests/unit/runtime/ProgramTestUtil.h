//===- ProgramTestUtil.h - building and loading bundles in tests ----------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Program tests make their bundles themselves, as the compiler would: a
// manifest written by writeManifest, kernels in the kernel ABI compiled with
// the host C++ compiler against the device headers, constants as sections.
// They load them through the C API with a private object cache.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_TESTS_UNIT_RUNTIME_PROGRAMTESTUTIL_H
#define MPC_TESTS_UNIT_RUNTIME_PROGRAMTESTUTIL_H

#include "mpc/format/Bundle.h"
#include "mpc/format/Manifest.h"
#include "TestUtil.h"

#include "mpc/runtime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace mpc::test {

inline rt::BufferRef arena(uint64_t offset) {
  return {rt::BufferSpace::Arena, offset};
}

inline rt::BufferRef persistent(uint64_t offset) {
  return {rt::BufferSpace::Persistent, offset};
}

inline rt::TensorSpec tensorSpec(std::string name, rt::DType dtype,
                                 std::vector<int64_t> shape,
                                 rt::BufferRef buffer) {
  rt::TensorSpec spec;
  spec.name = std::move(name);
  spec.dtype = dtype;
  spec.shape = std::move(shape);
  spec.buffer = buffer;
  return spec;
}

/// Writes a bundle holding `manifest` (as "manifest.json") and `sections`.
/// A program without kernels: out = x ([4] f32), through the arena; and a
/// parameter "w" ([4] f32, ones) to read and write.
inline rt::Manifest copyManifest() {
  rt::Manifest m;
  m.program = "copy";
  m.arenaBytes = 128;
  m.persistentBytes = 64;
  m.inputs = {tensorSpec("x", rt::DType::F32, {4}, arena(0))};
  m.outputs = {tensorSpec("out", rt::DType::F32, {4}, arena(64))};
  rt::ParamSpec w;
  static_cast<rt::TensorSpec &>(w) = tensorSpec("w", rt::DType::F32, {4}, persistent(0));
  w.init.kind = rt::InitKind::Ones;
  m.params = {w};
  m.steps = {rt::CopyStep{arena(0), arena(64), 16}};
  return m;
}

/// copyManifest's program, then an all-reduce (sum) of its output: in a
/// job of one rank, out = x still.
inline rt::Manifest copyAndAllReduceManifest() {
  rt::Manifest m = copyManifest();
  m.program = "copy_all_reduce";
  m.steps.push_back(rt::AllReduceStep{arena(64), rt::DType::F32, 4, rt::AllReduceOp::Sum});
  return m;
}

inline void writeProgramBundle(const std::string &path,
                               const rt::Manifest &manifest,
                               std::vector<rt::BundleSection> sections = {}) {
  sections.insert(sections.begin(),
                  {rt::kManifestSection, rt::writeManifest(manifest)});
  rt::Status status = rt::writeBundle(path, sections);
  ASSERT_TRUE(status.isOk()) << status.message();
}

/// Sets the environment variable `name` to `value` while it lives.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    const char *old = std::getenv(name);
    hadOld_ = old != nullptr;
    old_ = old ? old : "";
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (hadOld_)
      ::setenv(name_.c_str(), old_.c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
  std::string name_, old_;
  bool hadOld_ = false;
};

/// Points MPC_CACHE_DIR at a fresh folder while it lives.
class ScopedCacheDir {
public:
  ScopedCacheDir() {
    const char *old = std::getenv("MPC_CACHE_DIR");
    hadOld_ = old != nullptr;
    old_ = old ? old : "";
    ::setenv("MPC_CACHE_DIR", dir_.root().c_str(), 1);
  }
  ~ScopedCacheDir() {
    if (hadOld_)
      ::setenv("MPC_CACHE_DIR", old_.c_str(), 1);
    else
      ::unsetenv("MPC_CACHE_DIR");
  }
  ScopedCacheDir(const ScopedCacheDir &) = delete;
  ScopedCacheDir &operator=(const ScopedCacheDir &) = delete;

  const TempDir &dir() const { return dir_; }

private:
  TempDir dir_;
  bool hadOld_ = false;
  std::string old_;
};

/// An mpc_program released at the end of the scope.
class LoadedProgram {
public:
  LoadedProgram() = default;
  LoadedProgram(const LoadedProgram &) = delete;
  LoadedProgram &operator=(const LoadedProgram &) = delete;
  ~LoadedProgram() { mpc_program_release(program_); }

  mpc_status_code load(const std::string &path, uint64_t seed = 0,
                       const char *device = "cpu") {
    mpc_program_options options;
    mpc_program_options_initialize(&options);
    options.seed = seed;
    options.device = device;
    mpc_program_release(program_);
    program_ = nullptr;
    return mpc_program_load(path.c_str(), &options, &program_);
  }

  mpc_program *get() const { return program_; }

private:
  mpc_program *program_ = nullptr;
};

/// Compiles the kernel source `source` as the CPU backend's shared object
/// and returns its bytes; on failure records a test failure with the
/// compiler's output and returns "".
inline std::string compileHostObject(const std::string &source) {
  TempDir dir;
  writeBytes(dir.file("kernels.cpp"), source);
  std::string command =
      std::string(MPC_HOST_CXX) + " -O2 -shared -fPIC -std=c++17 -I'" +
      MPC_DEVICE_INCLUDE_DIR + "' '" + dir.file("kernels.cpp") + "' -o '" +
      dir.file("kernels.so") + "' > '" + dir.file("log.txt") + "' 2>&1";
  if (std::system(command.c_str()) != 0) {
    ADD_FAILURE() << "compiling the test kernels failed:\n"
                  << readBytes(dir.file("log.txt"));
    return "";
  }
  return readBytes(dir.file("kernels.so"));
}

/// Values of T in [low, high) from a fixed generator.
template <typename T>
std::vector<T> randomValues(size_t count, double low, double high,
                            unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<double> distribution(low, high);
  std::vector<T> values(count);
  for (T &value : values)
    value = static_cast<T>(distribution(engine));
  return values;
}

/// Whether this machine is declared to have a GPU: bench/gpu/run.sh sets
/// MPC_REQUIRE_GPU=1 where nvidia-smi lists one. There a test that needs the
/// GPU fails, rather than skips, when the GPU cannot run.
inline bool gpuRequired() {
  const char *value = std::getenv("MPC_REQUIRE_GPU");
  return value && std::string(value) == "1";
}

} // namespace mpc::test

/// Skips the test where device "cuda" cannot run, or fails it where
/// MPC_REQUIRE_GPU=1 says there is a GPU (a broken setup must not pass as
/// "no GPU").
#define MPC_SKIP_WITHOUT_GPU()                                                                   \
  do {                                                                                           \
    if (mpc_device_check("cuda") != MPC_OK) {                                                    \
      if (mpc::test::gpuRequired())                                                              \
        FAIL() << "MPC_REQUIRE_GPU=1, but device cuda cannot run: " << mpc_last_error();         \
      GTEST_SKIP() << "no GPU: " << mpc_last_error();                                            \
    }                                                                                            \
  } while (0)

#endif // MPC_TESTS_UNIT_RUNTIME_PROGRAMTESTUTIL_H
