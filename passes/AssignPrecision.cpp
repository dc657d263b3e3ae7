//===- AssignPrecision.cpp - mixed-precision type assignment --------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Walks the graph in order (operands are defined before their users), decides
// each op's category and types, casts its operands where needed and retypes
// its results. See Passes.td for the rules.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/Precision/PrecisionSupport.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/GlobPattern.h"

namespace mpc {
#define GEN_PASS_DEF_MPGASSIGNPRECISION
#include "passes/Passes.h.inc"
} // namespace mpc

using namespace mlir;
using namespace mlir::mpg;
using namespace mpc::precision;

namespace {

/// What an op is, for precision: the category and why it gets its types.
struct Category {
  llvm::StringRef name;
  llvm::StringRef reason;
  bool lowPrecision; // dot-product: low-precision operands; fp32 kinds: f32
  bool follows;      // takes the precision of its operands
};

const Category kDotProduct{"dot-product",
                           "dot-product: low-precision operands run at full tensor-core rate; "
                           "products accumulate in fp32",
                           true, false};
const Category kAttention{"attention",
                          "fused attention: low-precision queries, keys, values and output; "
                          "scores, softmax statistics and the saved log-sum-exp in fp32, "
                          "products accumulated in fp32",
                          true, false};
const Category kReduction{"reduction",
                          "reduction: a sum of many values loses precision and can overflow "
                          "in fp16; computed and stored in fp32",
                          false, false};
const Category kSoftmax{"softmax",
                        "softmax family: exponentials and their normalising sum need fp32's "
                        "range; computed and stored in fp32",
                        false, false};
const Category kLoss{"loss",
                     "loss: a mean over the batch and log-probabilities; computed and stored "
                     "in fp32",
                     false, false};
const Category kNorm{"norm",
                     "normalisation: mean and variance are sums of many values; computed "
                     "and stored in fp32",
                     false, false};
const Category kSensitive{"sensitive",
                          "numerically sensitive: results leave fp16's range or lose "
                          "precision (exp, log, pow, rsqrt, scatter-add); fp32",
                          false, false};
const Category kUpdate{"update",
                       "optimizer update: fp32 master weights and optimizer state, so small "
                       "updates are not lost to fp16 rounding",
                       false, false};
const Category kFollow{"follow",
                       "pointwise or data movement: low precision when an operand is, else "
                       "fp32; fp32 math inside its fused kernel, one rounding at the store",
                       false, true};

const Category &categoryOf(Operation *op) {
  if (llvm::isa<AttentionOp, AttentionGradOp>(op))
    return kAttention;
  return *llvm::TypeSwitch<Operation *, const Category *>(op)
      .Case<MatmulOp, BatchMatmulOp, Conv2DOp, Conv2DGradInputOp, Conv2DGradFilterOp>(
          [](Operation *) -> const Category * { return &kDotProduct; })
      .Case<ReduceSumOp, ReduceMeanOp>([](Operation *) -> const Category * { return &kReduction; })
      .Case<SoftmaxOp, LogSoftmaxOp>([](Operation *) -> const Category * { return &kSoftmax; })
      .Case<SoftmaxCrossEntropyOp, SoftmaxCrossEntropyGradOp, MseLossOp>(
          [](Operation *) -> const Category * { return &kLoss; })
      .Case<LayerNormOp, LayerNormGradOp, BatchNormOp, BatchNormGradOp, GlobalAvgPoolOp>(
          [](Operation *) -> const Category * { return &kNorm; })
      .Case<ExpOp, LogOp, PowOp, RsqrtOp, EmbeddingGradOp>(
          [](Operation *) -> const Category * { return &kSensitive; })
      .Case<SgdOp, AdamOp, AdamWOp>([](Operation *) -> const Category * { return &kUpdate; })
      .Default([](Operation *) -> const Category * { return &kFollow; });
}

/// Operands and results that keep the type they have whatever the op's
/// precision: an attention's log-sum-exp (f32) and additive mask (as
/// written: it is added to fp32 scores).
bool keepsItsType(Operation *op, Value value) {
  if (auto attention = llvm::dyn_cast<AttentionOp>(op))
    return value == attention.getLse() || value == attention.getMask();
  if (auto grad = llvm::dyn_cast<AttentionGradOp>(op))
    return value == grad.getLse() || value == grad.getMask();
  return false;
}

/// Whether converting float type `from` to `to` can round (the reverse is
/// then exact).
bool isNarrowing(Type from, Type to) {
  auto wide = llvm::dyn_cast<FloatType>(from), narrow = llvm::dyn_cast<FloatType>(to);
  return wide && narrow && narrow.getWidth() < wide.getWidth();
}

class PrecisionAssigner {
public:
  /// `keptKinds`: op kinds kept in fp32 by a keep-fp32 pattern (name ->
  /// pattern); `keptReaders`: ops kept in fp32 because they read a parameter
  /// a keep-fp32 glob matches (op -> reason).
  PrecisionAssigner(GraphOp graph, FloatType low, const llvm::StringSet<> &allow,
                    const llvm::StringSet<> &deny, const llvm::StringMap<std::string> &keptKinds,
                    const llvm::DenseMap<Operation *, std::string> &keptReaders)
      : graph(graph), low(low), f32(Float32Type::get(graph.getContext())), allow(allow), deny(deny),
        keptKinds(keptKinds), keptReaders(keptReaders) {}

  LogicalResult run();
  int64_t castsInserted = 0, castsRemoved = 0;

private:
  LogicalResult assign(Operation *op);
  /// `value` with element type `element`: itself, the value it was cast
  /// from, a converted constant, or one cast shared by all users.
  Value convert(Value value, Type element);
  void record(Operation *op, llvm::StringRef category, Type storage, bool accumulates,
              bool forced, const std::string &reason);
  void removeRedundantCasts();

  GraphOp graph;
  FloatType low;
  FloatType f32;
  const llvm::StringSet<> &allow, &deny;
  const llvm::StringMap<std::string> &keptKinds;
  const llvm::DenseMap<Operation *, std::string> &keptReaders;
  llvm::DenseMap<std::pair<Value, Type>, Value> converted;
  llvm::SetVector<Operation *> convertedConstants;
};

Value PrecisionAssigner::convert(Value value, Type element) {
  if (elementOf(value) == element)
    return value;
  if (Value cached = converted.lookup({value, element}))
    return cached;
  // A value that is itself an exact widening of one of this type: use that
  // (the cast pair is never made).
  if (auto cast = value.getDefiningOp<CastOp>())
    if (elementOf(cast.getOperand()) == element && isNarrowing(elementOf(value), element)) {
      ++castsRemoved;
      return cast.getOperand();
    }
  auto type = llvm::cast<RankedTensorType>(value.getType()).clone(element);
  OpBuilder b(graph.getContext());
  if (Operation *def = value.getDefiningOp())
    b.setInsertionPointAfter(def);
  else
    b.setInsertionPointToStart(value.getParentBlock());
  Value result;
  if (auto constant = value.getDefiningOp<ConstantOp>();
      constant && llvm::isa<DenseElementsAttr>(constant.getValue())) {
    // Constants are converted at compile time.
    auto floatType = llvm::cast<FloatType>(element);
    auto dense = llvm::cast<DenseElementsAttr>(constant.getValue());
    bool overflows = false, flushes = false;
    DenseElementsAttr convertedAttr = dense.mapValues(element, [&](const APFloat &v) {
      APFloat w = v;
      bool lost;
      w.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      overflows |= w.isInfinity() && !v.isInfinity();
      flushes |= w.isZero() && !v.isZero();
      return w.bitcastToAPInt();
    });
    if (overflows || flushes)
      constant.emitWarning() << "converted to " << element << " for its users, this constant "
                             << (overflows ? "overflows to infinity" : "flushes to zero")
                             << "; keep them in f32 with mpg.precision = \"f32\"";
    ConstantOp copy = b.create<ConstantOp>(constant.getLoc(), convertedAttr);
    copy->setDiscardableAttrs(constant->getDiscardableAttrDictionary());
    result = copy;
    convertedConstants.insert(constant);
  } else {
    result = b.create<CastOp>(value.getLoc(), type, value);
    ++castsInserted;
  }
  converted[{value, element}] = result;
  return result;
}

void PrecisionAssigner::record(Operation *op, llvm::StringRef category, Type storage,
                               bool accumulates, bool forced, const std::string &reason) {
  Builder b(op->getContext());
  llvm::SmallVector<NamedAttribute> fields{
      b.getNamedAttr("category", b.getStringAttr(category)),
      b.getNamedAttr("storage", TypeAttr::get(storage)),
      b.getNamedAttr("compute", TypeAttr::get(storage.isF64() ? storage : Type(f32))),
      b.getNamedAttr("reason", b.getStringAttr(reason))};
  if (accumulates)
    fields.push_back(b.getNamedAttr("accumulate", TypeAttr::get(f32)));
  if (forced)
    fields.push_back(b.getNamedAttr("forced", b.getUnitAttr()));
  op->setAttr(mlir::mpg::kPrecisionDecisionAttr, b.getDictionaryAttr(fields));
}

LogicalResult PrecisionAssigner::assign(Operation *op) {
  if (!needsDecision(op))
    return success();

  const Category &category = categoryOf(op);
  std::string reason = category.reason.str();
  llvm::StringRef categoryName = category.name;
  bool accumulatesInF32 = category.lowPrecision; // (dot-products and attention)
  // The low-precision or fp32 decision; std::nullopt: follow the operands.
  std::optional<Type> target;
  if (category.follows)
    target = std::nullopt;
  else
    target = category.lowPrecision ? Type(low) : Type(f32);

  llvm::StringRef opName = op->getName().getStringRef();
  bool forced = true;
  auto keptKind = keptKinds.find(opName);
  auto keptReader = keptReaders.find(op);
  if (allow.contains(opName)) {
    target = low;
    reason = ("allow list: " + opName + " runs in low precision").str();
  } else if (deny.contains(opName)) {
    target = f32;
    reason = ("deny list: " + opName + " runs in fp32").str();
  } else if (keptKind != keptKinds.end()) {
    target = f32;
    reason = "keep-fp32 '" + keptKind->second + "': " + opName.str() + " runs in fp32";
  } else if (keptReader != keptReaders.end()) {
    target = f32;
    reason = keptReader->second;
  } else {
    forced = false;
  }
  if (auto override = op->getAttrOfType<StringAttr>(mlir::mpg::kPrecisionAttr)) {
    llvm::StringRef value = override.getValue();
    if (value == "f32")
      target = f32;
    else
      target = value == "f16" ? Type(Float16Type::get(op->getContext()))
                              : Type(BFloat16Type::get(op->getContext()));
    reason = ("override: mpg.precision = \"" + value + "\" on the op").str();
    forced = true;
  }

  // Following ops take low precision when a float operand has it; a
  // comparison of mixed operands compares in fp32.
  if (!target) {
    Type operandLow;
    bool anyF32 = false;
    for (Value operand : op->getOperands())
      if (isFloatValue(operand) && !operand.getDefiningOp<ConstantOp>()) {
        // (constants take whatever type their user has)
        if (elementOf(operand) == f32)
          anyF32 = true;
        else
          operandLow = elementOf(operand);
      }
    if (llvm::isa<CompareOp>(op) && operandLow && anyF32)
      target = f32;
    else
      target = operandLow ? operandLow : Type(f32);
  }

  for (OpOperand &operand : op->getOpOperands())
    if (isFloatValue(operand.get()) && !keepsItsType(op, operand.get()))
      operand.set(convert(operand.get(), *target));
  for (OpResult result : op->getResults())
    if (isFloatValue(result) && !keepsItsType(op, result))
      result.setType(llvm::cast<RankedTensorType>(result.getType()).clone(*target));

  record(op, categoryName, *target, accumulatesInF32, forced, reason);
  return success();
}

void PrecisionAssigner::removeRedundantCasts() {
  llvm::SmallVector<CastOp> casts;
  graph.getBody().walk([&](CastOp cast) { casts.push_back(cast); });
  for (CastOp cast : casts) {
    Value input = cast.getOperand();
    Type from = elementOf(input), to = elementOf(cast.getResult());
    // A cast to the same type, and a narrowing of an exact widening
    // (f16 -> f32 -> f16), give back their input.
    Value same;
    if (from == to)
      same = input;
    else if (auto inner = input.getDefiningOp<CastOp>();
             inner && elementOf(inner.getOperand()) == to && isNarrowing(from, to))
      same = inner.getOperand();
    if (same) {
      cast.getResult().replaceAllUsesWith(same);
      cast.erase();
      ++castsRemoved;
    }
  }
  // Casts left without users (a cast of the author's whose consumers now
  // read another type).
  for (bool changed = true; changed;) {
    changed = false;
    llvm::SmallVector<CastOp> dead;
    graph.getBody().walk([&](CastOp cast) {
      if (cast.getResult().use_empty())
        dead.push_back(cast);
    });
    for (CastOp cast : dead) {
      cast.erase();
      ++castsRemoved;
      changed = true;
    }
  }
}

LogicalResult PrecisionAssigner::run() {
  // The element type each value was written with: outputs, state writes
  // and the loss read their values in it.
  llvm::DenseMap<Value, Type> declared;
  graph.getBody().walk([&](Operation *op) {
    for (Value result : op->getResults())
      declared[result] = elementOf(result);
  });
  llvm::SmallVector<Operation *> ops;
  for (Operation &op : graph.getBody().front())
    ops.push_back(&op);
  for (Operation *op : ops) {
    if (llvm::isa<OutputOp, StateWriteOp, MinimizeOp>(op)) {
      for (OpOperand &operand : op->getOpOperands())
        if (Type type = declared.lookup(operand.get()); type && elementOf(operand.get()) != type)
          operand.set(convert(operand.get(), type));
      continue;
    }
    if (isStructural(op))
      continue;
    if (failed(assign(op)))
      return failure();
  }
  removeRedundantCasts();
  // Constants all of whose users now read a converted copy.
  for (Operation *constant : convertedConstants)
    if (constant->use_empty())
      constant->erase();
  return success();
}

/// Checks every op's `mpg.precision` override (in every mode).
LogicalResult verifyOverrides(GraphOp graph) {
  WalkResult result = graph.getBody().walk([](Operation *op) {
    Attribute attr = op->getAttr(mlir::mpg::kPrecisionAttr);
    if (!attr)
      return WalkResult::advance();
    auto value = llvm::dyn_cast<StringAttr>(attr);
    if (value && (value == "f32" || value == "f16" || value == "bf16"))
      return WalkResult::advance();
    InFlightDiagnostic diag = op->emitOpError() << "has mpg.precision = ";
    if (value)
      diag << "\"" << value.getValue() << "\"";
    else
      diag << attr;
    diag << "; expected \"f32\", \"f16\" or \"bf16\"";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

struct MpgAssignPrecisionPass
    : public mpc::impl::MpgAssignPrecisionBase<MpgAssignPrecisionPass> {
  using MpgAssignPrecisionBase::MpgAssignPrecisionBase;

  /// Resolves the keep-fp32 patterns: op kinds into `kinds` (name ->
  /// pattern), parameter globs into the ops that read a matching parameter
  /// (op -> reason). A pattern that is neither is an error.
  LogicalResult resolveKeepFp32(GraphOp graph, llvm::StringMap<std::string> &kinds,
                                llvm::DenseMap<Operation *, std::string> &readers) {
    for (const std::string &pattern : keepFp32) {
      std::string name = llvm::StringRef(pattern).starts_with("mpg.") ? pattern : "mpg." + pattern;
      if (RegisteredOperationName::lookup(name, &getContext())) {
        // (declarations, casts and regions hold no computation to keep)
        if (llvm::is_contained({"mpg.graph", "mpg.input", "mpg.param", "mpg.constant", "mpg.state",
                                "mpg.output", "mpg.state_write", "mpg.minimize", "mpg.cast",
                                "mpg.fusion", "mpg.yield"},
                               llvm::StringRef(name)))
          return graph.emitError()
                 << "mpg-assign-precision: keep-fp32 pattern '" << pattern << "' names " << name
                 << ", which has no precision of its own to keep (keep the "
                    "ops that read or compute the value instead)";
        kinds[name] = pattern;
        continue;
      }
      llvm::Expected<llvm::GlobPattern> glob = llvm::GlobPattern::create(pattern);
      if (!glob)
        return graph.emitError() << "mpg-assign-precision: keep-fp32 pattern '" << pattern
                                 << "' is not a valid glob: " << llvm::toString(glob.takeError());
      bool matched = false;
      for (ParamOp param : graph.getBody().front().getOps<ParamOp>()) {
        if (!glob->match(param.getName()))
          continue;
        matched = true;
        for (Operation *user : param->getUsers())
          readers.try_emplace(user, ("keep-fp32 '" + pattern + "': reads parameter " +
                                     param.getName() + ", kept in fp32")
                                        .str());
      }
      if (!matched)
        return graph.emitError() << "mpg-assign-precision: keep-fp32 pattern '" << pattern
                                 << "' is no op kind (there is no " << name
                                 << ") and matches no parameter of this graph";
    }
    return success();
  }

  void runOnOperation() override {
    GraphOp graph = getOperation();
    if (failed(verifyOverrides(graph)))
      return signalPassFailure();
    llvm::StringMap<std::string> keptKinds;
    llvm::DenseMap<Operation *, std::string> keptReaders;
    if (failed(resolveKeepFp32(graph, keptKinds, keptReaders)))
      return signalPassFailure();
    if (mode == "fp32")
      return;
    if (mode != "fp16" && mode != "bf16") {
      graph.emitError() << "mpg-assign-precision: unknown mode '" << mode
                        << "'; expected fp32, fp16 or bf16";
      return signalPassFailure();
    }
    MLIRContext *context = &getContext();
    FloatType low = mode == "fp16" ? FloatType(Float16Type::get(context))
                                   : FloatType(BFloat16Type::get(context));
    llvm::StringSet<> allowed, denied;
    for (const std::string &name : allow)
      allowed.insert(name);
    for (const std::string &name : deny)
      denied.insert(name);
    for (const llvm::StringSet<> *names : {&allowed, &denied})
      for (const auto &entry : *names)
        if (!RegisteredOperationName::lookup(entry.getKey(), context)) {
          graph.emitError() << "mpg-assign-precision: unknown op '" << entry.getKey()
                            << "' in the " << (names == &allowed ? "allow" : "deny")
                            << " list; name ops as in mpg.exp";
          return signalPassFailure();
        }
    for (const std::string &name : allow)
      if (denied.contains(name) || keptKinds.contains(name)) {
        graph.emitError() << "mpg-assign-precision: '" << name << "' is in both the allow and the "
                          << (denied.contains(name) ? "deny list" : "keep-fp32 patterns");
        return signalPassFailure();
      }
    PrecisionAssigner assigner(graph, low, allowed, denied, keptKinds, keptReaders);
    if (failed(assigner.run()))
      return signalPassFailure();
    Builder b(context);
    graph->setAttr(
        mlir::mpg::kPrecisionSummaryAttr,
        b.getDictionaryAttr(
            {b.getNamedAttr("mode", b.getStringAttr(mode)),
             b.getNamedAttr("casts_inserted", b.getI64IntegerAttr(assigner.castsInserted)),
             b.getNamedAttr("casts_removed", b.getI64IntegerAttr(assigner.castsRemoved))}));
  }
};

} // namespace
