//===- ConvertMpgToMpk.cpp - planned mpg graphs to mpk programs -------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The pass, and the part of ProgramLowering (ProgramLowering.h) that walks
// a graph: its parameters, inputs and outputs, and each fusion group handed
// to the lowering of its family.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/ProgramLowering.h"

#include "passes/Conversion/ScalarLowering.h"
#include "passes/MemoryPlanning/MemoryPlanSupport.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/SetVector.h"

namespace mpc {
#define GEN_PASS_DEF_CONVERTMPGTOMPK
#include "passes/Passes.h.inc"
} // namespace mpc

using namespace mpc::conversion;

namespace mpc::conversion {

MemRefType memrefFor(Type tensor) {
  auto t = llvm::cast<RankedTensorType>(tensor);
  return MemRefType::get(t.getShape(), t.getElementType());
}

int64_t product(llvm::ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= d;
  return p;
}

AffineMap broadcastMap(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> target,
                       llvm::ArrayRef<AffineExpr> targetExprs, unsigned numDims,
                       MLIRContext *ctx) {
  llvm::SmallVector<AffineExpr> exprs;
  size_t offset = target.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i) {
    size_t j = i + offset;
    exprs.push_back(shape[i] == 1 && target[j] != 1 ? getAffineConstantExpr(0, ctx)
                                                     : targetExprs[j]);
  }
  return AffineMap::get(numDims, 0, exprs, ctx);
}

llvm::SmallVector<AffineExpr> dimExprs(unsigned n, MLIRContext *ctx) {
  llvm::SmallVector<AffineExpr> exprs;
  for (unsigned i = 0; i < n; ++i)
    exprs.push_back(getAffineDimExpr(i, ctx));
  return exprs;
}

} // namespace mpc::conversion

LogicalResult ProgramLowering::run() {
  auto arena = graph->getAttrOfType<IntegerAttr>(mlir::mpg::kArenaBytesAttr);
  auto persistent = graph->getAttrOfType<IntegerAttr>(mlir::mpg::kPersistentBytesAttr);
  if (!arena || !persistent)
    return graph.emitError("convert-mpg-to-mpk expects a planned graph (run mpg-fuse and "
                           "mpg-plan-memory first)");
  program = b.create<mpk::ProgramOp>(graph.getLoc(), graph.getSymName(), arena.getInt(),
                                     persistent.getInt());
  Block *block = new Block();
  program.getBody().push_back(block);
  b.setInsertionPointToEnd(block);

  llvm::SmallVector<StateWriteOp> stateWrites;
  for (Operation &op : graph.getBody().front()) {
    LogicalResult result = success();
    if (auto write = llvm::dyn_cast<StateWriteOp>(op))
      stateWrites.push_back(write);
    else
      result = lower(&op);
    if (failed(result))
      return failure();
  }
  // State writes are copies when the step ends, but for values already
  // written in their state's memory.
  for (StateWriteOp write : stateWrites)
    copyUnlessThere(write.getLoc(), buffers.lookup(write.getValue()),
                    buffers.lookup(write.getState()));
  return success();
}

LogicalResult ProgramLowering::lower(Operation *op) {
  Location loc = op->getLoc();
  int64_t persistentOffset = 0;
  if (llvm::isa<ParamOp, StateOp>(op) || (llvm::isa<ConstantOp>(op) && !op->use_empty())) {
    FailureOr<IntegerAttr> offset = planned<IntegerAttr>(op, mlir::mpg::kPersistentOffsetAttr);
    if (failed(offset))
      return failure();
    persistentOffset = offset->getInt();
  }
  if (auto input = llvm::dyn_cast<InputOp>(op)) {
    FailureOr<DenseI64ArrayAttr> offsets =
        planned<DenseI64ArrayAttr>(op, mlir::mpg::kArenaOffsetsAttr);
    if (failed(offsets))
      return failure();
    Value buf = buffer(loc, mpk::Space::Arena, (*offsets)[0], input.getType());
    b.create<mpk::InputOp>(loc, input.getName(), buf);
    buffers.map(input.getResult(), buf);
    return success();
  }
  if (auto param = llvm::dyn_cast<ParamOp>(op)) {
    Value buf = buffer(loc, mpk::Space::Persistent, persistentOffset, param.getType());
    b.create<mpk::ParamOp>(loc, param.getName(), buf, param.getInit(), /*state=*/false,
                           param.getFrozen(), /*cast_of=*/nullptr);
    buffers.map(param.getResult(), buf);
    return success();
  }
  if (auto state = llvm::dyn_cast<StateOp>(op)) {
    Value buf = buffer(loc, mpk::Space::Persistent, persistentOffset, state.getType());
    b.create<mpk::ParamOp>(loc, state.getName(), buf, state.getInit(), /*state=*/true,
                           /*frozen=*/true,
                           state->getAttrOfType<StringAttr>(mlir::mpg::kCastOfAttr));
    buffers.map(state.getResult(), buf);
    return success();
  }
  if (auto constant = llvm::dyn_cast<ConstantOp>(op)) {
    if (constant.use_empty())
      return success();
    Value buf = buffer(loc, mpk::Space::Persistent, persistentOffset, constant.getType());
    b.create<mpk::ConstantOp>(loc, buf, constant.getValue());
    buffers.map(constant.getResult(), buf);
    return success();
  }
  if (auto reshape = llvm::dyn_cast<ReshapeOp>(op)) {
    auto source = buffers.lookup(reshape.getOperand()).getDefiningOp<mpk::BufferOp>();
    buffers.map(reshape.getResult(),
                buffer(loc, source.getSpace(), source.getOffset(), reshape.getType()));
    return success();
  }
  if (auto output = llvm::dyn_cast<OutputOp>(op)) {
    b.create<mpk::OutputOp>(loc, output.getName(), buffers.lookup(output.getValue()));
    return success();
  }
  if (auto minimize = llvm::dyn_cast<MinimizeOp>(op)) {
    for (OutputOp output : graph.getBody().front().getOps<OutputOp>())
      if (output.getName() == "loss")
        return output.emitError("the loss of mpg.minimize is the output \"loss\"; this "
                                "graph already has an output with that name");
    b.create<mpk::OutputOp>(loc, "loss", buffers.lookup(minimize.getLoss()));
    return success();
  }
  if (auto fusion = llvm::dyn_cast<FusionOp>(op)) {
    Operation *last =
        program.getBody().front().empty() ? nullptr : &program.getBody().front().back();
    if (failed(lowerFusion(fusion)))
      return failure();
    tagFusedOps(fusion, last);
    return success();
  }
  return op->emitError() << "convert-mpg-to-mpk expects a fused graph; '" << op->getName()
                         << "' is outside any fusion group";
}

LogicalResult ProgramLowering::lowerFusion(FusionOp fusion) {
  FailureOr<DenseI64ArrayAttr> offsets =
      planned<DenseI64ArrayAttr>(fusion, mlir::mpg::kArenaOffsetsAttr);
  if (failed(offsets))
    return failure();
  if (offsets->size() != static_cast<int64_t>(fusion.getNumResults()))
    return fusion.emitError("expects one planned arena offset per result");
  auto inState = fusion->getAttrOfType<DenseI64ArrayAttr>(mlir::mpg::kStateOffsetsAttr);
  if (inState && inState.size() != static_cast<int64_t>(fusion.getNumResults()))
    return fusion.emitError("expects one planned state offset per result");
  for (auto [i, result] : llvm::enumerate(fusion.getResults())) {
    // A new state value written in the state's own memory, or an arena buffer.
    if (inState && inState[i] >= 0)
      buffers.map(result,
                  buffer(fusion.getLoc(), mpk::Space::Persistent, inState[i], result.getType()));
    else if ((*offsets)[i] >= 0)
      buffers.map(result,
                  buffer(fusion.getLoc(), mpk::Space::Arena, (*offsets)[i], result.getType()));
    else
      return fusion.emitError() << "result #" << i << " has neither an arena nor a state offset";
  }
  // Inside the group, block arguments stand for the group's inputs.
  Block &body = fusion.getBody().front();
  for (auto [arg, input] : llvm::zip(body.getArguments(), fusion.getInputs()))
    buffers.map(arg, buffers.lookup(input));
  auto yield = llvm::cast<YieldOp>(body.getTerminator());
  for (auto [yielded, result] : llvm::zip(yield.getValues(), fusion.getResults()))
    groupOutputs[yielded] = buffers.lookup(result);

  switch (fusion.getKind()) {
  case FusionKind::Pointwise:
    return lowerPointwise(fusion);
  case FusionKind::Reduction:
    return lowerReduction(fusion);
  case FusionKind::Gemm:
    return lowerGemm(fusion);
  case FusionKind::Conv:
    return lowerConv(fusion);
  case FusionKind::Row:
  case FusionKind::Single:
    if (std::distance(body.without_terminator().begin(), body.without_terminator().end()) != 1)
      return fusion.emitError() << "a '" << stringifyFusionKind(fusion.getKind())
                                << "' group lowers one op; this one holds more";
    return lowerSingle(fusion, &*body.begin());
  }
  return failure();
}

void ProgramLowering::tagFusedOps(FusionOp fusion, Operation *last) {
  llvm::SmallVector<Attribute> names;
  for (Operation &op : fusion.getBody().front().without_terminator())
    if (!llvm::isa<ConstantOp>(op))
      names.push_back(b.getStringAttr(op.getName().getStringRef()));
  ArrayAttr fused = b.getArrayAttr(names);
  Block &block = program.getBody().front();
  auto it = last ? std::next(Block::iterator(last)) : block.begin();
  for (Operation &op : llvm::make_range(it, block.end()))
    if (!llvm::isa<mpk::BufferOp>(op))
      op.setAttr(mlir::mpk::kFusedAttr, fused);
}

void ProgramLowering::copyUnlessThere(Location loc, Value from, Value to) {
  auto fromBuffer = from.getDefiningOp<mpk::BufferOp>();
  auto toBuffer = to.getDefiningOp<mpk::BufferOp>();
  if (fromBuffer && toBuffer && fromBuffer.getSpace() == toBuffer.getSpace() &&
      fromBuffer.getOffset() == toBuffer.getOffset())
    return;
  b.create<mpk::CopyOp>(loc, from, to);
}

Value ProgramLowering::buffer(Location loc, mpk::Space space, int64_t offset, Type tensorType) {
  return b.create<mpk::BufferOp>(loc, memrefFor(tensorType), space, offset);
}

FailureOr<Value> ProgramLowering::scratch(Operation *group, Type elementType,
                                          llvm::ArrayRef<int64_t> shape, int64_t at) {
  FailureOr<IntegerAttr> offset = planned<IntegerAttr>(group, mlir::mpg::kScratchOffsetAttr);
  if (failed(offset))
    return failure();
  return Value(b.create<mpk::BufferOp>(group->getLoc(), MemRefType::get(shape, elementType),
                                       mpk::Space::Arena, offset->getInt() + at));
}

Value ProgramLowering::bufferOf(Value v) {
  auto it = groupOutputs.find(v);
  return it != groupOutputs.end() ? it->second : buffers.lookup(v);
}

LogicalResult ProgramLowering::emitScalarBody(Block *block, llvm::ArrayRef<Value> inputs,
                                              llvm::ArrayRef<Operation *> ops, IRMapping &scalars) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(block);
  for (Value input : inputs)
    scalars.map(input, block->addArgument(mpc::computeType(tensorTypeOf(input).getElementType()),
                                          input.getLoc()));
  for (Operation *op : ops)
    if (failed(mpc::lowerToScalar(b, op, scalars)))
      return failure();
  return success();
}

llvm::SmallVector<Value> ProgramLowering::externalOperands(llvm::ArrayRef<Operation *> ops) {
  llvm::SmallPtrSet<Operation *, 16> set(ops.begin(), ops.end());
  llvm::SetVector<Value> result;
  for (Operation *op : ops)
    for (Value operand : op->getOperands())
      if (!operand.getDefiningOp() || !set.contains(operand.getDefiningOp()))
        if (!llvm::isa_and_nonnull<ConstantOp>(operand.getDefiningOp()))
          result.insert(operand);
  return result.takeVector();
}

void ProgramLowering::yieldStored(Location loc, llvm::ArrayRef<Value> outputs, IRMapping &scalars) {
  llvm::SmallVector<Value> values;
  for (Value out : outputs)
    values.push_back(scalars.lookup(out));
  b.create<mpk::YieldOp>(loc, values);
}

void ProgramLowering::sumOverFirstDim(Location loc, Value input, Value output,
                                      llvm::ArrayRef<int64_t> iteration, Type accType,
                                      std::optional<double> scale) {
  unsigned rank = iteration.size();
  auto reduce = b.create<mpk::ReduceOp>(
      loc, nextKernelName(), mpk::ReduceKind::Sum, ValueRange{input}, ValueRange{},
      ValueRange{output}, b.getDenseI64ArrayAttr(iteration), b.getDenseI64ArrayAttr({0}),
      b.getArrayAttr({AffineMapAttr::get(AffineMap::getMultiDimIdentityMap(rank, ctx)),
                      AffineMapAttr::get(AffineMap::getMultiDimIdentityMap(rank - 1, ctx))}));
  Block *pro = new Block();
  reduce.getPrologue().push_back(pro);
  Value value = pro->addArgument(accType, loc);
  Block *epi = new Block();
  reduce.getEpilogue().push_back(epi);
  Value sum = epi->addArgument(accType, loc);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(pro);
  b.create<mpk::YieldOp>(loc, ValueRange{value});
  b.setInsertionPointToEnd(epi);
  if (scale) {
    Value factor = b.create<arith::ConstantOp>(loc, accType, b.getFloatAttr(accType, *scale));
    sum = b.create<arith::MulFOp>(loc, sum, factor);
  }
  b.create<mpk::YieldOp>(loc, ValueRange{sum});
}

void ProgramLowering::copyKernel(Location loc, Value input, Value output,
                                 llvm::ArrayRef<int64_t> iteration, AffineMap inMap,
                                 AffineMap outMap) {
  auto kernel = b.create<mpk::PointwiseOp>(
      loc, nextKernelName(), ValueRange{input}, ValueRange{output},
      b.getDenseI64ArrayAttr(iteration),
      b.getArrayAttr({AffineMapAttr::get(inMap), AffineMapAttr::get(outMap)}));
  Block *block = new Block();
  kernel.getBody().push_back(block);
  Type elem = llvm::cast<MemRefType>(input.getType()).getElementType();
  BlockArgument arg = block->addArgument(mpc::computeType(elem), loc);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(block);
  b.create<mpk::YieldOp>(loc, ValueRange{arg});
}

namespace {

struct ConvertMpgToMpkPass : mpc::impl::ConvertMpgToMpkBase<ConvertMpgToMpkPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::SmallVector<GraphOp> graphs(module.getOps<GraphOp>());
    for (GraphOp graph : graphs) {
      OpBuilder builder(graph);
      ProgramLowering lowering(graph, builder);
      if (failed(lowering.run()))
        return signalPassFailure();
      graph.erase();
    }
  }
};

} // namespace
