//===- InsertLossScaling.cpp - loss scaling on the device -----------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The paper's second technique, done in the graph so that the scaled seed,
// the overflow check, the predicated skip and the scale update are device
// code of the step (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/GraphBuilding.h"
#include "passes/Passes.h"
#include "passes/Precision/PrecisionSupport.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "llvm/ADT/SetVector.h"

namespace mpc {
#define GEN_PASS_DEF_MPGINSERTLOSSSCALING
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

RankedTensorType scalarType(Type element) { return RankedTensorType::get({}, element); }

struct MpgInsertLossScalingPass
    : public mpc::impl::MpgInsertLossScalingBase<MpgInsertLossScalingPass> {
  using MpgInsertLossScalingBase::MpgInsertLossScalingBase;

  LogicalResult checkOptions(GraphOp graph) {
    if (mode != "dynamic" && mode != "static" && mode != "none")
      return graph.emitError() << "mpg-insert-loss-scaling: unknown mode '" << mode
                               << "'; expected dynamic, static or none";
    if (!(initScale > 0) || !std::isfinite(initScale))
      return graph.emitError() << "mpg-insert-loss-scaling: init-scale must be a finite "
                                  "number > 0, not "
                               << initScale;
    if (mode == "dynamic" && (initScale < minScale || initScale > maxScale))
      return graph.emitError() << "mpg-insert-loss-scaling: init-scale " << initScale
                               << " is outside [min-scale, max-scale] = [" << minScale << ", "
                               << maxScale << "]";
    return success();
  }

  /// Whether every scale the step can use is a power of two in
  /// [2^-126, 2^126] (an f32 whose reciprocal is exact): the scale itself
  /// when static; when dynamic, the first scale and the clamps, with growth
  /// and backoff factors that are powers of two too (a product of powers of
  /// two, clamped to a power of two, is one).
  bool onlyPowersOfTwo(bool dynamic) const {
    auto isPowerOfTwo = [](double value, int minExponent, int maxExponent) {
      if (!(value > 0) || !std::isfinite(value))
        return false;
      int exponent = 0;
      return std::frexp(value, &exponent) == 0.5 && exponent - 1 >= minExponent &&
             exponent - 1 <= maxExponent;
    };
    auto scaleIsPowerOfTwo = [&](double value) { return isPowerOfTwo(value, -126, 126); };
    if (!scaleIsPowerOfTwo(initScale))
      return false;
    if (!dynamic)
      return true;
    auto factorIsPowerOfTwo = [&](double value) { return isPowerOfTwo(value, -1024, 1024); };
    return scaleIsPowerOfTwo(minScale) && scaleIsPowerOfTwo(maxScale) &&
           factorIsPowerOfTwo(growthFactor) && factorIsPowerOfTwo(backoffFactor);
  }

  /// The scale (persistent state when dynamic, a constant when static) and
  /// the step counters, first in the graph so that they dominate every use.
  struct ScaleState {
    Value scale, goodSteps, skippedSteps;
  };
  ScaleState createScaleState(OpBuilder &b, Block &body, Location loc, bool dynamic) {
    MLIRContext *context = &getContext();
    Type f32 = Float32Type::get(context), i64 = IntegerType::get(context, 64);
    b.setInsertionPointToStart(&body);
    ScaleState state;
    if (dynamic) {
      state.scale = newState(b, loc, "loss_scale", scalarType(f32), initScale);
      state.goodSteps = newState(b, loc, "loss_scale.good_steps", scalarType(i64));
    } else {
      state.scale = scalarConstant(b, loc, f32, initScale);
    }
    state.skippedSteps = newState(b, loc, "loss_scale.skipped_steps", scalarType(i64));
    return state;
  }

  /// The overflow check over every gradient an update reads, placed after
  /// the last of them.
  static Value insertOverflowCheck(OpBuilder &b, Location loc, llvm::ArrayRef<Operation *> updates,
                                   Value scale) {
    llvm::SetVector<Value> gradients;
    for (Operation *update : updates)
      gradients.insert(gradientOperand(update)->get());
    Operation *lastDefinition = nullptr;
    for (Value gradient : gradients)
      if (Operation *def = gradient.getDefiningOp())
        if (!lastDefinition || lastDefinition->isBeforeInBlock(def))
          lastDefinition = def;
    if (lastDefinition)
      b.setInsertionPointAfter(lastDefinition);
    else
      b.setInsertionPointAfter(scale.getDefiningOp());
    return b.create<AllFiniteOp>(loc, scalarType(b.getI1Type()), gradients.getArrayRef());
  }

  /// The skip: every state an update (or the step counter) writes keeps its
  /// value when a gradient is not finite. State writes are copies at the
  /// end of the step, so moving them after the check changes nothing.
  /// Values computed from an update's results (e.g. a cast back to a
  /// parameter's declared f16) are as unsafe as the results themselves.
  static void predicateStateWrites(OpBuilder &b, Block &body, llvm::ArrayRef<Operation *> updates,
                                   Value finite) {
    llvm::SmallVector<StateWriteOp> writes = optimizerStateWrites(body, updates);
    Operation *check = finite.getDefiningOp();
    for (StateWriteOp write : writes) {
      if (write->isBeforeInBlock(check))
        write->moveBefore(&body, body.end());
      b.setInsertionPoint(write);
      write.getValueMutable().assign(
          b.create<SelectOp>(write.getLoc(), finite, write.getValue(), write.getState()));
    }
  }

  /// The scale's update and the telemetry, at the end of the step.
  LogicalResult appendScaleUpdate(OpBuilder &b, Block &body, Location loc, const ScaleState &state,
                                  Value finite, bool dynamic) {
    b.setInsertionPointToEnd(&body);
    Type i64 = b.getI64Type();
    Value one = scalarConstant(b, loc, i64, 1), zero = scalarConstant(b, loc, i64, 0);
    auto boolean = [&](bool value) { return booleanConstant(b, loc, value); };
    Value skipped = b.create<SelectOp>(loc, finite, boolean(false), boolean(true));
    b.create<StateWriteOp>(
        loc, state.skippedSteps,
        b.create<AddOp>(loc, state.skippedSteps, b.create<SelectOp>(loc, finite, zero, one)));
    if (dynamic) {
      auto update = b.create<UpdateLossScaleOp>(
          loc, state.scale, state.goodSteps, finite, b.getF64FloatAttr(growthFactor),
          b.getF64FloatAttr(backoffFactor), b.getI64IntegerAttr(growthInterval),
          b.getI64IntegerAttr(hysteresis), b.getF64FloatAttr(minScale),
          b.getF64FloatAttr(maxScale));
      if (failed(update.verify())) // the options' ranges
        return failure();
      b.create<StateWriteOp>(loc, state.scale, update.getNewScale());
      b.create<StateWriteOp>(loc, state.goodSteps, update.getNewGoodSteps());
    }
    b.create<OutputOp>(loc, "loss_scale", state.scale);
    b.create<OutputOp>(loc, "skipped", skipped);
    return success();
  }

  void runOnOperation() override {
    GraphOp graph = getOperation();
    if (failed(checkOptions(graph)))
      return signalPassFailure();
    if (mode == "none")
      return;
    Block &body = graph.getBody().front();
    llvm::SmallVector<ConstantOp> seeds;
    for (auto constant : body.getOps<ConstantOp>())
      if (constant->hasAttr(mlir::mpg::kLossSeedAttr) &&
          !constant->hasAttr(mlir::mpg::kLossScaledAttr))
        seeds.push_back(constant);
    llvm::SmallVector<Operation *> updates;
    for (Operation &op : body)
      if (gradientOperand(&op))
        updates.push_back(&op);
    if (seeds.empty() || updates.empty())
      return; // not a training step, or one already scaled
    for (ConstantOp seed : seeds)
      if (!llvm::cast<RankedTensorType>(seed.getType()).getElementType().isF32()) {
        seed.emitOpError("is the seed of the backward pass in ")
            << llvm::cast<RankedTensorType>(seed.getType()).getElementType()
            << "; loss scaling needs an f32 loss";
        return signalPassFailure();
      }

    Location loc = graph.getLoc();
    OpBuilder b(&getContext());
    bool dynamic = mode == "dynamic";
    ScaleState state = createScaleState(b, body, loc, dynamic);

    // The seed of the backward pass times the scale.
    for (ConstantOp seed : seeds) {
      b.setInsertionPointAfter(seed);
      Value scaled = b.create<MulOp>(seed.getLoc(), seed.getResult(), state.scale);
      seed.getResult().replaceAllUsesExcept(scaled, scaled.getDefiningOp());
      seed->setAttr(mlir::mpg::kLossScaledAttr, b.getUnitAttr()); // (the memory report traces it)
    }

    Value finite = insertOverflowCheck(b, loc, updates, state.scale);

    // Updates read the unscaled gradient, a product with the exact
    // reciprocal when every scale the step can use is a power of two.
    bool powerOfTwo = onlyPowersOfTwo(dynamic);
    for (Operation *update : updates) {
      OpOperand *gradient = gradientOperand(update);
      b.setInsertionPoint(update);
      auto unscaled = b.create<UnscaleOp>(update->getLoc(), gradient->get(), state.scale);
      unscaled.setPowerOfTwoScale(powerOfTwo);
      gradient->set(unscaled);
    }

    predicateStateWrites(b, body, updates, finite);
    if (failed(appendScaleUpdate(b, body, loc, state, finite, dynamic)))
      return signalPassFailure();
  }
};

} // namespace
