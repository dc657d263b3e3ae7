//===- OnnxTranslator.h - the state of one ONNX import ----------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Shared by OnnxImporter.cpp (the graph's inputs, parameters, outputs and
// training side) and OnnxOps.cpp (one translation per ONNX op).
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_FRONTEND_ONNXTRANSLATOR_H
#define MPC_COMPILER_FRONTEND_ONNXTRANSLATOR_H

#include "compiler/Frontend/OnnxImporter.h"
#include "compiler/Frontend/OnnxModel.h"

#include "dialects/mpg/IR/MpgOps.h"

#include "mlir/IR/Builders.h"

#include "llvm/ADT/StringMap.h"

#include <map>
#include <optional>
#include <set>

namespace mpc::onnx {

class Translator {
public:
  Translator(mlir::MLIRContext &context, Model &model, const OnnxImportOptions &options,
             std::string path)
      : context(context), model(model), options(options), path(std::move(path)), b(&context) {}

  llvm::Expected<ImportedModel> run();

  /// Translates `node` (OnnxOps.cpp).
  llvm::Error translate(const Node &node);

private:
  // -- values ---------------------------------------------------------------
  /// The value named `name`: an mpg value, or a known constant made one.
  llvm::Expected<mlir::Value> value(const std::string &name);
  /// The known constant named `name`, if it is one.
  const rt::HostTensor *known(const std::string &name) const;
  /// A known constant's elements as integers (i32/i64) or nothing.
  std::optional<std::vector<int64_t>> knownInts(const std::string &name) const;
  /// An mpg.constant holding `tensor`, of element type `element` when
  /// given (a float constant converted to its user's type).
  llvm::Expected<mlir::Value> constant(const rt::HostTensor &tensor, mlir::Type element = nullptr);
  void define(const std::string &name, mlir::Value value) { values[name] = value; }

  // -- translations (OnnxOps.cpp) ---------------------------------------------
  llvm::Error translateGemm(const Node &node);
  llvm::Error translateMatMul(const Node &node);
  llvm::Error translateBinary(const Node &node);
  llvm::Error translateUnary(const Node &node);
  llvm::Error translateSoftmax(const Node &node);
  llvm::Error translateShapeOp(const Node &node);
  llvm::Error translateLayerNorm(const Node &node);
  llvm::Error translateDropout(const Node &node);
  llvm::Error translateConv(const Node &node);
  llvm::Error translatePool(const Node &node);
  llvm::Error translateReduce(const Node &node);
  llvm::Error translateCompare(const Node &node);
  llvm::Error translateWhere(const Node &node);
  llvm::Error translateSlice(const Node &node);
  llvm::Error translateSplit(const Node &node);
  llvm::Error translateExpand(const Node &node);
  llvm::Error translateBatchNorm(const Node &node);
  // -- GELU's exported forms (OnnxGelu.cpp) ----------------------------------
  /// PyTorch's exact GELU, exported as x * 0.5 * (1 + Erf(x / sqrt 2)) in
  /// any order of its products, starting at the Div of node `index`: the
  /// nodes it covers, or none when the nodes there are not that pattern.
  std::optional<std::vector<size_t>> matchGelu(size_t index);
  /// The tanh GELU, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) in any
  /// order of its products, at the Tanh of node `index`: mpg.gelu
  /// approximate, and the nodes it covers (the Tanh and its readers; the
  /// products before it were translated and are left unread).
  std::optional<std::vector<size_t>> matchTanhGelu(size_t index);
  /// The value of a scalar f32 constant (an initializer or a Constant node).
  std::optional<double> scalarValue(const std::string &name) const;
  /// Whether `name` is a scalar constant within 1e-3 (relative) of `want`.
  bool scalarNear(const std::string &name, double want) const;
  /// The one node reading `name`, if it has op type `op`.
  std::optional<size_t> onlyReader(const std::string &name, const char *op) const;
  /// `name` as c x^p for the value `x` (a product of Mul nodes of x and
  /// scalar constants, in any order, at most 5 deep): (p, c), or nothing.
  std::optional<std::pair<int, double>> monomial(const std::string &name, const std::string &x,
                                                 int depth = 0) const;
  /// Shape arithmetic on known constants, folded (Shape, Gather, Unsqueeze,
  /// Squeeze, Concat, Cast, ConstantOfShape, integer Add/Sub/Mul/Div).
  std::optional<llvm::Error> foldKnown(const Node &node);

  // -- graph parts (OnnxImporter.cpp) ----------------------------------------
  llvm::Error addInputs();
  llvm::Error addInitializers();
  llvm::Error addOutputsAndTraining();

  /// An error about `node`: its name, op type and the model's opset.
  llvm::Error nodeError(const Node &node, const llvm::Twine &what) const;
  mlir::Location locationOf(size_t nodeIndex);

  mlir::MLIRContext &context;
  /// (the parameters' bytes move from it into the result)
  Model &model;
  const OnnxImportOptions &options;
  std::string path;
  mlir::OpBuilder b;
  mlir::Location loc = mlir::UnknownLoc::get(&context);
  llvm::StringMap<mlir::Value> values;
  llvm::StringMap<rt::HostTensor> constants;
  /// The nodes that read each value, and the node that computes it.
  std::map<std::string, std::vector<size_t>> readers;
  std::map<std::string, size_t> producer;
  /// Running statistics of batch normalisation: state, not parameters.
  std::set<std::string> runningStats;
  ImportedModel result;
};

} // namespace mpc::onnx

#endif // MPC_COMPILER_FRONTEND_ONNXTRANSLATOR_H
