//===- ManifestInternal.h - what parsing, verifying and writing share -----===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Private to the format library: the manifest's keys, limits and enums, and
// the path helpers of its error messages, shared by ManifestParse.cpp,
// ManifestVerify.cpp and ManifestWrite.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_FORMAT_MANIFESTINTERNAL_H
#define MPC_FORMAT_MANIFESTINTERNAL_H

#include "mpc/format/Json.h"
#include "mpc/format/Manifest.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace mpc::rt::manifest_detail {

/// The kinds of JSON value, as messages name them.
enum class Kind { Null, Bool, Number, String, Array, Object };

inline Kind kindOf(const Json &value) {
  if (value.is_boolean())
    return Kind::Bool;
  if (value.is_number())
    return Kind::Number;
  if (value.is_string())
    return Kind::String;
  if (value.is_array())
    return Kind::Array;
  if (value.is_object())
    return Kind::Object;
  return Kind::Null;
}
using Keys = std::vector<const char *>;

inline constexpr DType kAllDtypes[] = {DType::F16, DType::BF16, DType::F32, DType::F64,
                                       DType::I32, DType::I64,  DType::Bool};
inline constexpr InitKind kAllInitKinds[] = {
    InitKind::Zeros,   InitKind::Ones,          InitKind::Constant, InitKind::Normal,
    InitKind::Uniform, InitKind::GlorotUniform, InitKind::HeNormal, InitKind::Seed};
inline constexpr Epilogue kAllEpilogues[] = {Epilogue::None, Epilogue::Bias,
                                             Epilogue::Relu, Epilogue::BiasRelu,
                                             Epilogue::Gelu, Epilogue::BiasGelu};
/// GEMM dimensions and batch counts are `int` in BLAS and cuBLAS.
inline constexpr int64_t kMaxGemmDim = std::numeric_limits<int32_t>::max();
/// CUDA's limits on a 1-D launch.
inline constexpr int64_t kMaxGrid = std::numeric_limits<int32_t>::max();
inline constexpr int64_t kMaxBlock = 1024;

inline const Keys kTensorKeys = {"name", "dtype", "shape", "buffer"};
inline const Keys kParamKeys = {"name", "dtype", "shape", "buffer", "init", "trainable", "state"};
inline const Keys kGemmKeys = {
    "op",       "a",        "b",        "c",        "bias",        "a_dtype",     "b_dtype",
    "c_dtype",  "m",        "n",        "k",        "batch",       "offset_a",    "offset_b",
    "offset_c", "stride_a", "stride_b", "stride_c", "transpose_a", "transpose_b", "epilogue"};
inline const Keys kRootKeys = {"format",           "version", "program", "arena_bytes",
                               "persistent_bytes", "inputs",  "outputs", "params",
                               "constants",        "kernels", "steps"};

/// An initializer argument and its default.
struct InitArg {
  const char *name;
  double defaultValue;
};

inline std::vector<InitArg> initArgs(InitKind kind) {
  switch (kind) {
  case InitKind::Zeros:
  case InitKind::Ones:
  case InitKind::Seed:
    return {};
  case InitKind::Constant:
    return {{"value", 0.0}};
  case InitKind::Normal:
    return {{"mean", 0.0}, {"std", 1.0}};
  case InitKind::Uniform:
    return {{"low", 0.0}, {"high", 1.0}};
  case InitKind::GlorotUniform:
    return {{"gain", 1.0}};
  case InitKind::HeNormal:
    return {{"gain", std::sqrt(2.0)}};
  }
  return {};
}

inline bool isFloating(DType dtype) {
  return dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::F32 || dtype == DType::F64;
}

inline std::string member(const std::string &path, const std::string &key) {
  return path.empty() ? key : path + "." + key;
}

inline std::string element(const std::string &path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

inline Status fail(const std::string &path, const std::string &what) {
  return Status::error(MPC_FORMAT_ERROR, path + ": " + what);
}

} // namespace mpc::rt::manifest_detail

#endif // MPC_FORMAT_MANIFESTINTERNAL_H
