//===- FuzzManifest.cpp - fuzzing the step program's reader ---------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Input: the text of a bundle's manifest.json. parseManifest reads and
// verifies it; an accepted manifest must write back (writeManifest) to JSON
// that parses to a manifest writing the same JSON again.
//
//===----------------------------------------------------------------------===//

#include "FuzzTarget.h"

#include "mpc/format/Manifest.h"

using namespace mpc::rt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string json(reinterpret_cast<const char *>(data), size);
  Manifest manifest;
  if (!parseManifest(json, manifest).isOk())
    return 0;
  std::string written = writeManifest(manifest);
  Manifest reread;
  Status status = parseManifest(written, reread);
  FUZZ_CHECK(status.isOk(), "an accepted manifest, written back, is refused");
  FUZZ_CHECK(writeManifest(reread) == written, "a manifest does not survive writing and reading");
  return 0;
}
