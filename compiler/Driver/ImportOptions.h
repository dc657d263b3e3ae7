//===- ImportOptions.h - models from ONNX files on the command line -*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The options that make an .onnx model a training graph (--batch, --dim,
// --loss, --optimizer, --freeze), shared by `mpc import`, `mpc compile`,
// `mpc train`, `mpc run` and `mpc report`, and the loading of a source file
// that is either a graph (.mlir) or a model (.onnx).
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DRIVER_IMPORTOPTIONS_H
#define MPC_COMPILER_DRIVER_IMPORTOPTIONS_H

#include "compiler/Frontend/OnnxImporter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/Support/SourceMgr.h"

#include <map>
#include <string>

namespace mpc::driver {

class ArgParser;

/// Declares --batch, --dim, --loss, --optimizer and --freeze; `training`:
/// the command trains (the loss defaults to softmax_cross_entropy).
void addImportOptions(ArgParser &parser, bool training);

/// Reads them; a bad value is reported and returns false.
bool readImportOptions(const ArgParser &parser, bool training, OnnxImportOptions &options);

/// Whether `path` names an ONNX model (by its extension).
bool isOnnxFile(const std::string &path);

/// Loads `path`: a graph file (verified, diagnostics through the context's
/// handler) or an ONNX model translated with `onnx` (its initializers'
/// values into `weights` when not null). Reports an error and returns null
/// on failure.
mlir::OwningOpRef<mlir::ModuleOp> loadSource(const std::string &path, llvm::SourceMgr &sourceMgr,
                                             mlir::MLIRContext &context,
                                             const OnnxImportOptions &onnx, ModelWeights *weights);

} // namespace mpc::driver

#endif // MPC_COMPILER_DRIVER_IMPORTOPTIONS_H
