//===- OnnxImporter.h - ONNX models as mpg training graphs ------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Translates an ONNX model (OnnxModel.h) into an mpg graph: the model's
// inputs with their dynamic dimensions fixed (--batch, --dim), its float
// initializers as parameters under their own names and layouts (their
// values returned as weights), its nodes as mpg ops, its outputs, and,
// when a loss is chosen, the training side: the loss on a named output and
// a label or target input, and mpg.minimize with the chosen optimizer. The
// graph is then compiled like a hand-written one. Shape arithmetic that an
// exporter emits for static shapes (Shape, Gather, Unsqueeze, Concat, ...
// feeding Reshape) is folded here. Each op is located at MODEL.onnx:N:1,
// N the position of the node it comes from (1 for the first).
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_FRONTEND_ONNXIMPORTER_H
#define MPC_COMPILER_FRONTEND_ONNXIMPORTER_H

#include "compiler/Frontend/ModelWeights.h"
#include "mpc/format/HostTensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace mpc {

struct OnnxImportOptions {
  /// Values of the models' named dimensions (--dim NAME=V).
  std::map<std::string, int64_t> dims;
  /// The batch size (--batch N): the value of every input's first
  /// dimension that is named and not given in `dims`.
  int64_t batch = 0;
  /// The loss: "" (a forward graph only), "softmax_cross_entropy" (on an
  /// output [B, C], with an i32 input "labels" [B]) or "mse" (with an f32
  /// input "targets" of the output's shape); on `lossOutput`, or on the
  /// model's only output when empty.
  std::string loss;
  std::string lossOutput;
  /// The optimizer ("sgd", "adam", "adamw") and its arguments.
  std::string optimizer = "sgd";
  std::map<std::string, double> optimizerArgs;
  /// Globs of initializer names that stay frozen (--freeze).
  std::vector<std::string> freeze;
  /// Globs of float initializers that are constants, not parameters
  /// (--constant: a registered buffer such as a mask). Integer and scalar
  /// initializers are constants always.
  std::vector<std::string> constants;
};

struct ImportedModel {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// The initializers that became parameters, by the parameters' names.
  ModelWeights weights;
};

/// The ops `importOnnx` translates, for messages and documentation.
const std::vector<std::string> &supportedOnnxOps();

/// Reads the model at `path` and translates it. Errors say what and where:
/// the file, the node (its name, op type and the model's opset), the input
/// and axis of a dimension without a value. With `listing`, a text buffer
/// named `path` that lists the nodes, node N on line N, is added to it
/// first, so that diagnostics at MODEL.onnx:N:1 show the node.
llvm::Expected<ImportedModel> importOnnx(const std::string &path, mlir::MLIRContext &context,
                                         const OnnxImportOptions &options,
                                         llvm::SourceMgr *listing = nullptr);

} // namespace mpc

#endif // MPC_COMPILER_FRONTEND_ONNXIMPORTER_H
