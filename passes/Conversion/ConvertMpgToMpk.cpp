//===- ConvertMpgToMpk.cpp - planned mpg graphs to mpk programs -----------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The table in Passes.td says what each fusion group becomes. Indexing maps
// go from a kernel's iteration space to a buffer's dimensions; NumPy
// broadcasting maps a size-1 (or missing) dimension to index 0.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/ScalarLowering.h"
#include "passes/MemoryPlanning/MemoryPlanSupport.h"
#include "passes/Passes.h"

#include "dialects/mpg/IR/MpgShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mpc {
#define GEN_PASS_DEF_CONVERTMPGTOMPK
#include "passes/Passes.h.inc"
} // namespace mpc

using namespace mlir;
using namespace mlir::mpg;
namespace mpk = mlir::mpk;

namespace {

RankedTensorType tensorTypeOf(Value v) { return llvm::cast<RankedTensorType>(v.getType()); }

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

/// Map from `numDims` iteration dims to a buffer of `shape` broadcast
/// against `target`, whose dimension j is `targetExprs[j]`.
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

class ProgramLowering {
public:
  ProgramLowering(GraphOp graph, OpBuilder &builder)
      : graph(graph), b(builder), ctx(graph.getContext()) {}

  LogicalResult run() {
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

private:
  /// Copies buffer `from` into `to` (of the same type), unless both are the
  /// same memory: a value already written in place.
  void copyUnlessThere(Location loc, Value from, Value to) {
    auto fromBuffer = from.getDefiningOp<mpk::BufferOp>();
    auto toBuffer = to.getDefiningOp<mpk::BufferOp>();
    if (fromBuffer && toBuffer && fromBuffer.getSpace() == toBuffer.getSpace() &&
        fromBuffer.getOffset() == toBuffer.getOffset())
      return;
    b.create<mpk::CopyOp>(loc, from, to);
  }

  /// The planned offset attribute `name` of `op`, or an error on `op`.
  template <typename AttrT>
  FailureOr<AttrT> planned(Operation *op, llvm::StringRef name) {
    if (auto attr = op->getAttrOfType<AttrT>(name))
      return attr;
    return op->emitError() << "convert-mpg-to-mpk expects a planned graph: '" << op->getName()
                           << "' has no " << name << " (run mpg-plan-memory)";
  }

  Value buffer(Location loc, mpk::Space space, int64_t offset, Type tensorType) {
    return b.create<mpk::BufferOp>(loc, memrefFor(tensorType), space, offset);
  }

  /// A buffer in `group`'s scratch memory, `at` bytes into it.
  FailureOr<Value> scratch(Operation *group, Type elementType, llvm::ArrayRef<int64_t> shape,
                           int64_t at = 0) {
    FailureOr<IntegerAttr> offset = planned<IntegerAttr>(group, mlir::mpg::kScratchOffsetAttr);
    if (failed(offset))
      return failure();
    return Value(b.create<mpk::BufferOp>(group->getLoc(), MemRefType::get(shape, elementType),
                                         mpk::Space::Arena, offset->getInt() + at));
  }

  StringAttr nextKernelName() { return b.getStringAttr("k" + std::to_string(kernelCount++)); }

  LogicalResult lower(Operation *op) {
    Location loc = op->getLoc();
    int64_t persistentOffset = 0;
    if (llvm::isa<ParamOp, StateOp>(op) ||
        (llvm::isa<ConstantOp>(op) && !op->use_empty())) {
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
      Operation *last = program.getBody().front().empty()
                            ? nullptr
                            : &program.getBody().front().back();
      if (failed(lowerFusion(fusion)))
        return failure();
      tagFusedOps(fusion, last);
      return success();
    }
    return op->emitError() << "convert-mpg-to-mpk expects a fused graph; '" << op->getName()
                           << "' is outside any fusion group";
  }

  /// Records on each launch or call made for `fusion` (the ops after
  /// `last`) which mpg ops it computes, for reports.
  void tagFusedOps(FusionOp fusion, Operation *last) {
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

  LogicalResult lowerFusion(FusionOp fusion) {
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
        buffers.map(result, buffer(fusion.getLoc(), mpk::Space::Persistent, inState[i],
                                   result.getType()));
      else if ((*offsets)[i] >= 0)
        buffers.map(result, buffer(fusion.getLoc(), mpk::Space::Arena, (*offsets)[i],
                                   result.getType()));
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

  /// The buffer of a group-level value: a group input or a group output.
  Value bufferOf(Value v) {
    auto it = groupOutputs.find(v);
    return it != groupOutputs.end() ? it->second : buffers.lookup(v);
  }

  /// Emits the scalar body for `ops`; block arguments are `inputs`' scalars.
  LogicalResult emitScalarBody(Block *block, llvm::ArrayRef<Value> inputs,
                               llvm::ArrayRef<Operation *> ops, IRMapping &scalars) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(block);
    for (Value input : inputs)
      scalars.map(input, block->addArgument(
                             mpc::computeType(tensorTypeOf(input).getElementType()),
                             input.getLoc()));
    for (Operation *op : ops)
      if (failed(mpc::lowerToScalar(b, op, scalars)))
        return failure();
    return success();
  }

  /// The operands of `ops` defined outside them, in first-use order.
  static llvm::SmallVector<Value> externalOperands(llvm::ArrayRef<Operation *> ops) {
    llvm::SmallPtrSet<Operation *, 16> set(ops.begin(), ops.end());
    llvm::SetVector<Value> result;
    for (Operation *op : ops)
      for (Value operand : op->getOperands())
        if (!operand.getDefiningOp() || !set.contains(operand.getDefiningOp()))
          if (!llvm::isa_and_nonnull<ConstantOp>(operand.getDefiningOp()))
            result.insert(operand);
    return result.takeVector();
  }

  void yieldStored(Location loc, llvm::ArrayRef<Value> outputs, IRMapping &scalars) {
    llvm::SmallVector<Value> values;
    for (Value out : outputs)
      values.push_back(scalars.lookup(out));
    b.create<mpk::YieldOp>(loc, values);
  }

  LogicalResult lowerPointwise(FusionOp fusion) {
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
      maps.push_back(AffineMapAttr::get(broadcastMap(tensorTypeOf(in).getShape(), iteration,
                                                     identity, iteration.size(), ctx)));
    }
    for (Value out : outputs) {
      outBuffers.push_back(bufferOf(out));
      maps.push_back(AffineMapAttr::get(AffineMap::getMultiDimIdentityMap(iteration.size(), ctx)));
    }
    auto kernel = b.create<mpk::PointwiseOp>(fusion.getLoc(), nextKernelName(), inBuffers,
                                             outBuffers, b.getDenseI64ArrayAttr(iteration),
                                             b.getArrayAttr(maps));
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

  /// One copy kernel: output[outMap(d)] = input[inMap(d)] over `iteration`.
  void copyKernel(Location loc, Value input, Value output, llvm::ArrayRef<int64_t> iteration,
                  AffineMap inMap, AffineMap outMap) {
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

  LogicalResult lowerReduction(FusionOp fusion) {
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
      maps.push_back(AffineMapAttr::get(broadcastMap(tensorTypeOf(in).getShape(), iteration,
                                                     identity, iteration.size(), ctx)));
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
    auto kernel = b.create<mpk::ReduceOp>(
        fusion.getLoc(), nextKernelName(), kind, inBuffers, epiBuffers, outBuffers,
        b.getDenseI64ArrayAttr(iteration), b.getDenseI64ArrayAttr(axes), b.getArrayAttr(maps));
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

  LogicalResult lowerGemm(FusionOp fusion) {
    Block &body = fusion.getBody().front();
    // (after the splat constants cloned into the group, an accumulation's beta)
    Operation *matmul = nullptr;
    for (Operation &op : body.without_terminator())
      if (!llvm::isa<ConstantOp>(op)) {
        matmul = &op;
        break;
      }
    if (!matmul || !llvm::isa<MatmulOp, BatchMatmulOp>(matmul))
      return fusion.emitError("a gemm group starts with its matmul");
    bool transposeA = false, transposeB = false;
    llvm::TypeSwitch<Operation *>(matmul).Case<MatmulOp, BatchMatmulOp>([&](auto mm) {
      transposeA = mm.getTransposeA();
      transposeB = mm.getTransposeB();
    });
    // The epilogue cuBLASLt applies, in its order: bias, activation, output
    // type. Each op must consume the previous one's result. Or, after the
    // output type only, an accumulation into a matrix the group reads (C =
    // product + beta * C): the add of the product and that matrix, scaled
    // by a mul by a splat constant (beta) or not (1).
    Value bias, tail = matmul->getResult(0);
    Value accumulated; // the matrix accumulated into, a group input
    // The mul scaling that matrix, and its factor (1 without one).
    Value scaled;
    double beta = 1;
    mpk::GemmEpilogue epilogue = mpk::GemmEpilogue::None;
    int stage = 0; // 1: bias, 2: activation, 3: cast, 4: accumulation
    auto notAnEpilogue = [&](Operation &op) {
      return op.emitError() << "'" << op.getName()
                            << "' in a gemm group is not a cuBLASLt epilogue (bias, then relu "
                               "or approximate gelu, then a cast; or a cast, then an "
                               "accumulation into a matrix)";
    };
    auto isMatrixInput = [&](Value value) {
      return llvm::isa<BlockArgument>(value) && value.getType() == tail.getType() &&
             tensorTypeOf(value).getRank() == 2;
    };
    for (Operation &op : body.without_terminator()) {
      auto add = llvm::dyn_cast<AddOp>(op);
      auto gelu = llvm::dyn_cast<GeluOp>(op);
      if (&op == matmul || llvm::isa<ConstantOp>(op))
        continue; // (a constant: a mul's factor)
      if (auto mul = llvm::dyn_cast<MulOp>(op)) {
        // (a splat constant the mul reads, cloned into the group)
        auto constant = mul.getRhs().getDefiningOp<ConstantOp>();
        Value matrix = mul.getLhs();
        if (!constant) {
          constant = mul.getLhs().getDefiningOp<ConstantOp>();
          matrix = mul.getRhs();
        }
        auto dense = constant ? llvm::dyn_cast<DenseElementsAttr>(constant.getValue()) : nullptr;
        if (scaled || !dense || !dense.isSplat() || !llvm::isa<FloatType>(dense.getElementType()) ||
            !isMatrixInput(matrix) || mul.getType() != tail.getType())
          return notAnEpilogue(op);
        scaled = mul.getResult();
        accumulated = matrix;
        beta = dense.getSplatValue<APFloat>().convertToDouble();
        continue;
      }
      if (add && (stage == 0 || stage == 3) && epilogue == mpk::GemmEpilogue::None &&
          (add.getLhs() == tail || add.getRhs() == tail) &&
          tensorTypeOf(add.getLhs() == tail ? add.getRhs() : add.getLhs()).getRank() == 2) {
        // (straight after the product, or after its cast; into an f32 or
        // f64 matrix, which the GEMM reads and writes in the compute type)
        Value other = add.getLhs() == tail ? add.getRhs() : add.getLhs();
        Type element = tensorTypeOf(add.getResult()).getElementType();
        if ((other != scaled && !(!scaled && isMatrixInput(other))) ||
            !(element.isF32() || element.isF64()))
          return notAnEpilogue(op);
        accumulated = scaled ? accumulated : other;
        stage = 4;
      } else if (add && stage < 1 && (add.getLhs() == tail || add.getRhs() == tail)) {
        bias = add.getLhs() == tail ? add.getRhs() : add.getLhs();
        if (tensorTypeOf(bias).getRank() != 1)
          return notAnEpilogue(op);
        epilogue = mpk::GemmEpilogue::Bias;
        stage = 1;
      } else if (llvm::isa<ReluOp>(op) && stage < 2 && op.getOperand(0) == tail) {
        epilogue = bias ? mpk::GemmEpilogue::BiasRelu : mpk::GemmEpilogue::Relu;
        stage = 2;
      } else if (gelu && gelu.getApproximate() && stage < 2 && op.getOperand(0) == tail) {
        epilogue = bias ? mpk::GemmEpilogue::BiasGelu : mpk::GemmEpilogue::Gelu;
        stage = 2;
      } else if (llvm::isa<CastOp>(op) && stage < 3 && op.getOperand(0) == tail) {
        stage = 3;
      } else {
        return notAnEpilogue(op);
      }
      tail = op.getResult(0);
    }
    if (llvm::cast<YieldOp>(body.getTerminator()).getValues() != ValueRange{tail})
      return fusion.emitError("a gemm group yields exactly the end of its epilogue");
    if (scaled && stage != 4)
      return fusion.emitError("a mul in a gemm group scales the matrix its result accumulates "
                              "into; this group accumulates into none");
    auto lhs = tensorTypeOf(matmul->getOperand(0)), rhs = tensorTypeOf(matmul->getOperand(1));
    int64_t r = lhs.getRank();
    int64_t m = lhs.getDimSize(transposeA ? r - 1 : r - 2);
    int64_t k = lhs.getDimSize(transposeA ? r - 2 : r - 1);
    int64_t n = rhs.getDimSize(transposeB ? r - 2 : r - 1);
    int64_t batch = product(lhs.getShape().drop_back(2));
    auto yield = llvm::cast<YieldOp>(body.getTerminator());
    Value c = bufferOf(yield.getValues()[0]);
    if (accumulated) {
      if (batch != 1)
        return fusion.emitError("a gemm group accumulates into a matrix only in a single "
                                "product");
      // The GEMM accumulates into C itself: the matrix goes there first,
      // unless it is there already (a state updated in its own memory).
      copyUnlessThere(fusion.getLoc(), bufferOf(accumulated), c);
    }
    auto gemm = b.create<mpk::GemmOp>(fusion.getLoc(), bufferOf(matmul->getOperand(0)),
                                      bufferOf(matmul->getOperand(1)), c,
                                      bias ? bufferOf(bias) : Value(), m, n, k);
    if (accumulated)
      gemm.setBeta(llvm::APFloat(beta));
    gemm.setBatch(batch);
    if (batch > 1) {
      gemm.setStrideA(m * k);
      gemm.setStrideB(k * n);
      gemm.setStrideC(m * n);
    }
    gemm.setTransposeA(transposeA);
    gemm.setTransposeB(transposeB);
    gemm.setEpilogue(epilogue);
    return success();
  }

  /// The sizes of a convolution's GEMMs, from its input [N, C, H, W], filter
  /// [O, C / G, kH, kW] and output [N, O, Ho, Wo] shapes (or their gradients').
  struct ConvSizes {
    int64_t n, c, o, groups;
    int64_t spatial; // Ho * Wo
    int64_t ckk;     // C * kH * kW: the rows of the im2col columns
    int64_t og, kg;  // O / G and C / G * kH * kW: per group
  };
  static ConvSizes convSizes(RankedTensorType input, RankedTensorType filter,
                             RankedTensorType output, int64_t groups) {
    ConvSizes s;
    s.n = input.getDimSize(0);
    s.c = input.getDimSize(1);
    s.o = filter.getDimSize(0);
    s.groups = groups;
    s.spatial = output.getDimSize(2) * output.getDimSize(3);
    s.ckk = s.c * filter.getDimSize(2) * filter.getDimSize(3);
    s.og = s.o / groups;
    s.kg = s.ckk / groups;
    return s;
  }

  LogicalResult lowerConv(FusionOp fusion) {
    Block &body = fusion.getBody().front();
    auto conv = llvm::cast<Conv2DOp>(*body.begin());
    // The GEMMs write C in the type of the group's one epilogue op, a cast
    // of the convolution's result, when it has one.
    Value result = conv.getResult();
    for (Operation &op : llvm::drop_begin(body.without_terminator())) {
      if (!llvm::isa<CastOp>(op) || op.getOperand(0) != result)
        return op.emitError() << "'" << op.getName()
                              << "' in a conv group is not its epilogue (one cast of the "
                                 "convolution's result)";
      result = op.getResult(0);
    }
    if (llvm::cast<YieldOp>(body.getTerminator()).getValues() != ValueRange{result})
      return fusion.emitError("a conv group yields exactly the end of its epilogue");
    auto in = conv.getInput().getType(), filter = conv.getFilter().getType();
    auto [n, c, o, groups, spatial, ckk, og, kg] =
        convSizes(in, filter, conv.getType(), conv.getGroupCount());
    FailureOr<Value> scratchBuffer = scratch(fusion, in.getElementType(), {n, ckk, spatial});
    if (failed(scratchBuffer))
      return failure();
    Value columns = *scratchBuffer;
    b.create<mpk::Im2ColOp>(
        fusion.getLoc(), nextKernelName(), bufferOf(conv.getInput()), columns,
        b.getDenseI64ArrayAttr(filter.getShape().drop_front(2)),
        b.getDenseI64ArrayAttr(conv.getStrideValues()),
        b.getDenseI64ArrayAttr(conv.getPaddingValues()),
        b.getDenseI64ArrayAttr(conv.getDilationValues()));
    // Per group g: out[n, g] (O/G x HoWo) = filter[g] (O/G x CKK/G) x columns[n, g].
    for (int64_t g = 0; g < groups; ++g) {
      auto gemm = b.create<mpk::GemmOp>(fusion.getLoc(), bufferOf(conv.getFilter()), columns,
                                        bufferOf(result), Value(), og, spatial, kg);
      gemm.setBatch(n);
      gemm.setOffsetA(g * og * kg);
      gemm.setOffsetB(g * kg * spatial);
      gemm.setOffsetC(g * og * spatial);
      gemm.setStrideA(0);
      gemm.setStrideB(ckk * spatial);
      gemm.setStrideC(o * spatial);
    }
    return success();
  }

  /// A convolution's input gradient as GEMMs: per image and group of
  /// channels, the columns W_g^T dY_g [C / G * kH * kW, Ho * Wo] (in the
  /// compute type, in scratch); mpk.col2im then folds them onto the input.
  LogicalResult lowerConvGradInput(FusionOp fusion, Conv2DGradInputOp grad) {
    Location loc = grad.getLoc();
    auto filter = grad.getFilter().getType();
    auto dx = grad.getType();
    auto [n, c, o, groups, spatial, ckk, og, kg] =
        convSizes(dx, filter, grad.getGradOutput().getType(), grad.getGroupCount());
    FailureOr<Value> columns =
        scratch(fusion, mpc::computeType(dx.getElementType()), {n, ckk, spatial});
    if (failed(columns))
      return failure();
    for (int64_t g = 0; g < groups; ++g) {
      auto gemm = b.create<mpk::GemmOp>(loc, bufferOf(grad.getFilter()),
                                        bufferOf(grad.getGradOutput()), *columns, Value(), kg,
                                        spatial, og);
      gemm.setTransposeA(true);
      gemm.setBatch(n);
      gemm.setOffsetA(g * og * kg);
      gemm.setStrideA(0);
      gemm.setOffsetB(g * og * spatial);
      gemm.setStrideB(o * spatial);
      gemm.setOffsetC(g * kg * spatial);
      gemm.setStrideC(ckk * spatial);
    }
    b.create<mpk::Col2ImOp>(loc, nextKernelName(), *columns, bufferOf(grad.getResult()),
                            b.getDenseI64ArrayAttr(filter.getShape().drop_front(2)),
                            b.getDenseI64ArrayAttr(grad.getStrideValues()),
                            b.getDenseI64ArrayAttr(grad.getPaddingValues()),
                            b.getDenseI64ArrayAttr(grad.getDilationValues()));
    return success();
  }

  /// A convolution's filter gradient as GEMMs: the input's columns (im2col,
  /// in scratch), per image and group dY_g columns_g^T into per-image
  /// partial sums (compute type, in scratch after the columns), and an
  /// mpk.reduce of those over the images.
  LogicalResult lowerConvGradFilter(FusionOp fusion, Conv2DGradFilterOp grad) {
    Location loc = grad.getLoc();
    auto in = grad.getInput().getType();
    auto dw = grad.getType();
    auto [n, c, o, groups, spatial, ckk, og, kg] =
        convSizes(in, dw, grad.getGradOutput().getType(), grad.getGroupCount());
    FailureOr<Value> columns = scratch(fusion, in.getElementType(), {n, ckk, spatial});
    if (failed(columns))
      return failure();
    int64_t columnBytes = n * ckk * spatial * (in.getElementType().getIntOrFloatBitWidth() / 8);
    Type accType = mpc::computeType(dw.getElementType());
    FailureOr<Value> partials =
        scratch(fusion, accType, {n, o * kg},
                static_cast<int64_t>(llvm::alignTo(columnBytes, mpc::kScratchPartAlignment)));
    if (failed(partials))
      return failure();
    b.create<mpk::Im2ColOp>(loc, nextKernelName(), bufferOf(grad.getInput()), *columns,
                            b.getDenseI64ArrayAttr(dw.getShape().drop_front(2)),
                            b.getDenseI64ArrayAttr(grad.getStrideValues()),
                            b.getDenseI64ArrayAttr(grad.getPaddingValues()),
                            b.getDenseI64ArrayAttr(grad.getDilationValues()));
    for (int64_t g = 0; g < groups; ++g) {
      auto gemm = b.create<mpk::GemmOp>(loc, bufferOf(grad.getGradOutput()), *columns,
                                        *partials, Value(), og, kg, spatial);
      gemm.setTransposeB(true);
      gemm.setBatch(n);
      gemm.setOffsetA(g * og * spatial);
      gemm.setStrideA(o * spatial);
      gemm.setOffsetB(g * kg * spatial);
      gemm.setStrideB(ckk * spatial);
      gemm.setOffsetC(g * og * kg);
      gemm.setStrideC(o * kg);
    }
    // The sum over images, into the gradient viewed as [O * C / G * kH * kW].
    auto result = bufferOf(grad.getResult()).getDefiningOp<mpk::BufferOp>();
    Value flat = b.create<mpk::BufferOp>(
        loc, MemRefType::get({o * kg}, dw.getElementType()), result.getSpace(), result.getOffset());
    auto reduce = b.create<mpk::ReduceOp>(
        loc, nextKernelName(), mpk::ReduceKind::Sum, ValueRange{*partials}, ValueRange{},
        ValueRange{flat}, b.getDenseI64ArrayAttr({n, o * kg}), b.getDenseI64ArrayAttr({0}),
        b.getArrayAttr({AffineMapAttr::get(AffineMap::getMultiDimIdentityMap(2, ctx)),
                        AffineMapAttr::get(AffineMap::getMultiDimIdentityMap(1, ctx))}));
    Block *pro = new Block();
    reduce.getPrologue().push_back(pro);
    Value partial = pro->addArgument(accType, loc);
    Block *epi = new Block();
    reduce.getEpilogue().push_back(epi);
    Value sum = epi->addArgument(accType, loc);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(pro);
    b.create<mpk::YieldOp>(loc, ValueRange{partial});
    b.setInsertionPointToEnd(epi);
    b.create<mpk::YieldOp>(loc, ValueRange{sum});
    return success();
  }

  LogicalResult lowerSingle(FusionOp fusion, Operation *op) {
    Location loc = op->getLoc();
    auto bufferOfResult = [&](unsigned i) { return bufferOf(op->getResult(i)); };
    if (llvm::isa<SoftmaxOp, LogSoftmaxOp>(op)) {
      auto type = tensorTypeOf(op->getOperand(0));
      int64_t axis;
      std::string error;
      int64_t rawAxis = llvm::isa<SoftmaxOp>(op) ? llvm::cast<SoftmaxOp>(op).getAxis()
                                                  : llvm::cast<LogSoftmaxOp>(op).getAxis();
      (void)normalizeAxis(rawAxis, type.getRank(), axis, error);
      b.create<mpk::SoftmaxOp>(loc, nextKernelName(), bufferOf(op->getOperand(0)),
                               bufferOfResult(0), product(type.getShape().take_front(axis)),
                               type.getDimSize(axis), product(type.getShape().drop_front(axis + 1)),
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
      auto reduce = b.create<mpk::ReduceOp>(
          loc, nextKernelName(), mpk::ReduceKind::Sum, ValueRange{losses}, ValueRange{},
          ValueRange{bufferOfResult(0)}, b.getDenseI64ArrayAttr({rows}),
          b.getDenseI64ArrayAttr({0}),
          b.getArrayAttr({AffineMapAttr::get(AffineMap::getMultiDimIdentityMap(1, ctx)),
                          AffineMapAttr::get(AffineMap::get(0, 0, ctx))}));
      Block *pro = new Block();
      reduce.getPrologue().push_back(pro);
      Value v = pro->addArgument(lossType, loc);
      Block *epi = new Block();
      reduce.getEpilogue().push_back(epi);
      Value acc = epi->addArgument(lossType, loc);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToEnd(pro);
      b.create<mpk::YieldOp>(loc, ValueRange{v});
      b.setInsertionPointToEnd(epi);
      Value mean = b.create<arith::MulFOp>(
          loc, acc, b.create<arith::ConstantOp>(loc, lossType, b.getFloatAttr(lossType, 1.0 / rows)));
      b.create<mpk::YieldOp>(loc, ValueRange{mean});
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
    if (auto pool = llvm::dyn_cast<MaxPool2DOp>(op)) {
      b.create<mpk::Pool2DOp>(loc, nextKernelName(), mpk::PoolKind::Max,
                              bufferOf(pool.getOperand()), bufferOfResult(0), pool.getKernel(),
                              b.getDenseI64ArrayAttr(pool.getStrideValues()),
                              b.getDenseI64ArrayAttr(pool.getPaddingValues()), false);
      return success();
    }
    if (auto pool = llvm::dyn_cast<AvgPool2DOp>(op)) {
      b.create<mpk::Pool2DOp>(loc, nextKernelName(), mpk::PoolKind::Avg,
                              bufferOf(pool.getOperand()), bufferOfResult(0), pool.getKernel(),
                              b.getDenseI64ArrayAttr(pool.getStrideValues()),
                              b.getDenseI64ArrayAttr(pool.getPaddingValues()),
                              pool.getCountIncludePad());
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
      b.create<mpk::Pool2DGradOp>(loc, nextKernelName(), mpk::PoolKind::Avg,
                                  bufferOf(grad.getGradOutput()), Value(), bufferOfResult(0),
                                  grad.getKernel(), b.getDenseI64ArrayAttr(grad.getStrideValues()),
                                  b.getDenseI64ArrayAttr(grad.getPaddingValues()),
                                  grad.getCountIncludePad());
      return success();
    }
    if (auto grad = llvm::dyn_cast<Conv2DGradInputOp>(op))
      return lowerConvGradInput(fusion, grad);
    if (auto grad = llvm::dyn_cast<Conv2DGradFilterOp>(op))
      return lowerConvGradFilter(fusion, grad);
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
      copyKernel(loc, bufferOf(slice.getOperand()), bufferOfResult(0),
                 slice.getType().getShape(), AffineMap::get(rank, 0, exprs, ctx),
                 AffineMap::getMultiDimIdentityMap(rank, ctx));
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
                   AffineMap::getMultiDimIdentityMap(rank, ctx),
                   AffineMap::get(rank, 0, exprs, ctx));
        offset += shape[axis];
      }
      return success();
    }
    if (auto embedding = llvm::dyn_cast<EmbeddingOp>(op)) {
      b.create<mpk::GatherOp>(loc, nextKernelName(), bufferOf(embedding.getTable()),
                              bufferOf(embedding.getIndices()), bufferOfResult(0));
      return success();
    }
    if (llvm::isa<MseLossOp, GlobalAvgPoolOp, BatchNormOp, SgdOp, AdamOp, AdamWOp, AllFiniteOp,
                  UpdateLossScaleOp, LayerNormGradOp, BatchNormGradOp, EmbeddingGradOp>(op))
      return op->emitError() << "'" << op->getName()
                             << "' must be decomposed before code generation (run mpg-decompose)";
    return op->emitError() << "'" << op->getName()
                           << "' has no kernel in the code generator";
  }

  GraphOp graph;
  OpBuilder &b;
  MLIRContext *ctx;
  mpk::ProgramOp program;
  IRMapping buffers;
  llvm::DenseMap<Value, Value> groupOutputs;
  unsigned kernelCount = 0;
};

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
