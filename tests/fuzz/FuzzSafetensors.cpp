//===- FuzzSafetensors.cpp - fuzzing the safetensors reader ---------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Input: a safetensors file (checkpoints, --init). Accepted tensors must be
// well formed and, with the metadata, survive writing and reading back.
//
//===----------------------------------------------------------------------===//

#include "FuzzTarget.h"

#include "mpc/format/Safetensors.h"

using namespace mpc::rt;

namespace {

bool sameTensors(const std::map<std::string, HostTensor> &a,
                 const std::map<std::string, HostTensor> &b) {
  if (a.size() != b.size())
    return false;
  for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib)
    if (ia->first != ib->first || ia->second.dtype != ib->second.dtype ||
        ia->second.shape != ib->second.shape || ia->second.bytes != ib->second.bytes)
      return false;
  return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string path = mpc::fuzz::writeScratchFile(
      "input.safetensors", std::string_view(reinterpret_cast<const char *>(data), size));
  std::map<std::string, HostTensor> tensors;
  std::map<std::string, std::string> metadata;
  if (!readSafetensors(path, tensors, &metadata).isOk())
    return 0;
  for (const auto &[name, tensor] : tensors)
    FUZZ_CHECK(checkHostTensor(tensor, name).isOk(), "an accepted tensor is malformed");
  std::string copy = mpc::fuzz::scratchDirectory() + "/copy.safetensors";
  Status written = writeSafetensors(copy, tensors, metadata);
  FUZZ_CHECK(written.isOk(), "accepted tensors cannot be written");
  std::map<std::string, HostTensor> reread;
  std::map<std::string, std::string> rereadMetadata;
  FUZZ_CHECK(readSafetensors(copy, reread, &rereadMetadata).isOk(), "written tensors are refused");
  FUZZ_CHECK(sameTensors(tensors, reread) && metadata == rereadMetadata,
             "tensors do not survive writing and reading");
  return 0;
}
