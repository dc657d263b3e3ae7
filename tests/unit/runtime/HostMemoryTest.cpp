//===- HostMemoryTest.cpp - the CPU backend's memory spaces ---------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "HostMemory.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

using namespace mpc::rt;

namespace {

/// The VmFlags of the mapping of this process that holds `address`, from
/// /proc/self/smaps ("" when there is none or no such file).
std::string mappingFlags(const void *address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(address);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long long begin = 0, end = 0;
    char dash = 0;
    std::istringstream header(line);
    // A mapping's first line: "begin-end perms ..." in hex.
    if (header >> std::hex >> begin >> dash >> end && dash == '-' &&
        line.find(':') > line.find(' ')) {
      inside = begin <= at && at < end;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0)
      return line.substr(8) + " ";
  }
  return "";
}

/// Whether this kernel has transparent huge pages at all.
bool systemHasTransparentHugePages() {
  return std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").good();
}

/// Sets MPC_CPU_HUGE_PAGES for the life of the object.
class ScopedHugePagesSetting {
public:
  explicit ScopedHugePagesSetting(const char *value) {
    if (const char *old = std::getenv("MPC_CPU_HUGE_PAGES"))
      old_ = old, hadOld_ = true;
    ::setenv("MPC_CPU_HUGE_PAGES", value, 1);
  }
  ~ScopedHugePagesSetting() {
    if (hadOld_)
      ::setenv("MPC_CPU_HUGE_PAGES", old_.c_str(), 1);
    else
      ::unsetenv("MPC_CPU_HUGE_PAGES");
  }

private:
  std::string old_;
  bool hadOld_ = false;
};

bool allZero(const uint8_t *bytes, size_t count) {
  for (size_t i = 0; i < count; ++i)
    if (bytes[i])
      return false;
  return true;
}

} // namespace

TEST(HostMemory, LargeSpacesAreAlignedToAHugePageAndAdvised) {
  if (!systemHasTransparentHugePages())
    GTEST_SKIP() << "this system has no transparent huge pages";
  ScopedHugePagesSetting on("1");
  for (uint64_t bytes : {uint64_t(HostMemory::kHugePageBytes), 3 * HostMemory::kHugePageBytes + 12345}) {
    HostMemory memory;
    ASSERT_TRUE(memory.allocate("model.mpcb", BufferSpace::Arena, bytes).isOk());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(memory.at(0)) % HostMemory::kHugePageBytes, 0u);
    EXPECT_TRUE(allZero(memory.at(0), bytes));
    memory.at(0)[bytes - 1] = 1; // all of it is writable
    ASSERT_TRUE(memory.hugePagesAdvised());
    // "hg": the mapping carries MADV_HUGEPAGE (whether the kernel found huge
    // pages for it is its business), from its first byte to its last.
    for (uint64_t offset : {uint64_t(0), bytes - 1}) {
      std::string flags = mappingFlags(memory.at(offset));
      if (flags.empty())
        GTEST_SKIP() << "/proc/self/smaps shows no VmFlags here";
      EXPECT_NE(flags.find(" hg "), std::string::npos) << "offset " << offset << ":" << flags;
    }
  }
}

TEST(HostMemory, SmallSpacesAreNotAdvised) {
  HostMemory memory;
  ASSERT_TRUE(memory.allocate("model.mpcb", BufferSpace::Persistent, 1000).isOk());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(memory.at(0)) % HostMemory::kAlignment, 0u);
  EXPECT_TRUE(allZero(memory.at(0), 1000));
  EXPECT_FALSE(memory.hugePagesAdvised());
  HostMemory empty;
  ASSERT_TRUE(empty.allocate("model.mpcb", BufferSpace::Persistent, 0).isOk());
  EXPECT_NE(empty.at(0), nullptr);
}

TEST(HostMemory, SettingZeroLeavesTheAdviceOut) {
  ScopedHugePagesSetting off("0");
  HostMemory memory;
  const uint64_t bytes = 2 * HostMemory::kHugePageBytes;
  ASSERT_TRUE(memory.allocate("model.mpcb", BufferSpace::Arena, bytes).isOk());
  EXPECT_FALSE(memory.hugePagesAdvised());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(memory.at(0)) % HostMemory::kAlignment, 0u);
  EXPECT_TRUE(allZero(memory.at(0), bytes));
  EXPECT_EQ(mappingFlags(memory.at(0)).find(" hg "), std::string::npos)
      << mappingFlags(memory.at(0));
}

TEST(HostMemory, TooMuchMemoryIsAnErrorNamingTheSpace) {
  HostMemory memory;
  Status status = memory.allocate("model.mpcb", BufferSpace::Persistent, ~uint64_t(0) - 10);
  ASSERT_FALSE(status.isOk());
  EXPECT_EQ(status.code(), MPC_RESOURCE_EXHAUSTED);
  EXPECT_NE(status.message().find("model.mpcb: cannot allocate"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("persistent"), std::string::npos) << status.message();
}
