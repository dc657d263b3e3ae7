//===- VerifyPrecision.cpp - check the mixed-precision decisions ----------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The contract mpg-assign-precision promises (see Passes.td), checked on its
// output so that a later change to the rules cannot silently break it.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/Precision/PrecisionSupport.h"

#include "mlir/IR/BuiltinAttributes.h"

namespace mpc {
#define GEN_PASS_DEF_MPGVERIFYPRECISION
#include "passes/Passes.h.inc"
} // namespace mpc

using namespace mlir;
using namespace mlir::mpg;
using namespace mpc::precision;

namespace {

/// The categories whose ops compute and store in fp32.
bool isFp32Category(llvm::StringRef category) {
  return category == "reduction" || category == "softmax" || category == "loss" ||
         category == "norm" || category == "sensitive" || category == "update";
}

/// A fused attention: queries, keys, values, the output and the gradients
/// in the storage type, the log-sum-exp in f32 (the mask as written).
LogicalResult verifyAttention(Operation *op, DictionaryAttr decision, Type storage) {
  auto accumulate = decision.getAs<TypeAttr>("accumulate");
  if (!accumulate || !accumulate.getValue().isF32())
    return op->emitOpError("is an attention that does not accumulate in f32");
  llvm::SmallVector<Value> lowValues, lse;
  if (auto attention = llvm::dyn_cast<AttentionOp>(op)) {
    lowValues = {attention.getQuery(), attention.getKey(), attention.getValue(),
                 attention.getResult()};
    lse = {attention.getLse()};
  } else if (auto grad = llvm::dyn_cast<AttentionGradOp>(op)) {
    lowValues = {grad.getQuery(),      grad.getKey(),       grad.getValue(),   grad.getResult(),
                 grad.getGradResult(), grad.getGradQuery(), grad.getGradKey(), grad.getGradValue()};
    lse = {grad.getLse()};
  } else {
    return op->emitOpError("is in category 'attention' but is no attention op");
  }
  for (Value value : lowValues)
    if (elementOf(value) != storage)
      return op->emitOpError() << "is an attention with a " << elementOf(value)
                               << " operand or result; its decision says " << storage;
  if (!elementOf(lse.front()).isF32())
    return op->emitOpError() << "is an attention whose log-sum-exp is " << elementOf(lse.front())
                             << ", not f32";
  return success();
}

LogicalResult verifyOp(Operation *op) {
  if (!needsDecision(op))
    return success();

  auto decision = op->getAttrOfType<DictionaryAttr>(mlir::mpg::kPrecisionDecisionAttr);
  if (!decision)
    return op->emitOpError("has no mpg.precision_decision (mpg-assign-precision did not "
                           "decide its precision)");
  auto category = decision.getAs<StringAttr>("category");
  auto storage = decision.getAs<TypeAttr>("storage");
  auto compute = decision.getAs<TypeAttr>("compute");
  if (!category || !storage || !compute || !decision.getAs<StringAttr>("reason"))
    return op->emitOpError("has an mpg.precision_decision without category, storage, compute "
                           "and reason");
  if (!compute.getValue().isF32())
    return op->emitOpError() << "computes in " << compute.getValue()
                             << "; mixed precision computes in f32";
  if (category.getValue() == "attention")
    return verifyAttention(op, decision, storage.getValue());
  for (Value result : op->getResults())
    if (isFloatValue(result) && elementOf(result) != storage.getValue())
      return op->emitOpError() << "stores its result in " << elementOf(result)
                               << " but its decision says " << storage.getValue();

  if (category.getValue() == "dot-product") {
    auto accumulate = decision.getAs<TypeAttr>("accumulate");
    if (!accumulate || !accumulate.getValue().isF32())
      return op->emitOpError("is a dot-product that does not accumulate in f32");
    Type operandType;
    for (Value operand : op->getOperands())
      if (isFloatValue(operand)) {
        if (operandType && elementOf(operand) != operandType)
          return op->emitOpError() << "is a dot-product with operands of two types, "
                                   << operandType << " and " << elementOf(operand);
        operandType = elementOf(operand);
      }
    return success();
  }
  // An op forced by an override or the allow/deny options has the types it
  // was given.
  if (isFp32Category(category.getValue()) && !decision.get("forced")) {
    llvm::SmallVector<Value> values(op->getOperands());
    llvm::append_range(values, op->getResults());
    for (Value value : values)
      if (isFloatValue(value) && !elementOf(value).isF32())
        return op->emitOpError() << "is in category '" << category.getValue()
                                 << "', which computes in f32, but has a "
                                 << elementOf(value) << " operand or result";
    return success();
  }
  if (category.getValue() != "follow" && !isFp32Category(category.getValue()))
    return op->emitOpError() << "has unknown precision category '" << category.getValue()
                             << "'";
  return success();
}

struct MpgVerifyPrecisionPass
    : public mpc::impl::MpgVerifyPrecisionBase<MpgVerifyPrecisionPass> {
  void runOnOperation() override {
    GraphOp graph = getOperation();
    if (!graph->hasAttr(mlir::mpg::kPrecisionSummaryAttr))
      return;
    bool failed = false;
    for (Operation &op : graph.getBody().front())
      failed |= mlir::failed(verifyOp(&op));
    if (failed)
      signalPassFailure();
  }
};

} // namespace
