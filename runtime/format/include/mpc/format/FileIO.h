//===- FileIO.h - reading files at offsets, writing them atomically -------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// File access shared by the runtime's readers and writers. Messages start
// with the file's path.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_FORMAT_FILEIO_H
#define MPC_FORMAT_FILEIO_H

#include "mpc/format/Status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mpc::rt {

/// A regular file opened for reading at explicit offsets.
class InputFile {
public:
  InputFile() = default;
  InputFile(const InputFile &) = delete;
  InputFile &operator=(const InputFile &) = delete;
  ~InputFile();

  /// Opens `path`; MPC_NOT_FOUND when it does not exist, MPC_IO_ERROR when it
  /// cannot be read or is not a regular file.
  Status open(const std::string &path);

  const std::string &path() const { return path_; }
  /// The size of the file when it was opened.
  uint64_t size() const { return size_; }

  /// Reads exactly `count` bytes at `offset` into `destination`;
  /// MPC_FORMAT_ERROR naming `what` when the file ends first.
  Status readAt(uint64_t offset, void *destination, size_t count,
                const char *what) const;

private:
  int fd_ = -1;
  std::string path_;
  uint64_t size_ = 0;
};

/// A piece of a file to write.
struct ByteSpan {
  const void *data;
  size_t size;
};

/// Writes the concatenation of `pieces` to `path` so that `path` is either
/// left as it was or replaced by the complete new file, even across a crash:
/// the data goes to `path.tmp.<pid>`, is fsynced and renamed over `path`. On
/// failure the temporary file is removed and `path` is untouched.
Status writeFileAtomically(const std::string &path,
                           const std::vector<ByteSpan> &pieces);

} // namespace mpc::rt

#endif // MPC_FORMAT_FILEIO_H
