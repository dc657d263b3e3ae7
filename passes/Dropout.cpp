//===- Dropout.cpp - keying dropout for training, removing it elsewhere ---===//
//
// Part of mpc, a mixed-precision training compiler.
//
// mpg-seed-dropout gives every unkeyed mpg.dropout of a training step its
// key (a seed and a run counter kept as persistent state) and its own
// stream; mpg-remove-dropout makes unkeyed dropouts the identity in
// forward-only programs (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/GraphBuilding.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mpc {
#define GEN_PASS_DEF_MPGSEEDDROPOUT
#define GEN_PASS_DEF_MPGREMOVEDROPOUT
#include "passes/Passes.h.inc"
} // namespace mpc

using namespace mlir;
using namespace mlir::mpg;

namespace {

constexpr char kSeedState[] = "dropout.seed";
constexpr char kRunState[] = "dropout.run";

llvm::SmallVector<DropoutOp> unkeyedDropouts(GraphOp graph) {
  llvm::SmallVector<DropoutOp> dropouts;
  graph.getBody().walk([&](DropoutOp op) {
    if (!op.isKeyed())
      dropouts.push_back(op);
  });
  return dropouts;
}

struct MpgSeedDropoutPass : mpc::impl::MpgSeedDropoutBase<MpgSeedDropoutPass> {
  void runOnOperation() override {
    GraphOp graph = getOperation();
    llvm::SmallVector<DropoutOp> dropouts = unkeyedDropouts(graph);
    if (dropouts.empty())
      return;
    Block &body = graph.getBody().front();
    for (Operation &op : body) {
      llvm::StringRef name = mpc::persistentName(op);
      if (name == kSeedState || name == kRunState) {
        op.emitError() << "mpg-seed-dropout keeps the dropout key in the state \"" << kSeedState
                       << "\" and \"" << kRunState
                       << "\", but the graph already has a tensor with the name \"" << name << "\"";
        return signalPassFailure();
      }
    }
    OpBuilder b(&getContext());
    Location loc = graph.getLoc();
    auto i64Scalar = RankedTensorType::get({}, b.getI64Type());
    b.setInsertionPointToStart(&body);
    Value seed = b.create<StateOp>(
        loc, i64Scalar, kSeedState,
        InitializerAttr::get(&getContext(), InitKind::Seed, b.getDictionaryAttr({})));
    Value run = mpc::newState(b, loc, kRunState, i64Scalar);
    for (auto [stream, dropout] : llvm::enumerate(dropouts)) {
      dropout.getKeyMutable().assign({seed, run});
      dropout.setStreamAttr(b.getI64IntegerAttr(static_cast<int64_t>(stream)));
    }
    // Every run draws new masks, skipped or not (the counter is no
    // optimizer state, so the loss scaler and accumulation leave it alone).
    b.setInsertionPointToEnd(&body);
    Value one = mpc::scalarConstant(b, loc, b.getI64Type(), 1);
    b.create<StateWriteOp>(loc, run, b.create<AddOp>(loc, run, one));
  }
};

struct MpgRemoveDropoutPass : mpc::impl::MpgRemoveDropoutBase<MpgRemoveDropoutPass> {
  void runOnOperation() override {
    for (DropoutOp dropout : unkeyedDropouts(getOperation())) {
      dropout.getResult().replaceAllUsesWith(dropout.getInput());
      dropout.erase();
    }
  }
};

} // namespace
