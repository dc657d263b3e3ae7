//===- TestUtil.h - temporary folders and Python for runtime tests --------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Runtime file-format tests check mpc against independent implementations:
// NumPy, and Python scripts written from the format specifications. They run
// /usr/bin/python3 in a fresh temporary folder, and build tensors from typed
// values.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_TESTS_UNIT_RUNTIME_TESTUTIL_H
#define MPC_TESTS_UNIT_RUNTIME_TESTUTIL_H

#include "mpc/format/HostTensor.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace mpc::test {

/// A fresh folder under $TMPDIR (or /tmp), removed with its contents.
class TempDir {
public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "mpc-test-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
      throw std::runtime_error("cannot make a folder like " + pattern);
    root_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  const std::string &root() const { return root_; }
  std::string file(const std::string &name) const { return root_ + "/" + name; }

  /// The names of the entries in the folder, sorted.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto &entry : std::filesystem::directory_iterator(root_))
      names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

private:
  std::string root_;
};

inline void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

inline std::string readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

/// A tensor holding `values`.
template <typename T>
mpc::rt::HostTensor makeTensor(mpc::rt::DType dtype, std::vector<int64_t> shape,
                               const std::vector<T> &values) {
  mpc::rt::HostTensor tensor;
  tensor.dtype = dtype;
  tensor.shape = std::move(shape);
  tensor.bytes.resize(values.size() * sizeof(T));
  if (!values.empty()) // (memcpy's pointers may not be null, even for 0 bytes)
    std::memcpy(tensor.bytes.data(), values.data(), tensor.bytes.size());
  return tensor;
}

/// The elements of `tensor` as T.
template <typename T>
std::vector<T> valuesOf(const mpc::rt::HostTensor &tensor) {
  std::vector<T> values(tensor.bytes.size() / sizeof(T));
  std::memcpy(values.data(), tensor.bytes.data(), tensor.bytes.size());
  return values;
}

/// Runs `script` with /usr/bin/python3 in `dir`, passing `dir` as argv[1];
/// returns the exit status (-1 when the script did not exit normally) and
/// the script's stdout and stderr in `output`.
inline int runPython(const TempDir &dir, const std::string &script,
                     std::string &output) {
  writeBytes(dir.file("script.py"), script);
  std::string command = "cd '" + dir.root() +
                        "' && /usr/bin/python3 script.py '" + dir.root() +
                        "' > script.out 2>&1";
  int status = std::system(command.c_str());
  output = readBytes(dir.file("script.out"));
  std::filesystem::remove(dir.file("script.py"));
  std::filesystem::remove(dir.file("script.out"));
  return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// Why NumPy cannot be used from /usr/bin/python3, or empty when it can.
inline std::string numpyUnavailableReason() {
  TempDir dir;
  std::string output;
  if (runPython(dir, "import numpy\n", output) != 0)
    return "/usr/bin/python3 cannot import numpy: " + output;
  return "";
}

} // namespace mpc::test

#endif // MPC_TESTS_UNIT_RUNTIME_TESTUTIL_H
