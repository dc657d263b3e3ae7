//===- LowerPointwise.cpp - pointwise groups and reductions -----------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// A pointwise group becomes one mpk.pointwise kernel over its results'
// shape; a reduction group one mpk.reduce with the ops before the reduction
// as its prologue and those after it as its epilogue.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/ProgramLowering.h"

#include "passes/Conversion/ScalarLowering.h"
#include "passes/MemoryPlanning/MemoryPlanSupport.h"

#include "dialects/mpg/IR/MpgShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mpc::conversion;

LogicalResult ProgramLowering::lowerPointwise(FusionOp fusion) {
  Block &body = fusion.getBody().front();
  llvm::SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  auto yield = llvm::cast<YieldOp>(body.getTerminator());
  llvm::SmallVector<Value> outputs(yield.getValues());
  llvm::ArrayRef<int64_t> iteration = tensorTypeOf(outputs.front()).getShape();
  for (Value out : outputs)
    if (tensorTypeOf(out).getShape() != iteration)
      return fusion.emitError("a pointwise group's results must share one shape");
  llvm::SmallVector<Value> inputs = externalOperands(ops);
  auto identity = dimExprs(iteration.size(), ctx);
  llvm::SmallVector<Attribute> maps;
  llvm::SmallVector<Value> inBuffers, outBuffers;
  for (Value in : inputs) {
    inBuffers.push_back(bufferOf(in));
    maps.push_back(AffineMapAttr::get(
        broadcastMap(tensorTypeOf(in).getShape(), iteration, identity, iteration.size(), ctx)));
  }
  for (Value out : outputs) {
    outBuffers.push_back(bufferOf(out));
    maps.push_back(AffineMapAttr::get(AffineMap::getMultiDimIdentityMap(iteration.size(), ctx)));
  }
  auto kernel = b.create<mpk::PointwiseOp>(fusion.getLoc(), nextKernelName(), inBuffers, outBuffers,
                                           b.getDenseI64ArrayAttr(iteration), b.getArrayAttr(maps));
  // A group whose every result is written to persistent state is a
  // parameter's update: the code generator runs the consecutive updates of
  // a step as one multi-tensor launch.
  bool update = llvm::all_of(fusion.getResults(), [](Value result) {
    return !result.use_empty() && llvm::all_of(result.getUsers(), [](Operation *user) {
      return llvm::isa<StateWriteOp>(user);
    });
  });
  if (update)
    kernel->setAttr(mlir::mpk::kUpdateAttr, b.getUnitAttr());
  Block *block = new Block();
  kernel.getBody().push_back(block);
  IRMapping scalars;
  if (failed(emitScalarBody(block, inputs, ops, scalars)))
    return failure();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(block);
  yieldStored(fusion.getLoc(), outputs, scalars);
  return success();
}

LogicalResult ProgramLowering::lowerReduction(FusionOp fusion) {
  Block &body = fusion.getBody().front();
  Operation *anchor = mpc::reductionAnchor(fusion);
  // Prologue: the ops the reduction's operand depends on inside the group.
  llvm::SetVector<Operation *> prologue = mpc::opsComputing(body, anchor->getOperand(0));
  // Splat constants may serve both regions: each region gets its own copy.
  llvm::SmallVector<Operation *> prologueOps, epilogueOps;
  for (Operation &op : body.without_terminator()) {
    if (&op == anchor)
      continue;
    if (llvm::isa<ConstantOp>(op)) {
      bool inPrologue = false, inEpilogue = false;
      for (Operation *user : op.getUsers())
        (prologue.contains(user) ? inPrologue : inEpilogue) = true;
      if (inPrologue)
        prologueOps.push_back(&op);
      if (inEpilogue)
        epilogueOps.push_back(&op);
      continue;
    }
    (prologue.contains(&op) ? prologueOps : epilogueOps).push_back(&op);
  }

  Value operand = anchor->getOperand(0);
  llvm::ArrayRef<int64_t> iteration = tensorTypeOf(operand).getShape();
  llvm::ArrayRef<int64_t> axesAttr;
  bool keepDims = false;
  llvm::TypeSwitch<Operation *>(anchor).Case<ReduceSumOp, ReduceMeanOp, ReduceMaxOp>(
      [&](auto reduce) {
        axesAttr = reduce.getAxes();
        keepDims = reduce.getKeepdim();
      });
  llvm::SmallVector<int64_t> axes;
  std::string error;
  if (failed(normalizeAxes(axesAttr, iteration.size(), axes, error)))
    return anchor->emitError(error);
  unsigned outRank = iteration.size() - axes.size();

  // Dimension j of the reduction's result, as an expression of the output
  // space (the non-reduced iteration dimensions).
  llvm::ArrayRef<int64_t> resultShape = tensorTypeOf(anchor->getResult(0)).getShape();
  llvm::SmallVector<AffineExpr> resultExprs;
  unsigned outDim = 0;
  for (size_t d = 0; d < iteration.size(); ++d) {
    bool reduced = llvm::is_contained(axes, static_cast<int64_t>(d));
    if (reduced) {
      if (keepDims)
        resultExprs.push_back(getAffineConstantExpr(0, ctx));
      continue;
    }
    resultExprs.push_back(getAffineDimExpr(outDim++, ctx));
  }

  llvm::SmallVector<Value> prologueInputs = externalOperands(prologueOps);
  if (prologueOps.empty())
    prologueInputs = {operand};
  else if (!operand.getDefiningOp() || !prologue.contains(operand.getDefiningOp()))
    prologueInputs.push_back(operand);
  llvm::SmallVector<Value> epilogueInputs;
  for (Value v : externalOperands(epilogueOps))
    if (v != anchor->getResult(0))
      epilogueInputs.push_back(v);
  auto yield = llvm::cast<YieldOp>(body.getTerminator());
  llvm::SmallVector<Value> outputs(yield.getValues());

  auto identity = dimExprs(iteration.size(), ctx);
  llvm::SmallVector<Attribute> maps;
  llvm::SmallVector<Value> inBuffers, epiBuffers, outBuffers;
  for (Value in : prologueInputs) {
    inBuffers.push_back(bufferOf(in));
    maps.push_back(AffineMapAttr::get(
        broadcastMap(tensorTypeOf(in).getShape(), iteration, identity, iteration.size(), ctx)));
  }
  for (Value in : epilogueInputs) {
    epiBuffers.push_back(bufferOf(in));
    maps.push_back(AffineMapAttr::get(
        broadcastMap(tensorTypeOf(in).getShape(), resultShape, resultExprs, outRank, ctx)));
  }
  for (Value out : outputs) {
    outBuffers.push_back(bufferOf(out));
    maps.push_back(AffineMapAttr::get(
        broadcastMap(tensorTypeOf(out).getShape(), resultShape, resultExprs, outRank, ctx)));
  }
  mpk::ReduceKind kind =
      llvm::isa<ReduceMaxOp>(anchor) ? mpk::ReduceKind::Max : mpk::ReduceKind::Sum;
  auto kernel = b.create<mpk::ReduceOp>(fusion.getLoc(), nextKernelName(), kind, inBuffers,
                                        epiBuffers, outBuffers, b.getDenseI64ArrayAttr(iteration),
                                        b.getDenseI64ArrayAttr(axes), b.getArrayAttr(maps));
  // A finite check of the loss scaler (one scalar sum of a gradient times
  // zero, or of a large gradient's partial sums): the code generator runs
  // consecutive ones as one launch.
  if (mpc::isFiniteCheck(fusion))
    kernel->setAttr(mlir::mpk::kFiniteCheckAttr, b.getUnitAttr());

  IRMapping scalars;
  Block *pro = new Block();
  kernel.getPrologue().push_back(pro);
  if (failed(emitScalarBody(pro, prologueInputs, prologueOps, scalars)))
    return failure();
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(pro);
    b.create<mpk::YieldOp>(fusion.getLoc(), ValueRange{scalars.lookup(operand)});
  }
  Block *epi = new Block();
  kernel.getEpilogue().push_back(epi);
  Type accType = mpc::computeType(tensorTypeOf(operand).getElementType());
  Value acc = epi->addArgument(accType, fusion.getLoc());
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(epi);
    Value reduced = acc;
    if (llvm::isa<ReduceMeanOp>(anchor)) {
      int64_t count = 1;
      for (int64_t axis : axes)
        count *= iteration[axis];
      Value scale = b.create<arith::ConstantOp>(fusion.getLoc(), accType,
                                                b.getFloatAttr(accType, 1.0 / count));
      reduced = b.create<arith::MulFOp>(fusion.getLoc(), acc, scale);
    }
    reduced = mpc::convertScalar(b, fusion.getLoc(), reduced,
                                 tensorTypeOf(anchor->getResult(0)).getElementType(), false);
    scalars.map(anchor->getResult(0), reduced);
  }
  // The epilogue's scalars: the reduced value (mapped above) and its inputs.
  if (failed(emitScalarBody(epi, epilogueInputs, epilogueOps, scalars)))
    return failure();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(epi);
  yieldStored(fusion.getLoc(), outputs, scalars);
  return success();
}
