//===- CompileCommand.cpp - `mpc compile` ----------------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Reads a graph file, verifies it and writes the requested form. The output
// file is written through a temporary file and renamed into place, so a
// failure never leaves a half-written output behind.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/ArgParser.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Frontend/GraphLoader.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mpc::driver;

static ArgParser makeCompileParser() {
  ArgParser parser("compile", "mpc compile GRAPH [-o FILE] [--emit graph]",
                   "Parses and verifies a training graph (MLIR text in the mpg dialect) and "
                   "writes it\nback in canonical form. Errors are reported as "
                   "FILE:LINE:COL: error: MESSAGE.");
  parser.setPositionals("GRAPH", "the graph file, or - for standard input", 1, 1);
  parser.addOption({"output", 'o', "FILE", "where to write the result; - is standard output",
                    "-", {}});
  parser.addOption({"emit", 0, "KIND", "what to write: graph = the verified graph", "graph",
                    {"graph"}});
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

  std::string output = *parser.get("output");
  llvm::Error written = llvm::writeToOutput(output, [&](llvm::raw_ostream &os) {
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
