//===- KernelCache.cpp - compiled kernels cached on disk -------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "mpc/toolchain/KernelCache.h"

#include "mpc/format/FileIO.h"
#include "mpc/format/Hash.h"
#include "mpc/toolchain/DeviceHeaders.h"
#include "mpc/toolchain/ObjectCache.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <mutex>
#include <sys/stat.h>

namespace mpc::rt {

std::string kernelCacheKey(const std::vector<std::string> &parts) {
  Hasher hash;
  // Each part after its length, so that no two lists of parts hash alike
  // by construction.
  auto mix = [&](const char *bytes, size_t size) {
    uint64_t length = size;
    hash.update(&length, sizeof length);
    hash.update(bytes, size);
  };
  mix(MPC_VERSION_STRING, sizeof(MPC_VERSION_STRING) - 1);
  for (unsigned i = 0; i < kNumDeviceHeaders; ++i) {
    mix(kDeviceHeaders[i].name, std::char_traits<char>::length(kDeviceHeaders[i].name));
    mix(kDeviceHeaders[i].contents, kDeviceHeaders[i].size);
  }
  for (const std::string &part : parts)
    mix(part.data(), part.size());
  char key[17];
  std::snprintf(key, sizeof key, "%016" PRIx64, hash.digest());
  return key;
}

std::string kernelCacheDirectory() {
  std::string directory;
  if (!objectCacheDirectory(directory).isOk())
    return "";
  directory += "/kernels";
  if (::mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST)
    return "";
  return directory;
}

bool readCachedKernel(const std::string &name, std::string &bytes) {
  std::string directory = kernelCacheDirectory();
  if (directory.empty())
    return false;
  InputFile file;
  if (!file.open(directory + "/" + name).isOk())
    return false;
  std::string contents(static_cast<size_t>(file.size()), '\0');
  if (!file.readAt(0, contents.data(), contents.size(), "the cached kernel")
           .isOk())
    return false;
  bytes = std::move(contents);
  return true;
}

void writeCachedKernel(const std::string &name, const std::string &bytes) {
  std::string directory = kernelCacheDirectory();
  if (directory.empty())
    return;
  // Threads of one process share writeFileAtomically's temporary name.
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  (void)writeFileAtomically(directory + "/" + name,
                            {ByteSpan{bytes.data(), bytes.size()}});
}

} // namespace mpc::rt
