//===- Json.h - a strict JSON reader and string quoting -------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Enough JSON for the runtime's file headers (safetensors): a strict RFC 8259
// parser into a small value tree, and quoting of strings for writers. The
// parser refuses everything the RFC does not allow (trailing commas,
// comments, single quotes, invalid UTF-8, lone surrogates, leading zeros) and
// duplicate object keys, and reports the byte offset of the first problem.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_FORMAT_JSON_H
#define MPC_FORMAT_JSON_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mpc::rt {

struct JsonValue {
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Kind kind = Kind::Null;
  bool boolean = false;
  /// Every number; for an integer that fits int64_t also `integer`.
  double number = 0;
  bool isInteger = false;
  int64_t integer = 0;
  std::string string;
  std::vector<JsonValue> array;
  /// Members in file order; keys are unique.
  std::vector<std::pair<std::string, JsonValue>> object;

  /// The member named `key` of an object, or null.
  const JsonValue *find(std::string_view key) const;
};

struct JsonError {
  /// Byte offset into the parsed text.
  size_t offset = 0;
  std::string message;
};

/// Parses `text`, one JSON value with optional surrounding whitespace.
bool parseJson(std::string_view text, JsonValue &out, JsonError &error);

/// Whether `text` is well-formed UTF-8 (no overlongs, surrogates or code
/// points past U+10FFFF).
bool isValidUtf8(std::string_view text);

/// `text` (UTF-8) as a JSON string literal, quotes included.
std::string quoteJson(std::string_view text);

} // namespace mpc::rt

#endif // MPC_FORMAT_JSON_H
