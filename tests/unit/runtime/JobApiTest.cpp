//===- JobApiTest.cpp - the C API of data-parallel jobs --------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// mpc_job_* in a process that no launcher started (a job of one rank); the
// jobs of several ranks are tested under mpirun (tests/lit/e2e/
// data-parallel.test, tests/e2e/CollectiveCheck.cpp).
//
//===----------------------------------------------------------------------===//

#include "mpc/runtime.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace {

bool lastErrorHas(const std::string &text) {
  return std::string(mpc_last_error()).find(text) != std::string::npos;
}

struct Job {
  mpc_job *job = nullptr;
  ~Job() { mpc_job_release(job); }
};

TEST(JobApi, AProcessWithoutALauncherIsAJobOfOneRank) {
  EXPECT_EQ(mpc_job_launched_size(), 1);
  Job j;
  ASSERT_EQ(mpc_job_open(&j.job), MPC_OK) << mpc_last_error();
  EXPECT_EQ(mpc_job_rank(j.job), 0);
  EXPECT_EQ(mpc_job_size(j.job), 1);
  EXPECT_STREQ(mpc_job_transport(j.job), "single process");
  // Every reduction leaves the data as it is.
  float values[3] = {1.5f, -2.0f, 3.25f};
  for (const char *op : {"sum", "max", "mean"}) {
    ASSERT_EQ(mpc_job_all_reduce(j.job, values, 3, "f32", op), MPC_OK) << mpc_last_error();
    EXPECT_EQ(values[0], 1.5f);
    EXPECT_EQ(values[1], -2.0f);
    EXPECT_EQ(values[2], 3.25f);
  }
  int32_t counts[2] = {7, -1};
  ASSERT_EQ(mpc_job_all_reduce(j.job, counts, 2, "i32", "sum"), MPC_OK) << mpc_last_error();
  EXPECT_EQ(counts[0], 7);
  int differing = 7;
  ASSERT_EQ(mpc_job_first_differing_rank(j.job, 42, &differing), MPC_OK) << mpc_last_error();
  EXPECT_EQ(differing, -1);
  uint64_t word = 0x0123456789abcdefull;
  ASSERT_EQ(mpc_job_broadcast(j.job, &word, sizeof word, 0), MPC_OK) << mpc_last_error();
  EXPECT_EQ(word, 0x0123456789abcdefull);
}

TEST(JobApi, RefusesWhatDoesNotReduce) {
  Job j;
  ASSERT_EQ(mpc_job_open(&j.job), MPC_OK) << mpc_last_error();
  float value = 1;
  EXPECT_EQ(mpc_job_all_reduce(j.job, &value, 1, "f8", "sum"), MPC_INVALID_ARGUMENT);
  EXPECT_TRUE(lastErrorHas("mpc_job_all_reduce: unknown dtype \"f8\"")) << mpc_last_error();
  EXPECT_EQ(mpc_job_all_reduce(j.job, &value, 1, "f32", "min"), MPC_INVALID_ARGUMENT);
  EXPECT_TRUE(lastErrorHas("unknown reduction \"min\" (sum, max or mean)")) << mpc_last_error();
  int64_t wide = 1;
  EXPECT_EQ(mpc_job_all_reduce(j.job, &wide, 1, "i64", "sum"), MPC_UNSUPPORTED);
  EXPECT_TRUE(lastErrorHas("all-reduce of i64 elements")) << mpc_last_error();
  int32_t integer = 1;
  EXPECT_EQ(mpc_job_all_reduce(j.job, &integer, 1, "i32", "mean"), MPC_UNSUPPORTED);
  EXPECT_TRUE(lastErrorHas("a mean is of floats")) << mpc_last_error();
  EXPECT_EQ(mpc_job_all_reduce(j.job, nullptr, 4, "f32", "sum"), MPC_INVALID_ARGUMENT);
  EXPECT_EQ(mpc_job_broadcast(j.job, &value, sizeof value, 1), MPC_INVALID_ARGUMENT);
  EXPECT_TRUE(lastErrorHas("broadcast from rank 1 in a job of 1 rank")) << mpc_last_error();
}

TEST(JobApi, NullArguments) {
  EXPECT_EQ(mpc_job_open(nullptr), MPC_INVALID_ARGUMENT);
  EXPECT_TRUE(lastErrorHas("mpc_job_open: out is NULL")) << mpc_last_error();
  float value = 0;
  EXPECT_EQ(mpc_job_all_reduce(nullptr, &value, 1, "f32", "sum"), MPC_INVALID_ARGUMENT);
  EXPECT_TRUE(lastErrorHas("mpc_job_all_reduce: job is NULL")) << mpc_last_error();
  Job j;
  ASSERT_EQ(mpc_job_open(&j.job), MPC_OK);
  EXPECT_EQ(mpc_job_all_reduce(j.job, &value, 1, nullptr, "sum"), MPC_INVALID_ARGUMENT);
  EXPECT_EQ(mpc_job_all_reduce(j.job, &value, 1, "f32", nullptr), MPC_INVALID_ARGUMENT);
  EXPECT_EQ(mpc_job_broadcast(nullptr, &value, 4, 0), MPC_INVALID_ARGUMENT);
  EXPECT_EQ(mpc_job_first_differing_rank(j.job, 1, nullptr), MPC_INVALID_ARGUMENT);
  EXPECT_EQ(mpc_job_rank(nullptr), 0);
  EXPECT_EQ(mpc_job_size(nullptr), 1);
  EXPECT_STREQ(mpc_job_transport(nullptr), "");
  mpc_job_release(nullptr);
}

} // namespace
