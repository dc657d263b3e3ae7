//===- GraphLimits.cpp - what mpc's code generation takes -----------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Compile/GraphLimits.h"

#include "compiler/CodeGen/BundleWriter.h"
#include "dialects/mpg/IR/MpgOps.h"

#include "mpc/format/Manifest.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <cstdint>
#include <limits>

using namespace mlir;

namespace {

constexpr int64_t kLargestSize = std::numeric_limits<int32_t>::max();

/// Emits an error at `op` when `type` has a dimension too large.
LogicalResult checkType(Operation *op, Type type, llvm::StringRef role) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return success();
  for (int64_t dim : tensor.getShape())
    if (dim > kLargestSize)
      return op->emitError() << role << " " << tensor << " has a dimension above " << kLargestSize
                             << ", the largest mpc compiles";
  return success();
}

/// Ops that become GEMMs or row kernels, which take no empty operand
/// (pointwise ops, reductions and the other kernels take empty tensors).
bool takesNoEmptyOperand(Operation *op, bool train) {
  // (an embedding's gradient is a matmul over its indices)
  if (train && llvm::isa<mpg::EmbeddingOp>(op))
    return true;
  return llvm::isa<mpg::MatmulOp, mpg::BatchMatmulOp, mpg::Conv2DOp, mpg::Conv2DGradInputOp,
                   mpg::Conv2DGradFilterOp, mpg::SoftmaxOp, mpg::LogSoftmaxOp,
                   mpg::SoftmaxCrossEntropyOp, mpg::SoftmaxCrossEntropyGradOp, mpg::LayerNormOp,
                   mpg::LayerNormGradOp, mpg::AttentionOp, mpg::AttentionGradOp>(op);
}

/// Emits an error at `op` when its name (of an input, output, parameter or
/// state) holds a control character, which the runtime refuses in a bundle.
LogicalResult checkName(Operation *op) {
  auto name = op->getAttrOfType<StringAttr>("name");
  if (name && mpc::rt::holdsControlCharacter(name.getValue().str()))
    return op->emitError() << "the name " << name
                           << " holds a control character, which a bundle's names may not";
  return success();
}

/// Emits an error at `op` when its constant initializer's value is not a
/// value of its tensor's element type (1e5 in f16 is infinite), which the
/// runtime refuses.
LogicalResult checkInitializer(Operation *op) {
  auto init = op->getAttrOfType<mpg::InitializerAttr>("init");
  if (!init || init.getKind() != mpg::InitKind::Constant || op->getNumResults() != 1)
    return success();
  auto tensor = llvm::dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!tensor)
    return success();
  Type element = tensor.getElementType();
  double value = init.getArg("value", 0);
  if (!mpc::rt::isInitialValueOf(mpc::manifestDtypeOf(element), value))
    return op->emitError() << "the constant initializer's value " << value << " is not a value of "
                           << element;
  return success();
}

} // namespace

LogicalResult mpc::checkGraphLimits(ModuleOp module, bool train) {
  for (auto graph : module.getOps<mpg::GraphOp>()) {
    if (train && !graph.getMinimize())
      return graph.emitError() << "training needs an mpg.minimize in @" << graph.getSymName()
                               << " (the loss to minimize and the optimizer); this graph only "
                                  "infers (compile it with --step forward)";
    WalkResult result = graph.walk([&](Operation *op) {
      if (failed(checkName(op)) || failed(checkInitializer(op)))
        return WalkResult::interrupt();
      for (Type type : op->getResultTypes())
        if (failed(checkType(op, type, "the result")))
          return WalkResult::interrupt();
      for (Type type : op->getOperandTypes()) {
        if (failed(checkType(op, type, "an operand")))
          return WalkResult::interrupt();
        auto tensor = llvm::dyn_cast<RankedTensorType>(type);
        if (tensor && tensor.getNumElements() == 0 && takesNoEmptyOperand(op, train)) {
          op->emitError() << "an operand " << tensor << " is empty: mpc compiles no empty "
                          << op->getName() << " (GEMMs, convolutions and row kernels need "
                          << "elements)";
          return WalkResult::interrupt();
        }
      }
      // Strides, padding, dilations and windows of convolutions and pooling.
      if (!llvm::isa<mpg::Conv2DOp, mpg::Conv2DGradInputOp, mpg::Conv2DGradFilterOp,
                     mpg::MaxPool2DOp, mpg::AvgPool2DOp, mpg::MaxPool2DGradOp,
                     mpg::AvgPool2DGradOp>(op))
        return WalkResult::advance();
      for (NamedAttribute attr : op->getAttrs())
        if (auto values = llvm::dyn_cast<DenseI64ArrayAttr>(attr.getValue()))
          for (int64_t value : values.asArrayRef())
            if (value > kLargestSize) {
              op->emitError() << "'" << attr.getName().getValue() << "' holds " << value
                              << ", above " << kLargestSize << ", the largest mpc compiles";
              return WalkResult::interrupt();
            }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return failure();
  }
  return success();
}
