//===- LowerSingle.cpp - groups of one op ---------------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// A 'row' or 'single' group lowers its one op: softmax, layer norm and the
// cross-entropy to row kernels, pooling to window kernels, an embedding to a
// gather, attention to its fused kernels (two for its gradient), a dropout
// to its own kernel, transpose, slices and concat to copy kernels, an
// all-reduce to the runtime's collective step (after a copy unless in place), and a
// convolution's gradients to GEMMs (LowerGemm.cpp).
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/ProgramLowering.h"

#include "passes/Conversion/ScalarLowering.h"

#include "passes/MemoryPlanning/MemoryPlanSupport.h"

#include "dialects/mpg/IR/MpgShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mpc::conversion;

static mpk::AllReduceKind kindOf(AllReduceKind kind) {
  switch (kind) {
  case AllReduceKind::Sum:
    return mpk::AllReduceKind::Sum;
  case AllReduceKind::Mean:
    return mpk::AllReduceKind::Mean;
  case AllReduceKind::Max:
    return mpk::AllReduceKind::Max;
  }
  llvm_unreachable("unknown all-reduce kind");
}

LogicalResult ProgramLowering::lowerSingle(FusionOp fusion, Operation *op) {
  if (llvm::isa<SoftmaxOp, LogSoftmaxOp, LayerNormOp, SoftmaxCrossEntropyOp,
                SoftmaxCrossEntropyGradOp>(op))
    return lowerRowOp(fusion, op);
  if (llvm::isa<MaxPool2DOp, AvgPool2DOp, MaxPool2DGradOp, AvgPool2DGradOp, EmbeddingOp>(op))
    return lowerWindowOp(op);
  if (auto dropout = llvm::dyn_cast<DropoutOp>(op)) {
    if (!dropout.isKeyed())
      return op->emitError("an unkeyed dropout reached code generation: run mpg-seed-dropout "
                           "(training) or mpg-remove-dropout (forward-only programs) first");
    b.create<mpk::DropoutOp>(op->getLoc(), nextKernelName(), bufferOf(dropout.getInput()),
                             bufferOf(dropout.getKey()[0]), bufferOf(dropout.getKey()[1]),
                             bufferOf(dropout.getResult()), dropout.getRateAttr(),
                             b.getI64IntegerAttr(*dropout.getStream()));
    return success();
  }
  if (llvm::isa<TransposeOp, SliceOp, SliceGradOp, ConcatOp>(op))
    return lowerCopy(op);
  if (auto reduce = llvm::dyn_cast<AllReduceOp>(op)) {
    // In place when the memory plan put the result over its operand.
    Value target = bufferOf(reduce.getResult());
    copyUnlessThere(op->getLoc(), bufferOf(reduce.getOperand()), target);
    b.create<mpk::AllReduceOp>(op->getLoc(), kindOf(reduce.getReduce()), target);
    return success();
  }
  if (llvm::isa<AttentionOp, AttentionGradOp>(op))
    return lowerAttention(fusion, op);
  if (auto grad = llvm::dyn_cast<Conv2DGradInputOp>(op))
    return lowerConvGradInput(fusion, grad);
  if (auto grad = llvm::dyn_cast<Conv2DGradFilterOp>(op))
    return lowerConvGradFilter(fusion, grad);
  if (llvm::isa<MseLossOp, GlobalAvgPoolOp, BatchNormOp, SgdOp, AdamOp, AdamWOp, AllFiniteOp,
                UpdateLossScaleOp, LayerNormGradOp, BatchNormGradOp, EmbeddingGradOp>(op))
    return op->emitError() << "'" << op->getName()
                           << "' must be decomposed before code generation (run mpg-decompose)";
  return op->emitError() << "'" << op->getName() << "' has no kernel in the code generator";
}

LogicalResult ProgramLowering::lowerRowOp(FusionOp fusion, Operation *op) {
  Location loc = op->getLoc();
  auto bufferOfResult = [&](unsigned i) { return bufferOf(op->getResult(i)); };
  if (llvm::isa<SoftmaxOp, LogSoftmaxOp>(op)) {
    auto type = tensorTypeOf(op->getOperand(0));
    int64_t axis;
    std::string error;
    int64_t rawAxis = llvm::isa<SoftmaxOp>(op) ? llvm::cast<SoftmaxOp>(op).getAxis()
                                               : llvm::cast<LogSoftmaxOp>(op).getAxis();
    (void)normalizeAxis(rawAxis, type.getRank(), axis, error);
    b.create<mpk::SoftmaxOp>(loc, nextKernelName(), bufferOf(op->getOperand(0)), bufferOfResult(0),
                             product(type.getShape().take_front(axis)), type.getDimSize(axis),
                             product(type.getShape().drop_front(axis + 1)),
                             llvm::isa<LogSoftmaxOp>(op));
    return success();
  }
  if (auto norm = llvm::dyn_cast<LayerNormOp>(op)) {
    auto type = tensorTypeOf(norm.getOperand());
    int64_t axis;
    std::string error;
    (void)normalizeAxis(static_cast<int64_t>(norm.getAxis()), type.getRank(), axis, error);
    b.create<mpk::LayerNormOp>(loc, nextKernelName(), bufferOf(norm.getOperand()),
                               bufferOf(norm.getGamma()), bufferOf(norm.getBeta()),
                               bufferOfResult(0), product(type.getShape().take_front(axis)),
                               product(type.getShape().drop_front(axis)), norm.getEps());
    return success();
  }
  if (auto xent = llvm::dyn_cast<SoftmaxCrossEntropyOp>(op)) {
    auto logits = xent.getLogits().getType();
    int64_t rows = logits.getDimSize(0), cols = logits.getDimSize(1);
    Type lossType = mpc::computeType(logits.getElementType());
    FailureOr<Value> scratchBuffer = scratch(fusion, lossType, {rows});
    if (failed(scratchBuffer))
      return failure();
    Value losses = *scratchBuffer;
    b.create<mpk::CrossEntropyOp>(loc, nextKernelName(), bufferOf(xent.getLogits()),
                                  bufferOf(xent.getLabels()), losses, rows, cols);
    // The mean over rows.
    sumOverFirstDim(loc, losses, bufferOfResult(0), {rows}, lossType, 1.0 / rows);
    return success();
  }
  if (auto grad = llvm::dyn_cast<SoftmaxCrossEntropyGradOp>(op)) {
    auto logits = grad.getLogits().getType();
    b.create<mpk::CrossEntropyGradOp>(loc, nextKernelName(), bufferOf(grad.getLogits()),
                                      bufferOf(grad.getLabels()), bufferOf(grad.getGradLoss()),
                                      bufferOfResult(0), logits.getDimSize(0),
                                      logits.getDimSize(1));
    return success();
  }
  llvm_unreachable("lowerSingle sends row ops only");
}

LogicalResult ProgramLowering::lowerAttention(FusionOp fusion, Operation *op) {
  Location loc = op->getLoc();
  auto query = tensorTypeOf(op->getOperand(0)), key = tensorTypeOf(op->getOperand(1));
  int64_t rank = query.getRank();
  int64_t batch = product(query.getShape().drop_back(2));
  int64_t queries = query.getDimSize(rank - 2), keys = key.getDimSize(rank - 2);
  int64_t head = query.getDimSize(rank - 1);
  auto bufferOrNull = [&](Value v) { return v ? bufferOf(v) : Value(); };
  if (auto attention = llvm::dyn_cast<AttentionOp>(op)) {
    // (a result nothing reads is written to scratch: the log-sum-exp, then
    // the output, as mpc::scratchBytes counts them)
    Value lse = bufferOf(attention.getLse()), out = bufferOf(attention.getResult());
    int64_t at = 0;
    if (!lse) {
      RankedTensorType type = attention.getLse().getType();
      FailureOr<Value> unread = scratch(fusion, b.getF32Type(), type.getShape());
      if (failed(unread))
        return failure();
      lse = *unread;
      at = static_cast<int64_t>(
          llvm::alignTo(type.getNumElements() * 4, mpc::kScratchPartAlignment));
    }
    if (!out) {
      RankedTensorType type = attention.getResult().getType();
      FailureOr<Value> unread = scratch(fusion, type.getElementType(), type.getShape(), at);
      if (failed(unread))
        return failure();
      out = *unread;
    }
    b.create<mpk::AttentionOp>(loc, nextKernelName(), bufferOf(attention.getQuery()),
                               bufferOf(attention.getKey()), bufferOf(attention.getValue()),
                               bufferOrNull(attention.getMask()), out, lse, batch, queries, keys,
                               head, attention.getScale(), attention.getCausal());
    return success();
  }
  // Two kernels, each writing only its own rows: the keys' and values'
  // gradients, then the queries'; each only when its results are read (a
  // gradient read without the other of its kernel is written beside one
  // in scratch).
  auto grad = llvm::cast<AttentionGradOp>(op);
  Value q = bufferOf(grad.getQuery()), k = bufferOf(grad.getKey()), v = bufferOf(grad.getValue());
  Value y = bufferOf(grad.getResult()), lse = bufferOf(grad.getLse());
  Value dy = bufferOf(grad.getGradResult()), mask = bufferOrNull(grad.getMask());
  Value dk = bufferOf(grad.getGradKey()), dv = bufferOf(grad.getGradValue());
  if (dk || dv) {
    Value unread = dk ? grad.getGradValue() : grad.getGradKey();
    if (!dk || !dv) {
      auto type = llvm::cast<RankedTensorType>(unread.getType());
      FailureOr<Value> written = scratch(fusion, type.getElementType(), type.getShape());
      if (failed(written))
        return failure();
      (dk ? dv : dk) = *written;
    }
    b.create<mpk::AttentionGradKeyValueOp>(loc, nextKernelName(), q, k, v, y, lse, dy, mask, dk, dv,
                                           batch, queries, keys, head, grad.getScale(),
                                           grad.getCausal());
  }
  if (Value dq = bufferOf(grad.getGradQuery()))
    b.create<mpk::AttentionGradQueryOp>(loc, nextKernelName(), q, k, v, y, lse, dy, mask, dq, batch,
                                        queries, keys, head, grad.getScale(), grad.getCausal());
  return success();
}

LogicalResult ProgramLowering::lowerWindowOp(Operation *op) {
  Location loc = op->getLoc();
  auto bufferOfResult = [&](unsigned i) { return bufferOf(op->getResult(i)); };
  if (auto pool = llvm::dyn_cast<MaxPool2DOp>(op)) {
    b.create<mpk::Pool2DOp>(loc, nextKernelName(), mpk::PoolKind::Max, bufferOf(pool.getOperand()),
                            bufferOfResult(0), pool.getKernel(),
                            b.getDenseI64ArrayAttr(pool.getStrideValues()),
                            b.getDenseI64ArrayAttr(pool.getPaddingValues()), false);
    return success();
  }
  if (auto pool = llvm::dyn_cast<AvgPool2DOp>(op)) {
    b.create<mpk::Pool2DOp>(
        loc, nextKernelName(), mpk::PoolKind::Avg, bufferOf(pool.getOperand()), bufferOfResult(0),
        pool.getKernel(), b.getDenseI64ArrayAttr(pool.getStrideValues()),
        b.getDenseI64ArrayAttr(pool.getPaddingValues()), pool.getCountIncludePad());
    return success();
  }
  if (auto grad = llvm::dyn_cast<MaxPool2DGradOp>(op)) {
    b.create<mpk::Pool2DGradOp>(loc, nextKernelName(), mpk::PoolKind::Max,
                                bufferOf(grad.getGradOutput()), bufferOf(grad.getInput()),
                                bufferOfResult(0), grad.getKernel(),
                                b.getDenseI64ArrayAttr(grad.getStrideValues()),
                                b.getDenseI64ArrayAttr(grad.getPaddingValues()), false);
    return success();
  }
  if (auto grad = llvm::dyn_cast<AvgPool2DGradOp>(op)) {
    b.create<mpk::Pool2DGradOp>(
        loc, nextKernelName(), mpk::PoolKind::Avg, bufferOf(grad.getGradOutput()), Value(),
        bufferOfResult(0), grad.getKernel(), b.getDenseI64ArrayAttr(grad.getStrideValues()),
        b.getDenseI64ArrayAttr(grad.getPaddingValues()), grad.getCountIncludePad());
    return success();
  }
  if (auto embedding = llvm::dyn_cast<EmbeddingOp>(op)) {
    b.create<mpk::GatherOp>(loc, nextKernelName(), bufferOf(embedding.getTable()),
                            bufferOf(embedding.getIndices()), bufferOfResult(0));
    return success();
  }
  llvm_unreachable("lowerSingle sends pooling and embeddings only");
}

LogicalResult ProgramLowering::lowerCopy(Operation *op) {
  Location loc = op->getLoc();
  auto bufferOfResult = [&](unsigned i) { return bufferOf(op->getResult(i)); };
  if (auto transpose = llvm::dyn_cast<TransposeOp>(op)) {
    // result[d] = input[p] with p[perm[i]] = d[i].
    llvm::ArrayRef<int64_t> perm = transpose.getPerm();
    llvm::SmallVector<AffineExpr> exprs(perm.size());
    for (auto [i, p] : llvm::enumerate(perm))
      exprs[p] = getAffineDimExpr(i, ctx);
    unsigned rank = perm.size();
    copyKernel(loc, bufferOf(transpose.getOperand()), bufferOfResult(0),
               transpose.getType().getShape(), AffineMap::get(rank, 0, exprs, ctx),
               AffineMap::getMultiDimIdentityMap(rank, ctx));
    return success();
  }
  if (auto slice = llvm::dyn_cast<SliceOp>(op)) {
    llvm::SmallVector<AffineExpr> exprs;
    llvm::SmallVector<int64_t, 4> step = slice.getStepValues();
    for (auto [d, start] : llvm::enumerate(slice.getStart()))
      exprs.push_back(getAffineDimExpr(d, ctx) * step[d] + start);
    unsigned rank = exprs.size();
    copyKernel(loc, bufferOf(slice.getOperand()), bufferOfResult(0), slice.getType().getShape(),
               AffineMap::get(rank, 0, exprs, ctx), AffineMap::getMultiDimIdentityMap(rank, ctx));
    return success();
  }
  if (auto grad = llvm::dyn_cast<SliceGradOp>(op)) {
    // Zeros everywhere, then the gradient copied into the sliced positions.
    Value out = bufferOfResult(0);
    unsigned rank = grad.getType().getRank();
    llvm::ArrayRef<int64_t> shape = grad.getType().getShape();
    auto fill = b.create<mpk::PointwiseOp>(
        loc, nextKernelName(), ValueRange{}, ValueRange{out}, b.getDenseI64ArrayAttr(shape),
        b.getArrayAttr({AffineMapAttr::get(AffineMap::getMultiDimIdentityMap(rank, ctx))}));
    Block *block = new Block();
    fill.getBody().push_back(block);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToEnd(block);
      Type elem = mpc::computeType(grad.getType().getElementType());
      Value zero = llvm::isa<FloatType>(elem)
                       ? b.create<arith::ConstantOp>(loc, elem, b.getFloatAttr(elem, 0.0))
                       : b.create<arith::ConstantOp>(loc, elem, b.getIntegerAttr(elem, 0));
      b.create<mpk::YieldOp>(loc, ValueRange{zero});
    }
    llvm::SmallVector<AffineExpr> exprs;
    llvm::SmallVector<int64_t, 4> step = grad.getStepValues();
    for (auto [d, start] : llvm::enumerate(grad.getStart()))
      exprs.push_back(getAffineDimExpr(d, ctx) * step[d] + start);
    copyKernel(loc, bufferOf(grad.getGradOutput()), out, grad.getGradOutput().getType().getShape(),
               AffineMap::getMultiDimIdentityMap(rank, ctx), AffineMap::get(rank, 0, exprs, ctx));
    return success();
  }
  if (auto concat = llvm::dyn_cast<ConcatOp>(op)) {
    int64_t axis;
    std::string error;
    unsigned rank = concat.getType().getRank();
    (void)normalizeAxis(static_cast<int64_t>(concat.getAxis()), rank, axis, error);
    int64_t offset = 0;
    for (Value input : concat.getInputs()) {
      auto shape = tensorTypeOf(input).getShape();
      auto exprs = dimExprs(rank, ctx);
      exprs[axis] = exprs[axis] + offset;
      copyKernel(loc, bufferOf(input), bufferOfResult(0), shape,
                 AffineMap::getMultiDimIdentityMap(rank, ctx), AffineMap::get(rank, 0, exprs, ctx));
      offset += shape[axis];
    }
    return success();
  }
  llvm_unreachable("lowerSingle sends copies only");
}
