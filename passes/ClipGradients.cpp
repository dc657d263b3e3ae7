//===- ClipGradients.cpp - gradient clipping by global norm ---------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The global norm of the unscaled gradients and the clip factor, applied
// where each update reads its gradient (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/GraphBuilding.h"
#include "passes/Passes.h"
#include "passes/Precision/PrecisionSupport.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <limits>

namespace mpc {
#define GEN_PASS_DEF_MPGCLIPGRADIENTS
#include "passes/Passes.h.inc"
} // namespace mpc

using namespace mlir;
using namespace mlir::mpg;
using mpc::precision::gradientOperand;

namespace {

/// PyTorch's clip_grad_norm_ adds this to the norm before dividing by it.
constexpr double kNormEpsilon = 1e-6;

/// The gradient `gradient` as computed, before loss scaling's unscale.
Value sourceOf(Value gradient) {
  auto unscale = gradient.getDefiningOp<UnscaleOp>();
  return unscale ? unscale.getOperand() : gradient;
}

/// Loss scaling's overflow check (mpg.all_finite) of `body` becomes
/// `total < inf`, the sum of the squares being NaN or infinite exactly
/// when a gradient is (or when the unscaled squares overflow f32, which
/// would make the step's updates meaningless too): one pass over the
/// gradients then serves both. Only when the check reads what the norm
/// reads (each clipped gradient as computed, or, accumulating, its sum
/// over the window, of which the norm reads the mean) and every reader of
/// the check follows the norm; otherwise the check stays.
void replaceFiniteCheck(OpBuilder &b, Location loc, Block &body,
                        const llvm::SetVector<Value> &gradients, Value total) {
  auto checks = llvm::to_vector(body.getOps<AllFiniteOp>());
  if (checks.size() != 1)
    return;
  AllFiniteOp check = checks.front();
  llvm::SmallPtrSet<Value, 8> read;
  for (Value gradient : gradients) {
    Value source = sourceOf(gradient);
    read.insert(source);
    if (auto mean = source.getDefiningOp<DivOp>())
      read.insert(mean.getLhs());
  }
  if (check->getNumOperands() != gradients.size() ||
      !llvm::all_of(check->getOperands(), [&](Value v) { return read.contains(v); }))
    return;
  Type f32 = b.getF32Type();
  Value infinity = mpc::scalarConstant(b, loc, f32, std::numeric_limits<double>::infinity());
  Value finite = b.create<CompareOp>(loc, ComparePredicate::LT, total, infinity);
  Operation *def = finite.getDefiningOp();
  if (!llvm::all_of(check->getUsers(),
                    [&](Operation *user) { return def->isBeforeInBlock(user); })) {
    infinity.getDefiningOp()->erase();
    def->erase();
    return;
  }
  check.getResult().replaceAllUsesWith(finite);
  check.erase();
  // (the builder was inserting before the next op, which may have been the
  // check)
  b.setInsertionPointAfter(def);
}

struct MpgClipGradientsPass : mpc::impl::MpgClipGradientsBase<MpgClipGradientsPass> {
  void runOnOperation() override {
    GraphOp graph = getOperation();
    auto maxNorm = graph->getAttrOfType<FloatAttr>(kClipGradNormAttr);
    if (!maxNorm)
      return;
    graph->removeAttr(kClipGradNormAttr);
    Block &body = graph.getBody().front();
    llvm::SmallVector<Operation *> updates;
    for (Operation &op : body)
      if (gradientOperand(&op))
        updates.push_back(&op);
    if (updates.empty())
      return;
    for (OutputOp output : body.getOps<OutputOp>())
      if (output.getName() == "grad_norm") {
        output.emitError("mpg-clip-gradients names the gradients' norm output \"grad_norm\", "
                         "but the graph already has an output with that name");
        return signalPassFailure();
      }

    OpBuilder b(&getContext());
    Location loc = graph.getLoc();
    Type f32 = b.getF32Type();
    auto scalar = [&](double value) { return mpc::scalarConstant(b, loc, f32, value); };
    auto inF32 = [&](Value x) -> Value {
      auto type = llvm::cast<RankedTensorType>(x.getType());
      if (type.getElementType() == f32)
        return x;
      return b.create<CastOp>(loc, type.clone(f32), x);
    };

    // The norm and the factor, after the last gradient is computed and
    // before the first update. Loss scaling put an unscale before each
    // update; the norm unscales a copy of the gradient where it is.
    llvm::SetVector<Value> gradients;
    for (Operation *update : updates)
      gradients.insert(gradientOperand(update)->get());
    Operation *last = nullptr;
    for (Value gradient : gradients) {
      llvm::SmallVector<Value, 2> needed{sourceOf(gradient)};
      if (auto unscale = gradient.getDefiningOp<UnscaleOp>())
        needed.push_back(unscale.getScale());
      for (Value value : needed)
        if (Operation *def = value.getDefiningOp())
          if (!last || last->isBeforeInBlock(def))
            last = def;
    }
    if (last && !last->isBeforeInBlock(updates.front())) {
      updates.front()->emitError("mpg-clip-gradients needs every gradient computed before the "
                                 "first update");
      return signalPassFailure();
    }
    if (last)
      b.setInsertionPointAfter(last);
    else
      b.setInsertionPointToStart(&body);
    Value total;
    for (Value gradient : gradients) {
      Value unscaled = gradient;
      if (auto unscale = gradient.getDefiningOp<UnscaleOp>())
        unscaled = b.clone(*unscale)->getResult(0);
      Value x = inF32(unscaled);
      auto rank = llvm::cast<RankedTensorType>(x.getType()).getRank();
      Value squares = b.create<MulOp>(loc, x, x);
      Value sum = squares;
      if (rank > 0)
        sum = b.create<ReduceSumOp>(
            loc, squares, b.getDenseI64ArrayAttr(llvm::to_vector(llvm::seq<int64_t>(0, rank))),
            /*keepdim=*/false);
      total = total ? b.create<AddOp>(loc, total, sum).getResult() : sum;
    }
    replaceFiniteCheck(b, loc, body, gradients, total);
    Value norm = b.create<SqrtOp>(loc, total);
    Value one = scalar(1.0), limit = scalar(maxNorm.getValueAsDouble()),
          epsilon = scalar(kNormEpsilon);
    Value denominator = b.create<AddOp>(loc, norm, epsilon);
    Value quotient = b.create<DivOp>(loc, limit, denominator);
    Value factor = b.create<MinimumOp>(loc, one, quotient);

    // Each update reads its gradient times the factor.
    // (in f32, or in f64 for an f64 gradient, which f32 would round)
    for (Operation *update : updates) {
      OpOperand *gradient = gradientOperand(update);
      b.setInsertionPoint(update);
      Value g = gradient->get();
      Type element = llvm::cast<RankedTensorType>(g.getType()).getElementType();
      Value clipped =
          element.isF64()
              ? b.create<MulOp>(update->getLoc(), g,
                                b.create<CastOp>(loc, RankedTensorType::get({}, element), factor))
              : b.create<MulOp>(update->getLoc(), inF32(g), factor);
      gradient->set(clipped);
    }
    b.setInsertionPointToEnd(&body);
    b.create<OutputOp>(loc, "grad_norm", norm);
  }
};

} // namespace
