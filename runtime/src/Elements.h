//===- Elements.h - converting tensor elements between dtypes -------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The host side of the runtime widens tensors to f32 or f64 (GEMM operands)
// and rounds computed values back to a storage dtype (GEMM results,
// initialised parameters). fp16 and bf16 go through the device headers'
// to_f32 and from_f32, so the host rounds exactly as generated kernels do:
// once, to nearest even.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_ELEMENTS_H
#define MPC_RUNTIME_ELEMENTS_H

#include "FastConvert.h"
#include "mpc/format/HostTensor.h"

#include "mpc/device/types.cuh"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace mpc::rt {

namespace detail {

/// Element i of `source`, which need not be aligned for Storage (a tensor
/// viewed in a mapped file, such as an ONNX model's weights, starts at any
/// byte); the copy compiles to a plain load.
template <typename Storage> Storage loadElement(const void *source, size_t i) {
  Storage value;
  std::memcpy(&value, static_cast<const unsigned char *>(source) + i * sizeof(Storage),
              sizeof(Storage));
  return value;
}

template <typename Storage, typename T> void widenAs(const void *source, T *target, size_t count) {
  for (size_t i = 0; i < count; ++i)
    target[i] = static_cast<T>(mpc::to_f32(loadElement<Storage>(source, i)));
}

template <typename Storage, typename T>
void widenCast(const void *source, T *target, size_t count) {
  for (size_t i = 0; i < count; ++i)
    target[i] = static_cast<T>(loadElement<Storage>(source, i));
}

template <typename Storage, typename T>
void narrowAs(const T *source, void *target, size_t count) {
  Storage *values = static_cast<Storage *>(target);
  for (size_t i = 0; i < count; ++i)
    values[i] = mpc::from_f32<Storage>(static_cast<float>(source[i]));
}

template <typename Storage, typename T>
void narrowCast(const T *source, void *target, size_t count) {
  Storage *values = static_cast<Storage *>(target);
  for (size_t i = 0; i < count; ++i)
    values[i] = static_cast<Storage>(source[i]);
}

} // namespace detail

/// Converts `count` elements of `dtype` at `source` to T (float or double).
/// f16, bf16 and f32 widen exactly; f64 narrows to nearest when T is float.
template <typename T>
void widenElements(DType dtype, const void *source, T *target, size_t count) {
  if constexpr (std::is_same_v<T, float>) {
    // Whole arrays, eight elements at a time (FastConvert.h).
    if (dtype == DType::F16)
      return widenHalf(static_cast<const uint16_t *>(source), target, count);
    if (dtype == DType::BF16)
      return widenBf16(static_cast<const uint16_t *>(source), target, count);
  }
  switch (dtype) {
  case DType::F16:
    return detail::widenAs<mpc::half_t>(source, target, count);
  case DType::BF16:
    return detail::widenAs<mpc::bf16_t>(source, target, count);
  case DType::F32:
    return detail::widenCast<float>(source, target, count);
  case DType::F64:
    return detail::widenCast<double>(source, target, count);
  case DType::I32:
    return detail::widenCast<int32_t>(source, target, count);
  case DType::I64:
    return detail::widenCast<int64_t>(source, target, count);
  case DType::Bool:
    return detail::widenCast<uint8_t>(source, target, count);
  }
}

/// Stores `count` values of T (float or double) at `target` as `dtype`:
/// f64 keeps a double exactly; f32, f16 and bf16 get the value rounded to
/// f32, then to the storage type, each to nearest even; integers truncate
/// (callers pass integral values) and i1 stores 1 for any non-zero value.
template <typename T>
void narrowElements(const T *source, DType dtype, void *target, size_t count) {
  if constexpr (std::is_same_v<T, float>) {
    if (dtype == DType::F16)
      return narrowToHalf(source, static_cast<uint16_t *>(target), count);
    if (dtype == DType::BF16)
      return narrowToBf16(source, static_cast<uint16_t *>(target), count);
  }
  switch (dtype) {
  case DType::F16:
    return detail::narrowAs<mpc::half_t>(source, target, count);
  case DType::BF16:
    return detail::narrowAs<mpc::bf16_t>(source, target, count);
  case DType::F32:
    return detail::narrowCast<float>(source, target, count);
  case DType::F64:
    return detail::narrowCast<double>(source, target, count);
  case DType::I32:
    return detail::narrowCast<int32_t>(source, target, count);
  case DType::I64:
    return detail::narrowCast<int64_t>(source, target, count);
  case DType::Bool: {
    uint8_t *values = static_cast<uint8_t *>(target);
    for (size_t i = 0; i < count; ++i)
      values[i] = source[i] != 0 ? 1 : 0;
    return;
  }
  }
}

} // namespace mpc::rt

#endif // MPC_RUNTIME_ELEMENTS_H
