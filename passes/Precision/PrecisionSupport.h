//===- PrecisionSupport.h - what the precision passes agree on --*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The notions that mpg-assign-precision, mpg-verify-precision,
// mpg-insert-loss-scaling, mpg-gradient-stats and mpg-master-weights share:
// which ops carry a precision decision, and where an optimizer update reads
// its gradient.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_PASSES_PRECISION_PRECISIONSUPPORT_H
#define MPC_PASSES_PRECISION_PRECISIONSUPPORT_H

#include "dialects/mpg/IR/MpgOps.h"

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

} // namespace mpc::precision

#endif // MPC_PASSES_PRECISION_PRECISIONSUPPORT_H
