//===- TransientMemory.h - what the arena holds at its peak ------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// For `mpc report memory`: walks a planned graph (after mpg-plan-memory) in
// execution order, keeps each arena value live from its definition to its
// last use or the last use of a view of it (outputs, the loss and state
// writes: to the end of the step), as the planner does, and at the
// point where the live bytes peak splits them into the step's inputs,
// activations (values the backward pass's seed does not reach) and
// gradients (values computed from the seed: the backward pass and the
// updates). Aliases (views, in-place results) are counted once.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DRIVER_TRANSIENTMEMORY_H
#define MPC_COMPILER_DRIVER_TRANSIENTMEMORY_H

#include "dialects/mpg/IR/MpgOps.h"

#include <cstdint>
#include <vector>

namespace mpc::driver {

struct TransientMemory {
  int64_t peak = 0; // live bytes at the peak (the arena may be larger)
  int64_t inputs = 0, activations = 0, gradients = 0, scratch = 0;
  /// The live bytes at each op of the graph's body, in execution order (the
  /// last entry: the end of the step, with the outputs and state writes).
  std::vector<int64_t> timeline;
};

TransientMemory measureTransientMemory(mlir::mpg::GraphOp plannedGraph);

} // namespace mpc::driver

#endif // MPC_COMPILER_DRIVER_TRANSIENTMEMORY_H
