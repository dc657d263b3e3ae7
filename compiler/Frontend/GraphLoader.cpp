//===- GraphLoader.cpp - read and verify a training-graph file ------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Frontend/GraphLoader.h"

#include "dialects/mpg/IR/MpgOps.h"
#include "dialects/mpk/IR/MpkOps.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

void mpc::loadGraphDialects(MLIRContext &context) {
  context.getOrLoadDialect<mpg::MpgDialect>();
  context.getOrLoadDialect<mpk::MpkDialect>();
}

OwningOpRef<ModuleOp> mpc::loadGraphFile(llvm::StringRef path, llvm::SourceMgr &sourceMgr,
                                         MLIRContext &context) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/true);
  if (std::error_code ec = buffer.getError()) {
    emitError(UnknownLoc::get(&context))
        << "cannot read graph file '" << path << "': " << ec.message();
    return nullptr;
  }
  return loadGraphBuffer(std::move(*buffer), sourceMgr, context);
}

OwningOpRef<ModuleOp> mpc::loadGraphBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
                                           llvm::SourceMgr &sourceMgr, MLIRContext &context) {
  std::string name = buffer->getBufferIdentifier().str();
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());

  ParserConfig config(&context, /*verifyAfterParse=*/true);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, config);
  if (!module)
    return nullptr;

  bool foundGraph = false;
  for (Operation &op : module->getBody()->getOperations()) {
    if (llvm::isa<mpg::GraphOp>(op)) {
      foundGraph = true;
      continue;
    }
    op.emitError() << "expected only mpg.graph ops at the top level of a graph file, found '"
                   << op.getName() << "'";
    return nullptr;
  }
  if (!foundGraph) {
    emitError(FileLineColLoc::get(&context, name, 1, 1))
        << "the file holds no mpg.graph; a graph file defines one or more "
           "'mpg.graph @name { ... }'";
    return nullptr;
  }
  return module;
}
