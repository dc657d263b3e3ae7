//===- FuzzReplayMain.cpp - running a fuzz target over files --------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The main of a fuzz target built without libFuzzer (any compiler): each
// argument is an input file or a folder of them (not recursive), and each
// file goes through LLVMFuzzerTestOneInput once, in name order. A crash or a
// failed check ends the program with the input's name on standard error.
// Zero inputs is an error: a replay that runs nothing checks nothing.
//
//   mpc-fuzz-TARGET FILE|FOLDER...
//
//===----------------------------------------------------------------------===//

#include "FuzzTarget.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace fs = std::filesystem;

int main(int argc, char **argv) {
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    fs::path path = argv[i];
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      std::vector<fs::path> files;
      for (const fs::directory_entry &entry : fs::directory_iterator(path, ec))
        if (entry.is_regular_file())
          files.push_back(entry.path());
      std::sort(files.begin(), files.end());
      inputs.insert(inputs.end(), files.begin(), files.end());
    } else if (fs::is_regular_file(path, ec)) {
      inputs.push_back(path);
    } else {
      std::fprintf(stderr, "%s: '%s' is neither a file nor a folder\n", argv[0], argv[i]);
      return 2;
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "usage: %s FILE|FOLDER... (no inputs: nothing would be checked)\n",
                 argv[0]);
    return 2;
  }
  for (const fs::path &input : inputs) {
    std::ifstream in(input, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      std::fprintf(stderr, "%s: cannot read '%s'\n", argv[0], input.c_str());
      return 2;
    }
    // Named first, so that a crash's report follows the input's name.
    std::fprintf(stderr, "replaying %s\n", input.c_str());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
  }
  std::fprintf(stderr, "%s: %zu inputs replayed, none failed\n", argv[0], inputs.size());
  return 0;
}
