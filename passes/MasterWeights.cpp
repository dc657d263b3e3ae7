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

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mpc {
#define GEN_PASS_DEF_MPGMASTERWEIGHTS
#include "passes/Passes.h.inc"
} // namespace mpc

using namespace mlir;
using namespace mlir::mpg;

namespace {

Type elementOf(Value value) { return llvm::cast<RankedTensorType>(value.getType()).getElementType(); }

struct MpgMasterWeightsPass : public mpc::impl::MpgMasterWeightsBase<MpgMasterWeightsPass> {
  void runOnOperation() override {
    GraphOp graph = getOperation();
    Block &body = graph.getBody().front();
    llvm::SmallVector<ParamOp> params(body.getOps<ParamOp>());
    int64_t copies = 0;
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
      for (CastOp cast : casts) {
        Type low = elementOf(cast.getResult());
        std::string name = (param.getName() + (low.isF16() ? ".f16" : ".bf16")).str();
        OpBuilder b(param);
        b.setInsertionPointAfter(param);
        auto init = InitializerAttr::get(b.getContext(), InitKind::Zeros, b.getDictionaryAttr({}));
        auto copy = b.create<StateOp>(cast.getLoc(), cast.getType(), name, init);
        copy->setAttr("mpg.cast_of", b.getStringAttr(param.getName()));
        cast.getResult().replaceAllUsesWith(copy.getResult());
        cast.erase();
        ++copies;
        if (!write)
          continue; // a frozen parameter: the runtime's copy stays valid
        b.setInsertionPointAfter(write);
        Value next = b.create<CastOp>(write.getLoc(), copy.getType(), write.getValue());
        b.create<StateWriteOp>(write.getLoc(), copy.getResult(), next);
      }
    }
    // The precision report counts them.
    if (auto summary = graph->getAttrOfType<DictionaryAttr>("mpg.precision_summary")) {
      NamedAttrList fields(summary);
      fields.set("working_copies", IntegerAttr::get(IntegerType::get(&getContext(), 64), copies));
      graph->setAttr("mpg.precision_summary", fields.getDictionary(&getContext()));
    }
  }
};

} // namespace
