//===- BundleTest.cpp - the bundle container ------------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Round trips (empty sections and empty bundles included), the byte layout
// against the format description, and every way a file can be refused:
// foreign, another version, truncated, bit flips anywhere, and malformed
// tables in files whose checksums are valid.
//
//===----------------------------------------------------------------------===//

#include "mpc/format/Bundle.h"
#include "mpc/format/Hash.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

using mpc::rt::BundleSection;
using mpc::rt::hash64;
using mpc::rt::readBundle;
using mpc::rt::Status;
using mpc::rt::writeBundle;
using mpc::test::readBytes;
using mpc::test::TempDir;
using mpc::test::writeBytes;

namespace {

using Sections = std::vector<BundleSection>;

Sections sampleSections() {
  std::string binary;
  for (int i = 0; i < 300; ++i)
    binary += static_cast<char>((i * 37 + 11) & 0xff);
  return {{"manifest.json", "{\"format\":\"mpc-program\"}"},
          {"host.so", binary},
          {"empty", ""},
          {"const.0", std::string("\0\x01\x02\x03", 4)},
          {std::string(31, 'n'), "the longest name"}};
}

void expectSameSections(const Sections &actual, const Sections &expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(actual[i].name, expected[i].name) << "section " << i;
    EXPECT_EQ(actual[i].bytes, expected[i].bytes) << "section " << i;
  }
}

uint64_t readU64(const std::string &bytes, size_t at) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i)
    value |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[at + i]))
             << (8 * i);
  return value;
}

void putU64(std::string &bytes, size_t at, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    bytes[at + i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

/// Recomputes the trailing file checksum after an edit, so that the reader's
/// structural checks are what refuses the file.
void resealFile(std::string &bytes) {
  putU64(bytes, bytes.size() - 8, hash64(bytes.data(), bytes.size() - 8));
}

/// Reads `bytes` as a bundle and expects a refusal with `code` whose message
/// names the file and contains `fragment`.
void expectRefused(const TempDir &dir, const std::string &bytes,
                   mpc_status_code code, const std::string &fragment) {
  std::string path = dir.file("refused.mpcb");
  writeBytes(path, bytes);
  Sections out = {{"untouched", "x"}};
  Status status = readBundle(path, out);
  ASSERT_FALSE(status.isOk()) << "accepted: expected " << fragment;
  EXPECT_EQ(status.code(), code) << status.message();
  EXPECT_NE(status.message().find(path), std::string::npos) << status.message();
  EXPECT_NE(status.message().find(fragment), std::string::npos)
      << status.message();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "untouched");
}

TEST(Bundle, RoundTrip) {
  TempDir dir;
  std::string path = dir.file("a.mpcb");
  Sections sections = sampleSections();
  ASSERT_TRUE(writeBundle(path, sections).isOk());
  Sections read;
  Status status = readBundle(path, read);
  ASSERT_TRUE(status.isOk()) << status.message();
  expectSameSections(read, sections);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"a.mpcb"});
}

TEST(Bundle, RoundTripWithoutSections) {
  TempDir dir;
  std::string path = dir.file("empty.mpcb");
  ASSERT_TRUE(writeBundle(path, {}).isOk());
  EXPECT_EQ(readBytes(path).size(), 32u); // header and checksum only
  Sections read = {{"stale", "x"}};
  Status status = readBundle(path, read);
  ASSERT_TRUE(status.isOk()) << status.message();
  EXPECT_TRUE(read.empty());
}

TEST(Bundle, RoundTripOfOnlyEmptySections) {
  TempDir dir;
  std::string path = dir.file("a.mpcb");
  Sections sections = {{"a", ""}, {"b", ""}, {"c", ""}};
  ASSERT_TRUE(writeBundle(path, sections).isOk());
  Sections read;
  Status status = readBundle(path, read);
  ASSERT_TRUE(status.isOk()) << status.message();
  expectSameSections(read, sections);
}

TEST(Bundle, LayoutFollowsTheFormat) {
  TempDir dir;
  std::string path = dir.file("a.mpcb");
  Sections sections = sampleSections();
  ASSERT_TRUE(writeBundle(path, sections).isOk());
  std::string bytes = readBytes(path);
  EXPECT_EQ(bytes.substr(0, 8), "MPCBUNDL");
  EXPECT_EQ(bytes.substr(8, 8), std::string("\x02\0\0\0\x05\0\0\0", 8));
  EXPECT_EQ(readU64(bytes, 16), bytes.size());
  EXPECT_EQ(readU64(bytes, bytes.size() - 8), hash64(bytes.data(), bytes.size() - 8));
  uint64_t previousEnd = 24 + 56 * sections.size();
  for (size_t i = 0; i < sections.size(); ++i) {
    size_t entry = 24 + 56 * i;
    std::string name = bytes.substr(entry, 32);
    EXPECT_EQ(name.substr(0, name.find('\0')), sections[i].name);
    uint64_t offset = readU64(bytes, entry + 32);
    uint64_t size = readU64(bytes, entry + 40);
    EXPECT_EQ(offset % 64, 0u) << sections[i].name;
    EXPECT_GE(offset, previousEnd) << sections[i].name;
    EXPECT_EQ(size, sections[i].bytes.size());
    EXPECT_EQ(readU64(bytes, entry + 48),
              hash64(sections[i].bytes.data(), sections[i].bytes.size()));
    EXPECT_EQ(bytes.substr(offset, size), sections[i].bytes);
    // The padding before the section is zero.
    EXPECT_EQ(bytes.substr(previousEnd, offset - previousEnd),
              std::string(offset - previousEnd, '\0'));
    previousEnd = offset + size;
  }
  EXPECT_EQ(previousEnd + 8, bytes.size());
}

TEST(Bundle, ChecksumsAreXxh3) {
  // XXH3-64 of no bytes, seed 0 (xxHash's documented value).
  EXPECT_EQ(hash64("", 0), 0x2d06800538d394c2ull);
  EXPECT_NE(hash64("a", 1), hash64("b", 1));
  // Hashing in pieces, across XXH3's 64- and 256-byte blocks, is hashing
  // the whole.
  std::string text;
  for (int i = 0; i < 1000; ++i)
    text += static_cast<char>('a' + i * 7 % 26);
  for (size_t cut : {0, 1, 63, 64, 65, 255, 256, 257, 999}) {
    mpc::rt::Hasher hasher;
    hasher.update(text.data(), cut);
    hasher.update(text.data() + cut, text.size() - cut);
    EXPECT_EQ(hasher.digest(), hash64(text.data(), text.size())) << cut;
  }
}

TEST(Bundle, WriterRefusesBadNames) {
  TempDir dir;
  struct Case {
    Sections sections;
    const char *fragment;
  } cases[] = {
      {{{"", "x"}}, "empty"},
      {{{std::string(32, 'n'), "x"}}, "longer than 31"},
      {{{std::string("a\0b", 3), "x"}}, "NUL"},
      {{{"twice", "x"}, {"twice", "y"}}, "used twice"},
  };
  for (const Case &c : cases) {
    Status status = writeBundle(dir.file("bad.mpcb"), c.sections);
    ASSERT_FALSE(status.isOk()) << c.fragment;
    EXPECT_EQ(status.code(), MPC_INVALID_ARGUMENT);
    EXPECT_NE(status.message().find(c.fragment), std::string::npos)
        << status.message();
  }
  EXPECT_TRUE(dir.entries().empty());
}

TEST(Bundle, RefusesAForeignFile) {
  TempDir dir;
  std::string path = dir.file("model.onnx");
  writeBytes(path, "\x08\x07\x12\x07pytorch and more bytes than a header");
  Sections out;
  Status status = readBundle(path, out);
  ASSERT_FALSE(status.isOk());
  EXPECT_EQ(status.code(), MPC_FORMAT_ERROR);
  EXPECT_EQ(status.message(),
            "'" + path + "' is not an mpc bundle (bad magic)");
}

TEST(Bundle, RefusesAnotherVersion) {
  TempDir dir;
  std::string path = dir.file("a.mpcb");
  ASSERT_TRUE(writeBundle(path, sampleSections()).isOk());
  std::string bytes = readBytes(path);
  bytes[8] = 1; // what mpc wrote before checksums moved to XXH3
  resealFile(bytes);
  expectRefused(dir, bytes, MPC_UNSUPPORTED, "format version 1, this runtime reads version 2");
}

TEST(Bundle, RefusesMissingFile) {
  TempDir dir;
  Sections out;
  Status status = readBundle(dir.file("nothing.mpcb"), out);
  EXPECT_EQ(status.code(), MPC_NOT_FOUND);
}

TEST(Bundle, RefusesTruncations) {
  TempDir dir;
  std::string path = dir.file("a.mpcb");
  ASSERT_TRUE(writeBundle(path, sampleSections()).isOk());
  std::string bytes = readBytes(path);
  for (size_t length :
       {size_t(0), size_t(5), size_t(8), size_t(20), size_t(24), size_t(100),
        size_t(300), bytes.size() / 2, bytes.size() - 8, bytes.size() - 1}) {
    SCOPED_TRACE("truncated to " + std::to_string(length) + " bytes");
    expectRefused(dir, bytes.substr(0, length), MPC_FORMAT_ERROR, "truncated");
  }
}

TEST(Bundle, RefusesTrailingBytes) {
  TempDir dir;
  std::string path = dir.file("a.mpcb");
  ASSERT_TRUE(writeBundle(path, sampleSections()).isOk());
  expectRefused(dir, readBytes(path) + "extra", MPC_FORMAT_ERROR,
                "but the file has");
}

TEST(Bundle, RefusesEveryBitFlip) {
  TempDir dir;
  std::string path = dir.file("a.mpcb");
  ASSERT_TRUE(
      writeBundle(path, {{"manifest.json", "{}"}, {"host.so", "ELF..."}})
          .isOk());
  std::string bytes = readBytes(path);
  std::string damaged = dir.file("damaged.mpcb");
  size_t checked = 0;
  for (size_t at = 0; at < bytes.size(); at += 7)
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = bytes;
      flipped[at] = static_cast<char>(flipped[at] ^ (1 << bit));
      writeBytes(damaged, flipped);
      Sections out;
      Status status = readBundle(damaged, out);
      ASSERT_FALSE(status.isOk())
          << "a flip of bit " << bit << " of byte " << at << " was accepted";
      EXPECT_TRUE(status.code() == MPC_FORMAT_ERROR ||
                  status.code() == MPC_UNSUPPORTED)
          << status.message();
      ++checked;
    }
  EXPECT_GT(checked, 100u);
}

TEST(Bundle, RefusesADamagedSectionWithTheFileChecksum) {
  TempDir dir;
  std::string path = dir.file("a.mpcb");
  ASSERT_TRUE(writeBundle(path, sampleSections()).isOk());
  std::string bytes = readBytes(path);
  bytes[bytes.size() - 20] ^= 0x10;
  expectRefused(dir, bytes, MPC_FORMAT_ERROR, "damaged: checksum mismatch");
}

// The remaining refusals need a valid file checksum: a writer bug or a
// hand-made file, not damage.
TEST(Bundle, RefusesAMismatchedSectionChecksum) {
  TempDir dir;
  std::string path = dir.file("a.mpcb");
  ASSERT_TRUE(writeBundle(path, sampleSections()).isOk());
  std::string bytes = readBytes(path);
  size_t entry = 24 + 56 * 1; // host.so
  putU64(bytes, entry + 48, readU64(bytes, entry + 48) + 1);
  resealFile(bytes);
  expectRefused(dir, bytes, MPC_FORMAT_ERROR,
                "section \"host.so\" is damaged: checksum mismatch");
}

TEST(Bundle, RefusesMalformedTables) {
  TempDir dir;
  std::string path = dir.file("a.mpcb");
  Sections sections = {{"first", std::string(100, 'a')},
                       {"second", std::string(10, 'b')}};
  ASSERT_TRUE(writeBundle(path, sections).isOk());
  const std::string bytes = readBytes(path);
  const size_t first = 24, second = 24 + 56;
  auto edited = [&](auto edit) {
    std::string copy = bytes;
    edit(copy);
    resealFile(copy);
    return copy;
  };

  expectRefused(dir, edited([&](std::string &b) {
                  putU64(b, second + 32, readU64(b, first + 32));
                  putU64(b, second + 48, readU64(b, first + 48));
                }),
                MPC_FORMAT_ERROR, "overlaps");
  expectRefused(dir, edited([&](std::string &b) {
                  putU64(b, second + 32, readU64(b, second + 32) + 64);
                }),
                MPC_FORMAT_ERROR, "outside the data area");
  expectRefused(dir, edited([&](std::string &b) {
                  putU64(b, second + 32, readU64(b, second + 32) + 1);
                }),
                MPC_FORMAT_ERROR, "is not a multiple of 64");
  expectRefused(dir, edited([&](std::string &b) { putU64(b, second + 32, 0); }),
                MPC_FORMAT_ERROR, "outside the data area");
  expectRefused(
      dir, edited([&](std::string &b) { putU64(b, first + 40, ~0ull - 10); }),
      MPC_FORMAT_ERROR, "outside the data area");
  expectRefused(
      dir, edited([&](std::string &b) { b.replace(second, 6, "first\0", 6); }),
      MPC_FORMAT_ERROR, "two sections are named \"first\"");
  expectRefused(dir, edited([&](std::string &b) {
                  b.replace(second, 32, std::string(32, 'x'));
                }),
                MPC_FORMAT_ERROR, "not NUL-terminated");
  expectRefused(dir, edited([&](std::string &b) { b[second] = '\0'; }),
                MPC_FORMAT_ERROR, "the name is empty");
  expectRefused(dir, edited([&](std::string &b) { b[second + 20] = 'z'; }),
                MPC_FORMAT_ERROR, "after the name's NUL");
  expectRefused(dir, edited([&](std::string &b) { b[12] = 100; }),
                MPC_FORMAT_ERROR, "does not fit");
}

} // namespace
