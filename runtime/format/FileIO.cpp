//===- FileIO.cpp - reading files at offsets, writing them atomically -----===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "mpc/format/FileIO.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mpc::rt {

namespace {

Status ioError(const std::string &path, const std::string &what, int error) {
  return Status::error(MPC_IO_ERROR,
                       path + ": " + what + ": " + std::strerror(error));
}

/// The folder holding `path`, for syncing a rename.
std::string parentDirectory(const std::string &path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

Status writeAll(int fd, const std::string &path, const ByteSpan &piece) {
  const char *data = static_cast<const char *>(piece.data);
  size_t left = piece.size;
  while (left > 0) {
    ssize_t written = ::write(fd, data, left);
    if (written < 0) {
      if (errno == EINTR)
        continue;
      return ioError(path, "cannot write", errno);
    }
    data += written;
    left -= static_cast<size_t>(written);
  }
  return Status();
}

/// Writes, syncs and closes the temporary file `fd`.
Status fillTemporary(int fd, const std::string &tempPath,
                     const std::vector<ByteSpan> &pieces) {
  for (const ByteSpan &piece : pieces) {
    Status status = writeAll(fd, tempPath, piece);
    if (!status.isOk()) {
      ::close(fd);
      return status;
    }
  }
  if (::fsync(fd) != 0) {
    int error = errno;
    ::close(fd);
    return ioError(tempPath, "cannot sync", error);
  }
  if (::close(fd) != 0)
    return ioError(tempPath, "cannot close", errno);
  return Status();
}

} // namespace

InputFile::~InputFile() {
  if (fd_ >= 0)
    ::close(fd_);
}

Status InputFile::open(const std::string &path) {
  path_ = path;
  // (O_NONBLOCK: a FIFO opens at once, to be refused below, instead of
  // waiting for a writer; reads of regular files ignore it)
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0) {
    int error = errno;
    if (error == ENOENT)
      return Status::error(MPC_NOT_FOUND, path + ": no such file");
    return ioError(path, "cannot open", error);
  }
  struct stat info;
  if (::fstat(fd_, &info) != 0)
    return ioError(path, "cannot stat", errno);
  if (!S_ISREG(info.st_mode))
    return Status::error(MPC_IO_ERROR, path + ": not a regular file");
  size_ = static_cast<uint64_t>(info.st_size);
  return Status();
}

Status InputFile::readAt(uint64_t offset, void *destination, size_t count,
                         const char *what) const {
  char *out = static_cast<char *>(destination);
  while (count > 0) {
    ssize_t got = ::pread(fd_, out, count, static_cast<off_t>(offset));
    if (got < 0) {
      if (errno == EINTR)
        continue;
      return ioError(path_, std::string("cannot read ") + what, errno);
    }
    if (got == 0)
      return Status::error(MPC_FORMAT_ERROR,
                           path_ + ": the file ends inside " + what + " (" +
                               std::to_string(count) + " bytes missing)");
    out += got;
    offset += static_cast<uint64_t>(got);
    count -= static_cast<size_t>(got);
  }
  return Status();
}

Status writeFileAtomically(const std::string &path,
                           const std::vector<ByteSpan> &pieces) {
  std::string tempPath = path + ".tmp." + std::to_string(::getpid());
  int fd =
      ::open(tempPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0)
    return ioError(path, "cannot create temporary file '" + tempPath + "'",
                   errno);
  Status status = fillTemporary(fd, tempPath, pieces);
  if (status.isOk() && ::rename(tempPath.c_str(), path.c_str()) != 0)
    status = ioError(path, "cannot rename '" + tempPath + "' over it", errno);
  if (!status.isOk()) {
    ::unlink(tempPath.c_str());
    return status;
  }
  // Make the rename itself durable. Some file systems cannot sync a folder;
  // the file is complete either way, so that is not an error.
  int dirFd =
      ::open(parentDirectory(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd >= 0) {
    ::fsync(dirFd);
    ::close(dirFd);
  }
  return Status();
}

} // namespace mpc::rt
