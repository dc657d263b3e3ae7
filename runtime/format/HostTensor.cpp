//===- HostTensor.cpp - a tensor in host memory ---------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "mpc/format/HostTensor.h"

// (the kernels' own f16 and bf16 types, header-only)
#include "mpc/device/types.cuh"

#include <cstring>

#include <limits>

namespace mpc::rt {

size_t dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F64:
  case DType::I64:
    return 8;
  case DType::Bool:
    return 1;
  }
  return 0;
}

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::Bool:
    return "i1";
  }
  return "?";
}

std::vector<double> floatValues(const HostTensor &tensor) {
  auto widen = [&](auto element) {
    using T = decltype(element);
    std::vector<double> values(tensor.bytes.size() / sizeof(T));
    for (size_t i = 0; i < values.size(); ++i) {
      T v;
      std::memcpy(&v, tensor.bytes.data() + i * sizeof(T), sizeof(T));
      if constexpr (std::is_same_v<T, mpc::half_t> || std::is_same_v<T, mpc::bf16_t>)
        values[i] = mpc::to_f32(v);
      else
        values[i] = v;
    }
    return values;
  };
  switch (tensor.dtype) {
  case DType::F16:
    return widen(mpc::half_t{});
  case DType::BF16:
    return widen(mpc::bf16_t{});
  case DType::F32:
    return widen(float{});
  case DType::F64:
    return widen(double{});
  default:
    return {};
  }
}

std::optional<int64_t> elementCount(const std::vector<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0)
      return std::nullopt;
    if (dim != 0 && count > std::numeric_limits<int64_t>::max() / dim)
      return std::nullopt;
    count *= dim;
  }
  return count;
}

std::string formatShape(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

int64_t HostTensor::numElements() const {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

Status checkHostTensor(const HostTensor &tensor, const std::string &what) {
  std::optional<int64_t> count = elementCount(tensor.shape);
  if (!count)
    return Status::error(MPC_INVALID_ARGUMENT,
                         what + ": invalid shape " + formatShape(tensor.shape));
  // Compare in elements so that a huge count cannot overflow a byte size.
  size_t elementSize = dtypeSize(tensor.dtype);
  if (tensor.bytes.size() % elementSize != 0 ||
      tensor.bytes.size() / elementSize != static_cast<uint64_t>(*count))
    return Status::error(MPC_INVALID_ARGUMENT,
                         what + ": shape " + formatShape(tensor.shape) +
                             " of " + dtypeName(tensor.dtype) + " needs " +
                             std::to_string(*count) + " elements of " +
                             std::to_string(elementSize) +
                             " bytes but the tensor holds " +
                             std::to_string(tensor.bytes.size()) + " bytes");
  return Status();
}

} // namespace mpc::rt
