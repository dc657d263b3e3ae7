//===- PrecisionSupport.h - what the precision passes agree on --*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The notions that mpg-assign-precision, mpg-verify-precision,
// mpg-insert-loss-scaling, mpg-gradient-stats, mpg-accumulate-gradients and
// mpg-master-weights share: which ops carry a precision decision, where an
// optimizer update reads its gradient, and which state the updates write.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_PASSES_PRECISION_PRECISIONSUPPORT_H
#define MPC_PASSES_PRECISION_PRECISIONSUPPORT_H

#include "dialects/mpg/IR/MpgOps.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

namespace mpc::precision {

/// The element type of a tensor value (null for anything else).
inline mlir::Type elementOf(mlir::Value value) {
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(value.getType());
  return type ? type.getElementType() : mlir::Type();
}

inline bool isFloatValue(mlir::Value value) {
  mlir::Type element = elementOf(value);
  return element && llvm::isa<mlir::FloatType>(element);
}

/// Ops that are the graph's interface, its state or explicit casts: they
/// get no precision decision.
inline bool isStructural(mlir::Operation *op) {
  using namespace mlir::mpg;
  return llvm::isa<InputOp, ParamOp, ConstantOp, StateOp, OutputOp, StateWriteOp, MinimizeOp,
                   CastOp, FusionOp, YieldOp>(op);
}

/// Whether `op` has a precision decision to make: a float operand or result,
/// and none in f64 (reference runs and gradient checks stay as written).
inline bool needsDecision(mlir::Operation *op) {
  if (isStructural(op))
    return false;
  bool hasFloat = llvm::any_of(op->getOperands(), isFloatValue) ||
                  llvm::any_of(op->getResults(), isFloatValue);
  auto isF64 = [](mlir::Value v) { return isFloatValue(v) && elementOf(v).isF64(); };
  return hasFloat && !llvm::any_of(op->getOperands(), isF64) &&
         !llvm::any_of(op->getResults(), isF64);
}

/// The gradient operand of an optimizer update (sgd, adam, adamw), or null.
inline mlir::OpOperand *gradientOperand(mlir::Operation *op) {
  using namespace mlir::mpg;
  if (auto sgd = llvm::dyn_cast<SgdOp>(op))
    return &sgd.getGradMutable();
  if (auto adam = llvm::dyn_cast<AdamOp>(op))
    return &adam.getGradMutable();
  if (auto adamw = llvm::dyn_cast<AdamWOp>(op))
    return &adamw.getGradMutable();
  return nullptr;
}

/// The state writes of the optimizer's step in `body`: those of a value
/// computed from an update's results (parameters, optimizer state, and what
/// follows from them, such as a cast back to a parameter's declared type)
/// and the step counter's ("optimizer.step"). State that the forward pass
/// writes (batch-norm statistics) is not among them.
inline llvm::SmallVector<mlir::mpg::StateWriteOp>
optimizerStateWrites(mlir::Block &body, llvm::ArrayRef<mlir::Operation *> updates) {
  using namespace mlir::mpg;
  llvm::DenseSet<mlir::Value> fromUpdates;
  for (mlir::Operation *update : updates)
    for (mlir::Value result : update->getResults())
      fromUpdates.insert(result);
  for (mlir::Operation &op : body)
    if (llvm::any_of(op.getOperands(), [&](mlir::Value v) { return fromUpdates.contains(v); }))
      for (mlir::Value result : op.getResults())
        fromUpdates.insert(result);
  llvm::SmallVector<StateWriteOp> writes;
  for (auto write : body.getOps<StateWriteOp>()) {
    auto state = write.getState().getDefiningOp<StateOp>();
    bool isCounter = state && state.getName() == "optimizer.step";
    if (isCounter || fromUpdates.contains(write.getValue()))
      writes.push_back(write);
  }
  return writes;
}

} // namespace mpc::precision

#endif // MPC_PASSES_PRECISION_PRECISIONSUPPORT_H
