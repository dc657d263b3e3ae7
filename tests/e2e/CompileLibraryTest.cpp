//===- CompileLibraryTest.cpp - compilation as a library call -------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// compiler/Compile/Compile.h without the driver: the MLP example compiled to
// each stage leaves the module and the result that stage promises; a bundle
// is written and reads back; a bad request is an llvm::Error that says what
// is wrong, and a graph mpc cannot compile is a DiagnosedError whose
// diagnostics went to the context.
//
//===----------------------------------------------------------------------===//

#include "compiler/Compile/Compile.h"
#include "compiler/Frontend/GraphLoader.h"
#include "dialects/mpg/IR/MpgOps.h"
#include "dialects/mpk/IR/MpkOps.h"

#include "mpc/format/Bundle.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

namespace {

/// A context with mpc's dialects whose diagnostics are collected.
class CompileLibrary : public ::testing::Test {
protected:
  CompileLibrary() : handler(&context, [this](mlir::Diagnostic &diag) {
    diagnostics += diag.str() + "\n";
    return mlir::success();
  }) {
    mpc::loadGraphDialects(context);
  }

  mlir::OwningOpRef<mlir::ModuleOp> example(const char *name) {
    std::string path = std::string(MPC_EXAMPLES_DIR) + "/" + name + ".mlir";
    return mpc::loadGraphFile(path, sourceMgr, context);
  }

  /// The stage of a DiagnosedError, or the message of any other error.
  static std::string diagnosedStage(llvm::Error error) {
    std::string stage;
    llvm::handleAllErrors(
        std::move(error), [&](const mpc::DiagnosedError &diagnosed) { stage = diagnosed.stage; },
        [&](const llvm::ErrorInfoBase &other) { stage = "not diagnosed: " + other.message(); });
    return stage;
  }

  size_t count(mlir::ModuleOp module, llvm::StringRef opName) {
    size_t n = 0;
    module.walk([&](mlir::Operation *op) { n += op->getName().getStringRef() == opName; });
    return n;
  }

  mlir::MLIRContext context;
  llvm::SourceMgr sourceMgr;
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler;
};

TEST_F(CompileLibrary, EachStageLeavesWhatItPromises) {
  mpc::CompileOptions options;
  options.trainingStep = true;
  options.precision.mode = "fp16";

  auto graph = example("mlp");
  ASSERT_TRUE(graph) << diagnostics;
  llvm::Expected<mpc::Compilation> verified =
      mpc::compileModule(*graph, mpc::CompileStage::Graph, options);
  ASSERT_TRUE(static_cast<bool>(verified)) << llvm::toString(verified.takeError());
  EXPECT_EQ(count(*graph, "mpg.minimize"), 1u); // untouched
  EXPECT_EQ(count(*graph, "mpg.cast"), 0u);

  auto fused = example("mlp");
  llvm::Expected<mpc::Compilation> afterFusion =
      mpc::compileModule(*fused, mpc::CompileStage::Fused, options);
  ASSERT_TRUE(static_cast<bool>(afterFusion)) << llvm::toString(afterFusion.takeError());
  EXPECT_EQ(count(*fused, "mpg.minimize"), 0u); // the training step, in fp16
  EXPECT_GT(count(*fused, "mpg.cast"), 0u);
  EXPECT_GT(count(*fused, "mpg.fusion"), 0u);
  EXPECT_EQ(count(*fused, "mpk.program"), 0u);
  EXPECT_TRUE(afterFusion->programs.empty());

  auto kernels = example("mlp");
  llvm::Expected<mpc::Compilation> programs =
      mpc::compileModule(*kernels, mpc::CompileStage::Kernels, options);
  ASSERT_TRUE(static_cast<bool>(programs)) << llvm::toString(programs.takeError());
  ASSERT_EQ(programs->programs.size(), 1u);
  EXPECT_TRUE(programs->kernels.empty());

  auto cuda = example("mlp");
  llvm::Expected<mpc::Compilation> source =
      mpc::compileModule(*cuda, mpc::CompileStage::Cuda, options);
  ASSERT_TRUE(static_cast<bool>(source)) << llvm::toString(source.takeError());
  ASSERT_EQ(source->kernels.size(), 1u);
  ASSERT_FALSE(source->kernels[0].kernels.empty());
  for (const mpc::KernelLaunch &kernel : source->kernels[0].kernels)
    EXPECT_NE(source->kernels[0].source.find(kernel.name), std::string::npos) << kernel.name;

  auto manifest = example("mlp");
  llvm::Expected<mpc::Compilation> forManifest =
      mpc::compileModule(*manifest, mpc::CompileStage::Manifest, options);
  ASSERT_TRUE(static_cast<bool>(forManifest)) << llvm::toString(forManifest.takeError());
  ASSERT_EQ(forManifest->kernels.size(), 1u);
  llvm::Expected<std::string> json =
      mpc::programManifest(forManifest->programs[0], forManifest->kernels[0]);
  ASSERT_TRUE(static_cast<bool>(json)) << llvm::toString(json.takeError());
  EXPECT_NE(json->find("\"optimizer.step\""), std::string::npos);

  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("mpc-compile-test", "mpcb", path));
  auto bundle = example("mlp");
  llvm::Expected<mpc::Compilation> written =
      mpc::compileModule(*bundle, mpc::CompileStage::Bundle, options, path);
  ASSERT_TRUE(static_cast<bool>(written)) << llvm::toString(written.takeError());
  std::vector<mpc::rt::BundleSection> sections;
  ASSERT_TRUE(mpc::rt::readBundle(path.str().str(), sections).isOk());
  EXPECT_NE(mpc::rt::findSection(sections, "manifest.json"), nullptr);
  EXPECT_NE(mpc::rt::findSection(sections, "host.so"), nullptr);
  llvm::sys::fs::remove(path);
  EXPECT_TRUE(diagnostics.empty()) << diagnostics;
}

TEST_F(CompileLibrary, ABadRequestSaysWhatIsWrong) {
  auto module = example("mlp");
  ASSERT_TRUE(module) << diagnostics;
  llvm::Expected<mpc::Compilation> noPath =
      mpc::compileModule(*module, mpc::CompileStage::Bundle, {});
  ASSERT_FALSE(static_cast<bool>(noPath));
  EXPECT_EQ(llvm::toString(noPath.takeError()), "a bundle needs a file to be written to");

  mpc::CompileOptions other;
  other.graphName = "cnn";
  llvm::Expected<mpc::Compilation> missing =
      mpc::compileModule(*module, mpc::CompileStage::Kernels, other);
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_EQ(llvm::toString(missing.takeError()), "the file has no graph @cnn (it has @mlp)");
}

TEST_F(CompileLibrary, AGraphMpcCannotCompileIsDiagnosed) {
  // Training a graph without mpg.minimize: a diagnostic at the graph.
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(
      "mpg.graph @plain {\n"
      "  %x = mpg.input \"x\" : tensor<4xf32>\n"
      "  %y = mpg.relu %x : tensor<4xf32>\n"
      "  mpg.output \"y\" %y : tensor<4xf32>\n"
      "}\n",
      &context);
  ASSERT_TRUE(module) << diagnostics;
  mpc::CompileOptions options;
  options.trainingStep = true;
  llvm::Expected<mpc::Compilation> compiled =
      mpc::compileModule(*module, mpc::CompileStage::Kernels, options);
  ASSERT_FALSE(static_cast<bool>(compiled));
  EXPECT_EQ(diagnosedStage(compiled.takeError()), "checking the graph");
  EXPECT_NE(diagnostics.find("mpg.minimize"), std::string::npos) << diagnostics;
}

TEST_F(CompileLibrary, AModuleThatDoesNotVerifyIsRefusedAtTheGraphStage) {
  // Built without the parser's verification, as an importer might: relu's
  // result type differs from its operand's.
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(
      "mpg.graph @bad {\n"
      "  %x = mpg.input \"x\" : tensor<4xf32>\n"
      "  %y = \"mpg.relu\"(%x) : (tensor<4xf32>) -> tensor<5xf32>\n"
      "  mpg.output \"y\" %y : tensor<5xf32>\n"
      "}\n",
      mlir::ParserConfig(&context, /*verifyAfterParse=*/false));
  ASSERT_TRUE(module) << diagnostics;
  llvm::Expected<mpc::Compilation> compiled =
      mpc::compileModule(*module, mpc::CompileStage::Graph, {});
  ASSERT_FALSE(static_cast<bool>(compiled));
  EXPECT_EQ(diagnosedStage(compiled.takeError()), "verifying the graph");
  EXPECT_NE(diagnostics.find("mpg.relu"), std::string::npos) << diagnostics;
}

} // namespace
