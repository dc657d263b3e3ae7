//===- OnnxWire.cpp - an ONNX model's tensor data found without copying ---===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Frontend/OnnxModel/OnnxWire.h"

#include <cstdint>

using namespace mpc;

namespace {

// The fields the walk looks into (onnx.proto).
constexpr uint64_t kModelGraph = 7, kGraphInitializer = 5, kTensorRawData = 9;
// Protobuf's wire types.
enum WireType : uint64_t { Varint = 0, Fixed64 = 1, LengthDelimited = 2, Fixed32 = 5 };

/// Reads a varint of at most `maxBytes` bytes and value `maxValue` at `at`,
/// advancing it; false past the end or beyond those limits. Tags and
/// lengths are read with protobuf's own limits (5 bytes; 2^32 - 1 and
/// 2^31 - 1), so that a file protobuf refuses is not accepted here.
bool readVarint(llvm::StringRef bytes, size_t &at, uint64_t &value, int maxBytes = 10,
                uint64_t maxValue = UINT64_MAX) {
  value = 0;
  for (int i = 0; i < maxBytes; ++i) {
    if (at >= bytes.size())
      return false;
    uint8_t byte = static_cast<uint8_t>(bytes[at++]);
    if (i == 9 && byte > 1)
      return false; // (bits beyond 64)
    value |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if (!(byte & 0x80))
      return value <= maxValue;
  }
  return false;
}

void writeVarint(uint64_t value, std::string &out) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

/// One field of a message: its number, wire type, whole encoding and, for
/// a length-delimited one, its payload.
struct Field {
  uint64_t number = 0, type = 0;
  llvm::StringRef encoded, payload;
};

/// Reads the field at `at`, advancing it; false where it is malformed or of
/// a wire type this walk does not copy (groups).
bool readField(llvm::StringRef message, size_t &at, Field &field) {
  size_t begin = at;
  uint64_t tag = 0, value = 0;
  if (!readVarint(message, at, tag, 5, UINT32_MAX))
    return false;
  field.number = tag >> 3;
  field.type = tag & 7;
  switch (field.type) {
  case Varint:
    if (!readVarint(message, at, value))
      return false;
    break;
  case Fixed64:
  case Fixed32: {
    size_t width = field.type == Fixed64 ? 8 : 4;
    if (message.size() - at < width)
      return false;
    at += width;
    break;
  }
  case LengthDelimited:
    if (!readVarint(message, at, value, 5, INT32_MAX) || value > message.size() - at)
      return false;
    field.payload = message.substr(at, value);
    at += value;
    break;
  default:
    return false;
  }
  field.encoded = message.slice(begin, at);
  return field.number != 0;
}

/// Appends field `number` with `payload` to `out`.
void writeMessageField(uint64_t number, llvm::StringRef payload, std::string &out) {
  writeVarint(number << 3 | LengthDelimited, out);
  writeVarint(payload.size(), out);
  out.append(payload.data(), payload.size());
}

/// A TensorProto without its raw_data, which goes to `rawData`.
bool stripTensor(llvm::StringRef tensor, std::string &out,
                 std::optional<llvm::StringRef> &rawData) {
  rawData.reset();
  Field field;
  for (size_t at = 0; at < tensor.size();) {
    if (!readField(tensor, at, field))
      return false;
    if (field.number == kTensorRawData) {
      if (field.type != LengthDelimited || rawData) // (protobuf keeps the last one)
        return false;
      rawData = field.payload;
    } else {
      out.append(field.encoded.data(), field.encoded.size());
    }
  }
  return true;
}

/// A GraphProto with its initializers stripped.
bool stripGraph(llvm::StringRef graph, std::string &out,
                std::vector<std::optional<llvm::StringRef>> &rawData) {
  Field field;
  std::string tensor;
  for (size_t at = 0; at < graph.size();) {
    if (!readField(graph, at, field))
      return false;
    if (field.number == kGraphInitializer && field.type == LengthDelimited) {
      tensor.clear();
      rawData.emplace_back();
      if (!stripTensor(field.payload, tensor, rawData.back()))
        return false;
      writeMessageField(kGraphInitializer, tensor, out);
    } else {
      out.append(field.encoded.data(), field.encoded.size());
    }
  }
  return true;
}

} // namespace

bool mpc::onnx::stripInitializerData(llvm::StringRef model, std::string &stripped,
                                     std::vector<std::optional<llvm::StringRef>> &rawData) {
  stripped.clear();
  rawData.clear();
  bool sawGraph = false;
  Field field;
  std::string graph;
  for (size_t at = 0; at < model.size();) {
    if (!readField(model, at, field))
      return false;
    if (field.number == kModelGraph) {
      // (two graph fields would be merged by protobuf: not done here)
      if (field.type != LengthDelimited || sawGraph)
        return false;
      sawGraph = true;
      if (!stripGraph(field.payload, graph, rawData))
        return false;
      writeMessageField(kModelGraph, graph, stripped);
    } else {
      stripped.append(field.encoded.data(), field.encoded.size());
    }
  }
  return sawGraph;
}
