//===- OnnxWireTest.cpp - ONNX tensor data found without copying -----------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Models written here with a small protobuf encoder of the test's own (not
// the ONNX library): stripInitializerData finds each initializer's raw data
// and drops it from the copy protobuf parses, and readModel then views those
// bytes in the mapped file instead of copying them; a layout it does not
// expect makes it give up, and readModel reads the model as protobuf does
// (for two raw_data fields, the last one).
//
//===----------------------------------------------------------------------===//

#include "compiler/Frontend/OnnxModel/OnnxWire.h"
#include "compiler/Frontend/OnnxModel.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

std::string varint(uint64_t value) {
  std::string out;
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
  return out;
}

std::string number(uint64_t field, uint64_t value) { return varint(field << 3) + varint(value); }
std::string bytes(uint64_t field, const std::string &payload) {
  return varint(field << 3 | 2) + varint(payload.size()) + payload;
}

/// A float tensor [2] named `name` with `raw` as raw_data (given twice when
/// `twice`, the first copy zeros).
std::string tensor(const std::string &name, const std::string &raw, bool twice = false) {
  std::string t = number(1, 2) + number(2, 1) + bytes(8, name);
  if (twice)
    t += bytes(9, std::string(raw.size(), '\0'));
  return t + bytes(9, raw);
}

/// A model (opset 17) of one graph with `initializers` and one input.
std::string model(const std::string &initializers) {
  std::string input =
      bytes(1, "x") + bytes(2, bytes(1, number(1, 1) + bytes(2, bytes(1, number(1, 2)))));
  std::string graph = bytes(2, "g") + initializers + bytes(11, input);
  return number(1, 8) + bytes(8, bytes(1, "") + number(2, 17)) + bytes(7, graph);
}

const std::string kRaw("\x00\x00\x80\x3f\x00\x00\x00\xc0", 8); // 1.0f, -2.0f

std::string writeModel(const std::string &contents) {
  char pattern[] = "/tmp/mpc-onnx-wire-XXXXXX";
  int fd = mkstemp(pattern);
  EXPECT_GE(fd, 0);
  close(fd);
  std::string path = std::string(pattern) + ".onnx";
  std::rename(pattern, path.c_str());
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

TEST(OnnxWire, StripsTheInitializersRawDataAndPointsAtIt) {
  std::string file = model(bytes(5, tensor("w", kRaw)) + bytes(5, number(2, 1) + bytes(8, "v")));
  std::string stripped;
  std::vector<std::optional<llvm::StringRef>> raw;
  ASSERT_TRUE(mpc::onnx::stripInitializerData(file, stripped, raw));
  ASSERT_EQ(raw.size(), 2u);
  ASSERT_TRUE(raw[0].has_value());
  EXPECT_EQ(raw[0]->str(), kRaw);
  EXPECT_EQ(raw[0]->data(), file.data() + file.find(kRaw)); // a view, not a copy
  EXPECT_FALSE(raw[1].has_value());                         // (typed values or external data)
  EXPECT_EQ(stripped, model(bytes(5, number(1, 2) + number(2, 1) + bytes(8, "w")) +
                            bytes(5, number(2, 1) + bytes(8, "v"))));
}

TEST(OnnxWire, GivesUpOnWhatItDoesNotExpect) {
  std::string stripped;
  std::vector<std::optional<llvm::StringRef>> raw;
  std::string good = model(bytes(5, tensor("w", kRaw)));
  EXPECT_TRUE(mpc::onnx::stripInitializerData(good, stripped, raw));
  for (const std::string &bad : {
           good.substr(0, good.size() - 3),                                 // truncated
           model(bytes(5, tensor("w", kRaw, true))),                        // raw_data twice
           good + bytes(7, ""),                                             // a second graph
           number(1, 8),                                                    // no graph
           good + varint(3 << 3 | 3),                                       // a group
           std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11), // varint too long
           good + varint(0),                                                // field number 0
           good + std::string("\x88\x80\x80\x80\x80\x00\x01", 7),           // a 6-byte tag
           good + varint(2 << 3 | 2) + varint(uint64_t(1) << 31),           // length over 2^31-1
       })
    EXPECT_FALSE(mpc::onnx::stripInitializerData(bad, stripped, raw)) << bad.size();
}

TEST(OnnxWire, ReadModelViewsTheMappedBytesOrFallsBackToProtobuf) {
  std::string path = writeModel(model(bytes(5, tensor("w", kRaw))));
  llvm::Expected<mpc::onnx::Model> read = mpc::onnx::readModel(path);
  ASSERT_TRUE(static_cast<bool>(read)) << llvm::toString(read.takeError());
  ASSERT_EQ(read->initializers.size(), 1u);
  const mpc::onnx::Initializer &w = read->initializers[0];
  EXPECT_EQ(w.name, "w");
  ASSERT_TRUE(w.mapped.has_value());
  EXPECT_TRUE(w.tensor.bytes.empty());
  EXPECT_EQ(std::string(w.mapped->begin(), w.mapped->end()), kRaw);
  EXPECT_EQ(w.materialized().bytes, std::vector<uint8_t>(kRaw.begin(), kRaw.end()));
  ASSERT_EQ(read->inputs.size(), 1u);
  EXPECT_EQ(read->inputs[0].name, "x");
  std::remove(path.c_str());

  // Two raw_data fields: protobuf's reading, the last one wins.
  path = writeModel(model(bytes(5, tensor("w", kRaw, true))));
  read = mpc::onnx::readModel(path);
  ASSERT_TRUE(static_cast<bool>(read)) << llvm::toString(read.takeError());
  EXPECT_FALSE(read->initializers[0].mapped.has_value());
  EXPECT_EQ(read->initializers[0].tensor.bytes, std::vector<uint8_t>(kRaw.begin(), kRaw.end()));
  std::remove(path.c_str());

  // Raw data of the wrong size is refused either way.
  path = writeModel(model(bytes(5, tensor("w", kRaw.substr(0, 4)))));
  read = mpc::onnx::readModel(path);
  ASSERT_FALSE(static_cast<bool>(read));
  EXPECT_NE(llvm::toString(read.takeError()).find("tensor 'w' has 4 bytes of data for 2 elements"),
            std::string::npos);
  std::remove(path.c_str());
}

} // namespace
