//===- MpgVjp.cpp - VJP rules of the mpg ops ------------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// One buildVjp per differentiable op: the gradient of each operand from the
// gradients of the results, written with mpg ops so that the backward pass
// goes through the same fusion and code generation as the forward pass.
// Where an operand was broadcast, its gradient is summed over the broadcast
// dimensions. Ops with no expression in other ops use the gradient ops of
// the dialect (conv2d_grad_input, softmax_cross_entropy_grad, ...).
//
//===----------------------------------------------------------------------===//

#include "dialects/mpg/IR/MpgOps.h"
#include "dialects/mpg/IR/MpgShapes.h"

#include "mlir/IR/Builders.h"

#include <cmath>

using namespace mlir;
using namespace mlir::mpg;

#include "dialects/mpg/IR/MpgInterfaces.cpp.inc"

namespace {

RankedTensorType typeOf(Value v) { return llvm::cast<RankedTensorType>(v.getType()); }

bool isFloatTensor(Value v) { return llvm::isa<FloatType>(typeOf(v).getElementType()); }

/// Builds the mpg ops of gradient formulas at one location.
class Grad {
public:
  Grad(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  /// A rank-0 constant of `like`'s element type.
  Value scalar(Value like, double value) {
    Type elem = typeOf(like).getElementType();
    auto type = RankedTensorType::get({}, elem);
    return b.create<ConstantOp>(loc, DenseElementsAttr::get(type, b.getFloatAttr(elem, value)));
  }
  /// A zero for `select`s that pick between a gradient and nothing: a
  /// rank-0 constant, which select broadcasts (no zero tensor is stored).
  Value zerosLike(Value like) { return scalar(like, 0.0); }
  Value add(Value x, Value y) { return b.create<AddOp>(loc, x, y); }
  Value sub(Value x, Value y) { return b.create<SubOp>(loc, x, y); }
  Value mul(Value x, Value y) { return b.create<MulOp>(loc, x, y); }
  Value div(Value x, Value y) { return b.create<DivOp>(loc, x, y); }
  Value neg(Value x) { return b.create<NegOp>(loc, x); }
  Value scaled(Value x, double factor) { return mul(x, scalar(x, factor)); }
  Value select(Value c, Value x, Value y) { return b.create<SelectOp>(loc, c, x, y); }
  Value compare(ComparePredicate p, Value x, Value y) {
    return b.create<CompareOp>(loc, p, x, y);
  }
  Value reshape(Value x, llvm::ArrayRef<int64_t> shape) {
    if (typeOf(x).getShape() == shape)
      return x;
    return b.create<ReshapeOp>(loc, typeOf(x).clone(shape), x);
  }
  Value broadcast(Value x, RankedTensorType to) {
    if (typeOf(x).getShape() == to.getShape())
      return x;
    return b.create<BroadcastToOp>(loc, to.clone(typeOf(x).getElementType()), x);
  }
  Value castTo(Value x, Type elem) {
    if (typeOf(x).getElementType() == elem)
      return x;
    return b.create<CastOp>(loc, typeOf(x).clone(elem), x);
  }
  Value reduceSum(Value x, llvm::ArrayRef<int64_t> axes, bool keepDims) {
    return b.create<ReduceSumOp>(loc, x, b.getDenseI64ArrayAttr(axes), keepDims);
  }

  /// Sums `grad` (of a broadcast result's shape) down to `shape`: over the
  /// leading dimensions `shape` lacks and the ones where it has size 1.
  Value unbroadcast(Value grad, RankedTensorType target) {
    llvm::ArrayRef<int64_t> from = typeOf(grad).getShape(), to = target.getShape();
    if (from == to)
      return castTo(grad, target.getElementType());
    size_t lead = from.size() - to.size();
    llvm::SmallVector<int64_t> axes;
    for (size_t d = 0; d < from.size(); ++d)
      if (d < lead || (to[d - lead] == 1 && from[d] != 1))
        axes.push_back(d);
    Value summed = axes.empty() ? grad : reduceSum(grad, axes, /*keepDims=*/true);
    return castTo(reshape(summed, to), target.getElementType());
  }

  OpBuilder &b;
  Location loc;
};

/// The result gradient of a single-result op, cast to the result's type.
Value resultGrad(ValueRange grads) { return grads[0]; }

/// The gradients of op(A) x op(B) with respect to a and b (see the
/// derivation in terms of A' = op(a), B' = op(b): dA' = dy B'^T,
/// dB' = A'^T dy, then transposed back when a or b was).
template <typename MatmulLike>
void matmulGrads(Grad &g, MatmulLike op, Value dy, llvm::SmallVectorImpl<Value> &out) {
  Value a = op.getLhs(), b = op.getRhs();
  bool ta = op.getTransposeA(), tb = op.getTransposeB();
  auto mm = [&](Value x, Value y, bool tx, bool ty, Value like) -> Value {
    Value r = g.b.create<MatmulLike>(g.loc, x, y, tx, ty);
    return g.castTo(r, typeOf(like).getElementType());
  };
  Value dyIn = g.castTo(dy, typeOf(a).getElementType());
  Value da = !ta ? (tb ? mm(dyIn, b, false, false, a) : mm(dyIn, b, false, true, a))
                 : (tb ? mm(b, dyIn, true, true, a) : mm(b, dyIn, false, true, a));
  Value db = !tb ? (ta ? mm(a, dyIn, false, false, b) : mm(a, dyIn, true, false, b))
                 : (ta ? mm(dyIn, a, true, true, b) : mm(dyIn, a, true, false, b));
  out.assign({da, db});
}

/// The reduced axes of a reduction op, normalised.
llvm::SmallVector<int64_t> reducedAxes(Operation *op, int64_t rank) {
  auto attr = llvm::cast<DenseI64ArrayAttr>(op->getAttr("axes"));
  llvm::SmallVector<int64_t> axes;
  std::string error;
  (void)normalizeAxes(attr.asArrayRef(), rank, axes, error);
  return axes;
}

/// `grad` of a reduction's result, broadcast back over `input`'s shape.
Value expandReduced(Grad &g, Value grad, Value input, llvm::ArrayRef<int64_t> axes) {
  llvm::SmallVector<int64_t> kept(typeOf(input).getShape());
  for (int64_t a : axes)
    kept[a] = 1;
  return g.broadcast(g.reshape(grad, kept), typeOf(input));
}

int64_t axisOf(Operation *op, int64_t rank) {
  int64_t axis;
  std::string error;
  (void)normalizeAxis(static_cast<int64_t>(llvm::cast<IntegerAttr>(op->getAttr("axis")).getInt()),
                      rank, axis, error);
  return axis;
}

} // namespace

//===----------------------------------------------------------------------===//
// Pointwise
//===----------------------------------------------------------------------===//

#define MPG_UNARY_VJP(OpClass, body)                                                      \
  LogicalResult OpClass::buildVjp(OpBuilder &builder, ValueRange grads,                   \
                                  SmallVectorImpl<Value> &out) {                          \
    Grad g(builder, getLoc());                                                            \
    Value dy = grads[0], x = getOperand(), y = getResult();                               \
    (void)y;                                                                              \
    out.assign({body});                                                                   \
    return success();                                                                     \
  }

MPG_UNARY_VJP(NegOp, g.neg(dy))
MPG_UNARY_VJP(AbsOp, g.select(g.compare(ComparePredicate::GT, x, g.scalar(x, 0)), dy,
                              g.select(g.compare(ComparePredicate::LT, x, g.scalar(x, 0)),
                                       g.neg(dy), g.zerosLike(dy))))
MPG_UNARY_VJP(ExpOp, g.mul(dy, y))
MPG_UNARY_VJP(LogOp, g.div(dy, x))
MPG_UNARY_VJP(SqrtOp, g.div(g.scaled(dy, 0.5), y))
MPG_UNARY_VJP(RsqrtOp, g.mul(g.scaled(dy, -0.5), g.mul(g.mul(y, y), y)))
MPG_UNARY_VJP(TanhOp, g.mul(dy, g.sub(g.scalar(y, 1.0), g.mul(y, y))))
MPG_UNARY_VJP(SinOp, g.mul(dy, builder.create<CosOp>(getLoc(), x)))
MPG_UNARY_VJP(CosOp, g.neg(g.mul(dy, builder.create<SinOp>(getLoc(), x))))
MPG_UNARY_VJP(SigmoidOp, g.mul(g.mul(dy, y), g.sub(g.scalar(y, 1.0), y)))
// From the output (y > 0 exactly where x > 0): the pre-activation is then dead
// after the forward pass, so a producing GEMM takes the ReLU as its epilogue.
MPG_UNARY_VJP(ReluOp, g.select(g.compare(ComparePredicate::GT, y, g.scalar(y, 0)), dy,
                               g.zerosLike(dy)))
MPG_UNARY_VJP(LeakyReluOp, g.select(g.compare(ComparePredicate::GT, x, g.scalar(x, 0)), dy,
                                    g.scaled(dy, getAlpha().convertToDouble())))
MPG_UNARY_VJP(GeluOp, builder.create<GeluGradOp>(getLoc(), x, dy, getApproximate()))
#undef MPG_UNARY_VJP

LogicalResult AddOp::buildVjp(OpBuilder &builder, ValueRange grads, SmallVectorImpl<Value> &out) {
  Grad g(builder, getLoc());
  out.assign({g.unbroadcast(grads[0], typeOf(getLhs())), g.unbroadcast(grads[0], typeOf(getRhs()))});
  return success();
}

LogicalResult SubOp::buildVjp(OpBuilder &builder, ValueRange grads, SmallVectorImpl<Value> &out) {
  Grad g(builder, getLoc());
  out.assign({g.unbroadcast(grads[0], typeOf(getLhs())),
              g.unbroadcast(g.neg(grads[0]), typeOf(getRhs()))});
  return success();
}

LogicalResult MulOp::buildVjp(OpBuilder &builder, ValueRange grads, SmallVectorImpl<Value> &out) {
  Grad g(builder, getLoc());
  Value dy = grads[0];
  out.assign({g.unbroadcast(g.mul(dy, getRhs()), typeOf(getLhs())),
              g.unbroadcast(g.mul(dy, getLhs()), typeOf(getRhs()))});
  return success();
}

LogicalResult DivOp::buildVjp(OpBuilder &builder, ValueRange grads, SmallVectorImpl<Value> &out) {
  Grad g(builder, getLoc());
  Value dy = grads[0];
  // d(a/b)/db = -(a/b)/b.
  out.assign({g.unbroadcast(g.div(dy, getRhs()), typeOf(getLhs())),
              g.unbroadcast(g.neg(g.div(g.mul(dy, getResult()), getRhs())), typeOf(getRhs()))});
  return success();
}

LogicalResult PowOp::buildVjp(OpBuilder &builder, ValueRange grads, SmallVectorImpl<Value> &out) {
  Grad g(builder, getLoc());
  Value dy = grads[0], a = getLhs(), b = getRhs(), y = getResult();
  // d/da = b a^(b-1) = b y / a; d/db = y log(a).
  Value da = g.mul(dy, g.mul(b, builder.create<PowOp>(getLoc(), a, g.sub(b, g.scalar(b, 1.0)))));
  Value db = g.mul(dy, g.mul(y, builder.create<LogOp>(getLoc(), a)));
  out.assign({g.unbroadcast(da, typeOf(a)), g.unbroadcast(db, typeOf(b))});
  return success();
}

/// maximum/minimum: the gradient goes to the winning operand, the lhs on
/// ties.
template <typename MinMax>
static LogicalResult minMaxVjp(MinMax op, OpBuilder &builder, ValueRange grads,
                               SmallVectorImpl<Value> &out, ComparePredicate lhsWins) {
  Grad g(builder, op.getLoc());
  Value dy = grads[0];
  Value takeLhs = g.compare(lhsWins, op.getLhs(), op.getRhs());
  Value zero = g.zerosLike(dy);
  out.assign({g.unbroadcast(g.select(takeLhs, dy, zero), typeOf(op.getLhs())),
              g.unbroadcast(g.select(takeLhs, zero, dy), typeOf(op.getRhs()))});
  return success();
}

LogicalResult MaximumOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                  SmallVectorImpl<Value> &out) {
  return minMaxVjp(*this, builder, grads, out, ComparePredicate::GE);
}

LogicalResult MinimumOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                  SmallVectorImpl<Value> &out) {
  return minMaxVjp(*this, builder, grads, out, ComparePredicate::LE);
}

LogicalResult SelectOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                 SmallVectorImpl<Value> &out) {
  Grad g(builder, getLoc());
  Value dy = grads[0], zero = g.zerosLike(dy);
  out.assign({Value(), g.unbroadcast(g.select(getCond(), dy, zero), typeOf(getOnTrue())),
              g.unbroadcast(g.select(getCond(), zero, dy), typeOf(getOnFalse()))});
  return success();
}

LogicalResult CastOp::buildVjp(OpBuilder &builder, ValueRange grads, SmallVectorImpl<Value> &out) {
  Grad g(builder, getLoc());
  out.assign({isFloatTensor(getOperand()) ? g.castTo(grads[0], typeOf(getOperand()).getElementType())
                                          : Value()});
  return success();
}

LogicalResult BroadcastToOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                      SmallVectorImpl<Value> &out) {
  Grad g(builder, getLoc());
  out.assign({g.unbroadcast(grads[0], typeOf(getOperand()))});
  return success();
}

/// scale/unscale multiply by a loss scale that is not a parameter: only the
/// tensor operand gets a gradient, scaled the same way.
LogicalResult ScaleOp::buildVjp(OpBuilder &builder, ValueRange grads, SmallVectorImpl<Value> &out) {
  Grad g(builder, getLoc());
  Value dx = builder.create<ScaleOp>(getLoc(), grads[0], getScale());
  out.assign({g.castTo(dx, typeOf(getOperand()).getElementType()), Value()});
  return success();
}

LogicalResult UnscaleOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                  SmallVectorImpl<Value> &out) {
  Grad g(builder, getLoc());
  auto dx = builder.create<UnscaleOp>(getLoc(), grads[0], getScale());
  dx.setPowerOfTwoScale(getPowerOfTwoScale());
  out.assign({g.castTo(dx, typeOf(getOperand()).getElementType()), Value()});
  return success();
}

//===----------------------------------------------------------------------===//
// Dot-product
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                 SmallVectorImpl<Value> &out) {
  Grad g(builder, getLoc());
  matmulGrads(g, *this, grads[0], out);
  return success();
}

LogicalResult BatchMatmulOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                      SmallVectorImpl<Value> &out) {
  Grad g(builder, getLoc());
  matmulGrads(g, *this, grads[0], out);
  return success();
}

LogicalResult Conv2DOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                 SmallVectorImpl<Value> &out) {
  Grad g(builder, getLoc());
  Value dy = g.castTo(grads[0], getInput().getType().getElementType());
  Value dx = builder.create<Conv2DGradInputOp>(getLoc(), getInput().getType(), dy, getFilter(),
                                               getStrideAttr(), getPaddingAttr(),
                                               getDilationAttr(), getGroupsAttr());
  Value dw = builder.create<Conv2DGradFilterOp>(getLoc(), getFilter().getType(), getInput(), dy,
                                                getStrideAttr(), getPaddingAttr(),
                                                getDilationAttr(), getGroupsAttr());
  out.assign({dx, dw});
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions, normalisation, pooling
//===----------------------------------------------------------------------===//

LogicalResult ReduceSumOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                    SmallVectorImpl<Value> &out) {
  Grad g(builder, getLoc());
  Value x = getOperand();
  auto axes = reducedAxes(*this, typeOf(x).getRank());
  out.assign({g.castTo(expandReduced(g, grads[0], x, axes), typeOf(x).getElementType())});
  return success();
}

LogicalResult ReduceMeanOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                     SmallVectorImpl<Value> &out) {
  Grad g(builder, getLoc());
  Value x = getOperand();
  auto axes = reducedAxes(*this, typeOf(x).getRank());
  int64_t count = 1;
  for (int64_t a : axes)
    count *= typeOf(x).getDimSize(a);
  Value expanded = expandReduced(g, g.scaled(grads[0], 1.0 / count), x, axes);
  out.assign({g.castTo(expanded, typeOf(x).getElementType())});
  return success();
}

LogicalResult ReduceMaxOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                    SmallVectorImpl<Value> &out) {
  // The gradient is shared evenly by the elements equal to the maximum.
  Grad g(builder, getLoc());
  Value x = getOperand();
  auto axes = reducedAxes(*this, typeOf(x).getRank());
  Value atMax = g.compare(ComparePredicate::EQ, x, expandReduced(g, getResult(), x, axes));
  Value ones = g.select(atMax, g.broadcast(g.scalar(x, 1.0), typeOf(x)), g.zerosLike(x));
  // (`ones` has x's shape: the count below sums it.)
  Value count = g.reduceSum(ones, axes, /*keepDims=*/false);
  // The result gradient in the count's (keepdim-free) shape.
  Value dy = g.reshape(grads[0], typeOf(count).getShape());
  Value share = g.div(dy, count);
  out.assign({g.select(atMax, expandReduced(g, share, x, axes), g.zerosLike(x))});
  return success();
}

LogicalResult SoftmaxOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                  SmallVectorImpl<Value> &out) {
  // dx = y * (dy - sum(dy * y)) along the axis.
  Grad g(builder, getLoc());
  Value y = getResult(), dy = grads[0];
  int64_t axis = axisOf(*this, typeOf(y).getRank());
  Value dot = g.reduceSum(g.mul(dy, y), {axis}, /*keepDims=*/true);
  out.assign({g.castTo(g.mul(y, g.sub(dy, dot)), typeOf(getOperand()).getElementType())});
  return success();
}

LogicalResult LogSoftmaxOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                     SmallVectorImpl<Value> &out) {
  // dx = dy - exp(y) * sum(dy) along the axis.
  Grad g(builder, getLoc());
  Value y = getResult(), dy = grads[0];
  int64_t axis = axisOf(*this, typeOf(y).getRank());
  Value total = g.reduceSum(dy, {axis}, /*keepDims=*/true);
  Value dx = g.sub(dy, g.mul(builder.create<ExpOp>(getLoc(), y), total));
  out.assign({g.castTo(dx, typeOf(getOperand()).getElementType())});
  return success();
}

LogicalResult LayerNormOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                    SmallVectorImpl<Value> &out) {
  Grad g(builder, getLoc());
  Value dy = g.castTo(grads[0], typeOf(getOperand()).getElementType());
  auto op = builder.create<LayerNormGradOp>(
      getLoc(), TypeRange{getOperand().getType(), getGamma().getType(), getGamma().getType()},
      getOperand(), getGamma(), dy, getAxisAttr(), getEpsAttr());
  out.assign({op.getGradInput(), op.getGradGamma(), g.castTo(op.getGradBeta(),
                                                             typeOf(getBeta()).getElementType())});
  return success();
}

LogicalResult BatchNormOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                    SmallVectorImpl<Value> &out) {
  // Only the normalised output carries a gradient; the running statistics
  // are state.
  Grad g(builder, getLoc());
  if (!grads[0]) {
    out.assign(5, Value());
    return success();
  }
  Value dy = g.castTo(grads[0], typeOf(getOperand()).getElementType());
  auto op = builder.create<BatchNormGradOp>(
      getLoc(), TypeRange{getOperand().getType(), getGamma().getType(), getGamma().getType()},
      getOperand(), getGamma(), dy, getEpsAttr());
  out.assign({op.getGradInput(), op.getGradGamma(),
              g.castTo(op.getGradBeta(), typeOf(getBeta()).getElementType()), Value(), Value()});
  return success();
}

LogicalResult MaxPool2DOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                    SmallVectorImpl<Value> &out) {
  out.assign({builder.create<MaxPool2DGradOp>(getLoc(), getOperand().getType(), getOperand(),
                                              grads[0], getKernelAttr(), getStrideAttr(),
                                              getPaddingAttr())});
  return success();
}

LogicalResult AvgPool2DOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                    SmallVectorImpl<Value> &out) {
  out.assign({builder.create<AvgPool2DGradOp>(getLoc(), getOperand().getType(), grads[0],
                                              getKernelAttr(), getStrideAttr(), getPaddingAttr(),
                                              getCountIncludePadAttr())});
  return success();
}

LogicalResult GlobalAvgPoolOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                        SmallVectorImpl<Value> &out) {
  Grad g(builder, getLoc());
  Value x = getOperand();
  int64_t area = typeOf(x).getDimSize(2) * typeOf(x).getDimSize(3);
  Value expanded = expandReduced(g, g.scaled(grads[0], 1.0 / area), x, {2, 3});
  out.assign({g.castTo(expanded, typeOf(x).getElementType())});
  return success();
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxCrossEntropyOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                              SmallVectorImpl<Value> &out) {
  Grad g(builder, getLoc());
  Value dloss = g.castTo(grads[0], typeOf(getLogits()).getElementType());
  out.assign({builder.create<SoftmaxCrossEntropyGradOp>(getLoc(), getLogits().getType(),
                                                        getLogits(), getLabels(), dloss),
              Value()});
  return success();
}

LogicalResult MseLossOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                  SmallVectorImpl<Value> &out) {
  // d/dp mean((p - t)^2) = 2 (p - t) / n.
  Grad g(builder, getLoc());
  Value p = getPrediction(), t = getTarget();
  int64_t n = typeOf(p).getNumElements();
  Value dloss = g.castTo(grads[0], typeOf(p).getElementType());
  Value dp = g.mul(g.scaled(g.sub(p, t), 2.0 / n), dloss);
  out.assign({dp, g.neg(dp)});
  return success();
}

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                  SmallVectorImpl<Value> &out) {
  Grad g(builder, getLoc());
  out.assign({g.reshape(grads[0], typeOf(getOperand()).getShape())});
  return success();
}

LogicalResult TransposeOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                    SmallVectorImpl<Value> &out) {
  llvm::ArrayRef<int64_t> perm = getPerm();
  llvm::SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  out.assign({builder.create<TransposeOp>(getLoc(), grads[0],
                                          builder.getDenseI64ArrayAttr(inverse))});
  return success();
}

LogicalResult SliceOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                SmallVectorImpl<Value> &out) {
  out.assign({builder.create<SliceGradOp>(getLoc(), getOperand().getType(), grads[0],
                                          getStartAttr(), getLimitAttr(), getStepAttr())});
  return success();
}

LogicalResult ConcatOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                 SmallVectorImpl<Value> &out) {
  auto type = typeOf(getResult());
  int64_t axis = axisOf(*this, type.getRank());
  int64_t offset = 0;
  out.clear();
  for (Value input : getInputs()) {
    llvm::SmallVector<int64_t> start(type.getRank(), 0), limit(type.getShape());
    start[axis] = offset;
    offset += typeOf(input).getDimSize(axis);
    limit[axis] = offset;
    out.push_back(builder.create<SliceOp>(getLoc(), grads[0], builder.getDenseI64ArrayAttr(start),
                                          builder.getDenseI64ArrayAttr(limit),
                                          DenseI64ArrayAttr()));
  }
  return success();
}

// Dropout is linear once its mask is drawn: the gradient is the same dropout
// (same key, stream and rate, so the same mask) of the incoming gradient.
LogicalResult DropoutOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                  SmallVectorImpl<Value> &out) {
  if (!isKeyed())
    return emitOpError("has no key to draw its mask again for the gradient: run "
                       "mpg-seed-dropout before mpg-autodiff (the training pipeline does)");
  out.assign({builder.create<DropoutOp>(getLoc(), grads[0].getType(), grads[0], getKey(),
                                        getRateAttr(), getStreamAttr())});
  out.append(getKey().size(), Value());
  return success();
}

LogicalResult EmbeddingOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                    SmallVectorImpl<Value> &out) {
  out.assign({builder.create<EmbeddingGradOp>(getLoc(), getTable().getType(), getIndices(),
                                              grads[0]),
              Value()});
  return success();
}

//===----------------------------------------------------------------------===//
// Data parallelism
//===----------------------------------------------------------------------===//

// With the job's objective the sum of every rank's loss, each rank's operand
// reaches every rank's result: its gradient is the sum (for a sum) or the
// mean (for a mean, whose factor 1/N each term carries) of the incoming
// gradients of all ranks, the same all-reduce of the cotangent.
LogicalResult AllReduceOp::buildVjp(OpBuilder &builder, ValueRange grads,
                                    SmallVectorImpl<Value> &out) {
  if (getReduce() == AllReduceKind::Max)
    return emitOpError("max has no gradient here (only sum and mean all-reduces are "
                       "differentiated)");
  out.assign({builder.create<AllReduceOp>(getLoc(), getReduce(), grads[0])});
  return success();
}
