//===- ExampleKernelsCompileTest.cpp - every example's kernels compile ----===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Runs the forward pipeline on every example graph, emits its kernels, and
// compiles them with NVRTC for sm_80 and sm_90 (cubin and PTX) and with the
// host compiler for the CPU backend. No GPU is needed.
//
//===----------------------------------------------------------------------===//

#include "compiler/CodeGen/CudaEmitter.h"
#include "compiler/CodeGen/KernelCompiler.h"
#include "compiler/Frontend/GraphLoader.h"
#include "passes/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

namespace {

class ExampleKernels : public ::testing::TestWithParam<const char *> {};

TEST_P(ExampleKernels, CompileForEveryTarget) {
  mlir::MLIRContext context;
  mpc::loadGraphDialects(context);
  llvm::SourceMgr sourceMgr;
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    diagnostics += diag.str() + "\n";
    return mlir::success();
  });
  std::string path = std::string(MPC_EXAMPLES_DIR) + "/" + GetParam() + ".mlir";
  mlir::OwningOpRef<mlir::ModuleOp> module = mpc::loadGraphFile(path, sourceMgr, context);
  ASSERT_TRUE(module) << diagnostics;
  mlir::PassManager pm(&context);
  mpc::buildForwardPipeline(pm);
  ASSERT_TRUE(mlir::succeeded(pm.run(*module))) << diagnostics;

  auto programs = llvm::to_vector(module->getOps<mlir::mpk::ProgramOp>());
  ASSERT_EQ(programs.size(), 1u);
  mlir::FailureOr<mpc::GeneratedKernels> kernels = mpc::emitCuda(programs.front());
  ASSERT_TRUE(mlir::succeeded(kernels)) << diagnostics;
  ASSERT_FALSE(kernels->kernels.empty());

  llvm::Expected<std::string> host = mpc::compileForHost(kernels->source);
  ASSERT_TRUE(static_cast<bool>(host)) << llvm::toString(host.takeError());
  EXPECT_GT(host->size(), 0u);
  for (const mpc::KernelLaunch &kernel : kernels->kernels)
    EXPECT_NE(host->find(kernel.name), std::string::npos) << kernel.name << " not exported";

  if (!mpc::haveNvrtc()) {
#ifdef MPC_EXPECT_NVRTC
    FAIL() << "built with the CUDA toolkit, but NVRTC does not load";
#else
    GTEST_SKIP() << "built without the CUDA toolkit: the NVRTC half of this test cannot run";
#endif
  }
  for (const char *arch : {"sm_80", "sm_90"}) {
    llvm::Expected<mpc::GpuBinary> gpu = mpc::compileForGpu(kernels->source, arch);
    ASSERT_TRUE(static_cast<bool>(gpu)) << arch << ": " << llvm::toString(gpu.takeError());
    EXPECT_GT(gpu->cubin.size(), 0u) << arch;
    for (const mpc::KernelLaunch &kernel : kernels->kernels)
      EXPECT_NE(gpu->ptx.find(".entry " + kernel.name), std::string::npos)
          << arch << ": no PTX entry for " << kernel.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleKernels,
                         ::testing::Values("mlp", "fashion_mlp", "cnn", "transformer_block", "char_lstm"));

} // namespace
