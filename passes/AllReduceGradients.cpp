//===- AllReduceGradients.cpp - the mean of every rank's gradients --------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Data parallelism in the graph: the gradients the updates read, bucketed
// into a few flat tensors, each reduced by one mpg.all_reduce mean as soon
// as its last gradient is computed; the loss output becomes its mean over
// the ranks (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/Precision/PrecisionSupport.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mpc {
#define GEN_PASS_DEF_MPGALLREDUCEGRADIENTS
#include "passes/Passes.h.inc"
} // namespace mpc

using namespace mlir;
using namespace mlir::mpg;
using mpc::precision::gradientOperand;

namespace {

RankedTensorType typeOf(Value v) { return llvm::cast<RankedTensorType>(v.getType()); }

int64_t bytesOf(RankedTensorType type) {
  return type.getNumElements() * type.getElementType().getIntOrFloatBitWidth() / 8;
}

/// Gradients reduced together, all of one element type once widened: each
/// gradient an update reads, and the value reduced for it (the gradient, or
/// with reduce-type storage the low-precision value it widens).
struct Bucket {
  Type element;
  llvm::SmallVector<Value> gradients, sources;
  int64_t bytes = 0;
  bool closed = false;
};

struct MpgAllReduceGradientsPass
    : public mpc::impl::MpgAllReduceGradientsBase<MpgAllReduceGradientsPass> {
  using MpgAllReduceGradientsBase::MpgAllReduceGradientsBase;

  void runOnOperation() override {
    GraphOp graph = getOperation();
    if (reduceType != "f32" && reduceType != "storage") {
      graph.emitError() << "mpg-all-reduce-gradients: unknown reduce-type '" << reduceType
                        << "'; expected f32 or storage";
      return signalPassFailure();
    }
    if (bucketBytes < 1) {
      graph.emitError() << "mpg-all-reduce-gradients: bucket-bytes must be at least 1, not "
                        << static_cast<int64_t>(bucketBytes);
      return signalPassFailure();
    }
    Block &body = graph.getBody().front();
    if (!body.getOps<AllReduceOp>().empty())
      return; // already data-parallel
    llvm::SmallVector<Operation *> updates;
    for (Operation &op : body)
      if (gradientOperand(&op))
        updates.push_back(&op);
    if (updates.empty())
      return; // a forward step

    OpBuilder b(&getContext());
    llvm::DenseMap<Value, Value> reduced;
    for (const Bucket &bucket : fillBuckets(updates))
      reduceBucket(b, bucket, reduced);
    for (Operation *update : updates) {
      OpOperand *gradient = gradientOperand(update);
      Value original = gradient->get();
      gradient->set(reduced.lookup(original));
      // (a widening that the all-reduce replaced: reduce-type storage)
      if (auto cast = original.getDefiningOp<CastOp>(); cast && cast->use_empty())
        cast->erase();
    }
    reduceLossOutput(b, body);
  }

private:
  /// The value reduced for `gradient`: with reduce-type storage, the
  /// fp16/bf16 value that a widening cast (mpg-assign-precision's, to the
  /// update's f32) makes the gradient; else the gradient.
  Value sourceOf(Value gradient) const {
    auto cast = gradient.getDefiningOp<CastOp>();
    if (reduceType != "storage" || !cast)
      return gradient;
    Type from = typeOf(cast.getOperand()).getElementType();
    return from.isF16() || from.isBF16() ? cast.getOperand() : gradient;
  }

  /// The element type `source` is reduced in.
  Type reducedElement(Value source) const {
    Type element = typeOf(source).getElementType();
    if (reduceType == "f32" && (element.isF16() || element.isBF16()))
      return Float32Type::get(element.getContext());
    return element;
  }

  /// The gradients the updates read, in the order they are computed, in
  /// buckets of one element type that close once they hold bucketBytes.
  llvm::SmallVector<Bucket> fillBuckets(llvm::ArrayRef<Operation *> updates) const {
    llvm::SetVector<Value> gradients;
    for (Operation *update : updates)
      gradients.insert(gradientOperand(update)->get());
    llvm::SmallVector<Value> ordered(gradients.begin(), gradients.end());
    auto position = [](Value v) -> Operation * { return v.getDefiningOp(); };
    llvm::stable_sort(ordered, [&](Value x, Value y) {
      Operation *a = position(x), *b = position(y);
      if (!a || !b) // (inputs and block arguments first)
        return !a && b;
      return a != b && a->isBeforeInBlock(b);
    });
    llvm::SmallVector<Bucket> buckets;
    llvm::DenseMap<Type, size_t> open;
    for (Value gradient : ordered) {
      Value source = sourceOf(gradient);
      Type element = reducedElement(source);
      auto it = open.find(element);
      if (it == open.end() || buckets[it->second].closed) {
        open[element] = buckets.size();
        buckets.push_back({element, {}, {}, 0, false});
        it = open.find(element);
      }
      Bucket &bucket = buckets[it->second];
      bucket.gradients.push_back(gradient);
      bucket.sources.push_back(source);
      bucket.bytes += bytesOf(typeOf(source).clone(element));
      bucket.closed = bucket.bytes >= bucketBytes;
    }
    return buckets;
  }

  /// The bucket's all-reduce, after its last gradient; `reduced` maps each
  /// gradient to its mean over the ranks.
  void reduceBucket(OpBuilder &b, const Bucket &bucket, llvm::DenseMap<Value, Value> &reduced) {
    Value last = bucket.sources.front();
    for (Value source : bucket.sources)
      if (Operation *def = source.getDefiningOp())
        if (!last.getDefiningOp() || last.getDefiningOp()->isBeforeInBlock(def))
          last = source;
    Location loc = last.getLoc();
    b.setInsertionPointAfterValue(last);
    // (each mean as the update reads it: the gradient's type)
    auto asGradient = [&](Value mean, size_t i) {
      Value gradient = bucket.gradients[i];
      Value shaped = reshaped(b, loc, mean, typeOf(bucket.sources[i]).clone(bucket.element));
      reduced[gradient] = typeOf(shaped) == typeOf(gradient)
                              ? shaped
                              : b.create<CastOp>(loc, typeOf(gradient), shaped).getResult();
    };
    if (bucket.sources.size() == 1) {
      Value source = widened(b, loc, bucket.sources.front(), bucket.element);
      asGradient(allReduce(b, loc, source), 0);
      return;
    }
    llvm::SmallVector<Value> flat;
    int64_t total = 0;
    for (Value source : bucket.sources) {
      int64_t count = typeOf(source).getNumElements();
      auto flatType = RankedTensorType::get({count}, bucket.element);
      flat.push_back(reshaped(b, loc, widened(b, loc, source, bucket.element), flatType));
      total += count;
    }
    auto bucketType = RankedTensorType::get({total}, bucket.element);
    Value joined = b.create<ConcatOp>(loc, bucketType, flat, b.getI64IntegerAttr(0));
    Value sum = allReduce(b, loc, joined);
    int64_t offset = 0;
    for (auto [i, source] : llvm::enumerate(bucket.sources)) {
      int64_t count = typeOf(source).getNumElements();
      Value piece =
          b.create<SliceOp>(loc, sum, b.getDenseI64ArrayAttr({offset}),
                            b.getDenseI64ArrayAttr({offset + count}), DenseI64ArrayAttr());
      offset += count;
      asGradient(piece, i);
    }
  }

  static Value reshaped(OpBuilder &b, Location loc, Value value, RankedTensorType type) {
    if (typeOf(value) == type)
      return value;
    return b.create<ReshapeOp>(loc, type, value);
  }

  Value widened(OpBuilder &b, Location loc, Value gradient, Type element) {
    if (typeOf(gradient).getElementType() == element)
      return gradient;
    return b.create<CastOp>(loc, typeOf(gradient).clone(element), gradient);
  }

  /// A mean over the ranks, with its precision decision.
  Value allReduce(OpBuilder &b, Location loc, Value operand) {
    auto reduce = b.create<AllReduceOp>(loc, AllReduceKind::Mean, operand);
    Type element = typeOf(operand).getElementType();
    bool wide = reduceType == "f32";
    std::string reason =
        wide ? "all-reduce: gradients widened to f32 before the mean over the ranks, so the sum "
               "of every rank's scaled gradients keeps f32's range (reduce-type f32)"
             : "all-reduce: gradients reduced in their storage type (reduce-type storage), "
               "half the bytes; the CPU's MPI sums f16 and bf16 in f32 and rounds once, NCCL "
               "rounds at each step of its ring";
    NamedAttrList decision;
    decision.append("category", b.getStringAttr("all-reduce"));
    decision.append("storage", TypeAttr::get(element));
    // (storage: NCCL adds in the storage type; the CPU's MPI path in f32)
    decision.append("compute", TypeAttr::get(element));
    decision.append("reason", b.getStringAttr(reason));
    reduce->setAttr(kPrecisionDecisionAttr, decision.getDictionary(&getContext()));
    return reduce;
  }

  /// The output "loss" (mpg-autodiff's) as its mean over the ranks.
  void reduceLossOutput(OpBuilder &b, Block &body) {
    for (OutputOp output : body.getOps<OutputOp>()) {
      if (output.getName() != "loss" ||
          !llvm::isa<FloatType>(typeOf(output.getValue()).getElementType()))
        continue;
      b.setInsertionPoint(output);
      auto reduce = b.create<AllReduceOp>(output.getLoc(), AllReduceKind::Mean, output.getValue());
      output.getValueMutable().assign(reduce);
    }
  }
};

} // namespace
