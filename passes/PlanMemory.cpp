//===- PlanMemory.cpp - arena and persistent memory plan of a step --------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Collects the buffers of a fused graph with their live ranges, lets the
// arena planner (MemoryPlanning/ArenaPlanner) place them, and records the
// offsets as attributes for the conversion to mpk.
//
//===----------------------------------------------------------------------===//

#include "passes/MemoryPlanning/ArenaPlanner.h"
#include "passes/MemoryPlanning/MemoryPlanSupport.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

namespace mpc {
#define GEN_PASS_DEF_MPGPLANMEMORY
#include "passes/Passes.h.inc"
} // namespace mpc

using namespace mlir;
using namespace mlir::mpg;

int64_t mpc::bufferBytes(Type type) {
  auto tensor = llvm::cast<ShapedType>(type);
  unsigned bits = tensor.getElementType().getIntOrFloatBitWidth();
  int64_t elementBytes = bits == 1 ? 1 : static_cast<int64_t>(bits) / 8;
  return std::max<int64_t>(tensor.getNumElements() * elementBytes, 1);
}

bool mpc::isParameterUpdate(FusionOp fusion) {
  return fusion.getKind() == FusionKind::Pointwise &&
         llvm::all_of(fusion.getResults(), [](Value result) {
           return !result.use_empty() && llvm::all_of(result.getUsers(), [](Operation *user) {
             return llvm::isa<StateWriteOp>(user);
           });
         });
}

/// The runs of two or more consecutive fusion groups of `body` that
/// `isMember` accepts (ops that are not fusion groups do not break a run).
template <typename IsMember>
static llvm::SmallVector<llvm::SmallVector<FusionOp>> consecutiveRuns(Block &body,
                                                                      IsMember isMember) {
  llvm::SmallVector<llvm::SmallVector<FusionOp>> runs(1);
  for (Operation &op : body) {
    auto fusion = llvm::dyn_cast<FusionOp>(op);
    if (!fusion)
      continue;
    if (isMember(fusion))
      runs.back().push_back(fusion);
    else if (!runs.back().empty())
      runs.emplace_back();
  }
  llvm::erase_if(runs, [](const auto &run) { return run.size() < 2; });
  return runs;
}

llvm::SmallVector<llvm::SmallVector<FusionOp>> mpc::parameterUpdateRuns(Block &body) {
  return consecutiveRuns(body, isParameterUpdate);
}

Operation *mpc::reductionAnchor(FusionOp fusion) {
  if (fusion.getKind() != FusionKind::Reduction)
    return nullptr;
  for (Operation &op : fusion.getBody().front().without_terminator())
    if (llvm::isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp>(op))
      return &op;
  return nullptr;
}

llvm::SetVector<Operation *> mpc::opsComputing(Block &body, ValueRange values) {
  llvm::SetVector<Operation *> ops;
  llvm::SmallVector<Value> worklist(values.begin(), values.end());
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != &body || !ops.insert(def))
      continue;
    worklist.append(def->operand_begin(), def->operand_end());
  }
  return ops;
}

bool mpc::isFiniteCheck(FusionOp fusion) {
  if (fusion.getKind() != FusionKind::Reduction || fusion.getInputs().size() != 1 ||
      fusion->getNumResults() != 1 ||
      llvm::cast<RankedTensorType>(fusion->getResult(0).getType()).getRank() != 0)
    return false;
  bool marked = false;
  fusion.getBody().walk(
      [&](Operation *inner) { marked |= inner->hasAttr(mlir::mpg::kFiniteCheckAttr); });
  return marked;
}

llvm::SmallVector<llvm::SmallVector<FusionOp>> mpc::multiTensorRuns(Block &body) {
  llvm::SmallVector<llvm::SmallVector<FusionOp>> runs = parameterUpdateRuns(body);
  for (auto &run : consecutiveRuns(body, isFiniteCheck))
    runs.push_back(std::move(run));
  return runs;
}

int64_t mpc::scratchBytes(FusionOp fusion) {
  for (Operation &op : fusion.getBody().front()) {
    if (auto conv = llvm::dyn_cast<Conv2DOp>(op)) {
      // Columns [N, C * kH * kW, Ho * Wo] in the input's element type.
      auto in = conv.getInput().getType(), filter = conv.getFilter().getType();
      auto out = conv.getType();
      int64_t elements = in.getDimSize(0) * in.getDimSize(1) * filter.getDimSize(2) *
                         filter.getDimSize(3) * out.getDimSize(2) * out.getDimSize(3);
      return elements * (in.getElementType().getIntOrFloatBitWidth() / 8);
    }
    if (auto grad = llvm::dyn_cast<Conv2DGradInputOp>(op)) {
      // Columns [N, C * kH * kW, Ho * Wo] in the compute type.
      auto dx = grad.getType(), dy = grad.getGradOutput().getType();
      auto filter = grad.getFilter().getType();
      int64_t elements = dx.getDimSize(0) * dx.getDimSize(1) * filter.getDimSize(2) *
                         filter.getDimSize(3) * dy.getDimSize(2) * dy.getDimSize(3);
      return elements * (dx.getElementType().isF64() ? 8 : 4);
    }
    if (auto grad = llvm::dyn_cast<Conv2DGradFilterOp>(op)) {
      // The input's columns, then partial sums [N, O, C / G * kH * kW] in
      // the compute type.
      auto in = grad.getInput().getType(), dy = grad.getGradOutput().getType();
      auto dw = grad.getType();
      int64_t area = dw.getDimSize(2) * dw.getDimSize(3);
      int64_t columns = in.getDimSize(0) * in.getDimSize(1) * area * dy.getDimSize(2) *
                        dy.getDimSize(3) * (in.getElementType().getIntOrFloatBitWidth() / 8);
      int64_t partials = in.getDimSize(0) * dw.getNumElements() *
                         (dw.getElementType().isF64() ? 8 : 4);
      return static_cast<int64_t>(llvm::alignTo(columns, kScratchPartAlignment)) + partials;
    }
    if (auto attention = llvm::dyn_cast<AttentionOp>(op)) {
      // What the kernel writes and nothing reads: the log-sum-exp (f32 per
      // query) in a forward program, then the output when only the
      // log-sum-exp is read.
      int64_t bytes = 0;
      if (attention.getLse().use_empty())
        bytes = static_cast<int64_t>(llvm::alignTo(
            attention.getLse().getType().getNumElements() * 4, kScratchPartAlignment));
      if (attention.getResult().use_empty()) {
        RankedTensorType out = attention.getResult().getType();
        bytes += out.getNumElements() * (out.getElementTypeBitWidth() / 8);
      }
      return bytes;
    }
    if (auto grad = llvm::dyn_cast<AttentionGradOp>(op)) {
      // The keys' or the values' gradient that nothing reads while the
      // other is (one kernel writes both).
      bool keyRead = !grad.getGradKey().use_empty(), valueRead = !grad.getGradValue().use_empty();
      if (keyRead == valueRead)
        return 0;
      auto unread = (keyRead ? grad.getGradValue() : grad.getGradKey()).getType();
      return unread.getNumElements() * (unread.getElementTypeBitWidth() / 8);
    }
    if (auto xent = llvm::dyn_cast<SoftmaxCrossEntropyOp>(op)) {
      // One loss per row, in the compute type (f64 for f64 logits, else f32).
      auto logits = xent.getLogits().getType();
      int64_t bytes = logits.getElementType().isF64() ? 8 : 4;
      return logits.getDimSize(0) * bytes;
    }
  }
  return 0;
}

Value mpc::storageRoot(Value value) {
  while (auto reshape = value.getDefiningOp<ReshapeOp>())
    value = reshape.getOperand();
  return value;
}

namespace {

struct MpgPlanMemoryPass : mpc::impl::MpgPlanMemoryBase<MpgPlanMemoryPass> {
  using MpgPlanMemoryBase::MpgPlanMemoryBase;

  void runOnOperation() override {
    GraphOp graph = getOperation();
    Block &body = graph.getBody().front();
    if (alignment <= 0 || (alignment & (alignment - 1)) != 0) {
      graph.emitError() << "mpg-plan-memory: alignment must be a power of two, got "
                        << static_cast<int64_t>(alignment);
      return signalPassFailure();
    }
    for (Operation &op : body)
      if (!llvm::isa<InputOp, ParamOp, StateOp, ConstantOp, OutputOp, MinimizeOp, StateWriteOp,
                     ReshapeOp, FusionOp>(op)) {
        op.emitError() << "mpg-plan-memory expects a fused graph (run mpg-fuse first); '"
                       << op.getName() << "' is outside any fusion group";
        return signalPassFailure();
      }

    // Every buffer's byte size must fit in 64 bits before offsets are summed.
    for (Operation &op : body)
      for (Value result : op.getResults()) {
        auto type = llvm::cast<RankedTensorType>(result.getType());
        std::optional<int64_t> bytes = 1;
        for (int64_t dim : type.getShape())
          if (bytes)
            bytes = llvm::checkedMul(*bytes, dim);
        if (bytes)
          bytes = llvm::checkedMul(*bytes, int64_t(8));
        if (!bytes) {
          op.emitError() << "mpg-plan-memory: the size of " << type
                         << " overflows 64-bit byte offsets";
          return signalPassFailure();
        }
      }

    Builder builder(graph.getContext());
    planPersistent(body, builder, graph);
    llvm::DenseMap<Value, int64_t> inState;
    if (stateInPlace)
      inState = planStateInPlace(body, builder);
    planArena(body, builder, graph, inState);
  }

  /// The values written to state whose group may write them in the state's
  /// own memory, with that memory's offset; records them on their groups
  /// (mpg.state_offsets). A value qualifies when a pointwise group computes
  /// it for the state write alone, or a GEMM group accumulates it into the
  /// state (`mpg-fuse`'s accumulate epilogue, whose value later groups may
  /// read too: they read the state's memory), with the state's type, and
  /// nothing reads the state's old value later: every other reader of the
  /// state comes before the group's launch (the start of its multi-tensor
  /// run, whose members run together), and the group itself reads it
  /// directly (at the element it writes), not through a view.
  static llvm::DenseMap<Value, int64_t> planStateInPlace(Block &body, Builder &builder) {
    llvm::DenseMap<Operation *, int64_t> position;
    int64_t end = 0;
    for (Operation &op : body)
      position[&op] = end++;
    llvm::DenseMap<Operation *, int64_t> launch;
    for (const auto &run : mpc::parameterUpdateRuns(body))
      for (FusionOp member : run)
        launch[member] = position[run.front()];
    llvm::DenseMap<Value, int64_t> inState;
    for (auto write : body.getOps<StateWriteOp>()) {
      Value value = write.getValue(), state = write.getState();
      auto fusion = value.getDefiningOp<FusionOp>();
      Operation *stateDef = state.getDefiningOp();
      bool qualifies =
          fusion && ((fusion.getKind() == FusionKind::Pointwise && value.hasOneUse()) ||
                     (fusion.getKind() == FusionKind::Gemm && accumulatesInto(fusion, state)));
      if (!qualifies || value.getType() != state.getType() || !stateDef ||
          !stateDef->hasAttr(mlir::mpg::kPersistentOffsetAttr) || inState.count(value))
        continue;
      int64_t start = launch.count(fusion) ? launch[fusion] : position[fusion];
      bool oldValueDead = llvm::all_of(state.getUsers(), [&](Operation *user) {
        if (user == write.getOperation() || user == fusion.getOperation())
          return true;
        // A view's readers read the old value too; outputs read after the step.
        return !llvm::isa<ReshapeOp, OutputOp, StateWriteOp>(user) && position[user] < start;
      });
      if (!oldValueDead)
        continue;
      inState[value] =
          stateDef->getAttrOfType<IntegerAttr>(mlir::mpg::kPersistentOffsetAttr).getInt();
    }
    for (Operation &op : body) {
      auto fusion = llvm::dyn_cast<FusionOp>(op);
      if (!fusion || llvm::none_of(fusion.getResults(),
                                   [&](Value result) { return inState.count(result); }))
        continue;
      llvm::SmallVector<int64_t> offsets;
      for (Value result : fusion.getResults())
        offsets.push_back(inState.count(result) ? inState[result] : -1);
      fusion->setAttr(mlir::mpg::kStateOffsetsAttr, builder.getDenseI64ArrayAttr(offsets));
    }
    return inState;
  }

  /// Whether GEMM group `fusion` ends in an accumulation into `state`: its
  /// yielded value adds the product to `state` read directly (an input of
  /// the group), or scaled by a mul, and the product does not read `state`
  /// (a GEMM reads whole rows and columns of its operands, not just the
  /// element it writes).
  static bool accumulatesInto(FusionOp fusion, Value state) {
    Block &body = fusion.getBody().front();
    auto isState = [&](Value value) { // (inside the group: the argument of that input)
      auto arg = llvm::dyn_cast<BlockArgument>(value);
      return arg && fusion.getInputs()[arg.getArgNumber()] == state;
    };
    for (Operation &op : body.without_terminator())
      if (llvm::isa<MatmulOp, BatchMatmulOp>(op) && llvm::any_of(op.getOperands(), isState))
        return false;
    auto add = llvm::cast<YieldOp>(body.getTerminator()).getValues()[0].getDefiningOp<AddOp>();
    if (!add)
      return false;
    auto readsState = [&](Value value) {
      auto mul = value.getDefiningOp<MulOp>();
      return mul ? llvm::any_of(mul->getOperands(), isState) : isState(value);
    };
    return readsState(add.getLhs()) || readsState(add.getRhs());
  }

  void planPersistent(Block &body, Builder &builder, GraphOp graph) {
    int64_t offset = 0;
    for (Operation &op : body) {
      bool persistent = llvm::isa<ParamOp, StateOp>(op) ||
                        (llvm::isa<ConstantOp>(op) && !op.use_empty());
      if (!persistent)
        continue;
      op.setAttr(mlir::mpg::kPersistentOffsetAttr, builder.getI64IntegerAttr(offset));
      offset += static_cast<int64_t>(llvm::alignTo(mpc::bufferBytes(op.getResult(0).getType()), alignment));
    }
    graph->setAttr(mlir::mpg::kPersistentBytesAttr, builder.getI64IntegerAttr(offset));
  }

  void planArena(Block &body, Builder &builder, GraphOp graph,
                 const llvm::DenseMap<Value, int64_t> &inState) {
    llvm::DenseMap<Operation *, int64_t> position;
    int64_t end = 0;
    for (Operation &op : body)
      position[&op] = end++;

    // One request per transient value, in schedule order.
    llvm::MapVector<Value, size_t> requestOf;
    std::vector<mpc::planning::BufferRequest> requests;
    for (Operation &op : body) {
      if (!llvm::isa<InputOp, FusionOp>(op))
        continue;
      for (Value result : op.getResults()) {
        if (inState.count(result))
          continue;
        requestOf[result] = requests.size();
        // (every input is written before the step begins, so all of them
        // are live from its start together: an input that nothing reads
        // must not share bytes with another)
        int64_t firstUse = llvm::isa<InputOp>(op) ? 0 : position[&op];
        requests.push_back(
            {mpc::bufferBytes(result.getType()), firstUse, position[&op], std::nullopt});
      }
    }
    // Live ranges: the last reader of the value or of any view of it;
    // outputs and the loss stay until the end of the step.
    for (Operation &op : body)
      for (Value operand : op.getOperands()) {
        auto it = requestOf.find(mpc::storageRoot(operand));
        if (it == requestOf.end())
          continue;
        // Outputs, the loss and state writes (copied when the step ends)
        // stay live to the end.
        int64_t last =
            llvm::isa<OutputOp, MinimizeOp, StateWriteOp>(op) ? end : position[&op];
        requests[it->second].lastUse = std::max(requests[it->second].lastUse, last);
      }
    // Consecutive parameter updates (pointwise groups whose results all go
    // to persistent state), and consecutive finite checks, run as one
    // multi-tensor launch, so what any of them reads stays live until the
    // last of them has run.
    for (const auto &run : mpc::multiTensorRuns(body))
      for (FusionOp update : run)
        for (Value operand : update.getInputs())
          if (auto it = requestOf.find(mpc::storageRoot(operand)); it != requestOf.end())
            requests[it->second].lastUse =
                std::max(requests[it->second].lastUse, position[run.back()]);
    if (inPlace)
      addInPlaceHints(body, requestOf, requests);
    // Scratch memory that a group needs while it runs (im2col columns, the
    // per-row losses of a cross-entropy before their mean).
    llvm::MapVector<Operation *, size_t> scratchOf;
    for (Operation &op : body)
      if (auto fusion = llvm::dyn_cast<FusionOp>(op))
        if (int64_t bytes = mpc::scratchBytes(fusion)) {
          scratchOf[&op] = requests.size();
          requests.push_back({bytes, position[&op], position[&op], std::nullopt});
        }

    if (std::optional<std::string> error = mpc::planning::checkArenaRequests(requests, alignment)) {
      graph.emitError() << "internal error in mpg-plan-memory: " << *error;
      return signalPassFailure();
    }
    mpc::planning::ArenaPlan plan = mpc::planning::planArena(requests, alignment);

    for (Operation &op : body) {
      if (!llvm::isa<InputOp, FusionOp>(op))
        continue;
      llvm::SmallVector<int64_t> offsets;
      for (Value result : op.getResults()) {
        auto it = requestOf.find(result);
        offsets.push_back(it == requestOf.end() ? -1 : plan.offsets[it->second]);
      }
      op.setAttr(mlir::mpg::kArenaOffsetsAttr, builder.getDenseI64ArrayAttr(offsets));
      auto scratch = scratchOf.find(&op);
      if (scratch != scratchOf.end())
        op.setAttr(mlir::mpg::kScratchOffsetAttr,
                   builder.getI64IntegerAttr(plan.offsets[scratch->second]));
    }
    graph->setAttr(mlir::mpg::kArenaBytesAttr, builder.getI64IntegerAttr(plan.arenaBytes));
    if (report)
      graph.emitRemark()
          << "arena " << plan.arenaBytes << " bytes (peak live " << plan.peakLiveBytes
          << ", without reuse " << plan.sumOfSizes << "), persistent "
          << llvm::cast<IntegerAttr>(graph->getAttr(mlir::mpg::kPersistentBytesAttr)).getInt()
          << " bytes";
  }

  /// A group that is one all-reduce.
  static bool isAllReduce(FusionOp fusion) {
    return fusion.getKind() == FusionKind::Single &&
           llvm::isa<AllReduceOp>(fusion.getBody().front().front());
  }

  /// A pointwise group may write a result over an input of the same shape
  /// and element size (identity indexing) that it reads for the last time,
  /// and an all-reduce reduces such an input in place.
  /// Views are excluded: their storage is read under another shape.
  static void addInPlaceHints(Block &body, llvm::MapVector<Value, size_t> &requestOf,
                              std::vector<mpc::planning::BufferRequest> &requests) {
    for (Operation &op : body) {
      auto fusion = llvm::dyn_cast<FusionOp>(op);
      if (!fusion || (fusion.getKind() != FusionKind::Pointwise && !isAllReduce(fusion)))
        continue;
      llvm::SmallPtrSet<Value, 4> claimed;
      for (Value result : fusion.getResults()) {
        auto own = requestOf.find(result);
        if (own == requestOf.end()) // written in its state's memory
          continue;
        mpc::planning::BufferRequest &request = requests[own->second];
        for (Value input : fusion.getInputs()) {
          auto it = requestOf.find(input);
          if (it == requestOf.end() || claimed.contains(input) ||
              input.getType() != result.getType())
            continue;
          if (requests[it->second].lastUse != request.firstUse)
            continue;
          request.inPlaceOf = it->second;
          claimed.insert(input);
          break;
        }
      }
    }
  }
};

} // namespace
