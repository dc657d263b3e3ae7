//===- HostCpuTest.cpp - what the host CPU can run ------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "mpc/toolchain/HostCpu.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace {

/// The value of the first "key : value" line of /proc/cpuinfo with `key`,
/// or "" (no such file or line).
std::string cpuinfoField(const std::string &key) {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos)
      continue;
    std::string name = line.substr(0, colon);
    name.erase(name.find_last_not_of(" \t") + 1);
    if (name == key)
      return colon + 2 <= line.size() ? line.substr(colon + 2) : "";
  }
  return "";
}

} // namespace

// cpuHasFullWidthAvx512 decodes CPUID as Linux does: it is false without
// AVX-512F and on AMD's family 19h (25, Zen 4), true on other CPUs with it;
// on other architectures it is false.
TEST(HostCpu, FullWidthAvx512AgreesWithProcCpuinfo) {
#if !defined(__x86_64__)
  EXPECT_FALSE(mpc::rt::cpuHasFullWidthAvx512());
  return;
#endif
  const std::string vendor = cpuinfoField("vendor_id");
  const std::string family = cpuinfoField("cpu family");
  const std::string flags = cpuinfoField("flags");
  ASSERT_FALSE(vendor.empty() || family.empty()) << "no vendor_id or cpu family in /proc/cpuinfo";
  std::istringstream words(flags);
  bool avx512f = false;
  for (std::string word; words >> word;)
    avx512f = avx512f || word == "avx512f";
  const bool zen4 = vendor == "AuthenticAMD" && family == "25";
  EXPECT_EQ(avx512f && !zen4, mpc::rt::cpuHasFullWidthAvx512())
      << vendor << ", family " << family << (avx512f ? ", AVX-512F" : ", no AVX-512F");
}
