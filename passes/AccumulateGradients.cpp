//===- AccumulateGradients.cpp - several runs' gradients per update -------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Gradient accumulation in the graph: each run of the step is a
// micro-batch, and the updates, the overflow check and the loss scaler act
// on every N-th run, with the mean of the N runs' gradients (see
// Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/GraphBuilding.h"
#include "passes/Passes.h"
#include "passes/Precision/PrecisionSupport.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

#include <optional>

namespace mpc {
#define GEN_PASS_DEF_MPGACCUMULATEGRADIENTS
#include "passes/Passes.h.inc"
} // namespace mpc

using namespace mlir;
using namespace mlir::mpg;
using mpc::booleanConstant;
using mpc::newState;
using mpc::scalarConstant;
using mpc::precision::gradientOperand;
using mpc::precision::optimizerStateWrites;

namespace {

constexpr llvm::StringLiteral kStatePrefix = "grad_accum.";
constexpr llvm::StringLiteral kMicroState = "grad_accum.micro";
constexpr llvm::StringLiteral kRunsState = "grad_accum.runs";
constexpr llvm::StringLiteral kFiniteState = "grad_accum.finite";
constexpr llvm::StringLiteral kAccumulatorSuffix = ".grad_accum";

/// The loss scaler's state (mpg-insert-loss-scaling), which changes once a
/// window as the updates do.
bool isScalerState(llvm::StringRef name) {
  return name == "loss_scale" || name == "loss_scale.good_steps" ||
         name == "loss_scale.skipped_steps";
}

struct MpgAccumulateGradientsPass
    : mpc::impl::MpgAccumulateGradientsBase<MpgAccumulateGradientsPass> {
  void runOnOperation() override {
    GraphOp graph = getOperation();
    auto runsAttr = graph->getAttrOfType<IntegerAttr>(kAccumulateStepsAttr);
    if (!runsAttr)
      return;
    graph->removeAttr(kAccumulateStepsAttr);
    runs = runsAttr.getInt();
    sums.clear();
    means.clear();
    counts.clear();
    accumulators.clear();
    runFinite = windowFiniteState = windowFinite = Value();
    Block &body = graph.getBody().front();
    llvm::SmallVector<Operation *> updates;
    for (Operation &op : body)
      if (gradientOperand(&op))
        updates.push_back(&op);
    if (runs <= 1 || updates.empty())
      return;
    if (failed(checkNames(body)))
      return signalPassFailure();

    // Collected before this pass adds writes of its own.
    llvm::SetVector<StateWriteOp> windowWrites;
    for (StateWriteOp write : optimizerStateWrites(body, updates))
      windowWrites.insert(write);
    for (StateWriteOp write : body.getOps<StateWriteOp>())
      if (auto state = write.getState().getDefiningOp<StateOp>())
        if (isScalerState(state.getName()))
          windowWrites.insert(write);

    OpBuilder b(&getContext());
    Location loc = graph.getLoc();
    createWindowState(b, body, loc);
    for (Operation *update : updates) {
      OpOperand *gradient = gradientOperand(update);
      auto unscale = gradient->get().getDefiningOp<UnscaleOp>();
      OpOperand &read = unscale ? unscale.getOperandMutable() : *gradient;
      read.set(meanOf(b, read.get(), update));
    }
    markWindowOverflow(b, body, loc);
    for (StateWriteOp write : windowWrites) {
      b.setInsertionPoint(write);
      write.getValueMutable().assign(
          b.create<SelectOp>(write.getLoc(), last, write.getValue(), write.getState()));
    }
    appendWindowStateWrites(b, body, loc);
    for (OutputOp output : body.getOps<OutputOp>())
      if (output.getName() == "skipped") {
        b.setInsertionPoint(output);
        output.getValueMutable().assign(
            b.create<SelectOp>(loc, last, output.getValue(), booleanConstant(b, loc, false)));
      }
  }

private:
  /// Refuses a graph that already has state of the names this pass uses.
  LogicalResult checkNames(Block &body) {
    for (Operation &op : body) {
      llvm::StringRef name = mpc::persistentName(op);
      if (name.starts_with(kStatePrefix) || name.ends_with(kAccumulatorSuffix))
        return op.emitError() << "mpg-accumulate-gradients names its state \"" << kStatePrefix
                              << "*\" and \"<param>" << kAccumulatorSuffix
                              << "\", but the graph already has a "
                              << (llvm::isa<StateOp>(op) ? "state" : "parameter") << " \"" << name
                              << "\"";
    }
    return success();
  }

  /// First in the graph: the run counter, the window's length (state too,
  /// never written, so that the program and its checkpoints say how they
  /// accumulate) and whether this run is the window's last.
  void createWindowState(OpBuilder &b, Block &body, Location loc) {
    b.setInsertionPointToStart(&body);
    Type i64 = b.getI64Type();
    auto scalarI64 = RankedTensorType::get({}, i64);
    micro = newState(b, loc, kMicroState, scalarI64);
    runsState = newState(b, loc, kRunsState, scalarI64, static_cast<double>(runs));
    Value one = scalarConstant(b, loc, i64, 1);
    Value lastIndex = b.create<SubOp>(loc, runsState, one);
    last = b.create<CompareOp>(loc, ComparePredicate::EQ, micro, lastIndex);
  }

  /// The mean over the window of gradient `g` of `update`: its accumulator
  /// plus `g` (the sum, written back at the end), over N. Computed once per
  /// gradient, right after it.
  Value meanOf(OpBuilder &b, Value g, Operation *update) {
    if (Value mean = means.lookup(g))
      return mean;
    auto type = llvm::cast<RankedTensorType>(g.getType());
    Type element = type.getElementType().isF64() ? b.getF64Type() : b.getF32Type();
    auto accumulatorType = type.clone(element);
    std::string name = std::string(kStatePrefix) + std::to_string(accumulators.size());
    if (auto param = update->getOperand(0).getDefiningOp<ParamOp>())
      name = (param.getName() + kAccumulatorSuffix).str();
    Location loc = g.getLoc();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(g.getParentBlock());
    Value accumulator = newState(b, loc, name, accumulatorType);
    Value &count = counts[element];
    if (!count) {
      b.setInsertionPointAfterValue(last);
      count = b.create<CastOp>(loc, RankedTensorType::get({}, element), runsState);
    }
    b.setInsertionPointAfterValue(g);
    Value wide = type.getElementType() == element
                     ? g
                     : b.create<CastOp>(loc, accumulatorType, g).getResult();
    Value sum = b.create<AddOp>(loc, accumulator, wide);
    Value mean = b.create<DivOp>(loc, sum, count);
    accumulators.push_back({accumulator, sum});
    sums[g] = sum;
    means[g] = mean;
    return mean;
  }

  /// With loss scaling: the overflow check of mpg-insert-loss-scaling checks
  /// each run's sums; a state remembers an overflow until the
  /// window's last run, whose update and scale see whether the whole window
  /// was finite. (A run that overflows leaves the accumulators as they were:
  /// they, and a checkpoint, hold finite values.)
  void markWindowOverflow(OpBuilder &b, Block &body, Location loc) {
    // (the loss scaler's check is the one of the gradients; another
    // all_finite, of the user's, is left alone)
    AllFiniteOp check;
    for (AllFiniteOp candidate : body.getOps<AllFiniteOp>())
      if (llvm::any_of(candidate->getOperands(), [&](Value v) { return sums.count(v); }))
        check = candidate;
    if (!check)
      return;
    // (the sums: finite when this run's gradients are and adding them to the
    // finite accumulators did not overflow)
    for (OpOperand &operand : check->getOpOperands())
      if (Value sum = sums.lookup(operand.get()))
        operand.set(sum);
    runFinite = check.getResult();
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&body);
      windowFiniteState =
          newState(b, loc, kFiniteState, RankedTensorType::get({}, b.getI1Type()), 1.0);
    }
    b.setInsertionPointAfterValue(runFinite);
    Value no = booleanConstant(b, loc, false);
    windowFinite = b.create<SelectOp>(loc, windowFiniteState, runFinite, no);
    runFinite.replaceAllUsesExcept(windowFinite, windowFinite.getDefiningOp());
  }

  /// At the end of the step: the run counter goes on (to 0 after the last
  /// run); each accumulator keeps its sum (0 after the last run, unchanged
  /// after a run that overflowed); the window's overflow is remembered
  /// (forgotten after the last run).
  void appendWindowStateWrites(OpBuilder &b, Block &body, Location loc) {
    b.setInsertionPointToEnd(&body);
    Type i64 = b.getI64Type();
    Value one = scalarConstant(b, loc, i64, 1);
    Value next = b.create<AddOp>(loc, micro, one);
    Value zero = scalarConstant(b, loc, i64, 0);
    b.create<StateWriteOp>(loc, micro, b.create<SelectOp>(loc, last, zero, next));
    for (auto [accumulator, sum] : accumulators) {
      Type element = llvm::cast<RankedTensorType>(sum.getType()).getElementType();
      Value kept = runFinite ? Value(b.create<SelectOp>(loc, runFinite, sum, accumulator)) : sum;
      Value zeros = scalarConstant(b, loc, element, 0);
      b.create<StateWriteOp>(loc, accumulator, b.create<SelectOp>(loc, last, zeros, kept));
    }
    if (windowFiniteState) {
      Value yes = booleanConstant(b, loc, true);
      b.create<StateWriteOp>(loc, windowFiniteState,
                             b.create<SelectOp>(loc, last, yes, windowFinite));
    }
  }

  int64_t runs = 1;
  /// The run counter, the window's length, and whether this run is the last.
  Value micro, runsState, last;
  /// With loss scaling: this run's gradients are finite; the window's
  /// (state) were until this run; and are, with this run's.
  Value runFinite, windowFiniteState, windowFinite;
  /// Each gradient's sum with its accumulator, and their mean.
  llvm::DenseMap<Value, Value> sums, means;
  /// The window's length as each accumulator's element type.
  llvm::DenseMap<Type, Value> counts;
  llvm::SmallVector<std::pair<Value, Value>> accumulators;
};

} // namespace
