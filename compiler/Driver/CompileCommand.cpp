//===- CompileCommand.cpp - `mpc compile` ----------------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Reads a graph file, verifies it and writes the requested form. The output
// file is written through a temporary file and renamed into place, so a
// failure never leaves a half-written output behind.
//
//===----------------------------------------------------------------------===//

#include "compiler/CodeGen/CudaEmitter.h"
#include "compiler/Driver/ArgParser.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Frontend/GraphLoader.h"
#include "passes/Passes.h"

#include "mlir/Pass/PassManager.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mpc::driver;

static ArgParser makeCompileParser() {
  ArgParser parser("compile", "mpc compile GRAPH [-o FILE] [--emit KIND]",
                   "Compiles a training graph (MLIR text in the mpg dialect). Errors are "
                   "reported as\nFILE:LINE:COL: error: MESSAGE.");
  parser.setPositionals("GRAPH", "the graph file, or - for standard input", 1, 1);
  parser.addOption({"output", 'o', "FILE", "where to write the result; - is standard output",
                    "-", {}});
  parser.addOption({"emit", 0, "KIND",
                    "what to write: graph = the verified graph; fused = after fusion and the "
                    "memory plan; kernels = the mpk program; cuda = the generated CUDA C++",
                    "graph", {"graph", "fused", "kernels", "cuda"}});
  return parser;
}

int mpc::driver::runCompileCommand(llvm::ArrayRef<std::string> args) {
  ArgParser parser = makeCompileParser();
  std::string error;
  if (!parser.parse(args, error)) {
    reportError(error + "; run 'mpc compile --help' for usage");
    return kExitUsage;
  }
  if (parser.helpRequested()) {
    parser.printHelp(llvm::outs());
    return kExitOk;
  }

  mlir::MLIRContext context;
  context.printOpOnDiagnostic(false);
  mpc::loadGraphDialects(context);
  llvm::SourceMgr sourceMgr;
  DiagnosticPrinter diagnostics(sourceMgr, context);

  const std::string &input = parser.positionals().front();
  mlir::OwningOpRef<mlir::ModuleOp> module = mpc::loadGraphFile(input, sourceMgr, context);
  if (!module)
    return kExitError;

  std::string emit = *parser.get("emit");
  if (emit != "graph") {
    mlir::PassManager pm(&context);
    if (emit == "fused") {
      mlir::OpPassManager &graphPm = pm.nest<mlir::mpg::GraphOp>();
      graphPm.addPass(mpc::createMpgDecompose());
      graphPm.addPass(mpc::createMpgFuse());
      graphPm.addPass(mpc::createMpgPlanMemory());
    } else {
      mpc::buildForwardPipeline(pm);
    }
    if (mlir::failed(pm.run(*module)))
      return kExitError;
  }
  std::string source;
  if (emit == "cuda") {
    for (auto program : module->getOps<mlir::mpk::ProgramOp>()) {
      mlir::FailureOr<mpc::GeneratedKernels> kernels = mpc::emitCuda(program);
      if (mlir::failed(kernels))
        return kExitError;
      source += kernels->source;
    }
  }

  std::string output = *parser.get("output");
  llvm::Error written = llvm::writeToOutput(output, [&](llvm::raw_ostream &os) {
    if (emit == "cuda") {
      os << source;
      return llvm::Error::success();
    }
    mlir::OpPrintingFlags flags;
    for (mlir::Operation &op : module->getBody()->getOperations()) {
      op.print(os, flags);
      os << "\n";
    }
    return llvm::Error::success();
  });
  if (written) {
    reportError("cannot write '" + output + "': " + llvm::toString(std::move(written)));
    return kExitError;
  }
  return kExitOk;
}
