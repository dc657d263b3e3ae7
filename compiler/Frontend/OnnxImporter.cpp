//===- OnnxImporter.cpp - ONNX models as mpg training graphs --------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Frontend/OnnxTranslator.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mpc;
using namespace mpc::onnx;

namespace {

llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

bool isFloat(rt::DType dtype) {
  return dtype == rt::DType::F32 || dtype == rt::DType::F64 || dtype == rt::DType::F16;
}

} // namespace

Location Translator::locationOf(size_t nodeIndex) {
  return FileLineColLoc::get(&context, path, static_cast<unsigned>(nodeIndex + 1), 1);
}

llvm::Error Translator::nodeError(const Node &node, const llvm::Twine &what) const {
  return failure(path + ": node '" + node.name + "' (" + node.opType + ", opset " +
                 llvm::Twine(model.opset) + "): " + what);
}

const rt::HostTensor *Translator::known(const std::string &name) const {
  auto found = constants.find(name);
  return found == constants.end() ? nullptr : &found->second;
}

std::optional<std::vector<int64_t>> Translator::knownInts(const std::string &name) const {
  const rt::HostTensor *tensor = known(name);
  if (!tensor || (tensor->dtype != rt::DType::I64 && tensor->dtype != rt::DType::I32))
    return std::nullopt;
  std::vector<int64_t> ints(tensor->numElements());
  for (size_t i = 0; i < ints.size(); ++i) {
    if (tensor->dtype == rt::DType::I64) {
      std::memcpy(&ints[i], tensor->bytes.data() + 8 * i, 8);
    } else {
      int32_t v;
      std::memcpy(&v, tensor->bytes.data() + 4 * i, 4);
      ints[i] = v;
    }
  }
  return ints;
}

llvm::Expected<Value> Translator::constant(const rt::HostTensor &tensor, Type element) {
  llvm::SmallVector<int64_t> shape(tensor.shape.begin(), tensor.shape.end());
  if (isFloat(tensor.dtype)) {
    auto type = llvm::cast<FloatType>(element ? element : Type(b.getF32Type()));
    // (the common case, f32 data as f32 or f64 as f64, from the bytes as they
    // are: a causal mask of GPT-2's is a million elements, which one APFloat
    // each made the largest part of the import)
    auto tensorType = RankedTensorType::get(shape, type);
    bool sameType = (tensor.dtype == rt::DType::F32 && type.isF32()) ||
                    (tensor.dtype == rt::DType::F64 && type.isF64());
    if (sameType && tensor.bytes.size() ==
                        static_cast<size_t>(tensor.numElements()) * rt::dtypeSize(tensor.dtype))
      return b
          .create<mpg::ConstantOp>(
              loc, DenseElementsAttr::getFromRawBuffer(
                       tensorType,
                       llvm::ArrayRef<char>(reinterpret_cast<const char *>(tensor.bytes.data()),
                                            tensor.bytes.size())))
          .getResult();
    llvm::SmallVector<APFloat> values;
    for (double v : rt::floatValues(tensor)) {
      APFloat value(v);
      bool lost;
      value.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      values.push_back(value);
    }
    return b.create<mpg::ConstantOp>(loc, DenseElementsAttr::get(tensorType, values)).getResult();
  }
  if (tensor.dtype == rt::DType::Bool) {
    llvm::SmallVector<bool> values(tensor.bytes.begin(), tensor.bytes.end());
    return b
        .create<mpg::ConstantOp>(
            loc, DenseElementsAttr::get(RankedTensorType::get(shape, b.getI1Type()), values))
        .getResult();
  }
  unsigned width = tensor.dtype == rt::DType::I64 ? 64 : 32;
  llvm::SmallVector<APInt> values;
  for (int64_t i = 0, n = tensor.numElements(); i < n; ++i) {
    int64_t v = 0;
    std::memcpy(&v, tensor.bytes.data() + i * (width / 8), width / 8);
    values.push_back(APInt(width, static_cast<uint64_t>(v), /*isSigned=*/true));
  }
  return b
      .create<mpg::ConstantOp>(
          loc,
          DenseElementsAttr::get(RankedTensorType::get(shape, b.getIntegerType(width)), values))
      .getResult();
}

llvm::Expected<Value> Translator::value(const std::string &name) {
  if (Value found = values.lookup(name))
    return found;
  if (const rt::HostTensor *tensor = known(name)) {
    llvm::Expected<Value> made = constant(*tensor);
    if (made)
      values[name] = *made;
    return made;
  }
  return failure(path + ": no value named '" + name + "' is defined before it is used");
}

llvm::Error Translator::addInputs() {
  for (const ValueInfo &input : model.inputs) {
    Type element = input.dtype == "f32"   ? Type(b.getF32Type())
                   : input.dtype == "i64" ? Type(b.getI64Type())
                   : input.dtype == "i32" ? Type(b.getI32Type())
                                          : Type();
    if (!element)
      return failure(path + ": input '" + input.name + "' holds " + input.dtype +
                     " elements; mpc takes f32, i32 and i64 inputs");
    if (!input.hasShape)
      return failure(path + ": input '" + input.name + "' has no shape");
    llvm::SmallVector<int64_t> shape;
    for (auto [axis, dim] : llvm::enumerate(input.shape)) {
      int64_t value = dim.value;
      if (value < 0) {
        auto given = dim.param.empty() ? options.dims.end() : options.dims.find(dim.param);
        if (given != options.dims.end())
          value = given->second;
        else if (axis == 0 && options.batch > 0)
          value = options.batch;
      }
      if (value <= 0)
        return failure(
            path + ": input '" + input.name + "' axis " + llvm::Twine(axis) + " is dynamic" +
            (dim.param.empty() ? "" : " ('" + dim.param + "')") + "; give it a value with " +
            (axis == 0 ? "--batch N" : "") +
            (dim.param.empty() ? "" : (axis == 0 ? " or --dim " : "--dim ") + dim.param + "=N"));
      shape.push_back(value);
    }
    define(input.name,
           b.create<mpg::InputOp>(loc, RankedTensorType::get(shape, element), input.name));
  }
  return llvm::Error::success();
}

llvm::Error Translator::addInitializers() {
  auto globs = [](const std::vector<std::string> &patterns, const char *option,
                  std::vector<llvm::GlobPattern> &out) -> llvm::Error {
    for (const std::string &pattern : patterns) {
      llvm::Expected<llvm::GlobPattern> glob = llvm::GlobPattern::create(pattern);
      if (!glob)
        return failure(llvm::Twine("--") + option + " '" + pattern +
                       "' is not a valid glob: " + llvm::toString(glob.takeError()));
      out.push_back(std::move(*glob));
    }
    return llvm::Error::success();
  };
  std::vector<llvm::GlobPattern> frozen, fixed;
  if (llvm::Error error = globs(options.freeze, "freeze", frozen))
    return error;
  if (llvm::Error error = globs(options.constants, "constant", fixed))
    return error;
  for (const onnx::Initializer &initializer : model.initializers) {
    const std::string &name = initializer.name;
    const rt::HostTensor &tensor = initializer.tensor;
    // Float tensors of rank 1 or more are the model's parameters; integers
    // (shapes, indices) and scalars are constants.
    if (!isFloat(tensor.dtype) || tensor.shape.empty() ||
        llvm::any_of(fixed, [&](const llvm::GlobPattern &g) { return g.match(name); })) {
      constants[name] = initializer.materialized();
      continue;
    }
    llvm::SmallVector<int64_t> shape(tensor.shape.begin(), tensor.shape.end());
    bool isFrozen = llvm::any_of(frozen, [&](const llvm::GlobPattern &g) { return g.match(name); });
    auto init = mpg::InitializerAttr::get(&context, mpg::InitKind::Zeros, b.getDictionaryAttr({}));
    auto type = RankedTensorType::get(shape, b.getF32Type());
    if (runningStats.count(name))
      define(name, b.create<mpg::StateOp>(loc, type, name, init));
    else
      define(name, b.create<mpg::ParamOp>(loc, type, name, init, isFrozen));
    if (tensor.dtype == rt::DType::F32 && initializer.mapped) {
      // A view of the mapped file, which the weights keep.
      result.weights.tensors[name] = {rt::DType::F32, tensor.shape, *initializer.mapped};
      continue;
    }
    rt::HostTensor values = initializer.materialized();
    rt::HostTensor weight;
    weight.dtype = rt::DType::F32;
    weight.shape = tensor.shape;
    if (values.dtype == rt::DType::F32) {
      weight.bytes = std::move(values.bytes);
    } else {
      std::vector<double> widened = rt::floatValues(values);
      weight.bytes.resize(widened.size() * 4);
      for (size_t i = 0; i < widened.size(); ++i) {
        float v = static_cast<float>(widened[i]);
        std::memcpy(weight.bytes.data() + 4 * i, &v, 4);
      }
    }
    result.weights.add(name, std::move(weight));
  }
  if (!result.weights.empty())
    result.weights.storage.push_back(model.file);
  return llvm::Error::success();
}

llvm::Error Translator::addOutputsAndTraining() {
  for (const ValueInfo &output : model.outputs) {
    llvm::Expected<Value> v = value(output.name);
    if (!v)
      return v.takeError();
    b.create<mpg::OutputOp>(loc, output.name, *v);
  }
  if (options.loss.empty())
    return llvm::Error::success();
  std::string lossOutput = options.lossOutput;
  if (lossOutput.empty()) {
    if (model.outputs.size() != 1)
      return failure(path + ": the model has " + llvm::Twine(model.outputs.size()) +
                     " outputs; name the one the loss reads with --loss KIND:OUTPUT");
    lossOutput = model.outputs.front().name;
  }
  Value out = values.lookup(lossOutput);
  if (!out)
    return failure(path + ": the loss reads output '" + lossOutput + "', which the model lacks");
  auto type = llvm::cast<RankedTensorType>(out.getType());
  Value loss;
  if (options.loss == "softmax_cross_entropy") {
    if (type.getRank() != 2)
      return failure(path + ": softmax_cross_entropy reads logits [B, C]; output '" + lossOutput +
                     "' has rank " + llvm::Twine(type.getRank()));
    // A model of token sequences (an integer input [B, T]) with logits
    // [B*T, C] predicts a target per token: its labels are mpc train's
    // "targets" of sequence data, [B, T], flattened for the loss.
    int64_t rows = type.getDimSize(0);
    Value labels;
    for (const ValueInfo &input : model.inputs) {
      auto tokens = llvm::cast<RankedTensorType>(values.lookup(input.name).getType());
      if (tokens.getRank() == 2 && llvm::isa<IntegerType>(tokens.getElementType()) &&
          tokens.getNumElements() == rows) {
        Value targets = b.create<mpg::InputOp>(
            loc, RankedTensorType::get(tokens.getShape(), b.getI32Type()), "targets");
        labels =
            b.create<mpg::ReshapeOp>(loc, RankedTensorType::get({rows}, b.getI32Type()), targets);
        break;
      }
    }
    if (!labels)
      labels = b.create<mpg::InputOp>(loc, RankedTensorType::get({rows}, b.getI32Type()), "labels");
    loss = b.create<mpg::SoftmaxCrossEntropyOp>(loc, out, labels);
    if (lossOutput != "logits")
      b.create<mpg::OutputOp>(loc, "logits", out); // (mpc train's accuracy reads it)
  } else if (options.loss == "mse") {
    Value targets = b.create<mpg::InputOp>(loc, type, "targets");
    loss = b.create<mpg::MseLossOp>(loc, out, targets);
  } else {
    return failure("unknown loss '" + options.loss + "'; expected softmax_cross_entropy or mse");
  }
  std::optional<mpg::OptimizerKind> kind = mpg::symbolizeOptimizerKind(options.optimizer);
  if (!kind)
    return failure("unknown optimizer '" + options.optimizer + "'; expected sgd, adam or adamw");
  llvm::SmallVector<NamedAttribute> args;
  for (const auto &[key, number] : options.optimizerArgs)
    args.push_back(b.getNamedAttr(key, b.getF64FloatAttr(number)));
  // (a learning rate it needs; --lr and --optimizer-arg replace it when the
  // graph is compiled)
  if (!options.optimizerArgs.count("lr"))
    args.push_back(b.getNamedAttr("lr", b.getF64FloatAttr(0.01)));
  std::string problem;
  auto optimizer = mpg::OptimizerAttr::getChecked([&] { return emitError(loc); }, &context, *kind,
                                                  b.getDictionaryAttr(args));
  if (!optimizer)
    return llvm::createStringError("the optimizer's settings are not valid (see above)");
  b.create<mpg::MinimizeOp>(loc, loss, optimizer);
  return llvm::Error::success();
}

llvm::Expected<ImportedModel> Translator::run() {
  result.module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(result.module->getBody());
  std::string name = llvm::sys::path::stem(path).str();
  auto graph = b.create<mpg::GraphOp>(loc, name.empty() ? "model" : name);
  b.setInsertionPointToEnd(&graph.getBody().front());
  for (auto [index, node] : llvm::enumerate(model.nodes)) {
    for (const std::string &input : node.inputs)
      readers[input].push_back(index);
    for (const std::string &output : node.outputs)
      producer[output] = index;
    if (node.opType == "BatchNormalization")
      for (size_t i = 3; i < 5 && i < node.inputs.size(); ++i)
        runningStats.insert(node.inputs[i]);
  }
  if (llvm::Error error = addInputs())
    return std::move(error);
  if (llvm::Error error = addInitializers())
    return std::move(error);
  std::set<size_t> covered;
  for (auto [index, node] : llvm::enumerate(model.nodes)) {
    if (covered.count(index))
      continue;
    loc = locationOf(index);
    std::optional<std::vector<size_t>> gelu;
    if (node.opType == "Div")
      gelu = matchGelu(index);
    else if (node.opType == "Tanh")
      gelu = matchTanhGelu(index);
    if (gelu) {
      covered.insert(gelu->begin(), gelu->end());
      continue;
    }
    if (llvm::Error error = translate(node))
      return std::move(error);
  }
  loc = FileLineColLoc::get(&context, path, static_cast<unsigned>(model.nodes.size() + 1), 1);
  if (llvm::Error error = addOutputsAndTraining())
    return std::move(error);
  // Constants that only fed folded shape arithmetic, transposes that
  // matmuls read through, and the products and sums of a GELU recognised
  // after them are left unused.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(graph.getBody().front())))
    if (llvm::isa<mpg::ConstantOp, mpg::TransposeOp, mpg::MulOp, mpg::AddOp>(op) && op.use_empty())
      op.erase();
  if (failed(verify(*result.module)))
    return failure(path + ": the imported graph does not verify (see above)");
  return std::move(result);
}

/// Opsets 13 to 17 are imported; an older model too when each of its ops
/// is defined at its opset as at opset 13 (ONNX's own node tests declare
/// the opset at which an op last changed, e.g. Conv's 11).
static llvm::Error checkOpset(const std::string &path, const Model &model) {
  const char *hint = " (torch.onnx.export(..., opset_version=17))";
  if (model.opset > 17)
    return failure(path + ": the model uses opset " + llvm::Twine(model.opset) +
                   "; mpc imports opsets 13 to 17" + hint);
  if (model.opset >= 13)
    return llvm::Error::success();
  for (const Node &node : model.nodes) {
    const std::vector<std::string> &supported = supportedOnnxOps();
    bool imported = llvm::any_of(supported, [&](const std::string &op) {
      return llvm::StringRef(op).split(' ').first == node.opType; // ("Erf (in GELU)")
    });
    if ((!node.domain.empty() && node.domain != "ai.onnx") || !imported)
      continue; // (refused as an unsupported op)
    int64_t version = definitionVersion(node.opType, model.opset);
    int64_t current = definitionVersion(node.opType, 13);
    if (version == 0)
      return failure(path + ": node '" + node.name + "' (" + node.opType + ", opset " +
                     llvm::Twine(model.opset) + "): ONNX has no " + node.opType +
                     " at the model's opset" + hint);
    if (version != current)
      return failure(path + ": node '" + node.name + "' (" + node.opType + ", opset " +
                     llvm::Twine(model.opset) + "): the model uses " + node.opType + "-" +
                     llvm::Twine(version) + ", and mpc imports " + node.opType +
                     " as opsets 13 "
                     "to 17 define it (" +
                     node.opType + "-" + llvm::Twine(current) +
                     "); export the model with opset 13 or later" + hint);
  }
  return llvm::Error::success();
}

/// One line per node, for diagnostics' source lines.
static std::string nodeListing(const Model &model) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (const Node &node : model.nodes) {
    os << node.opType << " '" << node.name << "' (";
    llvm::interleaveComma(node.inputs, os);
    os << ") -> ";
    llvm::interleaveComma(node.outputs, os);
    os << "\n";
  }
  os << "outputs: ";
  llvm::interleaveComma(model.outputs, os, [&](const ValueInfo &v) { os << v.name; });
  os << "\n";
  return text;
}

llvm::Expected<ImportedModel> mpc::importOnnx(const std::string &path, MLIRContext &context,
                                              const OnnxImportOptions &options,
                                              llvm::SourceMgr *listing) {
  context.loadDialect<mpg::MpgDialect>();
  llvm::Expected<Model> model = readModel(path);
  if (!model)
    return model.takeError();
  if (llvm::Error error = checkOpset(path, *model))
    return std::move(error);
  if (listing)
    listing->AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(nodeListing(*model), path),
                                llvm::SMLoc());
  Translator translator(context, *model, options, path);
  return translator.run();
}
