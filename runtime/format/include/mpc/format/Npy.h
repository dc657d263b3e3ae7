//===- Npy.h - NumPy .npy files -------------------------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Reads and writes single arrays in NumPy's .npy format
// (numpy.lib.format): format versions 1.0, 2.0 and 3.0 are read; 1.0 is
// written, or 2.0 when the header does not fit 1.0's 64 KiB. Supported are
// C-order arrays of any rank (0-d included) with the little-endian dtypes
// '<f2' (f16), '<f4' (f32), '<f8' (f64), '<i4' (i32), '<i8' (i64) and '|b1'
// (i1). NumPy has no bfloat16, so bf16 tensors are refused on write.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_FORMAT_NPY_H
#define MPC_FORMAT_NPY_H

#include "mpc/format/HostTensor.h"
#include "mpc/format/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mpc::rt {

/// Where a .npy file's array lies: its element type and shape, and the
/// bytes of its elements (C order) at dataOffset.
struct NpyLayout {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  uint64_t dataOffset = 0, dataBytes = 0;
};

/// Reads and checks the header of the .npy file `path` (as readNpy does,
/// the file's size included) without reading its elements: what a reader
/// that maps the file needs.
Status readNpyLayout(const std::string &path, NpyLayout &out);

/// Reads the array in `path` into `out`; on failure `out` is unchanged and
/// the message names the file and the problem (MPC_FORMAT_ERROR for a
/// damaged or foreign file, MPC_UNSUPPORTED for a dtype or layout mpc does
/// not read).
Status readNpy(const std::string &path, HostTensor &out);

/// Writes `tensor` to `path` atomically (see writeFileAtomically).
Status writeNpy(const std::string &path, const HostTensor &tensor);

} // namespace mpc::rt

#endif // MPC_FORMAT_NPY_H
