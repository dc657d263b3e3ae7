//===- Decompose.cpp - rewrite composite mpg ops into simpler ones --------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// One rewrite pattern per composite op, applied as a partial dialect
// conversion: the composites are illegal, every other op is left as it is
// (no folding, no dead-code removal), and each composite's parts are built
// where it stood.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

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
  /// Mean over `axes` keeping them, in x's type.
  Value meanKeep(Value x, llvm::ArrayRef<int64_t> axes) {
    return b.create<ReduceMeanOp>(loc, x, b.getDenseI64ArrayAttr(axes), /*keepdim=*/true);
  }
  /// Sum over `axes` (none: x itself).
  Value sum(Value x, llvm::ArrayRef<int64_t> axes) {
    if (axes.empty())
      return x;
    return b.create<ReduceSumOp>(loc, x, b.getDenseI64ArrayAttr(axes), /*keepdim=*/false);
  }

private:
  OpBuilder &b;
  Location loc;
};

/// Replaces `op`, each of its results by the value paired with it.
void replaceResults(PatternRewriter &rewriter, Operation *op,
                    llvm::ArrayRef<std::pair<Value, Value>> replacements) {
  llvm::SmallVector<Value> values;
  for (Value result : op->getResults()) {
    auto found =
        llvm::find_if(replacements, [&](const auto &pair) { return pair.first == result; });
    assert(found != replacements.end() && "every result is replaced");
    values.push_back(found->second);
  }
  rewriter.replaceOp(op, values);
}

void decomposeMseLoss(MseLossOp op, PatternRewriter &rewriter) {
  OpBuilder &builder = rewriter;
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
  rewriter.replaceOp(op, loss);
}

void decomposeGlobalAvgPool(GlobalAvgPoolOp op, PatternRewriter &rewriter) {
  OpBuilder &builder = rewriter;
  Emitter e(builder, op.getLoc());
  rewriter.replaceOp(op, e.reduceMean(op.getOperand(), {2, 3}, /*keepDims=*/false, op.getType()));
}

void decomposeBatchNorm(BatchNormOp op, PatternRewriter &rewriter) {
  OpBuilder &builder = rewriter;
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

  replaceResults(
      rewriter, op,
      {{op.getResult(), y}, {op.getNewRunningMean(), newMean}, {op.getNewRunningVar(), newVar}});
}

/// The type normalisation gradients compute in: f32, or f64 for f64 data.
Type normComputeType(Type elem) {
  return elem.isF64() ? elem : Float32Type::get(elem.getContext());
}

/// With xhat = (x - mean) * invstd over `normAxes` and g = dy * gamma:
/// dx = invstd * (g - mean(g) - xhat * mean(g * xhat)) over `normAxes`.
/// Returns {dx, xhat} in the compute type.
std::pair<Value, Value> normGradInput(Emitter &e, Value x, Value g, llvm::ArrayRef<int64_t> normAxes,
                                      double eps) {
  Type elem = llvm::cast<RankedTensorType>(x.getType()).getElementType();
  Value centred = e.sub(x, e.meanKeep(x, normAxes));
  Value var = e.meanKeep(e.mul(centred, centred), normAxes);
  Value invStd = e.rsqrt(e.add(var, e.scalar(elem, eps)));
  Value xhat = e.mul(centred, invStd);
  Value inner = e.sub(e.sub(g, e.meanKeep(g, normAxes)), e.mul(xhat, e.meanKeep(e.mul(g, xhat), normAxes)));
  return {e.mul(invStd, inner), xhat};
}

void decomposeLayerNormGrad(LayerNormGradOp op, PatternRewriter &rewriter) {
  OpBuilder &builder = rewriter;
  Emitter e(builder, op.getLoc());
  auto xType = op.getInput().getType();
  Type elem = normComputeType(xType.getElementType());
  int64_t rank = xType.getRank(), axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += rank;
  auto leadRange = llvm::seq<int64_t>(0, axis);
  auto normRange = llvm::seq<int64_t>(axis, rank);
  llvm::SmallVector<int64_t> leadAxes(leadRange.begin(), leadRange.end());
  llvm::SmallVector<int64_t> normAxes(normRange.begin(), normRange.end());
  Value x = e.castTo(op.getInput(), elem), dy = e.castTo(op.getGradOutput(), elem);
  Value gamma = e.castTo(op.getGamma(), elem);
  auto [dx, xhat] = normGradInput(e, x, e.mul(dy, gamma), normAxes, op.getEps().convertToDouble());
  Type paramElem = op.getGamma().getType().getElementType();
  Value gradInput = e.castTo(dx, xType.getElementType());
  Value gradGamma = e.castTo(e.sum(e.mul(dy, xhat), leadAxes), paramElem);
  Value gradBeta = e.castTo(e.sum(dy, leadAxes), paramElem);
  replaceResults(rewriter, op,
                 {{op.getGradInput(), gradInput},
                  {op.getGradGamma(), gradGamma},
                  {op.getGradBeta(), gradBeta}});
}

void decomposeBatchNormGrad(BatchNormGradOp op, PatternRewriter &rewriter) {
  OpBuilder &builder = rewriter;
  Emitter e(builder, op.getLoc());
  auto xType = op.getInput().getType();
  Type elem = normComputeType(xType.getElementType());
  int64_t rank = xType.getRank(), channels = xType.getDimSize(1);
  llvm::SmallVector<int64_t> axes, statShape(rank, 1);
  for (int64_t d = 0; d < rank; ++d)
    if (d != 1)
      axes.push_back(d);
  statShape[1] = channels;
  Value x = e.castTo(op.getInput(), elem), dy = e.castTo(op.getGradOutput(), elem);
  Value gamma = e.reshape(e.castTo(op.getGamma(), elem), statShape);
  auto [dx, xhat] = normGradInput(e, x, e.mul(dy, gamma), axes, op.getEps().convertToDouble());
  Type paramElem = op.getGamma().getType().getElementType();
  Value gradInput = e.castTo(dx, xType.getElementType());
  Value gradGamma = e.castTo(e.sum(e.mul(dy, xhat), axes), paramElem);
  Value gradBeta = e.castTo(e.sum(dy, axes), paramElem);
  replaceResults(rewriter, op,
                 {{op.getGradInput(), gradInput},
                  {op.getGradGamma(), gradGamma},
                  {op.getGradBeta(), gradBeta}});
}

/// The table gradient as a GEMM: onehot(ids)^T [V, N] x dy [N, D], with
/// onehot from comparing the ids against a constant [0, V) row.
void decomposeEmbeddingGrad(EmbeddingGradOp op, PatternRewriter &rewriter) {
  OpBuilder &builder = rewriter;
  Emitter e(builder, op.getLoc());
  auto ids = op.getIndices().getType();
  auto table = op.getType();
  int64_t n = ids.getNumElements(), vocab = table.getDimSize(0), dim = table.getDimSize(1);
  Type idElem = ids.getElementType();
  llvm::SmallVector<APInt> rows;
  for (int64_t v = 0; v < vocab; ++v)
    rows.push_back(APInt(idElem.getIntOrFloatBitWidth(), v));
  auto rowType = RankedTensorType::get({1, vocab}, idElem);
  Value iota = builder.create<ConstantOp>(op.getLoc(), DenseElementsAttr::get(rowType, rows));
  Value column = e.reshape(op.getIndices(), {n, 1});
  Value hits = builder.create<CompareOp>(op.getLoc(), ComparePredicate::EQ, column, iota);
  Type gradElem = op.getGradOutput().getType().getElementType();
  Value onehot = e.castTo(hits, gradElem);
  Value dy = e.reshape(op.getGradOutput(), {n, dim});
  Value grad = builder.create<MatmulOp>(op.getLoc(), table, onehot, dy, /*transpose_a=*/true,
                                        /*transpose_b=*/false);
  rewriter.replaceOp(op, grad);
}

/// p' = p - lr * update, with g' = g + wd * p and, with momentum,
/// v' = momentum * v + g' and update = v' (Nesterov: g' + momentum * v').
void decomposeSgd(SgdOp op, PatternRewriter &rewriter) {
  OpBuilder &builder = rewriter;
  Emitter e(builder, op.getLoc());
  Value p = op.getParam();
  Type elem = llvm::cast<RankedTensorType>(p.getType()).getElementType();
  Value g = e.castTo(op.getGrad(), elem);
  double wd = op.getWeightDecay().convertToDouble();
  if (wd != 0)
    g = e.add(g, e.mul(p, e.scalar(elem, wd)));
  Value update = g, next;
  double momentum = op.getMomentum().convertToDouble();
  if (Value v = op.getVelocity()) {
    next = e.add(e.mul(v, e.scalar(elem, momentum)), g);
    update = op.getNesterov() ? e.add(g, e.mul(next, e.scalar(elem, momentum))) : next;
  }
  Value lr = e.castTo(op.getLr(), elem);
  Value newParam = e.sub(p, e.mul(update, lr));
  if (next)
    replaceResults(rewriter, op, {{op.getNewParam(), newParam}, {op.getNewVelocity(), next}});
  else
    rewriter.replaceOp(op, newParam);
}

/// Adam (weight decay added to the gradient) and AdamW (decoupled: the
/// parameter shrinks by lr * wd first); bias correction from the step count
/// t: m_hat = m' / (1 - beta1^t), v_hat = v' / (1 - beta2^t).
template <typename AdamLike>
void decomposeAdam(AdamLike op, bool decoupled, PatternRewriter &rewriter) {
  OpBuilder &builder = rewriter;
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
  // Bias corrections 1 - beta^t in f64, then rounded: in f32, 1 - beta2^t
  // for beta2 near 1 would disagree with the (1 - beta2) of the moment
  // update by a relative 1e-4.
  Type f64 = Float64Type::get(op.getContext());
  Value t = e.castTo(op.getStep(), f64);
  Value one = e.scalar(f64, 1.0);
  Value correction1 = e.castTo(e.sub(one, e.pow(e.scalar(f64, beta1), t)), elem);
  Value correction2 = e.castTo(e.sub(one, e.pow(e.scalar(f64, beta2), t)), elem);
  Value denominator = e.add(e.sqrt(e.div(v, correction2)),
                            e.scalar(elem, op.getEps().convertToDouble()));
  Value step = e.mul(e.div(e.div(m, correction1), denominator), lr);
  Value base = p;
  if (wd != 0 && decoupled)
    base = e.sub(p, e.mul(p, e.mul(lr, e.scalar(elem, wd))));
  Value newParam = e.sub(base, step);
  replaceResults(rewriter, op,
                 {{op.getNewParam(), newParam}, {op.getNewM(), m}, {op.getNewV(), v}});
}

/// Partial sums a finite check of a large operand leaves for its second
/// stage: enough rows to spread the first over a GPU's multiprocessors.
constexpr int64_t kFiniteCheckPartials = 64;
/// Elements each partial sum adds at least: fewer would leave most of the
/// work to the second stage's one block.
constexpr int64_t kFiniteCheckPartialLength = 256;

/// The leading axes of `shape` whose sums a large operand's finite check
/// keeps in its first stage: the fewest that hold kFiniteCheckPartials
/// elements, when each partial sum then adds kFiniteCheckPartialLength
/// elements or more; 0 when there are none (one sum).
int64_t finiteCheckKeptAxes(llvm::ArrayRef<int64_t> shape) {
  int64_t partials = 1, total = ShapedType::getNumElements(shape);
  for (int64_t axis = 0; axis + 1 < static_cast<int64_t>(shape.size()); ++axis) {
    partials *= shape[axis];
    if (partials >= kFiniteCheckPartials)
      return partials > 0 && total / partials >= kFiniteCheckPartialLength ? axis + 1 : 0;
  }
  return 0;
}

/// all_finite: x * 0 is 0 for finite x and NaN for inf and NaN, so the sum
/// of all operands times 0 is NaN exactly when one element is not finite;
/// NaN is the one value not equal to itself. The per-operand sums are marked
/// `mpg.finite_check`: they are independent, and mpg-fuse puts them side by
/// side for one multi-tensor launch. An operand of at least
/// `splitElements` elements (0: none) is summed over its trailing axes
/// first (finiteCheckKeptAxes), and the marked sum adds those partial sums:
/// a sum of zeros and NaNs is the same in any order.
void decomposeAllFinite(AllFiniteOp op, int64_t splitElements, PatternRewriter &rewriter) {
  OpBuilder &builder = rewriter;
  Emitter e(builder, op.getLoc());
  Type f32 = builder.getF32Type();
  Value total;
  for (Value operand : op.getOperands()) {
    auto type = llvm::cast<RankedTensorType>(operand.getType());
    Value x = e.castTo(operand, f32);
    Value zeroed = e.mul(x, e.scalar(f32, 0.0));
    int64_t kept = splitElements > 0 && type.getNumElements() >= splitElements
                       ? finiteCheckKeptAxes(type.getShape())
                       : 0;
    if (kept > 0)
      zeroed = e.sum(zeroed, llvm::to_vector(llvm::seq<int64_t>(kept, type.getRank())));
    Value sum = e.sum(zeroed, llvm::to_vector(llvm::seq<int64_t>(0, kept ? kept : type.getRank())));
    if (auto reduce = sum.getDefiningOp<ReduceSumOp>())
      reduce->setAttr(mlir::mpg::kFiniteCheckAttr, builder.getUnitAttr());
    total = total ? e.add(total, sum) : sum;
  }
  Value finite = builder.create<CompareOp>(op.getLoc(), ComparePredicate::EQ, total, total);
  rewriter.replaceOp(op, finite);
}

/// update_loss_scale as rank-0 pointwise math (see the op's description).
void decomposeUpdateLossScale(UpdateLossScaleOp op, PatternRewriter &rewriter) {
  OpBuilder &builder = rewriter;
  Location loc = op.getLoc();
  Emitter e(builder, loc);
  Value scale = op.getScale(), count = op.getGoodSteps(), finite = op.getFinite();
  Type scaleType = llvm::cast<RankedTensorType>(scale.getType()).getElementType();
  Type countType = llvm::cast<RankedTensorType>(count.getType()).getElementType();
  auto integer = [&](int64_t value) {
    auto type = RankedTensorType::get({}, countType);
    return builder.create<ConstantOp>(
        loc, DenseElementsAttr::get(type, builder.getIntegerAttr(countType, value)));
  };
  auto select = [&](Value cond, Value a, Value b) -> Value {
    return builder.create<SelectOp>(loc, cond, a, b);
  };
  auto compare = [&](ComparePredicate predicate, Value a, Value b) -> Value {
    return builder.create<CompareOp>(loc, predicate, a, b);
  };
  Value zero = integer(0), one = integer(1);
  Value afterFinite = e.add(builder.create<MaximumOp>(loc, count, zero), one);
  Value afterOverflow = e.sub(builder.create<MinimumOp>(loc, count, zero), one);
  Value next = select(finite, afterFinite, afterOverflow);
  Value grow = compare(ComparePredicate::GE, next,
                       integer(static_cast<int64_t>(op.getGrowthInterval())));
  Value backOff =
      compare(ComparePredicate::LE, next, integer(-static_cast<int64_t>(op.getHysteresis())));
  Value grown = builder.create<MinimumOp>(
      loc, e.mul(scale, e.scalar(scaleType, op.getGrowthFactor().convertToDouble())),
      e.scalar(scaleType, op.getMaxScale().convertToDouble()));
  Value reduced = builder.create<MaximumOp>(
      loc, e.mul(scale, e.scalar(scaleType, op.getBackoffFactor().convertToDouble())),
      e.scalar(scaleType, op.getMinScale().convertToDouble()));
  Value newScale = select(grow, grown, select(backOff, reduced, scale));
  Value newGoodSteps = select(grow, zero, select(backOff, zero, next));
  replaceResults(rewriter, op,
                 {{op.getNewScale(), newScale}, {op.getNewGoodSteps(), newGoodSteps}});
}

/// The pattern of composite `OpT`: its decomposition, built in place.
template <typename OpT, void (*decompose)(OpT, PatternRewriter &)>
struct Decomposition : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op, PatternRewriter &rewriter) const override {
    decompose(op, rewriter);
    return success();
  }
};

void decomposeAdamOp(AdamOp op, PatternRewriter &rewriter) {
  decomposeAdam(op, /*decoupled=*/false, rewriter);
}
void decomposeAdamWOp(AdamWOp op, PatternRewriter &rewriter) {
  decomposeAdam(op, /*decoupled=*/true, rewriter);
}

/// all_finite's, with the pass's split option.
struct AllFiniteDecomposition : OpRewritePattern<AllFiniteOp> {
  AllFiniteDecomposition(MLIRContext *context, int64_t splitElements)
      : OpRewritePattern(context), splitElements(splitElements) {}
  LogicalResult matchAndRewrite(AllFiniteOp op, PatternRewriter &rewriter) const override {
    decomposeAllFinite(op, splitElements, rewriter);
    return success();
  }
  int64_t splitElements;
};

struct MpgDecomposePass : mpc::impl::MpgDecomposeBase<MpgDecomposePass> {
  using MpgDecomposeBase::MpgDecomposeBase;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<Decomposition<MseLossOp, decomposeMseLoss>,
                 Decomposition<GlobalAvgPoolOp, decomposeGlobalAvgPool>,
                 Decomposition<BatchNormOp, decomposeBatchNorm>,
                 Decomposition<BatchNormGradOp, decomposeBatchNormGrad>,
                 Decomposition<LayerNormGradOp, decomposeLayerNormGrad>,
                 Decomposition<EmbeddingGradOp, decomposeEmbeddingGrad>,
                 Decomposition<SgdOp, decomposeSgd>, Decomposition<AdamOp, decomposeAdamOp>,
                 Decomposition<AdamWOp, decomposeAdamWOp>,
                 Decomposition<UpdateLossScaleOp, decomposeUpdateLossScale>>(context);
    patterns.add<AllFiniteDecomposition>(context, finiteCheckSplitElements);
    ConversionTarget target(*context);
    target.addLegalDialect<MpgDialect>();
    target.addIllegalOp<MseLossOp, GlobalAvgPoolOp, BatchNormOp, SgdOp, AdamOp, AdamWOp,
                        LayerNormGradOp, BatchNormGradOp, EmbeddingGradOp, AllFiniteOp,
                        UpdateLossScaleOp>();
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
