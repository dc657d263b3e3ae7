//===- RecomputePointwise.cpp - recompute pointwise groups in readers ----===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The rules are stated in Passes.td. A pointwise group whose results only
// reductions and pointwise groups of its own iteration space read is
// dissolved: each reader computes the values it read from the group's
// inputs instead, and the group's results are never written to memory.
//
//===----------------------------------------------------------------------===//

#include "passes/MemoryPlanning/MemoryPlanSupport.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <deque>

namespace mpc {
#define GEN_PASS_DEF_MPGRECOMPUTEPOINTWISE
#include "passes/Passes.h.inc"
} // namespace mpc

using namespace mlir;
using namespace mlir::mpg;

namespace {

llvm::ArrayRef<int64_t> shapeOf(Value value) {
  return llvm::cast<RankedTensorType>(value.getType()).getShape();
}

bool isComputeFloat(Value value) {
  Type element = llvm::cast<RankedTensorType>(value.getType()).getElementType();
  return element.isF32() || element.isF64();
}

/// Whether every use of `arg` (a block argument of reduction group
/// `reader`) lies in the reduction's prologue, or is the reduction itself.
/// Values computed there become the prologue when lowered; the epilogue
/// reads only values from memory and the reduced value.
bool onlyPrologueReads(FusionOp reader, Operation *anchor, BlockArgument arg) {
  llvm::SetVector<Operation *> prologue =
      mpc::opsComputing(reader.getBody().front(), anchor->getOperand(0));
  return llvm::all_of(arg.getUsers(),
                      [&](Operation *user) { return user == anchor || prologue.contains(user); });
}

/// The iteration space in which `reader` would compute the values it reads
/// through `arg`: a pointwise group's shape, or a reduction's input shape
/// when only its prologue reads them. Empty when it cannot (a reader of
/// another kind, a finite check).
std::optional<llvm::SmallVector<int64_t>> readerSpace(FusionOp reader, BlockArgument arg) {
  if (reader.getKind() == FusionKind::Pointwise)
    return llvm::SmallVector<int64_t>(shapeOf(reader.getResult(0)));
  if (reader.getKind() == FusionKind::Reduction && !mpc::isFiniteCheck(reader))
    if (Operation *anchor = mpc::reductionAnchor(reader);
        anchor && onlyPrologueReads(reader, anchor, arg))
      return llvm::SmallVector<int64_t>(shapeOf(anchor->getOperand(0)));
  return std::nullopt;
}

/// The ops of `producer`'s body that its results `indices` depend on, in
/// body order (splat constants included).
llvm::SmallVector<Operation *> sliceOf(FusionOp producer, llvm::ArrayRef<unsigned> indices) {
  Block &body = producer.getBody().front();
  llvm::SmallVector<Value> yielded;
  for (unsigned index : indices)
    yielded.push_back(body.getTerminator()->getOperand(index));
  llvm::SetVector<Operation *> slice = mpc::opsComputing(body, yielded);
  llvm::SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

struct MpgRecomputePointwisePass : mpc::impl::MpgRecomputePointwiseBase<MpgRecomputePointwisePass> {
  using MpgRecomputePointwiseBase::MpgRecomputePointwiseBase;

  void runOnOperation() override {
    if (maxOps <= 0)
      return;
    Block &body = getOperation().getBody().front();
    // Pointwise groups in program order; an op erased here leaves the list
    // (its address may be reused by an op made later).
    std::deque<Operation *> worklist;
    for (auto fusion : body.getOps<FusionOp>())
      if (fusion.getKind() == FusionKind::Pointwise)
        worklist.push_back(fusion);
    while (!worklist.empty()) {
      auto producer = llvm::cast<FusionOp>(worklist.front());
      worklist.pop_front();
      llvm::SmallVector<std::pair<FusionOp, FusionOp>> replaced;
      if (!dissolve(producer, replaced))
        continue;
      for (auto [reader, replacement] : replaced) {
        llvm::erase(worklist, reader.getOperation());
        reader->erase();
        // A reader that now computes more may itself be dissolved into its
        // own readers.
        if (replacement.getKind() == FusionKind::Pointwise)
          worklist.push_back(replacement);
      }
      producer->erase();
    }
  }

  /// The block argument positions of `producer`'s inputs that the values of
  /// `indices` need.
  static llvm::SmallVector<unsigned> inputsNeeded(FusionOp producer,
                                                  llvm::ArrayRef<unsigned> indices) {
    llvm::SmallSetVector<unsigned, 8> needed;
    Block &body = producer.getBody().front();
    for (unsigned index : indices)
      if (auto arg = llvm::dyn_cast<BlockArgument>(body.getTerminator()->getOperand(index)))
        needed.insert(arg.getArgNumber());
    for (Operation *op : sliceOf(producer, indices))
      for (Value operand : op->getOperands())
        if (auto arg = llvm::dyn_cast<BlockArgument>(operand); arg && arg.getOwner() == &body)
          needed.insert(arg.getArgNumber());
    return llvm::SmallVector<unsigned>(needed.begin(), needed.end());
  }

  /// Dissolves `producer` into its readers when the rules allow it: each
  /// reader gets a replacement (in `replaced`, the reader still to erase),
  /// and the producer is left without uses, to erase.
  bool dissolve(FusionOp producer,
                llvm::SmallVectorImpl<std::pair<FusionOp, FusionOp>> &replaced) {
    llvm::ArrayRef<int64_t> space = shapeOf(producer.getResult(0));
    // The readers, in order, and the results each reads.
    llvm::MapVector<Operation *, llvm::SmallVector<unsigned>> readers;
    for (OpResult result : producer.getResults()) {
      // A stored narrow value is rounded; recomputed, it would not be.
      if (result.use_empty())
        continue;
      if (!isComputeFloat(result))
        return false;
      for (OpOperand &use : result.getUses()) {
        auto reader = llvm::dyn_cast<FusionOp>(use.getOwner());
        if (!reader)
          return false;
        auto readSpace =
            readerSpace(reader, reader.getBody().front().getArgument(use.getOperandNumber()));
        if (!readSpace || llvm::ArrayRef<int64_t>(*readSpace) != space)
          return false;
        auto &indices = readers[reader];
        if (!llvm::is_contained(indices, result.getResultNumber()))
          indices.push_back(result.getResultNumber());
      }
    }
    if (readers.empty())
      return false;
    // Bytes moved: the group reads its inputs and writes its results, which
    // readers read back; dissolved, each reader reads the inputs it needs
    // and does not read already.
    int64_t before = 0, after = 0;
    for (Value input : producer.getInputs())
      before += mpc::bufferBytes(input.getType());
    for (Value result : producer.getResults())
      if (!result.use_empty())
        before += mpc::bufferBytes(result.getType());
    for (auto &[reader, indices] : readers) {
      for (unsigned index : indices)
        before += mpc::bufferBytes(producer.getResult(index).getType());
      int64_t ops = llvm::count_if(sliceOf(producer, indices),
                                   [](Operation *op) { return !llvm::isa<ConstantOp>(op); });
      if (ops > maxOps)
        return false;
      for (unsigned arg : inputsNeeded(producer, indices)) {
        Value input = producer.getInputs()[arg];
        if (!llvm::is_contained(reader->getOperands(), input))
          after += mpc::bufferBytes(input.getType());
      }
    }
    if (after > before)
      return false;
    for (auto &[reader, indices] : readers) {
      auto fusion = llvm::cast<FusionOp>(reader);
      FusionOp replacement = recomputeIn(fusion, producer, indices);
      reader->replaceAllUsesWith(replacement->getResults());
      replaced.push_back({fusion, replacement});
    }
    return true;
  }

  /// A copy of `reader` that computes the results `indices` of `producer`
  /// itself: its inputs are the reader's other inputs and the producer's
  /// inputs those results need; its body starts with the producer's ops
  /// for them.
  static FusionOp recomputeIn(FusionOp reader, FusionOp producer,
                              llvm::ArrayRef<unsigned> indices) {
    llvm::SmallVector<Value> inputs;
    for (Value input : reader.getInputs())
      if (input.getDefiningOp() != producer.getOperation() && !llvm::is_contained(inputs, input))
        inputs.push_back(input);
    for (unsigned arg : inputsNeeded(producer, indices)) {
      Value input = producer.getInputs()[arg];
      if (!llvm::is_contained(inputs, input))
        inputs.push_back(input);
    }
    OpBuilder builder(reader);
    auto replacement = builder.create<FusionOp>(reader.getLoc(), reader.getKind(), inputs,
                                                reader.getResultTypes());
    replacement->setDiscardableAttrs(reader->getDiscardableAttrDictionary());
    Block &block = replacement.getBody().front();
    auto argumentFor = [&](Value input) {
      return block.getArgument(llvm::find(inputs, input) - inputs.begin());
    };
    builder.setInsertionPointToStart(&block);
    // The producer's values, from its inputs.
    IRMapping fromProducer;
    Block &producerBody = producer.getBody().front();
    for (auto [arg, input] : llvm::zip(producerBody.getArguments(), producer.getInputs()))
      if (llvm::is_contained(inputs, input))
        fromProducer.map(arg, argumentFor(input));
    for (Operation *op : sliceOf(producer, indices))
      builder.clone(*op, fromProducer);
    // The reader's body, its arguments mapped to the new ones or to the
    // recomputed values.
    IRMapping fromReader;
    Block &readerBody = reader.getBody().front();
    for (auto [arg, input] : llvm::zip(readerBody.getArguments(), reader.getInputs())) {
      if (input.getDefiningOp() == producer.getOperation()) {
        unsigned index = llvm::cast<OpResult>(input).getResultNumber();
        fromReader.map(
            arg, fromProducer.lookupOrDefault(producerBody.getTerminator()->getOperand(index)));
      } else {
        fromReader.map(arg, argumentFor(input));
      }
    }
    for (Operation &op : readerBody.without_terminator())
      builder.clone(op, fromReader);
    llvm::SmallVector<Value> yielded;
    for (Value value : readerBody.getTerminator()->getOperands())
      yielded.push_back(fromReader.lookupOrDefault(value));
    builder.create<YieldOp>(reader.getLoc(), yielded);
    return replacement;
  }
};

} // namespace
