//===- Autodiff.cpp - reverse-mode differentiation of a training graph ----===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "passes/GraphBuilding.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>

namespace mpc {
#define GEN_PASS_DEF_MPGAUTODIFF
#include "passes/Passes.h.inc"
} // namespace mpc

using namespace mlir;
using namespace mlir::mpg;
using mpc::newState;
using mpc::scalarConstant;

namespace {

RankedTensorType typeOf(Value v) { return llvm::cast<RankedTensorType>(v.getType()); }

bool isFloat(Value v) { return llvm::isa<FloatType>(typeOf(v).getElementType()); }

class Differentiator {
public:
  Differentiator(GraphOp graph, MinimizeOp minimize) : graph(graph), minimize(minimize) {}

  LogicalResult run() {
    Block &body = graph.getBody().front();
    Value loss = minimize.getLoss();
    collectActive(body, loss);

    OpBuilder b(minimize);
    Location loc = minimize.getLoc();
    grads[loss] = scalarConstant(b, loc, typeOf(loss).getElementType(), 1.0);
    // The seed of the backward pass, which loss scaling multiplies.
    grads[loss].getDefiningOp()->setAttr(mlir::mpg::kLossSeedAttr, b.getUnitAttr());

    // Reverse program order: every use of a value comes after it, so its
    // gradient is complete when its producer is reached.
    llvm::SmallVector<Operation *> ops;
    for (Operation &op : body)
      if (&op != minimize.getOperation() && active.contains(&op))
        ops.push_back(&op);
    for (Operation *op : llvm::reverse(ops)) {
      if (llvm::isa<ParamOp, InputOp, StateOp, ConstantOp>(op))
        continue;
      llvm::SmallVector<Value> resultGrads;
      bool any = false;
      for (Value result : op->getResults()) {
        resultGrads.push_back(grads.lookup(result));
        any |= static_cast<bool>(resultGrads.back());
      }
      if (!any)
        continue;
      auto differentiable = llvm::dyn_cast<DifferentiableOpInterface>(op);
      if (!differentiable)
        return op->emitError() << "mpg-autodiff: '" << op->getName()
                               << "' has no VJP rule, but the loss depends on it through a "
                                  "trainable parameter";
      llvm::SmallVector<Value> operandGrads;
      if (failed(differentiable.buildVjp(b, resultGrads, operandGrads)))
        return failure();
      for (auto [operand, grad] : llvm::zip(op->getOperands(), operandGrads))
        if (grad && needsGrad(operand))
          accumulate(b, operand, grad);
    }
    return emitUpdates(b, body, loss);
  }

private:
  /// Marks the ops the loss depends on that depend on a trainable parameter.
  void collectActive(Block &body, Value loss) {
    llvm::DenseSet<Value> fromParams;
    for (Operation &op : body) {
      bool depends = false;
      if (auto param = llvm::dyn_cast<ParamOp>(op))
        depends = param.isTrainable();
      for (Value operand : op.getOperands())
        depends |= fromParams.contains(operand);
      if (depends)
        for (Value result : op.getResults())
          if (isFloat(result))
            fromParams.insert(result);
    }
    llvm::SmallVector<Value> worklist{loss};
    llvm::DenseSet<Value> toLoss;
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      if (!toLoss.insert(v).second)
        continue;
      if (Operation *def = v.getDefiningOp())
        worklist.append(def->operand_begin(), def->operand_end());
    }
    for (Value v : toLoss)
      if (fromParams.contains(v)) {
        activeValues.insert(v);
        active.insert(v.getDefiningOp());
      }
  }

  bool needsGrad(Value v) const { return activeValues.contains(v); }

  void accumulate(OpBuilder &b, Value value, Value grad) {
    Value &slot = grads[value];
    slot = slot ? b.create<AddOp>(grad.getLoc(), slot, grad).getResult() : grad;
  }

  /// The update of every trainable parameter, its optimizer state and the
  /// write-back; the minimize becomes the output "loss".
  LogicalResult emitUpdates(OpBuilder &b, Block &body, Value loss) {
    OptimizerAttr optimizer = minimize.getOptimizer();
    Location loc = minimize.getLoc();
    auto state = [&](llvm::StringRef name, Type type) { return newState(b, loc, name, type); };
    // Steps are counted from 1 by every optimizer: Adam's bias correction and
    // the schedule use the count, and a checkpoint records where training
    // stands.
    Value step = state("optimizer.step", RankedTensorType::get({}, b.getI64Type()));
    Value nextStep = b.create<AddOp>(loc, step, scalarConstant(b, loc, b.getI64Type(), 1.0));
    b.create<StateWriteOp>(loc, step, nextStep);
    Value lr = learningRate(b, loc, optimizer, nextStep);
    if (double clip = optimizer.getArg("clip_grad_norm", 0.0); clip > 0)
      minimize->getParentOp()->setAttr(mlir::mpg::kClipGradNormAttr, b.getF64FloatAttr(clip));
    if (double runs = optimizer.getArg("accumulate_steps", 1.0); runs > 1)
      minimize->getParentOp()->setAttr(mlir::mpg::kAccumulateStepsAttr,
                                       b.getI64IntegerAttr(static_cast<int64_t>(runs)));
    for (Operation &op : llvm::make_early_inc_range(body)) {
      auto param = llvm::dyn_cast<ParamOp>(op);
      if (!param || !param.isTrainable())
        continue;
      Value grad = grads.lookup(param.getResult());
      if (!grad) {
        param.emitWarning() << "parameter '" << param.getName()
                            << "' does not affect the loss; it is not updated";
        continue;
      }
      Value p = param.getResult();
      std::string name = param.getName().str();
      double wd = optimizer.getArg("weight_decay",
                                   optimizer.getKind() == OptimizerKind::AdamW ? 0.01 : 0.0);
      Value updated;
      if (optimizer.getKind() == OptimizerKind::SGD) {
        double momentum = optimizer.getArg("momentum", 0.0);
        Value velocity = momentum > 0 ? state(name + ".momentum_buffer", p.getType()) : Value();
        llvm::SmallVector<Value> operands{p, grad, lr};
        llvm::SmallVector<Type> results{p.getType()};
        if (velocity) {
          operands.push_back(velocity);
          results.push_back(velocity.getType());
        }
        llvm::SmallVector<NamedAttribute> attrs{
            b.getNamedAttr("momentum", b.getF64FloatAttr(momentum)),
            b.getNamedAttr("weight_decay", b.getF64FloatAttr(wd))};
        if (optimizer.getFlag("nesterov", false))
          attrs.push_back(b.getNamedAttr("nesterov", b.getUnitAttr()));
        auto sgd = b.create<SgdOp>(loc, results, operands, attrs);
        updated = sgd.getNewParam();
        if (velocity)
          b.create<StateWriteOp>(loc, velocity, sgd.getNewVelocity());
      } else {
        Value m = state(name + ".exp_avg", p.getType());
        Value v = state(name + ".exp_avg_sq", p.getType());
        auto beta1 = b.getF64FloatAttr(optimizer.getArg("beta1", 0.9));
        auto beta2 = b.getF64FloatAttr(optimizer.getArg("beta2", 0.999));
        auto eps = b.getF64FloatAttr(optimizer.getArg("eps", 1e-8));
        Type t = p.getType();
        Operation *adam =
            optimizer.getKind() == OptimizerKind::Adam
                ? b.create<AdamOp>(loc, t, t, t, p, grad, m, v, lr, nextStep, beta1, beta2, eps,
                                   b.getF64FloatAttr(wd))
                      .getOperation()
                : b.create<AdamWOp>(loc, t, t, t, p, grad, m, v, lr, nextStep, beta1, beta2, eps,
                                    b.getF64FloatAttr(wd))
                      .getOperation();
        updated = adam->getResult(0);
        b.create<StateWriteOp>(loc, m, adam->getResult(1));
        b.create<StateWriteOp>(loc, v, adam->getResult(2));
      }
      b.create<StateWriteOp>(loc, p, updated);
    }
    for (OutputOp output : body.getOps<OutputOp>())
      if (output.getName() == "loss")
        return output.emitError("mpg-autodiff names the loss output \"loss\", but the graph "
                                "already has an output with that name");
    b.create<OutputOp>(loc, "loss", loss);
    if (llvm::none_of(body.getOps<OutputOp>(), [](OutputOp o) { return o.getName() == "lr"; }))
      b.create<OutputOp>(loc, "lr", lr);
    minimize.erase();
    return success();
  }

  /// The learning rate of this step as a rank-0 f32 tensor: the constant
  /// `lr`, or the schedule of #mpg.optimizer evaluated at step `t`.
  static Value learningRate(OpBuilder &b, Location loc, OptimizerAttr optimizer, Value t) {
    Type f32 = b.getF32Type();
    double lr = optimizer.getArg("lr", 0.0);
    double warmup = optimizer.getArg("warmup_steps", 0.0);
    double decay = optimizer.getArg("decay_steps", 0.0);
    double minLr = optimizer.getArg("min_lr", 0.0);
    auto c = [&](double v) { return scalarConstant(b, loc, f32, v); };
    if (warmup <= 0 && decay <= 0)
      return c(lr);
    Value steps = b.create<CastOp>(loc, RankedTensorType::get({}, f32), t);
    Value rate = c(lr);
    // (one op a statement: the order in which a call's arguments are
    // evaluated, and so the order of the ops, differs between compilers)
    auto binary = [&](auto op, Value x, double y) -> Value {
      Value constant = c(y);
      return b.create<decltype(op)>(loc, x, constant);
    };
    if (decay > 0) {
      Value progress = binary(DivOp(), binary(SubOp(), steps, warmup), decay);
      progress = binary(MinimumOp(), binary(MaximumOp(), progress, 0.0), 1.0);
      Value cosine = b.create<CosOp>(loc, binary(MulOp(), progress, M_PI));
      Value half = binary(MulOp(), binary(AddOp(), cosine, 1.0), 0.5);
      Value base = c(minLr);
      rate = b.create<AddOp>(loc, base, binary(MulOp(), half, lr - minLr));
    }
    if (warmup > 0)
      rate = b.create<MulOp>(loc, rate, binary(MinimumOp(), binary(DivOp(), steps, warmup), 1.0));
    return rate;
  }

  GraphOp graph;
  MinimizeOp minimize;
  llvm::DenseSet<Operation *> active;
  llvm::DenseSet<Value> activeValues;
  llvm::DenseMap<Value, Value> grads;
};

struct MpgAutodiffPass : mpc::impl::MpgAutodiffBase<MpgAutodiffPass> {
  void runOnOperation() override {
    MinimizeOp minimize = getOperation().getMinimize();
    if (!minimize)
      return;
    if (failed(Differentiator(getOperation(), minimize).run()))
      signalPassFailure();
  }
};

} // namespace
