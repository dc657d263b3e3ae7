//===- Safetensors.h - safetensors checkpoint files -----------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Reads and writes the safetensors format (https://github.com/huggingface/
// safetensors): an 8-byte little-endian header size N, N bytes of JSON
//   {"__metadata__": {"key": "value"},
//    "name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}, ...}
// and the data buffer, which the tensors cover exactly, without gaps or
// overlaps; offsets are relative to its start. mpc reads and writes the
// dtypes F16, BF16, F32, F64, I32, I64 and BOOL. Files that mpc writes hold
// the tensors in name order, and the header is padded with spaces to a
// multiple of 8 bytes so that the data is aligned.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_FORMAT_SAFETENSORS_H
#define MPC_FORMAT_SAFETENSORS_H

#include "mpc/format/HostTensor.h"
#include "mpc/format/Status.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mpc::rt {

/// Reads every tensor of `path` into `tensors` (replacing its contents) and,
/// when `metadata` is not null, the "__metadata__" map into it. The file is
/// validated fully first; on failure neither output is changed and the
/// message names the file and, where one is at fault, the tensor.
Status readSafetensors(const std::string &path,
                       std::map<std::string, HostTensor> &tensors,
                       std::map<std::string, std::string> *metadata);

/// A tensor held elsewhere, for writing: its type, shape and bytes.
struct TensorView {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  const void *data = nullptr;
  size_t size = 0;
};

/// Writes `tensors` and `metadata` (omitted when empty) to `path` atomically
/// (see writeFileAtomically): a failure or a crash leaves either the old file
/// or the complete new one.
Status writeSafetensors(const std::string &path,
                        const std::map<std::string, HostTensor> &tensors,
                        const std::map<std::string, std::string> &metadata);

/// writeSafetensors of tensors held elsewhere (an imported model's weights,
/// views of the mapped model file): nothing is copied.
Status writeSafetensorViews(const std::string &path,
                            const std::map<std::string, TensorView> &tensors,
                            const std::map<std::string, std::string> &metadata);

/// Whether `path` holds exactly the file writeSafetensors would write for
/// `tensors` and `metadata`, compared byte for byte; false when it differs,
/// cannot be read or does not exist. A writer that finds it so can leave
/// the file as it is (mpc compile, rewriting a model's weights of hundreds
/// of MB beside its bundle).
bool holdsSafetensors(const std::string &path, const std::map<std::string, TensorView> &tensors,
                      const std::map<std::string, std::string> &metadata);

} // namespace mpc::rt

#endif // MPC_FORMAT_SAFETENSORS_H
