//===- MemoryPlanSupport.h - what memory planning asks of a graph -*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The byte size of a buffer, and what the passes after fusion ask of fusion
// groups (multi-tensor runs, a reduction's anchor and prologue), in one
// place.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_PASSES_MEMORYPLANNING_MEMORYPLANSUPPORT_H
#define MPC_PASSES_MEMORYPLANNING_MEMORYPLANSUPPORT_H

#include "dialects/mpg/IR/MpgOps.h"

#include "mlir/IR/Types.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace mpc {

// The attributes that record the memory plan are the dialect's
// (mlir::mpg::kArenaOffsetsAttr and the others, declared in
// dialects/mpg/IR/MpgBase.td).

/// The value whose storage `value` uses: a reshape is a view of its
/// operand's storage, so its readers keep that storage live.
mlir::Value storageRoot(mlir::Value value);

/// Bytes of the storage of a statically shaped tensor or memref (i1 takes a
/// byte per element); at least 1.
int64_t bufferBytes(mlir::Type tensorType);

/// Bytes of scratch memory a fusion group needs while it runs (0 for none):
/// im2col columns for a convolution, per-row losses for a cross-entropy,
/// the GEMM columns of a convolution's input gradient, the columns and
/// per-image partial sums of its filter gradient (at kScratchPartAlignment).
int64_t scratchBytes(mlir::mpg::FusionOp fusion);

/// Parts of one group's scratch memory start at multiples of this.
inline constexpr int64_t kScratchPartAlignment = 256;

/// A pointwise group whose every result is written to persistent state: a
/// parameter's update. Consecutive ones run as one multi-tensor launch, so
/// the planner keeps what any of them reads live until the last of them.
bool isParameterUpdate(mlir::mpg::FusionOp fusion);

/// The runs of two or more consecutive parameter updates among the fusion
/// groups of `body`, in order (each run is one multi-tensor launch).
llvm::SmallVector<llvm::SmallVector<mlir::mpg::FusionOp>> parameterUpdateRuns(mlir::Block &body);

/// A finite check of the loss scaler: a reduction group of one operand (a
/// gradient, or a large gradient's partial sums) and one scalar result whose reduction
/// mpg-decompose marked `mpg.finite_check` (not the group that combines the checks). Consecutive
/// ones run as one multi-tensor launch too.
bool isFiniteCheck(mlir::mpg::FusionOp fusion);

/// The reduce_sum / reduce_mean / reduce_max of a reduction group (its one
/// anchor); null for a group of another kind.
mlir::Operation *reductionAnchor(mlir::mpg::FusionOp fusion);

/// The ops of `body` that `values` depend on within it, found backwards
/// from them (in that order, not the block's). A reduction group's
/// prologue is those of its anchor's operand.
llvm::SetVector<mlir::Operation *> opsComputing(mlir::Block &body, mlir::ValueRange values);

/// The runs of two or more consecutive parameter updates, and of two or
/// more consecutive finite checks, in order: each is one launch, and what
/// any member reads stays live until the last member.
llvm::SmallVector<llvm::SmallVector<mlir::mpg::FusionOp>> multiTensorRuns(mlir::Block &body);

} // namespace mpc

#endif // MPC_PASSES_MEMORYPLANNING_MEMORYPLANSUPPORT_H
