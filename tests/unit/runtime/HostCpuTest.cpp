//===- HostCpuTest.cpp - what the host CPU can run ------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "mpc/toolchain/HostCpu.h"

#include <gtest/gtest.h>

#include <fstream>
#include <initializer_list>
#include <set>
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

namespace {

/// Whether /proc/cpuinfo's flags hold every one of `wanted`.
bool cpuinfoHasFlags(std::initializer_list<const char *> wanted) {
  std::istringstream words(cpuinfoField("flags"));
  std::set<std::string> flags;
  for (std::string word; words >> word;)
    flags.insert(word);
  for (const char *flag : wanted)
    if (!flags.count(flag))
      return false;
  return true;
}

} // namespace

// The x86-64 levels as Linux reports the CPU's flags: x86-64-v3 needs AVX2,
// FMA, F16C and BMI2, x86-64-v4 also AVX-512 F, BW, CD, DQ and VL; a level
// mpc does not know is refused.
TEST(HostCpu, X8664LevelsAgreeWithProcCpuinfo) {
#if !defined(__x86_64__)
  EXPECT_FALSE(mpc::rt::cpuRunsX8664Level("x86-64"));
  return;
#endif
  const bool v3 = cpuinfoHasFlags({"avx2", "fma", "f16c", "bmi2"});
  const bool v4 =
      v3 && cpuinfoHasFlags({"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"});
  EXPECT_EQ(v3, mpc::rt::cpuIsX8664V3());
  EXPECT_EQ(v4, mpc::rt::cpuIsX8664V4());
  EXPECT_TRUE(mpc::rt::cpuRunsX8664Level("x86-64"));
  EXPECT_EQ(v3, mpc::rt::cpuRunsX8664Level("x86-64-v3"));
  EXPECT_EQ(v4, mpc::rt::cpuRunsX8664Level("x86-64-v4"));
  EXPECT_FALSE(mpc::rt::cpuRunsX8664Level("x86-64-v5"));
  EXPECT_FALSE(mpc::rt::cpuRunsX8664Level("arm64"));
}
