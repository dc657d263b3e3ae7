//===- KernelEmitter.cpp - what the emitter's parts share ----------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Types and literals as C++ text, loads and stores with their conversions,
// and the index arithmetic of affine maps (KernelEmitter.h).
//
//===----------------------------------------------------------------------===//

#include "compiler/CodeGen/KernelEmitter.h"

using namespace mlir;

namespace mpc::codegen {

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

std::string scalarType(Type type) {
  if (type.isInteger(1))
    return "bool";
  return storageType(type);
}

Type elementOf(Value buffer) { return llvm::cast<MemRefType>(buffer.getType()).getElementType(); }

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

std::string loadExpr(Value buffer, llvm::StringRef pointer, llvm::StringRef index,
                     const Conversions &convert) {
  Type type = elementOf(buffer);
  std::string access = (pointer + "[" + index + "]").str();
  if (type.isF16() || type.isBF16() || type.isF32())
    return (convert.widen + "(" + access + ")").str();
  if (type.isInteger(1))
    return "(" + access + " != 0)";
  return access;
}

std::string storeExpr(Value buffer, llvm::StringRef value, const Conversions &convert) {
  Type type = elementOf(buffer);
  if (type.isF16() || type.isBF16() || type.isF32())
    return (convert.narrow + "<" + storageType(type) + ">(" + value + ")").str();
  if (type.isInteger(1))
    return "static_cast<uint8_t>(" + value.str() + " ? 1 : 0)";
  return value.str();
}

std::string loopStoreStatement(Value buffer, llvm::StringRef pointer, llvm::StringRef index,
                               llvm::StringRef value) {
  std::string access = (pointer + "[" + index + "]").str();
  if (elementOf(buffer).isBF16())
    return access + ".bits = " + storeExpr(buffer, value, kLoopConversions) + ".bits;";
  return access + " = " + storeExpr(buffer, value, kLoopConversions) + ";";
}

llvm::SmallVector<int64_t> stridesOf(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

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

std::string linearIndex(AffineMap map, llvm::ArrayRef<int64_t> shape,
                        llvm::ArrayRef<std::string> dims, unsigned fromDim) {
  llvm::SmallVector<int64_t> strides = stridesOf(shape);
  std::string text;
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    if (auto constant = llvm::dyn_cast<AffineConstantExpr>(expr);
        constant && constant.getValue() == 0)
      continue;
    if (auto dim = llvm::dyn_cast<AffineDimExpr>(expr); dim && dim.getPosition() >= fromDim)
      continue;
    // A run's dimension plus a constant (HostRowLayout.h): the constant
    // alone moves the run's start.
    if (std::optional<unsigned> dim = mpc::offsetDimension(expr); dim && *dim >= fromDim) {
      int64_t offset =
          llvm::cast<AffineConstantExpr>(llvm::cast<AffineBinaryOpExpr>(expr).getRHS()).getValue();
      if (!text.empty())
        text += " + ";
      text += std::to_string(offset * strides[i]);
      continue;
    }
    if (!text.empty())
      text += " + ";
    text += affineText(expr, dims);
    if (strides[i] != 1)
      text += " * " + std::to_string(strides[i]);
  }
  return text.empty() ? "0" : text;
}

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

} // namespace mpc::codegen
