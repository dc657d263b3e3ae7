//===- EmbeddedHeadersTest.cpp - the headers compiled into the runtime ----===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "mpc/toolchain/DeviceHeaders.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

namespace {

std::string readFile(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(DeviceHeadersEmbedded, EveryHeaderOnceWithItsBytes) {
  const std::string prefix = "mpc/device/";
  std::set<std::string> embedded;
  for (unsigned i = 0; i < mpc::rt::kNumDeviceHeaders; ++i) {
    const mpc::rt::EmbeddedHeader &header = mpc::rt::kDeviceHeaders[i];
    std::string name = header.name;
    SCOPED_TRACE(name);
    ASSERT_EQ(name.compare(0, prefix.size(), prefix), 0);
    EXPECT_TRUE(embedded.insert(name).second) << "embedded twice";
    std::string source = readFile(std::filesystem::path(MPC_DEVICE_SOURCE_DIR) /
                                  name.substr(prefix.size()));
    ASSERT_FALSE(source.empty()) << "no such source header";
    EXPECT_EQ(header.size, source.size());
    EXPECT_EQ(std::strlen(header.contents), header.size)
        << "not NUL-terminated";
    EXPECT_EQ(std::string(header.contents, header.size), source);
  }

  std::set<std::string> sources;
  for (const auto &entry :
       std::filesystem::directory_iterator(MPC_DEVICE_SOURCE_DIR))
    if (entry.path().extension() == ".cuh")
      sources.insert(prefix + entry.path().filename().string());
  EXPECT_EQ(embedded, sources);
  for (const char *required :
       {"mpc/device/math.cuh", "mpc/device/platform.cuh",
        "mpc/device/pointwise.cuh", "mpc/device/rows.cuh"})
    EXPECT_EQ(embedded.count(required), 1u) << required;
}

} // namespace
