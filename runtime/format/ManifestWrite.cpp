//===- ManifestWrite.cpp - a Manifest as manifest.json --------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The JSON that parseManifest reads back, built with nlohmann-json and laid
// out one array element a line, so that a manifest reads and diffs well.
//
//===----------------------------------------------------------------------===//

#include "mpc/format/Manifest.h"

#include "ManifestInternal.h"

namespace mpc::rt {

using namespace manifest_detail;

namespace {

/// Members in the order written here: the format's reading order.
using OrderedJson = nlohmann::ordered_json;

OrderedJson bufferJson(const BufferRef &buffer) {
  return {{"space", bufferSpaceName(buffer.space)}, {"offset", buffer.offset}};
}

OrderedJson tensorJson(const TensorSpec &spec) {
  return {{"name", spec.name},
          {"dtype", dtypeName(spec.dtype)},
          {"shape", spec.shape},
          {"buffer", bufferJson(spec.buffer)}};
}

OrderedJson paramJson(const ParamSpec &spec) {
  OrderedJson out = tensorJson(spec);
  OrderedJson args = OrderedJson::object();
  for (const auto &[name, value] : spec.init.args)
    args[name] = value;
  out["init"] = {{"kind", initKindName(spec.init.kind)}, {"args", std::move(args)}};
  out["trainable"] = spec.trainable;
  out["state"] = spec.state;
  if (!spec.castOf.empty())
    out["cast_of"] = spec.castOf;
  return out;
}

OrderedJson constantJson(const ConstantSpec &spec) {
  return {{"dtype", dtypeName(spec.dtype)},
          {"shape", spec.shape},
          {"buffer", bufferJson(spec.buffer)},
          {"section", spec.section}};
}

OrderedJson kernelJson(const KernelSpec &spec) {
  return {{"name", spec.name}, {"grid", spec.grid}, {"block", spec.block}};
}

OrderedJson gemmJson(const GemmStep &gemm) {
  OrderedJson out = {{"op", "gemm"},
                     {"a", bufferJson(gemm.a)},
                     {"b", bufferJson(gemm.b)},
                     {"c", bufferJson(gemm.c)},
                     {"bias", gemm.bias ? bufferJson(*gemm.bias) : OrderedJson()},
                     {"a_dtype", dtypeName(gemm.aDtype)},
                     {"b_dtype", dtypeName(gemm.bDtype)},
                     {"c_dtype", dtypeName(gemm.cDtype)}};
  if (gemm.bias)
    out["bias_dtype"] = dtypeName(gemm.biasDtype);
  for (auto [key, value] :
       {std::pair{"m", gemm.m}, std::pair{"n", gemm.n}, std::pair{"k", gemm.k},
        std::pair{"batch", gemm.batch}, std::pair{"offset_a", gemm.offsetA},
        std::pair{"offset_b", gemm.offsetB}, std::pair{"offset_c", gemm.offsetC},
        std::pair{"stride_a", gemm.strideA}, std::pair{"stride_b", gemm.strideB},
        std::pair{"stride_c", gemm.strideC}})
    out[key] = value;
  out["transpose_a"] = gemm.transposeA;
  out["transpose_b"] = gemm.transposeB;
  for (auto [key, flag] :
       {std::pair{"keep_a", gemm.keepA}, std::pair{"keep_b", gemm.keepB},
        std::pair{"keep_c", gemm.keepC}, std::pair{"reuse_a", gemm.reuseA},
        std::pair{"reuse_b", gemm.reuseB}})
    if (flag)
      out[key] = true;
  if (gemm.reluGrad) {
    out["relu_grad_aux"] = bufferJson(gemm.reluGrad->aux);
    out["relu_grad_aux_dtype"] = dtypeName(gemm.reluGrad->auxDtype);
    out["relu_grad_out"] = bufferJson(gemm.reluGrad->out);
  }
  if (const GemmStep::Im2col *hint = gemm.im2colB ? &*gemm.im2colB : nullptr)
    out["im2col_b"] = {{"input", bufferJson(hint->input)}, {"shape", hint->shape},
                       {"kernel", hint->kernel},           {"stride", hint->stride},
                       {"padding", hint->padding},         {"dilation", hint->dilation}};
  if (gemm.beta != 0)
    out["beta"] = gemm.beta;
  out["epilogue"] = epilogueName(gemm.epilogue);
  return out;
}

OrderedJson stepJson(const Step &step) {
  if (const auto *launch = std::get_if<LaunchStep>(&step)) {
    OrderedJson buffers = OrderedJson::array();
    for (const BufferRef &buffer : launch->buffers)
      buffers.push_back(bufferJson(buffer));
    return {{"op", "launch"}, {"kernel", launch->kernel}, {"buffers", std::move(buffers)}};
  }
  if (const auto *reduce = std::get_if<AllReduceStep>(&step))
    return {{"op", "all_reduce"},
            {"buffer", bufferJson(reduce->buffer)},
            {"dtype", dtypeName(reduce->dtype)},
            {"count", reduce->count},
            {"reduce", allReduceOpName(reduce->reduce)}};
  if (const auto *copy = std::get_if<CopyStep>(&step))
    return {{"op", "copy"},
            {"source", bufferJson(copy->source)},
            {"target", bufferJson(copy->target)},
            {"bytes", copy->bytes}};
  return gemmJson(std::get<GemmStep>(step));
}

/// Compact JSON; a name that is not UTF-8 (verifyManifest refuses one)
/// comes out as U+FFFD rather than stopping the writer.
std::string compact(const OrderedJson &value) {
  return value.dump(/*indent=*/-1, /*indent_char=*/' ', /*ensure_ascii=*/false,
                    OrderedJson::error_handler_t::replace);
}

/// `"key":[` with one element per line, then `]`.
template <typename T, typename ToJson>
std::string listJson(const char *key, const std::vector<T> &items, ToJson toJson) {
  std::string out = compact(key) + ":[";
  for (size_t i = 0; i < items.size(); ++i)
    out += (i ? ",\n  " : "\n  ") + compact(toJson(items[i]));
  return out + "]";
}

} // namespace

std::string writeManifest(const Manifest &manifest) {
  OrderedJson header = {
      {"format", kManifestFormat}, {"version", kManifestVersion}, {"program", manifest.program}};
  OrderedJson sizes = {{"arena_bytes", manifest.arenaBytes},
                       {"persistent_bytes", manifest.persistentBytes}};
  // Drop the braces: the members join the top-level object.
  auto members = [](const OrderedJson &object) {
    std::string text = compact(object);
    return text.substr(1, text.size() - 2);
  };
  std::string out = "{" + members(header) + ",\n " + members(sizes);
  out += ",\n " + listJson("inputs", manifest.inputs, tensorJson);
  out += ",\n " + listJson("outputs", manifest.outputs, tensorJson);
  out += ",\n " + listJson("params", manifest.params, paramJson);
  out += ",\n " + listJson("constants", manifest.constants, constantJson);
  out += ",\n " + listJson("kernels", manifest.kernels, kernelJson);
  out += ",\n " + listJson("steps", manifest.steps, stepJson);
  return out + "}\n";
}

} // namespace mpc::rt
