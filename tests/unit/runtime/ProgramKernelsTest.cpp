//===- ProgramKernelsTest.cpp - running host kernels from a bundle --------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// A bundle built as the compiler builds one: kernels in the kernel ABI
// (a pointwise kernel reading a constant, a row softmax) compiled by the
// host C++ compiler against the device headers, a manifest from
// writeManifest, a constant section. Loaded through the C API and the C++
// wrapper, run, and checked against double-precision references; the object
// cache and a kernel missing from the shared object.
//
//===----------------------------------------------------------------------===//

#include "Program.h"

#include "ProgramTestUtil.h"

#include "mpc/format/Hash.h"
#include "mpc/runtime.hpp"

#include <gtest/gtest.h>

#include <cstdio>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <elf.h>
#include <filesystem>
#include <functional>

using mpc::rt::BundleSection;
using mpc::rt::ConstantSpec;
using mpc::rt::CopyStep;
using mpc::rt::DType;
using mpc::rt::KernelSpec;
using mpc::rt::LaunchStep;
using mpc::rt::Manifest;
using mpc::test::arena;
using mpc::test::compileHostObject;
using mpc::test::LoadedProgram;
using mpc::test::persistent;
using mpc::test::randomValues;
using mpc::test::readBytes;
using mpc::test::ScopedCacheDir;
using mpc::test::TempDir;
using mpc::test::tensorSpec;
using mpc::test::writeBytes;
using mpc::test::writeProgramBundle;

namespace {

constexpr int64_t kRows = 4, kCols = 6;

/// Kernels as the emitter writes them: literal sizes, operands from the
/// buffer table in manifest order.
constexpr char kKernelSource[] = R"(
#include "mpc/device/math.cuh"
#include "mpc/device/pointwise.cuh"
#include "mpc/device/rows.cuh"

// t = x * 2 + c, c broadcast along the rows.
struct ScaleAdd {
  const float *x; const float *c; float *t;
  MPC_HD void operator()(int64_t i) const { t[i] = x[i] * 2.0f + c[i % 6]; }
};

MPC_KERNEL(k_scale_add) {
  mpc::pointwise(24, ScaleAdd{static_cast<const float *>(mpc_buffers[0]),
                              static_cast<const float *>(mpc_buffers[1]),
                              static_cast<float *>(mpc_buffers[2])});
}

// y = softmax(t) along rows of 6.
struct Softmax {
  const float *t; float *y;
  MPC_DEVICE_INLINE void operator()(mpc::RowContext &row) const {
    const float *tr = t + row.index() * 6;
    float *yr = y + row.index() * 6;
    float m = row.reduce_max(6, [=](int64_t c) { return tr[c]; });
    float s =
        row.reduce_sum(6, [=](int64_t c) { return mpc::exp_f(tr[c] - m); });
    row.for_each(6, [=](int64_t c) { yr[c] = mpc::exp_f(tr[c] - m) / s; });
  }
};

MPC_KERNEL(k_softmax) {
  mpc::rows(4, Softmax{static_cast<const float *>(mpc_buffers[0]),
                       static_cast<float *>(mpc_buffers[1])});
}

// The kernels' buffer tables (the bytes of each buffer), as mpc generates
// them.
MPC_KERNEL_BUFFER_BYTES(k_scale_add, 3, 96, 24, 96)
MPC_KERNEL_BUFFER_BYTES(k_softmax, 2, 96, 96)

// Data the object exports, no kernel; it also makes libc (its exit) a
// library the object needs.
extern "C" __attribute__((visibility("default"))) void (*const k_not_a_kernel)(int) = exit;
)";

const std::vector<float> kConstant = {0.5f, -1.0f, 2.0f, 0.0f, 3.25f, -0.75f};

/// The program: scaled = x * 2 + c; probs = softmax(scaled); copied = probs.
Manifest kernelManifest() {
  Manifest m;
  m.program = "kernels";
  m.arenaBytes = 512;
  m.persistentBytes = 64;
  m.inputs = {tensorSpec("x", DType::F32, {kRows, kCols}, arena(0))};
  m.outputs = {tensorSpec("scaled", DType::F32, {kRows, kCols}, arena(128)),
               tensorSpec("probs", DType::F32, {kRows, kCols}, arena(256)),
               tensorSpec("copied", DType::F32, {kRows, kCols}, arena(384))};
  ConstantSpec constant;
  constant.dtype = DType::F32;
  constant.shape = {kCols};
  constant.buffer = persistent(0);
  constant.section = "const.0";
  m.constants = {constant};
  m.kernels = {KernelSpec{"k_scale_add", 1, 256},
               KernelSpec{"k_softmax", kRows, 32}};
  m.steps = {LaunchStep{"k_scale_add", {arena(0), persistent(0), arena(128)}},
             LaunchStep{"k_softmax", {arena(128), arena(256)}},
             CopyStep{arena(256), arena(384), kRows * kCols * 4}};
  return m;
}

std::string constantBytes() {
  return std::string(reinterpret_cast<const char *>(kConstant.data()),
                     kConstant.size() * sizeof(float));
}

/// The shared object of kKernelSource, compiled once per test process.
const std::string &hostObject() {
  static const std::string object = compileHostObject(kKernelSource);
  return object;
}

void writeKernelBundle(const std::string &path, const Manifest &manifest,
                       const std::string &object = hostObject()) {
  ASSERT_FALSE(object.empty());
  writeProgramBundle(path, manifest, {{"host.so", object}, {"const.0", constantBytes()}});
}

/// `object` with its ELF header's fields at `offset` set to `value`.
template <typename Field> std::string patched(std::string object, size_t offset, Field value) {
  std::memcpy(&object[offset], &value, sizeof value);
  return object;
}

/// `object` without section headers (the dynamic loader needs none).
std::string withoutSectionHeaders(const std::string &object) {
  std::string stripped = patched(object, offsetof(Elf64_Ehdr, e_shoff), Elf64_Off(0));
  stripped = patched(stripped, offsetof(Elf64_Ehdr, e_shnum), Elf64_Half(0));
  return patched(stripped, offsetof(Elf64_Ehdr, e_shstrndx), Elf64_Half(0));
}

/// Where the section header of `object`'s dynamic symbol table starts.
size_t dynamicSymbolTableHeader(const std::string &object) {
  Elf64_Ehdr header;
  std::memcpy(&header, object.data(), sizeof header);
  for (size_t index = 0; index < header.e_shnum; ++index) {
    size_t at = header.e_shoff + index * sizeof(Elf64_Shdr);
    Elf64_Shdr section;
    std::memcpy(&section, object.data() + at, sizeof section);
    if (section.sh_type == SHT_DYNSYM)
      return at;
  }
  ADD_FAILURE() << "the test's object has no dynamic symbol table";
  return 0;
}

/// The error of loading a bundle of `manifest` and `object`, which must fail
/// with MPC_FORMAT_ERROR; the bundle's path stands for "BUNDLE" in it.
std::string formatError(const Manifest &manifest, const std::string &object) {
  ScopedCacheDir cache;
  TempDir dir;
  std::string path = dir.file("kernels.mpcb");
  writeKernelBundle(path, manifest, object);
  LoadedProgram program;
  EXPECT_EQ(program.load(path), MPC_FORMAT_ERROR);
  std::string error = mpc_last_error();
  if (error.compare(0, path.size(), path) == 0)
    error.replace(0, path.size(), "BUNDLE");
  return error;
}

std::vector<float> output(const LoadedProgram &program, const char *name) {
  std::vector<float> values(kRows * kCols);
  EXPECT_EQ(mpc_program_get_output(program.get(), name, values.data(),
                                   values.size() * sizeof(float)),
            MPC_OK)
      << mpc_last_error();
  return values;
}

void checkOutputs(const LoadedProgram &program, const std::vector<float> &x) {
  std::vector<float> scaled = output(program, "scaled");
  std::vector<float> probs = output(program, "probs");
  std::vector<float> copied = output(program, "copied");
  for (int64_t r = 0; r < kRows; ++r) {
    // x * 2 is exact, so the kernel's one rounding is the double sum's.
    for (int64_t c = 0; c < kCols; ++c) {
      double want = 2.0 * x[r * kCols + c] + kConstant[c];
      ASSERT_EQ(scaled[r * kCols + c], static_cast<float>(want))
          << "scaled at [" << r << ", " << c << "]";
    }
    const float *tr = scaled.data() + r * kCols;
    double m = *std::max_element(tr, tr + kCols), sum = 0.0;
    for (int64_t c = 0; c < kCols; ++c)
      sum += std::exp(tr[c] - m);
    for (int64_t c = 0; c < kCols; ++c) {
      double want = std::exp(tr[c] - m) / sum;
      EXPECT_NEAR(probs[r * kCols + c], want, 1e-6 * want)
          << "probs at [" << r << ", " << c << "]";
    }
  }
  EXPECT_EQ(copied, probs);
}

TEST(ProgramKernels, RunsKernelsConstantsAndCopies) {
  ScopedCacheDir cache;
  TempDir dir;
  std::string path = dir.file("kernels.mpcb");
  writeKernelBundle(path, kernelManifest());
  LoadedProgram program;
  ASSERT_EQ(program.load(path), MPC_OK) << mpc_last_error();

  ASSERT_EQ(mpc_program_input_count(program.get()), 1u);
  ASSERT_EQ(mpc_program_output_count(program.get()), 3u);
  EXPECT_EQ(mpc_program_param_count(program.get()), 0u);
  mpc_tensor_info info;
  ASSERT_EQ(mpc_program_output_info(program.get(), 1, &info), MPC_OK);
  EXPECT_STREQ(info.name, "probs");
  EXPECT_STREQ(info.dtype, "f32");
  ASSERT_EQ(info.rank, 2u);
  EXPECT_EQ(info.shape[0], kRows);
  EXPECT_EQ(info.shape[1], kCols);
  EXPECT_EQ(info.bytes, static_cast<size_t>(kRows * kCols * 4));
  EXPECT_EQ(info.flags, 0u);

  // Two runs with different inputs: the second sees its own input.
  for (unsigned seed : {1u, 2u}) {
    std::vector<float> x = randomValues<float>(kRows * kCols, -5.0, 5.0, seed);
    ASSERT_EQ(mpc_program_set_input(program.get(), "x", x.data(),
                                    x.size() * sizeof(float)),
              MPC_OK)
        << mpc_last_error();
    ASSERT_EQ(mpc_program_run(program.get()), MPC_OK) << mpc_last_error();
    checkOutputs(program, x);
  }
}

TEST(ProgramKernels, InputsKeepTheirValueAcrossRuns) {
  ScopedCacheDir cache;
  TempDir dir;
  std::string path = dir.file("kernels.mpcb");
  // The softmax writes its output over the input's arena bytes, as a
  // memory plan may once the input is dead.
  Manifest m = kernelManifest();
  m.outputs[1].buffer = arena(0);
  std::get<LaunchStep>(m.steps[1]).buffers[1] = arena(0);
  std::get<CopyStep>(m.steps[2]).source = arena(0);
  writeKernelBundle(path, m);
  LoadedProgram program;
  ASSERT_EQ(program.load(path), MPC_OK) << mpc_last_error();
  std::vector<float> x = randomValues<float>(kRows * kCols, -5.0, 5.0, 3);
  ASSERT_EQ(mpc_program_set_input(program.get(), "x", x.data(),
                                  x.size() * sizeof(float)),
            MPC_OK);
  ASSERT_EQ(mpc_program_run(program.get()), MPC_OK) << mpc_last_error();
  std::vector<float> first = output(program, "scaled");
  ASSERT_EQ(mpc_program_run(program.get()), MPC_OK) << mpc_last_error();
  EXPECT_EQ(output(program, "scaled"), first);
  checkOutputs(program, x);
}

TEST(ProgramKernels, CppWrapper) {
  ScopedCacheDir cache;
  TempDir dir;
  std::string path = dir.file("kernels.mpcb");
  writeKernelBundle(path, kernelManifest());
  mpc::Program program(path, {"cpu", 7});
  std::vector<mpc::TensorInfo> outputs = program.outputs();
  ASSERT_EQ(outputs.size(), 3u);
  EXPECT_EQ(outputs[2].name, "copied");
  EXPECT_EQ(outputs[2].shape, (std::vector<int64_t>{kRows, kCols}));
  EXPECT_EQ(program.inputs()[0].dtype, "f32");

  std::vector<float> x = randomValues<float>(kRows * kCols, -1.0, 1.0, 4);
  program.setInput("x", x);
  program.run();
  std::vector<float> scaled = program.output<float>("scaled");
  ASSERT_EQ(scaled.size(), x.size());
  EXPECT_EQ(scaled[7], 2.0f * x[7] + kConstant[1]);

  mpc::Program moved = std::move(program);
  EXPECT_EQ(program.handle(), nullptr);
  try {
    moved.setInput("y", x);
    FAIL() << "an unknown input was accepted";
  } catch (const mpc::Error &error) {
    EXPECT_EQ(error.code(), MPC_NOT_FOUND);
    EXPECT_NE(std::string(error.what()).find("no input named \"y\""),
              std::string::npos)
        << error.what();
  }
  EXPECT_THROW(mpc::Program(dir.file("none.mpcb")), mpc::Error);
}

TEST(ProgramKernels, HostTensorInputsAndOutputs) {
  ScopedCacheDir cache;
  TempDir dir;
  std::string path = dir.file("kernels.mpcb");
  writeKernelBundle(path, kernelManifest());
  std::unique_ptr<mpc::rt::Program> program;
  mpc::rt::Status status = mpc::rt::Program::load(path, {}, program);
  ASSERT_TRUE(status.isOk()) << status.message();
  std::vector<float> x = randomValues<float>(kRows * kCols, -1.0, 1.0, 5);

  mpc::rt::HostTensor wrong =
      mpc::test::makeTensor<float>(DType::F32, {kCols, kRows}, x);
  status = program->setInput("x", wrong);
  EXPECT_EQ(status.code(), MPC_INVALID_ARGUMENT);
  EXPECT_NE(status.message().find("input \"x\" is f32 [4, 6], not f32 [6, 4]"),
            std::string::npos)
      << status.message();

  mpc::rt::HostTensor input =
      mpc::test::makeTensor<float>(DType::F32, {kRows, kCols}, x);
  ASSERT_TRUE(program->setInput("x", input).isOk());
  ASSERT_TRUE(program->run().isOk());
  mpc::rt::HostTensor scaled;
  status = program->getOutput("scaled", scaled);
  ASSERT_TRUE(status.isOk()) << status.message();
  EXPECT_EQ(scaled.dtype, DType::F32);
  EXPECT_EQ(scaled.shape, (std::vector<int64_t>{kRows, kCols}));
  EXPECT_EQ(mpc::test::valuesOf<float>(scaled)[0], 2.0f * x[0] + kConstant[0]);
}

TEST(ProgramKernels, CachesTheHostObjectByItsContents) {
  ScopedCacheDir cache;
  TempDir dir;
  std::string path = dir.file("kernels.mpcb");
  writeKernelBundle(path, kernelManifest());
  {
    LoadedProgram first, second;
    ASSERT_EQ(first.load(path), MPC_OK) << mpc_last_error();
    ASSERT_EQ(second.load(path), MPC_OK) << mpc_last_error();
  }
  std::vector<std::string> entries = cache.dir().entries();
  ASSERT_EQ(entries.size(), 1u);
  char name[64];
  std::snprintf(
      name, sizeof name, "host-%016llx.so",
      static_cast<unsigned long long>(mpc::rt::hash64(hostObject().data(), hostObject().size())));
  EXPECT_EQ(entries[0], name);
  EXPECT_EQ(readBytes(cache.dir().file(name)), hostObject());

  // A damaged cache file is replaced, not loaded. (The damaged file is a new
  // file: the loaded object stays mapped for the life of the process, and
  // truncating a mapped object in place would fault the dynamic loader.)
  std::remove(cache.dir().file(name).c_str());
  writeBytes(cache.dir().file(name), "garbage");
  LoadedProgram third;
  ASSERT_EQ(third.load(path), MPC_OK) << mpc_last_error();
  EXPECT_EQ(readBytes(cache.dir().file(name)), hostObject());
  EXPECT_EQ(cache.dir().entries().size(), 1u);
}

TEST(ProgramKernels, CacheFolderFallsBackToXdgAndHome) {
  TempDir dir;
  std::string path = dir.file("kernels.mpcb");
  writeKernelBundle(path, kernelManifest());
  ScopedCacheDir unused; // restores MPC_CACHE_DIR afterwards
  ::unsetenv("MPC_CACHE_DIR");
  std::string oldXdg =
      std::getenv("XDG_CACHE_HOME") ? std::getenv("XDG_CACHE_HOME") : "";
  bool hadXdg = std::getenv("XDG_CACHE_HOME") != nullptr;
  std::string oldHome = std::getenv("HOME") ? std::getenv("HOME") : "";
  bool hadHome = std::getenv("HOME") != nullptr;

  ::setenv("XDG_CACHE_HOME", dir.file("xdg").c_str(), 1);
  LoadedProgram first;
  EXPECT_EQ(first.load(path), MPC_OK) << mpc_last_error();
  EXPECT_TRUE(std::filesystem::is_directory(dir.file("xdg/mpc")));

  ::setenv("XDG_CACHE_HOME", "", 1);
  ::setenv("HOME", dir.file("home").c_str(), 1);
  LoadedProgram second;
  EXPECT_EQ(second.load(path), MPC_OK) << mpc_last_error();
  EXPECT_TRUE(std::filesystem::is_directory(dir.file("home/.cache/mpc")));

  if (hadXdg)
    ::setenv("XDG_CACHE_HOME", oldXdg.c_str(), 1);
  else
    ::unsetenv("XDG_CACHE_HOME");
  if (hadHome)
    ::setenv("HOME", oldHome.c_str(), 1);
  else
    ::unsetenv("HOME");
}

TEST(ProgramKernels, RefusesAKernelMissingFromTheObject) {
  // Launched or only declared: the object does not belong to the manifest.
  for (bool launched : {true, false}) {
    SCOPED_TRACE(launched ? "launched" : "declared only");
    ScopedCacheDir cache;
    TempDir dir;
    std::string path = dir.file("kernels.mpcb");
    Manifest m = kernelManifest();
    m.kernels.push_back(KernelSpec{"k_layer_norm", 4, 64});
    if (launched)
      m.steps.push_back(LaunchStep{"k_layer_norm", {arena(0)}});
    writeKernelBundle(path, m);
    LoadedProgram program;
    EXPECT_EQ(program.load(path), MPC_FORMAT_ERROR);
    EXPECT_EQ(program.get(), nullptr);
    std::string error = mpc_last_error();
    EXPECT_NE(error.find(path), std::string::npos) << error;
    EXPECT_NE(error.find("kernel \"k_layer_norm\" is missing from the host "
                         "object"),
              std::string::npos)
        << error;
  }
}

TEST(ProgramKernels, RefusesAKernelThatIsNotAFunctionOfTheObject) {
  // dlsym finds libc's functions through the object, and its data: neither
  // is a kernel.
  for (const char *name : {"exit", "k_not_a_kernel"}) {
    SCOPED_TRACE(name);
    ScopedCacheDir cache;
    TempDir dir;
    std::string path = dir.file("kernels.mpcb");
    Manifest m = kernelManifest();
    m.kernels.push_back(KernelSpec{name, 1, 32});
    m.steps.push_back(LaunchStep{name, {arena(0)}});
    writeKernelBundle(path, m);
    LoadedProgram program;
    EXPECT_EQ(program.load(path), MPC_FORMAT_ERROR);
    std::string error = mpc_last_error();
    EXPECT_NE(error.find("kernel \"" + std::string(name) +
                         "\" is not a function of the host object"),
              std::string::npos)
        << error;
  }
}

TEST(ProgramKernels, ChecksLaunchesAgainstTheKernelsBufferTables) {
  // The manifest's verifier knows where a launch's buffers start; the host
  // object's tables say how many a kernel takes and how large they are.
  struct Case {
    std::function<void(Manifest &)> edit;
    std::string message;
  };
  const Case cases[] = {
      {[](Manifest &m) {
         m.steps[1] = LaunchStep{"k_softmax", {arena(128)}};
       },
       "manifest.json: steps[1].buffers: 1 buffers, but kernel \"k_softmax\" takes 2 (its "
       "host object says)"},
      {[](Manifest &m) {
         m.steps[0] = LaunchStep{"k_scale_add", {arena(0), persistent(0), arena(448)}};
       },
       "manifest.json: steps[0].buffers[2]: kernel \"k_scale_add\" uses 96 bytes from offset "
       "448, past the end of the arena (512 bytes)"},
      {[](Manifest &m) {
         m.steps[0] = LaunchStep{"k_scale_add", {arena(0), persistent(48), arena(128)}};
       },
       "manifest.json: steps[0].buffers[1]: kernel \"k_scale_add\" uses 24 bytes from offset "
       "48, past the end of persistent memory (64 bytes)"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.message);
    ScopedCacheDir cache;
    TempDir dir;
    std::string path = dir.file("kernels.mpcb");
    Manifest m = kernelManifest();
    c.edit(m);
    writeKernelBundle(path, m);
    LoadedProgram program;
    EXPECT_EQ(program.load(path), MPC_FORMAT_ERROR);
    EXPECT_NE(std::string(mpc_last_error()).find(path + ": " + c.message), std::string::npos)
        << mpc_last_error();
  }
}

TEST(ProgramKernels, RunsAnObjectWithoutSectionHeaders) {
  // The runtime reads which symbols the object defines from its dynamic
  // symbol table once; an object without section headers has its symbols
  // asked of the dynamic loader, with the same answers.
  const std::string object = withoutSectionHeaders(hostObject());
  {
    ScopedCacheDir cache;
    TempDir dir;
    std::string path = dir.file("kernels.mpcb");
    writeKernelBundle(path, kernelManifest(), object);
    LoadedProgram program;
    ASSERT_EQ(program.load(path), MPC_OK) << mpc_last_error();
    std::vector<float> x = randomValues<float>(kRows * kCols, -5.0, 5.0, 3);
    ASSERT_EQ(mpc_program_set_input(program.get(), "x", x.data(), x.size() * sizeof(float)),
              MPC_OK);
    ASSERT_EQ(mpc_program_run(program.get()), MPC_OK) << mpc_last_error();
    checkOutputs(program, x);
  }
  for (const char *name : {"exit", "k_not_a_kernel"}) {
    SCOPED_TRACE(name);
    Manifest m = kernelManifest();
    m.kernels.push_back(KernelSpec{name, 1, 32});
    m.steps.push_back(LaunchStep{name, {arena(0)}});
    std::string error = formatError(m, object);
    EXPECT_NE(
        error.find("kernel \"" + std::string(name) + "\" is not a function of the host object"),
        std::string::npos)
        << error;
  }
  // The buffer tables are found too.
  Manifest m = kernelManifest();
  m.steps[1] = LaunchStep{"k_softmax", {arena(128)}};
  std::string error = formatError(m, object);
  EXPECT_NE(error.find("1 buffers, but kernel \"k_softmax\" takes 2"), std::string::npos) << error;
}

TEST(ProgramKernels, RefusesSymbolTablesOutsideTheObject) {
  const std::string &object = hostObject();
  const size_t table = dynamicSymbolTableHeader(object);
  struct Case {
    std::string object, message;
  };
  const Case cases[] = {
      {patched(object, offsetof(Elf64_Ehdr, e_shoff), Elf64_Off(object.size() - 8)),
       "its section headers lie past the end of its " + std::to_string(object.size()) + " bytes"},
      {patched(object, table + offsetof(Elf64_Shdr, sh_size), Elf64_Xword(object.size())),
       "its dynamic symbol table (section "},
      {patched(object, table + offsetof(Elf64_Shdr, sh_link), Elf32_Word(0xffff)),
       "its dynamic symbol table (section "},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.message);
    std::string error = formatError(kernelManifest(), c.object);
    EXPECT_NE(error.find("BUNDLE: cannot load its host object (section \"host.so\"): " + c.message),
              std::string::npos)
        << error;
  }
}

TEST(ProgramKernels, RefusesATruncatedObject) {
  // (dlopen maps the missing bytes, and the process would die of SIGBUS)
  ScopedCacheDir cache;
  TempDir dir;
  std::string path = dir.file("kernels.mpcb");
  writeProgramBundle(path, kernelManifest(),
                     {{"host.so", hostObject().substr(0, hostObject().size() / 2)},
                      {"const.0", constantBytes()}});
  LoadedProgram program;
  EXPECT_EQ(program.load(path), MPC_FORMAT_ERROR);
  std::string error = mpc_last_error();
  EXPECT_NE(error.find("cannot load its host object (section \"host.so\"): segment "),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("(truncated?)"), std::string::npos) << error;
}

TEST(ProgramKernels, RefusesKernelsWithoutAHostObject) {
  ScopedCacheDir cache;
  TempDir dir;
  std::string path = dir.file("kernels.mpcb");
  writeProgramBundle(path, kernelManifest(), {{"const.0", constantBytes()}});
  LoadedProgram program;
  EXPECT_EQ(program.load(path), MPC_FORMAT_ERROR);
  EXPECT_NE(std::string(mpc_last_error())
                .find("the program has 2 kernels but the bundle has no "
                      "\"host.so\" section (no host kernels: was it compiled for GPUs "
                      "only? compile it with --target cpu, or run it on a GPU)"),
            std::string::npos)
      << mpc_last_error();
}

TEST(ProgramKernels, RefusesAnObjectThatIsNotLoadable) {
  ScopedCacheDir cache;
  TempDir dir;
  std::string path = dir.file("kernels.mpcb");
  writeProgramBundle(
      path, kernelManifest(),
      {{"host.so", "not an ELF file"}, {"const.0", constantBytes()}});
  LoadedProgram program;
  EXPECT_EQ(program.load(path), MPC_FORMAT_ERROR);
  EXPECT_NE(std::string(mpc_last_error()).find("cannot load its host object"),
            std::string::npos)
      << mpc_last_error();
}

TEST(ProgramKernels, RefusesBadConstantSections) {
  ScopedCacheDir cache;
  TempDir dir;
  std::string path = dir.file("kernels.mpcb");
  writeProgramBundle(path, kernelManifest(), {{"host.so", hostObject()}});
  LoadedProgram program;
  EXPECT_EQ(program.load(path), MPC_FORMAT_ERROR);
  EXPECT_NE(std::string(mpc_last_error())
                .find("constants[0]: the bundle has no section \"const.0\""),
            std::string::npos)
      << mpc_last_error();

  writeProgramBundle(path, kernelManifest(),
                     {{"host.so", hostObject()}, {"const.0", "short"}});
  EXPECT_EQ(program.load(path), MPC_FORMAT_ERROR);
  EXPECT_NE(std::string(mpc_last_error())
                .find("constants[0]: section \"const.0\" holds 5 bytes but "
                      "the f32 [6] constant needs 24"),
            std::string::npos)
      << mpc_last_error();
}

} // namespace
