//===- HostRowLayout.h - how a pointwise kernel's host form walks memory ---===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The host form of a pointwise kernel walks its iteration space in runs of
// elements that are contiguous in memory: the trailing iteration dimensions
// that every buffer either walks as its own trailing dimensions, in order
// (the run is contiguous in it), or does not use at all (one element for
// the whole run: a broadcast). Broadcasting maps (dimensions, or 0 for a
// size-1 dimension) always allow the last dimension alone; whole tensors of
// one shape collapse to a single run. A run is contiguous in a buffer when
// the buffer's dimensions inside it, all but the outermost, have the
// iteration's extents. The run's outermost dimension may be offset by a
// constant (a slice's start), which moves where the run starts.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_CODEGEN_HOSTROWLAYOUT_H
#define MPC_COMPILER_CODEGEN_HOSTROWLAYOUT_H

#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace mpc {

struct HostRowLayout {
  /// Iteration dimensions [firstRunDim, rank) form a run.
  unsigned firstRunDim = 0;
  /// Elements of a run (the product of those dimensions).
  int64_t runLength = 1;
  /// Runs (the product of the other dimensions).
  int64_t runs = 1;
  /// Per buffer: whether it advances by one element along the run (else it
  /// holds one element for the whole run).
  llvm::SmallVector<bool> advances;
};

/// The dimension of `expr` when it is a dimension, or a dimension plus a
/// constant >= 0 (d2 + 384: a slice's offset); nothing otherwise.
std::optional<unsigned> offsetDimension(mlir::AffineExpr expr);

/// The longest trailing run over `iteration` for row-major buffers of
/// `shapes` indexed by `maps` (one of each per buffer; maps over the
/// iteration dimensions); std::nullopt when not even the last dimension
/// qualifies (an indexing that is not a broadcast), or for a 0-d iteration
/// space. A buffer larger than the iteration space (a slice of it, as a
/// concatenation writes) keeps runs within its rows.
std::optional<HostRowLayout> hostRowLayout(llvm::ArrayRef<int64_t> iteration,
                                           llvm::ArrayRef<mlir::AffineMap> maps,
                                           llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes);

} // namespace mpc

#endif // MPC_COMPILER_CODEGEN_HOSTROWLAYOUT_H
