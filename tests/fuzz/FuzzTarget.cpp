//===- FuzzTarget.cpp - what every fuzz target shares ---------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "FuzzTarget.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <unistd.h>

namespace mpc::fuzz {

void checkFailed(const char *file, int line, const char *condition, const char *what) {
  std::fprintf(stderr, "%s:%d: fuzz check failed: %s (%s)\n", file, line, what, condition);
  std::abort();
}

namespace {

/// Removes the scratch folder when the process ends normally (libFuzzer's
/// -runs=N, the replay); a crash leaves it for the post-mortem.
struct ScratchDirectory {
  std::string path;
  ScratchDirectory() {
    const char *tmp = std::getenv("TMPDIR");
    std::string base = tmp && *tmp ? tmp : "/tmp";
    path = base + "/mpc-fuzz." + std::to_string(::getpid());
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec) {
      std::fprintf(stderr, "fuzz: cannot create %s: %s\n", path.c_str(), ec.message().c_str());
      std::abort();
    }
  }
  ~ScratchDirectory() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

} // namespace

const std::string &scratchDirectory() {
  static ScratchDirectory directory;
  return directory.path;
}

std::string writeScratchFile(const std::string &name, std::string_view bytes) {
  std::string path = scratchDirectory() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    std::fprintf(stderr, "fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
  return path;
}

} // namespace mpc::fuzz
