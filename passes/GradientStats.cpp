//===- GradientStats.cpp - gradient magnitude telemetry -------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Counts, on the device, the gradient values at or above each power of two
// from 2^-40 to 2^7, and the non-zero ones (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/Precision/PrecisionSupport.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>

namespace mpc {
#define GEN_PASS_DEF_MPGGRADIENTSTATS
#include "passes/Passes.h.inc"
} // namespace mpc

using namespace mlir;
using namespace mlir::mpg;

namespace {

constexpr int kLowestExponent = -40;
constexpr int kBuckets = 48; // 2^-40 .. 2^7

struct MpgGradientStatsPass : public mpc::impl::MpgGradientStatsBase<MpgGradientStatsPass> {
  void runOnOperation() override {
    GraphOp graph = getOperation();
    Block &body = graph.getBody().front();
    llvm::SmallVector<Value> gradients;
    for (Operation &op : body)
      if (OpOperand *gradient = mpc::precision::gradientOperand(&op))
        gradients.push_back(gradient->get());
    if (gradients.empty())
      return;
    MLIRContext *context = &getContext();
    OpBuilder b(context);
    b.setInsertionPointToEnd(&body);
    Location loc = graph.getLoc();
    Type f32 = Float32Type::get(context);
    auto tensor = [&](llvm::ArrayRef<int64_t> shape) { return RankedTensorType::get(shape, f32); };
    auto constant = [&](llvm::ArrayRef<float> values, llvm::ArrayRef<int64_t> shape) -> Value {
      return b.create<ConstantOp>(loc, DenseElementsAttr::get(tensor(shape), values));
    };
    llvm::SmallVector<float> thresholds;
    for (int k = 0; k < kBuckets; ++k)
      thresholds.push_back(std::ldexp(1.0f, kLowestExponent + k));
    Value limits = constant(thresholds, {1, kBuckets});
    Value zero = constant({0.0f}, {}), one = constant({1.0f}, {});
    Value atLeast, nonzero;
    for (Value gradient : gradients) {
      auto type = llvm::cast<RankedTensorType>(gradient.getType());
      Value g = gradient;
      if (!type.getElementType().isF32())
        g = b.create<CastOp>(loc, type.clone(f32), g);
      int64_t count = type.getNumElements();
      Value flat = b.create<ReshapeOp>(loc, tensor({count, 1}), g);
      Value magnitude = b.create<AbsOp>(loc, flat);
      // [count, 48]: 1 where |g| >= 2^k.
      Value above = b.create<CompareOp>(loc, ComparePredicate::GE, magnitude, limits);
      Value ones = b.create<SelectOp>(loc, above, one, zero);
      Value counts = b.create<ReduceSumOp>(loc, ones, b.getDenseI64ArrayAttr({0}), false);
      Value isNonzero = b.create<CompareOp>(loc, ComparePredicate::GT, magnitude, zero);
      Value nonzeroCount = b.create<ReduceSumOp>(
          loc, b.create<SelectOp>(loc, isNonzero, one, zero), b.getDenseI64ArrayAttr({0, 1}),
          false);
      atLeast = atLeast ? b.create<AddOp>(loc, atLeast, counts).getResult() : counts;
      nonzero = nonzero ? b.create<AddOp>(loc, nonzero, nonzeroCount).getResult() : nonzeroCount;
    }
    b.create<OutputOp>(loc, "grad_nonzero", nonzero);
    b.create<OutputOp>(loc, "grad_at_least", atLeast);
  }
};

} // namespace
