//===- OnnxModel.h - an ONNX model read into plain structures ---*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Reads an .onnx file with Debian's ONNX library (its generated protobuf
// classes, libonnx_proto) into plain C++ structures that the importer
// translates into an mpg graph (OnnxImporter.h): the graph's inputs and
// outputs with their shapes (a dimension is a number or a name), its
// initializers as host tensors (external data read from the files they
// name, next to the model), and its nodes in order with their attributes.
// Only this file sees protobuf.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_FRONTEND_ONNXMODEL_H
#define MPC_COMPILER_FRONTEND_ONNXMODEL_H

#include "mpc/format/HostTensor.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mpc::onnx {

/// A dimension of a value's shape: a number, or a name (a dynamic
/// dimension, such as "batch"), or neither (unknown).
struct Dim {
  int64_t value = -1;
  std::string param;
};

struct ValueInfo {
  std::string name;
  /// The element type as mpc spells it ("f32", "i64", ...), or the ONNX
  /// type's name when mpc has no such type.
  std::string dtype;
  std::vector<Dim> shape;
  bool hasShape = false;
};

struct Attribute {
  enum class Kind { Int, Float, String, Ints, Floats, Tensor, Other };
  Kind kind = Kind::Other;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  rt::HostTensor tensor;
};

struct Node {
  std::string opType, name, domain;
  /// Input names ("" for an omitted optional input) and output names.
  std::vector<std::string> inputs, outputs;
  std::map<std::string, Attribute> attributes;

  const Attribute *attribute(const std::string &key) const {
    auto found = attributes.find(key);
    return found == attributes.end() ? nullptr : &found->second;
  }
};

/// An initializer: its values in `tensor`, or, for raw data in the model
/// file itself, `tensor` without bytes and `mapped` a view of the mapped
/// file (valid while the Model's `file` lives), so that a model's hundreds
/// of MB of weights are not copied.
struct Initializer {
  std::string name;
  rt::HostTensor tensor;
  std::optional<llvm::ArrayRef<uint8_t>> mapped;

  /// The tensor with its bytes (copied from the file where mapped).
  rt::HostTensor materialized() const;
};

struct Model {
  /// The default domain's opset.
  int64_t opset = 0;
  std::string producer, graphName;
  /// The graph's inputs that are not initializers, and its outputs.
  std::vector<ValueInfo> inputs, outputs;
  /// Initializers in the file's order.
  std::vector<Initializer> initializers;
  std::vector<Node> nodes;
  /// The mapped model file, which the initializers' views point into.
  std::shared_ptr<const llvm::MemoryBuffer> file;
};

/// The version of the definition of ONNX op `opType` (default domain) in
/// effect at `opset`, from the ONNX library's schema registry: the op's
/// "since version". 0 when ONNX defines no such op at that opset. Two
/// opsets that give the same version define the op identically.
int64_t definitionVersion(const std::string &opType, int64_t opset);

/// Reads and checks the model at `path`. Errors name the file and what is
/// wrong: not an ONNX model, a truncated file, external data that is
/// missing or short, a tensor type mpc does not read.
llvm::Expected<Model> readModel(const std::string &path);

} // namespace mpc::onnx

#endif // MPC_COMPILER_FRONTEND_ONNXMODEL_H
