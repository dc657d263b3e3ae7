//===- FuzzGraph.cpp - fuzzing the compiler on arbitrary graph text -------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Input: the text of a graph file. It is read as `mpc compile` reads one
// (parsed with the mpg and mpk dialects, verified, top-level ops checked);
// an accepted module is compiled as its forward step in fp32 and as its
// training step in fp16 (loss scaling, master weights), each through the
// pass pipeline and the CUDA emitter, and every program's manifest is built
// and verified. Refusals (diagnostics) are fine; a compiled program whose
// manifest fails verification is a compiler bug, as is any crash.
//
// Each input gets a fresh MLIRContext, without threads, so that a crash
// replays from its input alone.
//
//===----------------------------------------------------------------------===//

#include "FuzzTarget.h"

#include "compiler/CodeGen/BundleWriter.h"
#include "compiler/Compile/Compile.h"
#include "compiler/Frontend/GraphLoader.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <optional>

using namespace mlir;

namespace {

/// Compiles `module` (consumed) with `options`; checks the manifests of
/// what compiles.
void compileAndCheck(OwningOpRef<ModuleOp> module, const mpc::CompileOptions &options) {
  llvm::Expected<mpc::Compilation> compiled =
      mpc::compileModule(*module, mpc::CompileStage::Cuda, options);
  if (!compiled) {
    std::string message = llvm::toString(compiled.takeError());
    if (std::getenv("MPC_FUZZ_VERBOSE"))
      llvm::errs() << "refused: " << message << "\n";
    return;
  }
  if (std::getenv("MPC_FUZZ_VERBOSE"))
    llvm::errs() << "compiled " << compiled->programs.size() << " program(s)\n";
  for (size_t i = 0; i < compiled->programs.size(); ++i) {
    llvm::Expected<std::string> manifest =
        mpc::programManifest(compiled->programs[i], compiled->kernels[i]);
    if (!manifest) {
      std::string message = llvm::toString(manifest.takeError());
      FUZZ_CHECK(false, message.c_str());
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext context(MLIRContext::Threading::DISABLED);
  mpc::loadGraphDialects(context);
  // Diagnostics are the expected answer to most inputs: dropped, unless
  // MPC_FUZZ_VERBOSE is set (why is this seed refused?).
  llvm::SourceMgr sourceMgr;
  std::optional<SourceMgrDiagnosticHandler> verbose;
  std::optional<ScopedDiagnosticHandler> quiet;
  if (std::getenv("MPC_FUZZ_VERBOSE"))
    verbose.emplace(sourceMgr, &context);
  else
    quiet.emplace(&context, [](Diagnostic &) { return success(); });
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "input.mlir");
  OwningOpRef<ModuleOp> module = mpc::loadGraphBuffer(std::move(buffer), sourceMgr, context);
  if (!module)
    return 0;

  mpc::CompileOptions forward;
  forward.verified = true;
  forward.sourceName = "input.mlir";
  compileAndCheck(OwningOpRef<ModuleOp>(module->clone()), forward);

  mpc::CompileOptions training = forward;
  training.trainingStep = true;
  training.precision.mode = "fp16";
  compileAndCheck(std::move(module), training);
  return 0;
}
