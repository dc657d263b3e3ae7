//===- ManifestParse.cpp - reading manifest.json --------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The JSON of a manifest read into a Manifest, every key and type checked
// and reported by its JSON path; parseManifest then verifies it.
//
//===----------------------------------------------------------------------===//

#include "mpc/format/Manifest.h"

#include "ManifestInternal.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

namespace mpc::rt {

using namespace manifest_detail;

namespace {

//===----------------------------------------------------------------------===//
// Reading the JSON structure
//===----------------------------------------------------------------------===//

const char *kindName(Kind kind) {
  switch (kind) {
  case Kind::Null:
    return "null";
  case Kind::Bool:
    return "a boolean";
  case Kind::Number:
    return "a number";
  case Kind::String:
    return "a string";
  case Kind::Array:
    return "an array";
  case Kind::Object:
    return "an object";
  }
  return "?";
}

Status expectKind(const Json &value, const std::string &path, Kind kind, const char *expected) {
  if (kindOf(value) != kind)
    return fail(path.empty() ? "manifest" : path,
                std::string("expected ") + expected + ", got " + kindName(kindOf(value)));
  return Status();
}

/// The member named `key` of an object, or null.
const Json *findMember(const Json &object, const char *key) {
  auto found = object.find(key);
  return found == object.end() ? nullptr : &*found;
}

bool contains(const Keys &keys, const std::string &key) {
  return std::find_if(keys.begin(), keys.end(), [&](const char *candidate) {
           return key == candidate;
         }) != keys.end();
}

/// Checks that `value` is an object with every key of `required`, any of
/// `optional` and nothing else.
Status expectObject(const Json &value, const std::string &path, const Keys &required,
                    const Keys &optional = {}) {
  if (Status status = expectKind(value, path, Kind::Object, "an object");
      !status.isOk())
    return status;
  for (const auto &entry : value.items())
    if (!contains(required, entry.key()) && !contains(optional, entry.key()))
      return fail(member(path, entry.key()), "unknown key");
  for (const char *key : required)
    if (!findMember(value, key))
      return fail(member(path, key), "missing");
  return Status();
}

Status parseBuffer(const Json &value, const std::string &path, BufferRef &out);

/// Reads the members of a JSON object whose keys expectObject checked, each
/// reported under its JSON path.
class ObjectReader {
public:
  ObjectReader(const Json &object, std::string path) : object_(object), path_(std::move(path)) {}

  std::string path(const char *key) const { return member(path_, key); }
  const Json &get(const char *key) const { return *findMember(object_, key); }
  bool has(const char *key) const { return findMember(object_, key) != nullptr; }

  Status string(const char *key, std::string &out) const {
    if (Status status =
            expectKind(get(key), path(key), Kind::String, "a string");
        !status.isOk())
      return status;
    out = get(key).get<std::string>();
    return Status();
  }

  Status integer(const char *key, int64_t &out) const {
    const Json &value = get(key);
    if (!jsonInt64(value, out))
      return fail(path(key), std::string("expected an integer, got ") +
                                 (value.is_number() ? "a fraction or an "
                                                      "integer out of range"
                                                    : kindName(kindOf(value))));
    return Status();
  }

  Status size(const char *key, uint64_t &out) const {
    int64_t value;
    if (Status status = integer(key, value); !status.isOk())
      return status;
    if (value < 0)
      return fail(path(key), std::to_string(value) + " is negative");
    out = static_cast<uint64_t>(value);
    return Status();
  }

  Status boolean(const char *key, bool &out) const {
    if (Status status =
            expectKind(get(key), path(key), Kind::Bool, "true or false");
        !status.isOk())
      return status;
    out = get(key).get<bool>();
    return Status();
  }

  Status dtype(const char *key, DType &out) const {
    std::string name;
    if (Status status = string(key, name); !status.isOk())
      return status;
    for (DType dtype : kAllDtypes)
      if (name == dtypeName(dtype)) {
        out = dtype;
        return Status();
      }
    return fail(path(key), "unknown dtype " + quoteJson(name) +
                               " (expected f16, bf16, f32, f64, i32, i64 or "
                               "i1)");
  }

  Status shape(const char *key, std::vector<int64_t> &out) const {
    const Json &value = get(key);
    if (Status status = expectKind(value, path(key), Kind::Array, "an array");
        !status.isOk())
      return status;
    std::vector<int64_t> dims;
    for (size_t i = 0; i < value.size(); ++i) {
      int64_t dim;
      if (!jsonInt64(value[i], dim) || dim < 0)
        return fail(element(path(key), i),
                    "expected a non-negative integer dimension");
      dims.push_back(dim);
    }
    out = std::move(dims);
    return Status();
  }

  Status buffer(const char *key, BufferRef &out) const {
    return parseBuffer(get(key), path(key), out);
  }

  /// Parses every element of the array `key` with `parse(value, path, T&)`.
  template <typename T, typename Parse>
  Status array(const char *key, std::vector<T> &out, Parse parse) const {
    const Json &value = get(key);
    if (Status status = expectKind(value, path(key), Kind::Array, "an array");
        !status.isOk())
      return status;
    out.assign(value.size(), T());
    for (size_t i = 0; i < value.size(); ++i)
      if (Status status = parse(value[i], element(path(key), i), out[i]); !status.isOk())
        return status;
    return Status();
  }

private:
  const Json &object_;
  std::string path_;
};

Status parseBuffer(const Json &value, const std::string &path, BufferRef &out) {
  if (Status status = expectObject(value, path, {"space", "offset"});
      !status.isOk())
    return status;
  ObjectReader fields(value, path);
  std::string space;
  if (Status status = fields.string("space", space); !status.isOk())
    return status;
  if (space == "arena")
    out.space = BufferSpace::Arena;
  else if (space == "persistent")
    out.space = BufferSpace::Persistent;
  else
    return fail(fields.path("space"),
                "expected \"arena\" or \"persistent\", got " +
                    quoteJson(space));
  return fields.size("offset", out.offset);
}

Status parseTensorFields(const ObjectReader &fields, TensorSpec &out) {
  if (Status status = fields.string("name", out.name); !status.isOk())
    return status;
  if (Status status = fields.dtype("dtype", out.dtype); !status.isOk())
    return status;
  if (Status status = fields.shape("shape", out.shape); !status.isOk())
    return status;
  return fields.buffer("buffer", out.buffer);
}

Status parseTensor(const Json &value, const std::string &path, TensorSpec &out) {
  if (Status status = expectObject(value, path, kTensorKeys); !status.isOk())
    return status;
  return parseTensorFields(ObjectReader(value, path), out);
}

Status parseInitializer(const Json &value, const std::string &path, Initializer &out) {
  if (Status status = expectObject(value, path, {"kind"}, {"args"});
      !status.isOk())
    return status;
  ObjectReader fields(value, path);
  std::string kind;
  if (Status status = fields.string("kind", kind); !status.isOk())
    return status;
  auto known = std::find_if(
      std::begin(kAllInitKinds), std::end(kAllInitKinds),
      [&](InitKind candidate) { return kind == initKindName(candidate); });
  if (known == std::end(kAllInitKinds))
    return fail(fields.path("kind"), "unknown initializer " + quoteJson(kind) +
                                         " (expected zeros, ones, constant, normal, uniform, "
                                         "glorot_uniform, he_normal or seed)");
  out.kind = *known;
  out.args.clear();
  if (const Json *args = findMember(value, "args")) {
    std::string argsPath = fields.path("args");
    if (Status status = expectKind(*args, argsPath, Kind::Object, "an object");
        !status.isOk())
      return status;
    for (const auto &arg : args->items()) {
      if (Status status =
              expectKind(arg.value(), member(argsPath, arg.key()), Kind::Number, "a number");
          !status.isOk())
        return status;
      out.args[arg.key()] = arg.value().get<double>();
    }
  }
  for (const InitArg &arg : initArgs(out.kind))
    out.args.emplace(arg.name, arg.defaultValue);
  return Status();
}

Status parseParam(const Json &value, const std::string &path, ParamSpec &out) {
  if (Status status = expectObject(value, path, kParamKeys, {"cast_of"});
      !status.isOk())
    return status;
  ObjectReader fields(value, path);
  if (Status status = parseTensorFields(fields, out); !status.isOk())
    return status;
  if (Status status =
          parseInitializer(fields.get("init"), fields.path("init"), out.init);
      !status.isOk())
    return status;
  if (Status status = fields.boolean("trainable", out.trainable);
      !status.isOk())
    return status;
  if (fields.has("cast_of"))
    if (Status status = fields.string("cast_of", out.castOf); !status.isOk())
      return status;
  return fields.boolean("state", out.state);
}

Status parseConstant(const Json &value, const std::string &path, ConstantSpec &out) {
  if (Status status =
          expectObject(value, path, {"dtype", "shape", "buffer", "section"});
      !status.isOk())
    return status;
  ObjectReader fields(value, path);
  if (Status status = fields.dtype("dtype", out.dtype); !status.isOk())
    return status;
  if (Status status = fields.shape("shape", out.shape); !status.isOk())
    return status;
  if (Status status = fields.buffer("buffer", out.buffer); !status.isOk())
    return status;
  return fields.string("section", out.section);
}

Status parseKernel(const Json &value, const std::string &path, KernelSpec &out) {
  if (Status status = expectObject(value, path, {"name", "grid", "block"});
      !status.isOk())
    return status;
  ObjectReader fields(value, path);
  if (Status status = fields.string("name", out.name); !status.isOk())
    return status;
  if (Status status = fields.integer("grid", out.grid); !status.isOk())
    return status;
  return fields.integer("block", out.block);
}

Status parseLaunch(const Json &value, const std::string &path, LaunchStep &out) {
  if (Status status = expectObject(value, path, {"op", "kernel", "buffers"});
      !status.isOk())
    return status;
  ObjectReader fields(value, path);
  if (Status status = fields.string("kernel", out.kernel); !status.isOk())
    return status;
  return fields.array("buffers", out.buffers, parseBuffer);
}

/// A gemm step's im2col_b (its numbers are checked by verifyManifest).
Status parseIm2col(const Json &value, const std::string &path, GemmStep::Im2col &out) {
  if (Status status = expectObject(
          value, path, {"input", "shape", "kernel", "stride", "padding", "dilation"});
      !status.isOk())
    return status;
  ObjectReader fields(value, path);
  if (Status status = fields.buffer("input", out.input); !status.isOk())
    return status;
  for (auto [key, dims] :
       {std::pair{"shape", &out.shape}, std::pair{"kernel", &out.kernel},
        std::pair{"stride", &out.stride}, std::pair{"padding", &out.padding},
        std::pair{"dilation", &out.dilation}})
    if (Status status = fields.shape(key, *dims); !status.isOk())
      return status;
  return Status();
}

Status parseGemm(const Json &value, const std::string &path, GemmStep &out) {
  if (Status status = expectObject(value, path, kGemmKeys,
                                   {"bias_dtype", "keep_a", "keep_b", "keep_c", "reuse_a",
                                    "reuse_b", "relu_grad_aux", "relu_grad_aux_dtype",
                                    "relu_grad_out", "im2col_b", "beta"});
      !status.isOk())
    return status;
  ObjectReader fields(value, path);
  for (auto [key, ref] :
       {std::pair{"a", &out.a}, std::pair{"b", &out.b}, std::pair{"c", &out.c}})
    if (Status status = fields.buffer(key, *ref); !status.isOk())
      return status;
  for (auto [key, dtype] :
       {std::pair{"a_dtype", &out.aDtype}, std::pair{"b_dtype", &out.bDtype},
        std::pair{"c_dtype", &out.cDtype}})
    if (Status status = fields.dtype(key, *dtype); !status.isOk())
      return status;
  bool hasBiasDtype = fields.has("bias_dtype");
  if (fields.get("bias").is_null()) {
    out.bias.reset();
    if (hasBiasDtype)
      return fail(fields.path("bias_dtype"), "given without a bias");
  } else {
    out.bias.emplace();
    if (Status status = fields.buffer("bias", *out.bias); !status.isOk())
      return status;
    if (!hasBiasDtype)
      return fail(fields.path("bias_dtype"), "missing (the step has a bias)");
    if (Status status = fields.dtype("bias_dtype", out.biasDtype);
        !status.isOk())
      return status;
  }
  for (auto [key, number] :
       {std::pair{"m", &out.m}, std::pair{"n", &out.n}, std::pair{"k", &out.k},
        std::pair{"batch", &out.batch}, std::pair{"offset_a", &out.offsetA},
        std::pair{"offset_b", &out.offsetB},
        std::pair{"offset_c", &out.offsetC},
        std::pair{"stride_a", &out.strideA},
        std::pair{"stride_b", &out.strideB},
        std::pair{"stride_c", &out.strideC}})
    if (Status status = fields.integer(key, *number); !status.isOk())
      return status;
  if (Status status = fields.boolean("transpose_a", out.transposeA);
      !status.isOk())
    return status;
  if (Status status = fields.boolean("transpose_b", out.transposeB);
      !status.isOk())
    return status;
  for (auto [key, flag] :
       {std::pair{"keep_a", &out.keepA}, std::pair{"keep_b", &out.keepB},
        std::pair{"keep_c", &out.keepC}, std::pair{"reuse_a", &out.reuseA},
        std::pair{"reuse_b", &out.reuseB}}) {
    *flag = false;
    if (fields.has(key))
      if (Status status = fields.boolean(key, *flag); !status.isOk())
        return status;
  }
  out.beta = 0;
  if (const Json *beta = findMember(value, "beta")) {
    if (Status status = expectKind(*beta, fields.path("beta"), Kind::Number, "a number");
        !status.isOk())
      return status;
    out.beta = beta->get<double>();
  }
  const char *reluGradKeys[] = {"relu_grad_aux", "relu_grad_aux_dtype",
                                "relu_grad_out"};
  size_t reluGradGiven = 0;
  for (const char *key : reluGradKeys)
    reluGradGiven += fields.has(key);
  out.reluGrad.reset();
  if (reluGradGiven > 0) {
    for (const char *key : reluGradKeys)
      if (!fields.has(key))
        return fail(fields.path(key),
                    "missing (relu_grad_aux, relu_grad_aux_dtype and "
                    "relu_grad_out come together)");
    GemmStep::ReluGrad &hint = out.reluGrad.emplace();
    if (Status status = fields.buffer("relu_grad_aux", hint.aux);
        !status.isOk())
      return status;
    if (Status status = fields.dtype("relu_grad_aux_dtype", hint.auxDtype);
        !status.isOk())
      return status;
    if (Status status = fields.buffer("relu_grad_out", hint.out);
        !status.isOk())
      return status;
  }
  out.im2colB.reset();
  if (const Json *hint = findMember(value, "im2col_b"))
    if (Status status = parseIm2col(*hint, fields.path("im2col_b"), out.im2colB.emplace());
        !status.isOk())
      return status;
  std::string epilogue;
  if (Status status = fields.string("epilogue", epilogue); !status.isOk())
    return status;
  auto known = std::find_if(
      std::begin(kAllEpilogues), std::end(kAllEpilogues),
      [&](Epilogue candidate) { return epilogue == epilogueName(candidate); });
  if (known == std::end(kAllEpilogues))
    return fail(fields.path("epilogue"),
                "unknown epilogue " + quoteJson(epilogue) +
                    " (expected none, bias, relu, bias_relu, gelu or "
                    "bias_gelu)");
  out.epilogue = *known;
  return Status();
}

Status parseCopy(const Json &value, const std::string &path, CopyStep &out) {
  if (Status status =
          expectObject(value, path, {"op", "source", "target", "bytes"});
      !status.isOk())
    return status;
  ObjectReader fields(value, path);
  if (Status status = fields.buffer("source", out.source); !status.isOk())
    return status;
  if (Status status = fields.buffer("target", out.target); !status.isOk())
    return status;
  return fields.size("bytes", out.bytes);
}

Status parseAllReduce(const Json &value, const std::string &path, AllReduceStep &out) {
  if (Status status = expectObject(value, path, {"op", "buffer", "dtype", "count", "reduce"});
      !status.isOk())
    return status;
  ObjectReader fields(value, path);
  if (Status status = fields.buffer("buffer", out.buffer); !status.isOk())
    return status;
  if (Status status = fields.dtype("dtype", out.dtype); !status.isOk())
    return status;
  if (Status status = fields.size("count", out.count); !status.isOk())
    return status;
  std::string reduce;
  if (Status status = fields.string("reduce", reduce); !status.isOk())
    return status;
  if (reduce == "sum")
    out.reduce = AllReduceOp::Sum;
  else if (reduce == "max")
    out.reduce = AllReduceOp::Max;
  else if (reduce == "mean")
    out.reduce = AllReduceOp::Mean;
  else
    return fail(fields.path("reduce"),
                "unknown reduction " + quoteJson(reduce) + " (expected sum, max or mean)");
  return Status();
}

Status parseStep(const Json &value, const std::string &path, Step &out) {
  if (Status status = expectKind(value, path, Kind::Object, "an object");
      !status.isOk())
    return status;
  const Json *op = findMember(value, "op");
  if (!op)
    return fail(member(path, "op"), "missing");
  if (*op == "launch")
    return parseLaunch(value, path, out.emplace<LaunchStep>());
  if (*op == "gemm")
    return parseGemm(value, path, out.emplace<GemmStep>());
  if (*op == "copy")
    return parseCopy(value, path, out.emplace<CopyStep>());
  if (*op == "all_reduce")
    return parseAllReduce(value, path, out.emplace<AllReduceStep>());
  return fail(member(path, "op"), "expected \"launch\", \"gemm\", \"copy\" or \"all_reduce\"");
}

} // namespace

Status parseManifest(const std::string &json, Manifest &out) {
  Json root;
  JsonError error;
  if (!parseJson(json, root, error))
    return Status::error(MPC_FORMAT_ERROR, "invalid JSON at " + error.where + ": " + error.message);
  if (Status status = expectObject(root, "", kRootKeys); !status.isOk())
    return status;
  ObjectReader fields(root, "");
  std::string format;
  if (Status status = fields.string("format", format); !status.isOk())
    return status;
  if (format != kManifestFormat)
    return fail("format", std::string("expected \"") + kManifestFormat +
                              "\", got " + quoteJson(format));
  int64_t version;
  if (Status status = fields.integer("version", version); !status.isOk())
    return status;
  if (version != kManifestVersion)
    return Status::error(MPC_UNSUPPORTED, "version: manifest version " +
                                              std::to_string(version) +
                                              ", this runtime reads version " +
                                              std::to_string(kManifestVersion));
  Manifest manifest;
  if (Status status = fields.string("program", manifest.program);
      !status.isOk())
    return status;
  if (Status status = fields.size("arena_bytes", manifest.arenaBytes);
      !status.isOk())
    return status;
  if (Status status = fields.size("persistent_bytes", manifest.persistentBytes);
      !status.isOk())
    return status;
  if (Status status = fields.array("inputs", manifest.inputs, parseTensor);
      !status.isOk())
    return status;
  if (Status status = fields.array("outputs", manifest.outputs, parseTensor);
      !status.isOk())
    return status;
  if (Status status = fields.array("params", manifest.params, parseParam);
      !status.isOk())
    return status;
  if (Status status =
          fields.array("constants", manifest.constants, parseConstant);
      !status.isOk())
    return status;
  if (Status status = fields.array("kernels", manifest.kernels, parseKernel);
      !status.isOk())
    return status;
  if (Status status = fields.array("steps", manifest.steps, parseStep);
      !status.isOk())
    return status;
  if (Status status = verifyManifest(manifest); !status.isOk())
    return status;
  out = std::move(manifest);
  return Status();
}

} // namespace mpc::rt
