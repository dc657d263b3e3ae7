//===- MpgBuildersTest.cpp - building mpg graphs programmatically ---------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Builds graphs with the generated op builders (result types inferred where
// the op infers them), verifies them, and checks inference for broadcasting
// and reductions as well as the errors of an invalid graph.
//
//===----------------------------------------------------------------------===//

#include "dialects/mpg/IR/MpgOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::mpg;

namespace {
class MpgBuilders : public ::testing::Test {
protected:
  MpgBuilders() : builder(&context) {
    context.loadDialect<MpgDialect>();
    loc = builder.getUnknownLoc();
    module = ModuleOp::create(loc);
    builder.setInsertionPointToEnd(module->getBody());
    graph = builder.create<GraphOp>(loc, "test");
    builder.setInsertionPointToEnd(&graph.getBody().front());
  }

  RankedTensorType f32(llvm::ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, builder.getF32Type());
  }

  Value input(llvm::StringRef name, RankedTensorType type) {
    return builder.create<InputOp>(loc, type, name);
  }

  Value param(llvm::StringRef name, RankedTensorType type, InitKind kind) {
    auto init = InitializerAttr::get(&context, kind, builder.getDictionaryAttr({}));
    return builder.create<ParamOp>(loc, type, name, init, /*frozen=*/false);
  }

  /// Verifies the module, capturing diagnostics instead of printing them.
  LogicalResult verifyCapturing(std::string &messages) {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      messages += diag.str() + "\n";
      return success();
    });
    return verify(*module);
  }

  MLIRContext context;
  OpBuilder builder;
  Location loc = UnknownLoc::get(&context);
  OwningOpRef<ModuleOp> module;
  GraphOp graph;
};
} // namespace

TEST_F(MpgBuilders, MlpGraphBuildsAndVerifies) {
  Value x = input("pixels", f32({64, 64}));
  Value labels = input("labels", RankedTensorType::get({64}, builder.getI32Type()));
  Value w1 = param("fc1.weight", f32({64, 128}), InitKind::GlorotUniform);
  Value b1 = param("fc1.bias", f32({128}), InitKind::Zeros);
  Value w2 = param("fc2.weight", f32({128, 10}), InitKind::GlorotUniform);
  Value b2 = param("fc2.bias", f32({10}), InitKind::Zeros);

  // Result types below are all inferred by the builders.
  Value h = builder.create<MatmulOp>(loc, x, w1, false, false);
  h = builder.create<AddOp>(loc, h, b1);
  h = builder.create<ReluOp>(loc, h);
  Value logits = builder.create<MatmulOp>(loc, h, w2, false, false);
  logits = builder.create<AddOp>(loc, logits, b2);
  Value loss = builder.create<SoftmaxCrossEntropyOp>(loc, logits, labels);
  builder.create<OutputOp>(loc, "logits", logits);
  auto sgd = OptimizerAttr::get(
      &context, OptimizerKind::SGD,
      builder.getDictionaryAttr({builder.getNamedAttr("lr", builder.getF64FloatAttr(0.1))}));
  builder.create<MinimizeOp>(loc, loss, sgd);

  EXPECT_EQ(logits.getType(), f32({64, 10}));
  EXPECT_EQ(loss.getType(), f32({}));
  std::string messages;
  EXPECT_TRUE(succeeded(verifyCapturing(messages))) << messages;
  EXPECT_TRUE(graph.getMinimize());
}

TEST_F(MpgBuilders, BroadcastingInference) {
  Value a = input("a", f32({4, 1, 5}));
  Value b = input("b", f32({3, 1}));
  auto sum = builder.create<AddOp>(loc, a, b);
  EXPECT_EQ(sum.getType(), f32({4, 3, 5}));

  Value s = input("s", f32({}));
  auto cmp = builder.create<CompareOp>(loc, ComparePredicate::GT, a, s);
  EXPECT_EQ(cmp.getType(), RankedTensorType::get({4, 1, 5}, builder.getI1Type()));
  auto select = builder.create<SelectOp>(loc, cmp, a, b);
  EXPECT_EQ(select.getType(), f32({4, 3, 5}));
}

TEST_F(MpgBuilders, ReductionInference) {
  Value x = input("x", f32({4, 5, 6}));
  auto sum = builder.create<ReduceSumOp>(loc, x, builder.getDenseI64ArrayAttr({-1, 0}),
                                         /*keepdim=*/false);
  EXPECT_EQ(sum.getType(), f32({5}));
  auto kept = builder.create<ReduceMaxOp>(loc, x, builder.getDenseI64ArrayAttr({1}),
                                          /*keepdim=*/true);
  EXPECT_EQ(kept.getType(), f32({4, 1, 6}));
  auto softmax = builder.create<SoftmaxOp>(loc, x, /*axis=*/1);
  EXPECT_EQ(softmax.getType(), f32({4, 5, 6}));
}

TEST_F(MpgBuilders, ConvAndPoolInference) {
  Value x = input("x", f32({2, 3, 28, 28}));
  Value w = param("w", f32({8, 3, 3, 3}), InitKind::HeNormal);
  auto conv = builder.create<Conv2DOp>(loc, x, w, builder.getDenseI64ArrayAttr({1, 1}),
                                       builder.getDenseI64ArrayAttr({1, 1, 1, 1}),
                                       DenseI64ArrayAttr(), IntegerAttr());
  EXPECT_EQ(conv.getType(), f32({2, 8, 28, 28}));
  EXPECT_EQ(conv.getGroupCount(), 1);
  EXPECT_EQ(conv.getDilationValues(), (llvm::SmallVector<int64_t, 2>{1, 1}));
  auto pool = builder.create<MaxPool2DOp>(loc, conv, builder.getDenseI64ArrayAttr({2, 2}),
                                          DenseI64ArrayAttr(), DenseI64ArrayAttr());
  EXPECT_EQ(pool.getType(), f32({2, 8, 14, 14}));
  EXPECT_EQ(pool.getStrideValues(), (llvm::SmallVector<int64_t, 2>{2, 2}));
  auto gap = builder.create<GlobalAvgPoolOp>(loc, pool);
  EXPECT_EQ(gap.getType(), f32({2, 8}));
}

TEST_F(MpgBuilders, MismatchedMatmulFailsVerificationWithShapes) {
  Value a = input("a", f32({4, 5}));
  Value b = input("b", f32({6, 7}));
  // Build with an explicit (wrong) result type: inference would refuse.
  builder.create<MatmulOp>(loc, f32({4, 7}), a, b, false, false);
  std::string messages;
  EXPECT_TRUE(failed(verifyCapturing(messages)));
  EXPECT_NE(messages.find("contraction dimensions differ: 5 (lhs) vs 6 (rhs)"),
            std::string::npos)
      << messages;
}

TEST_F(MpgBuilders, DuplicateParameterNameIsReported) {
  param("w", f32({2, 2}), InitKind::Ones);
  param("w", f32({2, 2}), InitKind::Zeros);
  std::string messages;
  EXPECT_TRUE(failed(verifyCapturing(messages)));
  EXPECT_NE(messages.find("reuses the parameter/state name 'w'"), std::string::npos)
      << messages;
}

TEST_F(MpgBuilders, InitializerAttrVerifierRejectsBadArguments) {
  std::string messages;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    messages += diag.str() + "\n";
    return success();
  });
  auto emit = [&] { return emitError(loc); };
  auto args = builder.getDictionaryAttr(
      {builder.getNamedAttr("std", builder.getF64FloatAttr(-1.0))});
  EXPECT_FALSE(InitializerAttr::getChecked(emit, &context, InitKind::Normal, args));
  EXPECT_NE(messages.find("std > 0"), std::string::npos) << messages;
  auto good = InitializerAttr::get(&context, InitKind::Uniform,
                                   builder.getDictionaryAttr({}));
  EXPECT_EQ(good.getArg("high", 1.0), 1.0);
}
