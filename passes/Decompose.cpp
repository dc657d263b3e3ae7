//===- Decompose.cpp - rewrite composite mpg ops into simpler ones --------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mpc {
#define GEN_PASS_DEF_MPGDECOMPOSE
#include "passes/Passes.h.inc"
} // namespace mpc

using namespace mlir;
using namespace mlir::mpg;

namespace {

/// Builds the pointwise arithmetic of a decomposition, keeping the element
/// type of the values it combines.
class Emitter {
public:
  Emitter(OpBuilder &builder, Location loc) : b(builder), loc(loc) {}

  /// A rank-0 constant of `elementType`.
  Value scalar(Type elementType, double value) {
    auto type = RankedTensorType::get({}, elementType);
    return b.create<ConstantOp>(loc, DenseElementsAttr::get(type, b.getFloatAttr(elementType, value)));
  }
  Value add(Value x, Value y) { return b.create<AddOp>(loc, x, y); }
  Value sub(Value x, Value y) { return b.create<SubOp>(loc, x, y); }
  Value mul(Value x, Value y) { return b.create<MulOp>(loc, x, y); }
  Value rsqrt(Value x) { return b.create<RsqrtOp>(loc, x); }
  Value div(Value x, Value y) { return b.create<DivOp>(loc, x, y); }
  Value sqrt(Value x) { return b.create<SqrtOp>(loc, x); }
  Value pow(Value x, Value y) { return b.create<PowOp>(loc, x, y); }
  Value reshape(Value x, llvm::ArrayRef<int64_t> shape) {
    auto type = llvm::cast<RankedTensorType>(x.getType());
    return b.create<ReshapeOp>(loc, RankedTensorType::get(shape, type.getElementType()), x);
  }
  /// `x` converted to element type `elementType` (no op when it has it).
  Value castTo(Value x, Type elementType) {
    auto type = llvm::cast<RankedTensorType>(x.getType());
    if (type.getElementType() == elementType)
      return x;
    return b.create<CastOp>(loc, type.clone(elementType), x);
  }
  Value reduceMean(Value x, llvm::ArrayRef<int64_t> axes, bool keepDims, Type resultType) {
    return b.create<ReduceMeanOp>(loc, resultType, x, b.getDenseI64ArrayAttr(axes), keepDims);
  }

private:
  OpBuilder &b;
  Location loc;
};

void decomposeMseLoss(MseLossOp op) {
  OpBuilder builder(op);
  Emitter e(builder, op.getLoc());
  Value diff = e.sub(op.getPrediction(), op.getTarget());
  Value squared = e.mul(diff, diff);
  auto type = llvm::cast<RankedTensorType>(squared.getType());
  Value loss;
  if (type.getRank() == 0) {
    loss = e.castTo(squared, op.getType().getElementType());
  } else {
    auto range = llvm::seq<int64_t>(0, type.getRank());
    llvm::SmallVector<int64_t> axes(range.begin(), range.end());
    loss = e.reduceMean(squared, axes, /*keepDims=*/false, op.getType());
  }
  op.replaceAllUsesWith(loss);
  op.erase();
}

void decomposeGlobalAvgPool(GlobalAvgPoolOp op) {
  OpBuilder builder(op);
  Emitter e(builder, op.getLoc());
  op.replaceAllUsesWith(e.reduceMean(op.getOperand(), {2, 3}, /*keepDims=*/false, op.getType()));
  op.erase();
}

void decomposeBatchNorm(BatchNormOp op) {
  OpBuilder builder(op);
  Emitter e(builder, op.getLoc());
  Value x = op.getOperand();
  auto xType = llvm::cast<RankedTensorType>(x.getType());
  // Statistics and the normalisation compute in fp32 (f64 stays f64): in
  // f16/bf16 the rounded mean would shift every centred value.
  Type elem = xType.getElementType().isF64() ? xType.getElementType()
                                             : Float32Type::get(op.getContext());
  x = e.castTo(x, elem);
  int64_t rank = xType.getRank(), channels = xType.getDimSize(1);

  llvm::SmallVector<int64_t> axes, statShape(rank, 1);
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == 1)
      continue;
    axes.push_back(d);
    count *= xType.getDimSize(d);
  }
  statShape[1] = channels;
  auto statType = RankedTensorType::get(statShape, elem);

  // Batch statistics (biased variance) and the normalised input.
  Value mean = e.reduceMean(x, axes, /*keepDims=*/true, statType);
  Value centred = e.sub(x, mean);
  Value var = e.reduceMean(e.mul(centred, centred), axes, /*keepDims=*/true, statType);
  Value invStd = e.rsqrt(e.add(var, e.scalar(elem, op.getEps().convertToDouble())));
  Value gamma = e.reshape(e.castTo(op.getGamma(), elem), statShape);
  Value beta = e.reshape(e.castTo(op.getBeta(), elem), statShape);
  Value y = e.add(e.mul(e.mul(centred, invStd), gamma), beta);
  y = e.castTo(y, op.getResult().getType().getElementType());

  // Running statistics: new = (1 - momentum) * old + momentum * batch, the
  // variance unbiased by count / (count - 1) as PyTorch does.
  double momentum = op.getMomentum().convertToDouble();
  Type runningElem = op.getRunningMean().getType().getElementType();
  Value batchMean = e.castTo(e.reshape(mean, {channels}), runningElem);
  // In the running statistics' type: in f16 the factor would round to 1.
  Value batchVar = e.castTo(e.reshape(var, {channels}), runningElem);
  if (count > 1)
    batchVar = e.mul(batchVar, e.scalar(runningElem, double(count) / double(count - 1)));
  auto update = [&](Value old, Value batch) {
    return e.add(e.mul(old, e.scalar(runningElem, 1.0 - momentum)),
                 e.mul(batch, e.scalar(runningElem, momentum)));
  };
  Value newMean = update(op.getRunningMean(), batchMean);
  Value newVar = update(op.getRunningVar(), batchVar);

  op.getResult().replaceAllUsesWith(y);
  op.getNewRunningMean().replaceAllUsesWith(newMean);
  op.getNewRunningVar().replaceAllUsesWith(newVar);
  op.erase();
}

/// p' = p - lr * update, with g' = g + wd * p and, with momentum,
/// v' = momentum * v + g' and update = v' (Nesterov: g' + momentum * v').
void decomposeSgd(SgdOp op) {
  OpBuilder builder(op);
  Emitter e(builder, op.getLoc());
  Value p = op.getParam();
  Type elem = llvm::cast<RankedTensorType>(p.getType()).getElementType();
  Value g = e.castTo(op.getGrad(), elem);
  double wd = op.getWeightDecay().convertToDouble();
  if (wd != 0)
    g = e.add(g, e.mul(p, e.scalar(elem, wd)));
  Value update = g;
  double momentum = op.getMomentum().convertToDouble();
  if (Value v = op.getVelocity()) {
    Value next = e.add(e.mul(v, e.scalar(elem, momentum)), g);
    op.getNewVelocity().replaceAllUsesWith(next);
    update = op.getNesterov() ? e.add(g, e.mul(next, e.scalar(elem, momentum))) : next;
  }
  Value lr = e.castTo(op.getLr(), elem);
  op.getNewParam().replaceAllUsesWith(e.sub(p, e.mul(update, lr)));
  op.erase();
}

/// Adam (weight decay added to the gradient) and AdamW (decoupled: the
/// parameter shrinks by lr * wd first); bias correction from the step count
/// t: m_hat = m' / (1 - beta1^t), v_hat = v' / (1 - beta2^t).
template <typename AdamLike>
void decomposeAdam(AdamLike op, bool decoupled) {
  OpBuilder builder(op);
  Emitter e(builder, op.getLoc());
  Value p = op.getParam();
  Type elem = llvm::cast<RankedTensorType>(p.getType()).getElementType();
  Value g = e.castTo(op.getGrad(), elem);
  Value lr = e.castTo(op.getLr(), elem);
  double wd = op.getWeightDecay().convertToDouble();
  double beta1 = op.getBeta1().convertToDouble(), beta2 = op.getBeta2().convertToDouble();
  if (wd != 0 && !decoupled)
    g = e.add(g, e.mul(p, e.scalar(elem, wd)));
  Value m = e.add(e.mul(op.getM(), e.scalar(elem, beta1)), e.mul(g, e.scalar(elem, 1 - beta1)));
  Value v = e.add(e.mul(op.getV(), e.scalar(elem, beta2)),
                  e.mul(e.mul(g, g), e.scalar(elem, 1 - beta2)));
  Value t = e.castTo(op.getStep(), elem);
  Value one = e.scalar(elem, 1.0);
  Value correction1 = e.sub(one, e.pow(e.scalar(elem, beta1), t));
  Value correction2 = e.sub(one, e.pow(e.scalar(elem, beta2), t));
  Value denominator = e.add(e.sqrt(e.div(v, correction2)),
                            e.scalar(elem, op.getEps().convertToDouble()));
  Value step = e.mul(e.div(e.div(m, correction1), denominator), lr);
  Value base = p;
  if (wd != 0 && decoupled)
    base = e.sub(p, e.mul(p, e.mul(lr, e.scalar(elem, wd))));
  op.getNewParam().replaceAllUsesWith(e.sub(base, step));
  op.getNewM().replaceAllUsesWith(m);
  op.getNewV().replaceAllUsesWith(v);
  op.erase();
}

struct MpgDecomposePass : mpc::impl::MpgDecomposeBase<MpgDecomposePass> {
  void runOnOperation() override {
    llvm::SmallVector<Operation *> targets;
    getOperation().walk([&](Operation *op) {
      if (llvm::isa<MseLossOp, GlobalAvgPoolOp, BatchNormOp, SgdOp, AdamOp, AdamWOp>(op))
        targets.push_back(op);
    });
    for (Operation *op : targets) {
      if (auto mse = llvm::dyn_cast<MseLossOp>(op))
        decomposeMseLoss(mse);
      else if (auto pool = llvm::dyn_cast<GlobalAvgPoolOp>(op))
        decomposeGlobalAvgPool(pool);
      else if (auto norm = llvm::dyn_cast<BatchNormOp>(op))
        decomposeBatchNorm(norm);
      else if (auto sgd = llvm::dyn_cast<SgdOp>(op))
        decomposeSgd(sgd);
      else if (auto adam = llvm::dyn_cast<AdamOp>(op))
        decomposeAdam(adam, /*decoupled=*/false);
      else
        decomposeAdam(llvm::cast<AdamWOp>(op), /*decoupled=*/true);
    }
  }
};

} // namespace
