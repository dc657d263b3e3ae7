//===- ManifestWrite.cpp - a Manifest as manifest.json --------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The JSON that parseManifest reads back, one array element a line.
//
//===----------------------------------------------------------------------===//

#include "mpc/format/Manifest.h"

#include "ManifestInternal.h"

#include <charconv>
#include <cstdio>

namespace mpc::rt {

using namespace manifest_detail;

namespace {

std::string bufferJson(const BufferRef &buffer) {
  return std::string("{\"space\":\"") + bufferSpaceName(buffer.space) +
         "\",\"offset\":" + std::to_string(buffer.offset) + "}";
}

std::string shapeJson(const std::vector<int64_t> &shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? "," : "") + std::to_string(shape[i]);
  return out + "]";
}

/// The shortest text that reads back as `value`.
std::string numberJson(double value) {
  char text[32];
  auto result = std::to_chars(text, text + sizeof text, value);
  return std::string(text, result.ptr);
}

const char *boolJson(bool value) { return value ? "true" : "false"; }

std::string tensorJson(const TensorSpec &spec) {
  return "\"name\":" + quoteJson(spec.name) + ",\"dtype\":\"" +
         dtypeName(spec.dtype) + "\",\"shape\":" + shapeJson(spec.shape) +
         ",\"buffer\":" + bufferJson(spec.buffer);
}

std::string paramJson(const ParamSpec &spec) {
  std::string args;
  for (const auto &[name, value] : spec.init.args)
    args +=
        (args.empty() ? "" : ",") + quoteJson(name) + ":" + numberJson(value);
  return "{" + tensorJson(spec) + ",\"init\":{\"kind\":\"" +
         initKindName(spec.init.kind) + "\",\"args\":{" + args +
         "}},\"trainable\":" + boolJson(spec.trainable) +
         ",\"state\":" + boolJson(spec.state) +
         (spec.castOf.empty() ? "" : ",\"cast_of\":" + quoteJson(spec.castOf)) + "}";
}

std::string constantJson(const ConstantSpec &spec) {
  return std::string("{\"dtype\":\"") + dtypeName(spec.dtype) +
         "\",\"shape\":" + shapeJson(spec.shape) +
         ",\"buffer\":" + bufferJson(spec.buffer) +
         ",\"section\":" + quoteJson(spec.section) + "}";
}

std::string kernelJson(const KernelSpec &spec) {
  return "{\"name\":" + quoteJson(spec.name) +
         ",\"grid\":" + std::to_string(spec.grid) +
         ",\"block\":" + std::to_string(spec.block) + "}";
}

std::string stepJson(const Step &step) {
  if (const auto *launch = std::get_if<LaunchStep>(&step)) {
    std::string buffers;
    for (const BufferRef &buffer : launch->buffers)
      buffers += (buffers.empty() ? "" : ",") + bufferJson(buffer);
    return "{\"op\":\"launch\",\"kernel\":" + quoteJson(launch->kernel) +
           ",\"buffers\":[" + buffers + "]}";
  }
  if (const auto *copy = std::get_if<CopyStep>(&step))
    return "{\"op\":\"copy\",\"source\":" + bufferJson(copy->source) +
           ",\"target\":" + bufferJson(copy->target) +
           ",\"bytes\":" + std::to_string(copy->bytes) + "}";
  const GemmStep &gemm = std::get<GemmStep>(step);
  std::string out =
      "{\"op\":\"gemm\",\"a\":" + bufferJson(gemm.a) +
      ",\"b\":" + bufferJson(gemm.b) + ",\"c\":" + bufferJson(gemm.c) +
      ",\"bias\":" + (gemm.bias ? bufferJson(*gemm.bias) : "null");
  out += std::string(",\"a_dtype\":\"") + dtypeName(gemm.aDtype) +
         "\",\"b_dtype\":\"" + dtypeName(gemm.bDtype) + "\",\"c_dtype\":\"" +
         dtypeName(gemm.cDtype) + "\"";
  if (gemm.bias)
    out += std::string(",\"bias_dtype\":\"") + dtypeName(gemm.biasDtype) + "\"";
  for (auto [key, value] :
       {std::pair{"m", gemm.m}, std::pair{"n", gemm.n}, std::pair{"k", gemm.k},
        std::pair{"batch", gemm.batch}, std::pair{"offset_a", gemm.offsetA},
        std::pair{"offset_b", gemm.offsetB},
        std::pair{"offset_c", gemm.offsetC},
        std::pair{"stride_a", gemm.strideA},
        std::pair{"stride_b", gemm.strideB},
        std::pair{"stride_c", gemm.strideC}})
    out += std::string(",\"") + key + "\":" + std::to_string(value);
  out += std::string(",\"transpose_a\":") + boolJson(gemm.transposeA) +
         ",\"transpose_b\":" + boolJson(gemm.transposeB);
  for (auto [key, flag] :
       {std::pair{"keep_a", gemm.keepA}, std::pair{"keep_b", gemm.keepB},
        std::pair{"keep_c", gemm.keepC}, std::pair{"reuse_a", gemm.reuseA},
        std::pair{"reuse_b", gemm.reuseB}})
    if (flag)
      out += std::string(",\"") + key + "\":true";
  if (gemm.reluGrad)
    out += ",\"relu_grad_aux\":" + bufferJson(gemm.reluGrad->aux) +
           ",\"relu_grad_aux_dtype\":\"" + dtypeName(gemm.reluGrad->auxDtype) +
           "\",\"relu_grad_out\":" + bufferJson(gemm.reluGrad->out);
  if (const GemmStep::Im2col *hint = gemm.im2colB ? &*gemm.im2colB : nullptr)
    out += ",\"im2col_b\":{\"input\":" + bufferJson(hint->input) +
           ",\"shape\":" + shapeJson(hint->shape) + ",\"kernel\":" + shapeJson(hint->kernel) +
           ",\"stride\":" + shapeJson(hint->stride) +
           ",\"padding\":" + shapeJson(hint->padding) +
           ",\"dilation\":" + shapeJson(hint->dilation) + "}";
  if (gemm.beta != 0)
    out += ",\"beta\":" + numberJson(gemm.beta);
  return out + ",\"epilogue\":\"" + epilogueName(gemm.epilogue) + "\"}";
}

/// `"key":[` with one element per line, then `]`.
template <typename T, typename Write>
std::string listJson(const char *key, const std::vector<T> &items,
                     Write write) {
  std::string out = std::string("\"") + key + "\":[";
  for (size_t i = 0; i < items.size(); ++i)
    out += (i ? ",\n  " : "\n  ") + write(items[i]);
  return out + "]";
}

} // namespace

std::string writeManifest(const Manifest &manifest) {
  std::string out =
      std::string("{\"format\":\"") + kManifestFormat +
      "\",\"version\":" + std::to_string(kManifestVersion) +
      ",\"program\":" + quoteJson(manifest.program) +
      ",\n \"arena_bytes\":" + std::to_string(manifest.arenaBytes) +
      ",\"persistent_bytes\":" + std::to_string(manifest.persistentBytes);
  auto tensor = [](const TensorSpec &spec) {
    return "{" + tensorJson(spec) + "}";
  };
  out += ",\n " + listJson("inputs", manifest.inputs, tensor);
  out += ",\n " + listJson("outputs", manifest.outputs, tensor);
  out += ",\n " + listJson("params", manifest.params, paramJson);
  out += ",\n " + listJson("constants", manifest.constants, constantJson);
  out += ",\n " + listJson("kernels", manifest.kernels, kernelJson);
  out += ",\n " + listJson("steps", manifest.steps, stepJson);
  return out + "}\n";
}

} // namespace mpc::rt
