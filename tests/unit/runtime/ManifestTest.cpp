//===- ManifestTest.cpp - the program description inside a bundle ---------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// writeManifest and parseManifest round trip a manifest that uses every
// feature; a hand-written manifest in the documented format parses; every
// structural error (JSON text edits) and every semantic error (edits of the
// parsed manifest, checked by verifyManifest and again through the JSON) is
// refused with the JSON path of the problem.
//
//===----------------------------------------------------------------------===//

#include "mpc/format/Manifest.h"

#include "ProgramTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>

using mpc::rt::AllReduceOp;
using mpc::rt::AllReduceStep;
using mpc::rt::BufferSpace;
using mpc::rt::ConstantSpec;
using mpc::rt::CopyStep;
using mpc::rt::DType;
using mpc::rt::Epilogue;
using mpc::rt::GemmStep;
using mpc::rt::InitKind;
using mpc::rt::KernelSpec;
using mpc::rt::LaunchStep;
using mpc::rt::Manifest;
using mpc::rt::ParamSpec;
using mpc::rt::parseManifest;
using mpc::rt::Status;
using mpc::rt::verifyManifest;
using mpc::rt::writeManifest;
using mpc::test::arena;
using mpc::test::persistent;
using mpc::test::tensorSpec;

namespace {

ParamSpec param(std::string name, DType dtype, std::vector<int64_t> shape,
                uint64_t offset, InitKind kind,
                std::map<std::string, double> args = {}) {
  ParamSpec spec;
  static_cast<mpc::rt::TensorSpec &>(spec) =
      tensorSpec(std::move(name), dtype, std::move(shape), persistent(offset));
  spec.init.kind = kind;
  spec.init.args = std::move(args);
  return spec;
}

/// A manifest with every kind of entry and step.
Manifest sampleManifest() {
  Manifest m;
  m.program = "mlp";
  m.arenaBytes = 4096;
  m.persistentBytes = 2048;
  m.inputs = {tensorSpec("pixels", DType::F32, {4, 8}, arena(0)),
              tensorSpec("labels", DType::I32, {4}, arena(128))};
  m.outputs = {tensorSpec("logits", DType::F32, {4, 3}, arena(256))};
  m.params = {
      param("fc.weight", DType::F32, {8, 3}, 0, InitKind::GlorotUniform,
            {{"gain", 1.0}}),
      param("fc.bias", DType::F16, {3}, 128, InitKind::Zeros),
      param("step", DType::I64, {}, 256, InitKind::Constant, {{"value", 0}}),
      param("noise", DType::BF16, {2, 2}, 512, InitKind::Normal,
            {{"mean", 0.0}, {"std", 0.5}}),
      param("range", DType::F32, {5}, 640, InitKind::Uniform,
            {{"low", -1.0}, {"high", 1.0}}),
      param("conv", DType::F32, {4, 2, 3, 3}, 768, InitKind::HeNormal,
            {{"gain", std::sqrt(2.0)}}),
  };
  m.params[2].trainable = false;
  m.params[2].state = true;
  ConstantSpec constant;
  constant.dtype = DType::F32;
  constant.shape = {3};
  constant.buffer = persistent(1088);
  constant.section = "const.0";
  m.constants = {constant};
  m.kernels = {KernelSpec{"k0", 1, 256}};

  GemmStep dense;
  dense.a = arena(0);
  dense.b = persistent(0);
  dense.c = arena(512);
  dense.bias = persistent(1088);
  dense.m = 4;
  dense.n = 3;
  dense.k = 8;
  dense.epilogue = Epilogue::BiasRelu;
  GemmStep batched;
  batched.a = arena(0);
  batched.b = persistent(0);
  batched.c = arena(2048);
  batched.cDtype = DType::F16;
  batched.m = 2;
  batched.n = 3;
  batched.k = 8;
  batched.batch = 2;
  batched.strideA = 16;
  batched.offsetC = 2;
  batched.strideC = 8;
  batched.transposeA = true;
  batched.transposeB = true;
  batched.epilogue = Epilogue::Gelu;
  m.steps = {dense, LaunchStep{"k0", {arena(512), persistent(128), arena(256)}},
             CopyStep{arena(256), arena(1024), 48}, batched};
  return m;
}

TEST(Manifest, RoundTrip) {
  Manifest original = sampleManifest();
  ASSERT_TRUE(verifyManifest(original).isOk())
      << verifyManifest(original).message();
  std::string json = writeManifest(original);
  Manifest parsed;
  Status status = parseManifest(json, parsed);
  ASSERT_TRUE(status.isOk()) << status.message() << "\n" << json;
  EXPECT_EQ(writeManifest(parsed), json);

  EXPECT_EQ(parsed.program, "mlp");
  EXPECT_EQ(parsed.arenaBytes, 4096u);
  ASSERT_EQ(parsed.inputs.size(), 2u);
  EXPECT_EQ(parsed.inputs[1].name, "labels");
  EXPECT_EQ(parsed.inputs[1].dtype, DType::I32);
  EXPECT_EQ(parsed.inputs[1].buffer.offset, 128u);
  ASSERT_EQ(parsed.params.size(), 6u);
  EXPECT_EQ(parsed.params[2].shape, std::vector<int64_t>{});
  EXPECT_TRUE(parsed.params[2].state);
  EXPECT_FALSE(parsed.params[2].trainable);
  EXPECT_EQ(parsed.params[5].init.kind, InitKind::HeNormal);
  EXPECT_EQ(parsed.params[5].init.arg("gain"), std::sqrt(2.0));
  EXPECT_EQ(parsed.params[3].init.arg("std"), 0.5);
  ASSERT_EQ(parsed.constants.size(), 1u);
  EXPECT_EQ(parsed.constants[0].section, "const.0");
  ASSERT_EQ(parsed.steps.size(), 4u);
  const auto &dense = std::get<GemmStep>(parsed.steps[0]);
  ASSERT_TRUE(dense.bias.has_value());
  EXPECT_EQ(dense.bias->space, BufferSpace::Persistent);
  EXPECT_EQ(dense.epilogue, Epilogue::BiasRelu);
  const auto &batched = std::get<GemmStep>(parsed.steps[3]);
  EXPECT_FALSE(batched.bias.has_value());
  EXPECT_EQ(batched.cDtype, DType::F16);
  EXPECT_TRUE(batched.transposeA);
  EXPECT_EQ(batched.strideC, 8);
  const auto &launch = std::get<LaunchStep>(parsed.steps[1]);
  ASSERT_EQ(launch.buffers.size(), 3u);
  EXPECT_EQ(launch.buffers[1].space, BufferSpace::Persistent);
  EXPECT_EQ(std::get<CopyStep>(parsed.steps[2]).bytes, 48u);
}

TEST(Manifest, WriterOmitsTheDtypeOfAnAbsentBias) {
  std::string json = writeManifest(sampleManifest());
  EXPECT_NE(json.find("\"bias\":null"), std::string::npos);
  EXPECT_EQ(json.find("\"bias_dtype\""), json.rfind("\"bias_dtype\""));
}

TEST(Manifest, ParsesTheDocumentedFormat) {
  const char *json = R"({"format": "mpc-program", "version": 1,
    "program": "mlp", "arena_bytes": 49408, "persistent_bytes": 38656,
    "inputs": [{"name": "pixels", "dtype": "f32", "shape": [64, 64],
                "buffer": {"space": "arena", "offset": 32768}}],
    "outputs": [{"name": "logits", "dtype": "f32", "shape": [64, 10],
                 "buffer": {"space": "arena", "offset": 0}}],
    "params": [{"name": "fc1.weight", "dtype": "f32", "shape": [64, 128],
                "buffer": {"space": "persistent", "offset": 0},
                "init": {"kind": "glorot_uniform", "args": {"gain": 1.0}},
                "trainable": true, "state": false},
               {"name": "fc1.bias", "dtype": "f32", "shape": [128],
                "buffer": {"space": "persistent", "offset": 32768},
                "init": {"kind": "normal"}, "trainable": true,
                "state": false}],
    "constants": [{"dtype": "f32", "shape": [3],
                   "buffer": {"space": "persistent", "offset": 33792},
                   "section": "const.0"}],
    "kernels": [{"name": "k0", "grid": 32, "block": 256}],
    "steps": [
      {"op": "launch", "kernel": "k0",
       "buffers": [{"space": "arena", "offset": 0},
                   {"space": "persistent", "offset": 33792}]},
      {"op": "gemm", "a": {"space": "arena", "offset": 32768},
       "b": {"space": "persistent", "offset": 0},
       "c": {"space": "arena", "offset": 0},
       "bias": {"space": "persistent", "offset": 32768},
       "a_dtype": "f32", "b_dtype": "f32", "c_dtype": "f32",
       "bias_dtype": "f32", "m": 64, "n": 128, "k": 64, "batch": 1,
       "offset_a": 0, "offset_b": 0, "offset_c": 0, "stride_a": 0,
       "stride_b": 0, "stride_c": 0, "transpose_a": false,
       "transpose_b": false, "epilogue": "bias_relu"},
      {"op": "copy", "source": {"space": "arena", "offset": 0},
       "target": {"space": "arena", "offset": 40960}, "bytes": 64}]})";
  Manifest parsed;
  Status status = parseManifest(json, parsed);
  ASSERT_TRUE(status.isOk()) << status.message();
  EXPECT_EQ(parsed.kernels[0].grid, 32);
  // Absent arguments take their defaults.
  EXPECT_EQ(parsed.params[1].init.args.at("mean"), 0.0);
  EXPECT_EQ(parsed.params[1].init.args.at("std"), 1.0);
  EXPECT_EQ(mpc::rt::tensorBytes(DType::F16, {3, 5}), 30u);
}

void expectRefused(const Status &status, mpc_status_code code,
                   const std::string &message) {
  ASSERT_FALSE(status.isOk()) << "accepted; expected: " << message;
  EXPECT_EQ(status.code(), code) << status.message();
  EXPECT_EQ(status.message().substr(0, message.size()), message)
      << "full message: " << status.message();
}

struct TextCase {
  const char *from;
  const char *to;
  mpc_status_code code;
  const char *message; ///< how the message starts
};

TEST(Manifest, RefusesStructuralErrors) {
  const std::string json = writeManifest(sampleManifest());
  const TextCase cases[] = {
      {"{\"format\"", "[\"format\"", MPC_FORMAT_ERROR,
       "invalid JSON at byte 9 (line 1, column 10): syntax error"},
      {"\"format\":\"mpc-program\"", "\"format\":\"onnx\"", MPC_FORMAT_ERROR,
       "format: expected \"mpc-program\", got \"onnx\""},
      {"\"version\":1", "\"version\":2", MPC_UNSUPPORTED,
       "version: manifest version 2, this runtime reads version 1"},
      {"\"program\":\"mlp\"", "\"program\":\"mlp\",\"extra\":1", MPC_FORMAT_ERROR,
       "extra: unknown key"},
      {"\"arena_bytes\":4096", "\"arena_bytes\":-1", MPC_FORMAT_ERROR,
       "arena_bytes: -1 is negative"},
      {"\"arena_bytes\":4096", "\"arena_bytes\":\"4096\"", MPC_FORMAT_ERROR,
       "arena_bytes: expected an integer, got a string"},
      {"\"shape\":[4,8]", "\"shape\":{}", MPC_FORMAT_ERROR,
       "inputs[0].shape: expected an array, got an object"},
      {",\"trainable\":false,\"state\":true", ",\"state\":true", MPC_FORMAT_ERROR,
       "params[2].trainable: missing"},
      {"\"name\":\"labels\",\"dtype\":\"i32\"", "\"name\":\"labels\",\"dtype\":\"f8\"",
       MPC_FORMAT_ERROR, "inputs[1].dtype: unknown dtype \"f8\""},
      {"\"shape\":[4,8]", "\"shape\":[4,-8]", MPC_FORMAT_ERROR,
       "inputs[0].shape[1]: expected a non-negative integer dimension"},
      {"\"shape\":[4,8],\"buffer\":{\"space\":\"arena\"",
       "\"shape\":[4,8],\"buffer\":{\"space\":\"gpu\"", MPC_FORMAT_ERROR,
       "inputs[0].buffer.space: expected \"arena\" or \"persistent\", got "
       "\"gpu\""},
      {"\"kind\":\"glorot_uniform\"", "\"kind\":\"xavier\"", MPC_FORMAT_ERROR,
       "params[0].init.kind: unknown initializer \"xavier\""},
      {"\"args\":{\"gain\":1.0}", "\"args\":{\"gain\":\"1\"}", MPC_FORMAT_ERROR,
       "params[0].init.args.gain: expected a number, got a string"},
      {"\"op\":\"copy\"", "\"op\":\"memset\"", MPC_FORMAT_ERROR,
       "steps[2].op: expected \"launch\", \"gemm\", \"copy\" or \"all_reduce\""},
      {"\"bias\":{\"space\":\"persistent\",\"offset\":1088}", "\"bias\":null", MPC_FORMAT_ERROR,
       "steps[0].bias_dtype: given without a bias"},
      {",\"bias_dtype\":\"f32\"", "", MPC_FORMAT_ERROR,
       "steps[0].bias_dtype: missing (the step has a bias)"},
      {"\"m\":4", "\"m\":4.5", MPC_FORMAT_ERROR, "steps[0].m: expected an integer, got a fraction"},
      {"\"m\":4", "\"m\":99999999999999999999", MPC_FORMAT_ERROR,
       "steps[0].m: expected an integer"},
      {"\"epilogue\":\"gelu\"", "\"epilogue\":\"swish\"", MPC_FORMAT_ERROR,
       "steps[3].epilogue: unknown epilogue \"swish\""},
      {"\"epilogue\":\"gelu\"", "\"epilogue\":\"gelu\",\"alpha\":1", MPC_FORMAT_ERROR,
       "steps[3].alpha: unknown key"},
      {"\"transpose_a\":true", "\"transpose_a\":1", MPC_FORMAT_ERROR,
       "steps[3].transpose_a: expected true or false, got a number"},
      {"{\"op\":\"launch\",\"kernel\":\"k0\",\"buffers\":[{",
       "{\"op\":\"launch\",\"kernel\":\"k0\",\"buffers\":[7,{", MPC_FORMAT_ERROR,
       "steps[1].buffers[0]: expected an object, got a "
       "number"},
  };
  for (const TextCase &c : cases) {
    SCOPED_TRACE(std::string(c.from) + " -> " + c.to);
    size_t at = json.find(c.from);
    ASSERT_NE(at, std::string::npos);
    ASSERT_EQ(json.find(c.from, at + 1), std::string::npos) << "not unique";
    std::string edited = json;
    edited.replace(at, std::strlen(c.from), c.to);
    Manifest out;
    out.program = "untouched";
    expectRefused(parseManifest(edited, out), c.code, c.message);
    EXPECT_EQ(out.program, "untouched");
  }
}

struct EditCase {
  std::function<void(Manifest &)> edit;
  const char *message; ///< how the message starts
  /// False when the edit cannot be written as JSON (a non-finite number).
  bool viaJson = true;
};

GemmStep &gemmStep(Manifest &m, size_t index) {
  return std::get<GemmStep>(m.steps[index]);
}

/// Verifies `m`, writes it (the JSON must hold `fragment`) and parses the
/// JSON back into `parsed`, which must succeed; returns the JSON.
std::string writeAndParse(const Manifest &m, const std::string &fragment, Manifest &parsed) {
  Status status = verifyManifest(m);
  EXPECT_TRUE(status.isOk()) << status.message();
  std::string json = writeManifest(m);
  EXPECT_NE(json.find(fragment), std::string::npos) << json;
  status = parseManifest(json, parsed);
  EXPECT_TRUE(status.isOk()) << status.message();
  return json;
}

/// Each edit of the manifest `make` returns is refused by verifyManifest,
/// and again through the JSON when it can be written.
template <size_t N>
void expectEditsRefused(Manifest (*make)(), const EditCase (&cases)[N]) {
  for (size_t i = 0; i < N; ++i) {
    SCOPED_TRACE("case " + std::to_string(i) + ": " + cases[i].message);
    Manifest m = make();
    cases[i].edit(m);
    expectRefused(verifyManifest(m), MPC_FORMAT_ERROR, cases[i].message);
    if (cases[i].viaJson) {
      Manifest out;
      expectRefused(parseManifest(writeManifest(m), out), MPC_FORMAT_ERROR,
                    cases[i].message);
    }
  }
}

TEST(Manifest, RefusesSemanticErrors) {
  const double kInf = std::numeric_limits<double>::infinity();
  const EditCase cases[] = {
      {[](Manifest &m) { m.inputs[0].buffer.offset = 4000; },
       "inputs[0].buffer.offset: the input's f32 [4, 8] needs bytes "
       "[4000, 4128) of the arena, which has 4096 (arena_bytes)"},
      {[](Manifest &m) { m.inputs[1].buffer.offset = 130; },
       "inputs[1].buffer.offset: 130 is not a multiple of 4, the size of i32"},
      {[](Manifest &m) { m.inputs[1].name = "pixels"; },
       "inputs[1].name: another input is named \"pixels\""},
      {[](Manifest &m) { m.outputs[0].name = ""; }, "outputs[0].name: empty"},
      {[](Manifest &m) { m.inputs[0].name = "pix\nels"; },
       "inputs[0].name: \"pix\\nels\" holds a control character"},
      // Inputs, parameters and constants each own their bytes.
      {[](Manifest &m) { m.params[1].buffer.offset = 64; },
       "params[1].buffer: bytes [64, 70) of persistent memory overlap those of "
       "params[0], [0, 96)"},
      {[](Manifest &m) { m.constants[0].buffer.offset = 1024; },
       "constants[0].buffer: bytes [1024, 1036) of persistent memory overlap "
       "those of params[5], [768, 1056)"},
      {[](Manifest &m) { m.inputs[1].buffer.offset = 64; },
       "inputs[1].buffer: bytes [64, 80) of the arena overlap those of "
       "inputs[0], [0, 128)"},
      {[](Manifest &m) { m.inputs[1].buffer = persistent(80); },
       "inputs[1].buffer: bytes [80, 96) of persistent memory overlap those of "
       "params[0], [0, 96)"},
      // A constant initializer's value fits the parameter's type.
      {[](Manifest &m) {
         m.params[4].init = {InitKind::Constant, {{"value", 1e39}}};
       },
       "params[4].init.args.value: 1e+39 is out of the range of f32"},
      {[](Manifest &m) {
         m.params[1].init = {InitKind::Constant, {{"value", -70000}}};
       },
       "params[1].init.args.value: -70000 is out of the range of f16"},
      {[](Manifest &m) {
         m.outputs[0].shape = {4, -3};
       },
       "outputs[0].shape[1]: -3 is negative", false},
      {[](Manifest &m) {
         m.outputs[0].shape = {1 << 30, 1 << 30, 1 << 30};
       },
       "outputs[0].buffer.offset: the output's f32 [1073741824, 1073741824, "
       "1073741824] does not fit in 64-bit byte offsets"},
      {[](Manifest &m) { m.params[0].buffer.space = BufferSpace::Arena; },
       "params[0].buffer.space: a parameter must live in persistent memory"},
      {[](Manifest &m) { m.params[1].name = "fc.weight"; },
       "params[1].name: another parameter is named \"fc.weight\""},
      {[](Manifest &m) { m.params[4].buffer.offset = 2040; },
       "params[4].buffer.offset: the parameter's f32 [5] needs bytes "
       "[2040, 2060) of persistent memory, which has 2048 "
       "(persistent_bytes)"},
      {[](Manifest &m) { m.params[0].shape = {24}; },
       "params[0].init.kind: glorot_uniform needs a shape of rank 2 or more, "
       "the parameter has [24]"},
      {[](Manifest &m) { m.params[0].init.args["scale"] = 2; },
       "params[0].init.args.scale: glorot_uniform takes no argument "
       "\"scale\""},
      {[&](Manifest &m) { m.params[0].init.args["gain"] = kInf; },
       "params[0].init.args.gain: must be finite", false},
      {[](Manifest &m) { m.params[0].init.args["gain"] = -1; },
       "params[0].init.args.gain: must not be negative"},
      {[](Manifest &m) { m.params[3].init.args["std"] = -0.5; },
       "params[3].init.args.std: must not be negative"},
      {[](Manifest &m) { m.params[4].init.args["low"] = 2; },
       "params[4].init.args: low 2.000000 is above high 1.000000"},
      {[](Manifest &m) {
         m.params[2].init = {InitKind::Normal, {}};
       },
       "params[2].init.kind: normal needs a floating-point dtype, the "
       "parameter is i64"},
      {[](Manifest &m) {
         m.params[0].init = {InitKind::Seed, {}};
       },
       "params[0].init.kind: seed needs an i32 or i64 dtype, the parameter is f32"},
      {[](Manifest &m) { m.params[2].init.args["value"] = 0.5; },
       "params[2].init.args.value: 0.500000 is not a value of i64"},
      {[](Manifest &m) {
         m.params[2].dtype = DType::Bool;
         m.params[2].init.args["value"] = 2;
       },
       "params[2].init.args.value: 2.000000 is not a value of i1"},
      {[](Manifest &m) { m.constants[0].section = ""; }, "constants[0].section: empty"},
      {[](Manifest &m) { m.constants[0].buffer = arena(0); },
       "constants[0].buffer.space: a constant must live in persistent "
       "memory"},
      {[](Manifest &m) { m.kernels[0].name = "2k"; },
       "kernels[0].name: \"2k\" is not a C identifier"},
      {[](Manifest &m) { m.kernels.push_back(m.kernels[0]); },
       "kernels[1].name: another kernel is named \"k0\""},
      {[](Manifest &m) { m.kernels[0].block = 2048; },
       "kernels[0].block: 2048 is outside [1, 1024]"},
      {[](Manifest &m) { m.kernels[0].grid = 0; }, "kernels[0].grid: 0 is outside [1, 2147483647]"},
      {[](Manifest &m) { std::get<LaunchStep>(m.steps[1]).kernel = "k9"; },
       "steps[1].kernel: no kernel named \"k9\" in \"kernels\""},
      {[](Manifest &m) { std::get<LaunchStep>(m.steps[1]).buffers[2] = arena(5000); },
       "steps[1].buffers[2].offset: 5000 is past the end of the arena "
       "(arena_bytes 4096)"},
      {[](Manifest &m) { gemmStep(m, 0).m = 0; }, "steps[0].m: 0 is outside [1, 2147483647]"},
      {[](Manifest &m) { gemmStep(m, 3).batch = 1ll << 31; },
       "steps[3].batch: 2147483648 is outside [1, 2147483647]"},
      {[](Manifest &m) { gemmStep(m, 3).offsetA = -1; }, "steps[3].offset_a: -1 is negative"},
      {[](Manifest &m) { gemmStep(m, 0).aDtype = DType::I32; },
       "steps[0].a_dtype: a GEMM operand must be f16, bf16, f32 or f64, not "
       "i32"},
      {[](Manifest &m) { gemmStep(m, 0).biasDtype = DType::I64; },
       "steps[0].bias_dtype: a GEMM operand must be f16, bf16, f32 or f64, "
       "not i64"},
      {[](Manifest &m) { gemmStep(m, 0).a = arena(4000); },
       "steps[0].a.offset: operand a needs bytes [4000, 4128) of the arena, "
       "which has 4096 (arena_bytes)"},
      {[](Manifest &m) { gemmStep(m, 3).strideA = 1020; },
       "steps[3].a.offset: operand a needs bytes [0, 4144) of the arena"},
      {[](Manifest &m) { gemmStep(m, 3).offsetC = 1030; },
       "steps[3].c.offset: operand c needs bytes [4108, 4136) of the arena"},
      {[](Manifest &m) { gemmStep(m, 0).c = arena(514); },
       "steps[0].c.offset: 514 is not a multiple of 4, the size of f32"},
      {[](Manifest &m) { gemmStep(m, 0).bias.reset(); },
       "steps[0].bias: epilogue \"bias_relu\" needs a bias"},
      {[](Manifest &m) { gemmStep(m, 0).epilogue = Epilogue::Relu; },
       "steps[0].bias: given, but epilogue \"relu\" adds no bias"},
      {[](Manifest &m) { gemmStep(m, 3).strideC = 5; },
       "steps[3].stride_c: the batch's outputs overlap: stride 5 is below "
       "m * n = 6"},
      {[](Manifest &m) { gemmStep(m, 0).c = arena(64); },
       "steps[0].c: the output overlaps operand a"},
      {[](Manifest &m) { gemmStep(m, 0).c = persistent(32); },
       "steps[0].c: the output overlaps operand b"},
      {[](Manifest &m) { gemmStep(m, 0).c = persistent(1088); },
       "steps[0].c: the output overlaps the bias"},
      {[](Manifest &m) { std::get<CopyStep>(m.steps[2]).target = arena(272); },
       "steps[2]: source and target overlap"},
      {[](Manifest &m) { std::get<CopyStep>(m.steps[2]).bytes = 4000; },
       "steps[2].source.offset: the copy needs bytes [256, 4256) of the "
       "arena"},
  };
  expectEditsRefused(sampleManifest, cases);
}

/// Two f16 GEMMs on the CPU's widened copies: x [4, 8] times w, then x^T
/// times dy; the second reuses the copy of x the first keeps.
Manifest widenedCopiesManifest() {
  Manifest m;
  m.program = "copies";
  m.arenaBytes = 4096;
  m.persistentBytes = 256;
  GemmStep forward;
  forward.a = arena(0);
  forward.b = persistent(0);
  forward.c = arena(512);
  forward.aDtype = forward.bDtype = DType::F16;
  forward.m = 4;
  forward.n = 3;
  forward.k = 8;
  forward.keepA = true;
  GemmStep gradient;
  gradient.a = arena(0);
  gradient.b = arena(1024);
  gradient.c = arena(2048);
  gradient.aDtype = gradient.bDtype = DType::F16;
  gradient.transposeA = true;
  gradient.m = 8;
  gradient.n = 3;
  gradient.k = 4;
  gradient.reuseA = true;
  m.steps = {forward, gradient};
  return m;
}

TEST(Manifest, KeepsAndReusesWidenedCopies) {
  Manifest m = widenedCopiesManifest();
  Manifest parsed;
  std::string json = writeAndParse(m, "\"keep_a\":true", parsed);
  EXPECT_EQ(json.find("\"keep_b\""), std::string::npos) << "false flags are left out";
  ASSERT_EQ(parsed.steps.size(), m.steps.size());
  EXPECT_TRUE(gemmStep(parsed, 0).keepA);
  EXPECT_FALSE(gemmStep(parsed, 0).reuseA);
  EXPECT_TRUE(gemmStep(parsed, 1).reuseA);
  EXPECT_FALSE(gemmStep(parsed, 1).keepB);
  // A launch between them may write x: the verifier cannot see what kernels
  // write, and the compiler answers for it.
  m.kernels = {KernelSpec{"k0", 1, 256}};
  m.steps.insert(m.steps.begin() + 1, LaunchStep{"k0", {arena(0)}});
  EXPECT_TRUE(verifyManifest(m).isOk()) << verifyManifest(m).message();
  // A kept f16 result serves a later GEMM's operand.
  Manifest chained = widenedCopiesManifest();
  GemmStep &first = gemmStep(chained, 0);
  GemmStep next = gemmStep(chained, 1);
  first.cDtype = DType::F16;
  first.keepC = true;
  next.a = first.c;
  next.transposeA = false;
  next.m = 4;
  next.k = 3;
  next.reuseA = true;
  chained.steps.push_back(next);
  Status status = verifyManifest(chained);
  ASSERT_TRUE(status.isOk()) << status.message();
  json = writeManifest(chained);
  EXPECT_NE(json.find("\"keep_c\":true"), std::string::npos);
  status = parseManifest(json, parsed);
  ASSERT_TRUE(status.isOk()) << status.message();
  EXPECT_TRUE(gemmStep(parsed, 0).keepC);
  EXPECT_FALSE(gemmStep(parsed, 1).keepC);

  const EditCase cases[] = {
      {[](Manifest &m) { gemmStep(m, 0).keepA = false; },
       "steps[1].reuse_a: no earlier GEMM step keeps these elements of operand a"},
      {[](Manifest &m) { gemmStep(m, 1).keepA = true; },
       "steps[1].reuse_a: given with keep_a"},
      {[](Manifest &m) { gemmStep(m, 0).bDtype = DType::F32, gemmStep(m, 0).keepB = true; },
       "steps[0].keep_b: only an f16 operand of a GEMM with batch 1 has a widened copy"},
      {[](Manifest &m) {
         gemmStep(m, 1).batch = 2;
         gemmStep(m, 1).strideC = 24;
       },
       "steps[1].reuse_a: only an f16 operand of a GEMM with batch 1"},
      {[](Manifest &m) { gemmStep(m, 1).m = 4, gemmStep(m, 1).transposeA = false; },
       "steps[1].reuse_a: no earlier GEMM step keeps these elements"},
      {[](Manifest &m) { gemmStep(m, 0).keepC = true; },
       "steps[0].keep_c: only an f16 result of a GEMM with batch 1 has a widened copy"},
      {[](Manifest &m) {
         GemmStep over = gemmStep(m, 0);
         over.a = arena(1024);
         over.aDtype = over.bDtype = DType::F32;
         over.keepA = false;
         over.c = arena(32); // over x's last 32 bytes
         over.m = 2;
         over.n = 4;
         m.steps.insert(m.steps.begin() + 1, over);
       },
       "steps[2].reuse_a: no earlier GEMM step keeps these elements of operand a (or a GEMM "
       "result or a copy wrote them since)"},
      {[](Manifest &m) { m.steps.insert(m.steps.begin() + 1, CopyStep{arena(3072), arena(8), 8}); },
       "steps[2].reuse_a: no earlier GEMM step keeps these elements of operand a (or a GEMM "
       "result or a copy wrote them since)"},
  };
  expectEditsRefused(widenedCopiesManifest, cases);
  std::string text = writeManifest(widenedCopiesManifest());
  size_t at = text.find("\"keep_a\":true");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::strlen("\"keep_a\":true"), "\"keep_a\":1");
  Manifest out;
  expectRefused(parseManifest(text, out), MPC_FORMAT_ERROR,
                "steps[0].keep_a: expected true or false, got a number");
}

/// An f16 GEMM dy = dz w (4 x 3) with a relu_grad hint: aux y at arena
/// 1024, out in place of y, the launch k0 after it.
Manifest reluGradManifest() {
  Manifest m;
  m.program = "relu_grad";
  m.arenaBytes = 4096;
  m.kernels = {KernelSpec{"k0", 1, 256}};
  GemmStep gemm;
  gemm.a = arena(0);
  gemm.b = arena(256);
  gemm.c = arena(512);
  gemm.aDtype = gemm.bDtype = gemm.cDtype = DType::F16;
  gemm.m = 4;
  gemm.n = 3;
  gemm.k = 8;
  gemm.reluGrad = GemmStep::ReluGrad{arena(1024), arena(1024), DType::F16};
  m.steps = {gemm, LaunchStep{"k0", {arena(1024), arena(512), arena(1024)}}};
  return m;
}

TEST(Manifest, ReluGradHints) {
  Manifest m = reluGradManifest();
  Manifest parsed;
  writeAndParse(m,
                "\"relu_grad_aux\":{\"space\":\"arena\",\"offset\":1024},"
                "\"relu_grad_aux_dtype\":\"f16\",\"relu_grad_out\":{\"space\":"
                "\"arena\",\"offset\":1024}",
                parsed);
  ASSERT_EQ(parsed.steps.size(), m.steps.size());
  ASSERT_TRUE(gemmStep(parsed, 0).reluGrad.has_value());
  EXPECT_EQ(gemmStep(parsed, 0).reluGrad->aux.offset, 1024u);
  EXPECT_EQ(gemmStep(parsed, 0).reluGrad->out.offset, 1024u);
  EXPECT_EQ(gemmStep(parsed, 0).reluGrad->auxDtype, DType::F16);
  // out may be C itself, and aux f32 or bf16 (out in place of a bf16 aux
  // too).
  gemmStep(m, 0).reluGrad->auxDtype = DType::BF16;
  EXPECT_TRUE(verifyManifest(m).isOk()) << verifyManifest(m).message();
  gemmStep(m, 0).reluGrad->out = arena(512);
  gemmStep(m, 0).reluGrad->auxDtype = DType::F32;
  EXPECT_TRUE(verifyManifest(m).isOk()) << verifyManifest(m).message();
  // Without the hint, nothing of it is written.
  gemmStep(m, 0).reluGrad.reset();
  EXPECT_EQ(writeManifest(m).find("relu_grad_"), std::string::npos);

  const EditCase cases[] = {
      {[](Manifest &m) { m.steps.pop_back(); },
       "steps[0].relu_grad_out: the next step must be the launch that computes it"},
      {[](Manifest &m) { m.steps.push_back(m.steps.front()), m.steps.erase(m.steps.begin()); },
       "steps[1].relu_grad_out: the next step must be the launch that computes it"},
      {[](Manifest &m) { gemmStep(m, 0).epilogue = Epilogue::Relu; },
       "steps[0].relu_grad_out: only on a GEMM with batch 1, epilogue none and no keep_c"},
      {[](Manifest &m) { gemmStep(m, 0).keepC = true; },
       "steps[0].relu_grad_out: only on a GEMM with batch 1, epilogue none and no keep_c"},
      {[](Manifest &m) {
         gemmStep(m, 0).batch = 2;
         gemmStep(m, 0).strideC = 12;
       },
       "steps[0].relu_grad_out: only on a GEMM with batch 1, epilogue none and no keep_c"},
      {[](Manifest &m) { gemmStep(m, 0).reluGrad->auxDtype = DType::I32; },
       "steps[0].relu_grad_aux_dtype: must be f32, f16 or bf16, not i32"},
      {[](Manifest &m) {
         gemmStep(m, 0).aDtype = gemmStep(m, 0).bDtype = gemmStep(m, 0).cDtype = DType::F64;
       },
       "steps[0].relu_grad_out: needs C in f32, f16 or bf16, not f64"},
      {[](Manifest &m) { gemmStep(m, 0).reluGrad->aux = arena(4090); },
       "steps[0].relu_grad_aux.offset: operand relu_grad_aux needs bytes [4090, 4114) of the "
       "arena"},
      {[](Manifest &m) { gemmStep(m, 0).reluGrad->aux = arena(516); },
       "steps[0].relu_grad_aux: overlaps the output c"},
      {[](Manifest &m) { gemmStep(m, 0).reluGrad->out = arena(520); },
       "steps[0].relu_grad_out: overlaps the output c without being it"},
      {[](Manifest &m) { gemmStep(m, 0).reluGrad->out = arena(1026); },
       "steps[0].relu_grad_out: overlaps relu_grad_aux without being it, element for element"},
      {[](Manifest &m) { gemmStep(m, 0).reluGrad->auxDtype = DType::F32; },
       "steps[0].relu_grad_out: overlaps relu_grad_aux without being it, element for element"},
  };
  expectEditsRefused(reluGradManifest, cases);
  // The three keys come together.
  std::string text = writeManifest(reluGradManifest());
  size_t at = text.find(",\"relu_grad_aux_dtype\":\"f16\"");
  ASSERT_NE(at, std::string::npos);
  text.erase(at, std::strlen(",\"relu_grad_aux_dtype\":\"f16\""));
  Manifest out;
  expectRefused(parseManifest(text, out), MPC_FORMAT_ERROR,
                "steps[0].relu_grad_aux_dtype: missing (relu_grad_aux, relu_grad_aux_dtype and "
                "relu_grad_out come together)");
}

/// An f32 weight gradient accumulated into a momentum buffer: C (8 x 6, in
/// persistent memory) = A^T B + 0.9 C, A 16 x 8 and B 16 x 6 in the arena.
Manifest accumulateManifest() {
  Manifest m;
  m.program = "accumulate";
  m.arenaBytes = 2048;
  m.persistentBytes = 512;
  GemmStep gemm;
  gemm.a = arena(0);
  gemm.b = arena(512);
  gemm.c = persistent(0);
  gemm.m = 8;
  gemm.n = 6;
  gemm.k = 16;
  gemm.transposeA = true;
  gemm.beta = 0.9;
  m.steps = {gemm};
  return m;
}

TEST(Manifest, GemmBeta) {
  Manifest m = accumulateManifest(), parsed;
  writeAndParse(m, "\"beta\":0.9", parsed);
  EXPECT_EQ(gemmStep(parsed, 0).beta, 0.9);
  // f64 too; without beta (0) nothing of it is written, and it reads back 0.
  gemmStep(m, 0).aDtype = gemmStep(m, 0).bDtype = gemmStep(m, 0).cDtype = DType::F64;
  EXPECT_TRUE(verifyManifest(m).isOk()) << verifyManifest(m).message();
  gemmStep(m, 0).beta = 0;
  std::string json = writeAndParse(m, "\"epilogue\"", parsed);
  EXPECT_EQ(json.find("beta"), std::string::npos);
  EXPECT_EQ(gemmStep(parsed, 0).beta, 0.0);

  const char *kOnly = "steps[0].beta: accumulates into C only with batch 1, epilogue none, C "
                      "in f32 (or A, B and C in f64), and no relu_grad hint";
  const EditCase cases[] = {
      {[](Manifest &m) {
         gemmStep(m, 0).epilogue = Epilogue::Bias;
         gemmStep(m, 0).bias = arena(256);
       },
       kOnly},
      {[](Manifest &m) { // (A and B shared by the batch)
         gemmStep(m, 0).batch = 2;
         gemmStep(m, 0).strideC = 48;
       },
       kOnly},
      {[](Manifest &m) { gemmStep(m, 0).cDtype = DType::F16; }, kOnly},
      {[](Manifest &m) { gemmStep(m, 0).cDtype = DType::BF16; }, kOnly},
      // (f32 operands into an f64 C: widened products, not an f64 GEMM)
      {[](Manifest &m) { gemmStep(m, 0).cDtype = DType::F64; }, kOnly},
      {[](Manifest &m) {
         gemmStep(m, 0).reluGrad = GemmStep::ReluGrad{arena(1024), arena(1024), DType::F32};
         m.kernels = {KernelSpec{"k0", 1, 256}};
         m.steps.push_back(LaunchStep{"k0", {arena(1024), persistent(0), arena(1024)}});
       },
       kOnly},
      {[](Manifest &m) { gemmStep(m, 0).beta = 1e300; },
       "steps[0].beta: must be a finite number of an f32's range"},
      {[](Manifest &m) { gemmStep(m, 0).beta = std::numeric_limits<double>::infinity(); },
       "steps[0].beta: must be a finite number of an f32's range", /*viaJson=*/false},
      {[](Manifest &m) { gemmStep(m, 0).beta = std::nan(""); },
       "steps[0].beta: must be a finite number of an f32's range", /*viaJson=*/false},
  };
  expectEditsRefused(accumulateManifest, cases);
  // A number, in the JSON.
  std::string text = writeManifest(accumulateManifest());
  size_t at = text.find("\"beta\":0.9");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::strlen("\"beta\":0.9"), "\"beta\":\"0.9\"");
  Manifest out;
  expectRefused(parseManifest(text, out), MPC_FORMAT_ERROR,
                "steps[0].beta: expected a number, got a string");
}

/// A convolution's f16 GEMM with an im2col_b hint: the input [2, 3, 5, 6]
/// at arena 0, 3 x 2 windows with stride [2, 1], padding [1, 0, 1, 1] and
/// dilation [1, 2] (Ho 3, Wo 5), so B_b is 18 x 15 columns at arena 512
/// that the launch k0 writes; the filter (4 x 18) at 2048, C (f32) at 2304.
Manifest im2colManifest() {
  Manifest m;
  m.program = "im2col";
  m.arenaBytes = 4096;
  m.kernels = {KernelSpec{"k0", 1, 256}};
  GemmStep gemm;
  gemm.a = arena(2048);
  gemm.b = arena(512);
  gemm.c = arena(2304);
  gemm.aDtype = gemm.bDtype = DType::F16;
  gemm.cDtype = DType::F32;
  gemm.m = 4;
  gemm.n = 15;
  gemm.k = 18;
  gemm.batch = 2;
  gemm.strideB = 18 * 15;
  gemm.strideC = 4 * 15;
  gemm.im2colB = GemmStep::Im2col{arena(0), {2, 3, 5, 6}, {3, 2}, {2, 1}, {1, 0, 1, 1}, {1, 2}};
  m.steps = {LaunchStep{"k0", {arena(0), arena(512)}}, gemm};
  return m;
}

TEST(Manifest, Im2colHints) {
  Manifest m = im2colManifest();
  EXPECT_EQ(gemmStep(m, 1).im2colB->outH(), 3);
  EXPECT_EQ(gemmStep(m, 1).im2colB->outW(), 5);
  Manifest parsed;
  writeAndParse(m,
                "\"im2col_b\":{\"input\":{\"space\":\"arena\",\"offset\":0},\"shape\":"
                "[2,3,5,6],\"kernel\":[3,2],\"stride\":[2,1],\"padding\":[1,0,1,1],"
                "\"dilation\":[1,2]}",
                parsed);
  ASSERT_EQ(parsed.steps.size(), m.steps.size());
  ASSERT_TRUE(gemmStep(parsed, 1).im2colB.has_value());
  const GemmStep::Im2col &hint = *gemmStep(parsed, 1).im2colB;
  EXPECT_EQ(hint.shape, (std::vector<int64_t>{2, 3, 5, 6}));
  EXPECT_EQ(hint.kernel, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(hint.stride, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(hint.padding, (std::vector<int64_t>{1, 0, 1, 1}));
  EXPECT_EQ(hint.dilation, (std::vector<int64_t>{1, 2}));
  // The filter gradient's form: the columns as a transposed B (n x k).
  GemmStep &grad = gemmStep(m, 1);
  grad.transposeB = true;
  grad.m = 4;
  grad.n = 18;
  grad.k = 15;
  grad.strideA = 4 * 15;
  grad.a = arena(3072);
  grad.strideC = 4 * 18;
  EXPECT_TRUE(verifyManifest(m).isOk()) << verifyManifest(m).message();
  // Without the hint, nothing of it is written.
  gemmStep(m, 1).im2colB.reset();
  EXPECT_EQ(writeManifest(m).find("im2col_b"), std::string::npos);

  const EditCase cases[] = {
      {[](Manifest &m) { m.steps.erase(m.steps.begin()); },
       "steps[0].im2col_b: the previous step must be the launch that writes the columns"},
      {[](Manifest &m) { m.steps.front() = CopyStep{arena(3800), arena(3900), 8}; },
       "steps[1].im2col_b: the previous step must be the launch that writes the columns"},
      {[](Manifest &m) { gemmStep(m, 1).keepB = true; },
       "steps[1].im2col_b: not with keep_b or reuse_b"},
      {[](Manifest &m) { gemmStep(m, 1).im2colB->shape.pop_back(); },
       "steps[1].im2col_b.shape: expected 4 numbers, got 3"},
      {[](Manifest &m) { gemmStep(m, 1).im2colB->dilation.push_back(1); },
       "steps[1].im2col_b.dilation: expected 2 numbers, got 3"},
      {[](Manifest &m) { gemmStep(m, 1).im2colB->stride[0] = 0; },
       "steps[1].im2col_b.stride[0]: 0 is outside [1, 2147483647]"},
      {[](Manifest &m) { gemmStep(m, 1).im2colB->shape[1] = 0; },
       "steps[1].im2col_b.shape[1]: 0 is outside [1, 2147483647]"},
      {[](Manifest &m) { gemmStep(m, 1).im2colB->padding[1] = -1; },
       "steps[1].im2col_b.padding[1]: -1 is outside [0, 2147483647]", false},
      {[](Manifest &m) { gemmStep(m, 1).im2colB->kernel[0] = 8; },
       "steps[1].im2col_b.kernel: a window of 8 does not fit the padded height 7"},
      {[](Manifest &m) { gemmStep(m, 1).im2colB->dilation[1] = 7; },
       "steps[1].im2col_b.kernel: a window of 8 does not fit the padded width 7"},
      {[](Manifest &m) { gemmStep(m, 1).im2colB->stride[0] = 1; },
       "steps[1].im2col_b: B stores 18 x 15 elements per image, not the columns' 18 x 25 (C kH "
       "kW x Ho Wo)"},
      {[](Manifest &m) { gemmStep(m, 1).transposeB = true; },
       "steps[1].im2col_b: B stores 15 x 18 elements per image, not the columns' 18 x 15"},
      {[](Manifest &m) { gemmStep(m, 1).batch = 1; },
       "steps[1].im2col_b: batch 1 is not the images' 2"},
      {[](Manifest &m) { gemmStep(m, 1).strideB = 272; },
       "steps[1].im2col_b: needs offset_b 0 and stride_b 270 (the columns of one image)"},
      {[](Manifest &m) { gemmStep(m, 1).offsetB = 2; },
       "steps[1].im2col_b: needs offset_b 0 and stride_b 270 (the columns of one image)"},
      {[](Manifest &m) { gemmStep(m, 1).im2colB->input = arena(1); },
       "steps[1].im2col_b.input.offset: 1 is not a multiple of 2, the size of f16"},
      {[](Manifest &m) { gemmStep(m, 1).im2colB->input = arena(3900); },
       "steps[1].im2col_b.input.offset: the im2col input needs bytes [3900, 4260) of the arena"},
      {[](Manifest &m) { gemmStep(m, 1).im2colB->input = arena(1000); },
       "steps[1].im2col_b.input: overlaps operand b"},
      {[](Manifest &m) { gemmStep(m, 1).im2colB->input = arena(2400); },
       "steps[1].im2col_b.input: overlaps the output c"},
  };
  expectEditsRefused(im2colManifest, cases);
  // The hint's keys are its own.
  std::string text = writeManifest(im2colManifest());
  size_t at = text.find("\"dilation\":[1,2]}");
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "\"groups\":1,");
  Manifest out;
  expectRefused(parseManifest(text, out), MPC_FORMAT_ERROR,
                "steps[1].im2col_b.groups: unknown key");
}

/// The sample with an all-reduce of the gradient-like f32 [4, 3] at arena
/// 256 (sum) and of an f16 [4] at arena 3000 (max).
Manifest allReduceManifest() {
  Manifest m = sampleManifest();
  m.steps.push_back(AllReduceStep{arena(256), DType::F32, 12, AllReduceOp::Sum});
  m.steps.push_back(AllReduceStep{arena(3000), DType::F16, 4, AllReduceOp::Max});
  m.steps.push_back(AllReduceStep{arena(512), DType::BF16, 8, AllReduceOp::Mean});
  return m;
}

TEST(Manifest, AllReduceSteps) {
  Manifest parsed;
  writeAndParse(allReduceManifest(),
                R"({"op":"all_reduce","buffer":{"space":"arena","offset":256},"dtype":"f32",)"
                R"("count":12,"reduce":"sum"})",
                parsed);
  ASSERT_EQ(parsed.steps.size(), 7u);
  const auto &sum = std::get<AllReduceStep>(parsed.steps[4]);
  EXPECT_EQ(sum.count, 12u);
  EXPECT_EQ(sum.reduce, AllReduceOp::Sum);
  const auto &max = std::get<AllReduceStep>(parsed.steps[5]);
  EXPECT_EQ(max.dtype, DType::F16);
  EXPECT_EQ(max.reduce, AllReduceOp::Max);
  EXPECT_EQ(max.buffer.offset, 3000u);
  EXPECT_EQ(std::get<AllReduceStep>(parsed.steps[6]).reduce, AllReduceOp::Mean);

  const EditCase cases[] = {
      {[](Manifest &m) { std::get<AllReduceStep>(m.steps[4]).count = 1000; },
       "steps[4].buffer.offset: the all-reduce needs bytes [256, 4256) of the arena, which "
       "has 4096"},
      {[](Manifest &m) { std::get<AllReduceStep>(m.steps[5]).buffer.offset = 3001; },
       "steps[5].buffer.offset: 3001 is not a multiple of 2, the size of f16"},
      {[](Manifest &m) { std::get<AllReduceStep>(m.steps[4]).dtype = DType::I64; },
       "steps[4].dtype: i64 elements do not all-reduce (f32, f64, f16, bf16 and i32 do)"},
      {[](Manifest &m) { std::get<AllReduceStep>(m.steps[6]).dtype = DType::I32; },
       "steps[6].reduce: a mean of i32 elements (a mean is of floats)"},
  };
  expectEditsRefused(allReduceManifest, cases);
  // An unknown reduction, and a missing field.
  std::string json = writeManifest(allReduceManifest());
  std::string unknown = json;
  unknown.replace(unknown.find("\"reduce\":\"max\""), 14, "\"reduce\":\"min\"");
  Manifest out;
  expectRefused(parseManifest(unknown, out), MPC_FORMAT_ERROR,
                "steps[5].reduce: unknown reduction \"min\" (expected sum, max or mean)");
  std::string missing = json;
  missing.replace(missing.find(",\"count\":4"), 10, "");
  expectRefused(parseManifest(missing, out), MPC_FORMAT_ERROR, "steps[5].count: missing");
}

TEST(Manifest, AcceptsEdgeCases) {
  Manifest m = sampleManifest();
  // A tensor that ends exactly at the end of its space, an empty tensor
  // at the very end, a launch buffer at the end, a shared operand.
  m.outputs.push_back(tensorSpec("last", DType::F64, {2}, arena(4080)));
  m.outputs.push_back(tensorSpec("nothing", DType::F32, {0, 7}, arena(4096)));
  std::get<LaunchStep>(m.steps[1]).buffers.push_back(arena(4096));
  gemmStep(m, 3).strideB = 0;
  m.params[2].dtype = DType::Bool;
  m.params[2].init.args["value"] = 1;
  Status status = verifyManifest(m);
  EXPECT_TRUE(status.isOk()) << status.message();
  Manifest parsed;
  status = parseManifest(writeManifest(m), parsed);
  EXPECT_TRUE(status.isOk()) << status.message();
}

} // namespace
