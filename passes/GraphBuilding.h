//===- GraphBuilding.h - small mpg values the passes create -----*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Rank-0 constants and persistent state, as mpg-autodiff,
// mpg-insert-loss-scaling, mpg-clip-gradients and mpg-accumulate-gradients
// add them to a graph.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_PASSES_GRAPHBUILDING_H
#define MPC_PASSES_GRAPHBUILDING_H

#include "dialects/mpg/IR/MpgOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <optional>

namespace mpc {

/// A rank-0 mpg.constant of `element` (a float or integer type) holding
/// `value`.
inline mlir::Value scalarConstant(mlir::OpBuilder &b, mlir::Location loc, mlir::Type element,
                                  double value) {
  mlir::Attribute attr =
      llvm::isa<mlir::FloatType>(element)
          ? mlir::Attribute(b.getFloatAttr(element, value))
          : mlir::Attribute(b.getIntegerAttr(element, static_cast<int64_t>(value)));
  return b.create<mlir::mpg::ConstantOp>(
      loc, mlir::DenseElementsAttr::get(mlir::RankedTensorType::get({}, element), attr));
}

/// A rank-0 i1 mpg.constant.
inline mlir::Value booleanConstant(mlir::OpBuilder &b, mlir::Location loc, bool value) {
  return b.create<mlir::mpg::ConstantOp>(
      loc, mlir::DenseElementsAttr::get(mlir::RankedTensorType::get({}, b.getI1Type()),
                                        b.getBoolAttr(value)));
}

/// The name of a parameter or piece of state (names the passes' new state
/// must not take), or "" for another op.
inline llvm::StringRef persistentName(mlir::Operation &op) {
  if (auto state = llvm::dyn_cast<mlir::mpg::StateOp>(op))
    return state.getName();
  if (auto param = llvm::dyn_cast<mlir::mpg::ParamOp>(op))
    return param.getName();
  return "";
}

/// An mpg.state of `type` named `name`: zeros, or the constant `value`.
inline mlir::Value newState(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
                            mlir::Type type, std::optional<double> value = std::nullopt) {
  using namespace mlir::mpg;
  llvm::SmallVector<mlir::NamedAttribute> args;
  if (value)
    args.push_back(b.getNamedAttr("value", b.getF64FloatAttr(*value)));
  auto init = InitializerAttr::get(b.getContext(), value ? InitKind::Constant : InitKind::Zeros,
                                   b.getDictionaryAttr(args));
  return b.create<StateOp>(loc, type, name, init);
}

} // namespace mpc

#endif // MPC_PASSES_GRAPHBUILDING_H
