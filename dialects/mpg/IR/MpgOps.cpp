//===- MpgOps.cpp - mpg operations: verifiers, type inference, folders -----===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "dialects/mpg/IR/MpgOps.h"
#include "dialects/mpg/IR/MpgShapes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::mpg;

#include "dialects/mpg/IR/MpgEnums.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The type of `value` as a ranked tensor, or null (operands of an op under
/// construction have not been verified yet).
static RankedTensorType tensorType(Value value) {
  return value ? llvm::dyn_cast<RankedTensorType>(value.getType()) : RankedTensorType();
}

static RankedTensorType tensorOf(llvm::ArrayRef<int64_t> shape, Type elementType) {
  return RankedTensorType::get(shape, elementType);
}

/// Result types of ops whose result element type is a precision decision:
/// the shapes must match, and the element types must match or both be floats.
static bool isSameShapeAnyFloat(TypeRange inferred, TypeRange actual) {
  if (inferred.size() != actual.size())
    return false;
  for (auto [a, b] : llvm::zip(inferred, actual)) {
    if (a == b)
      continue;
    auto ta = llvm::dyn_cast<RankedTensorType>(a);
    auto tb = llvm::dyn_cast<RankedTensorType>(b);
    if (!ta || !tb || ta.getShape() != tb.getShape() ||
        !llvm::isa<FloatType>(ta.getElementType()) ||
        !llvm::isa<FloatType>(tb.getElementType()))
      return false;
  }
  return true;
}

#define MPG_SAME_SHAPE_ANY_FLOAT(OpClass)                                                 \
  bool OpClass::isCompatibleReturnTypes(TypeRange l, TypeRange r) {                       \
    return isSameShapeAnyFloat(l, r);                                                     \
  }
MPG_SAME_SHAPE_ANY_FLOAT(MatmulOp)
MPG_SAME_SHAPE_ANY_FLOAT(BatchMatmulOp)
MPG_SAME_SHAPE_ANY_FLOAT(Conv2DOp)
MPG_SAME_SHAPE_ANY_FLOAT(ReduceSumOp)
MPG_SAME_SHAPE_ANY_FLOAT(ReduceMeanOp)
MPG_SAME_SHAPE_ANY_FLOAT(SoftmaxOp)
MPG_SAME_SHAPE_ANY_FLOAT(LogSoftmaxOp)
MPG_SAME_SHAPE_ANY_FLOAT(LayerNormOp)
MPG_SAME_SHAPE_ANY_FLOAT(BatchNormOp)
MPG_SAME_SHAPE_ANY_FLOAT(SoftmaxCrossEntropyOp)
MPG_SAME_SHAPE_ANY_FLOAT(MseLossOp)
MPG_SAME_SHAPE_ANY_FLOAT(ScaleOp)
MPG_SAME_SHAPE_ANY_FLOAT(UnscaleOp)
#undef MPG_SAME_SHAPE_ANY_FLOAT

/// True when `value` is finite and > `bound` (NaN and inf fail).
static bool isFiniteAbove(const llvm::APFloat &value, double bound) {
  double v = value.convertToDouble();
  return std::isfinite(v) && v > bound;
}

/// True when `value` is finite and >= `bound`.
static bool isFiniteAtLeast(const llvm::APFloat &value, double bound) {
  double v = value.convertToDouble();
  return std::isfinite(v) && v >= bound;
}

namespace {
/// Where the shape checks shared by type inference and verification report
/// an error: as the op's error when verifying ("'mpg.matmul' op ..."), at a
/// location when inferring for a parser or builder, or nowhere when
/// inference is only probing.
class ErrorSink {
public:
  ErrorSink(std::optional<Location> location) : location(location) {}
  ErrorSink(Operation *op) : op(op) {}

  template <typename... Args>
  LogicalResult operator()(Args &&...args) const {
    if (!op && !location)
      return failure();
    InFlightDiagnostic diag = op ? op->emitOpError() : mlir::emitError(*location);
    (diag << ... << std::forward<Args>(args));
    return diag;
  }

private:
  std::optional<Location> location;
  Operation *op = nullptr;
};
} // namespace

/// Reports `args` through `sink` and fails.
template <typename... Args>
static LogicalResult inferError(const ErrorSink &sink, Args &&...args) {
  return sink(std::forward<Args>(args)...);
}

/// Checks that a value expected to match a shape does; used by verifiers of
/// ops whose operand/result shapes follow from other operands.
static LogicalResult expectShape(Operation *op, llvm::StringRef what, RankedTensorType type,
                                 llvm::ArrayRef<int64_t> expected) {
  if (type.getShape() == expected)
    return success();
  return op->emitOpError() << "expects " << what << " of shape " << formatShape(expected)
                           << ", got " << formatShape(type.getShape());
}

static LogicalResult expectSameElementType(Operation *op, llvm::StringRef a, Type ta,
                                           llvm::StringRef b, Type tb) {
  Type ea = getElementTypeOrSelf(ta), eb = getElementTypeOrSelf(tb);
  if (ea == eb)
    return success();
  return op->emitOpError() << "expects " << a << " and " << b
                           << " to have the same element type, got " << ea << " and " << eb;
}

//===----------------------------------------------------------------------===//
// Custom directive: `(kind, name = value, ...)` for initializers and optimizers
//===----------------------------------------------------------------------===//

static ParseResult parseKindAndArgsImpl(OpAsmParser &parser, llvm::StringRef &kind,
                                        DictionaryAttr &args) {
  NamedAttrList list;
  if (parser.parseLParen() || parser.parseKeyword(&kind))
    return failure();
  while (succeeded(parser.parseOptionalComma())) {
    llvm::StringRef name;
    Attribute value;
    llvm::SMLoc loc = parser.getCurrentLocation();
    if (parser.parseKeyword(&name) || parser.parseEqual() || parser.parseAttribute(value))
      return failure();
    if (list.get(name))
      return parser.emitError(loc) << "argument '" << name << "' is given twice";
    list.append(name, value);
  }
  if (parser.parseRParen())
    return failure();
  args = list.getDictionary(parser.getContext());
  return success();
}

static void printKindAndArgsImpl(OpAsmPrinter &printer, llvm::StringRef kind,
                                 DictionaryAttr args) {
  printer << "(" << kind;
  for (NamedAttribute arg : args) {
    printer << ", " << arg.getName().strref() << " = ";
    printer.printAttributeWithoutType(arg.getValue());
  }
  printer << ")";
}

static ParseResult parseKindAndArgs(OpAsmParser &parser, InitializerAttr &attr) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  llvm::StringRef kindName;
  DictionaryAttr args;
  if (parseKindAndArgsImpl(parser, kindName, args))
    return failure();
  std::optional<InitKind> kind = symbolizeInitKind(kindName);
  if (!kind)
    return parser.emitError(loc) << "unknown initializer '" << kindName
                                 << "'; expected one of: zeros, ones, constant, normal, "
                                    "uniform, glorot_uniform, he_normal, seed";
  attr = InitializerAttr::getChecked([&] { return parser.emitError(loc); },
                                     parser.getContext(), *kind, args);
  return success(static_cast<bool>(attr));
}

static void printKindAndArgs(OpAsmPrinter &printer, Operation *, InitializerAttr attr) {
  printKindAndArgsImpl(printer, stringifyInitKind(attr.getKind()), attr.getArgs());
}

static ParseResult parseKindAndArgs(OpAsmParser &parser, OptimizerAttr &attr) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  llvm::StringRef kindName;
  DictionaryAttr args;
  if (parseKindAndArgsImpl(parser, kindName, args))
    return failure();
  std::optional<OptimizerKind> kind = symbolizeOptimizerKind(kindName);
  if (!kind)
    return parser.emitError(loc) << "unknown optimizer '" << kindName
                                 << "'; expected one of: sgd, adam, adamw";
  attr = OptimizerAttr::getChecked([&] { return parser.emitError(loc); },
                                   parser.getContext(), *kind, args);
  return success(static_cast<bool>(attr));
}

static void printKindAndArgs(OpAsmPrinter &printer, Operation *, OptimizerAttr attr) {
  printKindAndArgsImpl(printer, stringifyOptimizerKind(attr.getKind()), attr.getArgs());
}

//===----------------------------------------------------------------------===//
// Graph structure
//===----------------------------------------------------------------------===//

void GraphOp::build(OpBuilder &builder, OperationState &state, llvm::StringRef name) {
  state.getOrAddProperties<Properties>().sym_name = builder.getStringAttr(name);
  state.addRegion()->push_back(new Block());
}

MinimizeOp GraphOp::getMinimize() {
  auto range = getBody().front().getOps<MinimizeOp>();
  return range.empty() ? MinimizeOp() : *range.begin();
}

/// Reports the second op that uses a name already taken in its namespace.
static LogicalResult checkUniqueName(llvm::StringMap<Operation *> &seen, Operation *op,
                                     llvm::StringRef name, llvm::StringRef what) {
  auto [it, inserted] = seen.try_emplace(name, op);
  if (inserted)
    return success();
  return op->emitOpError() << "reuses the " << what << " name '" << name << "'"
                           << "; names must be unique within a graph"
                           << " (first used at " << it->second->getLoc() << ")";
}

LogicalResult GraphOp::verify() {
  llvm::StringMap<Operation *> inputs, outputs, persistent;
  llvm::DenseMap<Operation *, Operation *> writes;
  Operation *minimize = nullptr;
  for (Operation &op : getBody().front()) {
    LogicalResult result = success();
    if (auto input = llvm::dyn_cast<InputOp>(op))
      result = checkUniqueName(inputs, &op, input.getName(), "input");
    else if (auto output = llvm::dyn_cast<OutputOp>(op))
      result = checkUniqueName(outputs, &op, output.getName(), "output");
    else if (auto param = llvm::dyn_cast<ParamOp>(op))
      result = checkUniqueName(persistent, &op, param.getName(), "parameter/state");
    else if (auto state = llvm::dyn_cast<StateOp>(op))
      result = checkUniqueName(persistent, &op, state.getName(), "parameter/state");
    else if (auto write = llvm::dyn_cast<StateWriteOp>(op)) {
      Operation *target = write.getTarget();
      if (target) {
        auto [it, inserted] = writes.try_emplace(target, &op);
        if (!inserted)
          return op.emitOpError() << "writes state '" << write.getTargetName()
                                  << "' a second time; each state is written at most once "
                                     "per step (first write at "
                                  << it->second->getLoc() << ")";
      }
    } else if (llvm::isa<MinimizeOp>(op)) {
      if (minimize)
        return op.emitOpError() << "is the second mpg.minimize of graph @" << getSymName()
                                << "; a graph has at most one (first at "
                                << minimize->getLoc() << ")";
      minimize = &op;
    }
    if (failed(result))
      return failure();
  }
  return success();
}

/// Names the SSA result after the input, parameter or state it reads, so
/// printed graphs read `%fc1.weight` rather than `%2`.
static void nameAfter(Value result, llvm::StringRef name, OpAsmSetValueNameFn setNameFn) {
  if (!name.empty())
    setNameFn(result, name);
}

void InputOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  nameAfter(getResult(), getName(), setNameFn);
}

void ParamOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  nameAfter(getResult(), getName(), setNameFn);
}

void StateOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  nameAfter(getResult(), getName(), setNameFn);
}

LogicalResult InputOp::verify() {
  if (getName().empty())
    return emitOpError("expects a non-empty name");
  return success();
}

LogicalResult OutputOp::verify() {
  if (getName().empty())
    return emitOpError("expects a non-empty name");
  return success();
}

/// Checks an initializer against the tensor it initialises.
static LogicalResult verifyInitializer(Operation *op, InitializerAttr init,
                                       RankedTensorType type) {
  InitKind kind = init.getKind();
  bool random = kind == InitKind::Normal || kind == InitKind::Uniform ||
                kind == InitKind::GlorotUniform || kind == InitKind::HeNormal;
  if (random && !llvm::isa<FloatType>(type.getElementType()))
    return op->emitOpError() << "initializer '" << stringifyInitKind(kind)
                             << "' needs a float tensor, got element type "
                             << type.getElementType();
  if (kind == InitKind::Seed &&
      !(type.getElementType().isInteger(64) || type.getElementType().isInteger(32)))
    return op->emitOpError() << "initializer 'seed' needs an i32 or i64 tensor, got element type "
                             << type.getElementType();
  if (kind == InitKind::Constant) {
    double value = init.getArg("value", 0.0);
    Type element = type.getElementType();
    if (element.isInteger(1) && value != 0 && value != 1)
      return op->emitOpError() << "initializer 'constant' value " << value
                               << " is not a boolean (0 or 1)";
    if (auto integer = llvm::dyn_cast<IntegerType>(element);
        integer && !integer.isInteger(1)) {
      double limit = std::ldexp(1.0, static_cast<int>(integer.getWidth()) - 1);
      if (value != std::trunc(value) || value < -limit || value >= limit)
        return op->emitOpError() << "initializer 'constant' value " << value
                                 << " is not representable in " << element;
    }
  }
  if ((kind == InitKind::GlorotUniform || kind == InitKind::HeNormal) && type.getRank() < 2)
    return op->emitOpError() << "initializer '" << stringifyInitKind(kind)
                             << "' needs a tensor of rank >= 2 to define its fans, got rank "
                             << type.getRank();
  return success();
}

LogicalResult ParamOp::verify() {
  if (getName().empty())
    return emitOpError("expects a non-empty name");
  return verifyInitializer(*this, getInit(), getType());
}

LogicalResult StateOp::verify() {
  if (getName().empty())
    return emitOpError("expects a non-empty name");
  return verifyInitializer(*this, getInit(), getType());
}

Operation *StateWriteOp::getTarget() {
  Operation *def = getState().getDefiningOp();
  return llvm::isa_and_nonnull<StateOp, ParamOp>(def) ? def : nullptr;
}

llvm::StringRef StateWriteOp::getTargetName() {
  if (auto state = getState().getDefiningOp<StateOp>())
    return state.getName();
  if (auto param = getState().getDefiningOp<ParamOp>())
    return param.getName();
  return "";
}

LogicalResult StateWriteOp::verify() {
  if (!getTarget())
    return emitOpError("expects its first operand to be the result of an mpg.state or an "
                       "mpg.param");
  return success();
}

void FusionOp::build(OpBuilder &builder, OperationState &state, FusionKind kind,
                     ValueRange inputs, TypeRange resultTypes) {
  state.getOrAddProperties<Properties>().kind = FusionKindAttr::get(builder.getContext(), kind);
  state.addOperands(inputs);
  state.addTypes(resultTypes);
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Value input : inputs)
    block->addArgument(input.getType(), input.getLoc());
}

/// Whether `op` computes each result element from the same-index elements of
/// its operands (after broadcasting), so that it fits in a pointwise kernel.
bool mlir::mpg::isPointwiseOp(Operation *op) {
  return llvm::isa<NegOp, AbsOp, ExpOp, LogOp, SqrtOp, RsqrtOp, TanhOp, SinOp, CosOp, SigmoidOp,
                   ReluOp,
                   LeakyReluOp, GeluOp, AddOp, SubOp, MulOp, DivOp, PowOp, MaximumOp,
                   MinimumOp, CompareOp, SelectOp, CastOp, BroadcastToOp, ScaleOp, UnscaleOp,
                   GeluGradOp, ConstantOp>(op);
}

LogicalResult FusionOp::verify() {
  if (getResults().empty())
    return emitOpError("expects at least one result");
  return success();
}

LogicalResult FusionOp::verifyRegions() {
  Block &block = getBody().front();
  if (block.getNumArguments() != getInputs().size())
    return emitOpError() << "expects one block argument per input (" << getInputs().size()
                         << "), got " << block.getNumArguments();
  for (auto [i, pair] : llvm::enumerate(llvm::zip(block.getArgumentTypes(), getInputs())))
    if (std::get<0>(pair) != std::get<1>(pair).getType())
      return emitOpError() << "block argument " << i << " has type " << std::get<0>(pair)
                           << " but input " << i << " has type "
                           << std::get<1>(pair).getType();
  auto yield = llvm::cast<YieldOp>(block.getTerminator());
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError("expects the yielded types to equal the result types");

  // What each kind may hold besides pointwise ops: exactly one anchor op.
  unsigned anchors = 0;
  for (Operation &op : block.without_terminator()) {
    bool anchor = false;
    switch (getKind()) {
    case FusionKind::Pointwise:
      break;
    case FusionKind::Reduction:
      anchor = llvm::isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp>(op);
      break;
    case FusionKind::Row:
      anchor = llvm::isa<SoftmaxOp, LogSoftmaxOp, LayerNormOp, SoftmaxCrossEntropyOp,
                         SoftmaxCrossEntropyGradOp>(op);
      break;
    case FusionKind::Gemm:
      anchor = llvm::isa<MatmulOp, BatchMatmulOp>(op);
      break;
    case FusionKind::Conv:
      anchor = llvm::isa<Conv2DOp>(op);
      break;
    case FusionKind::Single:
      anchor = !isPointwiseOp(&op);
      break;
    }
    if (anchor) {
      ++anchors;
      continue;
    }
    if (!isPointwiseOp(&op))
      return op.emitOpError() << "cannot be part of a '" << stringifyFusionKind(getKind())
                              << "' fusion group";
  }
  bool needsAnchor = getKind() != FusionKind::Pointwise && getKind() != FusionKind::Single;
  if ((needsAnchor && anchors != 1) || anchors > 1)
    return emitOpError() << "a '" << stringifyFusionKind(getKind())
                         << "' fusion group holds exactly one "
                         << (getKind() == FusionKind::Gemm ? "matmul" : "anchor op")
                         << ", found " << anchors;
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

/// Whether every value of `from` is a value of `to`: f16 and bf16 in f32
/// and f64, f32 in f64.
static bool widensExactly(Type from, Type to) {
  auto narrow = llvm::dyn_cast<FloatType>(from), wide = llvm::dyn_cast<FloatType>(to);
  return narrow && wide && (narrow.isF16() || narrow.isBF16() || narrow.isF32()) &&
         (wide.isF32() || wide.isF64()) && wide.getWidth() > narrow.getWidth();
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  auto inner = getOperand().getDefiningOp<CastOp>();
  if (!inner || !widensExactly(getElementTypeOrSelf(inner.getOperand().getType()),
                               getElementTypeOrSelf(inner.getType())))
    return {};
  if (inner.getOperand().getType() == getType())
    return inner.getOperand();
  getOperandMutable().assign(inner.getOperand());
  return getResult();
}

//===----------------------------------------------------------------------===//
// Dot-product ops
//===----------------------------------------------------------------------===//

/// Infers `[..., M, N]` from `[..., M, K]` x `[..., K, N]` with transposes.
static LogicalResult inferMatmul(const ErrorSink &location, Value lhs, Value rhs,
                                 bool transposeA, bool transposeB, bool batched,
                                 SmallVectorImpl<Type> &inferred) {
  RankedTensorType a = tensorType(lhs), b = tensorType(rhs);
  if (!a || !b)
    return inferError(location, "expects ranked tensor operands");
  if (!batched && (a.getRank() != 2 || b.getRank() != 2))
    return inferError(location, "expects rank-2 operands, got " + formatShape(a.getShape()) +
                                    " and " + formatShape(b.getShape()));
  if (batched) {
    if (a.getRank() < 3 || a.getRank() != b.getRank())
      return inferError(location, "expects operands of the same rank >= 3, got " +
                                      formatShape(a.getShape()) + " and " +
                                      formatShape(b.getShape()));
    if (a.getShape().drop_back(2) != b.getShape().drop_back(2))
      return inferError(location, "expects identical batch dimensions, got " +
                                      formatShape(a.getShape()) + " and " +
                                      formatShape(b.getShape()));
  }
  if (a.getElementType() != b.getElementType())
    return inferError(location, "expects operands of the same element type, got ",
                      a.getElementType(), " and ", b.getElementType());
  int64_t r = a.getRank();
  int64_t m = a.getDimSize(transposeA ? r - 1 : r - 2);
  int64_t ka = a.getDimSize(transposeA ? r - 2 : r - 1);
  int64_t kb = b.getDimSize(transposeB ? r - 1 : r - 2);
  int64_t n = b.getDimSize(transposeB ? r - 2 : r - 1);
  if (ka != kb)
    return inferError(location, "contraction dimensions differ: " + std::to_string(ka) +
                                    " (lhs) vs " + std::to_string(kb) + " (rhs) for shapes " +
                                    formatShape(a.getShape()) + " and " +
                                    formatShape(b.getShape()));
  llvm::SmallVector<int64_t> shape(a.getShape().drop_back(2));
  shape.append({m, n});
  inferred.push_back(tensorOf(shape, a.getElementType()));
  return success();
}

static LogicalResult inferMatmulOp(const ErrorSink &location, MLIRContext *context,
    MatmulOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  return inferMatmul(location, adaptor.getLhs(), adaptor.getRhs(), adaptor.getTransposeA(),
                     adaptor.getTransposeB(), /*batched=*/false, inferred);
}

static LogicalResult inferBatchMatmulOp(const ErrorSink &location, MLIRContext *context,
    BatchMatmulOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  return inferMatmul(location, adaptor.getLhs(), adaptor.getRhs(), adaptor.getTransposeA(),
                     adaptor.getTransposeB(), /*batched=*/true, inferred);
}

static llvm::SmallVector<int64_t, 2> pairOr(std::optional<llvm::ArrayRef<int64_t>> v,
                                            int64_t fallback0, int64_t fallback1) {
  if (v)
    return llvm::SmallVector<int64_t, 2>(v->begin(), v->end());
  return {fallback0, fallback1};
}

static llvm::SmallVector<int64_t, 4> paddingOr(std::optional<llvm::ArrayRef<int64_t>> v) {
  if (v)
    return llvm::SmallVector<int64_t, 4>(v->begin(), v->end());
  return {0, 0, 0, 0};
}

#define MPG_CONV_ACCESSORS(OpClass)                                                       \
  llvm::SmallVector<int64_t, 2> OpClass::getStrideValues() {                              \
    return pairOr(getStride(), 1, 1);                                                     \
  }                                                                                       \
  llvm::SmallVector<int64_t, 4> OpClass::getPaddingValues() {                             \
    return paddingOr(getPadding());                                                       \
  }                                                                                       \
  llvm::SmallVector<int64_t, 2> OpClass::getDilationValues() {                            \
    return pairOr(getDilation(), 1, 1);                                                   \
  }                                                                                       \
  int64_t OpClass::getGroupCount() {                                                      \
    return getGroups() ? static_cast<int64_t>(*getGroups()) : 1;                          \
  }
MPG_CONV_ACCESSORS(Conv2DOp)
MPG_CONV_ACCESSORS(Conv2DGradInputOp)
MPG_CONV_ACCESSORS(Conv2DGradFilterOp)
#undef MPG_CONV_ACCESSORS

static LogicalResult inferConv2DOp(const ErrorSink &location, MLIRContext *context,
    Conv2DOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  RankedTensorType input = tensorType(adaptor.getInput());
  RankedTensorType filter = tensorType(adaptor.getFilter());
  if (!input || !filter)
    return inferError(location, "expects ranked tensor operands");
  if (input.getElementType() != filter.getElementType())
    return inferError(location, "expects input and filter of the same element type");
  int64_t groups = adaptor.getGroups() ? static_cast<int64_t>(*adaptor.getGroups()) : 1;
  llvm::SmallVector<int64_t> shape;
  std::string error;
  if (failed(conv2dOutputShape(input.getShape(), filter.getShape(), adaptor.getStride(),
                               adaptor.getPadding(), adaptor.getDilation(), groups, shape,
                               error)))
    return inferError(location, error);
  inferred.push_back(tensorOf(shape, input.getElementType()));
  return success();
}

/// Verifies a convolution gradient by running the forward shape rule on the
/// shapes it connects: conv(input, filter) must give `output`.
template <typename ConvGradOp>
static LogicalResult verifyConvGrad(ConvGradOp op, RankedTensorType input,
                                    RankedTensorType filter, RankedTensorType output) {
  if (input.getElementType() != filter.getElementType() ||
      input.getElementType() != output.getElementType())
    return op.emitOpError("expects operands and result of the same element type");
  llvm::SmallVector<int64_t> shape;
  std::string error;
  if (failed(conv2dOutputShape(input.getShape(), filter.getShape(), op.getStride(),
                               op.getPadding(), op.getDilation(), op.getGroupCount(), shape,
                               error)))
    return op.emitOpError() << error;
  return expectShape(op, "the output gradient", output, shape);
}

LogicalResult Conv2DGradInputOp::verify() {
  return verifyConvGrad(*this, getType(), getFilter().getType(), getGradOutput().getType());
}

LogicalResult Conv2DGradFilterOp::verify() {
  return verifyConvGrad(*this, getInput().getType(), getType(), getGradOutput().getType());
}

//===----------------------------------------------------------------------===//
// Pointwise ops
//===----------------------------------------------------------------------===//

LogicalResult LeakyReluOp::verify() {
  double alpha = getAlpha().convertToDouble();
  if (!std::isfinite(alpha) || alpha < 0)
    return emitOpError() << "expects alpha finite and >= 0, got " << alpha;
  return success();
}

LogicalResult DropoutOp::verify() {
  double rate = getRate().convertToDouble();
  if (!(rate >= 0 && rate < 1))
    return emitOpError() << "expects a rate in [0, 1), got " << rate;
  if (getKey().size() != 0 && getKey().size() != 2)
    return emitOpError() << "expects a key of two i64 scalars (seed, run), got " << getKey().size()
                         << " operands";
  for (Value part : getKey())
    if (!llvm::cast<RankedTensorType>(part.getType()).getElementType().isInteger(64))
      return emitOpError() << "expects a key of i64 scalars, got " << part.getType();
  if (isKeyed() != getStream().has_value())
    return emitOpError(isKeyed() ? "with a key expects a stream number"
                                 : "expects a stream number only with a key");
  if (IntegerAttr stream = getStreamAttr();
      stream && (stream.getInt() < 0 || stream.getInt() > 0xffffffffll))
    return emitOpError() << "expects a stream in [0, 2^32), got " << stream.getInt();
  if (getInput().getType().getNumElements() >= (int64_t(1) << 34))
    return emitOpError() << "expects fewer than 2^34 elements (the random counter's range), got "
                         << getInput().getType().getNumElements();
  return success();
}

/// Broadcast shape of several operands with one element type.
static LogicalResult inferBroadcast(const ErrorSink &location, ValueRange operands,
                                    Type elementType, SmallVectorImpl<Type> &inferred) {
  llvm::SmallVector<int64_t> shape;
  for (Value operand : operands) {
    RankedTensorType type = tensorType(operand);
    if (!type)
      return inferError(location, "expects ranked tensor operands");
    llvm::SmallVector<int64_t> next;
    std::string error;
    if (failed(broadcastShapes(shape, type.getShape(), next, error)))
      return inferError(location, error);
    shape = std::move(next);
  }
  inferred.push_back(tensorOf(shape, elementType));
  return success();
}

static LogicalResult inferBinary(const ErrorSink &location, Value lhs, Value rhs,
                                 SmallVectorImpl<Type> &inferred) {
  RankedTensorType a = tensorType(lhs), b = tensorType(rhs);
  if (!a || !b)
    return inferError(location, "expects ranked tensor operands");
  if (a.getElementType() != b.getElementType())
    return inferError(location, "expects operands of the same element type, got ",
                             a.getElementType(), " and ", b.getElementType());
  return inferBroadcast(location, ValueRange{lhs, rhs}, a.getElementType(), inferred);
}

#define MPG_BINARY_INFER(OpClass)                                                         \
  static LogicalResult infer##OpClass(const ErrorSink &location, MLIRContext *,            \
                                      OpClass::Adaptor adaptor,                           \
                                      SmallVectorImpl<Type> &inferred) {                  \
    return inferBinary(location, adaptor.getLhs(), adaptor.getRhs(), inferred);           \
  }
MPG_BINARY_INFER(AddOp)
MPG_BINARY_INFER(SubOp)
MPG_BINARY_INFER(MulOp)
MPG_BINARY_INFER(DivOp)
MPG_BINARY_INFER(PowOp)
MPG_BINARY_INFER(MaximumOp)
MPG_BINARY_INFER(MinimumOp)
#undef MPG_BINARY_INFER

static LogicalResult inferCompareOp(const ErrorSink &location, MLIRContext *context,
    CompareOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  llvm::SmallVector<Type> same;
  if (failed(inferBinary(location, adaptor.getLhs(), adaptor.getRhs(), same)))
    return failure();
  inferred.push_back(
      tensorOf(llvm::cast<RankedTensorType>(same[0]).getShape(), IntegerType::get(context, 1)));
  return success();
}

static LogicalResult inferSelectOp(const ErrorSink &location, MLIRContext *context,
    SelectOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  RankedTensorType a = tensorType(adaptor.getOnTrue()), b = tensorType(adaptor.getOnFalse());
  if (!a || !b)
    return inferError(location, "expects ranked tensor operands");
  if (a.getElementType() != b.getElementType())
    return inferError(location,
                             "expects on_true and on_false of the same element type, got ",
                             a.getElementType(), " and ", b.getElementType());
  return inferBroadcast(location,
                        ValueRange{adaptor.getCond(), adaptor.getOnTrue(), adaptor.getOnFalse()},
                        a.getElementType(), inferred);
}

//===----------------------------------------------------------------------===//
// Reductions, normalisation and pooling
//===----------------------------------------------------------------------===//

static LogicalResult inferReduce(const ErrorSink &location, Value operand,
                                 llvm::ArrayRef<int64_t> axes, bool keepDims,
                                 SmallVectorImpl<Type> &inferred) {
  RankedTensorType type = tensorType(operand);
  if (!type)
    return inferError(location, "expects a ranked tensor operand");
  llvm::SmallVector<int64_t> normalized;
  std::string error;
  if (failed(normalizeAxes(axes, type.getRank(), normalized, error)))
    return inferError(location, error);
  inferred.push_back(
      tensorOf(reducedShape(type.getShape(), normalized, keepDims), type.getElementType()));
  return success();
}

#define MPG_REDUCE_INFER(OpClass)                                                         \
  static LogicalResult infer##OpClass(const ErrorSink &location, MLIRContext *,            \
                                      OpClass::Adaptor adaptor,                           \
                                      SmallVectorImpl<Type> &inferred) {                  \
    return inferReduce(location, adaptor.getOperand(), adaptor.getAxes(),                 \
                       adaptor.getKeepdim(), inferred);                                   \
  }
MPG_REDUCE_INFER(ReduceSumOp)
MPG_REDUCE_INFER(ReduceMeanOp)
MPG_REDUCE_INFER(ReduceMaxOp)
#undef MPG_REDUCE_INFER

static LogicalResult inferSameAsOperandWithAxis(const ErrorSink &location,
                                                Value operand, int64_t axis,
                                                SmallVectorImpl<Type> &inferred) {
  RankedTensorType type = tensorType(operand);
  if (!type)
    return inferError(location, "expects a ranked tensor operand");
  if (type.getRank() == 0)
    return inferError(location, "expects an operand of rank >= 1");
  int64_t normalized;
  std::string error;
  if (failed(normalizeAxis(axis, type.getRank(), normalized, error)))
    return inferError(location, error);
  inferred.push_back(type);
  return success();
}

static LogicalResult inferSoftmaxOp(const ErrorSink &location, MLIRContext *context,
    SoftmaxOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  return inferSameAsOperandWithAxis(location, adaptor.getOperand(),
                                    static_cast<int64_t>(adaptor.getAxis()), inferred);
}

static LogicalResult inferLogSoftmaxOp(const ErrorSink &location, MLIRContext *context,
    LogSoftmaxOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  return inferSameAsOperandWithAxis(location, adaptor.getOperand(),
                                    static_cast<int64_t>(adaptor.getAxis()), inferred);
}

/// Checks that `values` (the parameters of a normalisation) share one
/// element type; it may differ from the normalised input's.
static LogicalResult checkSameElementTypes(const ErrorSink &location, llvm::StringRef what,
                                           llvm::ArrayRef<Value> values) {
  for (Value value : values.drop_front())
    if (tensorType(value) && tensorType(values.front()) &&
        tensorType(value).getElementType() != tensorType(values.front()).getElementType())
      return inferError(location, "expects ", what, " to have one element type, got ",
                        tensorType(values.front()).getElementType(), " and ",
                        tensorType(value).getElementType());
  return success();
}

/// Checks gamma/beta of a layer norm over dims `axis...` of `input`.
static LogicalResult checkLayerNormParams(const ErrorSink &location,
                                          RankedTensorType input, int64_t axis,
                                          double eps, llvm::ArrayRef<Value> params,
                                          llvm::StringRef what) {
  int64_t normalized;
  std::string error;
  if (input.getRank() == 0)
    return inferError(location, "expects an operand of rank >= 1");
  if (failed(normalizeAxis(axis, input.getRank(), normalized, error)))
    return inferError(location, error);
  if (!(eps > 0) || !std::isfinite(eps))
    return inferError(location, "expects a finite eps > 0");
  llvm::ArrayRef<int64_t> expected = input.getShape().drop_front(normalized);
  if (failed(checkSameElementTypes(location, what, params)))
    return failure();
  for (Value param : params) {
    RankedTensorType type = tensorType(param);
    if (!type)
      return inferError(location, "expects ranked tensor operands");
    if (type.getShape() != expected)
      return inferError(location, "expects " + what.str() + " of the normalised shape " +
                                      formatShape(expected) + ", got " +
                                      formatShape(type.getShape()));
  }
  return success();
}

static LogicalResult inferLayerNormOp(const ErrorSink &location, MLIRContext *context,
    LayerNormOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  RankedTensorType input = tensorType(adaptor.getOperand());
  if (!input)
    return inferError(location, "expects a ranked tensor operand");
  if (failed(checkLayerNormParams(location, input, static_cast<int64_t>(adaptor.getAxis()),
                                  adaptor.getEps().convertToDouble(),
                                  {adaptor.getGamma(), adaptor.getBeta()}, "gamma and beta")))
    return failure();
  inferred.push_back(input);
  return success();
}

/// Checks per-channel operands of a batch norm over `input` [N, C, ...].
static LogicalResult checkChannelParams(const ErrorSink &location,
                                        RankedTensorType input, llvm::ArrayRef<Value> params) {
  if (input.getRank() < 2)
    return inferError(location, "expects an input of rank >= 2 [N, C, ...], got " +
                                    formatShape(input.getShape()));
  int64_t channels = input.getDimSize(1);
  for (Value param : params) {
    RankedTensorType type = tensorType(param);
    if (!type)
      return inferError(location, "expects ranked tensor operands");
    if (type.getShape() != llvm::ArrayRef<int64_t>{channels})
      return inferError(location, "expects per-channel operands of shape " +
                                      std::to_string(channels) + ", got " +
                                      formatShape(type.getShape()));
  }
  return success();
}

static LogicalResult inferBatchNormOp(const ErrorSink &location, MLIRContext *context,
    BatchNormOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  RankedTensorType input = tensorType(adaptor.getOperand());
  if (!input)
    return inferError(location, "expects a ranked tensor operand");
  if (failed(checkChannelParams(location, input,
                                {adaptor.getGamma(), adaptor.getBeta(),
                                 adaptor.getRunningMean(), adaptor.getRunningVar()})) ||
      failed(checkSameElementTypes(location, "gamma and beta",
                                   {adaptor.getGamma(), adaptor.getBeta()})) ||
      failed(checkSameElementTypes(location, "running_mean and running_var",
                                   {adaptor.getRunningMean(), adaptor.getRunningVar()})))
    return failure();
  double momentum = adaptor.getMomentum().convertToDouble();
  if (!(momentum >= 0 && momentum <= 1))
    return inferError(location, "expects momentum in [0, 1]");
  if (!isFiniteAbove(adaptor.getEps(), 0))
    return inferError(location, "expects a finite eps > 0");
  inferred.push_back(input);
  inferred.push_back(tensorType(adaptor.getRunningMean()));
  inferred.push_back(tensorType(adaptor.getRunningVar()));
  return success();
}

#define MPG_POOL_ACCESSORS(OpClass)                                                       \
  llvm::SmallVector<int64_t, 2> OpClass::getStrideValues() {                              \
    return pairOr(getStride(), getKernel()[0], getKernel()[1]);                           \
  }                                                                                       \
  llvm::SmallVector<int64_t, 4> OpClass::getPaddingValues() {                             \
    return paddingOr(getPadding());                                                       \
  }
MPG_POOL_ACCESSORS(MaxPool2DOp)
MPG_POOL_ACCESSORS(AvgPool2DOp)
MPG_POOL_ACCESSORS(MaxPool2DGradOp)
MPG_POOL_ACCESSORS(AvgPool2DGradOp)
#undef MPG_POOL_ACCESSORS

static LogicalResult inferPool(const ErrorSink &location, Value operand,
                               llvm::ArrayRef<int64_t> kernel,
                               std::optional<llvm::ArrayRef<int64_t>> stride,
                               std::optional<llvm::ArrayRef<int64_t>> padding,
                               SmallVectorImpl<Type> &inferred) {
  RankedTensorType type = tensorType(operand);
  if (!type)
    return inferError(location, "expects a ranked tensor operand");
  llvm::SmallVector<int64_t> shape;
  std::string error;
  if (failed(pool2dOutputShape(type.getShape(), kernel, stride, padding, shape, error)))
    return inferError(location, error);
  inferred.push_back(tensorOf(shape, type.getElementType()));
  return success();
}

static LogicalResult inferMaxPool2DOp(const ErrorSink &location, MLIRContext *context,
    MaxPool2DOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  return inferPool(location, adaptor.getOperand(), adaptor.getKernel(), adaptor.getStride(),
                   adaptor.getPadding(), inferred);
}

static LogicalResult inferAvgPool2DOp(const ErrorSink &location, MLIRContext *context,
    AvgPool2DOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  return inferPool(location, adaptor.getOperand(), adaptor.getKernel(), adaptor.getStride(),
                   adaptor.getPadding(), inferred);
}

static LogicalResult inferGlobalAvgPoolOp(const ErrorSink &location, MLIRContext *context,
    GlobalAvgPoolOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  RankedTensorType type = tensorType(adaptor.getOperand());
  if (!type)
    return inferError(location, "expects a ranked tensor operand");
  if (type.getRank() != 4)
    return inferError(location, "expects a rank-4 input [N, C, H, W], got " +
                                    formatShape(type.getShape()));
  inferred.push_back(tensorOf({type.getDimSize(0), type.getDimSize(1)}, type.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

/// Checks `[N, C]` logits against `[N]` labels.
static LogicalResult checkLogitsAndLabels(const ErrorSink &location, Value logits,
                                          Value labels) {
  RankedTensorType l = tensorType(logits), y = tensorType(labels);
  if (!l || !y)
    return inferError(location, "expects ranked tensor operands");
  if (l.getRank() != 2)
    return inferError(location,
                      "expects logits of rank 2 [N, C], got " + formatShape(l.getShape()));
  if (y.getRank() != 1 || y.getDimSize(0) != l.getDimSize(0))
    return inferError(location, "expects labels of shape " + std::to_string(l.getDimSize(0)) +
                                    " (one per row of the logits), got " +
                                    formatShape(y.getShape()));
  return success();
}

static LogicalResult inferSoftmaxCrossEntropyOp(const ErrorSink &location, MLIRContext *context,
    SoftmaxCrossEntropyOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  if (failed(checkLogitsAndLabels(location, adaptor.getLogits(), adaptor.getLabels())))
    return failure();
  inferred.push_back(tensorOf({}, tensorType(adaptor.getLogits()).getElementType()));
  return success();
}

static LogicalResult inferMseLossOp(const ErrorSink &location, MLIRContext *context,
    MseLossOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  RankedTensorType p = tensorType(adaptor.getPrediction());
  RankedTensorType t = tensorType(adaptor.getTarget());
  if (!p || !t)
    return inferError(location, "expects ranked tensor operands");
  if (p != t)
    return inferError(location, "expects prediction and target of the same type, got ",
                             p, " and ", t);
  inferred.push_back(tensorOf({}, p.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

/// The element count of a static shape, or none when it overflows int64.
static std::optional<int64_t> checkedNumElements(llvm::ArrayRef<int64_t> shape) {
  std::optional<int64_t> count = 1;
  for (int64_t dim : shape)
    if (count)
      count = llvm::checkedMul(*count, dim);
  return count;
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  auto inner = getOperand().getDefiningOp<ReshapeOp>();
  if (!inner)
    return {};
  if (inner.getOperand().getType() == getType())
    return inner.getOperand();
  getOperandMutable().assign(inner.getOperand());
  return getResult();
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType in = getOperand().getType(), out = getType();
  std::optional<int64_t> inCount = checkedNumElements(in.getShape());
  std::optional<int64_t> outCount = checkedNumElements(out.getShape());
  if (!inCount || !outCount)
    return emitOpError() << "element count of " << formatShape((inCount ? out : in).getShape())
                         << " overflows 64-bit integers";
  if (*inCount != *outCount)
    return emitOpError() << "cannot reshape " << formatShape(in.getShape()) << " ("
                         << *inCount << " elements) to " << formatShape(out.getShape()) << " ("
                         << *outCount << " elements)";
  return expectSameElementType(*this, "operand", in, "result", out);
}

static LogicalResult inferTransposeOp(const ErrorSink &location, MLIRContext *context,
    TransposeOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  RankedTensorType type = tensorType(adaptor.getOperand());
  if (!type)
    return inferError(location, "expects a ranked tensor operand");
  llvm::ArrayRef<int64_t> perm = adaptor.getPerm();
  int64_t rank = type.getRank();
  llvm::SmallVector<bool> seen(rank, false);
  bool valid = static_cast<int64_t>(perm.size()) == rank;
  for (int64_t p : perm) {
    if (!valid || p < 0 || p >= rank || seen[p]) {
      valid = false;
      break;
    }
    seen[p] = true;
  }
  if (!valid)
    return inferError(location, "perm must be a permutation of [0, " + std::to_string(rank) +
                                    ") for an operand of rank " + std::to_string(rank));
  llvm::SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  inferred.push_back(tensorOf(shape, type.getElementType()));
  return success();
}

LogicalResult BroadcastToOp::verify() {
  RankedTensorType in = getOperand().getType(), out = getType();
  if (!isBroadcastableTo(in.getShape(), out.getShape()))
    return emitOpError() << "cannot broadcast " << formatShape(in.getShape()) << " to "
                         << formatShape(out.getShape());
  return expectSameElementType(*this, "operand", in, "result", out);
}

#define MPG_SLICE_ACCESSORS(OpClass)                                                      \
  llvm::SmallVector<int64_t, 4> OpClass::getStepValues() {                                \
    if (std::optional<llvm::ArrayRef<int64_t>> step = getStep())                          \
      return llvm::SmallVector<int64_t, 4>(step->begin(), step->end());                   \
    return llvm::SmallVector<int64_t, 4>(getStart().size(), 1);                           \
  }
MPG_SLICE_ACCESSORS(SliceOp)
MPG_SLICE_ACCESSORS(SliceGradOp)
#undef MPG_SLICE_ACCESSORS

static LogicalResult inferSliceOp(const ErrorSink &location, MLIRContext *context,
    SliceOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  RankedTensorType type = tensorType(adaptor.getOperand());
  if (!type)
    return inferError(location, "expects a ranked tensor operand");
  llvm::SmallVector<int64_t> shape;
  std::string error;
  if (failed(sliceShape(type.getShape(), adaptor.getStart(), adaptor.getLimit(),
                        adaptor.getStep(), shape, error)))
    return inferError(location, error);
  inferred.push_back(tensorOf(shape, type.getElementType()));
  return success();
}

static LogicalResult inferConcatOp(const ErrorSink &location, MLIRContext *context,
    ConcatOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return inferError(location, "expects at least one input");
  RankedTensorType first = tensorType(inputs.front());
  if (!first)
    return inferError(location, "expects ranked tensor operands");
  int64_t axis;
  std::string error;
  if (first.getRank() == 0)
    return inferError(location, "expects inputs of rank >= 1");
  if (failed(normalizeAxis(static_cast<int64_t>(adaptor.getAxis()), first.getRank(), axis,
                           error)))
    return inferError(location, error);
  llvm::SmallVector<int64_t> shape(first.getShape());
  for (auto [i, input] : llvm::enumerate(inputs.drop_front())) {
    RankedTensorType type = tensorType(input);
    if (!type)
      return inferError(location, "expects ranked tensor operands");
    if (type.getElementType() != first.getElementType())
      return inferError(location, "expects inputs of one element type; input " +
                                      std::to_string(i + 1) + " differs from input 0");
    bool sameOtherDims = type.getRank() == first.getRank();
    for (int64_t d = 0; sameOtherDims && d < first.getRank(); ++d)
      sameOtherDims = d == axis || type.getDimSize(d) == first.getDimSize(d);
    if (!sameOtherDims)
      return inferError(location, "input " + std::to_string(i + 1) + " of shape " +
                                      formatShape(type.getShape()) +
                                      " does not match input 0 of shape " +
                                      formatShape(first.getShape()) + " outside axis " +
                                      std::to_string(axis));
    shape[axis] += type.getDimSize(axis);
  }
  inferred.push_back(tensorOf(shape, first.getElementType()));
  return success();
}

static LogicalResult inferEmbeddingOp(const ErrorSink &location, MLIRContext *context,
    EmbeddingOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  RankedTensorType table = tensorType(adaptor.getTable());
  RankedTensorType indices = tensorType(adaptor.getIndices());
  if (!table || !indices)
    return inferError(location, "expects ranked tensor operands");
  if (table.getRank() != 2)
    return inferError(location,
                      "expects a rank-2 table [V, D], got " + formatShape(table.getShape()));
  llvm::SmallVector<int64_t> shape(indices.getShape());
  shape.push_back(table.getDimSize(1));
  inferred.push_back(tensorOf(shape, table.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Training: optimizers and loss scaling
//===----------------------------------------------------------------------===//

/// Checks that every tensor in `states` has the parameter's type and the
/// gradient has the parameter's shape.
static LogicalResult checkUpdateOperands(Operation *op, Value param, Value grad,
                                         llvm::ArrayRef<std::pair<llvm::StringRef, Value>> states) {
  auto paramType = llvm::cast<RankedTensorType>(param.getType());
  auto gradType = llvm::cast<RankedTensorType>(grad.getType());
  if (gradType.getShape() != paramType.getShape())
    return op->emitOpError() << "expects the gradient to have the parameter's shape "
                             << formatShape(paramType.getShape()) << ", got "
                             << formatShape(gradType.getShape());
  for (auto [name, value] : states)
    if (value.getType() != paramType)
      return op->emitOpError() << "expects " << name << " to have the parameter's type "
                               << paramType << ", got " << value.getType();
  for (Value result : op->getResults())
    if (result.getType() != paramType)
      return op->emitOpError() << "expects every result to have the parameter's type "
                               << paramType << ", got " << result.getType();
  return success();
}

LogicalResult SgdOp::verify() {
  double momentum = getMomentum().convertToDouble();
  if (!(momentum >= 0 && momentum < 1))
    return emitOpError() << "expects momentum in [0, 1), got " << momentum;
  if (!isFiniteAtLeast(getWeightDecay(), 0))
    return emitOpError("expects a finite weight_decay >= 0");
  if (getNesterov() && momentum == 0)
    return emitOpError("with nesterov requires momentum > 0");
  bool hasVelocity = static_cast<bool>(getVelocity());
  if (hasVelocity != (momentum > 0))
    return emitOpError() << (hasVelocity ? "has a velocity operand but momentum is 0"
                                         : "with momentum > 0 requires a velocity operand");
  if (static_cast<bool>(getNewVelocity()) != hasVelocity)
    return emitOpError("expects a new_velocity result exactly when there is a velocity operand");
  llvm::SmallVector<std::pair<llvm::StringRef, Value>> states;
  if (hasVelocity)
    states.push_back({"velocity", getVelocity()});
  return checkUpdateOperands(*this, getParam(), getGrad(), states);
}

template <typename AdamLike>
static LogicalResult verifyAdamLike(AdamLike op) {
  auto inUnit = [](double v) { return v >= 0 && v < 1; };
  if (!inUnit(op.getBeta1().convertToDouble()) || !inUnit(op.getBeta2().convertToDouble()))
    return op.emitOpError("expects beta1 and beta2 in [0, 1)");
  if (!isFiniteAbove(op.getEps(), 0))
    return op.emitOpError("expects a finite eps > 0");
  if (!isFiniteAtLeast(op.getWeightDecay(), 0))
    return op.emitOpError("expects a finite weight_decay >= 0");
  return checkUpdateOperands(op, op.getParam(), op.getGrad(),
                             {{"m", op.getM()}, {"v", op.getV()}});
}

LogicalResult AdamOp::verify() { return verifyAdamLike(*this); }
LogicalResult AdamWOp::verify() { return verifyAdamLike(*this); }

static LogicalResult inferScaleOp(const ErrorSink &location, MLIRContext *context,
    ScaleOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  RankedTensorType type = tensorType(adaptor.getOperand());
  if (!type)
    return inferError(location, "expects a ranked tensor operand");
  inferred.push_back(type);
  return success();
}

static LogicalResult inferUnscaleOp(const ErrorSink &location, MLIRContext *context,
    UnscaleOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  RankedTensorType type = tensorType(adaptor.getOperand());
  if (!type)
    return inferError(location, "expects a ranked tensor operand");
  inferred.push_back(type);
  return success();
}

LogicalResult AllReduceOp::verify() {
  if (getReduce() == AllReduceKind::Mean && !llvm::isa<FloatType>(getType().getElementType()))
    return emitOpError("takes the mean of float elements only, not ") << getType().getElementType();
  return success();
}

LogicalResult AllFiniteOp::verify() {
  if (getOperands().empty())
    return emitOpError("expects at least one operand");
  return success();
}

LogicalResult UpdateLossScaleOp::verify() {
  if (!isFiniteAbove(getGrowthFactor(), 1))
    return emitOpError("expects a finite growth_factor > 1");
  double backoff = getBackoffFactor().convertToDouble();
  if (!(backoff > 0 && backoff < 1))
    return emitOpError("expects backoff_factor in (0, 1)");
  if (static_cast<int64_t>(getGrowthInterval()) < 1)
    return emitOpError("expects growth_interval >= 1");
  if (static_cast<int64_t>(getHysteresis()) < 1)
    return emitOpError("expects hysteresis >= 1");
  double minScale = getMinScale().convertToDouble(), maxScale = getMaxScale().convertToDouble();
  if (!(minScale > 0 && minScale <= maxScale && std::isfinite(maxScale)))
    return emitOpError("expects 0 < min_scale <= max_scale < inf");
  return success();
}

//===----------------------------------------------------------------------===//
// Gradient ops
//===----------------------------------------------------------------------===//

/// Verifies a pooling gradient: pooling `input` must give `gradOutput`.
template <typename PoolGradOp>
static LogicalResult verifyPoolGrad(PoolGradOp op, RankedTensorType input,
                                    RankedTensorType gradOutput) {
  if (input.getElementType() != gradOutput.getElementType())
    return op.emitOpError("expects operands and result of the same element type");
  llvm::SmallVector<int64_t> shape;
  std::string error;
  if (failed(pool2dOutputShape(input.getShape(), op.getKernel(), op.getStride(),
                               op.getPadding(), shape, error)))
    return op.emitOpError() << error;
  return expectShape(op, "the output gradient", gradOutput, shape);
}

LogicalResult MaxPool2DGradOp::verify() {
  if (getInput().getType() != getType())
    return emitOpError("expects the result to have the forward input's type");
  return verifyPoolGrad(*this, getInput().getType(), getGradOutput().getType());
}

LogicalResult AvgPool2DGradOp::verify() {
  return verifyPoolGrad(*this, getType(), getGradOutput().getType());
}

/// Verifies the results of a normalisation gradient: grad_input has the
/// input's type, grad_gamma and grad_beta have gamma's.
template <typename NormGradOp>
static LogicalResult verifyNormGradResults(NormGradOp op) {
  if (op.getGradOutput().getType() != op.getInput().getType())
    return op.emitOpError("expects the output gradient to have the input's type");
  if (op.getGradInput().getType() != op.getInput().getType())
    return op.emitOpError("expects grad_input to have the input's type");
  if (op.getGradGamma().getType() != op.getGamma().getType() ||
      op.getGradBeta().getType() != op.getGamma().getType())
    return op.emitOpError("expects grad_gamma and grad_beta to have gamma's type");
  return success();
}

LogicalResult BatchNormGradOp::verify() {
  if (failed(checkChannelParams(getOperation(), getInput().getType(), {getGamma()})))
    return failure();
  if (!isFiniteAbove(getEps(), 0))
    return emitOpError("expects a finite eps > 0");
  return verifyNormGradResults(*this);
}

LogicalResult LayerNormGradOp::verify() {
  if (failed(checkLayerNormParams(getOperation(), getInput().getType(),
                                  static_cast<int64_t>(getAxis()),
                                  getEps().convertToDouble(), {getGamma()}, "gamma")))
    return failure();
  return verifyNormGradResults(*this);
}

LogicalResult SoftmaxCrossEntropyGradOp::verify() {
  if (failed(checkLogitsAndLabels(getOperation(), getLogits(), getLabels())))
    return failure();
  if (getType() != getLogits().getType())
    return emitOpError("expects the result to have the logits' type");
  return success();
}

LogicalResult EmbeddingGradOp::verify() {
  RankedTensorType table = getType();
  if (table.getRank() != 2)
    return emitOpError() << "expects a rank-2 result [V, D], got "
                         << formatShape(table.getShape());
  llvm::SmallVector<int64_t> expected(getIndices().getType().getShape());
  expected.push_back(table.getDimSize(1));
  if (failed(expectShape(*this, "the output gradient", getGradOutput().getType(), expected)))
    return failure();
  return expectSameElementType(*this, "the output gradient", getGradOutput().getType(),
                               "result", table);
}

LogicalResult SliceGradOp::verify() {
  llvm::SmallVector<int64_t> shape;
  std::string error;
  if (failed(sliceShape(getType().getShape(), getStart(), getLimit(), getStep(), shape, error)))
    return emitOpError() << error;
  if (failed(expectShape(*this, "the output gradient", getGradOutput().getType(), shape)))
    return failure();
  return expectSameElementType(*this, "the output gradient", getGradOutput().getType(),
                               "result", getType());
}


//===----------------------------------------------------------------------===//
// Type inference and verification share one check per op
//===----------------------------------------------------------------------===//

// inferReturnTypes reports at the location it is given (parsers, builders);
// verify() runs the same check and reports as the op, before the
// InferTypeOpInterface trait compares inferred and declared result types.
#define MPG_INFER_AND_VERIFY(OpClass)                                                     \
  LogicalResult OpClass::inferReturnTypes(MLIRContext *context,                           \
                                          std::optional<Location> location,               \
                                          Adaptor adaptor,                                \
                                          SmallVectorImpl<Type> &inferred) {              \
    return infer##OpClass(location, context, adaptor, inferred);                          \
  }                                                                                       \
  LogicalResult OpClass::verify() {                                                       \
    SmallVector<Type> inferred;                                                           \
    return infer##OpClass(getOperation(), getContext(), Adaptor(*this), inferred);        \
  }
MPG_INFER_AND_VERIFY(MatmulOp)
MPG_INFER_AND_VERIFY(BatchMatmulOp)
MPG_INFER_AND_VERIFY(Conv2DOp)
MPG_INFER_AND_VERIFY(CompareOp)
MPG_INFER_AND_VERIFY(SelectOp)
MPG_INFER_AND_VERIFY(SoftmaxOp)
MPG_INFER_AND_VERIFY(LogSoftmaxOp)
MPG_INFER_AND_VERIFY(LayerNormOp)
MPG_INFER_AND_VERIFY(BatchNormOp)
MPG_INFER_AND_VERIFY(MaxPool2DOp)
MPG_INFER_AND_VERIFY(AvgPool2DOp)
MPG_INFER_AND_VERIFY(GlobalAvgPoolOp)
MPG_INFER_AND_VERIFY(SoftmaxCrossEntropyOp)
MPG_INFER_AND_VERIFY(MseLossOp)
MPG_INFER_AND_VERIFY(TransposeOp)
MPG_INFER_AND_VERIFY(SliceOp)
MPG_INFER_AND_VERIFY(ConcatOp)
MPG_INFER_AND_VERIFY(EmbeddingOp)
MPG_INFER_AND_VERIFY(ScaleOp)
MPG_INFER_AND_VERIFY(UnscaleOp)
MPG_INFER_AND_VERIFY(AddOp)
MPG_INFER_AND_VERIFY(SubOp)
MPG_INFER_AND_VERIFY(MulOp)
MPG_INFER_AND_VERIFY(DivOp)
MPG_INFER_AND_VERIFY(PowOp)
MPG_INFER_AND_VERIFY(MaximumOp)
MPG_INFER_AND_VERIFY(MinimumOp)
MPG_INFER_AND_VERIFY(ReduceSumOp)
MPG_INFER_AND_VERIFY(ReduceMeanOp)
MPG_INFER_AND_VERIFY(ReduceMaxOp)
#undef MPG_INFER_AND_VERIFY

#define GET_OP_CLASSES
#include "dialects/mpg/IR/MpgOps.cpp.inc"
