//===- Json.cpp - a strict JSON reader and string quoting -----------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "mpc/format/Json.h"

#include <charconv>
#include <set>

namespace mpc::rt {

namespace {

/// Deep enough for any header; stops a hostile file from exhausting the
/// stack.
constexpr int kMaxDepth = 128;

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

void appendUtf8(std::string &out, uint32_t codePoint) {
  if (codePoint < 0x80) {
    out += static_cast<char>(codePoint);
  } else if (codePoint < 0x800) {
    out += static_cast<char>(0xc0 | (codePoint >> 6));
    out += static_cast<char>(0x80 | (codePoint & 0x3f));
  } else if (codePoint < 0x10000) {
    out += static_cast<char>(0xe0 | (codePoint >> 12));
    out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (codePoint & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (codePoint >> 18));
    out += static_cast<char>(0x80 | ((codePoint >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (codePoint & 0x3f));
  }
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }

class Parser {
public:
  Parser(std::string_view text, JsonError &error)
      : text_(text), error_(error) {}

  bool parseDocument(JsonValue &out) {
    skipSpace();
    if (!parseValue(out, 0))
      return false;
    skipSpace();
    if (pos_ != text_.size())
      return fail("unexpected data after the JSON value");
    return true;
  }

private:
  bool fail(std::string message) {
    error_.offset = pos_;
    error_.message = std::move(message);
    return false;
  }

  bool atEnd() const { return pos_ >= text_.size(); }

  void skipSpace() {
    while (!atEnd() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                        text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  bool consumeWord(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word)
      return false;
    pos_ += word.size();
    return true;
  }

  bool parseValue(JsonValue &out, int depth) {
    if (atEnd())
      return fail("unexpected end of input, expected a value");
    char c = text_[pos_];
    if (c == '{' || c == '[') {
      if (depth >= kMaxDepth)
        return fail("values nested deeper than " + std::to_string(kMaxDepth) +
                    " levels");
      return c == '{' ? parseObject(out, depth) : parseArray(out, depth);
    }
    if (c == '"') {
      out.kind = JsonValue::Kind::String;
      return parseString(out.string);
    }
    if (c == '-' || isDigit(c))
      return parseNumber(out);
    for (bool value : {true, false}) {
      if (consumeWord(value ? "true" : "false")) {
        out.kind = JsonValue::Kind::Bool;
        out.boolean = value;
        return true;
      }
    }
    if (consumeWord("null")) {
      out.kind = JsonValue::Kind::Null;
      return true;
    }
    return fail("expected a value");
  }

  bool parseObject(JsonValue &out, int depth) {
    out.kind = JsonValue::Kind::Object;
    std::set<std::string> keys;
    ++pos_;
    skipSpace();
    if (!atEnd() && text_[pos_] == '}') {
      ++pos_;
      return true;
    }
    while (true) {
      skipSpace();
      if (atEnd() || text_[pos_] != '"')
        return fail("expected a string key");
      size_t keyOffset = pos_;
      std::string key;
      if (!parseString(key))
        return false;
      if (!keys.insert(key).second) {
        pos_ = keyOffset;
        return fail("duplicate key " + quoteJson(key));
      }
      skipSpace();
      if (atEnd() || text_[pos_] != ':')
        return fail("expected ':' after an object key");
      ++pos_;
      skipSpace();
      JsonValue member;
      if (!parseValue(member, depth + 1))
        return false;
      out.object.emplace_back(std::move(key), std::move(member));
      skipSpace();
      if (!atEnd() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (!atEnd() && text_[pos_] == '}') {
        ++pos_;
        return true;
      }
      return fail("expected ',' or '}' in an object");
    }
  }

  bool parseArray(JsonValue &out, int depth) {
    out.kind = JsonValue::Kind::Array;
    ++pos_;
    skipSpace();
    if (!atEnd() && text_[pos_] == ']') {
      ++pos_;
      return true;
    }
    while (true) {
      skipSpace();
      JsonValue element;
      if (!parseValue(element, depth + 1))
        return false;
      out.array.push_back(std::move(element));
      skipSpace();
      if (!atEnd() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (!atEnd() && text_[pos_] == ']') {
        ++pos_;
        return true;
      }
      return fail("expected ',' or ']' in an array");
    }
  }

  /// Four hex digits after "\u".
  bool parseHex4(uint32_t &out) {
    out = 0;
    for (int i = 0; i < 4; ++i, ++pos_) {
      if (atEnd())
        return fail("unterminated \\u escape");
      char c = text_[pos_];
      uint32_t digit;
      if (isDigit(c))
        digit = c - '0';
      else if (c >= 'a' && c <= 'f')
        digit = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        digit = c - 'A' + 10;
      else
        return fail("expected a hex digit in a \\u escape");
      out = out * 16 + digit;
    }
    return true;
  }

  /// An escape sequence; `pos_` is at the backslash.
  bool parseEscape(std::string &out) {
    size_t start = pos_;
    ++pos_;
    if (atEnd())
      return fail("unterminated string");
    char c = text_[pos_++];
    switch (c) {
    case '"':
    case '\\':
    case '/':
      out += c;
      return true;
    case 'b':
      out += '\b';
      return true;
    case 'f':
      out += '\f';
      return true;
    case 'n':
      out += '\n';
      return true;
    case 'r':
      out += '\r';
      return true;
    case 't':
      out += '\t';
      return true;
    case 'u':
      break;
    default:
      pos_ = start;
      return fail(std::string("invalid escape '\\") + c + "'");
    }
    uint32_t codePoint;
    if (!parseHex4(codePoint))
      return false;
    if (codePoint >= 0xdc00 && codePoint <= 0xdfff) {
      pos_ = start;
      return fail("unpaired low surrogate in a \\u escape");
    }
    if (codePoint >= 0xd800 && codePoint <= 0xdbff) {
      if (text_.substr(pos_, 2) != "\\u") {
        pos_ = start;
        return fail("unpaired high surrogate in a \\u escape");
      }
      pos_ += 2;
      uint32_t low;
      if (!parseHex4(low))
        return false;
      if (low < 0xdc00 || low > 0xdfff) {
        pos_ = start;
        return fail("unpaired high surrogate in a \\u escape");
      }
      codePoint = 0x10000 + ((codePoint - 0xd800) << 10) + (low - 0xdc00);
    }
    appendUtf8(out, codePoint);
    return true;
  }

  /// A string literal; `pos_` is at the opening quote.
  bool parseString(std::string &out) {
    ++pos_;
    while (true) {
      if (atEnd())
        return fail("unterminated string");
      unsigned char c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c == '\\') {
        if (!parseEscape(out))
          return false;
      } else if (c < 0x20) {
        return fail("unescaped control character in a string");
      } else {
        size_t length = utf8SequenceLength(text_.substr(pos_));
        if (length == 0)
          return fail("invalid UTF-8 in a string");
        out.append(text_.substr(pos_, length));
        pos_ += length;
      }
    }
  }

  bool skipDigits() {
    size_t start = pos_;
    while (!atEnd() && isDigit(text_[pos_]))
      ++pos_;
    return pos_ > start;
  }

  bool parseNumber(JsonValue &out) {
    size_t start = pos_;
    if (text_[pos_] == '-')
      ++pos_;
    if (!atEnd() && text_[pos_] == '0') {
      ++pos_;
      if (!atEnd() && isDigit(text_[pos_]))
        return fail("leading zeros are not allowed in a number");
    } else if (!skipDigits()) {
      return fail("expected a digit");
    }
    bool integral = true;
    if (!atEnd() && text_[pos_] == '.') {
      ++pos_;
      integral = false;
      if (!skipDigits())
        return fail("expected a digit after '.'");
    }
    if (!atEnd() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      integral = false;
      if (!atEnd() && (text_[pos_] == '+' || text_[pos_] == '-'))
        ++pos_;
      if (!skipDigits())
        return fail("expected a digit in an exponent");
    }
    const char *first = text_.data() + start;
    const char *last = text_.data() + pos_;
    out.kind = JsonValue::Kind::Number;
    if (integral) {
      auto [end, ec] = std::from_chars(first, last, out.integer);
      out.isInteger = ec == std::errc() && end == last;
    }
    auto [end, ec] = std::from_chars(first, last, out.number);
    if (ec != std::errc() || end != last) {
      pos_ = start;
      return fail("number out of range");
    }
    return true;
  }

  std::string_view text_;
  JsonError &error_;
  size_t pos_ = 0;
};

} // namespace

const JsonValue *JsonValue::find(std::string_view key) const {
  for (const auto &[name, value] : object)
    if (name == key)
      return &value;
  return nullptr;
}

bool parseJson(std::string_view text, JsonValue &out, JsonError &error) {
  JsonValue value;
  if (!Parser(text, error).parseDocument(value))
    return false;
  out = std::move(value);
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
  static const char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (char c : text) {
    unsigned char byte = static_cast<unsigned char>(c);
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (byte < 0x20) {
        out += "\\u00";
        out += kHex[byte >> 4];
        out += kHex[byte & 0xf];
      } else {
        out += c;
      }
    }
  }
  return out + "\"";
}

} // namespace mpc::rt
