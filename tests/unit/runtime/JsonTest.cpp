//===- JsonTest.cpp - the strict JSON reader ------------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "mpc/format/Json.h"

#include <gtest/gtest.h>

#include <string>

using mpc::rt::JsonError;
using mpc::rt::JsonValue;
using mpc::rt::parseJson;
using mpc::rt::quoteJson;

namespace {

JsonValue parseOk(std::string_view text) {
  JsonValue value;
  JsonError error;
  EXPECT_TRUE(parseJson(text, value, error))
      << text << ": at byte " << error.offset << ": " << error.message;
  return value;
}

/// Checks that `text` is refused at byte `offset` with a message containing
/// `message`.
void expectRefused(std::string_view text, size_t offset,
                   const std::string &message) {
  JsonValue value;
  JsonError error;
  ASSERT_FALSE(parseJson(text, value, error)) << text;
  EXPECT_EQ(error.offset, offset) << text << ": " << error.message;
  EXPECT_NE(error.message.find(message), std::string::npos)
      << text << ": " << error.message;
}

TEST(Json, ParsesEveryKindOfValue) {
  JsonValue value = parseOk(
      " {\"a\": [1, -2, 3.5, -0.25e2, 1E+2], \"b\": {\"c\": true, \"d\": "
      "false, \"e\": null}, \"f\": \"x\", \"g\": [], \"h\": {}} \n");
  ASSERT_EQ(value.kind, JsonValue::Kind::Object);
  ASSERT_EQ(value.object.size(), 5u);
  EXPECT_EQ(value.object[0].first, "a"); // members keep file order
  EXPECT_EQ(value.object[4].first, "h");

  const JsonValue *a = value.find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->kind, JsonValue::Kind::Array);
  ASSERT_EQ(a->array.size(), 5u);
  EXPECT_TRUE(a->array[0].isInteger);
  EXPECT_EQ(a->array[0].integer, 1);
  EXPECT_EQ(a->array[1].integer, -2);
  EXPECT_FALSE(a->array[2].isInteger);
  EXPECT_EQ(a->array[2].number, 3.5);
  EXPECT_EQ(a->array[3].number, -25.0);
  EXPECT_FALSE(a->array[4].isInteger);
  EXPECT_EQ(a->array[4].number, 100.0);

  const JsonValue *b = value.find("b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->find("c")->kind, JsonValue::Kind::Bool);
  EXPECT_TRUE(b->find("c")->boolean);
  EXPECT_FALSE(b->find("d")->boolean);
  EXPECT_EQ(b->find("e")->kind, JsonValue::Kind::Null);
  EXPECT_EQ(value.find("f")->string, "x");
  EXPECT_TRUE(value.find("g")->array.empty());
  EXPECT_EQ(value.find("h")->kind, JsonValue::Kind::Object);
  EXPECT_EQ(value.find("missing"), nullptr);
}

TEST(Json, IntegersAreExactOverTheWholeInt64Range) {
  JsonValue value = parseOk("[9223372036854775807, -9223372036854775808, "
                            "9223372036854775808, 9007199254740993]");
  EXPECT_TRUE(value.array[0].isInteger);
  EXPECT_EQ(value.array[0].integer, INT64_MAX);
  EXPECT_EQ(value.array[1].integer, INT64_MIN);
  EXPECT_FALSE(value.array[2].isInteger); // past int64_t: a double only
  EXPECT_EQ(value.array[2].number, 9223372036854775808.0);
  EXPECT_EQ(value.array[3].integer, 9007199254740993); // not a double
}

TEST(Json, DecodesEscapesAndUtf8) {
  JsonValue value = parseOk(
      R"(["\"\\\/\b\f\n\r\t", "\u0041\u00e9\u20ac\ud83d\ude00", "Aé€😀"])");
  EXPECT_EQ(value.array[0].string, "\"\\/\b\f\n\r\t");
  EXPECT_EQ(value.array[1].string, "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  EXPECT_EQ(value.array[2].string, value.array[1].string);
}

TEST(Json, RefusesWhatTheRfcDoesNotAllow) {
  expectRefused("", 0, "expected a value");
  expectRefused("{\"a\": 1,}", 8, "expected a string key");
  expectRefused("[1, 2,]", 6, "expected a value");
  expectRefused("{'a': 1}", 1, "expected a string key");
  expectRefused("{\"a\" 1}", 5, "expected ':'");
  expectRefused("{\"a\": 1 \"b\": 2}", 8, "expected ',' or '}'");
  expectRefused("[1 2]", 3, "expected ',' or ']'");
  expectRefused("[01]", 2, "leading zeros");
  expectRefused("[1.]", 3, "expected a digit after '.'");
  expectRefused("[1e]", 3, "exponent");
  expectRefused("[-]", 2, "expected a digit");
  expectRefused("[+1]", 1, "expected a value");
  expectRefused("[1e999]", 1, "out of range");
  expectRefused("[tru]", 1, "expected a value");
  expectRefused("{} {}", 3, "unexpected data after the JSON value");
  expectRefused("/* c */ {}", 0, "expected a value");
  expectRefused("[\"abc", 5, "unterminated string");
  expectRefused("[\"a\tb\"]", 3, "control character");
  expectRefused("[\"\\x\"]", 2, "invalid escape");
  expectRefused("[\"\\u12G4\"]", 6, "hex digit");
  expectRefused("[\"\\ud83d\"]", 2, "unpaired high surrogate");
  expectRefused("[\"\\ud83d\\u0041\"]", 2, "unpaired high surrogate");
  expectRefused("[\"\\ude00\"]", 2, "unpaired low surrogate");
  expectRefused("[\"\xff\"]", 2, "invalid UTF-8");
  expectRefused("[\"\xc0\xaf\"]", 2, "invalid UTF-8");     // overlong '/'
  expectRefused("[\"\xed\xa0\x80\"]", 2, "invalid UTF-8"); // a surrogate
  expectRefused("[\"\xe2\x82\"]", 2, "invalid UTF-8");     // cut short
  expectRefused("{\"a\": 1, \"a\": 2}", 9, "duplicate key \"a\"");
}

TEST(Json, LimitsNesting) {
  std::string deep(200, '[');
  deep += std::string(200, ']');
  expectRefused(deep, 128, "nested deeper than 128");
  std::string fine(100, '[');
  fine += std::string(100, ']');
  parseOk(fine);
}

TEST(Json, QuotedStringsParseBackToThemselves) {
  std::string text =
      "plain \"quoted\" back\\slash \n\r\t\b\f \x01\x1f \xc3\xa9";
  EXPECT_EQ(quoteJson("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
  JsonValue value = parseOk(quoteJson(text));
  EXPECT_EQ(value.kind, JsonValue::Kind::String);
  EXPECT_EQ(value.string, text);
}

TEST(Json, ValidatesUtf8) {
  EXPECT_TRUE(mpc::rt::isValidUtf8("ascii \xc3\xa9 \xf0\x9f\x98\x80"));
  EXPECT_FALSE(mpc::rt::isValidUtf8("\x80"));
  EXPECT_FALSE(mpc::rt::isValidUtf8("\xf4\x90\x80\x80")); // past U+10FFFF
  EXPECT_FALSE(mpc::rt::isValidUtf8("\xe0\x80\x80"));     // overlong
}

} // namespace
