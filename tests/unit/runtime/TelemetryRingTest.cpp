//===- TelemetryRingTest.cpp - the telemetry of recent runs ---------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "TelemetryRing.h"

#include <gtest/gtest.h>

using mpc::rt::TelemetryRecord;
using mpc::rt::TelemetryRing;

namespace {

TelemetryRecord record(uint64_t run) { return {run, {static_cast<uint8_t>(run)}}; }

TEST(TelemetryRing, KeepsTheLastDepthRuns) {
  TelemetryRing ring(3);
  EXPECT_EQ(ring.completedRuns(), 0u);
  EXPECT_EQ(ring.find(0), nullptr);
  for (uint64_t run = 0; run < 5; ++run)
    ring.add(record(run));
  EXPECT_EQ(ring.completedRuns(), 5u);
  EXPECT_EQ(ring.find(0), nullptr); // taken by runs 3 and 4
  EXPECT_EQ(ring.find(1), nullptr);
  for (uint64_t run = 2; run < 5; ++run) {
    ASSERT_NE(ring.find(run), nullptr) << run;
    EXPECT_EQ(ring.find(run)->run, run);
    EXPECT_EQ(ring.find(run)->bytes, std::vector<uint8_t>{static_cast<uint8_t>(run)});
  }
  EXPECT_EQ(ring.find(5), nullptr); // not completed
  EXPECT_EQ(ring.find(8), nullptr);
}

TEST(TelemetryRing, SlotsWrapAroundByRunNumber) {
  TelemetryRing ring(4);
  for (uint64_t run = 0; run < 10; ++run) {
    ring.add(record(run));
    for (uint64_t older = 0; older <= run; ++older)
      EXPECT_EQ(ring.find(older) != nullptr, run - older < 4) << older << " after " << run;
  }
}

TEST(TelemetryRing, DepthIsAtLeastOne) {
  TelemetryRing ring(0);
  EXPECT_EQ(ring.depth(), 1u);
  ring.add(record(0));
  ring.add(record(1));
  EXPECT_EQ(ring.find(0), nullptr);
  ASSERT_NE(ring.find(1), nullptr);
}

} // namespace
