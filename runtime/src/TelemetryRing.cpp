//===- TelemetryRing.cpp - the telemetry of a program's recent runs -------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "TelemetryRing.h"

#include <algorithm>

namespace mpc::rt {

TelemetryRing::TelemetryRing(size_t depth) : slots_(std::max<size_t>(depth, 1)) {}

void TelemetryRing::add(TelemetryRecord record) {
  uint64_t run = record.run;
  slots_[run % slots_.size()] = std::move(record);
  completed_ = std::max(completed_, run + 1);
}

const TelemetryRecord *TelemetryRing::find(uint64_t run) const {
  if (run >= completed_ || completed_ - run > slots_.size())
    return nullptr;
  const TelemetryRecord &record = slots_[run % slots_.size()];
  return record.run == run ? &record : nullptr;
}

} // namespace mpc::rt
