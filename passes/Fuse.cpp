//===- Fuse.cpp - group mpg ops into fusion groups ------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The legality rules are stated in Passes.td. The pass first assigns ops to
// groups in one walk over the graph, then materialises each group as an
// mpg.fusion op and restores a topological order.
//
//===----------------------------------------------------------------------===//

#include "passes/MemoryPlanning/MemoryPlanSupport.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <vector>

namespace mpc {
#define GEN_PASS_DEF_MPGFUSE
#include "passes/Passes.h.inc"
} // namespace mpc

using namespace mlir;
using namespace mlir::mpg;

namespace {

/// How far a GEMM epilogue has progressed; each stage may only be followed
/// by a later one, mirroring cuBLASLt's bias -> activation -> output type.
/// Accumulate (C = product + beta * C, into the state it updates) follows
/// the product itself, after no other stage, and ends the epilogue.
enum class EpilogueStage { None, Bias, Activation, Cast, Accumulate };

struct Group {
  FusionKind kind;
  llvm::SmallVector<Operation *> ops;
  /// The shape every pointwise op joining the group must produce: the
  /// iteration space of a pointwise group, the reduced shape of a reduction
  /// (its epilogue), the output of a GEMM.
  llvm::SmallVector<int64_t> shape;
  /// For GEMMs and convolutions: the value the next epilogue op must
  /// consume, and the stage.
  Value gemmTail;
  EpilogueStage stage = EpilogueStage::None;
  /// For GEMMs with a bias epilogue: the bias's element type.
  Type biasElementType;
  /// For reductions: the reduction and its epilogue, the only ops whose
  /// values the epilogue may read (prologue values exist per input element).
  llvm::SmallPtrSet<Operation *, 8> epilogue;
  /// Closed groups take no more ops.
  bool closed = false;
};

/// Ops that never become part of a kernel.
bool isStructural(Operation *op) {
  return llvm::isa<InputOp, ParamOp, StateOp, ConstantOp, OutputOp, MinimizeOp, StateWriteOp,
                   ReshapeOp>(op);
}

llvm::ArrayRef<int64_t> shapeOf(Value value) {
  return llvm::cast<RankedTensorType>(value.getType()).getShape();
}

bool isSplatConstant(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return false;
  auto dense = llvm::dyn_cast<DenseElementsAttr>(constant.getValue());
  return dense && dense.isSplat();
}

class FusionPlanner {
public:
  FusionPlanner(bool gemmEpilogues, bool pointwiseFusion)
      : gemmEpilogues(gemmEpilogues), pointwiseFusion(pointwiseFusion) {}

  void plan(Block &body) {
    for (Operation &op : body)
      if (!isStructural(&op))
        place(&op);
  }

  std::vector<Group> &getGroups() { return groups; }

private:
  /// Group of the op defining `value`, or -1.
  int groupOf(Value value) const {
    Operation *def = value.getDefiningOp();
    if (!def)
      return -1;
    auto it = groupOfOp.find(def);
    return it == groupOfOp.end() ? -1 : it->second;
  }

  /// Adds the groups `value` of an op of group `reader` depends on to that
  /// group's dependencies: the value's own group and, transitively, every
  /// group that group reads from; structural ops (reshapes) pass their
  /// operands' dependencies through. Records `reader` as a reader of the
  /// value's group. Whether the dependencies grew.
  bool addDepsOf(Value value, int reader) {
    if (int h = groupOf(value); h >= 0) {
      if (h == reader)
        return false;
      readers[h].insert(reader);
      llvm::BitVector &deps = groupDeps[reader];
      if (!groupDeps[h].test(deps)) // nothing in that set that deps lacks
        return false;
      deps |= groupDeps[h];
      return true;
    }
    Operation *def = value.getDefiningOp();
    bool grew = false;
    if (def)
      for (Value operand : def->getOperands())
        grew |= addDepsOf(operand, reader);
    return grew;
  }

  /// The group that holds the ops of group `g` now: `g`, or the group that
  /// absorbed it (absorbProducers).
  int holderOf(int g) const {
    while (absorbedInto[g] >= 0)
      g = absorbedInto[g];
    return g;
  }

  /// The groups other than `g` that depend on it (whose dependencies hold
  /// its bit): those reading its values, directly or through other groups.
  /// A walk over the reader edges, which touches those groups only, where
  /// testing every group's dependencies costs a pass over all groups for
  /// each op joining one (quadratic in the graph's size).
  llvm::SmallVector<int> dependentsOf(int g) const {
    llvm::SmallVector<int> found, work{g};
    llvm::DenseSet<int> seen{g};
    while (!work.empty()) {
      int at = work.pop_back_val();
      for (int reader : readers[at]) {
        int r = holderOf(reader);
        if (seen.insert(r).second) {
          found.push_back(r);
          work.push_back(r);
        }
      }
    }
    return found;
  }

  /// Whether `value` depends on group `g` (addDepsOf would add its bit).
  bool dependsOn(Value value, int g) const {
    if (int h = groupOf(value); h >= 0)
      return g < static_cast<int>(groupDeps[h].size()) && groupDeps[h].test(g);
    Operation *def = value.getDefiningOp();
    return def && llvm::any_of(def->getOperands(),
                               [&](Value operand) { return dependsOn(operand, g); });
  }

  /// Whether adding `op` to group `g` keeps the kernel graph acyclic: no
  /// operand from outside the group may depend on the group.
  bool noCycle(Operation *op, int g) const {
    for (Value operand : op->getOperands())
      if (groupOf(operand) != g && dependsOn(operand, g))
        return false;
    return true;
  }

  /// Adds `op` to group `g`, and what it reads to the dependencies of `g`
  /// and of every group that depends on `g`.
  void join(Operation *op, int g) {
    groups[g].ops.push_back(op);
    groupOfOp[op] = g;
    groupDeps[g].resize(groups.size());
    bool grew = false;
    for (Value operand : op->getOperands())
      if (groupOf(operand) != g)
        grew |= addDepsOf(operand, g);
    if (!grew)
      return;
    for (int h : dependentsOf(g))
      groupDeps[h] |= groupDeps[g];
  }

  int create(Operation *op, FusionKind kind, llvm::ArrayRef<int64_t> shape) {
    Group group;
    group.kind = kind;
    group.shape.assign(shape.begin(), shape.end());
    groups.push_back(std::move(group));
    int g = groups.size() - 1;
    llvm::BitVector self(groups.size());
    self.set(g);
    groupDeps.push_back(std::move(self));
    readers.emplace_back();
    absorbedInto.push_back(-1);
    join(op, g);
    return g;
  }

  /// Whether the GEMM group `group` can take pointwise op `op` as the next
  /// step of its epilogue.
  bool fitsGemmEpilogue(const Group &group, Operation *op) const {
    if (!gemmEpilogues || !group.gemmTail || !group.gemmTail.hasOneUse())
      return false;
    if (auto add = llvm::dyn_cast<AddOp>(op)) {
      if (group.stage != EpilogueStage::None || add.getType() != group.gemmTail.getType())
        return false;
      Value bias = add.getLhs() == group.gemmTail ? add.getRhs() : add.getLhs();
      llvm::ArrayRef<int64_t> out = shapeOf(group.gemmTail);
      return bias != group.gemmTail && shapeOf(bias).size() == 1 &&
             shapeOf(bias)[0] == out.back();
    }
    // cuBLASLt's GELU epilogue is the tanh approximation: exact GELU stays out.
    auto gelu = llvm::dyn_cast<GeluOp>(op);
    if (llvm::isa<ReluOp>(op) || (gelu && gelu.getApproximate()))
      return group.stage < EpilogueStage::Activation &&
             op->getOperand(0) == group.gemmTail;
    // cuBLASLt writes C in a float type only, and adds a bias of C's type
    // only: a cast after a bias stays out when it changes the type.
    if (auto cast = llvm::dyn_cast<CastOp>(op)) {
      Type castElement = cast.getType().getElementType();
      return group.stage < EpilogueStage::Cast && op->getOperand(0) == group.gemmTail &&
             llvm::isa<FloatType>(castElement) &&
             (!group.biasElementType || group.biasElementType == castElement);
    }
    return false;
  }

  /// A state update the GEMM group `g` can compute as it writes its
  /// product: `add(product, mul(state, beta))` or `add(product, state)`,
  /// the sum written back to `state`, with the product of an fp32 matmul
  /// (no epilogue before) an f32 matrix that only this add reads, and beta
  /// a finite splat constant.
  /// SGD's momentum, `momentum = momentum * mu + grad`, whose gradient is a
  /// weight's GEMM. (Not for bf16 or fp16 operands: on the CPU oneDNN's
  /// bf16 GEMMs accumulate with a sum post-op, which cost more than the
  /// update's pass over the gradient saves; fp16 gradients are unscaled and
  /// checked before any update reads them anyway.)
  struct Accumulation {
    int group;
    /// The mul scaling the state, or null for a beta of 1.
    MulOp scale;
  };

  std::optional<Accumulation> accumulationOf(AddOp add) const {
    if (!gemmEpilogues || !add.getType().getElementType().isF32() || add.getType().getRank() != 2)
      return std::nullopt;
    for (auto [product, other] :
         {std::pair{add.getLhs(), add.getRhs()}, std::pair{add.getRhs(), add.getLhs()}}) {
      int g = groupOf(product);
      if (g < 0 || product == other || product.getType() != add.getType())
        continue;
      const Group &group = groups[g];
      if (group.kind != FusionKind::Gemm || group.closed || group.gemmTail != product ||
          !product.hasOneUse() || group.biasElementType || group.stage != EpilogueStage::None ||
          !llvm::isa<MatmulOp>(group.ops.front()) ||
          llvm::any_of(group.ops.front()->getOperands(), [](Value operand) {
            return !llvm::cast<RankedTensorType>(operand.getType()).getElementType().isF32();
          }))
        continue;
      Value state = other;
      auto scale = other.getDefiningOp<MulOp>();
      if (scale) {
        if (!scale->hasOneUse() || scale.getType() != add.getType())
          continue;
        Value factor = isSplatConstant(scale.getRhs()) ? scale.getRhs() : scale.getLhs();
        state = factor == scale.getRhs() ? scale.getLhs() : scale.getRhs();
        if (!isSplatConstant(factor) || isSplatConstant(state))
          continue;
        auto dense = llvm::cast<DenseElementsAttr>(factor.getDefiningOp<ConstantOp>().getValue());
        if (!llvm::isa<FloatType>(dense.getElementType()) ||
            !dense.getSplatValue<APFloat>().isFinite())
          continue;
      }
      bool writtenBack = llvm::any_of(add->getUsers(), [&](Operation *user) {
        auto write = llvm::dyn_cast<StateWriteOp>(user);
        return write && write.getState() == state;
      });
      if (state.getType() != add.getType() ||
          !llvm::isa_and_nonnull<StateOp>(state.getDefiningOp()) || !writtenBack)
        continue;
      return Accumulation{g, scale};
    }
    return std::nullopt;
  }

  /// Puts the mul scaling a state that a GEMM group accumulates into
  /// (accumulationOf) into that group, ahead of the add that joins it next;
  /// or that add, which ends the group's epilogue.
  bool joinAccumulation(Operation *op) {
    if (auto mul = llvm::dyn_cast<MulOp>(op)) {
      if (!mul->hasOneUse())
        return false;
      auto add = llvm::dyn_cast<AddOp>(*mul->getUsers().begin());
      std::optional<Accumulation> accumulation = add ? accumulationOf(add) : std::nullopt;
      if (!accumulation || accumulation->scale != mul)
        return false;
      join(mul, accumulation->group);
      return true;
    }
    auto add = llvm::dyn_cast<AddOp>(op);
    std::optional<Accumulation> accumulation = add ? accumulationOf(add) : std::nullopt;
    if (!accumulation ||
        (accumulation->scale && groupOf(accumulation->scale) != accumulation->group))
      return false;
    Group &group = groups[accumulation->group];
    join(add, accumulation->group);
    group.gemmTail = add.getResult();
    group.stage = EpilogueStage::Accumulate;
    return true;
  }

  /// Whether the convolution group `group` can take pointwise op `op` as
  /// its epilogue: a widening cast (f16/bf16 to f32) of the convolution's
  /// result that nothing else reads, so that its GEMMs write the f32
  /// products, unrounded, as a gemm group's cast epilogue does. (Only
  /// widening: cuBLASLt has no f32-operand product into an f16 C.)
  bool fitsConvEpilogue(const Group &group, Operation *op) const {
    auto cast = llvm::dyn_cast<CastOp>(op);
    if (!gemmEpilogues || !cast || group.stage != EpilogueStage::None || !group.gemmTail ||
        !group.gemmTail.hasOneUse() || cast.getOperand() != group.gemmTail)
      return false;
    Type from = llvm::cast<RankedTensorType>(cast.getOperand().getType()).getElementType();
    return (from.isF16() || from.isBF16()) && cast.getType().getElementType().isF32();
  }

  /// Tries to add pointwise `op` to the group producing one of its operands.
  bool joinPointwise(Operation *op) {
    llvm::ArrayRef<int64_t> shape = shapeOf(op->getResult(0));
    for (Value operand : op->getOperands()) {
      int g = groupOf(operand);
      if (g < 0 || groups[g].closed || !noCycle(op, g))
        continue;
      Group &group = groups[g];
      switch (group.kind) {
      case FusionKind::Pointwise:
        if (!pointwiseFusion || group.shape != shape)
          continue;
        break;
      case FusionKind::Reduction:
        if (!pointwiseFusion || group.shape != shape || llvm::any_of(op->getOperands(), [&](Value v) {
              return groupOf(v) == g && !group.epilogue.contains(v.getDefiningOp());
            }))
          continue;
        group.epilogue.insert(op);
        break;
      case FusionKind::Conv:
        if (!fitsConvEpilogue(group, op))
          continue;
        group.gemmTail = op->getResult(0);
        group.stage = EpilogueStage::Cast;
        break;
      case FusionKind::Gemm:
        if (!fitsGemmEpilogue(group, op))
          continue;
        group.gemmTail = op->getResult(0);
        if (llvm::isa<AddOp>(op))
          group.biasElementType = llvm::cast<RankedTensorType>(op->getResult(0).getType())
                                      .getElementType();
        group.stage = llvm::isa<AddOp>(op)                 ? EpilogueStage::Bias
                      : llvm::isa<ReluOp, GeluOp>(op)      ? EpilogueStage::Activation
                                                           : EpilogueStage::Cast;
        break;
      default:
        continue;
      }
      join(op, g);
      if (group.kind == FusionKind::Pointwise || group.kind == FusionKind::Reduction)
        absorbProducers(op, g);
      return true;
    }
    return false;
  }

  /// After pointwise `op` joined group `g` (pointwise, or a reduction's
  /// epilogue): a pointwise group of the same shape (for a reduction, its
  /// result's) that produces another of its operands, and whose values no
  /// third group reads, becomes part of `g` (it would otherwise be a kernel
  /// of its own writing a buffer `g` reads back), unless a third group lies
  /// between them. Its values that ops outside the two read (outputs, state
  /// writes, ops placed later) become results of the merged kernel; a later
  /// op reading one of them can only depend on the merged group, so no
  /// cycle follows. This puts Adam's moment updates (new moments written to
  /// state, the step read by the parameter's update) in one kernel, and the
  /// loss scale's candidate next values (grown, backed off) in the epilogue
  /// of the overflow check that picks one.
  void absorbProducers(Operation *op, int g) {
    for (Value operand : op->getOperands()) {
      int h = groupOf(operand);
      if (h < 0 || h == g)
        continue;
      Group &producer = groups[h];
      if (producer.kind != FusionKind::Pointwise || producer.closed ||
          producer.shape != groups[g].shape || producer.ops.empty())
        continue;
      bool noThirdGroupReads = llvm::all_of(producer.ops, [&](Operation *member) {
        return llvm::all_of(member->getUsers(), [&](Operation *user) {
          auto it = groupOfOp.find(user);
          return it == groupOfOp.end() || it->second == h || it->second == g;
        });
      });
      if (!noThirdGroupReads)
        continue;
      // A reduction's epilogue computes once per output: values its
      // reduction or prologue reads (once per input element) stay out.
      if (groups[g].kind == FusionKind::Reduction &&
          llvm::any_of(producer.ops, [&](Operation *member) {
            return llvm::any_of(member->getUsers(), [&](Operation *user) {
              auto it = groupOfOp.find(user);
              return it != groupOfOp.end() && it->second == g &&
                     (!groups[g].epilogue.contains(user) ||
                      llvm::isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp>(user));
            });
          }))
        continue;
      // A third group depending on one of the two that the other depends
      // on. (The walks give groups that hold ops: one absorbed earlier is
      // empty, and its bits stand for the group that took its ops, whose
      // own bit its dependants carry.)
      auto has = [&](int of, int bit) {
        return groupDeps[of].size() > static_cast<size_t>(bit) && groupDeps[of].test(bit);
      };
      llvm::SmallVector<int> dependentsOfProducer = dependentsOf(h);
      bool between =
          llvm::any_of(dependentsOfProducer, [&](int k) { return k != g && has(g, k); }) ||
          llvm::any_of(dependentsOf(g), [&](int k) { return k != h && has(h, k); });
      if (between)
        continue;
      for (Operation *member : producer.ops) {
        groupOfOp[member] = g;
        groups[g].ops.push_back(member);
        // (in a reduction, values the epilogue's later ops may read)
        if (groups[g].kind == FusionKind::Reduction)
          groups[g].epilogue.insert(member);
      }
      producer.ops.clear();
      producer.closed = true;
      llvm::sort(groups[g].ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
      groupDeps[h].resize(groups.size());
      groupDeps[g].resize(groups.size());
      groupDeps[g] |= groupDeps[h];
      // What depended on the producer (g among them, as it reads it) now
      // depends on what the merged group does; its readers read g.
      for (int k : dependentsOfProducer)
        groupDeps[k] |= groupDeps[g];
      for (int reader : readers[h])
        if (holderOf(reader) != g)
          readers[g].insert(reader);
      readers[h].clear();
      absorbedInto[h] = g;
    }
  }

  /// A reduction absorbs the pointwise group producing its operand when
  /// nothing else reads that group.
  bool joinAsPrologue(Operation *reduce) {
    Value operand = reduce->getOperand(0);
    int g = groupOf(operand);
    if (!pointwiseFusion || g < 0 || groups[g].kind != FusionKind::Pointwise ||
        groups[g].closed || !noCycle(reduce, g))
      return false;
    for (Operation *member : groups[g].ops)
      for (Operation *user : member->getUsers())
        if (user != reduce && !llvm::is_contained(groups[g].ops, user))
          return false;
    Group &group = groups[g];
    group.kind = FusionKind::Reduction;
    auto result = shapeOf(reduce->getResult(0));
    group.shape.assign(result.begin(), result.end());
    group.epilogue.insert(reduce);
    join(reduce, g);
    return true;
  }

  /// Whether `value`, computed in group `g`, holds a value of `narrow`
  /// exactly in the kernel's registers. Pointwise kernels keep intermediate
  /// values in f32 and round them only when they store them, so only a
  /// value read from memory as `narrow`, zero, or a choice among such
  /// values (select, relu, neg, abs, maximum, minimum) is one the stored
  /// copy reproduces; widening anything else from memory would change it.
  bool holdsNarrowValue(Value value, FloatType narrow, int g, int depth) const {
    auto typeOk = [&](Value v) {
      return llvm::cast<RankedTensorType>(v.getType()).getElementType() == narrow;
    };
    Operation *def = value.getDefiningOp();
    if (auto constant = llvm::dyn_cast_or_null<ConstantOp>(def)) {
      auto dense = llvm::dyn_cast<DenseElementsAttr>(constant.getValue());
      return dense && dense.isSplat() && llvm::isa<FloatType>(dense.getElementType()) &&
             dense.getSplatValue<APFloat>().isZero();
    }
    if (!def || groupOf(value) != g)
      return typeOk(value); // read from memory, stored as its type
    if (depth > 8 || !typeOk(value))
      return false;
    auto holds = [&](Value operand) { return holdsNarrowValue(operand, narrow, g, depth + 1); };
    if (auto select = llvm::dyn_cast<SelectOp>(def))
      return holds(select.getOperand(1)) && holds(select.getOperand(2));
    if (llvm::isa<ReluOp, NegOp, AbsOp>(def))
      return holds(def->getOperand(0));
    if (llvm::isa<MaximumOp, MinimumOp>(def))
      return holds(def->getOperand(0)) && holds(def->getOperand(1));
    return false;
  }

  /// A reduction whose operand is a widening float cast (f16/bf16 to f32)
  /// that only it reads, in a pointwise group that others read too (so that
  /// joinAsPrologue cannot take the whole group), takes the cast out of that
  /// group as its prologue. The group then writes only the narrow value
  /// (which others read anyway), and the reduction widens it as it reads,
  /// instead of the group also writing a wide copy for the reduction to
  /// read back. Only when the group holds the narrow value exactly
  /// (holdsNarrowValue): the values are then the same.
  bool takeWideningCast(Operation *reduce) {
    auto cast = reduce->getOperand(0).getDefiningOp<CastOp>();
    if (!pointwiseFusion || !cast || !cast->hasOneUse())
      return false;
    int g = groupOf(cast.getResult());
    if (g < 0 || groups[g].kind != FusionKind::Pointwise || groups[g].ops.size() < 2)
      return false;
    auto from = llvm::dyn_cast<FloatType>(
        llvm::cast<RankedTensorType>(cast.getOperand().getType()).getElementType());
    auto to = llvm::dyn_cast<FloatType>(cast.getType().getElementType());
    if (!from || !to || from.getWidth() >= to.getWidth() ||
        !holdsNarrowValue(cast.getOperand(), from, g, 0))
      return false;
    llvm::erase(groups[g].ops, cast.getOperation());
    groupOfOp.erase(cast);
    int r = create(cast, FusionKind::Reduction, shapeOf(reduce->getResult(0)));
    groups[r].epilogue.insert(reduce);
    join(reduce, r);
    return true;
  }

  void place(Operation *op) {
    if (isPointwiseOp(op)) {
      if (!joinAccumulation(op) && !joinPointwise(op))
        create(op, FusionKind::Pointwise, shapeOf(op->getResult(0)));
      return;
    }
    if (llvm::isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp>(op)) {
      if (!joinAsPrologue(op) && !takeWideningCast(op)) {
        int g = create(op, FusionKind::Reduction, shapeOf(op->getResult(0)));
        groups[g].epilogue.insert(op);
      }
      return;
    }
    // A convolution's group takes a cast epilogue only (fitsConvEpilogue).
    if (llvm::isa<MatmulOp, BatchMatmulOp, Conv2DOp>(op)) {
      int g = create(op, llvm::isa<Conv2DOp>(op) ? FusionKind::Conv : FusionKind::Gemm,
                     shapeOf(op->getResult(0)));
      groups[g].gemmTail = op->getResult(0);
      return;
    }
    FusionKind kind = llvm::isa<SoftmaxOp, LogSoftmaxOp, LayerNormOp, SoftmaxCrossEntropyOp,
                                SoftmaxCrossEntropyGradOp>(op)
                          ? FusionKind::Row
                          : FusionKind::Single;
    int g = create(op, kind, shapeOf(op->getResult(0)));
    groups[g].closed = true;
  }

  bool gemmEpilogues, pointwiseFusion;
  std::vector<Group> groups;
  llvm::DenseMap<Operation *, int> groupOfOp;
  /// Per group: the groups it depends on, itself included, transitively.
  std::vector<llvm::BitVector> groupDeps;
  /// Per group: the groups with an op that reads one of its values
  /// (directly, or through structural ops), the edges dependentsOf walks.
  std::vector<llvm::SetVector<int, llvm::SmallVector<int, 4>, llvm::SmallDenseSet<int, 4>>>
      readers;
  /// Per group: the group that absorbed it, or -1.
  std::vector<int> absorbedInto;
};

/// Replaces the ops of `group` by one mpg.fusion op at the end of `body`.
void materialize(Group &group, Block &body) {
  llvm::SmallPtrSet<Operation *, 16> members(group.ops.begin(), group.ops.end());
  llvm::SetVector<Value> inputs;
  llvm::SetVector<Value> results;
  llvm::SetVector<Operation *> clonedConstants;
  for (Operation *op : group.ops) {
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && members.contains(def))
        continue;
      // Kernels with a scalar body take splat constants as literals.
      // (A constant the reduction itself reduces is a buffer it reads.)
      // (So does a GEMM's accumulation: its beta is an attribute.)
      bool scalarBody = group.kind == FusionKind::Pointwise ||
                        (group.kind == FusionKind::Reduction &&
                         !llvm::isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp>(op)) ||
                        (group.kind == FusionKind::Gemm && llvm::isa<MulOp>(op));
      if (scalarBody && isSplatConstant(operand))
        clonedConstants.insert(def);
      else
        inputs.insert(operand);
    }
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(),
                       [&](Operation *user) { return !members.contains(user); }))
        results.insert(result);
  }

  if (results.empty()) {
    // Nothing reads the group: its ops are pure, so they go.
    for (Operation *op : llvm::reverse(group.ops))
      op->erase();
    return;
  }

  OpBuilder builder = OpBuilder::atBlockEnd(&body);
  llvm::SmallVector<Type> resultTypes;
  for (Value result : results)
    resultTypes.push_back(result.getType());
  auto fusion = builder.create<FusionOp>(group.ops.front()->getLoc(), group.kind,
                                         inputs.getArrayRef(), resultTypes);
  Block &inner = fusion.getBody().front();
  IRMapping mapping;
  for (auto [input, arg] : llvm::zip(inputs, inner.getArguments()))
    mapping.map(input, arg);
  builder.setInsertionPointToStart(&inner);
  for (Operation *constant : clonedConstants)
    builder.clone(*constant, mapping);
  for (Operation *op : group.ops)
    builder.clone(*op, mapping);
  llvm::SmallVector<Value> yielded;
  for (Value result : results)
    yielded.push_back(mapping.lookup(result));
  builder.create<YieldOp>(fusion.getLoc(), yielded);

  for (auto [original, replacement] : llvm::zip(results, fusion.getResults())) {
    Value result = original;
    result.replaceUsesWithIf(replacement, [&](OpOperand &use) {
      return !members.contains(use.getOwner());
    });
  }
  for (Operation *op : llvm::reverse(group.ops))
    op->erase();
}

/// Erases compute ops nothing reads, last first, so that whole dead chains
/// go (their kernels would run every step for nothing). A keyed dropout is
/// a function of its operands too (only an unkeyed one is not pure, which
/// the pipeline keys or removes before fusion).
void removeDeadOps(Block &body) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body))) {
    auto dropout = llvm::dyn_cast<DropoutOp>(op);
    bool pure = isPure(&op) || (dropout && dropout.isKeyed());
    if (!isStructural(&op) && op.use_empty() && pure)
      op.erase();
  }
}

/// State writes are copies at the end of the step, and outputs are read
/// after it. An output of a parameter or state that the step writes, or a
/// write whose value is another persistent tensor the step writes (a swap),
/// would then see the new value: such reads go through an identity kernel
/// (mpg.broadcast_to to the same type) that copies the value at the start of
/// the step into the arena.
void snapshotWrittenPersistentValues(Block &body) {
  llvm::DenseSet<Value> written;
  for (auto write : body.getOps<StateWriteOp>())
    written.insert(write.getState());
  if (written.empty())
    return;
  llvm::DenseMap<Value, Value> snapshots;
  auto snapshot = [&](Value value) -> Value {
    Value &copy = snapshots[value];
    if (!copy) {
      OpBuilder builder = OpBuilder::atBlockBegin(&body);
      builder.setInsertionPointAfterValue(value);
      copy = builder.create<BroadcastToOp>(value.getLoc(), value.getType(), value);
    }
    return copy;
  };
  for (Operation &op : body) {
    if (auto output = llvm::dyn_cast<OutputOp>(op)) {
      if (written.contains(output.getValue()))
        output.getValueMutable().assign(snapshot(output.getValue()));
    } else if (auto write = llvm::dyn_cast<StateWriteOp>(op)) {
      if (written.contains(write.getValue()))
        write.getValueMutable().assign(snapshot(write.getValue()));
    }
  }
}

/// Reorders the ops of `body` so that every op comes after the ops whose
/// results it (or an op nested in it) uses, in the order of repeated sweeps
/// over the ops that moves each ready op to the end of the sorted ones
/// (mlir::sortTopologically's order), computed without the sweeps: an op is
/// placed in the first sweep after each of its dependencies' sweeps, or in
/// the same sweep when the dependency comes first; ops are then ordered by
/// sweep, and by their place within one. Linear in the ops (but for sorting
/// them), where the sweeps are quadratic on a long graph. False when the
/// dependencies have a cycle.
bool sortByDependencies(Block &body) {
  std::vector<Operation *> ops;
  llvm::DenseMap<Operation *, unsigned> index;
  for (Operation &op : body) {
    index[&op] = ops.size();
    ops.push_back(&op);
  }
  std::vector<llvm::SmallVector<unsigned>> users(ops.size()), deps(ops.size());
  std::vector<unsigned> pending(ops.size(), 0);
  for (auto [i, op] : llvm::enumerate(ops)) {
    llvm::SmallPtrSet<Operation *, 8> seen;
    op->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && def->getBlock() == &body && def != op && seen.insert(def).second) {
          users[index[def]].push_back(i);
          deps[i].push_back(index[def]);
        }
    });
    pending[i] = deps[i].size();
  }
  // Sweeps, in a dependency order (Kahn's algorithm).
  std::vector<unsigned> ready, sweep(ops.size(), 0);
  for (unsigned i = 0; i < ops.size(); ++i)
    if (pending[i] == 0)
      ready.push_back(i);
  size_t placed = 0;
  while (!ready.empty()) {
    unsigned i = ready.back();
    ready.pop_back();
    ++placed;
    for (unsigned d : deps[i])
      sweep[i] = std::max(sweep[i], sweep[d] + (d > i ? 1u : 0u));
    for (unsigned user : users[i])
      if (--pending[user] == 0)
        ready.push_back(user);
  }
  if (placed != ops.size())
    return false;
  std::vector<unsigned> order(ops.size());
  for (unsigned i = 0; i < ops.size(); ++i)
    order[i] = i;
  llvm::stable_sort(order, [&](unsigned a, unsigned b) { return sweep[a] < sweep[b]; });
  for (unsigned i : order)
    body.getOperations().splice(body.end(), body.getOperations(), ops[i]->getIterator());
  return true;
}

/// Moves every finite check to just before the first op that reads it (the
/// group that combines them), keeping their order: they then follow each
/// other, and the code generator launches them together. Moving a pure op
/// later, before its first user, keeps every dependency.
void sinkFiniteChecks(Block &body) {
  llvm::SmallVector<Operation *> checks;
  for (Operation &op : body)
    if (auto fusion = llvm::dyn_cast<FusionOp>(op); fusion && mpc::isFiniteCheck(fusion))
      checks.push_back(&op);
  for (Operation *check : checks) {
    Operation *firstUser = nullptr;
    for (Operation *user : check->getUsers()) {
      Operation *top = body.findAncestorOpInBlock(*user);
      if (top && (!firstUser || top->isBeforeInBlock(firstUser)))
        firstUser = top;
    }
    if (firstUser)
      check->moveBefore(firstUser);
  }
}

struct MpgFusePass : mpc::impl::MpgFuseBase<MpgFusePass> {
  using MpgFuseBase::MpgFuseBase;

  void runOnOperation() override {
    Block &body = getOperation().getBody().front();
    removeDeadOps(body);
    snapshotWrittenPersistentValues(body);
    FusionPlanner planner(gemmEpilogues, pointwiseFusion);
    planner.plan(body);
    for (Group &group : planner.getGroups())
      materialize(group, body);
    // Groups were appended at the end; put every op after its operands again.
    if (!sortByDependencies(body)) {
      getOperation().emitError("internal error: fusion created a cycle between kernels");
      return signalPassFailure();
    }
    if (groupFiniteChecks)
      sinkFiniteChecks(body);
    // Splat constants now cloned into every group that used them.
    for (Operation &op : llvm::make_early_inc_range(body))
      if (llvm::isa<ConstantOp>(op) && op.use_empty())
        op.erase();
  }
};

} // namespace
