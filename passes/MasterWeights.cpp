//===- MasterWeights.cpp - fp32 masters, persistent working copies ---------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The paper's first technique: parameters are updated in fp32, and the
// forward and backward passes read a low-precision copy. The copy becomes
// persistent state written by the update itself (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/Precision/PrecisionSupport.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "llvm/ADT/StringSet.h"

namespace mpc {
#define GEN_PASS_DEF_MPGMASTERWEIGHTS
#include "passes/Passes.h.inc"
} // namespace mpc

using namespace mlir;
using namespace mlir::mpg;
using mpc::precision::elementOf;

namespace {


struct MpgMasterWeightsPass : public mpc::impl::MpgMasterWeightsBase<MpgMasterWeightsPass> {
  int64_t copies_ = 0;

  void runOnOperation() override {
    GraphOp graph = getOperation();
    // Only a graph whose precision was assigned (fp16 or bf16): in fp32 mode
    // the author's own casts stay what they are.
    if (!graph->hasAttr(mlir::mpg::kPrecisionSummaryAttr))
      return;
    Block &body = graph.getBody().front();
    llvm::SmallVector<ParamOp> params(body.getOps<ParamOp>());
    copies_ = 0;
    llvm::StringSet<> names;
    for (Operation &op : body) {
      if (auto other = llvm::dyn_cast<ParamOp>(op))
        names.insert(other.getName());
      else if (auto state = llvm::dyn_cast<StateOp>(op))
        names.insert(state.getName());
    }
    for (ParamOp param : params) {
      if (!elementOf(param.getResult()).isF32())
        continue;
      // The step's write of the parameter, if it updates it.
      StateWriteOp write;
      for (Operation *user : param.getResult().getUsers())
        if (auto candidate = llvm::dyn_cast<StateWriteOp>(user);
            candidate && candidate.getState() == param.getResult())
          write = candidate;
      llvm::SmallVector<CastOp> casts;
      for (Operation *user : param.getResult().getUsers())
        if (auto cast = llvm::dyn_cast<CastOp>(user);
            cast && (elementOf(cast.getResult()).isF16() || elementOf(cast.getResult()).isBF16()))
          casts.push_back(cast);
      // One working copy per parameter and type, whatever cast it replaces
      // (the author's or the precision pass's).
      llvm::SmallDenseMap<Type, StateOp> copies;
      for (CastOp cast : casts) {
        Type low = elementOf(cast.getResult());
        StateOp &copy = copies[low];
        if (!copy) {
          std::string name = (param.getName() + (low.isF16() ? ".f16" : ".bf16")).str();
          if (names.contains(name)) {
            param.emitOpError() << "needs a working copy named \"" << name
                                << "\", but the graph already has a parameter or state of "
                                   "that name";
            return signalPassFailure();
          }
          names.insert(name);
          OpBuilder b(param);
          b.setInsertionPointAfter(param);
          auto init =
              InitializerAttr::get(b.getContext(), InitKind::Zeros, b.getDictionaryAttr({}));
          copy = b.create<StateOp>(cast.getLoc(), cast.getType(), name, init);
          copy->setAttr(mlir::mpg::kCastOfAttr, b.getStringAttr(param.getName()));
          ++copies_;
          if (write) {
            b.setInsertionPointAfter(write);
            Value next = b.create<CastOp>(write.getLoc(), copy.getType(), write.getValue());
            b.create<StateWriteOp>(write.getLoc(), copy.getResult(), next);
          }
          // (a frozen parameter has no write: the runtime's copy stays valid)
        }
        cast.getResult().replaceAllUsesWith(copy.getResult());
        cast.erase();
      }
    }
    // The precision report counts them.
    if (auto summary = graph->getAttrOfType<DictionaryAttr>(mlir::mpg::kPrecisionSummaryAttr)) {
      NamedAttrList fields(summary);
      fields.set("working_copies", IntegerAttr::get(IntegerType::get(&getContext(), 64), copies_));
      graph->setAttr(mlir::mpg::kPrecisionSummaryAttr, fields.getDictionary(&getContext()));
    }
  }
};

} // namespace
