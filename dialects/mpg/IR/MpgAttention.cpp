//===- MpgAttention.cpp - the fused attention ops -------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The verifiers of mpg.attention and mpg.attention_grad, and the VJP of
// mpg.attention (its gradient op). The shapes: queries [..., Sq, D], keys
// and values [..., Sk, D], an optional additive mask [Sq, Sk], the result
// [..., Sq, D] and the row log-sum-exp [..., Sq].
//
//===----------------------------------------------------------------------===//

#include "dialects/mpg/IR/MpgOps.h"
#include "dialects/mpg/IR/MpgShapes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>

using namespace mlir;
using namespace mlir::mpg;

namespace {

RankedTensorType typeOf(Value v) { return llvm::cast<RankedTensorType>(v.getType()); }

/// The element type of the log-sum-exp: f32 whatever the queries' type.
Type lseElementFor(Type query) { return Float32Type::get(query.getContext()); }

/// Checks the operands and the attributes shared by the forward op and its
/// gradient, and gives the result's and the log-sum-exp's shapes.
LogicalResult verifyAttentionOperands(Operation *op, Value query, Value key, Value value,
                                      Value mask, double scale, bool causal,
                                      llvm::SmallVectorImpl<int64_t> &lseShape) {
  RankedTensorType q = typeOf(query), k = typeOf(key), v = typeOf(value);
  if (q.getRank() < 3 || k.getRank() != q.getRank() || v.getRank() != q.getRank())
    return op->emitOpError() << "expects queries, keys and values of one rank >= 3 ([..., S, D]), "
                                "got "
                             << formatShape(q.getShape()) << ", " << formatShape(k.getShape())
                             << " and " << formatShape(v.getShape());
  int64_t rank = q.getRank();
  auto batch = [&](RankedTensorType t) { return t.getShape().drop_back(2); };
  if (batch(k) != batch(q) || batch(v) != batch(q))
    return op->emitOpError() << "expects identical batch dimensions, got "
                             << formatShape(q.getShape()) << ", " << formatShape(k.getShape())
                             << " and " << formatShape(v.getShape());
  int64_t queries = q.getDimSize(rank - 2), keys = k.getDimSize(rank - 2);
  int64_t head = q.getDimSize(rank - 1);
  if (k.getDimSize(rank - 1) != head || v.getDimSize(rank - 1) != head)
    return op->emitOpError() << "expects queries, keys and values of one head size, got " << head
                             << ", " << k.getDimSize(rank - 1) << " and " << v.getDimSize(rank - 1);
  if (v.getDimSize(rank - 2) != keys)
    return op->emitOpError() << "expects as many values as keys, got " << v.getDimSize(rank - 2)
                             << " and " << keys;
  if (queries == 0 || keys == 0 || head == 0)
    return op->emitOpError() << "expects at least one query, key and head element, got "
                             << formatShape(q.getShape()) << " and " << formatShape(k.getShape());
  if (k.getElementType() != q.getElementType() || v.getElementType() != q.getElementType())
    return op->emitOpError() << "expects queries, keys and values of one element type, got "
                             << q.getElementType() << ", " << k.getElementType() << " and "
                             << v.getElementType();
  if (!std::isfinite(scale) || scale == 0)
    return op->emitOpError() << "expects a finite, nonzero scale, got " << scale;
  if (causal && queries != keys)
    return op->emitOpError() << "expects as many queries as keys when causal, got " << queries
                             << " and " << keys;
  if (mask) {
    llvm::ArrayRef<int64_t> shape = typeOf(mask).getShape();
    if (shape != llvm::ArrayRef<int64_t>{queries, keys})
      return op->emitOpError() << "expects a mask of shape " << formatShape({queries, keys})
                               << " ([queries, keys]), got " << formatShape(shape);
  }
  lseShape.assign(batch(q).begin(), batch(q).end());
  lseShape.push_back(queries);
  return success();
}

LogicalResult expectType(Operation *op, llvm::StringRef what, Type actual, Type expected) {
  if (actual == expected)
    return success();
  return op->emitOpError() << "expects " << what << " of type " << expected << ", got " << actual;
}

} // namespace

bool mlir::mpg::dependsOnTrainableParameters(Value value) {
  llvm::SetVector<Operation *> seen;
  llvm::SmallVector<Value> work{value};
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || !seen.insert(def))
      continue;
    if (auto param = llvm::dyn_cast<ParamOp>(def))
      if (param.isTrainable())
        return true;
    llvm::append_range(work, def->getOperands());
  }
  return false;
}

LogicalResult AttentionOp::verify() {
  llvm::SmallVector<int64_t> lseShape;
  if (failed(verifyAttentionOperands(*this, getQuery(), getKey(), getValue(), getMask(),
                                     getScale().convertToDouble(), getCausal(), lseShape)))
    return failure();
  RankedTensorType q = typeOf(getQuery());
  if (failed(expectType(*this, "the result", getResult().getType(), q)))
    return failure();
  return expectType(*this, "the log-sum-exp", getLse().getType(),
                    RankedTensorType::get(lseShape, lseElementFor(q.getElementType())));
}

LogicalResult AttentionGradOp::verify() {
  llvm::SmallVector<int64_t> lseShape;
  if (failed(verifyAttentionOperands(*this, getQuery(), getKey(), getValue(), getMask(),
                                     getScale().convertToDouble(), getCausal(), lseShape)))
    return failure();
  RankedTensorType q = typeOf(getQuery());
  if (failed(expectType(*this, "the forward result", getResult().getType(), q)) ||
      failed(expectType(*this, "the result's gradient", getGradResult().getType(), q)) ||
      failed(expectType(*this, "the log-sum-exp", getLse().getType(),
                        RankedTensorType::get(lseShape, lseElementFor(q.getElementType())))))
    return failure();
  if (failed(expectType(*this, "grad_query", getGradQuery().getType(), q)) ||
      failed(expectType(*this, "grad_key", getGradKey().getType(), getKey().getType())))
    return failure();
  return expectType(*this, "grad_value", getGradValue().getType(), getValue().getType());
}

// The log-sum-exp is the backward pass's statistic, not a value a loss
// reads: it has no gradient rule here, nor has the mask (a constant or an
// input in every model mpc imports; one computed from parameters is refused
// rather than given a silent zero gradient).
LogicalResult AttentionOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                    SmallVectorImpl<Value> &out) {
  if (grads[1])
    return emitOpError("has no gradient rule for its log-sum-exp result; only the attention "
                       "output may reach the loss");
  if (getMask() && dependsOnTrainableParameters(getMask()))
    return emitOpError("has a mask computed from trainable parameters, which gets no gradient "
                       "here; freeze them or write the mask out as an add before a softmax");
  Value dy = grads[0];
  if (typeOf(dy).getElementType() != typeOf(getResult()).getElementType())
    dy = builder.create<CastOp>(getLoc(), getResult().getType(), dy);
  auto grad = builder.create<AttentionGradOp>(
      getLoc(), TypeRange{getQuery().getType(), getKey().getType(), getValue().getType()},
      getQuery(), getKey(), getValue(), getResult(), getLse(), dy, getMask(), getScaleAttr(),
      getCausalAttr());
  out.assign({grad.getGradQuery(), grad.getGradKey(), grad.getGradValue()});
  if (getMask())
    out.push_back(Value());
  return success();
}
