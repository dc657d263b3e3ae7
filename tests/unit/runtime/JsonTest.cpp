//===- JsonTest.cpp - strict JSON reading on top of nlohmann-json ---------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "mpc/format/Json.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <string>

using mpc::rt::Json;
using mpc::rt::JsonError;
using mpc::rt::parseJson;
using mpc::rt::quoteJson;

namespace {

Json parseOk(std::string_view text) {
  Json value;
  JsonError error;
  EXPECT_TRUE(parseJson(text, value, error))
      << text << ": at " << error.where << ": " << error.message;
  return value;
}

/// Checks that `text` is refused at `where` with a message containing
/// `message`.
void expectRefused(std::string_view text, const std::string &where, const std::string &message) {
  Json value;
  JsonError error;
  ASSERT_FALSE(parseJson(text, value, error)) << text;
  EXPECT_EQ(error.where, where) << text << ": " << error.message;
  EXPECT_NE(error.message.find(message), std::string::npos)
      << text << ": " << error.message;
}

TEST(Json, ParsesEveryKindOfValue) {
  Json value = parseOk(
      R"( {"h": {}, "a": [1, -2, 3.5, -2.5e1, 1e2], "b": {"c": true, "d": false, "e": null}, "f": "x", "g": []} )");
  ASSERT_TRUE(value.is_object());
  ASSERT_EQ(value.size(), 5u);
  EXPECT_EQ(value.begin().key(), "a"); // members by name
  const Json &a = value["a"];
  int64_t integer = 0;
  EXPECT_TRUE(mpc::rt::jsonInt64(a[0], integer));
  EXPECT_EQ(integer, 1);
  EXPECT_TRUE(mpc::rt::jsonInt64(a[1], integer));
  EXPECT_EQ(integer, -2);
  EXPECT_FALSE(mpc::rt::jsonInt64(a[2], integer));
  EXPECT_EQ(a[3].get<double>(), -25.0);
  EXPECT_FALSE(mpc::rt::jsonInt64(a[4], integer)); // an exponent: a double
  EXPECT_TRUE(value["b"]["c"].get<bool>());
  EXPECT_TRUE(value["b"]["e"].is_null());
  EXPECT_EQ(value["f"].get<std::string>(), "x");
  EXPECT_EQ(value.find("missing"), value.end());
}

TEST(Json, IntegersAreExactOverTheWholeInt64Range) {
  Json value = parseOk("[9223372036854775807, -9223372036854775808, "
                       "9223372036854775808, 9007199254740993]");
  int64_t integer = 0;
  EXPECT_TRUE(mpc::rt::jsonInt64(value[0], integer));
  EXPECT_EQ(integer, INT64_MAX);
  EXPECT_TRUE(mpc::rt::jsonInt64(value[1], integer));
  EXPECT_EQ(integer, INT64_MIN);
  EXPECT_FALSE(mpc::rt::jsonInt64(value[2], integer)); // past int64_t
  EXPECT_TRUE(mpc::rt::jsonInt64(value[3], integer));
  EXPECT_EQ(integer, 9007199254740993); // not a double
}

TEST(Json, DecodesEscapesAndUtf8) {
  Json value = parseOk(R"(["\"\\\/\b\f\n\r\t", "A\u00e9\u20ac\ud83d\ude00", "Aé€😀"])");
  EXPECT_EQ(value[0].get<std::string>(), "\"\\/\b\f\n\r\t");
  EXPECT_EQ(value[1].get<std::string>(), "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  EXPECT_EQ(value[2], value[1]);
}

TEST(Json, RefusesWhatTheRfcDoesNotAllow) {
  expectRefused("", "byte 0 (line 1, column 1)", "unexpected end of input");
  expectRefused("{\"a\": 1,}", "byte 8 (line 1, column 9)", "expected string literal");
  expectRefused("[1, 2,]", "byte 6 (line 1, column 7)", "unexpected ']'");
  expectRefused("{'a': 1}", "byte 1 (line 1, column 2)", "expected string literal");
  expectRefused("{\"a\" 1}", "byte 5 (line 1, column 6)", "expected ':'");
  expectRefused("[1 2]", "byte 3 (line 1, column 4)", "expected ']'");
  expectRefused("[01]", "byte 2 (line 1, column 3)", "expected ']'");
  expectRefused("[1.]", "byte 3 (line 1, column 4)", "invalid number");
  expectRefused("[1e]", "byte 3 (line 1, column 4)", "invalid number");
  expectRefused("[-]", "byte 2 (line 1, column 3)", "invalid number");
  expectRefused("[+1]", "byte 1 (line 1, column 2)", "invalid literal");
  expectRefused("[1e999]", "byte 5", "number overflow");
  expectRefused("[tru]", "byte 4 (line 1, column 5)", "invalid literal");
  expectRefused("{} {}", "byte 3 (line 1, column 4)", "expected end of input");
  expectRefused("/* c */ {}", "byte 0 (line 1, column 1)", "invalid literal");
  expectRefused("[\"abc", "byte 5 (line 1, column 6)", "missing closing quote");
  expectRefused("[\"a\tb\"]", "byte 3 (line 1, column 4)", "control character U+0009");
  expectRefused("[\"\\x\"]", "byte 3 (line 1, column 4)", "forbidden character after backslash");
  expectRefused("[\"\\u12G4\"]", "byte 6 (line 1, column 7)", "\\u");
  expectRefused("[\"\\ud83d\"]", "byte 8 (line 1, column 9)",
                "surrogate U+D800..U+DBFF must be followed");
  expectRefused("[\"\\ud83d\\u0041\"]", "byte 13 (line 1, column 14)",
                "surrogate U+D800..U+DBFF must be followed");
  expectRefused("[\"\\ude00\"]", "byte 7 (line 1, column 8)",
                "surrogate U+DC00..U+DFFF must follow");
  expectRefused("[\"\xff\"]", "byte 2 (line 1, column 3)", "ill-formed UTF-8");
  expectRefused("[\"\xc0\xaf\"]", "byte 2 (line 1, column 3)",
                "ill-formed UTF-8"); // overlong '/'
  expectRefused("[\"\xed\xa0\x80\"]", "byte 3 (line 1, column 4)",
                "ill-formed UTF-8"); // a surrogate
  expectRefused("[\"\xe2\x82\"]", "byte 4 (line 1, column 5)",
                "ill-formed UTF-8"); // cut short
  expectRefused("[\n1,\n]", "byte 5 (line 3, column 1)", "unexpected ']'");
}

TEST(Json, RefusesDuplicateKeysAndSaysWhere) {
  expectRefused("{\"a\": 1, \"a\": 2}", "/a", "duplicate key \"a\"");
  expectRefused("{\"x\": [0, {\"b/c\": 1, \"b/c\": 2}]}", "/x/1/b~1c", "duplicate key \"b/c\"");
  // The same key in two objects is fine.
  parseOk("[{\"a\": 1}, {\"a\": 2}]");
}

TEST(Json, ReadsManyKeysQuickly) {
  // Members are found and inserted in logarithmic time: a header with many
  // tensors (or a hostile one) does not take quadratic time.
  std::string text = "{";
  for (int i = 0; i < 200000; ++i)
    text += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":" + std::to_string(i);
  text += "}";
  auto start = std::chrono::steady_clock::now();
  Json value = parseOk(text);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(value.size(), 200000u);
  EXPECT_EQ(value["k123456"].get<int>(), 123456);
  // (about 0.3 s here; an insertion by linear search takes minutes)
  EXPECT_LT(seconds, 20.0);
}

TEST(Json, LimitsNesting) {
  std::string deep(200, '[');
  deep += std::string(200, ']');
  Json value;
  JsonError error;
  ASSERT_FALSE(parseJson(deep, value, error));
  EXPECT_EQ(error.message, "nested deeper than 128 levels");
  EXPECT_EQ(error.where.rfind("/0/0/", 0), 0u) << error.where;
  std::string fine(128, '[');
  fine += std::string(128, ']');
  parseOk(fine);
}

TEST(Json, QuotedStringsParseBackToThemselves) {
  std::string text =
      "plain \"quoted\" back\\slash \n\r\t\b\f \x01\x1f \xc3\xa9";
  EXPECT_EQ(quoteJson("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
  Json value = parseOk(quoteJson(text));
  ASSERT_TRUE(value.is_string());
  EXPECT_EQ(value.get<std::string>(), text);
  // Invalid UTF-8 in a message comes out as U+FFFD, never as broken JSON.
  EXPECT_EQ(quoteJson("a\xff"), "\"a\xef\xbf\xbd\"");
}

TEST(Json, ValidatesUtf8) {
  EXPECT_TRUE(mpc::rt::isValidUtf8("ascii \xc3\xa9 \xf0\x9f\x98\x80"));
  EXPECT_FALSE(mpc::rt::isValidUtf8("\x80"));
  EXPECT_FALSE(mpc::rt::isValidUtf8("\xf4\x90\x80\x80")); // past U+10FFFF
  EXPECT_FALSE(mpc::rt::isValidUtf8("\xe0\x80\x80"));     // overlong
}

} // namespace
