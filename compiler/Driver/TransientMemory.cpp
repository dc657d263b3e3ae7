//===- TransientMemory.cpp - what the arena holds at its peak -------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/TransientMemory.h"

#include "passes/MemoryPlanning/MemoryPlanSupport.h"

#include "mlir/IR/BuiltinAttributes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <vector>

using namespace mlir;
using namespace mpc::driver;

namespace {

enum class Role { Input, Activation, Gradient, Scratch };

struct Interval {
  int64_t begin, end; // bytes [begin, end) of the arena
  Role role;
};

/// Bytes covered by the union of `intervals`.
int64_t coveredBytes(std::vector<Interval> intervals) {
  llvm::sort(intervals, [](const Interval &a, const Interval &b) { return a.begin < b.begin; });
  int64_t covered = 0, reach = 0;
  for (const Interval &i : intervals) {
    int64_t from = std::max(i.begin, reach);
    if (i.end > from)
      covered += i.end - from;
    reach = std::max(reach, i.end);
  }
  return covered;
}

} // namespace

TransientMemory mpc::driver::measureTransientMemory(mpg::GraphOp graph) {
  Block &body = graph.getBody().front();
  llvm::DenseMap<Operation *, int64_t> position;
  int64_t count = 0;
  for (Operation &op : body)
    position[&op] = count++;

  // Values the seed of the backward pass reaches.
  llvm::DenseSet<Value> fromSeed;
  for (Operation &op : body) {
    // (fusion may have moved the seed constant into a group's body)
    bool holdsSeed = false;
    op.walk([&](Operation *inner) { holdsSeed |= inner->hasAttr(mlir::mpg::kLossSeedAttr); });
    bool reached = holdsSeed ||
                   llvm::any_of(op.getOperands(), [&](Value v) { return fromSeed.contains(v); });
    if (reached)
      for (Value result : op.getResults())
        fromSeed.insert(result);
  }

  struct Live {
    int64_t def, last;
    Interval bytes;
    Value value; // null for scratch
  };
  std::vector<Live> values;
  for (Operation &op : body) {
    auto offsets = op.getAttrOfType<DenseI64ArrayAttr>(mlir::mpg::kArenaOffsetsAttr);
    if (!offsets)
      continue;
    for (auto [result, offset] : llvm::zip(op.getResults(), offsets.asArrayRef())) {
      if (offset < 0)
        continue;
      Role role = llvm::isa<mpg::InputOp>(op)   ? Role::Input
                  : fromSeed.contains(result) ? Role::Gradient
                                              : Role::Activation;
      // (inputs are all written before the step: live from its start)
      int64_t def = llvm::isa<mpg::InputOp>(op) ? 0 : position[&op];
      values.push_back({def,
                        position[&op],
                        {offset, offset + mpc::bufferBytes(result.getType()), role},
                        result});
    }
    if (auto scratch = op.getAttrOfType<IntegerAttr>(mlir::mpg::kScratchOffsetAttr))
      if (auto fusion = llvm::dyn_cast<mpg::FusionOp>(op))
        values.push_back({position[&op], position[&op],
                          {scratch.getInt(), scratch.getInt() + mpc::scratchBytes(fusion),
                           Role::Scratch},
                          Value()});
  }

  // As mpg-plan-memory does: a value is live until the last reader of it or
  // of any view of it (a reshape reads its operand's storage under another
  // shape); outputs, the loss and state writes keep it to the end.
  llvm::DenseMap<Value, size_t> liveOf;
  for (auto [index, v] : llvm::enumerate(values))
    if (v.value)
      liveOf[v.value] = index;
  for (Operation &op : body)
    for (Value operand : op.getOperands()) {
      auto it = liveOf.find(mpc::storageRoot(operand));
      if (it == liveOf.end())
        continue;
      bool untilEnd = llvm::isa<mpg::OutputOp, mpg::MinimizeOp, mpg::StateWriteOp>(op);
      Live &v = values[it->second];
      v.last = std::max(v.last, untilEnd ? count : position[&op]);
    }

  // As mpg-plan-memory does: consecutive parameter updates (and finite
  // checks) run as one launch, so what any of them reads is live until the
  // last of them.
  for (const auto &run : mpc::multiTensorRuns(body))
    for (mpg::FusionOp update : run)
      for (Value operand : update->getOperands())
        if (auto it = liveOf.find(mpc::storageRoot(operand)); it != liveOf.end())
          values[it->second].last = std::max(values[it->second].last, position[run.back()]);

  TransientMemory result;
  std::vector<const Live *> atPeak;
  for (int64_t at = 0; at <= count; ++at) {
    std::vector<Interval> live;
    std::vector<const Live *> liveValues;
    for (const Live &v : values)
      if (v.def <= at && at <= v.last) {
        live.push_back(v.bytes);
        liveValues.push_back(&v);
      }
    int64_t bytes = coveredBytes(live);
    result.timeline.push_back(bytes);
    if (bytes > result.peak) {
      result.peak = bytes;
      atPeak = std::move(liveValues);
    }
  }
  // Bytes shared at the peak (a result written in place of an input it reads
  // last) count once, for the newer value.
  llvm::stable_sort(atPeak, [](const Live *a, const Live *b) { return a->def > b->def; });
  std::vector<Interval> claimed;
  for (const Live *v : atPeak) {
    int64_t before = coveredBytes(claimed);
    claimed.push_back(v->bytes);
    int64_t added = coveredBytes(claimed) - before;
    switch (v->bytes.role) {
    case Role::Input:
      result.inputs += added;
      break;
    case Role::Activation:
      result.activations += added;
      break;
    case Role::Gradient:
      result.gradients += added;
      break;
    case Role::Scratch:
      result.scratch += added;
      break;
    }
  }
  return result;
}
