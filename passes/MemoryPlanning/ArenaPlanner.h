//===- ArenaPlanner.h - offsets of step buffers in one arena ----*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The algorithm behind `mpg-plan-memory`, free of MLIR: given the size and
// the live range (in kernel schedule positions) of every buffer of a step,
// it assigns each an offset in one arena so that buffers live at the same
// position never overlap, except where a buffer is written in place of one
// its producing kernel reads for the last time.
//
// Placement is greedy, as in TFLite's arena planner: largest first, each at
// the lowest aligned offset that is free for its whole live range. Where
// that leaves the arena above the bytes live at the busiest position (no
// plan needs less), a local search swaps pairs in the placement order and
// keeps an order whose arena is no larger, until it meets that bound or has
// visited a fixed number of blocks (about 40 ms at most): largest first
// left the Fashion-MNIST CNN's fp32 arena 4% above the bound, the search
// meets it.
// (The bound counts blocks, below: a block holds its first buffer's bytes for
// its whole span.) A buffer written in place shares its target's offset, and
// the two are placed as one block that holds the target's memory from the
// target's first use to the last use of the buffer; chains (b in place of a,
// c in place of b) form one block.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_PASSES_MEMORYPLANNING_ARENAPLANNER_H
#define MPC_PASSES_MEMORYPLANNING_ARENAPLANNER_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mpc::planning {

/// One buffer to place: live from the step it is written (`firstUse`) to the
/// last step that reads it (`lastUse`, inclusive); positions are indices in
/// the kernel schedule.
struct BufferRequest {
  int64_t size; // bytes, > 0
  int64_t firstUse;
  int64_t lastUse; // >= firstUse
  /// When set: this buffer may take the place of buffer `*inPlaceOf` (an
  /// earlier request) because the producing kernel reads that buffer for the
  /// last time at `firstUse` and writes this one elementwise. The planner
  /// honours it when the sizes fit (size <= that buffer's size), that buffer
  /// is not read after `firstUse` (its lastUse <= firstUse) and no other
  /// buffer already took its place; otherwise it plans this buffer normally.
  std::optional<size_t> inPlaceOf;
};

struct ArenaPlan {
  std::vector<int64_t> offsets; // one per request, multiples of the alignment
  std::vector<bool> inPlace;    // whether request i took its inPlaceOf's place
  int64_t arenaBytes;           // multiple of the alignment
  int64_t sumOfSizes;           // sum of aligned sizes (what no reuse would need)
  /// Max over schedule positions of the aligned bytes live there, buffers
  /// that share memory in place counted once (at their largest): a lower
  /// bound on `arenaBytes`.
  int64_t peakLiveBytes;
};

/// The first reason `planArena` would reject `requests` or `alignment`, naming
/// the request index, or std::nullopt when it accepts them. Callers check
/// their input with it before planning.
std::optional<std::string> checkArenaRequests(const std::vector<BufferRequest> &requests,
                                              int64_t alignment = 256);

/// Plans the arena for `requests`; `alignment` (a power of two) applies to
/// every offset and size. The input must be one `checkArenaRequests` accepts:
/// other input is a caller's bug, and planArena aborts with the message. The
/// plan depends only on the input.
ArenaPlan planArena(const std::vector<BufferRequest> &requests, int64_t alignment = 256);

} // namespace mpc::planning

#endif // MPC_PASSES_MEMORYPLANNING_ARENAPLANNER_H
