//===- StatusTest.cpp - runtime status codes and version ------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "mpc/runtime.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

TEST(RuntimeStatus, EveryCodeHasADistinctName) {
  std::set<std::string> names;
  for (int code = MPC_OK; code <= MPC_RESOURCE_EXHAUSTED; ++code) {
    const char *name = mpc_status_code_name(static_cast<mpc_status_code>(code));
    ASSERT_NE(name, nullptr);
    EXPECT_STRNE(name, "unknown status") << "code " << code;
    names.insert(name);
  }
  EXPECT_EQ(names.size(), static_cast<size_t>(MPC_RESOURCE_EXHAUSTED + 1));
  EXPECT_STREQ(mpc_status_code_name(MPC_OK), "ok");
}

TEST(RuntimeStatus, OutOfRangeCodeIsUnknown) {
  EXPECT_STREQ(mpc_status_code_name(static_cast<mpc_status_code>(99)), "unknown status");
}

TEST(RuntimeStatus, VersionIsMajorMinorPatch) {
  std::string version = mpc_runtime_version();
  EXPECT_EQ(std::count(version.begin(), version.end(), '.'), 2) << version;
}
