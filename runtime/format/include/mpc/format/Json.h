//===- Json.h - strict JSON reading and string quoting --------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The runtime's file headers (manifest.json, safetensors) are JSON, read and
// written with nlohmann-json (Debian's nlohmann-json3-dev). parseJson adds
// the rules a file format wants on top of the library's RFC 8259 parser:
// duplicate object keys, numbers out of range and nesting deeper than
// kMaxJsonDepth are refused, and every refusal says where. Objects are
// nlohmann::json's (std::map: members by name, found and inserted in
// logarithmic time, so a header with a million keys reads in linear-log
// time); writers that want their own key order use nlohmann::ordered_json.
//
// This header only declares the value type; code that reads or builds
// values includes <nlohmann/json.hpp>.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_FORMAT_JSON_H
#define MPC_FORMAT_JSON_H

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace mpc::rt {

using Json = nlohmann::json;

/// Deep enough for any header; stops a hostile file from exhausting memory
/// or the stack of code that walks the value.
constexpr int kMaxJsonDepth = 128;

struct JsonError {
  /// "byte 8 (line 1, column 9)" for a syntax error, or the JSON pointer of
  /// the value that breaks a rule ("/tensors/w", "the top level").
  std::string where;
  std::string message;
};

/// Parses `text`, one JSON value with optional surrounding whitespace.
bool parseJson(std::string_view text, Json &out, JsonError &error);

/// `value` as an int64_t when it is an integer in range: integers past
/// int64_t and numbers with a fraction or an exponent are refused.
bool jsonInt64(const Json &value, int64_t &out);

/// Whether `text` is well-formed UTF-8 (no overlongs, surrogates or code
/// points past U+10FFFF).
bool isValidUtf8(std::string_view text);

/// `text` as a JSON string literal, quotes included; for messages and
/// hand-written JSON. Invalid UTF-8 comes out as U+FFFD.
std::string quoteJson(std::string_view text);

} // namespace mpc::rt

#endif // MPC_FORMAT_JSON_H
