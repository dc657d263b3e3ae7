//===- GraphLimits.cpp - what mpc's code generation takes -----------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/GraphLimits.h"

#include "dialects/mpg/IR/MpgOps.h"

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
bool takesNoEmptyOperand(Operation *op) {
  return llvm::isa<mpg::MatmulOp, mpg::BatchMatmulOp, mpg::Conv2DOp, mpg::Conv2DGradInputOp,
                   mpg::Conv2DGradFilterOp, mpg::SoftmaxOp, mpg::LogSoftmaxOp,
                   mpg::SoftmaxCrossEntropyOp, mpg::SoftmaxCrossEntropyGradOp, mpg::LayerNormOp,
                   mpg::LayerNormGradOp>(op);
}

} // namespace

LogicalResult mpc::driver::checkGraphLimits(ModuleOp module, bool train) {
  for (auto graph : module.getOps<mpg::GraphOp>()) {
    if (train && !graph.getMinimize())
      return graph.emitError() << "training needs an mpg.minimize in @" << graph.getSymName()
                               << " (the loss to minimize and the optimizer); this graph only "
                                  "infers (compile it with --step forward)";
    WalkResult result = graph.walk([&](Operation *op) {
      for (Type type : op->getResultTypes())
        if (failed(checkType(op, type, "the result")))
          return WalkResult::interrupt();
      for (Type type : op->getOperandTypes()) {
        if (failed(checkType(op, type, "an operand")))
          return WalkResult::interrupt();
        auto tensor = llvm::dyn_cast<RankedTensorType>(type);
        if (tensor && tensor.getNumElements() == 0 && takesNoEmptyOperand(op)) {
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
