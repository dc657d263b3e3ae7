//===- CudaEmitter.cpp - mpk programs as CUDA C++ -------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// One visitor over the kernel ops of a program. Every kernel is a functor
// (one output element, or one row) plus an MPC_KERNEL entry that builds it
// from the buffer table and hands it to a skeleton (mpc::pointwise,
// mpc::rows). Scalar bodies (arith/math) are printed one statement per op,
// every value in its compute type; loads widen with mpc::to_f32 and stores
// round once with mpc::from_f32<T>.
//
//===----------------------------------------------------------------------===//

#include "compiler/CodeGen/CudaEmitter.h"
#include "compiler/CodeGen/HostRowLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>

using namespace mlir;
namespace mpk = mlir::mpk;

namespace {

/// The C++ type of a stored element.
std::string storageType(Type type) {
  if (type.isF16())
    return "mpc::half_t";
  if (type.isBF16())
    return "mpc::bf16_t";
  if (type.isF32())
    return "float";
  if (type.isF64())
    return "double";
  if (type.isInteger(1))
    return "uint8_t";
  if (type.isInteger(32))
    return "int32_t";
  if (type.isInteger(64))
    return "int64_t";
  return "";
}

/// The C++ type of a value in registers (f16/bf16 scalars only appear
/// between a rounding truncf and its extf).
std::string scalarType(Type type) {
  if (type.isInteger(1))
    return "bool";
  return storageType(type);
}

Type elementOf(Value buffer) { return llvm::cast<MemRefType>(buffer.getType()).getElementType(); }

/// fp16 and bf16: stored as 16 bits, computed in f32.
bool is16Bit(Type type) { return type.isF16() || type.isBF16(); }
llvm::ArrayRef<int64_t> shapeOf(Value buffer) {
  return llvm::cast<MemRefType>(buffer.getType()).getShape();
}

int64_t product(llvm::ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= d;
  return p;
}

/// A float literal that reads back exactly.
std::string floatLiteral(double value, bool isDouble) {
  if (std::isinf(value))
    return value > 0 ? "mpc::inf_f()" : "(-mpc::inf_f())";
  if (std::isnan(value))
    return "mpc::nan_f()";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format(isDouble ? "%.17g" : "%.9g", value);
  if (text.find_first_of(".e") == std::string::npos)
    text += ".0";
  if (!isDouble)
    text += "f";
  return "(" + text + ")";
}

/// The conversions of generated code: mpc::to_f32 and mpc::from_f32, or in
/// the host loops of pointwise kernels their forms that a host compiler
/// vectorises (to_f32_loop, from_f32_loop; the same values).
struct Conversions {
  llvm::StringRef widen = "mpc::to_f32", narrow = "mpc::from_f32";
};
constexpr Conversions kScalarConversions{};
constexpr Conversions kLoopConversions{"mpc::to_f32_loop", "mpc::from_f32_loop"};

/// Reads `buffer` element at `index` into the compute type.
std::string loadExpr(Value buffer, llvm::StringRef pointer, llvm::StringRef index,
                     const Conversions &convert = kScalarConversions) {
  Type type = elementOf(buffer);
  std::string access = (pointer + "[" + index + "]").str();
  if (type.isF16() || type.isBF16() || type.isF32())
    return (convert.widen + "(" + access + ")").str();
  if (type.isInteger(1))
    return "(" + access + " != 0)";
  return access;
}

/// Converts `value` (compute type) for storing into `buffer`.
std::string storeExpr(Value buffer, llvm::StringRef value,
                      const Conversions &convert = kScalarConversions) {
  Type type = elementOf(buffer);
  if (type.isF16() || type.isBF16() || type.isF32())
    return (convert.narrow + "<" + storageType(type) + ">(" + value + ")").str();
  if (type.isInteger(1))
    return "static_cast<uint8_t>(" + value.str() + " ? 1 : 0)";
  return value.str();
}

/// The statement storing `value` (compute type) into `buffer` element at
/// `index` in a host loop. A bf16 element is written through its bits, which
/// a host compiler vectorises (a loop of whole-struct stores it does not).
std::string loopStoreStatement(Value buffer, llvm::StringRef pointer, llvm::StringRef index,
                               llvm::StringRef value) {
  std::string access = (pointer + "[" + index + "]").str();
  if (elementOf(buffer).isBF16())
    return access + ".bits = " + storeExpr(buffer, value, kLoopConversions) + ".bits;";
  return access + " = " + storeExpr(buffer, value, kLoopConversions) + ";";
}

/// Row-major strides of `shape`.
llvm::SmallVector<int64_t> stridesOf(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// C++ text of an affine expression over named dimensions.
std::string affineText(AffineExpr expr, llvm::ArrayRef<std::string> dims) {
  if (auto dim = llvm::dyn_cast<AffineDimExpr>(expr))
    return dims[dim.getPosition()];
  if (auto constant = llvm::dyn_cast<AffineConstantExpr>(expr))
    return std::to_string(constant.getValue());
  auto binary = llvm::cast<AffineBinaryOpExpr>(expr);
  std::string lhs = affineText(binary.getLHS(), dims), rhs = affineText(binary.getRHS(), dims);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return "(" + lhs + " + " + rhs + ")";
  case AffineExprKind::Mul:
    return "(" + lhs + " * " + rhs + ")";
  case AffineExprKind::Mod:
    return "(" + lhs + " % " + rhs + ")";
  case AffineExprKind::FloorDiv:
    // Indexing maps divide non-negative indices only: truncation is floor.
    return "(" + lhs + " / " + rhs + ")";
  default:
    llvm_unreachable("indexing maps hold only +, *, mod and floordiv");
  }
}

/// The linear index into a buffer of `shape` at `map(dims)`.
/// With `fromDim`, the terms of iteration dimensions >= fromDim are left out
/// (the start of a host run).
std::string linearIndex(AffineMap map, llvm::ArrayRef<int64_t> shape,
                        llvm::ArrayRef<std::string> dims,
                        unsigned fromDim = std::numeric_limits<unsigned>::max()) {
  llvm::SmallVector<int64_t> strides = stridesOf(shape);
  std::string text;
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    if (auto constant = llvm::dyn_cast<AffineConstantExpr>(expr); constant && constant.getValue() == 0)
      continue;
    if (auto dim = llvm::dyn_cast<AffineDimExpr>(expr); dim && dim.getPosition() >= fromDim)
      continue;
    if (!text.empty())
      text += " + ";
    text += affineText(expr, dims);
    if (strides[i] != 1)
      text += " * " + std::to_string(strides[i]);
  }
  return text.empty() ? "0" : text;
}

/// Declares `names` as the row-major decomposition of `linear` over `shape`.
void emitDecompose(llvm::raw_ostream &os, llvm::StringRef indent, llvm::StringRef linear,
                   llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<std::string> names) {
  if (shape.empty())
    return;
  os << indent << "int64_t rest_ = " << linear << ";\n";
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    if (i == 0) {
      os << indent << "const int64_t " << names[i] << " = rest_;\n";
    } else {
      os << indent << "const int64_t " << names[i] << " = rest_ % " << shape[i] << ";\n";
      os << indent << "rest_ /= " << shape[i] << ";\n";
    }
  }
}

llvm::SmallVector<std::string> dimNames(llvm::StringRef prefix, size_t count) {
  llvm::SmallVector<std::string> names;
  for (size_t i = 0; i < count; ++i)
    names.push_back((prefix + std::to_string(i)).str());
  return names;
}

class Emitter {
public:
  explicit Emitter(mpk::ProgramOp program) : program(program) {}

  FailureOr<mpc::GeneratedKernels> run() {
    llvm::raw_string_ostream os(result.source);
    os << "// Generated by mpc from @" << program.getSymName() << ". Do not edit.\n"
       << "#include \"mpc/device/types.cuh\"\n"
       << "#include \"mpc/device/math.cuh\"\n"
       << "#include \"mpc/device/pointwise.cuh\"\n"
       << "#include \"mpc/device/rows.cuh\"\n";
    llvm::SmallVector<Operation *> ops;
    for (Operation &op : program.getBody().front())
      ops.push_back(&op);
    for (size_t index = 0; index < ops.size(); ++index) {
      Operation &op = *ops[index];
      if (auto k = llvm::dyn_cast<mpk::PointwiseOp>(op); k && k->hasAttr("mpk.update")) {
        // The run of independent updates that starts here: one launch.
        auto run = collectRun<mpk::PointwiseOp>(
            ops, index, [](mpk::PointwiseOp c) { return c->hasAttr("mpk.update"); });
        if (failed(emitUpdates(os, run)))
          return failure();
        continue;
      }
      if (auto k = llvm::dyn_cast<mpk::ReduceOp>(op); k && isMergeableCheck(k)) {
        // The run of finite checks that starts here: one launch.
        auto run = collectRun<mpk::ReduceOp>(ops, index, isMergeableCheck);
        if (failed(emitFiniteChecks(os, run)))
          return failure();
        continue;
      }
      // Each kernel is printed apart first: a kernel whose functor another
      // kernel already has (a repeated layer) reuses it, and only its entry
      // point is added.
      std::string text;
      llvm::raw_string_ostream kos(text);
      valueCount = 0;
      LogicalResult status =
          llvm::TypeSwitch<Operation *, LogicalResult>(&op)
              .Case([&](mpk::PointwiseOp k) { return emitPointwise(kos, k); })
              .Case([&](mpk::ReduceOp k) { return emitReduce(kos, k); })
              .Case([&](mpk::SoftmaxOp k) { return emitSoftmax(kos, k); })
              .Case([&](mpk::LayerNormOp k) { return emitLayerNorm(kos, k); })
              .Case([&](mpk::CrossEntropyOp k) { return emitCrossEntropy(kos, k); })
              .Case([&](mpk::CrossEntropyGradOp k) { return emitCrossEntropyGrad(kos, k); })
              .Case([&](mpk::Pool2DOp k) { return emitPool(kos, k); })
              .Case([&](mpk::Pool2DGradOp k) { return emitPoolGrad(kos, k); })
              .Case([&](mpk::Im2ColOp k) { return emitIm2Col(kos, k); })
              .Case([&](mpk::Col2ImOp k) { return emitCol2Im(kos, k); })
              .Case([&](mpk::GatherOp k) { return emitGather(kos, k); })
              .Default([](Operation *) { return success(); });
      if (failed(status))
        return failure();
      if (auto name = op.getAttrOfType<StringAttr>("sym_name"); name && !text.empty())
        appendSharingFunctor(os, text, name.getValue());
      else
        os << text;
    }
    // Each kernel's buffer table, in the host object: the CPU backend checks
    // the bundle's launch steps against it.
    os << "\n";
    for (const mpc::KernelLaunch &launch : result.kernels) {
      os << "MPC_KERNEL_BUFFER_BYTES(" << launch.name << ", " << launch.buffers.size();
      for (Value buffer : launch.buffers)
        os << ", " << bufferBytes(buffer);
      os << ")\n";
    }
    return std::move(result);
  }

private:
  /// Appends kernel `name`'s printed `text` (its functor in an anonymous
  /// namespace, then its MPC_KERNEL entry) to `os`, or only its entry, using
  /// the functor of an earlier kernel whose functor reads the same.
  void appendSharingFunctor(llvm::raw_ostream &os, const std::string &text, llvm::StringRef name) {
    const std::string functor = (name + "_fn").str();
    size_t split = text.find("} // namespace\n");
    if (split == std::string::npos) {
      os << text;
      return;
    }
    split += std::strlen("} // namespace\n");
    std::string definition = text.substr(0, split), entry = text.substr(split);
    auto [it, added] = functors.try_emplace(replaceName(definition, functor, "@functor@"),
                                            functor);
    if (added)
      os << definition << entry;
    else
      os << replaceName(entry, functor, it->second);
  }

  /// `text` with every occurrence of identifier `name` (not part of a longer
  /// identifier) replaced by `by`.
  static std::string replaceName(const std::string &text, const std::string &name,
                                 const std::string &by) {
    auto identifierChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    std::string out;
    size_t from = 0;
    for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
      size_t end = at + name.size();
      if ((at > 0 && identifierChar(text[at - 1])) || (end < text.size() && identifierChar(text[end])))
        continue;
      out.append(text, from, at - from);
      out += by;
      from = end;
    }
    out.append(text, from, std::string::npos);
    return out;
  }

  /// Starts a kernel: records its launch and prints the functor's pointer
  /// members. Returns the member names.
  llvm::SmallVector<std::string> beginFunctor(llvm::raw_ostream &os, llvm::StringRef name,
                                              llvm::ArrayRef<Value> buffers,
                                              llvm::ArrayRef<bool> written) {
    os << "\nnamespace {\nstruct " << name << "_fn {\n";
    llvm::SmallVector<std::string> members;
    for (auto [i, buffer] : llvm::enumerate(buffers)) {
      std::string member = "p" + std::to_string(i);
      os << "  " << (written[i] ? "" : "const ") << storageType(elementOf(buffer)) << " *"
         << member << ";\n";
      members.push_back(member);
    }
    return members;
  }

  /// The kernel's definition up to its body's brace: with launch bounds
  /// where its blocks are larger than kDefaultRowBlock threads.
  static void emitKernelHead(llvm::raw_ostream &os, llvm::StringRef name, int64_t block) {
    if (block > kDefaultRowBlock)
      os << "MPC_KERNEL_BOUNDED(" << name << ", " << block << ") {\n";
    else
      os << "MPC_KERNEL(" << name << ") {\n";
  }

  void endFunctor(llvm::raw_ostream &os, llvm::StringRef name, llvm::ArrayRef<Value> buffers,
                  llvm::ArrayRef<bool> written, llvm::StringRef skeletonCall, int64_t grid,
                  int64_t block) {
    os << "};\n} // namespace\n\n";
    emitKernelHead(os, name, block);
    os << "  const " << name << "_fn fn{";
    for (auto [i, buffer] : llvm::enumerate(buffers)) {
      std::string type = storageType(elementOf(buffer));
      os << (i ? ", " : "") << "static_cast<" << (written[i] ? "" : "const ") << type
         << " *>(mpc_buffers[" << i << "])";
    }
    os << "};\n  " << skeletonCall << ";\n}\n";
    result.kernels.push_back({name.str(), std::vector<Value>(buffers.begin(), buffers.end()),
                              grid, block});
  }

  static int64_t pointwiseGrid(int64_t n) {
    return std::max<int64_t>(1, std::min<int64_t>((n + 255) / 256, 65535));
  }
  /// Threads of a row kernel's block: enough for the row's columns, at
  /// most kDefaultRowBlock; up to 1024 for rows of at least kLongRow columns
  /// in a launch of under kFewRows rows (a finite check or a loss over a
  /// whole tensor), where each row's block streams it alone. kFewRows is a
  /// heuristic near a GPU's multiprocessor count (132 on an H200, 108 on an
  /// A100). A multi-tensor launch takes the largest of its members'.
  static constexpr int64_t kDefaultRowBlock = 256;
  static constexpr int64_t kFewRows = 128;
  static constexpr int64_t kLongRow = 32768;
  static int64_t rowBlock(int64_t cols, int64_t rows) {
    int64_t limit = rows < kFewRows && cols >= kLongRow ? 1024 : kDefaultRowBlock;
    int64_t block = 32;
    while (block < limit && block < cols)
      block *= 2;
    return block;
  }
  static int64_t rowGrid(int64_t rows) { return std::max<int64_t>(1, std::min<int64_t>(rows, 65535)); }

  /// Prints the scalar ops of `block` (its arguments already named in
  /// `names`); returns failure on an op without a C++ form.
  LogicalResult emitScalarBody(llvm::raw_ostream &os, llvm::StringRef indent, Block &block,
                               llvm::DenseMap<Value, std::string> &names,
                               const Conversions &convert = kScalarConversions) {
    for (Operation &op : block.without_terminator()) {
      if (op.getNumResults() != 1)
        return op.emitError("cannot emit a scalar op with ") << op.getNumResults() << " results";
      std::string expr;
      auto in = [&](unsigned i) { return names.lookup(op.getOperand(i)); };
      Type resultType = op.getResult(0).getType();
      bool isDouble = resultType.isF64();
      auto binary = [&](llvm::StringRef symbol) {
        return "(" + in(0) + " " + symbol.str() + " " + in(1) + ")";
      };
      auto call = [&](llvm::StringRef function, unsigned arity) {
        std::string text = "mpc::" + function.str() + "(" + in(0);
        if (arity == 2)
          text += ", " + in(1);
        return text + ")";
      };
      bool ok = true;
      llvm::TypeSwitch<Operation *>(&op)
          .Case([&](arith::ConstantOp c) {
            if (auto f = llvm::dyn_cast<FloatAttr>(c.getValue()))
              expr = floatLiteral(f.getValueAsDouble(), isDouble);
            else if (auto i = llvm::dyn_cast<IntegerAttr>(c.getValue()))
              expr = resultType.isInteger(1)
                         ? (i.getValue().isZero() ? "false" : "true")
                         : "static_cast<" + scalarType(resultType) + ">(" +
                               std::to_string(i.getValue().getSExtValue()) + "LL)";
            else
              ok = false;
          })
          .Case([&](arith::AddFOp) { expr = binary("+"); })
          .Case([&](arith::SubFOp) { expr = binary("-"); })
          .Case([&](arith::MulFOp) { expr = binary("*"); })
          .Case([&](arith::DivFOp) { expr = binary("/"); })
          .Case([&](arith::NegFOp) { expr = "(-" + in(0) + ")"; })
          .Case([&](arith::AddIOp) { expr = binary("+"); })
          .Case([&](arith::SubIOp) { expr = binary("-"); })
          .Case([&](arith::MulIOp) { expr = binary("*"); })
          .Case([&](arith::DivSIOp) {
            expr = "mpc::div_i<" + scalarType(resultType) + ">(" + in(0) + ", " + in(1) + ")";
          })
          .Case([&](arith::MaximumFOp) { expr = call("max_f", 2); })
          .Case([&](arith::MinimumFOp) { expr = call("min_f", 2); })
          .Case([&](arith::MaxSIOp) { expr = "(" + in(0) + " < " + in(1) + " ? " + in(1) + " : " + in(0) + ")"; })
          .Case([&](arith::MinSIOp) { expr = "(" + in(1) + " < " + in(0) + " ? " + in(1) + " : " + in(0) + ")"; })
          .Case([&](arith::CmpFOp c) {
            static const llvm::DenseMap<int, const char *> symbols = {
                {int(arith::CmpFPredicate::OEQ), "=="}, {int(arith::CmpFPredicate::UNE), "!="},
                {int(arith::CmpFPredicate::OLT), "<"},  {int(arith::CmpFPredicate::OLE), "<="},
                {int(arith::CmpFPredicate::OGT), ">"},  {int(arith::CmpFPredicate::OGE), ">="}};
            auto it = symbols.find(int(c.getPredicate()));
            if (it == symbols.end())
              ok = false;
            else
              expr = binary(it->second);
          })
          .Case([&](arith::CmpIOp c) {
            static const llvm::DenseMap<int, const char *> symbols = {
                {int(arith::CmpIPredicate::eq), "=="},  {int(arith::CmpIPredicate::ne), "!="},
                {int(arith::CmpIPredicate::slt), "<"},  {int(arith::CmpIPredicate::sle), "<="},
                {int(arith::CmpIPredicate::sgt), ">"},  {int(arith::CmpIPredicate::sge), ">="}};
            auto it = symbols.find(int(c.getPredicate()));
            if (it == symbols.end())
              ok = false;
            else
              expr = binary(it->second);
          })
          .Case([&](arith::SelectOp) {
            expr = "(" + in(0) + " ? " + in(1) + " : " + in(2) + ")";
          })
          .Case([&](arith::TruncFOp t) {
            Type to = t.getType();
            if (to.isF16() || to.isBF16())
              expr = (convert.narrow + "<" + storageType(to) + ">(static_cast<float>(" + in(0) +
                      "))")
                         .str();
            else
              expr = "static_cast<" + scalarType(to) + ">(" + in(0) + ")";
          })
          .Case([&](arith::ExtFOp e) {
            Type from = e.getIn().getType();
            expr = (from.isF16() || from.isBF16())
                       ? "static_cast<" + scalarType(e.getType()) + ">(" + convert.widen.str() +
                             "(" + in(0) + "))"
                       : "static_cast<" + scalarType(e.getType()) + ">(" + in(0) + ")";
          })
          .Case([&](arith::FPToSIOp) {
            expr = "mpc::to_int_sat<" + scalarType(resultType) + ">(" + in(0) + ")";
          })
          .Case<arith::SIToFPOp, arith::UIToFPOp, arith::ExtSIOp, arith::ExtUIOp,
                arith::TruncIOp>([&](Operation *) {
            expr = "static_cast<" + scalarType(resultType) + ">(" + in(0) + ")";
          })
          .Case([&](math::ExpOp) { expr = call("exp_f", 1); })
          .Case([&](math::LogOp) { expr = call("log_f", 1); })
          .Case([&](math::SqrtOp) { expr = call("sqrt_f", 1); })
          .Case([&](math::RsqrtOp) { expr = call("rsqrt_f", 1); })
          .Case([&](math::TanhOp) { expr = call("tanh_f", 1); })
          .Case([&](math::SinOp) { expr = call("sin_f", 1); })
          .Case([&](math::CosOp) { expr = call("cos_f", 1); })
          .Case([&](math::ErfOp) { expr = call("erf_f", 1); })
          .Case([&](math::PowFOp) { expr = call("pow_f", 2); })
          .Case([&](math::AbsFOp) { expr = call("abs_f", 1); })
          .Case([&](math::AbsIOp) { expr = "(" + in(0) + " < 0 ? -" + in(0) + " : " + in(0) + ")"; })
          .Default([&](Operation *) { ok = false; });
      if (!ok)
        return op.emitError() << "the CUDA emitter has no form for '" << op.getName() << "'";
      std::string name = "v" + std::to_string(valueCount++);
      os << indent << "const " << scalarType(resultType) << " " << name << " = " << expr << ";\n";
      names[op.getResult(0)] = name;
    }
    return success();
  }

  /// Prints `row(r)`, the host's form of pointwise kernel `k` (see
  /// pointwise.cuh), and returns its number of rows; -1 on failure. Each row
  /// is a tile of a run (HostRowLayout.h), walked in chunks; fp16 and bf16
  /// operands go through float arrays a chunk at a time.
  int64_t emitHostRowForm(llvm::raw_ostream &os, mpk::PointwiseOp k,
                          llvm::ArrayRef<Value> buffers, llvm::ArrayRef<std::string> members,
                          llvm::ArrayRef<AffineMap> maps) {
    llvm::ArrayRef<int64_t> iteration = k.getIteration();
    Block &body = k.getBody().front();
    unsigned numInputs = k.getInputs().size();
    llvm::SmallVector<llvm::ArrayRef<int64_t>> shapes;
    for (Value buffer : buffers)
      shapes.push_back(shapeOf(buffer));
    std::optional<mpc::HostRowLayout> layout = mpc::hostRowLayout(iteration, maps, shapes);
    if (layout && !llvm::all_of(llvm::drop_begin(layout->advances, numInputs),
                                [](bool advances) { return advances; }))
      layout.reset();
    // The host form uses host-only helpers; NVRTC never sees it.
    os << "#ifndef __CUDACC__\n  void row(int64_t r) const {\n";
    if (!layout || product(iteration) == 0) {
      // No contiguous runs (a 0-d kernel, or no elements): the elements one
      // by one.
      os << "    for (int64_t i = 0; i < " << product(iteration) << "; ++i)\n"
         << "      (*this)(i);\n  }\n#endif\n";
      return 1;
    }
    // Rows of at most kHostTile elements, so that OpenMP threads share even
    // a single long run.
    constexpr int64_t kHostTile = 4096;
    // The elements the loop takes at a time (mpc::kHostChunk, pointwise.cuh).
    constexpr int64_t kHostChunk = 128;
    int64_t length = layout->runLength;
    int64_t tile = std::min(length, kHostTile);
    int64_t tiles = (length + tile - 1) / tile;
    auto dims = dimNames("d", iteration.size());
    unsigned first = layout->firstRunDim;
    if (tiles > 1)
      os << "    const int64_t t_ = r % " << tiles << ";\n";
    if (tiles > 1 && first > 0)
      os << "    r /= " << tiles << ";\n";
    emitDecompose(os, "    ", "r", iteration.take_front(first),
                  llvm::ArrayRef<std::string>(dims).take_front(first));
    if (tiles > 1)
      os << "    const int64_t begin_ = t_ * " << tile << ";\n"
         << "    const int64_t end_ = begin_ + " << tile << " < " << length << " ? begin_ + "
         << tile << " : " << length << ";\n";
    else
      os << "    const int64_t begin_ = 0, end_ = " << length << ";\n";
    // Buffers converted a chunk at a time outside the loop: fp16 through
    // floats (eight at a time with F16C), booleans through 32-bit integers,
    // and bf16 results of kernels that compute, over runs of a chunk or
    // more, through floats. A bf16 input widens with a shift that
    // vectorises in the loop itself, which saves a pass over a staging
    // array. A bf16 result rounded in the loop of a kernel that computes
    // made it mix 16- and 32-bit lanes (the CNN's batch-norm + ReLU kernel
    // took 1.65x as long, a GELU 1.05x); a copy or a cast, or a short run,
    // is faster without the extra pass, and so is a fill.
    bool computes = llvm::any_of(body.without_terminator(), [](Operation &op) {
      return !llvm::isa<arith::ConstantOp, arith::ExtFOp, arith::TruncFOp>(op);
    });
    auto staged = [&](unsigned b) {
      Type type = elementOf(buffers[b]);
      bool stagedBf16Result =
          type.isBF16() && b >= numInputs && computes && length >= kHostChunk;
      return layout->advances[b] && (type.isF16() || type.isInteger(1) || stagedBf16Result);
    };
    auto isBool = [&](unsigned b) { return elementOf(buffers[b]).isInteger(1); };
    llvm::SmallVector<std::string> starts;
    for (auto [b, buffer] : llvm::enumerate(buffers)) {
      starts.push_back("at" + std::to_string(b) + "_");
      os << "    const int64_t " << starts.back() << " = "
         << linearIndex(maps[b], shapeOf(buffer), dims, first) << ";\n";
    }
    // What the run reads once: broadcast inputs.
    llvm::DenseMap<Value, std::string> names;
    for (auto [j, arg] : llvm::enumerate(body.getArguments())) {
      names[arg] = "a" + std::to_string(j);
      if (!layout->advances[j])
        os << "    const " << scalarType(arg.getType()) << " " << names[arg] << " = "
           << loadExpr(buffers[j], members[j], starts[j]) << ";\n";
    }
    os << "    for (int64_t c_ = begin_; c_ < end_; c_ += mpc::kHostChunk) {\n"
       << "      const int64_t n_ = end_ - c_ < mpc::kHostChunk ? end_ - c_ : mpc::kHostChunk;\n";
    for (unsigned b = 0; b < buffers.size(); ++b) {
      if (!staged(b))
        continue;
      os << "      " << (isBool(b) ? "int32_t" : "float") << " s" << b
         << "_[mpc::kHostChunk];\n";
      if (b < numInputs)
        os << "      mpc::widen_chunk(" << members[b] << " + (" << starts[b] << " + c_), s" << b
           << "_, n_);\n";
    }
    os << "      MPC_INDEPENDENT_ITERATIONS\n"
       << "      for (int64_t j_ = 0; j_ < n_; ++j_) {\n";
    for (auto [j, arg] : llvm::enumerate(body.getArguments())) {
      if (!layout->advances[j])
        continue;
      os << "        const " << scalarType(arg.getType()) << " " << names[arg] << " = ";
      if (staged(j))
        os << "s" << j << "_[j_]" << (isBool(j) ? " != 0" : "") << ";\n";
      else
        os << loadExpr(buffers[j], members[j], starts[j] + " + c_ + j_", kLoopConversions)
           << ";\n";
    }
    if (failed(emitScalarBody(os, "        ", body, names, kLoopConversions)))
      return -1;
    auto yield = llvm::cast<mpk::YieldOp>(body.getTerminator());
    for (auto [j, value] : llvm::enumerate(yield.getValues())) {
      unsigned b = numInputs + j;
      if (staged(b) && isBool(b)) {
        os << "        s" << b << "_[j_] = " << names.lookup(value) << " ? 1 : 0;\n";
        continue;
      }
      if (staged(b)) {
        os << "        s" << b << "_[j_] = " << names.lookup(unroundedStore(value, buffers[b]))
           << ";\n";
        continue;
      }
      os << "        "
         << loopStoreStatement(buffers[b], members[b], starts[b] + " + c_ + j_",
                               names.lookup(unroundedStore(value, buffers[b])))
         << "\n";
    }
    os << "      }\n";
    for (unsigned b = numInputs; b < buffers.size(); ++b)
      if (staged(b))
        os << "      mpc::narrow_chunk(s" << b << "_, " << members[b] << " + (" << starts[b]
           << " + c_), n_);\n";
    os << "    }\n  }\n#endif\n";
    return layout->runs * tiles;
  }

  /// What a store of `value` into `buffer` may round instead: x when value
  /// is extf(truncf(x)) through the buffer's own element type (a cast to
  /// it), since rounding x once to that type gives the same bits as
  /// rounding, widening exactly and rounding again.
  static Value unroundedStore(Value value, Value buffer) {
    auto widen = value.getDefiningOp<arith::ExtFOp>();
    if (!widen)
      return value;
    auto round = widen.getIn().getDefiningOp<arith::TruncFOp>();
    if (!round || round.getType() != elementOf(buffer) || !round.getIn().getType().isF32())
      return value;
    return round.getIn();
  }

  LogicalResult emitPointwise(llvm::raw_ostream &os, mpk::PointwiseOp k,
                              bool functorOnly = false) {
    llvm::SmallVector<Value> buffers(k.getInputs());
    buffers.append(k.getOutputs().begin(), k.getOutputs().end());
    llvm::SmallVector<bool> written(k.getInputs().size(), false);
    written.append(k.getOutputs().size(), true);
    auto members = beginFunctor(os, k.getSymName(), buffers, written);
    llvm::ArrayRef<int64_t> iteration = k.getIteration();
    auto maps = llvm::to_vector(k.getIndexing().getAsValueRange<AffineMapAttr>());
    auto dims = dimNames("d", iteration.size());
    Block &body = k.getBody().front();
    unsigned numInputs = k.getInputs().size();
    // The GPU's form: element i of the iteration space.
    os << "  MPC_HD void operator()(int64_t i) const {\n";
    emitDecompose(os, "    ", "i", iteration, dims);
    llvm::DenseMap<Value, std::string> names;
    for (auto [j, arg] : llvm::enumerate(body.getArguments())) {
      std::string name = "a" + std::to_string(j);
      os << "    const " << scalarType(arg.getType()) << " " << name << " = "
         << loadExpr(buffers[j], members[j], linearIndex(maps[j], shapeOf(buffers[j]), dims))
         << ";\n";
      names[arg] = name;
    }
    if (failed(emitScalarBody(os, "    ", body, names)))
      return failure();
    auto yield = llvm::cast<mpk::YieldOp>(body.getTerminator());
    for (auto [j, value] : llvm::enumerate(yield.getValues())) {
      unsigned b = numInputs + j;
      os << "    " << members[b] << "[" << linearIndex(maps[b], shapeOf(buffers[b]), dims)
         << "] = " << storeExpr(buffers[b], names.lookup(value)) << ";\n";
    }
    os << "  }\n";
    int64_t n = product(iteration);
    int64_t rows = emitHostRowForm(os, k, buffers, members, maps);
    if (rows < 0)
      return failure();
    os << "  static constexpr int64_t kRows = " << rows << ";\n";
    if (functorOnly) {
      os << "};\n} // namespace\n";
      return success();
    }
    endFunctor(os, k.getSymName(), buffers, written,
               "mpc::pointwise_rows(" + std::to_string(rows) + ", " + std::to_string(n) +
                   ", fn)",
               pointwiseGrid(n), 256);
    return success();
  }

  /// The bytes of a buffer (a byte per boolean).
  static int64_t bufferBytes(Value buffer) {
    return product(shapeOf(buffer)) *
           std::max<int64_t>(1, elementOf(buffer).getIntOrFloatBitWidth() / 8);
  }

  /// The byte range [begin, end) a buffer covers in its memory space.
  static std::tuple<int, int64_t, int64_t> extentOf(Value buffer) {
    auto def = buffer.getDefiningOp<mpk::BufferOp>();
    int64_t bytes = bufferBytes(buffer);
    if (!def)
      return {-1, 0, 0};
    return {static_cast<int>(def.getSpace()), static_cast<int64_t>(def.getOffset()),
            static_cast<int64_t>(def.getOffset()) + bytes};
  }
  /// A finite check of the loss scaler that can share a launch: an fp32 sum
  /// (the row skeleton) of one buffer into one element.
  static bool isMergeableCheck(mpk::ReduceOp k) {
    return k->hasAttr("mpk.finite_check") && k.getInputs().size() == 1 &&
           k.getEpilogueInputs().empty() && k.getOutputs().size() == 1 &&
           llvm::cast<MemRefType>(k.getOutputs()[0].getType()).getNumElements() == 1 &&
           k.getEpilogue().front().getArgument(0).getType().isF32();
  }

  /// The memory a run of kernels launched together (updates, finite checks)
  /// reads and writes, as extents (space, first byte, end), so that checking
  /// one more kernel against the run costs integer comparisons: a step of a
  /// deep model has runs of a thousand.
  struct RunExtents {
    using Extent = std::tuple<int, int64_t, int64_t>;
    std::vector<Extent> reads, writes;

    static bool overlap(const Extent &a, const Extent &b) {
      auto [spaceA, beginA, endA] = a;
      auto [spaceB, beginB, endB] = b;
      if (spaceA < 0 || spaceB < 0)
        return true; // unknown: assume the worst
      return spaceA == spaceB && beginA < endB && beginB < endA;
    }
    static std::vector<Extent> extentsOf(llvm::ArrayRef<Value> buffers) {
      std::vector<Extent> extents;
      for (Value v : buffers)
        extents.push_back(extentOf(v));
      return extents;
    }
    /// Whether a kernel reading `in` and writing `out` can join the run: it
    /// writes nothing the run reads or writes and reads nothing it writes
    /// (elements of different kernels run in any order).
    bool independent(llvm::ArrayRef<Value> in, llvm::ArrayRef<Value> out) const {
      std::vector<Extent> kernelReads = extentsOf(in), kernelWrites = extentsOf(out);
      for (const Extent &written : kernelWrites) {
        for (const Extent &other : reads)
          if (overlap(written, other))
            return false;
        for (const Extent &other : writes)
          if (overlap(written, other))
            return false;
      }
      for (const Extent &read : kernelReads)
        for (const Extent &other : writes)
          if (overlap(read, other))
            return false;
      return true;
    }
    void add(llvm::ArrayRef<Value> in, llvm::ArrayRef<Value> out) {
      for (const Extent &e : extentsOf(in))
        reads.push_back(e);
      for (const Extent &e : extentsOf(out))
        writes.push_back(e);
    }
  };

  /// What kernel `k` reads: its inputs (and a reduction's epilogue inputs).
  static llvm::SmallVector<Value> readsOf(mpk::PointwiseOp k) {
    return llvm::SmallVector<Value>(k.getInputs());
  }
  static llvm::SmallVector<Value> readsOf(mpk::ReduceOp k) {
    llvm::SmallVector<Value> values(k.getInputs());
    values.append(k.getEpilogueInputs().begin(), k.getEpilogueInputs().end());
    return values;
  }

  /// The run of kernels that starts at `ops[index]` and shares one launch:
  /// the kernels of type OpT that follow it (buffer declarations between
  /// them emit nothing), as long as `isMember` accepts them and they are
  /// independent of the run. Leaves `index` at the run's last kernel.
  template <typename OpT, typename IsMember>
  static llvm::SmallVector<OpT> collectRun(llvm::ArrayRef<Operation *> ops, size_t &index,
                                           IsMember isMember) {
    auto first = llvm::cast<OpT>(ops[index]);
    llvm::SmallVector<OpT> run = {first};
    RunExtents extents;
    extents.add(readsOf(first), llvm::SmallVector<Value>(first.getOutputs()));
    auto skipBuffers = [&](size_t at) {
      while (at < ops.size() && llvm::isa<mpk::BufferOp>(ops[at]))
        ++at;
      return at;
    };
    for (size_t next = skipBuffers(index + 1); next < ops.size(); next = skipBuffers(next + 1)) {
      auto candidate = llvm::dyn_cast<OpT>(ops[next]);
      if (!candidate || !isMember(candidate))
        break;
      llvm::SmallVector<Value> in = readsOf(candidate), out(candidate.getOutputs());
      if (!extents.independent(in, out))
        break;
      run.push_back(candidate);
      extents.add(in, out);
      index = next;
    }
    return run;
  }

  /// The type of a merged launch's member whose functor definition is
  /// `text` (printed with its own name `name`_fn): an earlier identical
  /// functor's (the same kernel of a repeated layer), else its own, printed
  /// now.
  std::string memberFunctorType(llvm::raw_ostream &os, const std::string &text,
                                llvm::StringRef name) {
    std::string own = (name + "_fn").str();
    auto [it, added] = functors.try_emplace(replaceName(text, own, "@functor@"), own);
    if (added)
      os << text;
    return it->second;
  }

  /// The host's rows of a merged launch: each member's rows, end to end,
  /// called through mpc::run_host_row when `outOfLine`.
  static void emitMemberHostRows(llvm::raw_ostream &os, size_t members, bool outOfLine) {
    os << "#ifndef __CUDACC__\n  void row(int64_t r) const {\n";
    for (size_t i = 0; i < members; ++i) {
      os << "    if (r < f" << i << ".kRows) {\n      ";
      if (outOfLine)
        os << "mpc::run_host_row(f" << i << ", r);";
      else
        os << "f" << i << ".row(r);";
      os << "\n      return;\n    }\n"
         << "    r -= f" << i << ".kRows;\n";
    }
    os << "  }\n#endif\n";
  }

  /// The initializer of a merged launch's member `member`, whose pointers
  /// are entries [first, first + count) of the buffer table `table`.
  static void emitMemberInitializer(llvm::raw_ostream &os, llvm::StringRef table,
                                    size_t first, size_t count,
                                    llvm::ArrayRef<Value> buffers,
                                    llvm::ArrayRef<bool> written) {
    os << "{";
    for (size_t j = first; j < first + count; ++j)
      os << (j > first ? ", " : "") << "static_cast<" << (written[j] ? "" : "const ")
         << storageType(elementOf(buffers[j])) << " *>(" << table << "[" << j << "])";
    os << "}";
  }

  /// The host's `fn` of a merged launch, of type `functor`, whose members
  /// are the buffer table's pointers in order and nothing else (the size
  /// assertion checks): one copy of the table (mpc::fill_from_table). An
  /// initializer of a deep model's thousands of pointers is one basic block
  /// that costs the host compiler a minute.
  static void emitHostFunctorFill(llvm::raw_ostream &os, llvm::StringRef functor,
                                  size_t pointers) {
    os << "  " << functor << " fn;\n  static_assert(sizeof(fn) == " << pointers
       << " * sizeof(void *), \"the buffer table's pointers\");\n"
       << "  mpc::fill_from_table(fn, mpc_buffers);\n";
  }

  /// The functor `fn` of a merged reduction launch, of type `functor`: member
  /// i takes the next `counts[i]` entries of the launch's buffer table. On
  /// the GPU an initializer, on the host a copy of the table.
  void emitMergedFunctor(llvm::raw_ostream &os, llvm::StringRef functor,
                         llvm::ArrayRef<size_t> counts, llvm::ArrayRef<Value> buffers,
                         llvm::ArrayRef<bool> written) {
    os << "#ifdef __CUDACC__\n  const " << functor << " fn{";
    size_t table = 0;
    for (auto [i, count] : llvm::enumerate(counts)) {
      os << (i ? ", " : "");
      emitMemberInitializer(os, "mpc_buffers", table, count, buffers, written);
      table += count;
    }
    os << "};\n#else\n";
    emitHostFunctorFill(os, functor, table);
    os << "#endif\n";
  }

  /// Independent finite checks as one multi-tensor reduction: each keeps its
  /// functor, and the launch's rows are theirs end to end (one per check on
  /// the GPU, a block each; their host rows on the host). A check's sum is
  /// 0 or NaN whatever the order of its terms, so the block size of the
  /// merged launch (the largest of theirs) changes no result.
  LogicalResult emitFiniteChecks(llvm::raw_ostream &os, llvm::ArrayRef<mpk::ReduceOp> run) {
    mpk::ReduceOp first = run.front();
    if (run.size() == 1) {
      std::string text;
      llvm::raw_string_ostream kos(text);
      valueCount = 0;
      if (failed(emitReduce(kos, first)))
        return failure();
      appendSharingFunctor(os, text, first.getSymName());
      return success();
    }
    llvm::SmallVector<Value> buffers;
    llvm::SmallVector<bool> written;
    llvm::SmallVector<std::string> types;
    llvm::SmallVector<size_t> counts;
    int64_t block = 32;
    for (mpk::ReduceOp k : run) {
      std::string text;
      llvm::raw_string_ostream kos(text);
      valueCount = 0;
      if (failed(emitReduce(kos, k, /*functorOnly=*/true)))
        return failure();
      types.push_back(memberFunctorType(os, text, k.getSymName()));
      llvm::SmallVector<Value> reads = readsOf(k);
      buffers.append(reads.begin(), reads.end());
      written.append(reads.size(), false);
      buffers.append(k.getOutputs().begin(), k.getOutputs().end());
      written.append(k.getOutputs().size(), true);
      counts.push_back(reads.size() + k.getOutputs().size());
      int64_t count = 1;
      for (int64_t d : k.getReductionDims())
        count *= k.getIteration()[d];
      block = std::max(block, rowBlock(count, static_cast<int64_t>(run.size())));
      if (k != first)
        result.mergedInto[k.getSymName().str()] = first.getSymName().str();
    }
    std::string name = first.getSymName().str();
    os << "\nnamespace {\nstruct " << name << "_checks_fn {\n";
    for (auto [i, type] : llvm::enumerate(types))
      os << "  " << type << " f" << i << ";\n";
    // The GPU's rows: row i is check i's only row.
    os << "  template <class Row> MPC_HD void operator()(const Row &row) const {\n"
       << "    switch (row.index()) {\n";
    for (size_t i = 0; i < run.size(); ++i)
      os << "    case " << i << ":\n      mpc::run_row(f" << i << ", row.at(0));\n      return;\n";
    os << "    }\n  }\n";
    // The host's rows, out of line: one copy of the code per functor type
    // rather than a thousand reductions inlined into one function in a deep
    // model.
    emitMemberHostRows(os, run.size(), /*outOfLine=*/true);
    os << "};\n} // namespace\n\n";
    emitKernelHead(os, name, block);
    emitMergedFunctor(os, name + "_checks_fn", counts, buffers, written);
    os << "  mpc::reduce_rows(" << run.size() << ", ";
    for (auto [i, type] : llvm::enumerate(types))
      os << (i ? " + " : "") << type << "::kRows";
    os << ", fn);\n}\n";
    result.kernels.push_back({name, std::vector<Value>(buffers.begin(), buffers.end()),
                              rowGrid(run.size()), block});
    return success();
  }

  /// Independent parameter updates as one multi-tensor kernel: each keeps
  /// its functor; the launch's index space is theirs end to end, and each
  /// index runs the functor whose segment holds it. The buffer table is the
  /// members' tables in order.
  LogicalResult emitUpdates(llvm::raw_ostream &os, llvm::ArrayRef<mpk::PointwiseOp> run) {
    mpk::PointwiseOp first = run.front();
    if (run.size() == 1) {
      std::string text;
      llvm::raw_string_ostream kos(text);
      valueCount = 0;
      if (failed(emitPointwise(kos, first)))
        return failure();
      appendSharingFunctor(os, text, first.getSymName());
      return success();
    }
    llvm::SmallVector<Value> buffers;
    llvm::SmallVector<bool> written;
    llvm::SmallVector<int64_t> sizes;
    llvm::SmallVector<size_t> counts;
    // Each member's functor, shared with an earlier identical one (the same
    // update of a repeated layer's parameters).
    llvm::SmallVector<std::string> types;
    for (mpk::PointwiseOp k : run) {
      std::string text;
      llvm::raw_string_ostream kos(text);
      valueCount = 0;
      if (failed(emitPointwise(kos, k, /*functorOnly=*/true)))
        return failure();
      types.push_back(memberFunctorType(os, text, k.getSymName()));
      buffers.append(k.getInputs().begin(), k.getInputs().end());
      buffers.append(k.getOutputs().begin(), k.getOutputs().end());
      written.append(k.getInputs().size(), false);
      written.append(k.getOutputs().size(), true);
      counts.push_back(k.getInputs().size() + k.getOutputs().size());
      sizes.push_back(product(k.getIteration()));
      if (k != first)
        result.mergedInto[k.getSymName().str()] = first.getSymName().str();
    }
    std::string name = first.getSymName().str();
    // By element (the GPU, and the host's element form): each index builds
    // only its own member from the table, so no thread loads and no
    // compiler carries the others' pointers (an initializer of a deep
    // model's thousands of them took NVRTC minutes).
    os << "\nnamespace {\nstruct " << name << "_updates_fn {\n"
       << "  void *const *table;\n"
       << "  MPC_HD void operator()(int64_t i) const {\n";
    int64_t total = 0;
    size_t table = 0;
    for (auto [i, n] : llvm::enumerate(sizes)) {
      os << "    if (i < " << total + n << ") {\n      const " << types[i] << " f";
      emitMemberInitializer(os, "table", table, counts[i], buffers, written);
      os << ";\n      f(i - " << total << ");\n      return;\n    }\n";
      total += n;
      table += counts[i];
    }
    os << "  }\n};\n";
    // By rows (the host): every member, filled from the table at once, and
    // each member's rows in turn.
    os << "#ifndef __CUDACC__\nstruct " << name << "_update_rows_fn {\n";
    for (auto [i, type] : llvm::enumerate(types))
      os << "  " << type << " f" << i << ";\n";
    emitMemberHostRows(os, run.size(), /*outOfLine=*/false);
    os << "};\n#endif\n} // namespace\n\nMPC_KERNEL(" << name << ") {\n"
       << "#if defined(__CUDACC__) || defined(MPC_HOST_ELEMENT_FORM)\n"
       << "  const " << name << "_updates_fn fn{mpc_buffers};\n#else\n";
    emitHostFunctorFill(os, name + "_update_rows_fn", table);
    os << "#endif\n  mpc::pointwise_rows(";
    for (auto [i, type] : llvm::enumerate(types))
      os << (i ? " + " : "") << type << "::kRows";
    os << ", " << total << ", fn);\n}\n";
    result.kernels.push_back({name, std::vector<Value>(buffers.begin(), buffers.end()),
                              pointwiseGrid(total), 256});
    return success();
  }

  /// A reduction: one row per output element. An fp32 accumulator uses the
  /// row skeleton (a block per row, tree reductions on the GPU); f64 and
  /// integer accumulators, which the skeleton does not provide, run a serial
  /// loop per output element on the pointwise skeleton, exact in their type.
  /// Prints `row(r)`, the host's form of f32 reduction `k` (rows.cuh's
  /// reduce_rows), and returns its number of rows:
  ///   - when the reduced dimensions end in a run that is contiguous in every
  ///     input (a row's sum over trailing axes, batch-norm statistics over
  ///     [N, ., H, W], a whole tensor), a row is one output: blocks of
  ///     kReduceBlock elements of the run are summed in kReduceLanes lanes
  ///     (8 for runs shorter than 64 and rows under kReduceBlock), which
  ///     vectorises into independent chains of additions; the lanes are
  ///     added into the row's totals every kReduceBlock elements or more,
  ///     and those pairwise at the end;
  ///   - when kept dimensions end the iteration space in such a run (a bias
  ///     gradient, a column sum), a row is a tile of up to 256 outputs
  ///     accumulated together as the reduced index advances, in order;
  ///   - otherwise the generic form (one output per row, pairwise sums).
  FailureOr<int64_t> emitReduceHostForm(llvm::raw_ostream &os, mpk::ReduceOp k,
                                        llvm::ArrayRef<Value> buffers,
                                        llvm::ArrayRef<std::string> members,
                                        llvm::ArrayRef<AffineMap> maps) {
    llvm::ArrayRef<int64_t> iteration = k.getIteration();
    llvm::ArrayRef<int64_t> reduced = k.getReductionDims();
    size_t numIn = k.getInputs().size(), numEpi = k.getEpilogueInputs().size();
    size_t numOut = k.getOutputs().size();
    Block &pro = k.getPrologue().front();
    Block &epi = k.getEpilogue().front();
    bool isSum = k.getKind() == mpk::ReduceKind::Sum;
    unsigned rank = iteration.size();
    auto isReduced = [&](unsigned d) { return llvm::is_contained(reduced, static_cast<int64_t>(d)); };
    llvm::SmallVector<int64_t> outShape;
    llvm::SmallVector<std::string> fullNames(rank);
    for (unsigned d = 0; d < rank; ++d) {
      fullNames[d] = (isReduced(d) ? "r" : "o") + std::to_string(d);
      if (!isReduced(d))
        outShape.push_back(iteration[d]);
    }
    unsigned outRank = outShape.size();
    auto outNames = dimNames("q", outRank);
    llvm::SmallVector<AffineMap> inMaps(maps.take_front(numIn)), outMaps(maps.drop_front(numIn));
    llvm::SmallVector<llvm::ArrayRef<int64_t>> inShapes, outShapes;
    for (size_t b = 0; b < buffers.size(); ++b)
      (b < numIn ? inShapes : outShapes).push_back(shapeOf(buffers[b]));
    std::optional<mpc::HostRowLayout> in = mpc::hostRowLayout(iteration, inMaps, inShapes);
    int lastKept = -1, lastReduced = -1;
    for (unsigned d = 0; d < rank; ++d)
      (isReduced(d) ? lastReduced : lastKept) = static_cast<int>(d);
    std::string identity = isSum ? "0.0f" : "-mpc::inf_f()";
    auto combine = [&](llvm::StringRef a, llvm::StringRef b) {
      return isSum ? ("(" + a + " + " + b + ")").str() : ("mpc::max_f(" + a + ", " + b + ")").str();
    };
    // In both forms below, fp16 inputs that advance along the run are
    // widened a block at a time into float arrays before the loop
    // (widen_chunk: eight at a time with F16C), and booleans into 32-bit
    // integers, as in pointwise rows; the loop then reads 32-bit lanes
    // only, and vectorises without the bit-level conversion. (Read as bytes
    // in the loop, a mask made GCC vectorise a batch-norm gradient's sums
    // two floats at a time: 4x as long as the same sums over a stored f32
    // tensor.)
    auto isBool = [&](unsigned j) { return elementOf(buffers[j]).isInteger(1); };
    auto staged = [&](unsigned j, llvm::ArrayRef<bool> advances) {
      return advances[j] && (elementOf(buffers[j]).isF16() || isBool(j));
    };
    auto emitStaging = [&](llvm::StringRef indent, llvm::ArrayRef<std::string> starts,
                           llvm::ArrayRef<bool> advances, llvm::StringRef from, int64_t size) {
      for (unsigned j = 0; j < numIn; ++j)
        if (staged(j, advances))
          os << indent << (isBool(j) ? "int32_t" : "float") << " s" << j << "_[" << size << "];\n"
             << indent << "mpc::widen_chunk(" << members[j] << " + (" << starts[j] << " + " << from
             << "), s" << j << "_, n_);\n";
    };
    // The prologue at element `at` of the run (advancing inputs read there;
    // staged ones at `stagedAt` of their arrays).
    auto emitValue = [&](llvm::StringRef indent, llvm::ArrayRef<std::string> starts,
                         llvm::ArrayRef<bool> advances, llvm::StringRef at,
                         llvm::StringRef stagedAt,
                         llvm::DenseMap<Value, std::string> &names) -> FailureOr<std::string> {
      for (auto [j, arg] : llvm::enumerate(pro.getArguments())) {
        names[arg] = "a" + std::to_string(j);
        if (!advances[j])
          continue;
        os << indent << "const " << scalarType(arg.getType()) << " " << names[arg] << " = ";
        if (staged(j, advances))
          os << "s" << j << "_[" << stagedAt << "]" << (isBool(j) ? " != 0" : "") << ";\n";
        else
          os << loadExpr(buffers[j], members[j], starts[j] + " + " + at.str(), kLoopConversions)
             << ";\n";
      }
      if (failed(emitScalarBody(os, indent, pro, names, kLoopConversions)))
        return failure();
      return names.lookup(llvm::cast<mpk::YieldOp>(pro.getTerminator()).getValues()[0]);
    };
    // Run starts and the loads of inputs that do not advance along it.
    auto emitStarts = [&](llvm::StringRef indent, unsigned first,
                          llvm::ArrayRef<bool> advances, llvm::DenseMap<Value, std::string> &names) {
      llvm::SmallVector<std::string> starts;
      for (size_t j = 0; j < numIn; ++j) {
        starts.push_back("at" + std::to_string(j) + "_");
        os << indent << "const int64_t " << starts.back() << " = "
           << linearIndex(maps[j], inShapes[j], fullNames, first) << ";\n";
        BlockArgument arg = pro.getArgument(j);
        names[arg] = "a" + std::to_string(j);
        if (!advances[j])
          os << indent << "const " << scalarType(arg.getType()) << " " << names[arg] << " = "
             << loadExpr(buffers[j], members[j], starts.back()) << ";\n";
      }
      return starts;
    };
    llvm::SmallVector<int64_t> outerShape;
    llvm::SmallVector<std::string> outerNames;

    os << "#ifndef __CUDACC__\n  void row(int64_t r) const {\n";
    unsigned firstReduced = in ? std::max<int>(in->firstRunDim, lastKept + 1) : rank;
    unsigned firstKept = in ? std::max<int>(in->firstRunDim, lastReduced + 1) : rank;
    std::optional<mpc::HostRowLayout> out;
    if (in && firstKept < rank)
      out = mpc::hostRowLayout(outShape, outMaps, outShapes);
    if (in && firstReduced < rank) {
      // One output per row; the run is the trailing reduced dimensions.
      int64_t length = product(iteration.drop_front(firstReduced));
      llvm::SmallVector<std::string> keptNames;
      for (unsigned d = 0; d < rank; ++d) {
        if (!isReduced(d))
          keptNames.push_back(fullNames[d]);
        else if (d < firstReduced) {
          outerShape.push_back(iteration[d]);
          outerNames.push_back(fullNames[d]);
        }
      }
      emitDecompose(os, "    ", "r", outShape, keptNames);
      // A block of up to kReduceBlock elements of the run is summed in
      // kReduceLanes lanes (with a vector register for each 8 of them, that
      // many independent chains of additions; one chain waits on its own
      // latency, about 3 cycles per vector of elements), then 8 lanes, then
      // lane 0; once kReduceBlock elements of the row have been added
      // (since_), the lanes are added into the row's (total_) lane by lane,
      // and those pairwise at the row's end. A lane thus sums at most about
      // 2 * kReduceBlock / kReduceLanes elements before they join the
      // row's. Rows of fewer than kReduceBlock elements (a layer norm's 64)
      // and runs shorter than 2 * kReduceLanes use 8 lanes only: setting up
      // and adding 32 would cost more than they save there.
      int64_t rowElements = product(outerShape) * length;
      int laneCount = length >= 2 * kReduceLanes && rowElements >= kReduceBlock ? kReduceLanes : 8;
      // A row of at most kReduceBlock elements needs no totals.
      bool totals = rowElements > kReduceBlock;
      std::string lanes = std::to_string(laneCount);
      os << "    float lane_[" << lanes << "]" << (totals ? ", total_[" + lanes + "]" : "") << ";\n"
         << "    for (int l_ = 0; l_ < " << lanes << "; ++l_)\n"
         << "      lane_[l_] = " << (totals ? "total_[l_] = " : "") << identity << ";\n"
         << (totals ? "    int64_t since_ = 0;\n" : "") << "    for (int64_t c = 0; c < "
         << product(outerShape) << "; ++c) {\n";
      emitDecompose(os, "      ", "c", outerShape, outerNames);
      llvm::DenseMap<Value, std::string> names;
      auto starts = emitStarts("      ", firstReduced, in->advances, names);
      std::string block = std::to_string(kReduceBlock);
      os << "      for (int64_t b_ = 0; b_ < " << length << "; b_ += " << block << ") {\n"
         << "        const int64_t n_ = " << length << " - b_ < " << block << " ? " << length
         << " - b_ : " << block << ";\n";
      emitStaging("        ", starts, in->advances, "b_", kReduceBlock);
      os << "        int64_t j_ = 0;\n";
      auto emitLanes = [&](int width) -> LogicalResult {
        std::string w = std::to_string(width);
        os << "        for (; j_ + " << w << " <= n_; j_ += " << w << ") {\n"
           << "          for (int l_ = 0; l_ < " << w << "; ++l_) {\n";
        FailureOr<std::string> v =
            emitValue("            ", starts, in->advances, "b_ + j_ + l_", "j_ + l_", names);
        if (failed(v))
          return failure();
        os << "            lane_[l_] = " << combine("lane_[l_]", *v)
           << ";\n          }\n        }\n";
        return success();
      };
      if (failed(emitLanes(laneCount)) || (laneCount > 8 && failed(emitLanes(8))))
        return failure();
      os << "        for (; j_ < n_; ++j_) {\n";
      FailureOr<std::string> v =
          emitValue("          ", starts, in->advances, "b_ + j_", "j_", names);
      if (failed(v))
        return failure();
      std::string summed = totals ? "total_" : "lane_";
      std::function<std::string(int, int)> tree = [&](int first, int count) -> std::string {
        if (count == 1)
          return summed + "[" + std::to_string(first) + "]";
        return combine(tree(first, count / 2), tree(first + count / 2, count / 2));
      };
      auto emitFlush = [&](llvm::StringRef indent) {
        os << indent << "for (int l_ = 0; l_ < " << lanes << "; ++l_) {\n"
           << indent << "  total_[l_] = " << combine("total_[l_]", "lane_[l_]") << ";\n"
           << indent << "  lane_[l_] = " << identity << ";\n"
           << indent << "}\n";
      };
      os << "          lane_[0] = " << combine("lane_[0]", *v) << ";\n        }\n";
      if (totals) {
        os << "        since_ += n_;\n"
           << "        if (since_ >= " << block << ") {\n";
        emitFlush("          ");
        os << "          since_ = 0;\n        }\n";
      }
      os << "      }\n    }\n";
      if (totals)
        emitFlush("    ");
      os << "    const float acc = " << tree(0, laneCount) << ";\n";
      // The epilogue, once.
      for (unsigned j = 0; j < outRank; ++j)
        os << "    const int64_t " << outNames[j] << " = " << keptNames[j] << ";\n";
      names[epi.getArgument(0)] = "acc";
      for (size_t j = 0; j < numEpi; ++j) {
        BlockArgument arg = epi.getArgument(j + 1);
        names[arg] = "e" + std::to_string(j);
        os << "    const " << scalarType(arg.getType()) << " " << names[arg] << " = "
           << loadExpr(buffers[numIn + j], members[numIn + j],
                       linearIndex(maps[numIn + j], outShapes[j], outNames))
           << ";\n";
      }
      if (failed(emitScalarBody(os, "    ", epi, names)))
        return failure();
      for (auto [j, value] : llvm::enumerate(llvm::cast<mpk::YieldOp>(epi.getTerminator()).getValues())) {
        size_t b = numIn + numEpi + j;
        os << "    " << members[b] << "[" << linearIndex(maps[b], outShapes[numEpi + j], outNames)
           << "] = " << storeExpr(buffers[b], names.lookup(value)) << ";\n";
      }
      os << "  }\n#endif\n";
      return product(outShape);
    }
    unsigned runDims = rank - firstKept;
    if (in && firstKept < rank && out && out->firstRunDim <= outRank - runDims &&
        product(iteration) > 0 &&
        llvm::all_of(llvm::drop_begin(out->advances, numEpi), [](bool a) { return a; })) {
      // Tiles of up to 256 outputs along the trailing kept run, summed
      // together as the reduced index advances.
      int64_t length = product(iteration.drop_front(firstKept));
      int64_t tile = std::min<int64_t>(length, 256);
      int64_t tiles = (length + tile - 1) / tile;
      llvm::SmallVector<int64_t> reducedShape;
      llvm::SmallVector<std::string> reducedNames, keptOuter;
      for (unsigned d = 0; d < rank; ++d) {
        if (isReduced(d)) {
          reducedShape.push_back(iteration[d]);
          reducedNames.push_back(fullNames[d]);
        } else if (d < firstKept) {
          outerShape.push_back(iteration[d]);
          keptOuter.push_back(fullNames[d]);
        }
      }
      if (tiles > 1)
        os << "    const int64_t t_ = r % " << tiles << ";\n";
      if (tiles > 1 && !outerShape.empty())
        os << "    r /= " << tiles << ";\n";
      emitDecompose(os, "    ", "r", outerShape, keptOuter);
      for (unsigned d = firstKept; d < rank; ++d)
        os << "    const int64_t " << fullNames[d] << " = 0;\n";
      os << "    const int64_t begin_ = " << (tiles > 1 ? "t_ * " + std::to_string(tile) : "0")
         << ";\n"
         << "    const int64_t n_ = " << length << " - begin_ < " << tile << " ? " << length
         << " - begin_ : " << tile << ";\n"
         << "    float acc_[" << tile << "];\n"
         << "    for (int64_t j_ = 0; j_ < n_; ++j_)\n      acc_[j_] = " << identity << ";\n"
         << "    for (int64_t c = 0; c < " << product(reducedShape) << "; ++c) {\n";
      emitDecompose(os, "      ", "c", reducedShape, reducedNames);
      llvm::DenseMap<Value, std::string> names;
      auto starts = emitStarts("      ", firstKept, in->advances, names);
      emitStaging("      ", starts, in->advances, "begin_", tile);
      os << "      MPC_INDEPENDENT_ITERATIONS\n"
         << "      for (int64_t j_ = 0; j_ < n_; ++j_) {\n";
      FailureOr<std::string> v =
          emitValue("        ", starts, in->advances, "begin_ + j_", "j_", names);
      if (failed(v))
        return failure();
      os << "        acc_[j_] = " << combine("acc_[j_]", *v) << ";\n      }\n    }\n";
      // The epilogue per output of the tile.
      llvm::SmallVector<std::string> outSpace;
      for (unsigned d = 0; d < rank; ++d)
        if (!isReduced(d))
          outSpace.push_back(fullNames[d]);
      unsigned outFirst = outRank - runDims;
      llvm::SmallVector<std::string> outStarts;
      for (size_t j = 0; j < numEpi + numOut; ++j) {
        outStarts.push_back("out" + std::to_string(j) + "_");
        os << "    const int64_t " << outStarts.back() << " = "
           << linearIndex(outMaps[j], outShapes[j], outSpace, outFirst) << ";\n";
      }
      os << "    MPC_INDEPENDENT_ITERATIONS\n"
         << "    for (int64_t j_ = 0; j_ < n_; ++j_) {\n"
         << "      const float acc = acc_[j_];\n";
      names[epi.getArgument(0)] = "acc";
      for (size_t j = 0; j < numEpi; ++j) {
        BlockArgument arg = epi.getArgument(j + 1);
        names[arg] = "e" + std::to_string(j);
        std::string at = outStarts[j] + (out->advances[j] ? " + begin_ + j_" : "");
        os << "      const " << scalarType(arg.getType()) << " " << names[arg] << " = "
           << loadExpr(buffers[numIn + j], members[numIn + j], at, kLoopConversions) << ";\n";
      }
      if (failed(emitScalarBody(os, "      ", epi, names, kLoopConversions)))
        return failure();
      for (auto [j, value] : llvm::enumerate(llvm::cast<mpk::YieldOp>(epi.getTerminator()).getValues())) {
        size_t b = numIn + numEpi + j;
        os << "      "
           << loopStoreStatement(buffers[b], members[b], outStarts[numEpi + j] + " + begin_ + j_",
                                 names.lookup(unroundedStore(value, buffers[b])))
           << "\n";
      }
      os << "    }\n  }\n#endif\n";
      return product(outerShape) * tiles;
    }
    // The generic form.
    os << "    const mpc::RowContext row(r);\n    (*this)(row);\n  }\n#endif\n";
    return product(outShape);
  }

  LogicalResult emitReduce(llvm::raw_ostream &os, mpk::ReduceOp k, bool functorOnly = false) {
    llvm::SmallVector<Value> buffers(k.getInputs());
    buffers.append(k.getEpilogueInputs().begin(), k.getEpilogueInputs().end());
    buffers.append(k.getOutputs().begin(), k.getOutputs().end());
    size_t numIn = k.getInputs().size(), numEpi = k.getEpilogueInputs().size();
    llvm::SmallVector<bool> written(numIn + numEpi, false);
    written.append(k.getOutputs().size(), true);
    Block &pro = k.getPrologue().front();
    Block &epi = k.getEpilogue().front();
    Type accType = epi.getArgument(0).getType();
    bool viaRows = accType.isF32();
    bool isSum = k.getKind() == mpk::ReduceKind::Sum;

    auto members = beginFunctor(os, k.getSymName(), buffers, written);
    llvm::ArrayRef<int64_t> iteration = k.getIteration();
    llvm::ArrayRef<int64_t> reduced = k.getReductionDims();
    llvm::SmallVector<int64_t> outShape, redShape;
    llvm::SmallVector<std::string> fullNames(iteration.size());
    llvm::SmallVector<std::string> outNames, redNames;
    for (auto [d, size] : llvm::enumerate(iteration)) {
      bool isReduced = llvm::is_contained(reduced, static_cast<int64_t>(d));
      std::string name = (isReduced ? "r" : "o") + std::to_string(d);
      fullNames[d] = name;
      (isReduced ? redShape : outShape).push_back(size);
      (isReduced ? redNames : outNames).push_back(name);
    }
    auto maps = llvm::to_vector(k.getIndexing().getAsValueRange<AffineMapAttr>());
    auto outDims = dimNames("q", outShape.size());
    llvm::DenseMap<Value, std::string> names;
    std::string acc = scalarType(accType);

    // Loads the prologue's inputs at reduced position c and computes the
    // value to accumulate; returns its name.
    auto emitPrologue = [&](llvm::StringRef indent) -> FailureOr<std::string> {
      emitDecompose(os, indent, "c", redShape, redNames);
      for (auto [j, arg] : llvm::enumerate(pro.getArguments())) {
        std::string name = "a" + std::to_string(j);
        os << indent << "const " << scalarType(arg.getType()) << " " << name << " = "
           << loadExpr(buffers[j], members[j],
                       linearIndex(maps[j], shapeOf(buffers[j]), fullNames))
           << ";\n";
        names[arg] = name;
      }
      if (failed(emitScalarBody(os, indent, pro, names)))
        return failure();
      return names.lookup(llvm::cast<mpk::YieldOp>(pro.getTerminator()).getValues()[0]);
    };
    // Computes and stores the outputs from the accumulator `acc`.
    auto emitEpilogue = [&](llvm::StringRef indent) -> LogicalResult {
      for (auto [j, name] : llvm::enumerate(outNames))
        os << indent << "const int64_t " << outDims[j] << " = " << name << ";\n";
      names[epi.getArgument(0)] = "acc";
      for (size_t j = 0; j < numEpi; ++j) {
        BlockArgument arg = epi.getArgument(j + 1);
        std::string name = "e" + std::to_string(j);
        size_t b = numIn + j;
        os << indent << "const " << scalarType(arg.getType()) << " " << name << " = "
           << loadExpr(buffers[b], members[b], linearIndex(maps[b], shapeOf(buffers[b]), outDims))
           << ";\n";
        names[arg] = name;
      }
      if (failed(emitScalarBody(os, indent, epi, names)))
        return failure();
      auto epiYield = llvm::cast<mpk::YieldOp>(epi.getTerminator());
      for (auto [j, value] : llvm::enumerate(epiYield.getValues())) {
        size_t b = numIn + numEpi + j;
        os << indent << members[b] << "[" << linearIndex(maps[b], shapeOf(buffers[b]), outDims)
           << "] = " << storeExpr(buffers[b], names.lookup(value)) << ";\n";
      }
      return success();
    };

    int64_t rows = product(outShape), count = product(redShape);
    if (viaRows) {
      os << "  template <class Row> MPC_HD void operator()(const Row &row) const {\n";
      emitDecompose(os, "    ", "row.index()", outShape, outNames);
      os << "    const float acc = row." << (isSum ? "reduce_sum" : "reduce_max") << "(" << count
         << ", [&](int64_t c) {\n";
      FailureOr<std::string> value = emitPrologue("      ");
      if (failed(value))
        return failure();
      os << "      return " << *value << ";\n    });\n";
      os << "    row.for_each(1, [&](int64_t) {\n";
      if (failed(emitEpilogue("      ")))
        return failure();
      os << "    });\n  }\n";
      FailureOr<int64_t> hostRows = emitReduceHostForm(os, k, buffers, members, maps);
      if (failed(hostRows))
        return failure();
      if (functorOnly) {
        os << "  static constexpr int64_t kRows = " << *hostRows << ";\n};\n} // namespace\n";
        return success();
      }
      endFunctor(os, k.getSymName(), buffers, written,
                 "mpc::reduce_rows(" + std::to_string(rows) + ", " + std::to_string(*hostRows) +
                     ", fn)",
                 rowGrid(rows), rowBlock(count, rows));
      return success();
    }
    assert(!functorOnly && "only fp32 reductions (the row skeleton) share a launch");
    std::string identity =
        isSum ? "static_cast<" + acc + ">(0)"
              : (accType.isF64() ? std::string("static_cast<double>(-mpc::inf_f())")
                                 : "static_cast<" + acc + ">(0 - (1ULL << " +
                                       std::to_string(accType.getIntOrFloatBitWidth() - 1) +
                                       "))");
    os << "  MPC_HD void operator()(int64_t i) const {\n";
    emitDecompose(os, "    ", "i", outShape, outNames);
    os << "    " << acc << " acc = " << identity << ";\n"
       << "    for (int64_t c = 0; c < " << count << "; ++c) {\n";
    FailureOr<std::string> value = emitPrologue("      ");
    if (failed(value))
      return failure();
    if (isSum)
      os << "      acc = acc + " << *value << ";\n";
    else if (accType.isF64())
      os << "      acc = mpc::max_f(acc, " << *value << ");\n";
    else
      os << "      acc = " << *value << " > acc ? " << *value << " : acc;\n";
    os << "    }\n";
    if (failed(emitEpilogue("    ")))
      return failure();
    os << "  }\n";
    endFunctor(os, k.getSymName(), buffers, written,
               "mpc::pointwise(" + std::to_string(rows) + ", fn)", pointwiseGrid(rows), 256);
    return success();
  }

  LogicalResult emitSoftmax(llvm::raw_ostream &os, mpk::SoftmaxOp k) {
    Value in = k.getInput(), out = k.getOutput();
    if (elementOf(in).isF64())
      return k.emitError("f64 softmax is not supported by the kernel generator yet");
    auto members = beginFunctor(os, k.getSymName(), {in, out}, {false, true});
    int64_t outer = k.getOuter(), cols = k.getCols(), inner = k.getInner();
    std::string at = "base + c * " + std::to_string(inner);
    os << "  template <class Row> MPC_HD void operator()(const Row &row) const {\n"
       << "    const int64_t base = (row.index() / " << inner << ") * " << cols * inner
       << " + row.index() % " << inner << ";\n"
       << "    const float m = row.reduce_max(" << cols << ", [&](int64_t c) { return "
       << loadExpr(in, members[0], at) << "; });\n"
       << "    const float s = row.reduce_sum(" << cols
       << ", [&](int64_t c) { return mpc::exp_f(" << loadExpr(in, members[0], at)
       << " - m); });\n"
       << "    row.for_each(" << cols << ", [&](int64_t c) {\n"
       << "      const float v = " << loadExpr(in, members[0], at) << " - m;\n"
       << "      " << members[1] << "[" << at << "] = "
       << storeExpr(out, k.getLog() ? "v - mpc::log_f(s)" : "mpc::exp_f(v) / s") << ";\n"
       << "    });\n  }\n";
    int64_t rows = outer * inner;
    endFunctor(os, k.getSymName(), {in, out}, {false, true},
               "mpc::rows(" + std::to_string(rows) + ", fn)", rowGrid(rows), rowBlock(cols, rows));
    return success();
  }

  LogicalResult emitLayerNorm(llvm::raw_ostream &os, mpk::LayerNormOp k) {
    llvm::SmallVector<Value> buffers{k.getInput(), k.getGamma(), k.getBeta(), k.getOutput()};
    for (Value b : buffers)
      if (elementOf(b).isF64())
        return k.emitError("f64 layer_norm is not supported by the kernel generator yet");
    llvm::SmallVector<bool> written{false, false, false, true};
    auto m = beginFunctor(os, k.getSymName(), buffers, written);
    int64_t cols = k.getCols();
    std::string x = loadExpr(buffers[0], m[0], "base + c");
    os << "  template <class Row> MPC_HD void operator()(const Row &row) const {\n"
       << "    const int64_t base = row.index() * " << cols << ";\n"
       << "    const float mean = row.reduce_sum(" << cols << ", [&](int64_t c) { return " << x
       << "; }) * " << floatLiteral(1.0 / cols, false) << ";\n"
       << "    const float var = row.reduce_sum(" << cols
       << ", [&](int64_t c) { const float d = " << x << " - mean; return d * d; }) * "
       << floatLiteral(1.0 / cols, false) << ";\n"
       << "    const float inv = mpc::rsqrt_f(var + "
       << floatLiteral(k.getEps().convertToDouble(), false) << ");\n"
       << "    row.for_each(" << cols << ", [&](int64_t c) {\n"
       << "      const float v = (" << x << " - mean) * inv * "
       << loadExpr(buffers[1], m[1], "c") << " + " << loadExpr(buffers[2], m[2], "c") << ";\n"
       << "      " << m[3] << "[base + c] = " << storeExpr(buffers[3], "v") << ";\n"
       << "    });\n  }\n";
    endFunctor(os, k.getSymName(), buffers, written,
               "mpc::rows(" + std::to_string(k.getRows()) + ", fn)", rowGrid(k.getRows()),
               rowBlock(cols, k.getRows()));
    return success();
  }

  LogicalResult emitCrossEntropy(llvm::raw_ostream &os, mpk::CrossEntropyOp k) {
    llvm::SmallVector<Value> buffers{k.getLogits(), k.getLabels(), k.getLosses()};
    if (elementOf(buffers[0]).isF64())
      return k.emitError("f64 cross-entropy is not supported by the kernel generator yet");
    llvm::SmallVector<bool> written{false, false, true};
    auto m = beginFunctor(os, k.getSymName(), buffers, written);
    int64_t cols = k.getCols();
    std::string x = loadExpr(buffers[0], m[0], "base + c");
    os << "  template <class Row> MPC_HD void operator()(const Row &row) const {\n"
       << "    const int64_t base = row.index() * " << cols << ";\n"
       << "    const float mx = row.reduce_max(" << cols << ", [&](int64_t c) { return " << x
       << "; });\n"
       << "    const float s = row.reduce_sum(" << cols
       << ", [&](int64_t c) { return mpc::exp_f(" << x << " - mx); });\n"
       << "    row.for_each(1, [&](int64_t) {\n"
       << "      const int64_t label = static_cast<int64_t>(" << m[1] << "[row.index()]);\n"
       << "      const float picked = (label >= 0 && label < " << cols << ") ? "
       << loadExpr(buffers[0], m[0], "base + label") << " : mpc::nan_f();\n"
       << "      " << m[2] << "[row.index()] = "
       << storeExpr(buffers[2], "mpc::log_f(s) + mx - picked") << ";\n"
       << "    });\n  }\n";
    endFunctor(os, k.getSymName(), buffers, written,
               "mpc::rows(" + std::to_string(k.getRows()) + ", fn)", rowGrid(k.getRows()),
               rowBlock(cols, k.getRows()));
    return success();
  }

  LogicalResult emitCrossEntropyGrad(llvm::raw_ostream &os, mpk::CrossEntropyGradOp k) {
    llvm::SmallVector<Value> buffers{k.getLogits(), k.getLabels(), k.getGradLoss(),
                                     k.getGradLogits()};
    if (elementOf(buffers[0]).isF64())
      return k.emitError("f64 cross-entropy is not supported by the kernel generator yet");
    llvm::SmallVector<bool> written{false, false, false, true};
    auto m = beginFunctor(os, k.getSymName(), buffers, written);
    int64_t rows = k.getRows(), cols = k.getCols();
    std::string x = loadExpr(buffers[0], m[0], "base + c");
    os << "  template <class Row> MPC_HD void operator()(const Row &row) const {\n"
       << "    const int64_t base = row.index() * " << cols << ";\n"
       << "    const float mx = row.reduce_max(" << cols << ", [&](int64_t c) { return " << x
       << "; });\n"
       << "    const float s = row.reduce_sum(" << cols
       << ", [&](int64_t c) { return mpc::exp_f(" << x << " - mx); });\n"
       << "    const int64_t label = static_cast<int64_t>(" << m[1] << "[row.index()]);\n"
       << "    const float scale = " << loadExpr(buffers[2], m[2], "0") << " * "
       << floatLiteral(1.0 / rows, false) << ";\n"
       << "    row.for_each(" << cols << ", [&](int64_t c) {\n"
       << "      const float p = mpc::exp_f(" << x << " - mx) / s - (c == label ? 1.0f : 0.0f);\n"
       << "      " << m[3] << "[base + c] = " << storeExpr(buffers[3], "p * scale") << ";\n"
       << "    });\n  }\n";
    endFunctor(os, k.getSymName(), buffers, written, "mpc::rows(" + std::to_string(rows) + ", fn)",
               rowGrid(rows), rowBlock(cols, rows));
    return success();
  }

  LogicalResult emitPool(llvm::raw_ostream &os, mpk::Pool2DOp k) {
    Value in = k.getInput(), out = k.getOutput();
    auto m = beginFunctor(os, k.getSymName(), {in, out}, {false, true});
    auto inShape = shapeOf(in), outShape = shapeOf(out);
    int64_t h = inShape[2], w = inShape[3];
    auto kernel = k.getKernel(), stride = k.getStride(), pad = k.getPadding();
    bool isMax = k.getKind() == mpk::PoolKind::Max;
    os << "  MPC_HD void operator()(int64_t i) const {\n";
    emitDecompose(os, "    ", "i", outShape, {"n", "ch", "oh", "ow"});
    os << "    const int64_t h0 = oh * " << stride[0] << " - " << pad[0] << ";\n"
       << "    const int64_t w0 = ow * " << stride[1] << " - " << pad[1] << ";\n"
       << "    float acc = " << (isMax ? "-mpc::inf_f()" : "0.0f") << ";\n"
       << "    int64_t count = 0;\n"
       << "    for (int64_t kh = 0; kh < " << kernel[0] << "; ++kh)\n"
       << "      for (int64_t kw = 0; kw < " << kernel[1] << "; ++kw) {\n"
       << "        const int64_t ih = h0 + kh, iw = w0 + kw;\n"
       << "        if (ih < 0 || ih >= " << h << " || iw < 0 || iw >= " << w << ")\n"
       << "          continue;\n"
       << "        const float v = "
       << loadExpr(in, m[0], "((n * " + std::to_string(inShape[1]) + " + ch) * " +
                                 std::to_string(h) + " + ih) * " + std::to_string(w) + " + iw")
       << ";\n"
       << "        acc = " << (isMax ? "mpc::max_f(acc, v)" : "acc + v") << ";\n"
       << "        ++count;\n"
       << "      }\n";
    if (!isMax) {
      if (k.getCountIncludePad())
        emitCountWithPadding(os, "    ", kernel, pad, h, w);
      os << "    acc = acc / static_cast<float>(count);\n";
    }
    os << "    " << m[1] << "[i] = " << storeExpr(out, "acc") << ";\n  }\n";
    if (stride == kernel && llvm::all_of(pad, [](int64_t p) { return p == 0; }) &&
        kernel[0] * kernel[1] <= kMaxTiledWindow) {
      emitTiledPool(os, k, m);
      return success();
    }
    // The host's form: row (n, ch, oh) is Wo outputs, accumulated a kernel
    // row and column at a time over runs of valid columns (each output
    // combines its window in the same order as above).
    int64_t wo = outShape[3];
    std::string type = storageType(elementOf(in));
    os << "#ifndef __CUDACC__\n  void row(int64_t r) const {\n";
    emitDecompose(os, "    ", "r", outShape.take_front(3), {"n", "ch", "oh"});
    os << "    const int64_t h0 = oh * " << stride[0] << " - " << pad[0] << ";\n"
       << "    float acc[" << wo << "];\n    int64_t count[" << wo << "];\n"
       << "    for (int64_t ow = 0; ow < " << wo << "; ++ow) {\n"
       << "      acc[ow] = " << (isMax ? "-mpc::inf_f()" : "0.0f") << ";\n"
       << "      count[ow] = 0;\n    }\n"
       << "    for (int64_t kh = 0; kh < " << kernel[0] << "; ++kh) {\n"
       << "      const int64_t ih = h0 + kh;\n"
       << "      if (ih < 0 || ih >= " << h << ")\n        continue;\n"
       << "      const " << type << " *line = " << m[0] << " + ((n * " << inShape[1]
       << " + ch) * " << h << " + ih) * " << w << ";\n";
    // fp16/bf16 input rows are widened once per kernel row.
    bool stage = is16Bit(elementOf(in));
    if (stage)
      os << "      float linev[" << w << "];\n"
         << "      mpc::widen_chunk(line, linev, " << w << ");\n";
    os
       << "      for (int64_t kw = 0; kw < " << kernel[1] << "; ++kw) {\n"
       << "        const int64_t shift = kw - " << pad[1] << ";\n"
       << "        // Outputs ow with 0 <= ow * stride + shift < W.\n"
       << "        const int64_t lo = shift >= 0 ? 0 : (-shift + " << stride[1] - 1 << ") / "
       << stride[1] << ";\n"
       << "        int64_t hi = shift >= " << w << " ? 0 : (" << w - 1 << " - shift) / "
       << stride[1] << " + 1;\n"
       << "        hi = hi < " << wo << " ? hi : " << wo << ";\n"
       << "        for (int64_t ow = lo; ow < hi; ++ow) {\n"
       << "          const float v = "
       << (stage ? "linev[ow * " + std::to_string(stride[1]) + " + shift]"
                 : loadExpr(in, "line", "ow * " + std::to_string(stride[1]) + " + shift"))
       << ";\n"
       << "          acc[ow] = " << (isMax ? "mpc::max_f(acc[ow], v)" : "acc[ow] + v") << ";\n"
       << "          ++count[ow];\n        }\n      }\n    }\n"
       << "    for (int64_t ow = 0; ow < " << wo << "; ++ow) {\n"
       << "      float value = acc[ow];\n";
    if (!isMax) {
      os << "      int64_t divisor = count[ow];\n";
      if (k.getCountIncludePad())
        os << "      const int64_t w0 = ow * " << stride[1] << " - " << pad[1] << ";\n"
           << "      const int64_t hend = h0 + " << kernel[0] << " < " << h + pad[2] << " ? h0 + "
           << kernel[0] << " : " << h + pad[2] << ";\n"
           << "      const int64_t wend = w0 + " << kernel[1] << " < " << w + pad[3] << " ? w0 + "
           << kernel[1] << " : " << w + pad[3] << ";\n"
           << "      divisor = (hend - h0) * (wend - w0);\n";
      os << "      value = value / static_cast<float>(divisor);\n";
    }
    if (is16Bit(elementOf(out)))
      os << "      acc[ow] = value;\n    }\n"
         << "    mpc::narrow_chunk(acc, " << m[1] << " + r * " << wo << ", " << wo << ");\n"
         << "  }\n#endif\n";
    else
      os << "      " << m[1] << "[r * " << wo << " + ow] = " << storeExpr(out, "value") << ";\n"
         << "    }\n  }\n#endif\n";
    int64_t rows = outShape[0] * outShape[1] * outShape[2];
    os << "  static constexpr int64_t kRows = " << rows << ";\n";
    int64_t n = product(outShape);
    endFunctor(os, k.getSymName(), {in, out}, {false, true},
               "mpc::pointwise_rows(" + std::to_string(rows) + ", " + std::to_string(n) + ", fn)",
               pointwiseGrid(n), 256);
    return success();
  }

  /// Emits the host's plane form of pooling when the windows tile the plane
  /// from its corner (stride = kernel, no padding, at most kMaxTiledWindow
  /// elements), and ends the functor: row r is image plane r, and along each
  /// row of windows (openWindowRowLoop) every window combines its elements
  /// in the order of the element form above, unrolled, so the values are
  /// the same bits. Small fp16/bf16 planes are widened into a float array
  /// first and the outputs narrowed from one. `m` names the input and output.
  void emitTiledPool(llvm::raw_ostream &os, mpk::Pool2DOp k, llvm::ArrayRef<std::string> m) {
    Value in = k.getInput(), out = k.getOutput();
    auto inShape = shapeOf(in), outShape = shapeOf(out);
    int64_t h = inShape[2], w = inShape[3], ho = outShape[2], wo = outShape[3];
    int64_t kh = k.getKernel()[0], kw = k.getKernel()[1];
    bool isMax = k.getKind() == mpk::PoolKind::Max;
    bool stageIn = is16Bit(elementOf(in)) && h * w <= kMaxStagedPoolPlane;
    bool stageOut = is16Bit(elementOf(out)) && ho * wo <= kMaxStagedPoolPlane;
    std::string x = stageIn ? "xv" : "(" + m[0] + " + r * " + std::to_string(h * w) + ")";
    std::string y = stageOut ? "yv" : m[1] + " + r * " + std::to_string(ho * wo);
    os << "#ifndef __CUDACC__\n  void row(int64_t r) const {\n";
    if (stageIn)
      os << "    float xv[" << h * w << "];\n"
         << "    mpc::widen_chunk(" << m[0] << " + r * " << h * w << ", xv, " << h * w << ");\n";
    if (stageOut)
      os << "    float yv[" << ho * wo << "];\n";
    else
      os << "    " << storageType(elementOf(out)) << " *plane = " << y << ";\n";
    os << "    for (int64_t oh = 0; oh < " << ho << "; ++oh) {\n";
    std::string pad = openWindowRowLoop(os, wo);
    os << pad << "        float acc = " << (isMax ? "-mpc::inf_f()" : "0.0f") << ";\n";
    for (int64_t a = 0; a < kh; ++a)
      for (int64_t c = 0; c < kw; ++c) {
        std::string at = tiledWindowElement(kh, kw, w, a, c);
        std::string v = stageIn ? x + "[" + at + "]" : loadExpr(in, x, at);
        os << pad << "        acc = " << (isMax ? "mpc::max_f(acc, " + v + ")" : "acc + " + v)
           << ";\n";
      }
    if (!isMax)
      os << pad << "        acc = acc / static_cast<float>(" << kh * kw << ");\n";
    if (stageOut)
      os << pad << "        yv[oh * " << wo << " + ow] = acc;\n";
    else
      os << pad << "        plane[oh * " << wo << " + ow] = " << storeExpr(out, "acc") << ";\n";
    closeWindowRowLoop(os, wo);
    os << "    }\n";
    if (stageOut)
      os << "    mpc::narrow_chunk(yv, " << m[1] << " + r * " << ho * wo << ", " << ho * wo
         << ");\n";
    os << "  }\n#endif\n";
    int64_t planes = outShape[0] * outShape[1];
    os << "  static constexpr int64_t kRows = " << planes << ";\n";
    int64_t n = product(outShape);
    endFunctor(os, k.getSymName(), {in, out}, {false, true},
               "mpc::pointwise_rows(" + std::to_string(planes) + ", " + std::to_string(n) +
                   ", fn)",
               pointwiseGrid(n), 256);
  }

  /// Emits `count = ...`: the elements of the window at (h0, w0) inside the
  /// padded h x w plane (average pooling with count_include_pad).
  static void emitCountWithPadding(llvm::raw_ostream &os, llvm::StringRef indent,
                                   llvm::ArrayRef<int64_t> kernel, llvm::ArrayRef<int64_t> pad,
                                   int64_t h, int64_t w) {
    os << indent << "const int64_t hend = h0 + " << kernel[0] << " < " << h + pad[2]
       << " ? h0 + " << kernel[0] << " : " << h + pad[2] << ";\n"
       << indent << "const int64_t wend = w0 + " << kernel[1] << " < " << w + pad[3]
       << " ? w0 + " << kernel[1] << " : " << w + pad[3] << ";\n"
       << indent << "count = (hend - h0) * (wend - w0);\n";
  }

  /// Emits, in a loop over windows with h0 and w0 (its top left corner) set,
  /// `bh` and `bw`: the position of the window's first maximum in row-major
  /// order, padding excluded (-1 when the window covers only padding);
  /// `input` reads the h x w input plane at (y, z).
  static void emitWindowFirstMax(llvm::raw_ostream &os, mpk::Pool2DGradOp k, int64_t h,
                                 int64_t w, const std::string &input) {
    auto kernel = k.getKernel();
    os << "        int64_t bh = -1, bw = -1;\n"
       << "        float best = -mpc::inf_f();\n"
       << "        for (int64_t a = 0; a < " << kernel[0] << "; ++a)\n"
       << "          for (int64_t c = 0; c < " << kernel[1] << "; ++c) {\n"
       << "            const int64_t y = h0 + a, z = w0 + c;\n"
       << "            if (y < 0 || y >= " << h << " || z < 0 || z >= " << w << ")\n"
       << "              continue;\n"
       << "            const float v = " << input << ";\n"
       << "            if (bh < 0 || v > best || (mpc::is_nan_f(v) && !mpc::is_nan_f(best))) {\n"
       << "              best = v;\n              bh = y;\n              bw = z;\n            }\n"
       << "          }\n";
  }

  /// The largest window (elements) of the tiled pooling forms' unrolled
  /// bodies (emitTiledPool, emitTiledMaxPoolGrad).
  static constexpr int64_t kMaxTiledWindow = 16;
  /// The lanes the host's reductions along a run sum a block in (a power
  /// of two).
  static constexpr int kReduceLanes = 32;
  /// The elements of a run the host's reductions along a run sum in lanes
  /// before adding them into the row's (and widen at a time, for fp16 and
  /// boolean inputs).
  static constexpr int64_t kReduceBlock = 1024;
  /// The windows the tiled pooling forms' vectorised loops take at once: an
  /// AVX2 vector of floats (half of it for rows of fewer windows).
  static constexpr int64_t kTiledPoolBlock = 8;
  /// The most image elements col2im's host form sums at once (16 KiB of
  /// floats on the stack): a whole plane of a small image, else bands of
  /// rows.
  static constexpr int64_t kCol2ImBandElements = 4096;
  /// The most kernel elements im2col's host form writes as straight-line
  /// code of their own (a 7x7 kernel); larger kernels loop over rows of
  /// columns.
  static constexpr int64_t kMaxUnrolledIm2ColTaps = 49;

  /// The largest image plane (elements) the host's pooling forms widen from
  /// fp16/bf16 into a float array on the stack; larger ones are read and
  /// written in place.
  static constexpr int64_t kMaxStagedPoolPlane = 4096;

  /// The offset in an image plane `w` wide of element (a, c) of the window
  /// (oh, ow) of the tiled pooling forms (kh x kw windows at stride kh, kw).
  static std::string tiledWindowElement(int64_t kh, int64_t kw, int64_t w, int64_t a,
                                        int64_t c) {
    return "(oh * " + std::to_string(kh) + " + " + std::to_string(a) + ") * " +
           std::to_string(w) + " + ow * " + std::to_string(kw) + " + " + std::to_string(c);
  }

  /// The windows of a row of `wo` that openWindowRowLoop's loop takes at
  /// once; 0: one loop over the row.
  static int64_t windowRowBlock(int64_t wo) {
    int64_t block = wo >= kTiledPoolBlock       ? kTiledPoolBlock
                    : wo >= kTiledPoolBlock / 2 ? kTiledPoolBlock / 2
                                                : 0;
    return block > 0 && wo % block != 0 ? block : 0;
  }

  /// Opens, inside a loop over rows of windows (indented by 4), the loop
  /// over the `wo` windows of a row with `ow` set, and returns the extra
  /// indentation of its body (which starts at 8); closeWindowRowLoop closes
  /// it. A row runs in blocks of a whole vector's windows when it does not
  /// divide into them, the last block starting `block` windows before the
  /// row's end and so computing again (the same values) some of the block
  /// before it: a loop of a constant `block` iterations vectorises with no
  /// scalar remainder, which for rows of 7 or 14 windows took as long as
  /// the vector part. The body must read nothing it writes.
  static std::string openWindowRowLoop(llvm::raw_ostream &os, int64_t wo) {
    int64_t block = windowRowBlock(wo);
    if (!block) {
      os << "      MPC_INDEPENDENT_ITERATIONS\n"
         << "      for (int64_t ow = 0; ow < " << wo << "; ++ow) {\n";
      return "";
    }
    os << "      for (int64_t b_ = 0; b_ < " << (wo + block - 1) / block << "; ++b_) {\n"
       << "        const int64_t first_ = b_ * " << block << " < " << wo - block << " ? b_ * "
       << block << " : " << wo - block << ";\n"
       << "        MPC_INDEPENDENT_ITERATIONS\n"
       << "        for (int64_t j_ = 0; j_ < " << block << "; ++j_) {\n"
       << "          const int64_t ow = first_ + j_;\n";
    return "  ";
  }
  static void closeWindowRowLoop(llvm::raw_ostream &os, int64_t wo) {
    if (windowRowBlock(wo))
      os << "        }\n";
    os << "      }\n";
  }

  /// Emits the host's plane form of max pooling's gradient when the windows
  /// tile the h x w plane from its corner (stride = kernel, no padding, at
  /// most kMaxTiledWindow elements): a loop along each row of windows whose
  /// body, unrolled over the window, finds the first maximum in row-major
  /// order by comparing mpc::first_max_key's integers (the same choice as
  /// emitWindowFirstMax's, ties and NaNs included, without its branches,
  /// which mispredict on real data and keep the loop from vectorising) and
  /// writes every element of the window once: 0 + the window's gradient at
  /// that maximum, 0 elsewhere. Rows and columns no window covers get 0.
  /// Windows computed twice (openWindowRowLoop's blocks) write the same
  /// values again, reading only the input and the gradient, which the plane
  /// never shares memory with (the memory plan writes in place only the
  /// results of pointwise groups).
  /// `gradient` reads the gradient of window (oh, ow), `input` the plane at
  /// an offset; `write` makes a stored value of a float.
  static void emitTiledMaxPoolGrad(llvm::raw_ostream &os, mpk::Pool2DGradOp k, int64_t h, int64_t w,
                                   int64_t ho, int64_t wo, const std::string &gradient,
                                   llvm::function_ref<std::string(const std::string &)> input,
                                   llvm::function_ref<std::string(const std::string &)> write) {
    int64_t kh = k.getKernel()[0], kw = k.getKernel()[1];
    auto at = [&](int64_t a, int64_t c) { return tiledWindowElement(kh, kw, w, a, c); };
    os << "    for (int64_t oh = 0; oh < " << ho << "; ++oh) {\n";
    std::string pad = openWindowRowLoop(os, wo);
    os << pad << "        const float g = " << gradient << ";\n"
       << pad << "        int32_t best = mpc::first_max_key(" << input(at(0, 0)) << ");\n"
       << pad << "        int32_t first = 0;\n";
    for (int64_t e = 1; e < kh * kw; ++e)
      os << pad << "        {\n"
         << pad << "          const int32_t v = mpc::first_max_key(" << input(at(e / kw, e % kw))
         << ");\n"
         << pad << "          const bool take = v > best;\n"
         << pad << "          best = take ? v : best;\n"
         << pad << "          first = take ? " << e << " : first;\n"
         << pad << "        }\n";
    for (int64_t e = 0; e < kh * kw; ++e)
      os << pad << "        plane[" << at(e / kw, e % kw) << "] = first == " << e << " ? "
         << write("0.0f + g") << " : " << write("0.0f") << ";\n";
    closeWindowRowLoop(os, wo);
    if (wo * kw < w)
      os << "      for (int64_t a = 0; a < " << kh << "; ++a)\n"
         << "        for (int64_t z = " << wo * kw << "; z < " << w << "; ++z)\n"
         << "          plane[(oh * " << kh << " + a) * " << w << " + z] = " << write("0.0f")
         << ";\n";
    os << "    }\n";
    if (ho * kh < h)
      os << "    for (int64_t e = " << ho * kh * w << "; e < " << h * w << "; ++e)\n"
         << "      plane[e] = " << write("0.0f") << ";\n";
  }

  /// Emits, likewise, `count`: the elements average pooling divides the
  /// window's sum by (with or without the padding, as the op says).
  static void emitWindowCount(llvm::raw_ostream &os, mpk::Pool2DGradOp k, int64_t h, int64_t w) {
    auto kernel = k.getKernel(), pad = k.getPadding();
    os << "        int64_t count = 0;\n";
    if (k.getCountIncludePad())
      emitCountWithPadding(os, "        ", kernel, pad, h, w);
    else
      os << "        for (int64_t a = 0; a < " << kernel[0] << "; ++a)\n"
         << "          for (int64_t c = 0; c < " << kernel[1] << "; ++c)\n"
         << "            count += (h0 + a >= 0 && h0 + a < " << h << " && w0 + c >= 0 && w0 + c < "
         << w << ") ? 1 : 0;\n";
  }

  /// Each input element gathers the gradients of the windows covering it:
  /// window (oh, ow) covers row ih when oh * stride - pad + ki == ih for a
  /// kernel row ki.
  LogicalResult emitPoolGrad(llvm::raw_ostream &os, mpk::Pool2DGradOp k) {
    bool isMax = k.getKind() == mpk::PoolKind::Max;
    llvm::SmallVector<Value> buffers{k.getGradOutput()};
    if (isMax)
      buffers.push_back(k.getInput());
    buffers.push_back(k.getGradInput());
    llvm::SmallVector<bool> written(buffers.size(), false);
    written.back() = true;
    auto m = beginFunctor(os, k.getSymName(), buffers, written);
    const std::string &dy = m[0], &dx = m.back();
    auto inShape = shapeOf(k.getGradInput()), outShape = shapeOf(k.getGradOutput());
    int64_t channels = inShape[1], h = inShape[2], w = inShape[3], ho = outShape[2],
            wo = outShape[3];
    auto kernel = k.getKernel(), stride = k.getStride(), pad = k.getPadding();
    std::string plane = "(n * " + std::to_string(channels) + " + ch)";
    os << "  MPC_HD void operator()(int64_t i) const {\n";
    emitDecompose(os, "    ", "i", inShape, {"n", "ch", "ih", "iw"});
    os << "    float acc = 0.0f;\n"
       << "    for (int64_t ki = 0; ki < " << kernel[0] << "; ++ki) {\n"
       << "      const int64_t th = ih + " << pad[0] << " - ki;\n"
       << "      if (th < 0 || th % " << stride[0] << " != 0 || th / " << stride[0]
       << " >= " << ho << ")\n        continue;\n"
       << "      const int64_t oh = th / " << stride[0] << ";\n"
       << "      for (int64_t kj = 0; kj < " << kernel[1] << "; ++kj) {\n"
       << "        const int64_t tw = iw + " << pad[1] << " - kj;\n"
       << "        if (tw < 0 || tw % " << stride[1] << " != 0 || tw / " << stride[1]
       << " >= " << wo << ")\n          continue;\n"
       << "        const int64_t ow = tw / " << stride[1] << ";\n"
       << "        const float g = " << loadExpr(buffers[0], dy, "(" + plane + " * " + std::to_string(ho) + " + oh) * " + std::to_string(wo) + " + ow") << ";\n"
       << "        const int64_t h0 = oh * " << stride[0] << " - " << pad[0] << ", w0 = ow * "
       << stride[1] << " - " << pad[1] << ";\n";
    if (isMax) {
      emitWindowFirstMax(os, k, h, w,
                         loadExpr(buffers[1], m[1],
                                  "(" + plane + " * " + std::to_string(h) + " + y) * " +
                                      std::to_string(w) + " + z"));
      os << "        if (bh == ih && bw == iw)\n          acc += g;\n";
    } else {
      emitWindowCount(os, k, h, w);
      os << "        acc += g / static_cast<float>(count);\n";
    }
    os << "      }\n    }\n"
       << "    " << dx << "[i] = " << storeExpr(buffers.back(), "acc") << ";\n  }\n";
    // The host's form, row = one image plane. Windows that do not overlap
    // (stride >= kernel) each hand their gradient to their own inputs: the
    // plane is zeroed and every window writes 0 + its share (the gather
    // above adds it to 0 as well); max pooling's windows that tile the plane
    // write every element once instead (emitTiledMaxPoolGrad). Overlapping
    // windows gather as above.
    int64_t planes = inShape[0] * inShape[1];
    int64_t n = product(inShape);
    std::string type = storageType(elementOf(buffers.back()));
    os << "#ifndef __CUDACC__\n  void row(int64_t r) const {\n";
    if (stride[0] >= kernel[0] && stride[1] >= kernel[1]) {
      // fp16/bf16 planes are widened into float arrays first and the
      // gradient plane narrowed from one (when they are small enough for
      // the stack), so that the loops below read and write floats.
      bool stage = is16Bit(elementOf(buffers.back())) && h * w <= kMaxStagedPoolPlane;
      // Windows that tile the plane from its corner (stride = kernel, no
      // padding) have a form of their own that writes every element once.
      bool tiledMax = isMax && stride[0] == kernel[0] && stride[1] == kernel[1] &&
                      llvm::all_of(pad, [](int64_t p) { return p == 0; }) &&
                      kernel[0] * kernel[1] <= kMaxTiledWindow;
      std::string g = "dyv", x = "xv", plane = "plane";
      if (stage) {
        os << "    float dyv[" << ho * wo << "];\n"
           << "    mpc::widen_chunk(" << dy << " + r * " << ho * wo << ", dyv, " << ho * wo
           << ");\n";
        if (isMax)
          os << "    float xv[" << h * w << "];\n"
             << "    mpc::widen_chunk(" << m[1] << " + r * " << h * w << ", xv, " << h * w
             << ");\n";
        os << "    float plane[" << h * w << "];\n";
        if (!tiledMax)
          os << "    for (int64_t e = 0; e < " << h * w << "; ++e)\n      plane[e] = 0.0f;\n";
      } else {
        g = dy + " + r * " + std::to_string(ho * wo);
        if (isMax)
          x = m[1] + " + r * " + std::to_string(h * w);
        os << "    " << type << " *plane = " << dx << " + r * " << h * w << ";\n";
        if (!tiledMax)
          os << "    for (int64_t e = 0; e < " << h * w << "; ++e)\n"
             << "      plane[e] = " << storeExpr(buffers.back(), "0.0f") << ";\n";
      }
      auto read = [&](const std::string &from, Value buffer, const std::string &at) {
        return stage ? from + "[" + at + "]" : loadExpr(buffer, "(" + from + ")", at);
      };
      auto write = [&](const std::string &value) {
        return stage ? value : storeExpr(buffers.back(), value);
      };
      if (tiledMax) {
        emitTiledMaxPoolGrad(
            os, k, h, w, ho, wo, read(g, buffers[0], "oh * " + std::to_string(wo) + " + ow"),
            [&](const std::string &at) { return read(x, buffers[1], at); }, write);
      } else {
        os << "    for (int64_t oh = 0; oh < " << ho << "; ++oh)\n"
           << "      for (int64_t ow = 0; ow < " << wo << "; ++ow) {\n"
           << "        const float g = "
           << read(g, buffers[0], "oh * " + std::to_string(wo) + " + ow") << ";\n"
           << "        const int64_t h0 = oh * " << stride[0] << " - " << pad[0] << ", w0 = ow * "
           << stride[1] << " - " << pad[1] << ";\n";
        if (isMax) {
          emitWindowFirstMax(os, k, h, w, read(x, buffers[1], "y * " + std::to_string(w) + " + z"));
          os << "        if (bh >= 0)\n"
             << "          plane[bh * " << w << " + bw] = " << write("0.0f + g") << ";\n";
        } else {
          emitWindowCount(os, k, h, w);
          os << "        const float share = 0.0f + g / static_cast<float>(count);\n"
             << "        for (int64_t a = 0; a < " << kernel[0] << "; ++a)\n"
             << "          for (int64_t c = 0; c < " << kernel[1] << "; ++c) {\n"
             << "            const int64_t y = h0 + a, z = w0 + c;\n"
             << "            if (y >= 0 && y < " << h << " && z >= 0 && z < " << w << ")\n"
             << "              plane[y * " << w << " + z] = " << write("share") << ";\n"
             << "          }\n";
        }
        os << "      }\n";
      }
      if (stage)
        os << "    mpc::narrow_chunk(plane, " << dx << " + r * " << h * w << ", " << h * w
           << ");\n";
    } else {
      os << "    for (int64_t e = 0; e < " << h * w << "; ++e)\n"
         << "      (*this)(r * " << h * w << " + e);\n";
    }
    os << "  }\n#endif\n"
       << "  static constexpr int64_t kRows = " << planes << ";\n";
    endFunctor(os, k.getSymName(), buffers, written,
               "mpc::pointwise_rows(" + std::to_string(planes) + ", " + std::to_string(n) +
                   ", fn)",
               pointwiseGrid(n), 256);
    return success();
  }

  /// The windows of an im2col or col2im: image [N, C, H, W], output rows
  /// Ho and columns Wo, and the attributes.
  struct Windows {
    llvm::ArrayRef<int64_t> image;
    llvm::ArrayRef<int64_t> kernel, stride, pad, dilation;
    int64_t outH, outW;
  };
  template <typename Op> static Windows windowsOf(Op k, Value image) {
    Windows w{shapeOf(image), k.getKernel(), k.getStride(), k.getPadding(), k.getDilation(), 0,
              0};
    w.outH = (w.image[2] + w.pad[0] + w.pad[2] - (w.dilation[0] * (w.kernel[0] - 1) + 1)) /
                 w.stride[0] + 1;
    w.outW = (w.image[3] + w.pad[1] + w.pad[3] - (w.dilation[1] * (w.kernel[1] - 1) + 1)) /
                 w.stride[1] + 1;
    return w;
  }

  /// The host's form of an im2col whose kernel has at most
  /// kMaxUnrolledIm2ColTaps elements: row (n, ch) is one image plane, and
  /// each kernel element (ki, kj) writes its Ho x Wo columns in code of its
  /// own whose bounds are numbers: the output rows that read padding zeroed
  /// whole, the others zeros, then the input row (with stride), then zeros.
  /// With the bounds known the host compiler turns each row's loops into a
  /// few vector moves: the CNN example's im2col kernels (14x14 planes, 3x3
  /// kernels) take 0.86x (f32) and 0.68x (bf16) the time of the row per
  /// kernel element with bounds computed at run time.
  static void emitUnrolledIm2ColRow(llvm::raw_ostream &os, const Windows &w,
                                    const std::string &type, const std::string &bits,
                                    const std::string &image, const std::string &columns) {
    int64_t height = w.image[2], width = w.image[3], plane = height * width;
    int64_t spatial = w.outH * w.outW, area = w.kernel[0] * w.kernel[1];
    auto plus = [](int64_t offset) {
      return (offset < 0 ? " - " : " + ") + std::to_string(offset < 0 ? -offset : offset);
    };
    os << "#ifndef __CUDACC__\n  void row(int64_t r) const {\n"
       << "    const " << type << " *image = " << image << " + r * " << plane << ";\n"
       << "    " << type << " *cols = " << columns << " + r * " << area * spatial << ";\n";
    for (int64_t ki = 0; ki < w.kernel[0]; ++ki) {
      // Output rows oh read input row oh * stride + rowShift, inside the
      // image for oh in [top, bottom).
      int64_t rowShift = ki * w.dilation[0] - w.pad[0];
      int64_t bottom = std::clamp<int64_t>(
          llvm::divideFloorSigned(height - 1 - rowShift, w.stride[0]) + 1, 0, w.outH);
      int64_t top =
          std::clamp<int64_t>(llvm::divideCeilSigned(-rowShift, w.stride[0]), 0, bottom);
      for (int64_t kj = 0; kj < w.kernel[1]; ++kj) {
        // Likewise output columns [lo, hi) read input columns ow * stride + shift.
        int64_t shift = kj * w.dilation[1] - w.pad[1];
        int64_t hi = std::clamp<int64_t>(
            llvm::divideFloorSigned(width - 1 - shift, w.stride[1]) + 1, 0, w.outW);
        int64_t lo = std::clamp<int64_t>(llvm::divideCeilSigned(-shift, w.stride[1]), 0, hi);
        os << "    {\n      " << type << " *out = cols + " << (ki * w.kernel[1] + kj) * spatial
           << ";\n";
        if (top > 0)
          os << "      for (int64_t e = 0; e < " << top * w.outW << "; ++e)\n        out[e]" << bits
             << " = 0;\n";
        if (bottom > top) {
          os << "      for (int64_t oh = " << top << "; oh < " << bottom << "; ++oh) {\n"
             << "        const " << type << " *line = image + (oh * " << w.stride[0]
             << plus(rowShift) << ") * " << width << ";\n"
             << "        " << type << " *row = out + oh * " << w.outW << ";\n";
          if (lo > 0)
            os << "        for (int64_t ow = 0; ow < " << lo << "; ++ow)\n          row[ow]" << bits
               << " = 0;\n";
          if (hi > lo)
            os << "        for (int64_t ow = " << lo << "; ow < " << hi << "; ++ow)\n"
               << "          row[ow]" << bits << " = line[ow * " << w.stride[1] << plus(shift)
               << "]" << bits << ";\n";
          if (hi < w.outW)
            os << "        for (int64_t ow = " << hi << "; ow < " << w.outW << "; ++ow)\n"
               << "          row[ow]" << bits << " = 0;\n";
          os << "      }\n";
        }
        if (bottom < w.outH)
          os << "      for (int64_t e = " << bottom * w.outW << "; e < " << spatial
             << "; ++e)\n        out[e]" << bits << " = 0;\n";
        os << "    }\n";
      }
    }
    os << "  }\n#endif\n";
  }

  LogicalResult emitIm2Col(llvm::raw_ostream &os, mpk::Im2ColOp k) {
    Value in = k.getInput(), cols = k.getColumns();
    auto m = beginFunctor(os, k.getSymName(), {in, cols}, {false, true});
    Windows w = windowsOf(k, in);
    auto colShape = shapeOf(cols);
    std::string type = storageType(elementOf(in));
    int64_t area = w.kernel[0] * w.kernel[1];
    os << "  MPC_HD void operator()(int64_t i) const {\n";
    emitDecompose(os, "    ", "i", colShape, {"n", "ckk", "p"});
    os << "    const int64_t ch = ckk / " << area << ";\n"
       << "    const int64_t ki = (ckk / " << w.kernel[1] << ") % " << w.kernel[0] << ";\n"
       << "    const int64_t kj = ckk % " << w.kernel[1] << ";\n"
       << "    const int64_t ih = (p / " << w.outW << ") * " << w.stride[0] << " - " << w.pad[0]
       << " + ki * " << w.dilation[0] << ";\n"
       << "    const int64_t iw = (p % " << w.outW << ") * " << w.stride[1] << " - " << w.pad[1]
       << " + kj * " << w.dilation[1] << ";\n"
       << "    const bool inside = ih >= 0 && ih < " << w.image[2] << " && iw >= 0 && iw < "
       << w.image[3] << ";\n"
       << "    " << m[1] << "[i] = inside ? " << m[0] << "[((n * " << w.image[1]
       << " + ch) * " << w.image[2] << " + ih) * " << w.image[3] << " + iw] : "
       << "mpc::from_f32<" << type << ">(0.0f);\n  }\n";
    // fp16/bf16 elements are copied as their bits (a copy of the struct
    // does not vectorise); zero is all bits clear in every type.
    std::string bits = is16Bit(elementOf(in)) ? ".bits" : "";
    int64_t rows = colShape[0] * colShape[1];
    if (area <= kMaxUnrolledIm2ColTaps) {
      emitUnrolledIm2ColRow(os, w, type, bits, m[0], m[1]);
      rows = w.image[0] * w.image[1];
    } else {
      // The host's form for larger kernels: row (n, ckk) is the Ho x Wo
      // columns of one kernel element, an output row at a time: zeros where
      // the window reads padding and the input row (with stride) between.
      os << "#ifndef __CUDACC__\n  void row(int64_t r) const {\n";
      emitDecompose(os, "    ", "r", {colShape[0], colShape[1]}, {"n", "ckk"});
      os << "    const int64_t ch = ckk / " << area << ";\n"
         << "    const int64_t ki = (ckk / " << w.kernel[1] << ") % " << w.kernel[0] << ";\n"
         << "    const int64_t kj = ckk % " << w.kernel[1] << ";\n"
         << "    const int64_t shift = kj * " << w.dilation[1] << " - " << w.pad[1] << ";\n"
         << "    // Columns ow with 0 <= ow * stride + shift < W read the input.\n"
         << "    int64_t lo = shift >= 0 ? 0 : (-shift + " << w.stride[1] - 1 << ") / "
         << w.stride[1] << ";\n"
         << "    int64_t hi = shift >= " << w.image[3] << " ? 0 : (" << w.image[3] - 1
         << " - shift) / " << w.stride[1] << " + 1;\n"
         << "    hi = hi < " << w.outW << " ? hi : " << w.outW << ";\n"
         << "    lo = lo < hi ? lo : hi;\n"
         << "    const " << type << " *image = " << m[0] << " + (n * " << w.image[1] << " + ch) * "
         << w.image[2] * w.image[3] << ";\n"
         << "    " << type << " *out = " << m[1] << " + r * " << w.outH * w.outW << ";\n"
         << "    for (int64_t oh = 0; oh < " << w.outH << "; ++oh, out += " << w.outW << ") {\n"
         << "      const int64_t ih = oh * " << w.stride[0] << " - " << w.pad[0] << " + ki * "
         << w.dilation[0] << ";\n"
         << "      const bool inside = ih >= 0 && ih < " << w.image[2] << ";\n"
         << "      const int64_t from = inside ? lo : " << w.outW << ", to = inside ? hi : "
         << w.outW << ";\n"
         << "      const " << type << " *line = image + (inside ? ih : 0) * " << w.image[3]
         << ";\n";
      os << "      for (int64_t ow = 0; ow < from; ++ow)\n        out[ow]" << bits << " = 0;\n"
         << "      for (int64_t ow = from; ow < to; ++ow)\n        out[ow]" << bits
         << " = line[ow * " << w.stride[1] << " + shift]" << bits << ";\n"
         << "      for (int64_t ow = to; ow < " << w.outW << "; ++ow)\n        out[ow]" << bits
         << " = 0;\n"
         << "    }\n  }\n#endif\n";
    }
    os << "  static constexpr int64_t kRows = " << rows << ";\n";
    int64_t n = product(colShape);
    endFunctor(os, k.getSymName(), {in, cols}, {false, true},
               "mpc::pointwise_rows(" + std::to_string(rows) + ", " + std::to_string(n) + ", fn)",
               pointwiseGrid(n), 256);
    return success();
  }

  LogicalResult emitCol2Im(llvm::raw_ostream &os, mpk::Col2ImOp k) {
    Value cols = k.getColumns(), out = k.getOutput();
    auto m = beginFunctor(os, k.getSymName(), {cols, out}, {false, true});
    Windows w = windowsOf(k, out);
    std::string type = storageType(elementOf(out));
    int64_t ckk = shapeOf(cols)[1], spatial = w.outH * w.outW;
    int64_t area = w.kernel[0] * w.kernel[1];
    // The sum over kernel rows ki, then columns kj, of the entries that
    // read this element, in both forms.
    os << "  MPC_HD void operator()(int64_t i) const {\n";
    emitDecompose(os, "    ", "i", w.image, {"n", "ch", "h", "x"});
    os << "    float acc = 0.0f;\n"
       << "    for (int64_t ki = 0; ki < " << w.kernel[0] << "; ++ki) {\n"
       << "      const int64_t th = h + " << w.pad[0] << " - ki * " << w.dilation[0] << ";\n"
       << "      if (th < 0 || th % " << w.stride[0] << " != 0 || th / " << w.stride[0]
       << " >= " << w.outH << ")\n        continue;\n"
       << "      for (int64_t kj = 0; kj < " << w.kernel[1] << "; ++kj) {\n"
       << "        const int64_t tw = x + " << w.pad[1] << " - kj * " << w.dilation[1] << ";\n"
       << "        if (tw < 0 || tw % " << w.stride[1] << " != 0 || tw / " << w.stride[1]
       << " >= " << w.outW << ")\n          continue;\n"
       << "        acc += mpc::to_f32(" << m[0] << "[(n * " << ckk << " + ch * " << area
       << " + ki * " << w.kernel[1] << " + kj) * " << spatial << " + (th / " << w.stride[0]
       << ") * " << w.outW << " + tw / " << w.stride[1] << "]);\n"
       << "      }\n    }\n"
       << "    " << m[1] << "[i] = mpc::from_f32<" << type << ">(acc);\n  }\n";
    // The host's form: row (n, ch) is an image plane, summed a band of its
    // rows at a time in a float array: for each kernel row ki, then column
    // kj, every row of the band that entry reads adds one column run, so
    // each element gets its terms in the element form's order. A tap's run
    // bounds are then fixed across the band's rows; summing one image row at
    // a time over all taps took 2.2-2.9x longer on the CNN example's 14x14
    // planes. A band is the whole plane up to kCol2ImBandElements.
    int64_t width = w.image[3], height = w.image[2];
    // (An empty image has one band of nothing.)
    int64_t band = width > 0 && height > 0
                       ? std::clamp<int64_t>(kCol2ImBandElements / width, 1, height)
                       : 1;
    os << "#ifndef __CUDACC__\n  void row(int64_t r) const {\n";
    emitDecompose(os, "    ", "r", w.image.take_front(2), {"n", "ch"});
    os << "    for (int64_t h0 = 0; h0 < " << height << "; h0 += " << band << ") {\n"
       << "      const int64_t rows = " << height << " - h0 < " << band << " ? " << height
       << " - h0 : " << band << ";\n"
       << "      float acc[" << std::max<int64_t>(band * width, 1) << "];\n"
       << "      for (int64_t e = 0; e < rows * " << width << "; ++e)\n        acc[e] = 0.0f;\n"
       << "      for (int64_t ki = 0; ki < " << w.kernel[0] << "; ++ki)\n"
       << "        for (int64_t kj = 0; kj < " << w.kernel[1] << "; ++kj) {\n"
       << "          const " << storageType(elementOf(cols)) << " *in = " << m[0] << " + (n * "
       << ckk << " + ch * " << area << " + ki * " << w.kernel[1] << " + kj) * " << spatial
       << ";\n"
       << "          const int64_t shift = " << w.pad[1] << " - kj * " << w.dilation[1] << ";\n";
    if (w.stride[1] == 1)
      // Output columns x with 0 <= x + shift < Wo, a contiguous run.
      os << "          const int64_t lo = shift >= 0 ? 0 : -shift;\n"
         << "          int64_t hi = " << w.outW << " - shift;\n"
         << "          hi = hi < " << width << " ? hi : " << width << ";\n";
    os << "          for (int64_t h = 0; h < rows; ++h) {\n"
       << "            const int64_t th = h0 + h + " << w.pad[0] << " - ki * " << w.dilation[0]
       << ";\n"
       << "            if (th < 0 || th % " << w.stride[0] << " != 0 || th / " << w.stride[0]
       << " >= " << w.outH << ")\n              continue;\n"
       << "            const " << storageType(elementOf(cols)) << " *line = in + (th / "
       << w.stride[0] << ") * " << w.outW << ";\n"
       << "            float *sums = acc + h * " << width << ";\n";
    if (w.stride[1] == 1)
      os << "            MPC_INDEPENDENT_ITERATIONS\n"
         << "            for (int64_t x = lo; x < hi; ++x)\n"
         << "              sums[x] += mpc::to_f32(line[x + shift]);\n";
    else
      os << "            for (int64_t x = 0; x < " << width << "; ++x) {\n"
         << "              const int64_t tw = x + shift;\n"
         << "              if (tw >= 0 && tw % " << w.stride[1] << " == 0 && tw / " << w.stride[1]
         << " < " << w.outW << ")\n"
         << "                sums[x] += mpc::to_f32(line[tw / " << w.stride[1] << "]);\n"
         << "            }\n";
    os << "          }\n        }\n";
    std::string bandAt = "(r * " + std::to_string(height) + " + h0) * " + std::to_string(width);
    if (is16Bit(elementOf(out)))
      os << "      mpc::narrow_chunk(acc, " << m[1] << " + " << bandAt << ", rows * " << width
         << ");\n";
    else
      os << "      " << type << " *band = " << m[1] << " + " << bandAt << ";\n"
         << "      for (int64_t e = 0; e < rows * " << width << "; ++e)\n"
         << "        band[e] = mpc::from_f32<" << type << ">(acc[e]);\n";
    os << "    }\n  }\n#endif\n";
    int64_t rows = w.image[0] * w.image[1];
    os << "  static constexpr int64_t kRows = " << rows << ";\n";
    int64_t n = product(w.image);
    endFunctor(os, k.getSymName(), {cols, out}, {false, true},
               "mpc::pointwise_rows(" + std::to_string(rows) + ", " + std::to_string(n) + ", fn)",
               pointwiseGrid(n), 256);
    return success();
  }

  LogicalResult emitGather(llvm::raw_ostream &os, mpk::GatherOp k) {
    Value table = k.getTable(), ids = k.getIndices(), out = k.getOutput();
    auto m = beginFunctor(os, k.getSymName(), {table, ids, out}, {false, false, true});
    int64_t vocab = shapeOf(table)[0], dim = shapeOf(table)[1];
    std::string type = storageType(elementOf(out));
    os << "  MPC_HD void operator()(int64_t i) const {\n"
       << "    const int64_t row = static_cast<int64_t>(" << m[1] << "[i / " << dim << "]);\n"
       << "    " << m[2] << "[i] = (row >= 0 && row < " << vocab << ") ? " << m[0]
       << "[row * " << dim << " + i % " << dim << "] : mpc::from_f32<" << type
       << ">(mpc::nan_f());\n  }\n";
    int64_t n = product(shapeOf(out));
    endFunctor(os, k.getSymName(), {table, ids, out}, {false, false, true},
               "mpc::pointwise(" + std::to_string(n) + ", fn)", pointwiseGrid(n), 256);
    return success();
  }

  mpk::ProgramOp program;
  mpc::GeneratedKernels result;
  unsigned valueCount = 0;
  /// Functor definitions printed so far (their own name replaced by
  /// @functor@) and the functor's name.
  std::map<std::string, std::string> functors;
};

} // namespace

FailureOr<mpc::GeneratedKernels> mpc::emitCuda(mpk::ProgramOp program) {
  return Emitter(program).run();
}
