//===- TelemetryRing.h - the telemetry of a program's recent runs ---------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Each run of a program reports a few small outputs (the loss, the loss
// scale, whether the update was skipped) as a telemetry record, which the
// host reads without waiting for later runs. The ring keeps the records of
// the last `depth` completed runs: run r lives in slot r mod depth until run
// r + depth completes.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_TELEMETRYRING_H
#define MPC_RUNTIME_TELEMETRYRING_H

#include "Backend.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mpc::rt {

class TelemetryRing {
public:
  /// A ring of `depth` (at least 1) records.
  explicit TelemetryRing(size_t depth);

  /// Adds the record of the next run to complete: records arrive in run
  /// order, each run once.
  void add(TelemetryRecord record);

  /// The record of `run`; null when that run has not completed or its slot
  /// has been taken by a later run.
  const TelemetryRecord *find(uint64_t run) const;

  /// How many runs have completed: the record of run r has arrived iff
  /// r < completedRuns().
  uint64_t completedRuns() const { return completed_; }

  size_t depth() const { return slots_.size(); }

private:
  std::vector<TelemetryRecord> slots_;
  uint64_t completed_ = 0;
};

} // namespace mpc::rt

#endif // MPC_RUNTIME_TELEMETRYRING_H
