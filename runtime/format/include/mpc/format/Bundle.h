//===- Bundle.h - the bundle container: named, checksummed sections -------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// A bundle is the one file that `mpc compile` produces and the runtime loads:
// a list of named byte sections ("manifest.json", "host.so", "const.0", ...).
// Everything is little-endian:
//
//   offset  size  field
//        0     8  magic "MPCBUNDL"
//        8     4  u32 format version (2)
//       12     4  u32 section count N
//       16     8  u64 total file size, this trailer included
//       24  56*N  section table, one entry per section:
//                   32  name, NUL-padded, 1 to 31 bytes, no NUL inside
//                    8  u64 offset of the section's data from the file start
//                    8  u64 size of the data
//                    8  u64 XXH3-64 checksum of the data
//        …          section data, each section at a 64-byte aligned offset;
//                   the gaps are zero bytes
//   size-8     8  u64 XXH3-64 checksum of every byte before it
//
// The reader refuses a foreign file (bad magic), another format version, a
// truncated or damaged file (size, file checksum), and a malformed table
// (names, ranges, overlaps, section checksums), with a message that names the
// file.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_FORMAT_BUNDLE_H
#define MPC_FORMAT_BUNDLE_H

#include "mpc/format/Status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mpc::rt {

/// The format version this runtime reads and writes. Version 2: checksums
/// are XXH3-64 (version 1's were FNV-1a 64).
constexpr uint32_t kBundleFormatVersion = 2;
/// The longest section name, in bytes.
constexpr size_t kMaxBundleSectionName = 31;

struct BundleSection {
  std::string name;
  std::string bytes;
};

/// Writes `sections`, in order, to a bundle at `path` atomically (see
/// writeFileAtomically). MPC_INVALID_ARGUMENT when a name is empty, longer
/// than kMaxBundleSectionName, holds a NUL or repeats.
Status writeBundle(const std::string &path,
                   const std::vector<BundleSection> &sections);

/// Reads every section of the bundle at `path` into `out` (replacing its
/// contents), in table order. On failure `out` is unchanged; a foreign,
/// truncated or damaged file is MPC_FORMAT_ERROR, another format version
/// MPC_UNSUPPORTED.
Status readBundle(const std::string &path, std::vector<BundleSection> &out);

/// The section named `name` of `sections`, or null.
const BundleSection *findSection(const std::vector<BundleSection> &sections,
                                 const std::string &name);

} // namespace mpc::rt

#endif // MPC_FORMAT_BUNDLE_H
