//===- ImportOptions.cpp - models from ONNX files on the command line -----===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/ImportOptions.h"

#include "compiler/Driver/ArgParser.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Frontend/GraphLoader.h"

#include "llvm/ADT/StringRef.h"

using namespace mpc::driver;

void mpc::driver::addImportOptions(ArgParser &parser, bool training) {
  parser.addOption({"batch",
                    0,
                    "N",
                    "an .onnx model: the batch size, the value of every input's first "
                    "dimension that is dynamic (named or not) and not given with --dim",
                    "",
                    {}});
  parser.addOption({"dim",
                    0,
                    "NAME=N",
                    "an .onnx model: the value of a named dynamic dimension (repeatable)",
                    "",
                    {},
                    /*repeatable=*/true});
  parser.addOption({"loss",
                    0,
                    "KIND[:OUTPUT]",
                    std::string("an .onnx model: the loss on the model's output (its only one, "
                                "or OUTPUT): softmax_cross_entropy (logits [B, C] and an i32 "
                                "input \"labels\" [B]) or mse (an f32 input \"targets\" of the "
                                "output's shape)") +
                        (training ? "" : "; none: the forward graph only"),
                    training ? "softmax_cross_entropy" : "",
                    {}});
  parser.addOption({"optimizer",
                    0,
                    "NAME",
                    std::string("an .onnx model: the optimizer (learning rate 0.01") +
                        (training ? ", or --lr)" : "; mpc train --lr replaces it)"),
                    "sgd",
                    {"sgd", "adam", "adamw"}});
  parser.addOption({"freeze",
                    0,
                    "PATTERN",
                    "an .onnx model: keep the initializers whose names match the glob frozen "
                    "(fine-tuning; repeatable)",
                    "",
                    {},
                    /*repeatable=*/true});
  parser.addOption({"constant",
                    0,
                    "PATTERN",
                    "an .onnx model: float initializers whose names match the glob are "
                    "constants, not parameters (a registered buffer such as a mask; "
                    "repeatable)",
                    "",
                    {},
                    /*repeatable=*/true});
}

bool mpc::driver::readImportOptions(const ArgParser &parser, bool training,
                                    OnnxImportOptions &options) {
  if (parser.isSet("batch")) {
    uint64_t batch = 0;
    if (!readIntegerOption(parser, "batch", batch, /*minimum=*/1))
      return false;
    options.batch = static_cast<int64_t>(batch);
  }
  for (const std::string &item : parser.getAll("dim")) {
    auto [name, number] = llvm::StringRef(item).split('=');
    int64_t value = 0;
    if (name.empty() || number.getAsInteger(10, value) || value < 1) {
      reportError("--dim expects NAME=N with N >= 1, got '" + item + "'");
      return false;
    }
    options.dims[name.str()] = value;
  }
  std::string loss = parser.get("loss").value_or("");
  if (loss != "none") {
    auto [kind, output] = llvm::StringRef(loss).split(':');
    if (!kind.empty() && kind != "softmax_cross_entropy" && kind != "mse") {
      reportError("--loss expects softmax_cross_entropy[:OUTPUT], mse[:OUTPUT] or none, got '" +
                  loss + "'");
      return false;
    }
    options.loss = kind.str();
    options.lossOutput = output.str();
  }
  if (training && options.loss.empty()) {
    reportError("training an .onnx model needs a loss: --loss softmax_cross_entropy or mse");
    return false;
  }
  options.optimizer = parser.get("optimizer").value_or("sgd");
  options.freeze = parser.getAll("freeze");
  options.constants = parser.getAll("constant");
  return true;
}

bool mpc::driver::isOnnxFile(const std::string &path) {
  return llvm::StringRef(path).ends_with(".onnx");
}

mlir::OwningOpRef<mlir::ModuleOp> mpc::driver::loadSource(const std::string &path,
                                                          llvm::SourceMgr &sourceMgr,
                                                          mlir::MLIRContext &context,
                                                          const OnnxImportOptions &onnx,
                                                          ModelWeights *weights) {
  if (!isOnnxFile(path))
    return mpc::loadGraphFile(path, sourceMgr, context);
  llvm::Expected<ImportedModel> imported = mpc::importOnnx(path, context, onnx, &sourceMgr);
  if (!imported) {
    reportError(llvm::toString(imported.takeError()));
    return nullptr;
  }
  if (weights)
    *weights = std::move(imported->weights);
  return std::move(imported->module);
}
