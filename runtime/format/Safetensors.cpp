//===- Safetensors.cpp - safetensors checkpoint files ---------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "mpc/format/Safetensors.h"

#include "mpc/format/FileIO.h"
#include "mpc/format/Json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <limits>
#include <optional>
#include <tuple>
#include <vector>

namespace mpc::rt {

namespace {

constexpr char kMetadataKey[] = "__metadata__";
/// The reference implementation's limit; a larger size means a foreign or
/// damaged file.
constexpr uint64_t kMaxHeaderSize = 100'000'000;

struct DtypeEntry {
  const char *name;
  DType dtype;
};

constexpr DtypeEntry kDtypes[] = {
    {"F16", DType::F16},   {"BF16", DType::BF16}, {"F32", DType::F32},
    {"F64", DType::F64},   {"I32", DType::I32},   {"I64", DType::I64},
    {"BOOL", DType::Bool},
};

const char *safetensorsName(DType dtype) {
  for (const DtypeEntry &entry : kDtypes)
    if (entry.dtype == dtype)
      return entry.name;
  return "?";
}

/// One tensor of the header, validated on its own.
struct TensorEntry {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;
};

Status formatError(const std::string &path, const std::string &what) {
  return Status::error(MPC_FORMAT_ERROR, path + ": " + what);
}

std::string formatOffsets(uint64_t begin, uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + "]";
}

/// Reads a JSON array of non-negative integers.
bool toIntegers(const Json &value, std::vector<int64_t> &out) {
  if (!value.is_array())
    return false;
  out.clear();
  for (const Json &element : value) {
    int64_t integer;
    if (!jsonInt64(element, integer) || integer < 0)
      return false;
    out.push_back(integer);
  }
  return true;
}

Status parseTensorEntry(const std::string &path, const std::string &name, const Json &value,
                        TensorEntry &out) {
  std::string where = "tensor " + quoteJson(name) + ": ";
  if (!value.is_object())
    return formatError(path, where + "expected an object with \"dtype\", "
                                     "\"shape\" and \"data_offsets\"");
  out.name = name;
  const char *const keys[] = {"dtype", "shape", "data_offsets"};
  for (const auto &member : value.items())
    if (std::find(std::begin(keys), std::end(keys), member.key()) == std::end(keys))
      return formatError(path, where + "unexpected key " + quoteJson(member.key()));
  for (const char *key : keys)
    if (!value.contains(key))
      return formatError(path, where + "missing \"" + key + "\"");
  const Json &dtype = value["dtype"];
  const Json &shape = value["shape"];
  const Json &offsets = value["data_offsets"];

  if (!dtype.is_string())
    return formatError(path, where + "\"dtype\" must be a string");
  const std::string &dtypeText = dtype.get_ref<const std::string &>();
  std::optional<DType> parsed;
  for (const DtypeEntry &entry : kDtypes)
    if (dtypeText == entry.name)
      parsed = entry.dtype;
  if (!parsed)
    return Status::error(MPC_UNSUPPORTED, path + ": " + where + "unsupported dtype " +
                                              quoteJson(dtypeText) +
                                              " (mpc reads F16, BF16, F32, F64, I32, I64 and "
                                              "BOOL)");
  out.dtype = *parsed;

  if (!toIntegers(shape, out.shape))
    return formatError(path, where + "\"shape\" must be an array of "
                                     "non-negative integers");
  std::vector<int64_t> range;
  if (!toIntegers(offsets, range) || range.size() != 2)
    return formatError(path, where + "\"data_offsets\" must be [begin, end] "
                                     "with non-negative integers");
  out.begin = static_cast<uint64_t>(range[0]);
  out.end = static_cast<uint64_t>(range[1]);
  if (out.begin > out.end)
    return formatError(path, where + "data_offsets " +
                                 formatOffsets(out.begin, out.end) +
                                 " end before they begin");

  size_t elementSize = dtypeSize(out.dtype);
  std::optional<int64_t> count = elementCount(out.shape);
  if (!count || static_cast<uint64_t>(*count) >
                    std::numeric_limits<uint64_t>::max() / elementSize)
    return formatError(path, where + "shape " + formatShape(out.shape) +
                                 " is too large");
  uint64_t size = static_cast<uint64_t>(*count) * elementSize;
  if (out.end - out.begin != size)
    return formatError(path, where + "data_offsets " + formatOffsets(out.begin, out.end) +
                                 " hold " + std::to_string(out.end - out.begin) +
                                 " bytes but shape " + formatShape(out.shape) + " of " + dtypeText +
                                 " needs " + std::to_string(size));
  return Status();
}

Status parseMetadata(const std::string &path, const Json &value,
                     std::map<std::string, std::string> &out) {
  if (!value.is_object())
    return formatError(path, "\"__metadata__\" must be an object");
  for (const auto &member : value.items()) {
    if (!member.value().is_string())
      return formatError(path, "\"__metadata__\" value of " + quoteJson(member.key()) +
                                   " must be a string");
    out[member.key()] = member.value().get<std::string>();
  }
  return Status();
}

/// Checks that the tensors cover the data buffer of `dataSize` bytes exactly.
Status checkCoverage(const std::string &path, std::vector<TensorEntry> &entries,
                     uint64_t dataSize) {
  for (const TensorEntry &entry : entries)
    if (entry.end > dataSize)
      return formatError(path, "tensor " + quoteJson(entry.name) +
                                   ": data_offsets " +
                                   formatOffsets(entry.begin, entry.end) +
                                   " go past the end of the data buffer (" +
                                   std::to_string(dataSize) + " bytes)");
  std::sort(entries.begin(), entries.end(),
            [](const TensorEntry &a, const TensorEntry &b) {
              return std::tie(a.begin, a.end, a.name) <
                     std::tie(b.begin, b.end, b.name);
            });
  uint64_t covered = 0;
  const TensorEntry *previous = nullptr;
  for (const TensorEntry &entry : entries) {
    if (entry.begin < covered)
      return formatError(
          path, "tensor " + quoteJson(entry.name) + ": data_offsets " +
                    formatOffsets(entry.begin, entry.end) + " overlap tensor " +
                    quoteJson(previous->name) + " " +
                    formatOffsets(previous->begin, previous->end));
    if (entry.begin > covered)
      return formatError(path, "bytes " + formatOffsets(covered, entry.begin) +
                                   " of the data buffer, before tensor " +
                                   quoteJson(entry.name) +
                                   ", belong to no tensor");
    covered = entry.end;
    previous = &entry;
  }
  if (covered != dataSize)
    return formatError(path, "bytes " + formatOffsets(covered, dataSize) +
                                 " at the end of the data buffer belong to "
                                 "no tensor");
  return Status();
}

} // namespace

Status readSafetensors(const std::string &path,
                       std::map<std::string, HostTensor> &tensors,
                       std::map<std::string, std::string> *metadata) {
  InputFile file;
  if (Status status = file.open(path); !status.isOk())
    return status;
  if (file.size() < 8)
    return formatError(
        path, "not a safetensors file: " + std::to_string(file.size()) +
                  " bytes cannot hold the 8-byte header size");
  unsigned char sizeBytes[8];
  if (Status status = file.readAt(0, sizeBytes, 8, "the header size");
      !status.isOk())
    return status;
  uint64_t headerSize = 0;
  for (int i = 0; i < 8; ++i)
    headerSize |= static_cast<uint64_t>(sizeBytes[i]) << (8 * i);
  if (headerSize > file.size() - 8)
    return formatError(path, "header size " + std::to_string(headerSize) +
                                 " is larger than the file (" +
                                 std::to_string(file.size()) + " bytes)");
  if (headerSize > kMaxHeaderSize)
    return formatError(path, "header size " + std::to_string(headerSize) +
                                 " exceeds the limit of " +
                                 std::to_string(kMaxHeaderSize) + " bytes");
  std::string header(headerSize, '\0');
  if (Status status = file.readAt(8, header.data(), headerSize, "the header");
      !status.isOk())
    return status;

  Json root;
  JsonError error;
  if (!parseJson(header, root, error))
    return formatError(path, "invalid JSON in the header at " + error.where +
                                 " (the header starts at file offset 8): " + error.message);
  if (!root.is_object())
    return formatError(path, "the header is not a JSON object");

  std::map<std::string, std::string> parsedMetadata;
  std::vector<TensorEntry> entries;
  for (const auto &member : root.items()) {
    const std::string &name = member.key();
    const Json &value = member.value();
    if (name == kMetadataKey) {
      if (Status status = parseMetadata(path, value, parsedMetadata);
          !status.isOk())
        return status;
      continue;
    }
    TensorEntry entry;
    if (Status status = parseTensorEntry(path, name, value, entry);
        !status.isOk())
      return status;
    entries.push_back(std::move(entry));
  }
  uint64_t dataOffset = 8 + headerSize;
  if (Status status = checkCoverage(path, entries, file.size() - dataOffset);
      !status.isOk())
    return status;

  std::map<std::string, HostTensor> parsed;
  for (TensorEntry &entry : entries) {
    HostTensor &tensor = parsed[entry.name];
    tensor.dtype = entry.dtype;
    tensor.shape = std::move(entry.shape);
    tensor.bytes.resize(entry.end - entry.begin);
    std::string what = "the data of tensor " + quoteJson(entry.name);
    if (Status status =
            file.readAt(dataOffset + entry.begin, tensor.bytes.data(),
                        tensor.bytes.size(), what.c_str());
        !status.isOk())
      return status;
  }
  tensors = std::move(parsed);
  if (metadata)
    *metadata = std::move(parsedMetadata);
  return Status();
}

namespace {

/// The file writeSafetensors writes for `tensors` and `metadata`: its
/// pieces (the size, the header, each tensor's bytes), with `storage`
/// holding the first two.
Status safetensorsPieces(const std::string &path, const std::map<std::string, TensorView> &tensors,
                         const std::map<std::string, std::string> &metadata, std::string &header,
                         unsigned char (&sizeBytes)[8], std::vector<ByteSpan> &pieces) {
  Json json = Json::object();
  if (!metadata.empty()) {
    Json &entries = json[kMetadataKey] = Json::object();
    for (const auto &[key, value] : metadata) {
      if (!isValidUtf8(key) || !isValidUtf8(value))
        return Status::error(MPC_INVALID_ARGUMENT, path + ": metadata entry " +
                                                       quoteJson(key) +
                                                       " is not valid UTF-8");
      entries[key] = value;
    }
  }
  uint64_t offset = 0;
  pieces.assign(2, ByteSpan{nullptr, 0});
  for (const auto &[name, tensor] : tensors) {
    std::string where = path + ": tensor " + quoteJson(name);
    if (name == kMetadataKey || !isValidUtf8(name))
      return Status::error(MPC_INVALID_ARGUMENT,
                           where + ": not a valid tensor name");
    std::optional<int64_t> count = elementCount(tensor.shape);
    size_t width = dtypeSize(tensor.dtype);
    if (!count || tensor.size % width != 0 || tensor.size / width != static_cast<uint64_t>(*count))
      return Status::error(MPC_INVALID_ARGUMENT,
                           where + ": " + std::to_string(tensor.size) + " bytes for shape " +
                               formatShape(tensor.shape) + " of " + dtypeName(tensor.dtype));
    json[name] = {{"dtype", safetensorsName(tensor.dtype)},
                  {"shape", tensor.shape},
                  {"data_offsets", {offset, offset + tensor.size}}};
    offset += tensor.size;
    pieces.push_back({tensor.data, tensor.size});
  }
  // Every string was checked to be UTF-8 above, so dump cannot fail.
  header = json.dump(/*indent=*/-1, /*indent_char=*/' ',
                     /*ensure_ascii=*/false, Json::error_handler_t::replace);
  header.resize((header.size() + 7) / 8 * 8, ' ');
  for (int i = 0; i < 8; ++i)
    sizeBytes[i] = static_cast<unsigned char>(header.size() >> (8 * i));
  pieces[0] = {sizeBytes, sizeof sizeBytes};
  pieces[1] = {header.data(), header.size()};
  return Status();
}

} // namespace

Status writeSafetensors(const std::string &path, const std::map<std::string, HostTensor> &tensors,
                        const std::map<std::string, std::string> &metadata) {
  std::map<std::string, TensorView> views;
  for (const auto &[name, tensor] : tensors) {
    if (Status status = checkHostTensor(tensor, path + ": tensor " + quoteJson(name));
        !status.isOk())
      return status;
    views[name] = {tensor.dtype, tensor.shape, tensor.bytes.data(), tensor.bytes.size()};
  }
  return writeSafetensorViews(path, views, metadata);
}

Status writeSafetensorViews(const std::string &path,
                            const std::map<std::string, TensorView> &tensors,
                            const std::map<std::string, std::string> &metadata) {
  std::string header;
  unsigned char sizeBytes[8];
  std::vector<ByteSpan> pieces;
  if (Status status = safetensorsPieces(path, tensors, metadata, header, sizeBytes, pieces);
      !status.isOk())
    return status;
  return writeFileAtomically(path, pieces);
}

bool holdsSafetensors(const std::string &path, const std::map<std::string, TensorView> &tensors,
                      const std::map<std::string, std::string> &metadata) {
  std::string header;
  unsigned char sizeBytes[8];
  std::vector<ByteSpan> pieces;
  if (!safetensorsPieces(path, tensors, metadata, header, sizeBytes, pieces).isOk())
    return false;
  InputFile file;
  if (!file.open(path).isOk())
    return false;
  uint64_t total = 0;
  for (const ByteSpan &piece : pieces)
    total += piece.size;
  if (file.size() != total)
    return false;
  // Compared a piece at a time through a buffer of 1 MiB (the file is
  // usually in the page cache: it was written by the last compile).
  std::vector<unsigned char> buffer(std::min<uint64_t>(total, 1 << 20));
  uint64_t offset = 0;
  for (const ByteSpan &piece : pieces) {
    const auto *expected = static_cast<const unsigned char *>(piece.data);
    for (size_t done = 0; done < piece.size;) {
      size_t count = std::min(buffer.size(), piece.size - done);
      if (!file.readAt(offset, buffer.data(), count, "the data").isOk() ||
          std::memcmp(buffer.data(), expected + done, count) != 0)
        return false;
      done += count;
      offset += count;
    }
  }
  return true;
}

} // namespace mpc::rt
