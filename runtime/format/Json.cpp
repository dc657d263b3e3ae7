//===- Json.cpp - strict JSON reading and string quoting ------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "mpc/format/Json.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <set>
#include <vector>

namespace mpc::rt {

namespace {

/// The length of the UTF-8 sequence that starts `text` (non-empty), or 0 when
/// it is malformed.
size_t utf8SequenceLength(std::string_view text) {
  unsigned char lead = static_cast<unsigned char>(text[0]);
  if (lead < 0x80)
    return 1;
  size_t length;
  uint32_t codePoint, smallest;
  if ((lead & 0xe0) == 0xc0) {
    length = 2;
    codePoint = lead & 0x1f;
    smallest = 0x80;
  } else if ((lead & 0xf0) == 0xe0) {
    length = 3;
    codePoint = lead & 0x0f;
    smallest = 0x800;
  } else if ((lead & 0xf8) == 0xf0) {
    length = 4;
    codePoint = lead & 0x07;
    smallest = 0x10000;
  } else {
    return 0;
  }
  if (text.size() < length)
    return 0;
  for (size_t i = 1; i < length; ++i) {
    unsigned char next = static_cast<unsigned char>(text[i]);
    if ((next & 0xc0) != 0x80)
      return 0;
    codePoint = (codePoint << 6) | (next & 0x3f);
  }
  if (codePoint < smallest || codePoint > 0x10ffff ||
      (codePoint >= 0xd800 && codePoint <= 0xdfff))
    return 0;
  return length;
}

/// A SAX pass over the text that enforces the rules the library leaves to
/// its caller, and keeps the JSON pointer of the value being read so that a
/// refusal can say where.
class StrictReader : public nlohmann::json_sax<Json> {
public:
  explicit StrictReader(JsonError &error) : error_(error) {}

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  // (a number past the double range never gets here: the library reports
  // it as a parse error, "number overflow", at the character after it)
  bool number_float(number_float_t, const string_t &) override { return value(); }
  bool string(string_t &) override { return value(); }
  bool binary(binary_t &) override { return value(); }

  bool start_object(std::size_t) override { return open(/*object=*/true); }
  bool key(string_t &name) override {
    Frame &frame = frames_.back();
    frame.key = name;
    if (!frame.keys.insert(name).second)
      return refuse("duplicate key " + quoteJson(name));
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(/*object=*/false); }
  bool end_array() override { return close(); }

  bool parse_error(std::size_t position, const std::string &,
                   const nlohmann::detail::exception &exception) override {
    // The library counts characters read; the offending one is the last.
    size_t offset = position > 0 ? position - 1 : 0;
    error_.where = "byte " + std::to_string(offset);
    // "[json.exception.parse_error.101] parse error at line 1, column 9:
    // syntax error ...": the line and column go to `where`.
    std::string message = exception.what();
    static const std::string kAt = "parse error at ";
    size_t at = message.find(kAt);
    size_t colon = at == std::string::npos ? at : message.find(": ", at);
    if (colon != std::string::npos) {
      error_.where += " (" + message.substr(at + kAt.size(), colon - at - kAt.size()) + ")";
      error_.message = message.substr(colon + 2);
      return false;
    }
    if (size_t bracket = message.find("] "); bracket != std::string::npos)
      message.erase(0, bracket + 2);
    error_.message = message;
    return false;
  }

private:
  struct Frame {
    bool object;
    size_t index = 0;
    std::string key;
    std::set<std::string> keys;
  };

  /// A value was read where the innermost frame expects one.
  bool value() {
    if (!frames_.empty() && !frames_.back().object)
      ++frames_.back().index;
    return true;
  }

  bool open(bool object) {
    if (static_cast<int>(frames_.size()) >= kMaxJsonDepth)
      return refuse("nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    frames_.push_back(Frame{object});
    return true;
  }

  bool close() {
    frames_.pop_back();
    return value();
  }

  /// The JSON pointer (RFC 6901) of the value being read.
  std::string pointer() const {
    std::string out;
    for (const Frame &frame : frames_) {
      out += '/';
      if (!frame.object) {
        out += std::to_string(frame.index);
        continue;
      }
      for (char c : frame.key)
        out += c == '~' ? std::string("~0") : c == '/' ? "~1" : std::string(1, c);
    }
    return out.empty() ? "the top level" : out;
  }

  bool refuse(std::string message) {
    error_.where = pointer();
    error_.message = std::move(message);
    return false;
  }

  JsonError &error_;
  std::vector<Frame> frames_;
};

} // namespace

bool parseJson(std::string_view text, Json &out, JsonError &error) {
  StrictReader reader(error);
  if (!Json::sax_parse(text, &reader, nlohmann::detail::input_format_t::json,
                       /*strict=*/true, /*ignore_comments=*/false))
    return false;
  // The text is known to be valid: build the value.
  out = Json::parse(text, /*cb=*/nullptr, /*allow_exceptions=*/false);
  return !out.is_discarded();
}

bool jsonInt64(const Json &value, int64_t &out) {
  if (value.is_number_unsigned()) {
    uint64_t number = value.get<uint64_t>();
    if (number > static_cast<uint64_t>(INT64_MAX))
      return false;
    out = static_cast<int64_t>(number);
    return true;
  }
  if (!value.is_number_integer())
    return false;
  out = value.get<int64_t>();
  return true;
}

bool isValidUtf8(std::string_view text) {
  while (!text.empty()) {
    size_t length = utf8SequenceLength(text);
    if (length == 0)
      return false;
    text.remove_prefix(length);
  }
  return true;
}

std::string quoteJson(std::string_view text) {
  return Json(std::string(text))
      .dump(/*indent=*/-1, /*indent_char=*/' ', /*ensure_ascii=*/false,
            Json::error_handler_t::replace);
}

} // namespace mpc::rt
