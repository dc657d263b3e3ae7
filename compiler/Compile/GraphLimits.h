//===- GraphLimits.h - what mpc's code generation takes ----------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Graphs the mpg dialect accepts but mpc cannot compile into a step, checked
// before the pass pipeline so that the error points at the op in the graph
// file instead of at a kernel or a manifest field the user never wrote:
//   - empty operands (a dimension of 0) of the ops that become GEMMs or row
//     kernels (pointwise ops and reductions take empty tensors);
//   - dimensions above 2^31 - 1, and convolution and pooling attributes
//     (strides, padding, dilations, windows) above it: GEMM libraries and
//     the runtime's launch steps take 32-bit sizes;
//   - names with control characters, and constant initializers whose value
//     is not one of the tensor's element type, which the runtime refuses in
//     a bundle;
//   - training a graph with no mpg.minimize.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_COMPILE_GRAPHLIMITS_H
#define MPC_COMPILER_COMPILE_GRAPHLIMITS_H

#include "mlir/IR/BuiltinOps.h"

namespace mpc {

/// Emits an error at the first op of `module` that mpc cannot compile
/// (`train`: into a training step) and fails; succeeds otherwise.
mlir::LogicalResult checkGraphLimits(mlir::ModuleOp module, bool train);

} // namespace mpc

#endif // MPC_COMPILER_COMPILE_GRAPHLIMITS_H
