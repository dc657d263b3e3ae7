//===- GraphLoader.h - read and verify a training-graph file ----*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The front end of the driver: reads an MLIR file holding mpg graphs,
// reports problems as located diagnostics (file:line:col: error: ...), and
// checks what the rest of the compiler relies on at the top level.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_FRONTEND_GRAPHLOADER_H
#define MPC_COMPILER_FRONTEND_GRAPHLOADER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <memory>

namespace llvm {
class MemoryBuffer;
class SourceMgr;
} // namespace llvm

namespace mpc {

/// Registers and loads the dialects a graph file may use.
void loadGraphDialects(mlir::MLIRContext &context);

/// Parses and verifies the graph file at `path` ("-" reads stdin). The file
/// is added to `sourceMgr`; diagnostics go to the context's handler (the
/// caller installs one, e.g. a SourceMgrDiagnosticHandler on `sourceMgr`).
/// Returns null after reporting an error. Besides the dialect verifiers it
/// checks that the top level holds only `mpg.graph` ops, at least one.
mlir::OwningOpRef<mlir::ModuleOp> loadGraphFile(llvm::StringRef path,
                                                llvm::SourceMgr &sourceMgr,
                                                mlir::MLIRContext &context);

/// loadGraphFile on graph text already in memory (`buffer`'s identifier
/// names it in diagnostics): what an embedding application or a fuzzer
/// passes.
mlir::OwningOpRef<mlir::ModuleOp> loadGraphBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
                                                  llvm::SourceMgr &sourceMgr,
                                                  mlir::MLIRContext &context);

} // namespace mpc

#endif // MPC_COMPILER_FRONTEND_GRAPHLOADER_H
