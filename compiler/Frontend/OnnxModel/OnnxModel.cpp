//===- OnnxModel.cpp - an ONNX model read into plain structures -----------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Frontend/OnnxModel.h"
#include "compiler/Frontend/OnnxModel/OnnxWire.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

using namespace mpc;
using namespace mpc::onnx;

namespace {

llvm::Error failure(const std::string &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// mpc's dtype for an ONNX element type, or nothing.
bool dtypeOf(int32_t type, rt::DType &out) {
  switch (type) {
  case ::onnx::TensorProto_DataType_FLOAT:
    out = rt::DType::F32;
    return true;
  case ::onnx::TensorProto_DataType_DOUBLE:
    out = rt::DType::F64;
    return true;
  case ::onnx::TensorProto_DataType_FLOAT16:
    out = rt::DType::F16;
    return true;
  case ::onnx::TensorProto_DataType_INT32:
    out = rt::DType::I32;
    return true;
  case ::onnx::TensorProto_DataType_INT64:
    out = rt::DType::I64;
    return true;
  case ::onnx::TensorProto_DataType_BOOL:
    out = rt::DType::Bool;
    return true;
  default:
    return false;
  }
}

std::string typeName(int32_t type) {
  return ::onnx::TensorProto_DataType_IsValid(type)
             ? ::onnx::TensorProto_DataType_Name(static_cast<::onnx::TensorProto_DataType>(type))
             : "type " + std::to_string(type);
}

/// The parent folder of `path` ("" for the current one).
std::string folderOf(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

/// A decimal count of bytes, or nothing.
std::optional<uint64_t> parseCount(const std::string &text) {
  if (text.empty() || text.size() > 19 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  uint64_t value = 0;
  for (char c : text)
    value = value * 10 + static_cast<uint64_t>(c - '0');
  return value;
}

/// Reads the `expected` bytes of an external data file at the offset the
/// tensor names into `out`.
llvm::Error readExternal(const std::string &modelPath, const ::onnx::TensorProto &proto,
                         uint64_t expected, std::vector<uint8_t> &out) {
  std::string location;
  uint64_t offset = 0, length = 0;
  bool haveLength = false;
  std::string what = modelPath + ": tensor '" + proto.name() + "'";
  for (const auto &entry : proto.external_data()) {
    if (entry.key() == "location") {
      location = entry.value();
      continue;
    }
    if (entry.key() != "offset" && entry.key() != "length")
      continue;
    std::optional<uint64_t> value = parseCount(entry.value());
    if (!value)
      return failure(what + ": its external data's " + entry.key() + " '" + entry.value() +
                     "' is not a count of bytes");
    (entry.key() == "offset" ? offset : length) = *value;
    haveLength |= entry.key() == "length";
  }
  if (location.empty() || location.find("..") != std::string::npos || location[0] == '/')
    return failure(what + " has external data at '" + location +
                   "', which is not a file name beside the model");
  std::string path = folderOf(modelPath) + location;
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return failure(what + " keeps its data in '" + path + "', which cannot be read");
  file.seekg(0, std::ios::end);
  uint64_t size = static_cast<uint64_t>(file.tellg());
  if (!haveLength)
    length = size > offset ? size - offset : 0;
  if (offset > size || length > size - offset || length != expected)
    return failure(what + " needs " + std::to_string(expected) + " bytes at offset " +
                   std::to_string(offset) + " of '" + path + "', which holds " +
                   std::to_string(size));
  out.assign(expected, 0);
  file.seekg(static_cast<std::streamoff>(offset));
  file.read(reinterpret_cast<char *>(out.data()), static_cast<std::streamsize>(length));
  if (!file)
    return failure(what + ": reading '" + path + "' failed");
  return llvm::Error::success();
}

/// Reads `proto` into `out`. `strippedRaw`, when given, is its raw data,
/// which stripInitializerData took out of the message: it is checked, and
/// left for the caller to view rather than copied.
llvm::Error readTensor(const std::string &modelPath, const ::onnx::TensorProto &proto,
                       rt::HostTensor &out,
                       const std::optional<llvm::StringRef> &strippedRaw = std::nullopt) {
  std::string what = modelPath + ": tensor '" + proto.name() + "'";
  if (!dtypeOf(proto.data_type(), out.dtype))
    return failure(what + " holds " + typeName(proto.data_type()) +
                   " elements; mpc reads FLOAT, DOUBLE, FLOAT16, INT32, INT64 and BOOL");
  out.shape.assign(proto.dims().begin(), proto.dims().end());
  std::optional<int64_t> count = rt::elementCount(out.shape);
  if (!count)
    return failure(what + " has an invalid shape " + rt::formatShape(out.shape));
  size_t width = rt::dtypeSize(out.dtype);
  // (the sizes are checked against the data present before anything is
  // allocated: a damaged shape cannot ask for more memory than the file
  // holds)
  uint64_t expected = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(*count), width, &expected))
    return failure(what + " has a shape too large to hold: " + rt::formatShape(out.shape));
  if (proto.data_location() == ::onnx::TensorProto_DataLocation_EXTERNAL)
    return readExternal(modelPath, proto, expected, out.bytes);
  if (strippedRaw) {
    if (strippedRaw->size() != expected)
      return failure(what + " has " + std::to_string(strippedRaw->size()) + " bytes of data for " +
                     std::to_string(*count) + " elements of " + rt::dtypeName(out.dtype));
    return llvm::Error::success();
  }
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != expected)
      return failure(what + " has " + std::to_string(proto.raw_data().size()) +
                     " bytes of data for " + std::to_string(*count) + " elements of " +
                     rt::dtypeName(out.dtype));
    // (as a range of bytes, one copy; the string's own iterators would be
    // converted a char at a time)
    const auto *data = reinterpret_cast<const uint8_t *>(proto.raw_data().data());
    out.bytes.assign(data, data + proto.raw_data().size());
    return llvm::Error::success();
  }
  // Typed fields: floats, doubles, int64s, or int32s (which also hold
  // int32, float16 bits and booleans).
  auto copy = [&](const auto &field, auto convert) -> llvm::Error {
    if (static_cast<int64_t>(field.size()) != *count)
      return failure(what + " has " + std::to_string(field.size()) + " values for " +
                     std::to_string(*count) + " elements");
    out.bytes.assign(expected, 0);
    for (int64_t i = 0; i < *count; ++i)
      convert(field.Get(static_cast<int>(i)), out.bytes.data() + i * width);
    return llvm::Error::success();
  };
  switch (out.dtype) {
  case rt::DType::F32:
    return copy(proto.float_data(), [](float v, uint8_t *to) { std::memcpy(to, &v, 4); });
  case rt::DType::F64:
    return copy(proto.double_data(), [](double v, uint8_t *to) { std::memcpy(to, &v, 8); });
  case rt::DType::I64:
    return copy(proto.int64_data(), [](int64_t v, uint8_t *to) { std::memcpy(to, &v, 8); });
  case rt::DType::I32:
    return copy(proto.int32_data(), [](int32_t v, uint8_t *to) { std::memcpy(to, &v, 4); });
  case rt::DType::F16:
    return copy(proto.int32_data(), [](int32_t v, uint8_t *to) {
      uint16_t bits = static_cast<uint16_t>(v);
      std::memcpy(to, &bits, 2);
    });
  case rt::DType::Bool:
    return copy(proto.int32_data(), [](int32_t v, uint8_t *to) { *to = v != 0; });
  default:
    return failure(what + ": unsupported element type");
  }
}

llvm::Error readValueInfo(const ::onnx::ValueInfoProto &proto, ValueInfo &out) {
  out.name = proto.name();
  if (!proto.type().has_tensor_type())
    return failure("'" + proto.name() + "' is not a tensor (sequences and maps are not read)");
  const auto &tensor = proto.type().tensor_type();
  rt::DType dtype;
  out.dtype =
      dtypeOf(tensor.elem_type(), dtype) ? rt::dtypeName(dtype) : typeName(tensor.elem_type());
  out.hasShape = tensor.has_shape();
  for (const auto &dim : tensor.shape().dim()) {
    Dim d;
    if (dim.has_dim_value())
      d.value = dim.dim_value();
    else if (dim.has_dim_param())
      d.param = dim.dim_param();
    out.shape.push_back(d);
  }
  return llvm::Error::success();
}

llvm::Error readAttribute(const std::string &modelPath, const ::onnx::AttributeProto &proto,
                          Attribute &out) {
  switch (proto.type()) {
  case ::onnx::AttributeProto_AttributeType_INT:
    out.kind = Attribute::Kind::Int;
    out.i = proto.i();
    break;
  case ::onnx::AttributeProto_AttributeType_FLOAT:
    out.kind = Attribute::Kind::Float;
    out.f = proto.f();
    break;
  case ::onnx::AttributeProto_AttributeType_STRING:
    out.kind = Attribute::Kind::String;
    out.s = proto.s();
    break;
  case ::onnx::AttributeProto_AttributeType_INTS:
    out.kind = Attribute::Kind::Ints;
    out.ints.assign(proto.ints().begin(), proto.ints().end());
    break;
  case ::onnx::AttributeProto_AttributeType_FLOATS:
    out.kind = Attribute::Kind::Floats;
    out.floats.assign(proto.floats().begin(), proto.floats().end());
    break;
  case ::onnx::AttributeProto_AttributeType_TENSOR:
    out.kind = Attribute::Kind::Tensor;
    return readTensor(modelPath, proto.t(), out.tensor);
  default:
    out.kind = Attribute::Kind::Other;
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<Model> mpc::onnx::readModel(const std::string &path) {
  // The file mapped and parsed from memory: through a stream, protobuf
  // copied it a buffer at a time before copying the tensors' bytes out
  // (GPT-2 small's 548 MB took seconds).
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!file)
    return failure("cannot read '" + path + "': " + file.getError().message());
  std::shared_ptr<llvm::MemoryBuffer> mapped = std::move(*file);
  llvm::StringRef bytes = mapped->getBuffer();
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return failure(path + ": the model is over 2 GB; keep its tensors in external data "
                          "(torch.onnx.export does for models this size)");
  // Parsed without the initializers' raw data where the layout allows
  // (OnnxWire.h): they stay in the mapped file.
  std::string stripped;
  std::vector<std::optional<llvm::StringRef>> rawData;
  ::onnx::ModelProto proto;
  bool isStripped = stripInitializerData(bytes, stripped, rawData) &&
                    proto.ParseFromArray(stripped.data(), static_cast<int>(stripped.size())) &&
                    proto.graph().initializer_size() == static_cast<int>(rawData.size());
  if (!isStripped) {
    proto.Clear();
    rawData.clear();
    if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
      return failure(path +
                     ": not an ONNX model, or a truncated one (the protobuf does not parse)");
  }
  if (!proto.has_graph())
    return failure(path + ": the model has no graph");
  Model model;
  model.file = mapped;
  model.producer = proto.producer_name() + " " + proto.producer_version();
  for (const auto &opset : proto.opset_import())
    if (opset.domain().empty() || opset.domain() == "ai.onnx")
      model.opset = opset.version();
  if (model.opset == 0)
    return failure(path + ": the model imports no opset of the default ONNX domain");
  const ::onnx::GraphProto &graph = proto.graph();
  model.graphName = graph.name();
  std::set<std::string> initializerNames;
  for (int i = 0; i < graph.initializer_size(); ++i) {
    const ::onnx::TensorProto &tensor = graph.initializer(i);
    Initializer initializer;
    initializer.name = tensor.name();
    std::optional<llvm::StringRef> raw = isStripped ? rawData[i] : std::nullopt;
    if (llvm::Error error = readTensor(path, tensor, initializer.tensor, raw))
      return std::move(error);
    if (raw && tensor.data_location() != ::onnx::TensorProto_DataLocation_EXTERNAL)
      initializer.mapped =
          llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(raw->data()), raw->size());
    initializerNames.insert(tensor.name());
    model.initializers.push_back(std::move(initializer));
  }
  if (graph.sparse_initializer_size() > 0)
    return failure(path + ": sparse initializers are not read");
  for (const auto &input : graph.input()) {
    if (initializerNames.count(input.name()))
      continue; // (older exporters list the initializers as inputs too)
    ValueInfo info;
    if (llvm::Error error = readValueInfo(input, info))
      return failure(path + ": input " + llvm::toString(std::move(error)));
    model.inputs.push_back(std::move(info));
  }
  for (const auto &output : graph.output()) {
    ValueInfo info;
    if (llvm::Error error = readValueInfo(output, info))
      return failure(path + ": output " + llvm::toString(std::move(error)));
    model.outputs.push_back(std::move(info));
  }
  for (const auto &proto : graph.node()) {
    Node node;
    node.opType = proto.op_type();
    node.name = proto.name();
    node.domain = proto.domain();
    node.inputs.assign(proto.input().begin(), proto.input().end());
    node.outputs.assign(proto.output().begin(), proto.output().end());
    for (const auto &attribute : proto.attribute())
      if (llvm::Error error = readAttribute(path, attribute, node.attributes[attribute.name()]))
        return std::move(error);
    model.nodes.push_back(std::move(node));
  }
  return model;
}

rt::HostTensor Initializer::materialized() const {
  rt::HostTensor copy = tensor;
  if (mapped)
    copy.bytes.assign(mapped->begin(), mapped->end());
  return copy;
}

int64_t mpc::onnx::definitionVersion(const std::string &opType, int64_t opset) {
  const ::onnx::OpSchema *schema =
      ::onnx::OpSchemaRegistry::Schema(opType, static_cast<int>(opset), "");
  return schema ? schema->SinceVersion() : 0;
}
