//===- FuzzNpy.cpp - fuzzing the .npy reader ------------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Input: a .npy file. An accepted tensor must be well formed and survive
// writing (writeNpy) and reading back unchanged.
//
//===----------------------------------------------------------------------===//

#include "FuzzTarget.h"

#include "mpc/format/Npy.h"

using namespace mpc::rt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string path = mpc::fuzz::writeScratchFile(
      "input.npy", std::string_view(reinterpret_cast<const char *>(data), size));
  HostTensor tensor;
  if (!readNpy(path, tensor).isOk())
    return 0;
  FUZZ_CHECK(checkHostTensor(tensor, "the tensor").isOk(), "an accepted tensor is malformed");
  std::string copy = mpc::fuzz::scratchDirectory() + "/copy.npy";
  FUZZ_CHECK(writeNpy(copy, tensor).isOk(), "an accepted tensor cannot be written");
  HostTensor reread;
  FUZZ_CHECK(readNpy(copy, reread).isOk(), "a written tensor is refused");
  FUZZ_CHECK(reread.dtype == tensor.dtype && reread.shape == tensor.shape &&
                 reread.bytes == tensor.bytes,
             "a tensor does not survive writing and reading");
  return 0;
}
