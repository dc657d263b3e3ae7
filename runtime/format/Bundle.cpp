//===- Bundle.cpp - the bundle container: named, checksummed sections -----===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "mpc/format/Bundle.h"

#include "mpc/format/FileIO.h"
#include "mpc/format/Hash.h"
#include "mpc/format/Json.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <set>
#include <string_view>
#include <tuple>

namespace mpc::rt {

namespace {

constexpr char kMagic[8] = {'M', 'P', 'C', 'B', 'U', 'N', 'D', 'L'};
constexpr size_t kHeaderSize = 24;
constexpr size_t kNameField = 32;
constexpr size_t kEntrySize = kNameField + 24;
constexpr size_t kTrailerSize = 8;
constexpr uint64_t kSectionAlignment = 64;

void putU32(std::string &out, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    out += static_cast<char>((value >> (8 * i)) & 0xff);
}

void putU64(std::string &out, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    out += static_cast<char>((value >> (8 * i)) & 0xff);
}

uint32_t getU32(std::string_view bytes, size_t at) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i)
    value |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + i]))
             << (8 * i);
  return value;
}

uint64_t getU64(std::string_view bytes, size_t at) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i)
    value |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[at + i]))
             << (8 * i);
  return value;
}

uint64_t alignUp(uint64_t value) {
  return (value + kSectionAlignment - 1) / kSectionAlignment *
         kSectionAlignment;
}

std::string hex64(uint64_t value) {
  char text[19];
  std::snprintf(text, sizeof text, "0x%016" PRIx64, value);
  return text;
}

/// One section table entry as read, before its checks.
struct TableEntry {
  std::string name;
  uint64_t offset = 0, size = 0, checksum = 0;
};

Status formatError(const std::string &path, const std::string &what) {
  return Status::error(MPC_FORMAT_ERROR, path + ": " + what);
}

/// Reads table entry `index` of `file` and checks its name and range;
/// `dataBegin` is the end of the table, `dataEnd` the start of the trailer.
Status readEntry(const std::string &path, std::string_view file, size_t index,
                 uint64_t dataBegin, uint64_t dataEnd, TableEntry &out) {
  size_t at = kHeaderSize + index * kEntrySize;
  std::string_view field = file.substr(at, kNameField);
  size_t length = field.find('\0');
  std::string where = "section table entry " + std::to_string(index);
  if (length == std::string_view::npos)
    return formatError(path, where + ": the name is not NUL-terminated");
  if (length == 0)
    return formatError(path, where + ": the name is empty");
  if (field.find_first_not_of('\0', length) != std::string_view::npos)
    return formatError(path, where + ": bytes after the name's NUL are not "
                                     "zero");
  out.name = std::string(field.substr(0, length));
  out.offset = getU64(file, at + kNameField);
  out.size = getU64(file, at + kNameField + 8);
  out.checksum = getU64(file, at + kNameField + 16);
  where = "section " + quoteJson(out.name);
  if (out.offset % kSectionAlignment != 0)
    return formatError(path, where + ": offset " + std::to_string(out.offset) +
                                 " is not a multiple of " +
                                 std::to_string(kSectionAlignment));
  if (out.offset < dataBegin || out.offset > dataEnd ||
      out.size > dataEnd - out.offset)
    return formatError(path, where + ": bytes [" + std::to_string(out.offset) +
                                 ", +" + std::to_string(out.size) +
                                 ") lie outside the data area [" +
                                 std::to_string(dataBegin) + ", " +
                                 std::to_string(dataEnd) + ")");
  return Status();
}

/// Checks the sections in `entries` for duplicate names and overlaps.
Status checkLayout(const std::string &path, std::vector<TableEntry> entries) {
  std::set<std::string> names;
  for (const TableEntry &entry : entries)
    if (!names.insert(entry.name).second)
      return formatError(path,
                         "two sections are named " + quoteJson(entry.name));
  std::sort(entries.begin(), entries.end(),
            [](const TableEntry &a, const TableEntry &b) {
              return std::tie(a.offset, a.size) < std::tie(b.offset, b.size);
            });
  for (size_t i = 1; i < entries.size(); ++i) {
    const TableEntry &previous = entries[i - 1];
    if (entries[i].offset < previous.offset + previous.size)
      return formatError(path, "section " + quoteJson(entries[i].name) +
                                   " overlaps section " +
                                   quoteJson(previous.name));
  }
  return Status();
}

/// Parses the whole bundle `file`, read from `path`.
Status parseBundle(const std::string &path, std::string_view file,
                   std::vector<BundleSection> &out) {
  bool magicPrefix = std::memcmp(file.data(), kMagic,
                                 std::min(file.size(), sizeof kMagic)) == 0;
  if (!magicPrefix)
    return Status::error(MPC_FORMAT_ERROR,
                         "'" + path + "' is not an mpc bundle (bad magic)");
  if (file.size() < kHeaderSize + kTrailerSize)
    return formatError(path, "truncated: " + std::to_string(file.size()) +
                                 " bytes cannot hold the header and the "
                                 "checksum");
  uint32_t version = getU32(file, 8);
  if (version != kBundleFormatVersion)
    return Status::error(MPC_UNSUPPORTED,
                         path + ": format version " + std::to_string(version) +
                             ", this runtime reads version " +
                             std::to_string(kBundleFormatVersion) +
                             " (compile the graph again with this mpc: mpc compile)");
  uint64_t declaredSize = getU64(file, 16);
  if (declaredSize > file.size())
    return formatError(
        path, "truncated: the header says " + std::to_string(declaredSize) +
                  " bytes but the file has " + std::to_string(file.size()));
  if (declaredSize < file.size())
    return formatError(
        path, "damaged: the header says " + std::to_string(declaredSize) +
                  " bytes but the file has " + std::to_string(file.size()));
  size_t trailer = file.size() - kTrailerSize;
  uint64_t stored = getU64(file, trailer);
  uint64_t computed = hash64(file.data(), trailer);
  if (stored != computed)
    return formatError(path, "damaged: checksum mismatch (stored " +
                                 hex64(stored) + ", computed " +
                                 hex64(computed) + ")");

  uint64_t count = getU32(file, 12);
  if (count > (trailer - kHeaderSize) / kEntrySize)
    return formatError(path, "the section table of " + std::to_string(count) +
                                 " entries does not fit in the file");
  uint64_t dataBegin = kHeaderSize + count * kEntrySize;
  std::vector<TableEntry> entries(count);
  for (size_t i = 0; i < count; ++i)
    if (Status status =
            readEntry(path, file, i, dataBegin, trailer, entries[i]);
        !status.isOk())
      return status;
  if (Status status = checkLayout(path, entries); !status.isOk())
    return status;

  std::vector<BundleSection> sections;
  sections.reserve(count);
  for (const TableEntry &entry : entries) {
    std::string_view bytes = file.substr(entry.offset, entry.size);
    uint64_t checksum = hash64(bytes.data(), bytes.size());
    if (checksum != entry.checksum)
      return formatError(path, "section " + quoteJson(entry.name) +
                                   " is damaged: checksum mismatch (stored " +
                                   hex64(entry.checksum) + ", computed " +
                                   hex64(checksum) + ")");
    sections.push_back({entry.name, std::string(bytes)});
  }
  out = std::move(sections);
  return Status();
}

} // namespace

Status writeBundle(const std::string &path,
                   const std::vector<BundleSection> &sections) {
  std::set<std::string> names;
  for (const BundleSection &section : sections) {
    std::string where = path + ": section " + quoteJson(section.name);
    if (section.name.empty())
      return Status::error(MPC_INVALID_ARGUMENT,
                           path + ": a section name is empty");
    if (section.name.size() > kMaxBundleSectionName)
      return Status::error(MPC_INVALID_ARGUMENT,
                           where + ": the name is longer than " +
                               std::to_string(kMaxBundleSectionName) +
                               " bytes");
    if (section.name.find('\0') != std::string::npos)
      return Status::error(MPC_INVALID_ARGUMENT,
                           where + ": the name holds a NUL byte");
    if (!names.insert(section.name).second)
      return Status::error(MPC_INVALID_ARGUMENT,
                           where + ": the name is used twice");
  }

  // The header and table, then each section after zero padding up to its
  // aligned offset.
  std::string head(kMagic, sizeof kMagic);
  putU32(head, kBundleFormatVersion);
  putU32(head, static_cast<uint32_t>(sections.size()));
  uint64_t offset = kHeaderSize + sections.size() * kEntrySize;
  std::vector<uint64_t> offsets;
  for (const BundleSection &section : sections) {
    offset = alignUp(offset);
    offsets.push_back(offset);
    offset += section.bytes.size();
  }
  putU64(head, offset + kTrailerSize);
  for (size_t i = 0; i < sections.size(); ++i) {
    std::string name = sections[i].name;
    name.resize(kNameField, '\0');
    head += name;
    putU64(head, offsets[i]);
    putU64(head, sections[i].bytes.size());
    putU64(head, hash64(sections[i].bytes.data(), sections[i].bytes.size()));
  }

  static const char kZeros[kSectionAlignment] = {};
  std::vector<ByteSpan> pieces = {{head.data(), head.size()}};
  Hasher hash;
  hash.update(head.data(), head.size());
  uint64_t written = head.size();
  for (size_t i = 0; i < sections.size(); ++i) {
    size_t padding = static_cast<size_t>(offsets[i] - written);
    pieces.push_back({kZeros, padding});
    pieces.push_back({sections[i].bytes.data(), sections[i].bytes.size()});
    hash.update(kZeros, padding);
    hash.update(sections[i].bytes.data(), sections[i].bytes.size());
    written = offsets[i] + sections[i].bytes.size();
  }
  std::string trailer;
  putU64(trailer, hash.digest());
  pieces.push_back({trailer.data(), trailer.size()});
  return writeFileAtomically(path, pieces);
}

Status readBundle(const std::string &path, std::vector<BundleSection> &out) {
  InputFile file;
  if (Status status = file.open(path); !status.isOk())
    return status;
  std::string bytes(file.size(), '\0');
  if (Status status = file.readAt(0, bytes.data(), bytes.size(), "the bundle");
      !status.isOk())
    return status;
  return parseBundle(path, bytes, out);
}

const BundleSection *findSection(const std::vector<BundleSection> &sections,
                                 const std::string &name) {
  for (const BundleSection &section : sections)
    if (section.name == name)
      return &section;
  return nullptr;
}

} // namespace mpc::rt
