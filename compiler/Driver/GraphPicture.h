//===- GraphPicture.h - a training graph drawn by precision -----*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// For the HTML report: the ops of a graph after precision assignment as an
// SVG picture, each op a box coloured by the element type it stores (fp32,
// fp16, bf16, integers), drawn in columns by depth (an op one column right of
// its deepest operand), with lines from operands to users. A box's tooltip
// holds the op's decision: category, types, reason and source location.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DRIVER_GRAPHPICTURE_H
#define MPC_COMPILER_DRIVER_GRAPHPICTURE_H

#include "dialects/mpg/IR/MpgOps.h"

#include <string>

namespace mpc::driver {

/// The picture of `graph`, which carries mpg-assign-precision's decisions.
std::string graphPictureSvg(mlir::mpg::GraphOp graph);

/// The colour a storage type ("f32", "f16", ...) is drawn in.
std::string storageColor(const std::string &type);

} // namespace mpc::driver

#endif // MPC_COMPILER_DRIVER_GRAPHPICTURE_H
