//===- HostTensor.h - a tensor in host memory -----------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The runtime's plain in-memory tensor: what file readers produce and writers
// take (.npy inputs and outputs, safetensors checkpoints). Elements are stored
// densely in C (row-major) order and in the host's little-endian byte order;
// fp16 and bf16 elements are their 16-bit patterns.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_FORMAT_HOSTTENSOR_H
#define MPC_FORMAT_HOSTTENSOR_H

#include "mpc/format/Status.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error                                                                         \
    "the mpc runtime stores tensors little-endian and needs a little-endian host"
#endif

namespace mpc::rt {

/// Element types of runtime tensors; the same set as the mpg dialect's.
enum class DType { F16, BF16, F32, F64, I32, I64, Bool };

/// Bytes per element (a Bool is one byte, 0 or 1).
size_t dtypeSize(DType dtype);

/// The MLIR spelling: "f16", "bf16", "f32", "f64", "i32", "i64", "i1".
const char *dtypeName(DType dtype);

/// The number of elements of `shape` (1 for rank 0), or nullopt when a
/// dimension is negative or the count overflows int64_t.
std::optional<int64_t> elementCount(const std::vector<int64_t> &shape);

/// `shape` as "[2, 3]" for messages.
std::string formatShape(const std::vector<int64_t> &shape);

struct HostTensor {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  /// numElements() * dtypeSize(dtype) bytes.
  std::vector<uint8_t> bytes;

  /// The product of the dimensions; 1 for a 0-d tensor.
  int64_t numElements() const;
};

/// The elements of a float tensor (f16, bf16, f32, f64) as doubles, widened
/// exactly; empty for integer and boolean tensors.
std::vector<double> floatValues(const HostTensor &tensor);

/// Checks that `tensor` is well formed (no negative dimension, exactly
/// numElements() elements of bytes); MPC_INVALID_ARGUMENT naming `what`
/// otherwise.
Status checkHostTensor(const HostTensor &tensor, const std::string &what);

} // namespace mpc::rt

#endif // MPC_FORMAT_HOSTTENSOR_H
