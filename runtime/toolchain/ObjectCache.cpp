//===- ObjectCache.cpp - compiled objects cached on disk ------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "mpc/toolchain/ObjectCache.h"

#include "mpc/format/FileIO.h"
#include "mpc/format/Hash.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>

namespace mpc::rt {

namespace {

/// The value of environment variable `name`, or empty.
std::string environment(const char *name) {
  const char *value = std::getenv(name);
  return value ? value : "";
}

/// Creates `path` and its missing parents with mode 0700.
Status makeDirectories(const std::string &path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    std::string prefix = path.substr(0, slash);
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST)
      return Status::error(MPC_IO_ERROR, "cannot create the cache folder '" +
                                             prefix +
                                             "': " + std::strerror(errno));
    if (slash == std::string::npos)
      break;
  }
  struct stat info;
  if (::stat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    return Status::error(MPC_IO_ERROR,
                         "the cache folder '" + path + "' is not a folder");
  return Status();
}

/// Refuses a shared folder that another user could have planted or could
/// write to.
Status checkPrivate(const std::string &path) {
  struct stat info;
  if (::lstat(path.c_str(), &info) != 0)
    return Status::error(MPC_IO_ERROR, "cannot inspect the cache folder '" +
                                           path + "': " + std::strerror(errno));
  if (!S_ISDIR(info.st_mode) || info.st_uid != ::getuid() ||
      (info.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return Status::error(MPC_IO_ERROR,
                         "the cache folder '" + path +
                             "' must be a folder owned by you and writable by "
                             "nobody else; set MPC_CACHE_DIR to another one");
  return Status();
}

/// Whether the file at `path` holds exactly `bytes`.
bool holds(const std::string &path, const std::string &bytes) {
  InputFile file;
  if (!file.open(path).isOk() || file.size() != bytes.size())
    return false;
  std::string contents(bytes.size(), '\0');
  return file.readAt(0, contents.data(), contents.size(), "the object")
             .isOk() &&
         contents == bytes;
}

} // namespace

Status objectCacheDirectory(std::string &out) {
  std::string directory = environment("MPC_CACHE_DIR");
  if (directory.empty() && !environment("XDG_CACHE_HOME").empty())
    directory = environment("XDG_CACHE_HOME") + "/mpc";
  if (directory.empty() && !environment("HOME").empty())
    directory = environment("HOME") + "/.cache/mpc";
  bool shared = directory.empty();
  if (shared)
    directory = "/tmp/mpc-cache-" + std::to_string(::getuid());
  if (Status status = makeDirectories(directory); !status.isOk())
    return status;
  if (shared)
    if (Status status = checkPrivate(directory); !status.isOk())
      return status;
  out = directory;
  return Status();
}

Status cacheObject(const std::string &bytes, const std::string &stem,
                   const std::string &extension, std::string &path) {
  std::string directory;
  if (Status status = objectCacheDirectory(directory); !status.isOk())
    return status;
  char key[17];
  std::snprintf(key, sizeof key, "%016" PRIx64, hash64(bytes.data(), bytes.size()));
  std::string file = directory + "/" + stem + "-" + key + extension;
  // Threads of one process share the temporary file name of
  // writeFileAtomically, so they take turns.
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (!holds(file, bytes))
    if (Status status =
            writeFileAtomically(file, {ByteSpan{bytes.data(), bytes.size()}});
        !status.isOk())
      return status;
  path = file;
  return Status();
}

} // namespace mpc::rt
