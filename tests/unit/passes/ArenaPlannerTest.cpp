//===- ArenaPlannerTest.cpp - arena planning of step buffers --------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Hand-worked plans (reuse, alignment, placement order, in-place hints and
// chains), the input errors, and properties every plan of random DAG-like
// schedules must have: no two buffers live at one position overlap unless
// one was written in place of the other, offsets are aligned, and the arena
// lies between the peak of live bytes and the sum of all sizes.
//
//===----------------------------------------------------------------------===//

#include "passes/MemoryPlanning/ArenaPlanner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace mpc::planning;

namespace {
BufferRequest buffer(int64_t size, int64_t firstUse, int64_t lastUse,
                     std::optional<size_t> inPlaceOf = std::nullopt) {
  return BufferRequest{size, firstUse, lastUse, inPlaceOf};
}

/// Why `planArena` would reject the input, or "" when it accepts it.
std::string planError(const std::vector<BufferRequest> &requests, int64_t alignment = 256) {
  return checkArenaRequests(requests, alignment).value_or("");
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}
} // namespace

//===----------------------------------------------------------------------===//
// Hand-worked plans
//===----------------------------------------------------------------------===//

TEST(ArenaPlanner, NoRequestsNeedNoArena) {
  ArenaPlan plan = planArena({});
  EXPECT_TRUE(plan.offsets.empty());
  EXPECT_TRUE(plan.inPlace.empty());
  EXPECT_EQ(plan.arenaBytes, 0);
  EXPECT_EQ(plan.sumOfSizes, 0);
  EXPECT_EQ(plan.peakLiveBytes, 0);
}

TEST(ArenaPlanner, DisjointLifetimesShareMemory) {
  ArenaPlan plan = planArena({buffer(1024, 0, 1), buffer(512, 2, 3), buffer(768, 4, 5)});
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(plan.arenaBytes, 1024);
  EXPECT_EQ(plan.sumOfSizes, 2304);
  EXPECT_EQ(plan.peakLiveBytes, 1024);
}

TEST(ArenaPlanner, OverlappingLifetimesDoNotShare) {
  ArenaPlan plan = planArena({buffer(256, 0, 5), buffer(1024, 2, 3), buffer(512, 3, 4)});
  // Largest first: 1024 at 0, then 512 above it, then 256 above both.
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{1536, 0, 1024}));
  EXPECT_EQ(plan.arenaBytes, 1792);
  EXPECT_EQ(plan.sumOfSizes, 1792);
  EXPECT_EQ(plan.peakLiveBytes, 1792);
}

TEST(ArenaPlanner, LastUseIsInclusive) {
  // Live together at position 1: the second is written where the first is
  // read for the last time, so without an in-place hint they may not share.
  ArenaPlan plan = planArena({buffer(512, 0, 1), buffer(512, 1, 2)});
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{0, 512}));
  EXPECT_EQ(plan.arenaBytes, 1024);
  EXPECT_EQ(plan.peakLiveBytes, 1024);
}

TEST(ArenaPlanner, SizesAreRoundedUpToTheAlignment) {
  ArenaPlan single = planArena({buffer(1, 0, 0)});
  EXPECT_EQ(single.arenaBytes, 256);
  EXPECT_EQ(single.sumOfSizes, 256);
  EXPECT_EQ(single.peakLiveBytes, 256);

  ArenaPlan pair = planArena({buffer(1, 0, 1), buffer(257, 1, 2)});
  EXPECT_EQ(pair.offsets, (std::vector<int64_t>{512, 0}));
  EXPECT_EQ(pair.arenaBytes, 768);
  EXPECT_EQ(pair.sumOfSizes, 768);

  ArenaPlan fine = planArena({buffer(100, 0, 1), buffer(3, 1, 2)}, 64);
  EXPECT_EQ(fine.offsets, (std::vector<int64_t>{0, 128}));
  EXPECT_EQ(fine.arenaBytes, 192);

  ArenaPlan exact = planArena({buffer(100, 0, 1), buffer(3, 1, 2)}, 1);
  EXPECT_EQ(exact.offsets, (std::vector<int64_t>{0, 100}));
  EXPECT_EQ(exact.arenaBytes, 103);
  EXPECT_EQ(exact.sumOfSizes, 103);
}

TEST(ArenaPlanner, EachBufferTakesTheLowestFreeOffset) {
  ArenaPlan plan = planArena({
      buffer(1024, 0, 1), // placed first, at 0
      buffer(768, 1, 3),  // live with the first: above it, at 1024
      buffer(256, 2, 4),  // live with the second only: back at 0
      buffer(256, 3, 3),  // live with the second and third: in the gap at 256
  });
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{0, 1024, 0, 256}));
  EXPECT_EQ(plan.arenaBytes, 1792);
  EXPECT_EQ(plan.sumOfSizes, 2304);
  EXPECT_EQ(plan.peakLiveBytes, 1792);
}

TEST(ArenaPlanner, EqualSizesArePlacedByFirstUseThenIndex) {
  // The second request starts earlier, so it is placed first and gets 0.
  ArenaPlan byFirstUse = planArena({buffer(256, 5, 6), buffer(256, 0, 6)});
  EXPECT_EQ(byFirstUse.offsets, (std::vector<int64_t>{256, 0}));

  // Same first use: the lower index is placed first. Sizes compare aligned.
  ArenaPlan byIndex = planArena({buffer(200, 0, 6), buffer(256, 0, 6)});
  EXPECT_EQ(byIndex.offsets, (std::vector<int64_t>{0, 256}));
}

TEST(ArenaPlanner, SearchBeatsLargestFirstWhereItLeavesAGap) {
  // Largest first puts the 1280 (position 0) and the 1024 (position 3) at 0,
  // the 768 (positions 1-3) above the 1024, and the 256 (positions 0-1) above
  // both the 1280 and the 768: 2048 bytes. Position 3 needs 1792 (768 +
  // 1024), and so does the plan with the 768 at 0, the 1024 above it, and
  // the 256 above the 1280.
  // (More than one plan takes 1792 bytes; any of them will do.)
  std::vector<BufferRequest> requests = {buffer(768, 1, 3), buffer(1280, 0, 0), buffer(256, 0, 1),
                                         buffer(1024, 3, 3)};
  ArenaPlan plan = planArena(requests);
  EXPECT_EQ(plan.arenaBytes, 1792);
  EXPECT_EQ(plan.peakLiveBytes, 1792);
  for (size_t lhs = 0; lhs < requests.size(); ++lhs)
    for (size_t rhs = lhs + 1; rhs < requests.size(); ++rhs) {
      bool liveTogether = requests[lhs].firstUse <= requests[rhs].lastUse &&
                          requests[rhs].firstUse <= requests[lhs].lastUse;
      bool overlap = plan.offsets[lhs] < plan.offsets[rhs] + requests[rhs].size &&
                     plan.offsets[rhs] < plan.offsets[lhs] + requests[lhs].size;
      EXPECT_FALSE(liveTogether && overlap) << "requests " << lhs << " and " << rhs;
    }
  for (size_t index = 0; index < requests.size(); ++index)
    EXPECT_LE(plan.offsets[index] + requests[index].size, plan.arenaBytes) << index;
}

TEST(ArenaPlanner, SearchKeepsLargestFirstWhenItMeetsThePeak) {
  // The same sizes at positions where largest first needs no more than the
  // peak: its plan, unchanged (the search does not run, so plans that were
  // already as small as can be stay as they were).
  ArenaPlan plan =
      planArena({buffer(768, 0, 0), buffer(1280, 1, 1), buffer(256, 0, 1), buffer(1024, 0, 0)});
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{1024, 0, 1792, 0}));
  EXPECT_EQ(plan.arenaBytes, 2048);
  EXPECT_EQ(plan.peakLiveBytes, 2048);
}

//===----------------------------------------------------------------------===//
// In-place hints
//===----------------------------------------------------------------------===//

TEST(ArenaPlanner, InPlaceIsHonouredWhenLegal) {
  ArenaPlan plan = planArena({buffer(1024, 0, 1), buffer(1024, 1, 2, 0)});
  EXPECT_EQ(plan.inPlace, (std::vector<bool>{false, true}));
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(plan.arenaBytes, 1024);
  EXPECT_EQ(plan.sumOfSizes, 2048);
  // The pair shares memory at position 1 and counts once there.
  EXPECT_EQ(plan.peakLiveBytes, 1024);

  ArenaPlan smaller = planArena({buffer(1024, 0, 1), buffer(300, 1, 2, 0)});
  EXPECT_EQ(smaller.inPlace, (std::vector<bool>{false, true}));
  EXPECT_EQ(smaller.offsets, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(smaller.arenaBytes, 1024);
}

TEST(ArenaPlanner, InPlaceIsRefusedWhileTheTargetIsStillRead) {
  ArenaPlan plan = planArena({buffer(1024, 0, 3), buffer(1024, 1, 2, 0)});
  EXPECT_EQ(plan.inPlace, (std::vector<bool>{false, false}));
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{0, 1024}));
  EXPECT_EQ(plan.arenaBytes, 2048);
}

TEST(ArenaPlanner, InPlaceIsRefusedWhenTheTargetIsTooSmall) {
  ArenaPlan plan = planArena({buffer(512, 0, 1), buffer(1024, 1, 2, 0)});
  EXPECT_EQ(plan.inPlace, (std::vector<bool>{false, false}));
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{1024, 0}));
  EXPECT_EQ(plan.arenaBytes, 1536);

  // The rule compares the requested sizes, even where the aligned ones agree.
  ArenaPlan sameAligned = planArena({buffer(100, 0, 1), buffer(200, 1, 2, 0)});
  EXPECT_EQ(sameAligned.inPlace, (std::vector<bool>{false, false}));
  EXPECT_EQ(sameAligned.arenaBytes, 512);
}

TEST(ArenaPlanner, InPlaceIsRefusedWhenThePlaceIsTaken) {
  ArenaPlan plan = planArena({buffer(1024, 0, 1), buffer(512, 1, 2, 0), buffer(512, 1, 3, 0)});
  EXPECT_EQ(plan.inPlace, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{0, 0, 1024}));
  EXPECT_EQ(plan.arenaBytes, 1536);
}

TEST(ArenaPlanner, InPlaceHoldsTheTargetsMemoryUntilTheLastUse) {
  // The small in-place buffer keeps all of its target's 1024 bytes until
  // position 6, so the buffer live at 4..5 goes above them.
  ArenaPlan plan = planArena({buffer(1024, 0, 1), buffer(256, 1, 6, 0), buffer(512, 4, 5)});
  EXPECT_EQ(plan.inPlace, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{0, 0, 1024}));
  EXPECT_EQ(plan.arenaBytes, 1536);
  EXPECT_EQ(plan.peakLiveBytes, 1024);
}

TEST(ArenaPlanner, InPlaceChainsShareOneBlock) {
  ArenaPlan plan = planArena({
      buffer(1024, 0, 1),    // starts the chain
      buffer(1024, 1, 2, 0), // in place of 0
      buffer(512, 2, 4, 1),  // in place of 1, so of 0 too
      buffer(1024, 3, 3),    // live with 2: must not land on the chain
      buffer(2048, 5, 6),    // after the chain: shares its memory
  });
  EXPECT_EQ(plan.inPlace, (std::vector<bool>{false, true, true, false, false}));
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{0, 0, 0, 1024, 0}));
  EXPECT_EQ(plan.arenaBytes, 2048);
  EXPECT_EQ(plan.sumOfSizes, 5632);
  EXPECT_EQ(plan.peakLiveBytes, 2048);
}

TEST(ArenaPlanner, ChainsStartAtARefusedLink) {
  // 1 cannot replace 0 (still read at 5), but 2 can replace 1.
  ArenaPlan plan = planArena({buffer(1024, 0, 5), buffer(1024, 1, 2, 0), buffer(1024, 2, 3, 1)});
  EXPECT_EQ(plan.inPlace, (std::vector<bool>{false, false, true}));
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{0, 1024, 1024}));
  EXPECT_EQ(plan.arenaBytes, 2048);
}

TEST(ArenaPlanner, AChainLinkIsTakenOnlyOnce) {
  // 2 takes 1's place, and so 0's; 3 asks for 1's place too and is refused.
  ArenaPlan plan = planArena(
      {buffer(1024, 0, 1), buffer(1024, 1, 2, 0), buffer(1024, 2, 3, 1), buffer(1024, 2, 3, 1)});
  EXPECT_EQ(plan.inPlace, (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{0, 0, 0, 1024}));
  EXPECT_EQ(plan.arenaBytes, 2048);
}

//===----------------------------------------------------------------------===//
// Input errors
//===----------------------------------------------------------------------===//

TEST(ArenaPlanner, RejectsNonPositiveSizes) {
  std::string zero = planError({buffer(256, 0, 1), buffer(0, 1, 2)});
  EXPECT_TRUE(contains(zero, "arena request 1:")) << zero;
  EXPECT_TRUE(contains(zero, "size must be positive, got 0")) << zero;

  std::string negative = planError({buffer(-5, 0, 1)});
  EXPECT_TRUE(contains(negative, "arena request 0: size must be positive, got -5")) << negative;
}

TEST(ArenaPlanner, RejectsLastUseBeforeFirstUse) {
  std::string error = planError({buffer(256, 0, 1), buffer(256, 1, 2), buffer(256, 4, 3)});
  EXPECT_TRUE(contains(error, "arena request 2: lastUse 3 is before firstUse 4")) << error;
}

TEST(ArenaPlanner, RejectsInPlaceOfAnythingButAnEarlierRequest) {
  std::string self = planError({buffer(256, 0, 1), buffer(256, 1, 2, 1)});
  EXPECT_TRUE(contains(self, "arena request 1: inPlaceOf 1 does not name an earlier request"))
      << self;

  std::string later = planError({buffer(256, 0, 1, 1), buffer(256, 1, 2)});
  EXPECT_TRUE(contains(later, "arena request 0: inPlaceOf 1")) << later;

  std::string outOfRange = planError({buffer(256, 0, 1), buffer(256, 1, 2, 7)});
  EXPECT_TRUE(contains(outOfRange, "arena request 1: inPlaceOf 7")) << outOfRange;
}

TEST(ArenaPlanner, RejectsAlignmentsThatAreNotPowersOfTwo) {
  std::vector<BufferRequest> requests = {buffer(256, 0, 1)};
  for (int64_t alignment : {0, -256, 100, 384}) {
    std::string error = planError(requests, alignment);
    EXPECT_TRUE(contains(error, "alignment must be a positive power of two, got " +
                                    std::to_string(alignment)))
        << error;
  }
  for (int64_t alignment : {1, 2, 64, 4096})
    EXPECT_EQ(planError(requests, alignment), "") << "alignment " << alignment;
}

TEST(ArenaPlanner, RejectsSizesWhoseSumOverflows) {
  constexpr int64_t maxBytes = std::numeric_limits<int64_t>::max();
  std::string alone = planError({buffer(maxBytes, 0, 1)});
  EXPECT_TRUE(contains(alone, "arena request 0: the aligned sizes")) << alone;

  std::string together = planError({buffer(maxBytes / 2, 0, 1), buffer(maxBytes / 2, 2, 3)});
  EXPECT_TRUE(contains(together, "arena request 1: the aligned sizes")) << together;
}

// Planning input the check rejects is a caller's bug: planArena stops the
// process with the check's message rather than plan from it.
TEST(ArenaPlanner, PlanningWhatTheCheckRejectsAborts) {
  std::vector<BufferRequest> valid = {buffer(256, 0, 1), buffer(128, 1, 2, 0)};
  EXPECT_EQ(checkArenaRequests(valid), std::nullopt);
  EXPECT_EQ(planArena(valid).offsets.size(), 2u);

  std::vector<BufferRequest> invalid = {buffer(256, 0, 1), buffer(128, 2, 1)};
  ASSERT_TRUE(checkArenaRequests(invalid).has_value());
  EXPECT_DEATH(planArena(invalid), "internal error: planArena: arena request 1: lastUse 1 is "
                                   "before firstUse 2");
}

//===----------------------------------------------------------------------===//
// Properties over random schedules
//===----------------------------------------------------------------------===//

namespace {
struct Schedule {
  std::vector<BufferRequest> requests;
  int64_t alignment;
};

/// How often the random schedules exercised each kind of in-place hint.
struct HintCounts {
  int honoured = 0;
  int refused = 0;
  int chained = 0; // honoured hints whose target took a place itself
};

int64_t uniform(std::mt19937 &rng, int64_t low, int64_t high) {
  return std::uniform_int_distribution<int64_t>(low, high)(rng);
}

bool chance(std::mt19937 &rng, double probability) {
  return std::bernoulli_distribution(probability)(rng);
}

int64_t alignUp(int64_t size, int64_t alignment) {
  return (size + alignment - 1) / alignment * alignment;
}

/// A schedule of `steps` kernels, each reading up to three earlier buffers
/// (mostly recent ones) and writing one to three, some in place of a buffer
/// it reads. Hints go wrong where a later kernel reads the target, where the
/// new buffer is larger, or where two outputs name the same input.
Schedule makeSchedule(std::mt19937 &rng, int64_t steps) {
  static const int64_t alignments[] = {1, 16, 256, 4096};
  Schedule schedule;
  schedule.alignment = alignments[uniform(rng, 0, 3)];
  std::vector<BufferRequest> &requests = schedule.requests;
  for (int64_t step = 0; step < steps; ++step) {
    std::vector<size_t> inputs;
    for (int64_t input = 0, count = uniform(rng, 0, 3); input < count && !requests.empty();
         ++input) {
      int64_t last = static_cast<int64_t>(requests.size()) - 1;
      int64_t back =
          chance(rng, 0.2) ? uniform(rng, 0, last) : uniform(rng, 0, std::min<int64_t>(last, 8));
      size_t read = static_cast<size_t>(last - back);
      requests[read].lastUse = std::max(requests[read].lastUse, step);
      inputs.push_back(read);
    }
    for (int64_t output = 0, count = uniform(rng, 1, 3); output < count; ++output) {
      BufferRequest request = buffer(uniform(rng, 1, 1 << 20), step, step);
      if (!inputs.empty() && chance(rng, 0.6)) {
        size_t target = inputs[uniform(rng, 0, static_cast<int64_t>(inputs.size()) - 1)];
        request.inPlaceOf = target;
        if (chance(rng, 0.7))
          request.size = uniform(rng, 1, requests[target].size);
      }
      // Some buffers live on, like activations kept for the backward pass.
      if (chance(rng, 0.15))
        request.lastUse = step + uniform(rng, 0, steps);
      requests.push_back(request);
    }
  }
  return schedule;
}

/// Which hints the rule of BufferRequest::inPlaceOf honours, in request order.
std::vector<bool> legalInPlace(const std::vector<BufferRequest> &requests) {
  std::vector<bool> inPlace(requests.size(), false);
  std::vector<bool> taken(requests.size(), false);
  for (size_t index = 0; index < requests.size(); ++index) {
    const BufferRequest &request = requests[index];
    if (!request.inPlaceOf)
      continue;
    const BufferRequest &target = requests[*request.inPlaceOf];
    if (!taken[*request.inPlaceOf] && request.size <= target.size &&
        target.lastUse <= request.firstUse) {
      taken[*request.inPlaceOf] = true;
      inPlace[index] = true;
    }
  }
  return inPlace;
}

bool samePlan(const ArenaPlan &lhs, const ArenaPlan &rhs) {
  return lhs.offsets == rhs.offsets && lhs.inPlace == rhs.inPlace &&
         lhs.arenaBytes == rhs.arenaBytes && lhs.sumOfSizes == rhs.sumOfSizes &&
         lhs.peakLiveBytes == rhs.peakLiveBytes;
}

::testing::AssertionResult checkPlan(const Schedule &schedule, const ArenaPlan &plan,
                                     HintCounts &counts) {
  const std::vector<BufferRequest> &requests = schedule.requests;
  int64_t alignment = schedule.alignment;
  size_t count = requests.size();
  if (plan.offsets.size() != count || plan.inPlace.size() != count)
    return ::testing::AssertionFailure() << "plan sizes differ from the request count";
  if (plan.inPlace != legalInPlace(requests))
    return ::testing::AssertionFailure() << "in-place decisions differ from the rule";

  // Blocks of memory shared in place, named by the buffer that started them.
  std::vector<size_t> root(count);
  std::vector<int64_t> aligned(count);
  int64_t sumOfSizes = 0, arenaBytes = 0, lastPosition = 0;
  for (size_t index = 0; index < count; ++index) {
    const BufferRequest &request = requests[index];
    aligned[index] = alignUp(request.size, alignment);
    sumOfSizes += aligned[index];
    arenaBytes = std::max(arenaBytes, plan.offsets[index] + aligned[index]);
    lastPosition = std::max(lastPosition, request.lastUse);
    if (plan.offsets[index] < 0 || plan.offsets[index] % alignment != 0)
      return ::testing::AssertionFailure()
             << "request " << index << " has offset " << plan.offsets[index];
    root[index] = index;
    if (request.inPlaceOf) {
      if (plan.inPlace[index]) {
        root[index] = root[*request.inPlaceOf];
        ++counts.honoured;
        if (plan.inPlace[*request.inPlaceOf])
          ++counts.chained;
        if (plan.offsets[index] != plan.offsets[*request.inPlaceOf])
          return ::testing::AssertionFailure()
                 << "request " << index << " is in place but not at its target's offset";
      } else {
        ++counts.refused;
      }
    }
  }

  for (size_t lhs = 0; lhs < count; ++lhs) {
    for (size_t rhs = lhs + 1; rhs < count; ++rhs) {
      bool liveTogether = requests[lhs].firstUse <= requests[rhs].lastUse &&
                          requests[rhs].firstUse <= requests[lhs].lastUse;
      bool overlap = plan.offsets[lhs] < plan.offsets[rhs] + aligned[rhs] &&
                     plan.offsets[rhs] < plan.offsets[lhs] + aligned[lhs];
      if (liveTogether && overlap && root[lhs] != root[rhs])
        return ::testing::AssertionFailure()
               << "requests " << lhs << " and " << rhs << " are live together and overlap";
    }
  }

  int64_t peakLiveBytes = 0;
  for (int64_t position = 0; position <= lastPosition; ++position) {
    std::map<size_t, int64_t> largestLive;
    for (size_t index = 0; index < count; ++index)
      if (requests[index].firstUse <= position && position <= requests[index].lastUse)
        largestLive[root[index]] = std::max(largestLive[root[index]], aligned[index]);
    int64_t liveBytes = 0;
    for (const auto &entry : largestLive)
      liveBytes += entry.second;
    peakLiveBytes = std::max(peakLiveBytes, liveBytes);
  }

  if (plan.sumOfSizes != sumOfSizes)
    return ::testing::AssertionFailure()
           << "sumOfSizes " << plan.sumOfSizes << ", expected " << sumOfSizes;
  if (plan.peakLiveBytes != peakLiveBytes)
    return ::testing::AssertionFailure()
           << "peakLiveBytes " << plan.peakLiveBytes << ", expected " << peakLiveBytes;
  if (plan.arenaBytes != arenaBytes)
    return ::testing::AssertionFailure()
           << "arenaBytes " << plan.arenaBytes << ", but buffers end at " << arenaBytes;
  if (plan.arenaBytes % alignment != 0 || plan.arenaBytes < plan.peakLiveBytes ||
      plan.arenaBytes > plan.sumOfSizes)
    return ::testing::AssertionFailure()
           << "arenaBytes " << plan.arenaBytes << " is unaligned or outside [" << plan.peakLiveBytes
           << ", " << plan.sumOfSizes << "]";
  if (!samePlan(plan, planArena(requests, alignment)))
    return ::testing::AssertionFailure() << "planning again gives another plan";
  return ::testing::AssertionSuccess();
}
} // namespace

TEST(ArenaPlanner, RandomSchedulesGetValidPlans) {
  HintCounts counts;
  for (unsigned seed = 0; seed < 600; ++seed) {
    std::mt19937 rng(seed);
    Schedule schedule = makeSchedule(rng, uniform(rng, 1, 40));
    ArenaPlan plan = planArena(schedule.requests, schedule.alignment);
    ASSERT_TRUE(checkPlan(schedule, plan, counts))
        << "seed " << seed << ", " << schedule.requests.size() << " buffers";
  }
  // The schedules exercise every outcome of a hint.
  EXPECT_GT(counts.honoured, 1000);
  EXPECT_GT(counts.refused, 1000);
  EXPECT_GT(counts.chained, 100);
}

TEST(ArenaPlanner, LargeScheduleGetsAValidPlan) {
  HintCounts counts;
  std::mt19937 rng(2024);
  Schedule schedule = makeSchedule(rng, 1500);
  ASSERT_GT(schedule.requests.size(), 2000u);
  ArenaPlan plan = planArena(schedule.requests, schedule.alignment);
  ASSERT_TRUE(checkPlan(schedule, plan, counts));
  // Reuse matters at this size: far less than one buffer per request.
  EXPECT_LT(plan.arenaBytes, plan.sumOfSizes / 4);
}
