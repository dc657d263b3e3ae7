//===- FuseAttention.cpp - written-out attention to mpg.attention ---------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Finds scaled dot-product attention written out as
//   batch_matmul(q, k^T) -> [mul or div by a scalar] -> [add a mask]
//     -> softmax over the keys -> batch_matmul(., v)
// (what an ONNX export of a hand-written attention block gives, k^T often a
// transpose of its own) and replaces it with one mpg.attention, whose kernels
// never store the probabilities. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/mpk/IR/MpkOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseSet.h"

#include <cmath>
#include <cstring>
#include <optional>

namespace mpc {
#define GEN_PASS_DEF_MPGFUSEATTENTION
#include "passes/Passes.h.inc"
} // namespace mpc

using namespace mlir;
using namespace mlir::mpg;

namespace {

RankedTensorType typeOf(Value v) { return llvm::cast<RankedTensorType>(v.getType()); }

/// The mask value below which an element above the diagonal counts as left
/// out: its weight exp(s + mask - max) is zero in fp32 (and fp64) unless its
/// score s is ~9,300 above the row's largest unmasked score.
constexpr double kCausalMaskBound = -1.0e4;

/// The value of a constant whose elements are all the same (a splat or a
/// rank-0 tensor).
std::optional<double> uniformConstant(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto dense = llvm::dyn_cast<DenseFPElementsAttr>(constant.getValue());
  if (!dense || !dense.isSplat())
    return std::nullopt;
  return dense.getSplatValue<APFloat>().convertToDouble();
}

/// Whether `mask` is a constant [S, S] (or [1, ..., 1, S, S]) that is 0 on
/// and below the diagonal and at most kCausalMaskBound (or -inf) above it:
/// a causal mask.
bool isCausalMaskConstant(Value mask) {
  auto constant = mask.getDefiningOp<ConstantOp>();
  if (!constant)
    return false;
  auto dense = llvm::dyn_cast<DenseFPElementsAttr>(constant.getValue());
  llvm::ArrayRef<int64_t> shape = typeOf(mask).getShape();
  if (!dense || shape.size() < 2 || shape.back() != shape[shape.size() - 2] ||
      llvm::any_of(shape.drop_back(2), [](int64_t d) { return d != 1; }))
    return false;
  int64_t size = shape.back();
  auto isCausalAt = [&](int64_t index, double value) {
    bool above = index % size > index / size;
    return above ? value <= kCausalMaskBound : value == 0.0;
  };
  // An f32 mask's elements read from its bytes: GPT-2's twelve masks of
  // 1024 x 1024 took a third of a second as APFloats.
  if (dense.getElementType().isF32() && !dense.isSplat()) {
    llvm::ArrayRef<char> raw = dense.getRawData();
    for (int64_t index = 0; index < size * size; ++index) {
      float value;
      std::memcpy(&value, raw.data() + index * sizeof value, sizeof value);
      if (!isCausalAt(index, value))
        return false;
    }
    return true;
  }
  int64_t index = 0;
  for (APFloat element : dense.getValues<APFloat>())
    if (!isCausalAt(index++, element.convertToDouble()))
      return false;
  return true;
}

/// One match of the pattern, read from its last batch_matmul.
struct AttentionMatch {
  BatchMatmulOp scores, output;
  Operation *scaling = nullptr, *masking = nullptr;
  SoftmaxOp softmax;
  Value query, keyTransposed, value, mask;
  unsigned maskOperand = 0;     // the mask's operand of `masking`
  bool keyIsTransposed = false; // the scores' batch_matmul has transpose_b
  double scale = 1.0;
  bool causal = false;

  /// The ops the rewrite erases, from the end of the chain.
  llvm::SmallVector<Operation *> chain() const {
    llvm::SmallVector<Operation *> ops{output, softmax};
    for (Operation *op : {masking, scaling})
      if (op)
        ops.push_back(op);
    ops.push_back(scores);
    return ops;
  }
};

std::optional<AttentionMatch> match(BatchMatmulOp output) {
  AttentionMatch m;
  m.output = output;
  if (output.getTransposeA() || output.getTransposeB())
    return std::nullopt;
  m.softmax = output.getLhs().getDefiningOp<SoftmaxOp>();
  if (!m.softmax || !m.softmax.getResult().hasOneUse())
    return std::nullopt;
  int64_t rank = typeOf(m.softmax.getResult()).getRank();
  if (m.softmax.getAxis() != -1 && m.softmax.getAxis() != rank - 1)
    return std::nullopt;
  Value scores = m.softmax.getOperand();
  // An additive mask, then a scale, each optional, in that order from the
  // softmax back.
  if (auto add = scores.getDefiningOp<AddOp>(); add && add.getResult().hasOneUse()) {
    // (the scores' side first: the one a product or its scaling defines,
    // which matters when both sides have the scores' shape)
    auto fromScores = [](Value v) {
      return llvm::isa_and_nonnull<BatchMatmulOp, MulOp, DivOp>(v.getDefiningOp());
    };
    bool swapped = !fromScores(add.getLhs()) && fromScores(add.getRhs());
    Value first = swapped ? add.getRhs() : add.getLhs(),
          second = swapped ? add.getLhs() : add.getRhs();
    for (auto [scoresSide, maskSide] : {std::pair(first, second), std::pair(second, first)}) {
      llvm::ArrayRef<int64_t> shape = typeOf(maskSide).getShape();
      bool broadcastOnly = shape.size() >= 2 && shape.size() <= static_cast<size_t>(rank) &&
                           llvm::all_of(shape.drop_back(2), [](int64_t d) { return d == 1; }) &&
                           typeOf(scoresSide).getShape() == typeOf(add.getResult()).getShape();
      if (broadcastOnly && shape.take_back(2) == typeOf(scoresSide).getShape().take_back(2)) {
        m.masking = add;
        m.mask = maskSide;
        m.maskOperand = maskSide == add.getLhs() ? 0 : 1;
        scores = scoresSide;
        break;
      }
    }
    if (!m.masking)
      return std::nullopt;
  }
  auto scalingBy = [&](Operation *op, Value lhs, Value rhs, bool divide) -> bool {
    if (!op || !op->getResult(0).hasOneUse())
      return false;
    for (auto [tensor, factor] : {std::pair(lhs, rhs), std::pair(rhs, lhs)}) {
      if (divide && tensor != lhs)
        continue;
      std::optional<double> c = uniformConstant(factor);
      if (c && typeOf(tensor).getShape() == typeOf(op->getResult(0)).getShape()) {
        m.scale = divide ? 1.0 / *c : *c;
        m.scaling = op;
        scores = tensor;
        return true;
      }
    }
    return false;
  };
  if (auto mul = scores.getDefiningOp<MulOp>())
    (void)scalingBy(mul, mul.getLhs(), mul.getRhs(), false);
  else if (auto div = scores.getDefiningOp<DivOp>())
    (void)scalingBy(div, div.getLhs(), div.getRhs(), true);
  m.scores = scores.getDefiningOp<BatchMatmulOp>();
  if (!m.scores || !m.scores.getResult().hasOneUse() || m.scores.getTransposeA())
    return std::nullopt;
  m.query = m.scores.getLhs();
  m.keyTransposed = m.scores.getRhs();
  m.keyIsTransposed = m.scores.getTransposeB();
  m.value = output.getRhs();
  // mpg.attention's operands: one element type, one head size for queries,
  // keys and values.
  Type element = typeOf(m.query).getElementType();
  if (typeOf(m.keyTransposed).getElementType() != element ||
      typeOf(m.value).getElementType() != element ||
      typeOf(output.getResult()).getElementType() != element ||
      typeOf(m.softmax.getResult()).getElementType() != element ||
      typeOf(m.scores.getResult()).getElementType() != element)
    return std::nullopt;
  // (the kernels take f32, f16 and bf16, and heads of up to
  // mpk::kAttentionMaxHead; anything else stays written out)
  if (!element.isF32() && !element.isF16() && !element.isBF16())
    return std::nullopt;
  int64_t head = typeOf(m.query).getShape().back();
  if (typeOf(m.value).getShape().back() != head || head > mlir::mpk::kAttentionMaxHead ||
      !std::isfinite(m.scale) || m.scale == 0)
    return std::nullopt;
  if (m.mask) {
    if (dependsOnTrainableParameters(m.mask))
      return std::nullopt;
    if (isCausalMaskConstant(m.mask)) {
      m.causal = true;
      m.mask = Value();
    }
  }
  return m;
}

/// Keys [..., Sk, D] from the scores' right operand [..., D, Sk]: a
/// transpose's operand with the permutation composed, else a transpose of
/// the last two dimensions.
Value keysOf(OpBuilder &b, AttentionMatch &m) {
  if (m.keyIsTransposed)
    return m.keyTransposed;
  Location loc = m.scores.getLoc();
  RankedTensorType type = typeOf(m.keyTransposed);
  int64_t rank = type.getRank();
  llvm::SmallVector<int64_t> swap(rank);
  for (int64_t d = 0; d < rank; ++d)
    swap[d] = d;
  std::swap(swap[rank - 1], swap[rank - 2]);
  llvm::SmallVector<int64_t> shape(type.getShape());
  std::swap(shape[rank - 1], shape[rank - 2]);
  RankedTensorType keyType = type.clone(shape);
  if (auto transpose = m.keyTransposed.getDefiningOp<TransposeOp>()) {
    llvm::ArrayRef<int64_t> perm = transpose.getPerm();
    llvm::SmallVector<int64_t> composed(rank);
    for (int64_t d = 0; d < rank; ++d)
      composed[d] = perm[swap[d]];
    bool identity = llvm::all_of(llvm::enumerate(composed), [](auto pair) {
      return static_cast<int64_t>(pair.index()) == pair.value();
    });
    if (identity)
      return transpose.getOperand();
    return b.create<TransposeOp>(loc, keyType, transpose.getOperand(),
                                 b.getDenseI64ArrayAttr(composed));
  }
  return b.create<TransposeOp>(loc, keyType, m.keyTransposed, b.getDenseI64ArrayAttr(swap));
}

void rewrite(AttentionMatch &m, llvm::DenseSet<Operation *> &erased) {
  OpBuilder b(m.output);
  Location loc = b.getFusedLoc({m.scores.getLoc(), m.softmax.getLoc(), m.output.getLoc()});
  Value keys = keysOf(b, m);
  Value mask = m.mask;
  if (mask && typeOf(mask).getRank() != 2) {
    // (a reshape of a [Sq, Sk] tensor: that tensor)
    auto reshape = mask.getDefiningOp<ReshapeOp>();
    llvm::ArrayRef<int64_t> shape = typeOf(mask).getShape().take_back(2);
    if (reshape && typeOf(reshape.getOperand()).getShape() == shape)
      mask = reshape.getOperand();
    else
      mask = b.create<ReshapeOp>(loc, typeOf(mask).clone(shape), mask);
  }
  RankedTensorType resultType = typeOf(m.output.getResult());
  llvm::SmallVector<int64_t> lseShape(resultType.getShape().drop_back());
  auto lseType = RankedTensorType::get(lseShape, b.getF32Type());
  auto attention =
      b.create<AttentionOp>(loc, TypeRange{resultType, lseType}, m.query, keys, m.value, mask,
                            b.getF64FloatAttr(m.scale), m.causal ? b.getUnitAttr() : UnitAttr());
  m.output.getResult().replaceAllUsesWith(attention.getResult());
  // Constants the chain read (its scale, a causal mask) go when unused.
  llvm::SetVector<Operation *> constants;
  for (Operation *op : {m.scaling, m.masking})
    if (op)
      for (Value operand : op->getOperands())
        if (auto constant = operand.getDefiningOp<ConstantOp>())
          constants.insert(constant);
  // The chain, from its end: each op's only user is the next one.
  for (Operation *op : m.chain()) {
    erased.insert(op);
    op->erase();
  }
  Value keyTransposed = m.keyTransposed;
  if (Operation *def = keyTransposed.getDefiningOp();
      def && llvm::isa<TransposeOp>(def) && keyTransposed.use_empty()) {
    erased.insert(def);
    def->erase();
  }
  for (Operation *constant : constants)
    if (constant->use_empty()) {
      erased.insert(constant);
      constant->erase();
    }
}

struct MpgFuseAttentionPass : mpc::impl::MpgFuseAttentionBase<MpgFuseAttentionPass> {
  void runOnOperation() override {
    llvm::SmallVector<AttentionMatch> matches;
    getOperation().getBody().walk([&](BatchMatmulOp op) {
      if (auto m = match(op))
        matches.push_back(*m);
    });
    // Matches found before any rewrite: one may use another's result (an
    // attention's output as the next one's queries) or share its ops (the
    // scores of one the output of another). Each reads its operands as
    // they are when its turn comes, and one whose ops an earlier rewrite
    // erased is left as it is.
    llvm::DenseSet<Operation *> erased;
    for (AttentionMatch &m : matches) {
      if (llvm::any_of(m.chain(), [&](Operation *op) { return erased.contains(op); }))
        continue;
      m.query = m.scores.getLhs();
      m.keyTransposed = m.scores.getRhs();
      m.value = m.output.getRhs();
      if (m.mask)
        m.mask = m.masking->getOperand(m.maskOperand);
      rewrite(m, erased);
    }
  }
};

} // namespace
