//===- FuzzBundle.cpp - fuzzing the bundle reader -------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Input: a bundle (the layout is in mpc/format/Bundle.h). Before reading,
// the harness stores correct XXH3 checksums for every section whose table
// entry lies inside the input, and for the whole file: otherwise nearly
// every mutation would stop at the checksums and the table, ranges and
// sections behind them would go untested. (The checksum checks themselves
// are tested in BundleTest.cpp.) An accepted bundle's manifest section goes
// through parseManifest, and its sections must survive writing and reading.
//
//===----------------------------------------------------------------------===//

#include "FuzzTarget.h"

#include "mpc/format/Bundle.h"
#include "mpc/format/Hash.h"
#include "mpc/format/Manifest.h"

using namespace mpc::rt;

namespace {

constexpr size_t kHeaderSize = 24, kEntrySize = 56, kNameField = 32, kTrailerSize = 8;

uint64_t getU64(const std::string &bytes, size_t at) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i)
    value |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return value;
}

void putU64(std::string &bytes, size_t at, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    bytes[at + i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

/// Recomputes the checksums of `bytes` (see the file comment).
void reseal(std::string &bytes) {
  if (bytes.size() < kHeaderSize + kTrailerSize)
    return;
  size_t trailer = bytes.size() - kTrailerSize;
  uint64_t count = 0;
  for (int i = 0; i < 4; ++i)
    count |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[12 + i])) << (8 * i);
  for (uint64_t i = 0; i < count && kHeaderSize + (i + 1) * kEntrySize <= trailer; ++i) {
    size_t entry = kHeaderSize + i * kEntrySize + kNameField;
    uint64_t offset = getU64(bytes, entry), size = getU64(bytes, entry + 8);
    if (offset <= trailer && size <= trailer - offset)
      putU64(bytes, entry + 16, hash64(bytes.data() + offset, size));
  }
  putU64(bytes, trailer, hash64(bytes.data(), trailer));
}

bool sameSections(const std::vector<BundleSection> &a, const std::vector<BundleSection> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || a[i].bytes != b[i].bytes)
      return false;
  return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string bytes(reinterpret_cast<const char *>(data), size);
  reseal(bytes);
  std::string path = mpc::fuzz::writeScratchFile("input.mpcb", bytes);
  std::vector<BundleSection> sections;
  if (!readBundle(path, sections).isOk())
    return 0;
  if (const BundleSection *section = findSection(sections, kManifestSection)) {
    Manifest manifest;
    (void)parseManifest(section->bytes, manifest);
  }
  std::string copy = mpc::fuzz::scratchDirectory() + "/copy.mpcb";
  FUZZ_CHECK(writeBundle(copy, sections).isOk(), "an accepted bundle cannot be written");
  std::vector<BundleSection> reread;
  FUZZ_CHECK(readBundle(copy, reread).isOk(), "a written bundle is refused");
  FUZZ_CHECK(sameSections(sections, reread), "a bundle does not survive writing and reading");
  return 0;
}
