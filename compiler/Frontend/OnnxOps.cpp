//===- OnnxOps.cpp - ONNX nodes as mpg ops --------------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// One translation per ONNX op, and the folding of shape arithmetic on
// values known at import (an exporter's Shape -> Gather -> Unsqueeze ->
// Concat -> Reshape chains for static shapes).
//
//===----------------------------------------------------------------------===//

#include "compiler/Frontend/OnnxTranslator.h"

#include "llvm/ADT/StringSwitch.h"

#include <cstring>
#include <numeric>

using namespace mlir;
using namespace mpc;
using namespace mpc::onnx;

namespace {

RankedTensorType tensorOf(Value value) { return llvm::cast<RankedTensorType>(value.getType()); }

int64_t intAttr(const Node &node, const std::string &key, int64_t fallback) {
  const mpc::onnx::Attribute *attribute = node.attribute(key);
  return attribute && attribute->kind == mpc::onnx::Attribute::Kind::Int ? attribute->i : fallback;
}

double floatAttr(const Node &node, const std::string &key, double fallback) {
  const mpc::onnx::Attribute *attribute = node.attribute(key);
  return attribute && attribute->kind == mpc::onnx::Attribute::Kind::Float ? attribute->f
                                                                           : fallback;
}

/// An i64 host tensor of `shape` holding `values`.
rt::HostTensor intTensor(const std::vector<int64_t> &values, std::vector<int64_t> shape) {
  rt::HostTensor tensor;
  tensor.dtype = rt::DType::I64;
  tensor.shape = std::move(shape);
  tensor.bytes.resize(values.size() * 8);
  if (!values.empty())
    std::memcpy(tensor.bytes.data(), values.data(), tensor.bytes.size());
  return tensor;
}

/// `axis` in [-rank, rank) as an index in [0, rank), or -1.
int64_t normalize(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return -1;
  return axis < 0 ? axis + rank : axis;
}

/// `shape` with a dimension of 1 inserted at each of `axes` (of the
/// result's rank), or nothing when an axis is out of range or repeated.
std::optional<std::vector<int64_t>> unsqueezed(llvm::ArrayRef<int64_t> shape,
                                               llvm::ArrayRef<int64_t> axes) {
  int64_t rank = static_cast<int64_t>(shape.size() + axes.size());
  std::vector<bool> inserted(rank, false);
  for (int64_t axis : axes) {
    int64_t d = normalize(axis, rank);
    if (d < 0 || inserted[d])
      return std::nullopt;
    inserted[d] = true;
  }
  std::vector<int64_t> out;
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d)
    out.push_back(inserted[d] ? 1 : shape[next++]);
  return out;
}

/// `shape` without the dimensions `axes` (each of size 1), or without every
/// dimension of size 1 when `axes` is nothing; nothing when an axis is out
/// of range or not of size 1.
std::optional<std::vector<int64_t>> squeezed(llvm::ArrayRef<int64_t> shape,
                                             const std::optional<std::vector<int64_t>> &axes) {
  int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<bool> removed(rank, false);
  if (axes) {
    for (int64_t axis : *axes) {
      int64_t d = normalize(axis, rank);
      if (d < 0 || shape[d] != 1)
        return std::nullopt;
      removed[d] = true;
    }
  } else {
    for (int64_t d = 0; d < rank; ++d)
      removed[d] = shape[d] == 1;
  }
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d)
    if (!removed[d])
      out.push_back(shape[d]);
  return out;
}

/// The fewest inputs each op needs.
size_t minimumInputs(llvm::StringRef op) {
  return llvm::StringSwitch<size_t>(op)
      .Cases("Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Pow", 2)
      .Cases("Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", 2)
      .Cases("Reshape", "Expand", "Gather", "Conv", "LayerNormalization", 2)
      .Cases("Where", "Slice", 3)
      .Case("BatchNormalization", 5)
      .Cases("Constant", "ConstantOfShape", 0)
      .Default(1);
}

} // namespace

const std::vector<std::string> &mpc::supportedOnnxOps() {
  static const std::vector<std::string> ops = {"Abs",
                                               "Add",
                                               "AveragePool",
                                               "BatchNormalization",
                                               "Cast",
                                               "Concat",
                                               "Constant",
                                               "ConstantOfShape",
                                               "Conv",
                                               "Div",
                                               "Dropout",
                                               "Equal",
                                               "Erf (in GELU)",
                                               "Exp",
                                               "Expand",
                                               "Flatten",
                                               "Gather",
                                               "Gemm",
                                               "GlobalAveragePool",
                                               "Greater",
                                               "GreaterOrEqual",
                                               "Identity",
                                               "LayerNormalization",
                                               "Less",
                                               "LessOrEqual",
                                               "Log",
                                               "LogSoftmax",
                                               "MatMul",
                                               "MaxPool",
                                               "Mul",
                                               "Neg",
                                               "Pow",
                                               "Reciprocal",
                                               "ReduceMax",
                                               "ReduceMean",
                                               "ReduceSum",
                                               "Relu",
                                               "Reshape",
                                               "Shape",
                                               "Sigmoid",
                                               "Size",
                                               "Slice",
                                               "Softmax",
                                               "Split",
                                               "Sqrt",
                                               "Squeeze",
                                               "Sub",
                                               "Tanh",
                                               "Transpose",
                                               "Unsqueeze",
                                               "Where"};
  return ops;
}

llvm::Error Translator::translate(const Node &node) {
  if (!node.domain.empty() && node.domain != "ai.onnx")
    return nodeError(node, "the domain '" + node.domain + "' is not imported (only ONNX's own)");
  if (node.outputs.empty() || node.outputs[0].empty())
    return nodeError(node, "it has no output");
  size_t needed = minimumInputs(node.opType);
  if (node.inputs.size() < needed ||
      llvm::any_of(llvm::ArrayRef<std::string>(node.inputs).take_front(needed),
                   [](const std::string &name) { return name.empty(); }))
    return nodeError(node, "it has " + llvm::Twine(node.inputs.size()) + " inputs; it needs " +
                               llvm::Twine(needed));
  if (std::optional<llvm::Error> folded = foldKnown(node))
    return std::move(*folded);
  using Handler = llvm::Error (Translator::*)(const Node &);
  Handler handler =
      llvm::StringSwitch<Handler>(node.opType)
          .Case("Gemm", &Translator::translateGemm)
          .Case("MatMul", &Translator::translateMatMul)
          .Cases("Add", "Sub", "Mul", "Div", "Pow", &Translator::translateBinary)
          .Cases("Relu", "Sigmoid", "Tanh", "Exp", "Log", &Translator::translateUnary)
          .Cases("Sqrt", "Neg", "Abs", "Reciprocal", "Identity", &Translator::translateUnary)
          .Cases("Softmax", "LogSoftmax", &Translator::translateSoftmax)
          .Cases("Flatten", "Reshape", "Transpose", "Squeeze", "Unsqueeze",
                 &Translator::translateShapeOp)
          .Cases("Concat", "Gather", "Cast", &Translator::translateShapeOp)
          .Case("LayerNormalization", &Translator::translateLayerNorm)
          .Case("Dropout", &Translator::translateDropout)
          .Case("Conv", &Translator::translateConv)
          .Cases("ReduceSum", "ReduceMean", "ReduceMax", &Translator::translateReduce)
          .Cases("Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
                 &Translator::translateCompare)
          .Case("Where", &Translator::translateWhere)
          .Case("Slice", &Translator::translateSlice)
          .Case("Split", &Translator::translateSplit)
          .Case("Expand", &Translator::translateExpand)
          .Case("BatchNormalization", &Translator::translateBatchNorm)
          .Cases("MaxPool", "AveragePool", "GlobalAveragePool", &Translator::translatePool)
          .Default(nullptr);
  if (!handler &&
      (node.opType == "ConstantOfShape" || node.opType == "Shape" || node.opType == "Size"))
    return nodeError(node, "its input '" + node.inputs[0] + "' is not known at import (mpc folds " +
                               node.opType + " of static shapes and known constants only)");
  if (!handler) {
    std::string list;
    for (const std::string &op : supportedOnnxOps())
      list += (list.empty() ? "" : ", ") + op;
    return nodeError(node, "the op " + node.opType + " is not supported; mpc imports " + list);
  }
  return (this->*handler)(node);
}

llvm::Error Translator::translateGemm(const Node &node) {
  llvm::Expected<Value> a = value(node.inputs[0]), bv = value(node.inputs[1]);
  if (!a)
    return a.takeError();
  if (!bv)
    return bv.takeError();
  Value y = b.create<mpg::MatmulOp>(loc, *a, *bv, intAttr(node, "transA", 0) != 0,
                                    intAttr(node, "transB", 0) != 0);
  double alpha = floatAttr(node, "alpha", 1.0), beta = floatAttr(node, "beta", 1.0);
  auto scalar = [&](double v) -> Value {
    return b.create<mpg::ConstantOp>(
        loc, DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()),
                                    b.getF32FloatAttr(static_cast<float>(v)).getValue()));
  };
  if (alpha != 1.0)
    y = b.create<mpg::MulOp>(loc, y, scalar(alpha));
  if (node.inputs.size() > 2 && !node.inputs[2].empty()) {
    llvm::Expected<Value> c = value(node.inputs[2]);
    if (!c)
      return c.takeError();
    Value bias = *c;
    if (beta != 1.0)
      bias = b.create<mpg::MulOp>(loc, bias, scalar(beta));
    y = b.create<mpg::AddOp>(loc, y, bias);
  }
  define(node.outputs[0], y);
  return llvm::Error::success();
}

/// The operand of `value` when it is an mpg.transpose that swaps the last
/// two dimensions only (PyTorch's `x @ w.t()` and `k.transpose(-2, -1)`):
/// a matmul reads it transposed instead.
static Value swappedLastTwo(Value value) {
  auto transpose = value.getDefiningOp<mpg::TransposeOp>();
  if (!transpose)
    return nullptr;
  llvm::ArrayRef<int64_t> perm = transpose.getPerm();
  int64_t rank = static_cast<int64_t>(perm.size());
  if (rank < 2 || perm[rank - 1] != rank - 2 || perm[rank - 2] != rank - 1)
    return nullptr;
  for (int64_t i = 0; i + 2 < rank; ++i)
    if (perm[i] != i)
      return nullptr;
  return transpose.getOperand();
}

llvm::Error Translator::translateMatMul(const Node &node) {
  llvm::Expected<Value> a = value(node.inputs[0]), bv = value(node.inputs[1]);
  if (!a)
    return a.takeError();
  if (!bv)
    return bv.takeError();
  RankedTensorType ta = tensorOf(*a), tb = tensorOf(*bv);
  // A transposed operand becomes the matmul's transpose_a/transpose_b (the
  // transpose goes at the end of the import when nothing else reads it).
  Value lhs = *a, rhs = *bv;
  Value lhsSource = ta.getRank() == tb.getRank() ? swappedLastTwo(lhs) : nullptr;
  Value rhsSource = swappedLastTwo(rhs);
  auto product = [&](bool batched, Value left) -> Value {
    Value l = lhsSource ? lhsSource : left, r = rhsSource ? rhsSource : rhs;
    Value result =
        batched
            ? b.create<mpg::BatchMatmulOp>(loc, l, r, bool(lhsSource), bool(rhsSource)).getResult()
            : b.create<mpg::MatmulOp>(loc, l, r, bool(lhsSource), bool(rhsSource)).getResult();
    return result;
  };
  if (ta.getRank() == 2 && tb.getRank() == 2) {
    define(node.outputs[0], product(false, lhs));
    return llvm::Error::success();
  }
  if (ta.getRank() >= 3 && tb.getRank() == 2) {
    // [..., K] x [K, N]: the leading dimensions flattened into rows.
    llvm::ArrayRef<int64_t> lead = ta.getShape().drop_back();
    int64_t rows = std::accumulate(lead.begin(), lead.end(), int64_t(1), std::multiplies<>());
    Value flat = b.create<mpg::ReshapeOp>(
        loc, RankedTensorType::get({rows, ta.getShape().back()}, ta.getElementType()), *a);
    Value rows2d = product(false, flat);
    llvm::SmallVector<int64_t> shape(lead);
    shape.push_back(tb.getDimSize(1));
    define(node.outputs[0], b.create<mpg::ReshapeOp>(
                                loc, RankedTensorType::get(shape, ta.getElementType()), rows2d));
    return llvm::Error::success();
  }
  if (ta.getRank() >= 3 && ta.getRank() == tb.getRank()) {
    define(node.outputs[0], product(true, lhs));
    return llvm::Error::success();
  }
  return nodeError(node, "a MatMul of ranks " + llvm::Twine(ta.getRank()) + " and " +
                             llvm::Twine(tb.getRank()) +
                             " is not imported (2 x 2, N x 2 and N x N with N >= 3 are)");
}

llvm::Error Translator::translateBinary(const Node &node) {
  llvm::Expected<Value> lhs = value(node.inputs[0]), rhs = value(node.inputs[1]);
  if (!lhs)
    return lhs.takeError();
  if (!rhs)
    return rhs.takeError();
  if (tensorOf(*lhs).getElementType() != tensorOf(*rhs).getElementType())
    return nodeError(node, "its operands' element types differ");
  Value result = llvm::StringSwitch<std::function<Value()>>(node.opType)
                     .Case("Add", [&]() -> Value { return b.create<mpg::AddOp>(loc, *lhs, *rhs); })
                     .Case("Sub", [&]() -> Value { return b.create<mpg::SubOp>(loc, *lhs, *rhs); })
                     .Case("Mul", [&]() -> Value { return b.create<mpg::MulOp>(loc, *lhs, *rhs); })
                     .Case("Div", [&]() -> Value { return b.create<mpg::DivOp>(loc, *lhs, *rhs); })
                     .Default([&]() -> Value { return b.create<mpg::PowOp>(loc, *lhs, *rhs); })();
  define(node.outputs[0], result);
  return llvm::Error::success();
}

llvm::Error Translator::translateUnary(const Node &node) {
  llvm::Expected<Value> x = value(node.inputs[0]);
  if (!x)
    return x.takeError();
  const std::string &op = node.opType;
  Value y;
  if (op == "Identity")
    y = *x;
  else if (op == "Relu")
    y = b.create<mpg::ReluOp>(loc, *x);
  else if (op == "Sigmoid")
    y = b.create<mpg::SigmoidOp>(loc, *x);
  else if (op == "Tanh")
    y = b.create<mpg::TanhOp>(loc, *x);
  else if (op == "Exp")
    y = b.create<mpg::ExpOp>(loc, *x);
  else if (op == "Log")
    y = b.create<mpg::LogOp>(loc, *x);
  else if (op == "Sqrt")
    y = b.create<mpg::SqrtOp>(loc, *x);
  else if (op == "Neg")
    y = b.create<mpg::NegOp>(loc, *x);
  else if (op == "Abs")
    y = b.create<mpg::AbsOp>(loc, *x);
  else { // Reciprocal
    Type element = tensorOf(*x).getElementType();
    Value one = b.create<mpg::ConstantOp>(
        loc, DenseElementsAttr::get(RankedTensorType::get({}, element),
                                    b.getFloatAttr(element, 1.0).getValue()));
    y = b.create<mpg::DivOp>(loc, one, *x);
  }
  define(node.outputs[0], y);
  return llvm::Error::success();
}

llvm::Error Translator::translateSoftmax(const Node &node) {
  llvm::Expected<Value> x = value(node.inputs[0]);
  if (!x)
    return x.takeError();
  int64_t rank = tensorOf(*x).getRank();
  int64_t axis = normalize(intAttr(node, "axis", -1), rank);
  if (axis < 0)
    return nodeError(node, "its axis is outside the operand's rank " + llvm::Twine(rank));
  if (node.opType == "Softmax")
    define(node.outputs[0], b.create<mpg::SoftmaxOp>(loc, *x, axis));
  else
    define(node.outputs[0], b.create<mpg::LogSoftmaxOp>(loc, *x, axis));
  return llvm::Error::success();
}

llvm::Error Translator::translateLayerNorm(const Node &node) {
  llvm::Expected<Value> x = value(node.inputs[0]), gamma = value(node.inputs[1]);
  if (!x)
    return x.takeError();
  if (!gamma)
    return gamma.takeError();
  Value beta;
  if (node.inputs.size() > 2 && !node.inputs[2].empty()) {
    llvm::Expected<Value> given = value(node.inputs[2]);
    if (!given)
      return given.takeError();
    beta = *given;
  } else {
    auto type = tensorOf(*gamma);
    beta = b.create<mpg::ConstantOp>(
        loc, DenseElementsAttr::get(type, b.getFloatAttr(type.getElementType(), 0.0).getValue()));
  }
  int64_t axis = intAttr(node, "axis", -1);
  double eps = floatAttr(node, "epsilon", 1e-5);
  define(node.outputs[0],
         b.create<mpg::LayerNormOp>(loc, *x, *gamma, beta, b.getI64IntegerAttr(axis),
                                    b.getF64FloatAttr(eps)));
  bool wantMean = node.outputs.size() > 1 && !node.outputs[1].empty();
  bool wantInverse = node.outputs.size() > 2 && !node.outputs[2].empty();
  if (!wantMean && !wantInverse)
    return llvm::Error::success();
  // The optional Mean and InvStdDev outputs (keeping the normalised
  // dimensions with size 1), computed beside the fused op.
  int64_t rank = tensorOf(*x).getRank();
  if (axis < -rank || axis >= rank)
    return nodeError(node, "axis " + llvm::Twine(axis) + " is out of range for rank " +
                               llvm::Twine(rank));
  llvm::SmallVector<int64_t> axes;
  for (int64_t a = axis < 0 ? axis + rank : axis; a < rank; ++a)
    axes.push_back(a);
  auto attr = b.getDenseI64ArrayAttr(axes);
  Value mean = b.create<mpg::ReduceMeanOp>(loc, *x, attr, b.getUnitAttr());
  if (wantMean)
    define(node.outputs[1], mean);
  if (!wantInverse)
    return llvm::Error::success();
  Value centred = b.create<mpg::SubOp>(loc, *x, mean);
  Value variance = b.create<mpg::ReduceMeanOp>(loc, b.create<mpg::MulOp>(loc, centred, centred),
                                               attr, b.getUnitAttr());
  auto scalarType = RankedTensorType::get({}, tensorOf(variance).getElementType());
  Value epsilon = b.create<mpg::ConstantOp>(
      loc, DenseElementsAttr::get(scalarType,
                                  b.getFloatAttr(scalarType.getElementType(), eps).getValue()));
  define(node.outputs[2],
         b.create<mpg::RsqrtOp>(loc, b.create<mpg::AddOp>(loc, variance, epsilon)));
  return llvm::Error::success();
}

llvm::Error Translator::translateDropout(const Node &node) {
  llvm::Expected<Value> x = value(node.inputs[0]);
  if (!x)
    return x.takeError();
  // The ratio: an input since opset 12 (default 0.5).
  double ratio = 0.5;
  if (node.inputs.size() > 1 && !node.inputs[1].empty()) {
    const rt::HostTensor *given = known(node.inputs[1]);
    if (!given || given->numElements() != 1 || given->dtype != rt::DType::F32)
      return nodeError(node, "its ratio must be a constant f32 scalar");
    float r;
    std::memcpy(&r, given->bytes.data(), 4);
    ratio = r;
  }
  if (node.outputs.size() > 1 && !node.outputs[1].empty())
    return nodeError(node, "its mask output is not imported");
  // Unkeyed: active in training steps, the identity in forward steps.
  define(node.outputs[0], b.create<mpg::DropoutOp>(loc, x->getType(), *x, ValueRange{},
                                                   b.getF64FloatAttr(ratio), IntegerAttr()));
  return llvm::Error::success();
}

/// The attribute `key` as two values (a 2-D window's), or `fallback`.
static llvm::SmallVector<int64_t> pairAttr(const Node &node, const std::string &key,
                                           llvm::SmallVector<int64_t> fallback) {
  const mpc::onnx::Attribute *attribute = node.attribute(key);
  if (!attribute || attribute->kind != mpc::onnx::Attribute::Kind::Ints)
    return fallback;
  return llvm::SmallVector<int64_t>(attribute->ints.begin(), attribute->ints.end());
}

/// Refuses what 2-D windows with explicit padding cannot express.
static std::optional<std::string> windowProblem(const Node &node, RankedTensorType input) {
  if (input.getRank() != 4)
    return "only 2-D windows (NCHW inputs of rank 4) are imported";
  if (const mpc::onnx::Attribute *pad = node.attribute("auto_pad"))
    if (pad->s != "NOTSET" && !pad->s.empty())
      return "auto_pad " + pad->s + " is not imported (explicit pads are)";
  if (intAttr(node, "ceil_mode", 0) != 0)
    return "ceil_mode is not imported";
  return std::nullopt;
}

llvm::Error Translator::translateConv(const Node &node) {
  llvm::Expected<Value> x = value(node.inputs[0]), w = value(node.inputs[1]);
  if (!x)
    return x.takeError();
  if (!w)
    return w.takeError();
  if (std::optional<std::string> problem = windowProblem(node, tensorOf(*x)))
    return nodeError(node, *problem);
  Value y = b.create<mpg::Conv2DOp>(loc, *x, *w,
                                    b.getDenseI64ArrayAttr(pairAttr(node, "strides", {1, 1})),
                                    b.getDenseI64ArrayAttr(pairAttr(node, "pads", {0, 0, 0, 0})),
                                    b.getDenseI64ArrayAttr(pairAttr(node, "dilations", {1, 1})),
                                    b.getI64IntegerAttr(intAttr(node, "group", 1)));
  if (node.inputs.size() > 2 && !node.inputs[2].empty()) {
    // The bias [O], added per output channel.
    llvm::Expected<Value> bias = value(node.inputs[2]);
    if (!bias)
      return bias.takeError();
    RankedTensorType type = tensorOf(*bias);
    Value channels = b.create<mpg::ReshapeOp>(
        loc, RankedTensorType::get({type.getDimSize(0), 1, 1}, type.getElementType()), *bias);
    y = b.create<mpg::AddOp>(loc, y, channels);
  }
  define(node.outputs[0], y);
  return llvm::Error::success();
}

llvm::Error Translator::translatePool(const Node &node) {
  llvm::Expected<Value> x = value(node.inputs[0]);
  if (!x)
    return x.takeError();
  RankedTensorType type = tensorOf(*x);
  if (node.opType == "GlobalAveragePool") {
    if (type.getRank() != 4)
      return nodeError(node, "only NCHW inputs of rank 4 are imported");
    Value mean = b.create<mpg::GlobalAvgPoolOp>(loc, *x);
    define(node.outputs[0],
           b.create<mpg::ReshapeOp>(
               loc,
               RankedTensorType::get({type.getDimSize(0), type.getDimSize(1), 1, 1},
                                     type.getElementType()),
               mean));
    return llvm::Error::success();
  }
  if (std::optional<std::string> problem = windowProblem(node, type))
    return nodeError(node, *problem);
  if (node.outputs.size() > 1 && !node.outputs[1].empty())
    return nodeError(node, "its indices output is not imported");
  if (pairAttr(node, "dilations", {1, 1}) != llvm::SmallVector<int64_t>{1, 1})
    return nodeError(node, "dilated pooling is not imported");
  auto kernel = b.getDenseI64ArrayAttr(pairAttr(node, "kernel_shape", {}));
  auto stride = b.getDenseI64ArrayAttr(pairAttr(node, "strides", {1, 1}));
  auto padding = b.getDenseI64ArrayAttr(pairAttr(node, "pads", {0, 0, 0, 0}));
  if (node.opType == "MaxPool")
    define(node.outputs[0], b.create<mpg::MaxPool2DOp>(loc, *x, kernel, stride, padding));
  else
    define(node.outputs[0],
           b.create<mpg::AvgPool2DOp>(loc, *x, kernel, stride, padding,
                                      intAttr(node, "count_include_pad", 0) != 0 ? b.getUnitAttr()
                                                                                 : UnitAttr()));
  return llvm::Error::success();
}

llvm::Error Translator::translateShapeOp(const Node &node) {
  llvm::Expected<Value> x = value(node.inputs[0]);
  if (!x)
    return x.takeError();
  RankedTensorType type = tensorOf(*x);
  auto reshape = [&](llvm::ArrayRef<int64_t> shape) -> llvm::Error {
    define(node.outputs[0],
           b.create<mpg::ReshapeOp>(loc, RankedTensorType::get(shape, type.getElementType()), *x));
    return llvm::Error::success();
  };
  const std::string &op = node.opType;
  if (op == "Flatten") {
    int64_t axis = intAttr(node, "axis", 1);
    axis = axis < 0 ? axis + type.getRank() : axis;
    llvm::ArrayRef<int64_t> shape = type.getShape();
    int64_t rows =
        std::accumulate(shape.begin(), shape.begin() + axis, int64_t(1), std::multiplies<>());
    return reshape({rows, type.getNumElements() / std::max<int64_t>(rows, 1)});
  }
  if (op == "Reshape") {
    std::optional<std::vector<int64_t>> target = knownInts(node.inputs[1]);
    if (!target)
      return nodeError(node, "its shape is not known at import (a static shape is needed)");
    llvm::SmallVector<int64_t> shape;
    int64_t inferred = -1, product = 1;
    for (auto [i, dim] : llvm::enumerate(*target)) {
      if (dim == 0 && intAttr(node, "allowzero", 0) == 0)
        dim = i < static_cast<size_t>(type.getRank()) ? type.getDimSize(i) : 0;
      if (dim == -1)
        inferred = static_cast<int64_t>(i);
      else
        product *= dim;
      shape.push_back(dim);
    }
    if (inferred >= 0)
      shape[inferred] = product ? type.getNumElements() / product : 0;
    return reshape(shape);
  }
  if (op == "Transpose") {
    llvm::SmallVector<int64_t> perm;
    if (const mpc::onnx::Attribute *given = node.attribute("perm"))
      perm.assign(given->ints.begin(), given->ints.end());
    else
      for (int64_t d = type.getRank() - 1; d >= 0; --d)
        perm.push_back(d);
    define(node.outputs[0], b.create<mpg::TransposeOp>(loc, *x, b.getDenseI64ArrayAttr(perm)));
    return llvm::Error::success();
  }
  if (op == "Squeeze" || op == "Unsqueeze") {
    bool given = node.inputs.size() > 1 && !node.inputs[1].empty();
    std::optional<std::vector<int64_t>> axes = given ? knownInts(node.inputs[1]) : std::nullopt;
    if (given && !axes)
      return nodeError(node, "its axes are not known at import");
    if (op == "Unsqueeze" && !axes)
      return nodeError(node, "it has no axes");
    std::optional<std::vector<int64_t>> shape =
        op == "Squeeze" ? squeezed(type.getShape(), axes) : unsqueezed(type.getShape(), *axes);
    if (!shape)
      return nodeError(node, "an axis is out of range, repeated, or (Squeeze) not of size 1");
    return reshape(*shape);
  }
  if (op == "Concat") {
    llvm::SmallVector<Value> operands;
    for (const std::string &name : node.inputs) {
      llvm::Expected<Value> v = value(name);
      if (!v)
        return v.takeError();
      operands.push_back(*v);
    }
    int64_t axis = normalize(intAttr(node, "axis", 0), type.getRank());
    define(node.outputs[0], b.create<mpg::ConcatOp>(loc, operands, axis));
    return llvm::Error::success();
  }
  if (op == "Gather") {
    // An embedding: rows of a [V, D] table by integer indices.
    llvm::Expected<Value> indices = value(node.inputs[1]);
    if (!indices)
      return indices.takeError();
    if (intAttr(node, "axis", 0) != 0 || type.getRank() != 2)
      return nodeError(node, "only a Gather of rows of a [V, D] table (axis 0) is imported");
    define(node.outputs[0], b.create<mpg::EmbeddingOp>(loc, *x, *indices));
    return llvm::Error::success();
  }
  // Cast: between float types; an integer cast of a value is refused.
  int64_t to = intAttr(node, "to", 1);
  if (to == 1 && llvm::isa<FloatType>(type.getElementType())) {
    define(node.outputs[0],
           type.getElementType().isF32()
               ? *x
               : Value(b.create<mpg::CastOp>(loc, type.clone(b.getF32Type()), *x)));
    return llvm::Error::success();
  }
  return nodeError(node, "a Cast of a computed value to ONNX type " + llvm::Twine(to) +
                             " is not imported (casts to FLOAT are)");
}

std::optional<llvm::Error> Translator::foldKnown(const Node &node) {
  const std::string &op = node.opType;
  auto done = [&](rt::HostTensor tensor) -> std::optional<llvm::Error> {
    constants[node.outputs[0]] = std::move(tensor);
    return llvm::Error::success();
  };
  if (op == "Constant") {
    for (const auto &[key, attribute] : node.attributes) {
      if (key == "value")
        return done(attribute.tensor);
      if (key == "value_int")
        return done(intTensor({attribute.i}, {}));
      if (key == "value_ints")
        return done(intTensor(attribute.ints, {static_cast<int64_t>(attribute.ints.size())}));
      if (key == "value_float" || key == "value_floats") {
        std::vector<double> values =
            key == "value_float" ? std::vector<double>{attribute.f} : attribute.floats;
        rt::HostTensor tensor;
        tensor.dtype = rt::DType::F32;
        if (key == "value_floats")
          tensor.shape = {static_cast<int64_t>(values.size())};
        for (double v : values) {
          float f = static_cast<float>(v);
          const uint8_t *bytes = reinterpret_cast<const uint8_t *>(&f);
          tensor.bytes.insert(tensor.bytes.end(), bytes, bytes + 4);
        }
        return done(std::move(tensor));
      }
    }
    return nodeError(node, "it holds no value this importer reads");
  }
  if (op == "Shape") {
    Value x = values.lookup(node.inputs[0]);
    const rt::HostTensor *constant = known(node.inputs[0]);
    if (!x && !constant)
      return std::nullopt;
    std::vector<int64_t> shape =
        x ? std::vector<int64_t>(tensorOf(x).getShape().begin(), tensorOf(x).getShape().end())
          : constant->shape;
    // (opset 15: a range of the dimensions, clamped as Slice's)
    int64_t rank = static_cast<int64_t>(shape.size());
    auto clamp = [&](int64_t v) {
      return std::min(std::max<int64_t>(v < 0 ? v + rank : v, 0), rank);
    };
    int64_t from = clamp(intAttr(node, "start", 0)), to = clamp(intAttr(node, "end", rank));
    shape = std::vector<int64_t>(shape.begin() + from, shape.begin() + std::max(from, to));
    return done(intTensor(shape, {static_cast<int64_t>(shape.size())}));
  }
  if (op == "Size") {
    Value x = values.lookup(node.inputs[0]);
    const rt::HostTensor *constant = known(node.inputs[0]);
    if (!x && !constant)
      return std::nullopt;
    int64_t size = x ? tensorOf(x).getNumElements() : constant->numElements();
    return done(intTensor({size}, {}));
  }
  // The others fold when every input is a known integer tensor.
  std::vector<std::vector<int64_t>> ints;
  std::vector<const rt::HostTensor *> tensors;
  for (const std::string &name : node.inputs) {
    std::optional<std::vector<int64_t>> values = knownInts(name);
    if (!values)
      return std::nullopt;
    ints.push_back(std::move(*values));
    tensors.push_back(known(name));
  }
  if (ints.empty())
    return std::nullopt;
  const std::vector<int64_t> &first = ints[0];
  if (op == "Gather" && ints.size() == 2 && tensors[0]->shape.size() == 1) {
    std::vector<int64_t> out;
    for (int64_t index : ints[1]) {
      int64_t at = index < 0 ? index + static_cast<int64_t>(first.size()) : index;
      if (at < 0 || at >= static_cast<int64_t>(first.size()))
        return nodeError(node, "an index is out of range");
      out.push_back(first[at]);
    }
    return done(intTensor(out, tensors[1]->shape));
  }
  if ((op == "Unsqueeze" || op == "Squeeze") && ints.size() <= 2) {
    std::optional<std::vector<int64_t>> axes =
        ints.size() == 2 ? std::optional<std::vector<int64_t>>(ints[1]) : std::nullopt;
    if (op == "Unsqueeze" && !axes)
      return nodeError(node, "it has no axes");
    std::optional<std::vector<int64_t>> shape =
        op == "Squeeze" ? squeezed(tensors[0]->shape, axes) : unsqueezed(tensors[0]->shape, *axes);
    if (!shape)
      return nodeError(node, "an axis is out of range, repeated, or (Squeeze) not of size 1");
    return done(intTensor(first, *shape));
  }
  if (op == "Concat") {
    std::vector<int64_t> out;
    for (const auto &part : ints)
      out.insert(out.end(), part.begin(), part.end());
    return done(intTensor(out, {static_cast<int64_t>(out.size())}));
  }
  if (op == "Cast" && (intAttr(node, "to", 0) == 7 || intAttr(node, "to", 0) == 6))
    return done(intTensor(first, tensors[0]->shape));
  if (op == "Cast" && intAttr(node, "to", 0) == 1) {
    // (a shape's numbers as floats, for a scale such as 1 / sqrt(head size))
    rt::HostTensor tensor;
    tensor.dtype = rt::DType::F32;
    tensor.shape = tensors[0]->shape;
    for (int64_t v : first) {
      float f = static_cast<float>(v);
      const uint8_t *bytes = reinterpret_cast<const uint8_t *>(&f);
      tensor.bytes.insert(tensor.bytes.end(), bytes, bytes + 4);
    }
    return done(std::move(tensor));
  }
  if ((op == "Add" || op == "Sub" || op == "Mul" || op == "Div") && ints.size() == 2) {
    const std::vector<int64_t> &a = ints[0], &c = ints[1];
    size_t n = std::max(a.size(), c.size());
    if (!(a.size() == n || a.size() == 1) || !(c.size() == n || c.size() == 1))
      return std::nullopt;
    std::vector<int64_t> out(n);
    for (size_t i = 0; i < n; ++i) {
      int64_t x = a[a.size() == 1 ? 0 : i], y = c[c.size() == 1 ? 0 : i];
      if (op == "Div" && y == 0)
        return nodeError(node, "it divides by zero");
      out[i] = op == "Add" ? x + y : op == "Sub" ? x - y : op == "Mul" ? x * y : x / y;
    }
    return done(intTensor(out, a.size() == n ? tensors[0]->shape : tensors[1]->shape));
  }
  if (op == "Neg" && ints.size() == 1) {
    std::vector<int64_t> negated;
    for (int64_t v : first)
      negated.push_back(-v);
    return done(intTensor(negated, tensors[0]->shape));
  }
  if (op == "Slice" && ints.size() >= 3 && tensors[0]->shape.size() == 1) {
    // (a range of a shape, e.g. its leading dimensions; axes can only be 0)
    if (ints.size() > 3 && (ints[3].size() != 1 || (ints[3][0] != 0 && ints[3][0] != -1)))
      return nodeError(node, "the axis of a 1-D slice is not 0");
    if (ints[1].size() != 1 || ints[2].size() != 1)
      return nodeError(node, "a 1-D slice has one start and one end");
    if (ints.size() > 4 && ints[4].size() != 1)
      return nodeError(node, "a 1-D slice has one step");
    int64_t step = ints.size() > 4 ? ints[4][0] : 1;
    if (step == 0)
      return nodeError(node, "its step is 0");
    // Clamped as ONNX says: start and end to [0, size] for a positive
    // step; start to [0, size - 1] and end to [-1, size - 1] for a
    // negative one. The loops stop before an index would overflow.
    int64_t size = static_cast<int64_t>(first.size());
    auto clamp = [&](int64_t v, int64_t low, int64_t high) {
      return std::min(std::max(v < 0 ? v + size : v, low), high);
    };
    std::vector<int64_t> out;
    if (step > 0) {
      for (int64_t i = clamp(ints[1][0], 0, size), e = clamp(ints[2][0], 0, size); i < e;
           i += step) {
        out.push_back(first[i]);
        if (step >= e - i)
          break;
      }
    } else {
      for (int64_t i = clamp(ints[1][0], 0, size - 1), e = clamp(ints[2][0], -1, size - 1); i > e;
           i += step) {
        out.push_back(first[i]);
        if (step <= e - i)
          break;
      }
    }
    return done(intTensor(out, {static_cast<int64_t>(out.size())}));
  }
  if (op == "ConstantOfShape") {
    int64_t count = std::accumulate(first.begin(), first.end(), int64_t(1), std::multiplies<>());
    rt::HostTensor tensor;
    const mpc::onnx::Attribute *fill = node.attribute("value");
    tensor.dtype = fill ? fill->tensor.dtype : rt::DType::F32;
    tensor.shape = first;
    size_t width = rt::dtypeSize(tensor.dtype);
    tensor.bytes.resize(count * width, 0);
    if (fill && fill->tensor.bytes.size() == width)
      for (int64_t i = 0; i < count; ++i)
        std::memcpy(tensor.bytes.data() + i * width, fill->tensor.bytes.data(), width);
    return done(std::move(tensor));
  }
  return std::nullopt;
}

llvm::Error Translator::translateReduce(const Node &node) {
  llvm::Expected<Value> x = value(node.inputs[0]);
  if (!x)
    return x.takeError();
  int64_t rank = tensorOf(*x).getRank();
  // Axes: an attribute (ReduceMean, ReduceMax), an input (ReduceSum, opset
  // 13 on); none or empty: every axis, unless noop_with_empty_axes.
  std::vector<int64_t> axes;
  if (const mpc::onnx::Attribute *given = node.attribute("axes")) {
    axes = given->ints;
  } else if (node.inputs.size() > 1 && !node.inputs[1].empty()) {
    std::optional<std::vector<int64_t>> listed = knownInts(node.inputs[1]);
    if (!listed)
      return nodeError(node, "its axes are not known at import");
    axes = *listed;
  }
  if (axes.empty()) {
    if (intAttr(node, "noop_with_empty_axes", 0)) {
      define(node.outputs[0], *x);
      return llvm::Error::success();
    }
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  for (int64_t &axis : axes)
    if ((axis = normalize(axis, rank)) < 0)
      return nodeError(node, "an axis is outside the operand's rank " + llvm::Twine(rank));
  auto attr = b.getDenseI64ArrayAttr(axes);
  bool keep = intAttr(node, "keepdims", 1) != 0;
  Value y;
  if (node.opType == "ReduceSum")
    y = b.create<mpg::ReduceSumOp>(loc, *x, attr, keep);
  else if (node.opType == "ReduceMean")
    y = b.create<mpg::ReduceMeanOp>(loc, *x, attr, keep);
  else
    y = b.create<mpg::ReduceMaxOp>(loc, *x, attr, keep);
  define(node.outputs[0], y);
  return llvm::Error::success();
}

llvm::Error Translator::translateCompare(const Node &node) {
  llvm::Expected<Value> lhs = value(node.inputs[0]), rhs = value(node.inputs[1]);
  if (!lhs)
    return lhs.takeError();
  if (!rhs)
    return rhs.takeError();
  auto predicate = llvm::StringSwitch<mpg::ComparePredicate>(node.opType)
                       .Case("Equal", mpg::ComparePredicate::EQ)
                       .Case("Less", mpg::ComparePredicate::LT)
                       .Case("LessOrEqual", mpg::ComparePredicate::LE)
                       .Case("Greater", mpg::ComparePredicate::GT)
                       .Default(mpg::ComparePredicate::GE);
  define(node.outputs[0], b.create<mpg::CompareOp>(loc, predicate, *lhs, *rhs));
  return llvm::Error::success();
}

llvm::Error Translator::translateWhere(const Node &node) {
  llvm::Expected<Value> cond = value(node.inputs[0]), x = value(node.inputs[1]),
                        y = value(node.inputs[2]);
  if (!cond)
    return cond.takeError();
  if (!x)
    return x.takeError();
  if (!y)
    return y.takeError();
  define(node.outputs[0], b.create<mpg::SelectOp>(loc, *cond, *x, *y));
  return llvm::Error::success();
}

llvm::Error Translator::translateSlice(const Node &node) {
  llvm::Expected<Value> x = value(node.inputs[0]);
  if (!x)
    return x.takeError();
  RankedTensorType type = tensorOf(*x);
  int64_t rank = type.getRank();
  auto input = [&](size_t i) -> std::optional<std::vector<int64_t>> {
    return i < node.inputs.size() && !node.inputs[i].empty() ? knownInts(node.inputs[i])
                                                             : std::nullopt;
  };
  std::optional<std::vector<int64_t>> starts = input(1), ends = input(2), axes = input(3),
                                      steps = input(4);
  if (!starts || !ends)
    return nodeError(node, "its starts and ends are not known at import");
  if (ends->size() != starts->size() || (axes && axes->size() != starts->size()) ||
      (steps && steps->size() != starts->size()) ||
      (!axes && starts->size() > static_cast<size_t>(rank)))
    return nodeError(node, "its starts, ends, axes and steps differ in length");
  llvm::SmallVector<int64_t> start(rank, 0), limit(type.getShape()), step(rank, 1);
  for (size_t i = 0; i < starts->size(); ++i) {
    int64_t axis = axes ? normalize((*axes)[i], rank) : static_cast<int64_t>(i);
    int64_t by = steps ? (*steps)[i] : 1;
    if (axis < 0 || by < 1)
      return nodeError(node, "an axis is out of range or a step is not positive (negative "
                             "steps are not imported)");
    int64_t dim = type.getDimSize(axis);
    auto clamp = [&](int64_t v) {
      v = v < 0 ? v + dim : v;
      return std::min(std::max<int64_t>(v, 0), dim);
    };
    start[axis] = clamp((*starts)[i]);
    limit[axis] = std::max(start[axis], clamp((*ends)[i]));
    step[axis] = by;
  }
  define(node.outputs[0],
         b.create<mpg::SliceOp>(loc, *x, b.getDenseI64ArrayAttr(start),
                                b.getDenseI64ArrayAttr(limit), b.getDenseI64ArrayAttr(step)));
  return llvm::Error::success();
}

llvm::Error Translator::translateSplit(const Node &node) {
  llvm::Expected<Value> x = value(node.inputs[0]);
  if (!x)
    return x.takeError();
  RankedTensorType type = tensorOf(*x);
  int64_t axis = normalize(intAttr(node, "axis", 0), type.getRank());
  if (axis < 0)
    return nodeError(node, "its axis is outside the operand's rank");
  std::vector<int64_t> sizes;
  if (node.inputs.size() > 1 && !node.inputs[1].empty()) {
    std::optional<std::vector<int64_t>> given = knownInts(node.inputs[1]);
    if (!given)
      return nodeError(node, "its split sizes are not known at import");
    sizes = *given;
  } else if (const mpc::onnx::Attribute *given = node.attribute("split")) {
    sizes = given->ints;
  } else {
    int64_t parts = static_cast<int64_t>(node.outputs.size());
    if (type.getDimSize(axis) % parts != 0)
      return nodeError(node, "its axis does not split evenly into its outputs");
    sizes.assign(parts, type.getDimSize(axis) / parts);
  }
  if (sizes.size() != node.outputs.size())
    return nodeError(node, "it has " + llvm::Twine(node.outputs.size()) + " outputs for " +
                               llvm::Twine(sizes.size()) + " split sizes");
  int64_t total = std::accumulate(sizes.begin(), sizes.end(), int64_t(0));
  if (total != type.getDimSize(axis))
    return nodeError(node, "its split sizes do not add up to the axis's " +
                               llvm::Twine(type.getDimSize(axis)));
  int64_t offset = 0;
  for (auto [i, size] : llvm::enumerate(sizes)) {
    llvm::SmallVector<int64_t> start(type.getRank(), 0), limit(type.getShape()),
        step(type.getRank(), 1);
    start[axis] = offset;
    limit[axis] = offset + size;
    offset += size;
    define(node.outputs[i],
           b.create<mpg::SliceOp>(loc, *x, b.getDenseI64ArrayAttr(start),
                                  b.getDenseI64ArrayAttr(limit), b.getDenseI64ArrayAttr(step)));
  }
  return llvm::Error::success();
}

llvm::Error Translator::translateExpand(const Node &node) {
  llvm::Expected<Value> x = value(node.inputs[0]);
  if (!x)
    return x.takeError();
  std::optional<std::vector<int64_t>> shape = knownInts(node.inputs[1]);
  if (!shape)
    return nodeError(node, "its shape is not known at import");
  RankedTensorType type = tensorOf(*x);
  // NumPy broadcasting of the operand's shape and the given one.
  size_t rank = std::max<size_t>(shape->size(), type.getRank());
  llvm::SmallVector<int64_t> out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    size_t own = rank - type.getRank(), given = rank - shape->size();
    int64_t a = i < own ? 1 : type.getDimSize(i - own);
    int64_t c = i < given ? 1 : (*shape)[i - given];
    if (a != c && a != 1 && c != 1)
      return nodeError(node, "the shapes do not broadcast");
    out[i] = std::max(a, c);
  }
  define(node.outputs[0],
         b.create<mpg::BroadcastToOp>(loc, RankedTensorType::get(out, type.getElementType()), *x));
  return llvm::Error::success();
}

llvm::Error Translator::translateBatchNorm(const Node &node) {
  llvm::SmallVector<Value, 5> v;
  for (size_t i = 0; i < 5; ++i) {
    llvm::Expected<Value> got = value(node.inputs[i]);
    if (!got)
      return got.takeError();
    v.push_back(*got);
  }
  double eps = floatAttr(node, "epsilon", 1e-5);
  // ONNX's momentum weighs the running statistics, PyTorch's and mpc's the
  // batch's.
  double momentum = 1.0 - floatAttr(node, "momentum", 0.9);
  if (intAttr(node, "training_mode", 0) != 0) {
    auto norm = b.create<mpg::BatchNormOp>(loc, v[0], v[1], v[2], v[3], v[4],
                                           b.getF64FloatAttr(momentum), b.getF64FloatAttr(eps));
    define(node.outputs[0], norm->getResult(0));
    for (size_t i = 1; i < 3; ++i) {
      Value updated = norm->getResult(i);
      if (v[2 + i].getDefiningOp<mpg::StateOp>())
        b.create<mpg::StateWriteOp>(loc, v[2 + i], updated);
      if (i < node.outputs.size() && !node.outputs[i].empty())
        define(node.outputs[i], updated);
    }
    return llvm::Error::success();
  }
  // Inference: the running statistics, per channel (dimension 1).
  RankedTensorType type = tensorOf(v[0]);
  llvm::SmallVector<int64_t> channel(type.getRank() - 1, 1);
  channel[0] = type.getDimSize(1);
  auto perChannel = [&](Value x) -> Value {
    return b.create<mpg::ReshapeOp>(
        loc, RankedTensorType::get(channel, tensorOf(x).getElementType()), x);
  };
  Value epsilon = b.create<mpg::ConstantOp>(
      loc, DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()),
                                  b.getF32FloatAttr(static_cast<float>(eps)).getValue()));
  Value deviation = b.create<mpg::SqrtOp>(loc, b.create<mpg::AddOp>(loc, v[4], epsilon));
  Value scale = b.create<mpg::DivOp>(loc, v[1], deviation);
  Value centred = b.create<mpg::SubOp>(loc, v[0], perChannel(v[3]));
  Value y = b.create<mpg::AddOp>(loc, b.create<mpg::MulOp>(loc, centred, perChannel(scale)),
                                 perChannel(v[2]));
  define(node.outputs[0], y);
  return llvm::Error::success();
}
