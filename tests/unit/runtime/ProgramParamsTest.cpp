//===- ProgramParamsTest.cpp - parameter initialisation and checkpoints ---===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Initial values: deterministic for a seed, different across seeds,
// independent of the order and placement of parameters in the manifest,
// exact for the constant initializers (rounded to nearest even), and with
// the right statistics for the random ones (10^5 samples). Checkpoints:
// safetensors round trips, and files with missing, extra or mis-shaped
// tensors refused by name without changing the program.
//
//===----------------------------------------------------------------------===//

#include "Elements.h"
#include "Initializers.h"
#include "ProgramTestUtil.h"
#include "mpc/format/Safetensors.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

using mpc::rt::DType;
using mpc::rt::HostTensor;
using mpc::rt::InitKind;
using mpc::rt::Manifest;
using mpc::rt::ParamSpec;
using mpc::test::LoadedProgram;
using mpc::test::persistent;
using mpc::test::TempDir;
using mpc::test::tensorSpec;
using mpc::test::writeProgramBundle;

namespace {

ParamSpec param(std::string name, DType dtype, std::vector<int64_t> shape,
                InitKind kind, std::map<std::string, double> args = {}) {
  ParamSpec spec;
  static_cast<mpc::rt::TensorSpec &>(spec) =
      tensorSpec(std::move(name), dtype, std::move(shape), persistent(0));
  spec.init.kind = kind;
  spec.init.args = std::move(args);
  return spec;
}

std::vector<ParamSpec> sampleParams() {
  std::vector<ParamSpec> params = {
      param("fc.weight", DType::F32, {256, 512}, InitKind::GlorotUniform),
      param("noise", DType::F32, {100000}, InitKind::Normal, {{"mean", 0.5}, {"std", 2.0}}),
      param("conv.weight", DType::F32, {64, 8, 3, 3}, InitKind::HeNormal),
      param("range", DType::F64, {1000}, InitKind::Uniform, {{"low", -3.0}, {"high", -1.0}}),
      param("half.weight", DType::F16, {32, 16}, InitKind::GlorotUniform, {{"gain", 2.0}}),
      param("brain.noise", DType::BF16, {2000}, InitKind::Normal),
      param("ones", DType::F16, {4}, InitKind::Ones),
      param("third", DType::BF16, {3}, InitKind::Constant, {{"value", 0.1}}),
      param("counts", DType::I32, {3}, InitKind::Zeros),
      param("flags", DType::Bool, {2}, InitKind::Ones),
      param("loss_scale", DType::F32, {}, InitKind::Constant, {{"value", 65536.0}}),
      param("step", DType::I64, {}, InitKind::Constant, {{"value", 7.0}}),
      param("dropout.seed", DType::I64, {}, InitKind::Seed),
      param("seeds32", DType::I32, {3}, InitKind::Seed),
  };
  params[10].trainable = false;
  params[10].state = true;
  params[11].trainable = false;
  params[11].state = true;
  params[12].trainable = false;
  params[12].state = true;
  params[13].trainable = false;
  params[13].state = true;
  return params;
}

/// A program holding `params`, packed in the given order.
Manifest paramManifest(std::vector<ParamSpec> params) {
  Manifest m;
  m.program = "params";
  uint64_t offset = 0;
  for (ParamSpec &spec : params) {
    spec.buffer = persistent(offset);
    offset += (mpc::rt::tensorBytes(spec.dtype, spec.shape) + 255) / 256 * 256;
  }
  m.persistentBytes = offset;
  m.params = std::move(params);
  return m;
}

using Values = std::map<std::string, std::vector<uint8_t>>;

/// Every parameter's bytes, read through the C API.
Values readParams(const LoadedProgram &program) {
  Values values;
  for (size_t i = 0; i < mpc_program_param_count(program.get()); ++i) {
    mpc_tensor_info info;
    EXPECT_EQ(mpc_program_param_info(program.get(), i, &info), MPC_OK);
    std::vector<uint8_t> &bytes = values[info.name];
    bytes.resize(info.bytes);
    EXPECT_EQ(mpc_program_get_param(program.get(), info.name, bytes.data(),
                                    bytes.size()),
              MPC_OK)
        << mpc_last_error();
  }
  return values;
}

Values loadParams(const std::string &path, uint64_t seed) {
  LoadedProgram program;
  EXPECT_EQ(program.load(path, seed), MPC_OK) << mpc_last_error();
  return readParams(program);
}

template <typename T> std::vector<T> as(const std::vector<uint8_t> &bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

std::vector<double> widened(DType dtype, const std::vector<uint8_t> &bytes) {
  std::vector<double> values(bytes.size() / mpc::rt::dtypeSize(dtype));
  mpc::rt::widenElements(dtype, bytes.data(), values.data(), values.size());
  return values;
}

struct Moments {
  double mean, std, min, max;
};

Moments moments(const std::vector<double> &values) {
  double sum = 0.0, squares = 0.0;
  for (double value : values)
    sum += value;
  double mean = sum / values.size();
  for (double value : values)
    squares += (value - mean) * (value - mean);
  return {mean, std::sqrt(squares / values.size()),
          *std::min_element(values.begin(), values.end()),
          *std::max_element(values.begin(), values.end())};
}

class ProgramParams : public ::testing::Test {
protected:
  void SetUp() override {
    path_ = dir_.file("params.mpcb");
    writeProgramBundle(path_, paramManifest(sampleParams()));
  }

  TempDir dir_;
  std::string path_;
};

TEST_F(ProgramParams, SameSeedSameValues) {
  Values first = loadParams(path_, 42), second = loadParams(path_, 42);
  ASSERT_EQ(first.size(), sampleParams().size());
  EXPECT_EQ(first, second);
}

TEST_F(ProgramParams, DifferentSeedsDifferentRandomValues) {
  Values first = loadParams(path_, 1), second = loadParams(path_, 2);
  for (const char *name : {"fc.weight", "noise", "conv.weight", "range", "half.weight",
                           "brain.noise", "dropout.seed", "seeds32"})
    EXPECT_NE(first[name], second[name]) << name;
  for (const char *name :
       {"ones", "third", "counts", "flags", "loss_scale", "step"})
    EXPECT_EQ(first[name], second[name]) << name;
}

TEST_F(ProgramParams, SeedInitializerDrawsRawBits) {
  // 64 bits for an i64, the low 32 of each draw for an i32: not through a
  // double, so more than 53 of them vary.
  Values values = loadParams(path_, 3);
  int64_t seed = 0;
  ASSERT_EQ(values["dropout.seed"].size(), 8u);
  std::memcpy(&seed, values["dropout.seed"].data(), 8);
  EXPECT_NE(seed, 0);
  std::vector<uint32_t> words(3);
  ASSERT_EQ(values["seeds32"].size(), 12u);
  std::memcpy(words.data(), values["seeds32"].data(), 12);
  EXPECT_NE(words[0], words[1]);
  EXPECT_NE(words[1], words[2]);
  uint64_t highBits = 0;
  for (uint64_t s = 1; s <= 8; ++s) {
    Values other = loadParams(path_, s);
    uint64_t bits = 0;
    std::memcpy(&bits, other["dropout.seed"].data(), 8);
    highBits |= bits >> 53;
  }
  EXPECT_NE(highBits, 0u);
}

TEST_F(ProgramParams, ValuesDoNotDependOnOrderOrPlacement) {
  std::vector<ParamSpec> reversed = sampleParams();
  std::reverse(reversed.begin(), reversed.end());
  // Also a parameter more, placed first.
  reversed.insert(reversed.begin(),
                  param("extra", DType::F32, {10}, InitKind::Normal));
  std::string other = dir_.file("reversed.mpcb");
  writeProgramBundle(other, paramManifest(reversed));
  Values original = loadParams(path_, 9), permuted = loadParams(other, 9);
  for (const auto &[name, bytes] : original)
    EXPECT_EQ(permuted[name], bytes) << name;
}

TEST_F(ProgramParams, ConstantInitializersAreExact) {
  Values values = loadParams(path_, 0);
  EXPECT_EQ(as<uint16_t>(values["ones"]),
            (std::vector<uint16_t>{0x3c00, 0x3c00, 0x3c00, 0x3c00}));
  // 0.1 rounds to f32 0x3dcccccd, then to nearest even bf16 0x3dcd.
  EXPECT_EQ(as<uint16_t>(values["third"]),
            (std::vector<uint16_t>{0x3dcd, 0x3dcd, 0x3dcd}));
  EXPECT_EQ(as<int32_t>(values["counts"]), (std::vector<int32_t>{0, 0, 0}));
  EXPECT_EQ(as<uint8_t>(values["flags"]), (std::vector<uint8_t>{1, 1}));
  EXPECT_EQ(as<float>(values["loss_scale"]), std::vector<float>{65536.0f});
  EXPECT_EQ(as<int64_t>(values["step"]), std::vector<int64_t>{7});
}

TEST_F(ProgramParams, GlorotUniformBoundsAndVariance) {
  Values values = loadParams(path_, 3);
  // fan_in 256, fan_out 512.
  double bound = std::sqrt(6.0 / (256 + 512));
  Moments f32 = moments(widened(DType::F32, values["fc.weight"]));
  EXPECT_GE(f32.min, -bound);
  EXPECT_LE(f32.max, bound);
  EXPECT_LT(f32.min, -0.99 * bound);
  EXPECT_GT(f32.max, 0.99 * bound);
  // U(-a, a): mean 0, std a / sqrt(3); 131072 samples.
  EXPECT_NEAR(f32.mean, 0.0, 4 * bound / std::sqrt(3.0 * 131072));
  EXPECT_NEAR(f32.std, bound / std::sqrt(3.0), 0.01 * bound);

  // gain 2, fan_in 32, fan_out 16; fp16 storage rounds, to nearest.
  double halfBound = 2.0 * std::sqrt(6.0 / (32 + 16));
  Moments f16 = moments(widened(DType::F16, values["half.weight"]));
  EXPECT_GE(f16.min, -halfBound * (1 + 0x1p-11));
  EXPECT_LE(f16.max, halfBound * (1 + 0x1p-11));
  EXPECT_NEAR(f16.std, halfBound / std::sqrt(3.0), 0.05 * halfBound);
}

TEST_F(ProgramParams, NormalMeanAndStd) {
  Values values = loadParams(path_, 4);
  // 10^5 samples of N(0.5, 2): the mean within 4 standard errors, the std
  // within 1.5%.
  Moments noise = moments(widened(DType::F32, values["noise"]));
  EXPECT_NEAR(noise.mean, 0.5, 4 * 2.0 / std::sqrt(1e5));
  EXPECT_NEAR(noise.std, 2.0, 0.03);
  EXPECT_LT(noise.min, 0.5 - 3.5 * 2.0); // the tails are there
  EXPECT_GT(noise.max, 0.5 + 3.5 * 2.0);

  Moments brain = moments(widened(DType::BF16, values["brain.noise"]));
  EXPECT_NEAR(brain.mean, 0.0, 4 / std::sqrt(2000.0));
  EXPECT_NEAR(brain.std, 1.0, 0.06);
}

TEST_F(ProgramParams, HeNormalUsesTheConvolutionFanIn) {
  Values values = loadParams(path_, 5);
  // [out 64, in 8, 3, 3]: fan_in 8 * 9 = 72, 4608 samples.
  Moments conv = moments(widened(DType::F32, values["conv.weight"]));
  double std = std::sqrt(2.0) / std::sqrt(72.0);
  EXPECT_NEAR(conv.mean, 0.0, 4 * std / std::sqrt(4608.0));
  EXPECT_NEAR(conv.std, std, 0.05 * std);
}

TEST_F(ProgramParams, UniformStaysInItsRange) {
  Values values = loadParams(path_, 6);
  Moments range = moments(widened(DType::F64, values["range"]));
  EXPECT_GE(range.min, -3.0);
  EXPECT_LT(range.max, -1.0);
  EXPECT_NEAR(range.mean, -2.0, 4 * (2.0 / std::sqrt(12.0)) / std::sqrt(1e3));
}

TEST(Initializers, Fans) {
  EXPECT_EQ(mpc::rt::fans({64, 128}),
            std::make_pair(int64_t(64), int64_t(128)));
  EXPECT_EQ(mpc::rt::fans({16, 3, 5}),
            std::make_pair(int64_t(15), int64_t(80)));
  EXPECT_EQ(mpc::rt::fans({32, 8, 3, 3}),
            std::make_pair(int64_t(72), int64_t(288)));
}

TEST(Initializers, TensorSeedsDependOnNameAndSeed) {
  EXPECT_EQ(mpc::rt::tensorSeed("w", 1), mpc::rt::tensorSeed("w", 1));
  EXPECT_NE(mpc::rt::tensorSeed("w", 1), mpc::rt::tensorSeed("w", 2));
  EXPECT_NE(mpc::rt::tensorSeed("w", 1), mpc::rt::tensorSeed("b", 1));
}

TEST_F(ProgramParams, InfoDescribesParametersAndState) {
  LoadedProgram program;
  ASSERT_EQ(program.load(path_), MPC_OK) << mpc_last_error();
  ASSERT_EQ(mpc_program_param_count(program.get()), 14u);
  mpc_tensor_info info;
  ASSERT_EQ(mpc_program_param_info(program.get(), 0, &info), MPC_OK);
  EXPECT_STREQ(info.name, "fc.weight");
  EXPECT_EQ(info.flags, MPC_TENSOR_TRAINABLE);
  EXPECT_EQ(info.bytes, 256u * 512u * 4u);
  ASSERT_EQ(mpc_program_param_info(program.get(), 11, &info), MPC_OK);
  EXPECT_STREQ(info.name, "step");
  EXPECT_STREQ(info.dtype, "i64");
  EXPECT_EQ(info.rank, 0u);
  EXPECT_EQ(info.flags, MPC_TENSOR_STATE);
  EXPECT_EQ(mpc_program_param_info(program.get(), 14, &info), MPC_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mpc_last_error()).find("index 14 is out of range"), std::string::npos);
}

TEST_F(ProgramParams, SetParamReplacesTheValue) {
  LoadedProgram program;
  ASSERT_EQ(program.load(path_), MPC_OK) << mpc_last_error();
  std::vector<float> scale = {1024.0f};
  ASSERT_EQ(mpc_program_set_param(program.get(), "loss_scale", scale.data(),
                                  sizeof(float)),
            MPC_OK);
  float read = 0;
  ASSERT_EQ(
      mpc_program_get_param(program.get(), "loss_scale", &read, sizeof read),
      MPC_OK);
  EXPECT_EQ(read, 1024.0f);
  EXPECT_EQ(mpc_program_set_param(program.get(), "loss_scale", scale.data(),
                                  2 * sizeof(float)),
            MPC_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mpc_last_error())
                .find("parameter \"loss_scale\" is f32 [] (4 bytes), not 8 "
                      "bytes"),
            std::string::npos)
      << mpc_last_error();
  EXPECT_EQ(mpc_program_get_param(program.get(), "lr", &read, sizeof read),
            MPC_NOT_FOUND);
  EXPECT_NE(std::string(mpc_last_error()).find("no parameter named \"lr\""),
            std::string::npos)
      << mpc_last_error();
}

TEST_F(ProgramParams, SafetensorsRoundTrip) {
  std::string checkpoint = dir_.file("checkpoint.safetensors");
  Values saved;
  {
    LoadedProgram program;
    ASSERT_EQ(program.load(path_, 11), MPC_OK) << mpc_last_error();
    saved = readParams(program);
    ASSERT_EQ(mpc_program_save_params(program.get(), checkpoint.c_str()),
              MPC_OK)
        << mpc_last_error();
  }
  // The file is plain safetensors, named by parameter.
  std::map<std::string, HostTensor> tensors;
  std::map<std::string, std::string> metadata;
  ASSERT_TRUE(mpc::rt::readSafetensors(checkpoint, tensors, &metadata).isOk());
  ASSERT_EQ(tensors.size(), saved.size());
  EXPECT_EQ(tensors["fc.weight"].shape, (std::vector<int64_t>{256, 512}));
  EXPECT_EQ(tensors["third"].dtype, DType::BF16);
  EXPECT_EQ(tensors["step"].bytes, saved["step"]);
  EXPECT_EQ(metadata["mpc.program"], "params");

  LoadedProgram other;
  ASSERT_EQ(other.load(path_, 12), MPC_OK) << mpc_last_error();
  EXPECT_NE(readParams(other)["fc.weight"], saved["fc.weight"]);
  ASSERT_EQ(mpc_program_load_params(other.get(), checkpoint.c_str()), MPC_OK)
      << mpc_last_error();
  EXPECT_EQ(readParams(other), saved);
}

/// Expects the last call to have failed with `code` and a message holding
/// `fragment`.
void expectLastError(mpc_status_code status, mpc_status_code code, const std::string &fragment) {
  EXPECT_EQ(status, code);
  EXPECT_NE(std::string(mpc_last_error()).find(fragment), std::string::npos)
      << "expected \"" << fragment << "\" in: " << mpc_last_error();
}

TEST_F(ProgramParams, RefusesValuesNoParameterHolds) {
  LoadedProgram program;
  ASSERT_EQ(program.load(path_, 14), MPC_OK) << mpc_last_error();
  Values before = readParams(program);
  // Through the C API: a NaN weight, a loss scale that is 0, negative or
  // infinite.
  std::vector<float> weight = as<float>(before["fc.weight"]);
  weight[17] = NAN;
  expectLastError(mpc_program_set_param(program.get(), "fc.weight", weight.data(),
                                        weight.size() * sizeof(float)),
                  MPC_INVALID_ARGUMENT,
                  "\"fc.weight\" holds NaN at element 17; parameters and optimizer state "
                  "must be finite");
  for (auto [scale, shown] :
       {std::pair{0.0f, "is 0;"}, std::pair{-2.0f, "is -2;"}, std::pair{INFINITY, "holds +inf;"}})
    expectLastError(mpc_program_set_param(program.get(), "loss_scale", &scale, sizeof scale),
                    MPC_INVALID_ARGUMENT, std::string("\"loss_scale\" ") + shown);
  EXPECT_EQ(readParams(program), before);

  // In a checkpoint: refused by the tensor's name, and nothing is loaded.
  std::string checkpoint = dir_.file("checkpoint.safetensors");
  ASSERT_EQ(mpc_program_save_params(program.get(), checkpoint.c_str()), MPC_OK);
  std::map<std::string, HostTensor> tensors;
  ASSERT_TRUE(mpc::rt::readSafetensors(checkpoint, tensors, nullptr).isOk());
  auto refused = [&](std::map<std::string, HostTensor> edited, const std::string &fragment) {
    std::string path = dir_.file("edited.safetensors");
    ASSERT_TRUE(mpc::rt::writeSafetensors(path, edited, {}).isOk());
    expectLastError(mpc_program_load_params(program.get(), path.c_str()), MPC_FORMAT_ERROR,
                    path + ": tensor " + fragment);
    EXPECT_EQ(readParams(program), before);
  };
  std::map<std::string, HostTensor> zeroScale = tensors;
  float zero = 0.0f;
  std::memcpy(zeroScale["loss_scale"].bytes.data(), &zero, sizeof zero);
  refused(zeroScale, "\"loss_scale\" is 0; a loss scale must be a finite number > 0");
  std::map<std::string, HostTensor> infinite = tensors;
  uint16_t bf16Infinity = 0x7f80;
  std::memcpy(infinite["third"].bytes.data() + 2 * sizeof bf16Infinity, &bf16Infinity,
              sizeof bf16Infinity);
  refused(infinite, "\"third\" holds +inf at element 2");
}

TEST_F(ProgramParams, RefusesMismatchedCheckpointsByName) {
  LoadedProgram program;
  ASSERT_EQ(program.load(path_, 13), MPC_OK) << mpc_last_error();
  std::string checkpoint = dir_.file("checkpoint.safetensors");
  ASSERT_EQ(mpc_program_save_params(program.get(), checkpoint.c_str()), MPC_OK);
  std::map<std::string, HostTensor> tensors;
  ASSERT_TRUE(mpc::rt::readSafetensors(checkpoint, tensors, nullptr).isOk());
  Values before = readParams(program);

  // Missing, extra, mis-shaped and mis-typed tensors, all in one file.
  tensors.erase("noise");
  tensors["fc.bias"] = mpc::test::makeTensor<float>(DType::F32, {2}, {1, 2});
  tensors["range"].shape = {10, 100};
  tensors["counts"].dtype = DType::F32;
  std::string bad = dir_.file("bad.safetensors");
  ASSERT_TRUE(mpc::rt::writeSafetensors(bad, tensors, {}).isOk());
  EXPECT_EQ(mpc_program_load_params(program.get(), bad.c_str()),
            MPC_FORMAT_ERROR);
  std::string error = mpc_last_error();
  for (const char *fragment :
       {"does not fit program \"params\"", "tensor \"noise\" is missing",
        "tensor \"fc.bias\" is not a parameter of the program",
        "tensor \"range\" is f64 [10, 100] but the program's parameter is "
        "f64 [1000]",
        "tensor \"counts\" is f32 [3] but the program's parameter is i32 [3]"})
    EXPECT_NE(error.find(fragment), std::string::npos)
        << fragment << "\nin: " << error;
  EXPECT_EQ(readParams(program), before);

  EXPECT_EQ(mpc_program_load_params(program.get(),
                                    dir_.file("none.safetensors").c_str()),
            MPC_NOT_FOUND);
}

} // namespace

//===----------------------------------------------------------------------===//
// Working copies (mpg-master-weights): low-precision copies of parameters
// that the runtime keeps equal to their parameter converted.
//===----------------------------------------------------------------------===//

/// A master "w" (f32), its f16 and bf16 copies, and another parameter.
std::vector<ParamSpec> workingCopyParams() {
  std::vector<ParamSpec> params = {
      param("w", DType::F32, {64, 32}, InitKind::GlorotUniform),
      param("w.f16", DType::F16, {64, 32}, InitKind::Zeros),
      param("w.bf16", DType::BF16, {64, 32}, InitKind::Zeros),
      param("b", DType::F32, {32}, InitKind::Zeros),
  };
  params[1].castOf = params[2].castOf = "w";
  params[1].state = params[2].state = true;
  return params;
}

/// The bytes of `values` (f32) converted to `dtype`.
std::vector<uint8_t> converted(const std::vector<uint8_t> &values, DType dtype) {
  std::vector<float> floats = as<float>(values);
  std::vector<uint8_t> out(floats.size() * mpc::rt::dtypeSize(dtype));
  mpc::rt::narrowElements(floats.data(), dtype, out.data(), floats.size());
  return out;
}

TEST(WorkingCopies, FollowTheirParameterOnLoadSetAndCheckpointLoad) {
  TempDir dir;
  std::string path = dir.file("copies.mpcb");
  writeProgramBundle(path, paramManifest(workingCopyParams()));
  LoadedProgram program;
  ASSERT_EQ(program.load(path, 3), MPC_OK) << mpc_last_error();
  Values values = readParams(program);
  EXPECT_EQ(values["w.f16"], converted(values["w"], DType::F16));
  EXPECT_EQ(values["w.bf16"], converted(values["w"], DType::BF16));

  // The info marks them; setting one is refused, setting the master
  // refreshes both.
  mpc_tensor_info info;
  ASSERT_EQ(mpc_program_param_info(program.get(), 1, &info), MPC_OK);
  EXPECT_TRUE(info.flags & MPC_TENSOR_WORKING_COPY);
  ASSERT_EQ(mpc_program_param_info(program.get(), 0, &info), MPC_OK);
  EXPECT_FALSE(info.flags & MPC_TENSOR_WORKING_COPY);
  std::vector<uint8_t> half(values["w.f16"].size());
  EXPECT_EQ(mpc_program_set_param(program.get(), "w.f16", half.data(), half.size()),
            MPC_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mpc_last_error())
                .find("\"w.f16\" is the working copy of parameter \"w\"; set that one"),
            std::string::npos)
      << mpc_last_error();
  std::vector<float> w(64 * 32);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = 1.0f / 3.0f + static_cast<float>(i); // not exact in f16 or bf16
  ASSERT_EQ(mpc_program_set_param(program.get(), "w", w.data(), w.size() * sizeof(float)),
            MPC_OK);
  values = readParams(program);
  EXPECT_EQ(values["w.f16"], converted(values["w"], DType::F16));
  EXPECT_EQ(values["w.bf16"], converted(values["w"], DType::BF16));

  // Checkpoints leave them out; loading one refreshes them.
  std::string checkpoint = dir.file("copies.safetensors");
  ASSERT_EQ(mpc_program_save_params(program.get(), checkpoint.c_str()), MPC_OK);
  std::map<std::string, HostTensor> tensors;
  ASSERT_TRUE(mpc::rt::readSafetensors(checkpoint, tensors, nullptr).isOk());
  EXPECT_EQ(tensors.size(), 2u);
  EXPECT_EQ(tensors.count("w.f16"), 0u);
  LoadedProgram other;
  ASSERT_EQ(other.load(path, 4), MPC_OK) << mpc_last_error();
  ASSERT_NE(readParams(other)["w.f16"], values["w.f16"]);
  ASSERT_EQ(mpc_program_load_params(other.get(), checkpoint.c_str()), MPC_OK)
      << mpc_last_error();
  EXPECT_EQ(readParams(other), values);

  // A checkpoint that holds a working copy is refused by name.
  tensors["w.f16"].dtype = DType::F16;
  tensors["w.f16"].shape = {64, 32};
  tensors["w.f16"].bytes = values["w.f16"];
  std::string withCopy = dir.file("with-copy.safetensors");
  ASSERT_TRUE(mpc::rt::writeSafetensors(withCopy, tensors, {}).isOk());
  EXPECT_EQ(mpc_program_load_params(other.get(), withCopy.c_str()), MPC_FORMAT_ERROR);
  EXPECT_NE(std::string(mpc_last_error())
                .find("tensor \"w.f16\" is a working copy, which checkpoints leave out"),
            std::string::npos)
      << mpc_last_error();
}

TEST(WorkingCopies, ManifestRefusesBadCopies) {
  TempDir dir;
  struct Case {
    const char *castOf;
    DType dtype;
    const char *message;
  };
  for (Case c : {Case{"nothing", DType::F16, "names no parameter: \"nothing\""},
                 Case{"b", DType::F16, "a working copy is f16 or bf16 and copies an f32"},
                 Case{"w", DType::F32, "a working copy is f16 or bf16 and copies an f32"}}) {
    std::vector<ParamSpec> params = workingCopyParams();
    params[1].castOf = c.castOf;
    params[1].dtype = c.dtype;
    std::string path = dir.file("bad.mpcb");
    writeProgramBundle(path, paramManifest(params));
    LoadedProgram program;
    EXPECT_EQ(program.load(path), MPC_FORMAT_ERROR) << c.castOf;
    EXPECT_NE(std::string(mpc_last_error()).find(c.message), std::string::npos)
        << mpc_last_error();
    EXPECT_NE(std::string(mpc_last_error()).find("params[1].cast_of"), std::string::npos)
        << mpc_last_error();
  }
}
