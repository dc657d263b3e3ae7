//===- KernelCost.cpp - FLOPs and a roofline time for each kernel ---------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/KernelCost.h"

#include "dialects/mpk/IR/MpkOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace {

double elements(Value buffer) {
  double count = 1;
  for (int64_t d : llvm::cast<MemRefType>(buffer.getType()).getShape())
    count *= static_cast<double>(d);
  return count;
}

double product(llvm::ArrayRef<int64_t> dims) {
  double p = 1;
  for (int64_t d : dims)
    p *= static_cast<double>(d);
  return p;
}

/// Scalar arithmetic in a kernel body (constants and casts between widths
/// are not arithmetic).
double bodyOps(Region &body) {
  double ops = 0;
  body.walk([&](Operation *op) {
    bool arithmetic = (op->getDialect() && (op->getDialect()->getNamespace() == "arith" ||
                                           op->getDialect()->getNamespace() == "math")) &&
                      !llvm::isa<arith::ConstantOp, arith::ExtFOp, arith::TruncFOp,
                                 arith::IndexCastOp, arith::SIToFPOp, arith::FPToSIOp,
                                 arith::ExtSIOp, arith::TruncIOp>(op);
    ops += arithmetic;
  });
  return ops;
}

/// The multiply-adds of one product of an attention's queries, keys and
/// head dimensions (x 2 flops), half of them when causal.
template <class AttentionKernel> double attentionProducts(AttentionKernel k) {
  double products =
      2.0 * static_cast<double>(k.getBatch()) * k.getQueries() * k.getKeys() * k.getHead();
  return k.getCausal() ? products / 2 : products;
}

} // namespace

double mpc::driver::estimateFlops(Operation *op) {
  return llvm::TypeSwitch<Operation *, double>(op)
      .Case([](mpk::GemmOp gemm) {
        double outputs = static_cast<double>(gemm.getM()) * gemm.getN() * gemm.getBatch();
        double epilogue = 0;
        switch (gemm.getEpilogue()) {
        case mpk::GemmEpilogue::None:
          break;
        case mpk::GemmEpilogue::BiasRelu:
        case mpk::GemmEpilogue::BiasGelu:
          epilogue = 2;
          break;
        default:
          epilogue = 1;
        }
        if (!gemm.getBeta().isZero())
          epilogue += 2; // C = product + beta * C
        return 2.0 * outputs * gemm.getK() + epilogue * outputs;
      })
      .Case([](mpk::PointwiseOp k) { return bodyOps(k.getBody()) * product(k.getIteration()); })
      .Case([](mpk::ReduceOp k) {
        return (bodyOps(k->getRegion(0)) + 1) * product(k.getIteration());
      })
      .Case([](mpk::SoftmaxOp k) {
        return 5.0 * static_cast<double>(k.getOuter()) * k.getCols() * k.getInner();
      })
      .Case([](mpk::LayerNormOp k) { return 8.0 * static_cast<double>(k.getRows()) * k.getCols(); })
      // Two products of queries x keys x head (the scores, the weighted
      // sum), the causal half of them; the gradient's kernels recompute the
      // scores and add the products of their own gradients.
      .Case([](mpk::AttentionOp k) { return 2.0 * attentionProducts(k); })
      .Case([](mpk::AttentionGradQueryOp k) { return 3.0 * attentionProducts(k); })
      .Case([](mpk::AttentionGradKeyValueOp k) { return 4.0 * attentionProducts(k); })
      .Case([](mpk::CrossEntropyOp k) {
        return 5.0 * static_cast<double>(k.getRows()) * k.getCols();
      })
      .Case([](mpk::CrossEntropyGradOp k) {
        return 5.0 * static_cast<double>(k.getRows()) * k.getCols();
      })
      .Case([](mpk::Pool2DOp k) { return elements(k.getOutput()) * product(k.getKernel()); })
      .Case([](mpk::Pool2DGradOp k) {
        return elements(k->getOperand(k->getNumOperands() - 1)) * product(k.getKernel());
      })
      // Each column entry that reads the image is added once.
      .Case([](mpk::Col2ImOp k) { return elements(k.getColumns()); })
      // A product and a select per element (the mask's integer arithmetic
      // is no floating-point work).
      .Case([](mpk::DropoutOp k) { return 2.0 * elements(k.getOutput()); })
      .Default([](Operation *) { return 0.0; });
}

mpc::driver::RooflineTime mpc::driver::rooflineTime(Operation *op, double flops, int64_t bytes,
                                                    const GpuLimits &gpu) {
  double peak = gpu.vectorFlops;
  if (auto gemm = llvm::dyn_cast<mpk::GemmOp>(op)) {
    Type a = llvm::cast<MemRefType>(gemm.getA().getType()).getElementType();
    if (a.isF16() || a.isBF16())
      peak = gpu.lowPrecisionGemmFlops;
  }
  RooflineTime time;
  time.computeSeconds = flops / peak;
  time.memorySeconds = static_cast<double>(bytes) / gpu.bandwidth;
  return time;
}
