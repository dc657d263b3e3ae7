//===- ImportCommand.cpp - `mpc import` ------------------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Translates an ONNX model into a readable mpg graph (-o FILE.mlir) and its
// initializers' values into a weights file (FILE.safetensors beside it, or
// --weights), which `mpc train --init` and `mpc run --params` read. Nothing
// is written when the import fails.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/ArgParser.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Driver/ImportOptions.h"
#include "compiler/Frontend/GraphLoader.h"

#include "mpc/format/FileIO.h"
#include "mpc/format/Safetensors.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mpc::driver;

namespace {

ArgParser makeImportParser() {
  ArgParser parser(
      "import", "mpc import MODEL.onnx -o GRAPH.mlir [--weights FILE] [options]",
      "Translates an ONNX model (PyTorch: torch.onnx.export(model, example, \"model.onnx\", "
      "training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)) into an mpg "
      "graph, its initializers into parameters of the same names and layouts, and writes their "
      "values to a safetensors file for --init. With --loss the graph is a training graph.");
  parser.setPositionals("MODEL.onnx", "the model", 1, 1);
  parser.addOption({"output", 'o', "FILE", "where to write the graph (.mlir)", "", {}});
  parser.addOption({"weights",
                    0,
                    "FILE",
                    "where to write the initializers' values (default: the graph's name with "
                    ".safetensors)",
                    "",
                    {}});
  addImportOptions(parser, /*training=*/false);
  return parser;
}

} // namespace

int mpc::driver::runImportCommand(llvm::ArrayRef<std::string> args) {
  ArgParser parser = makeImportParser();
  if (std::optional<int> code = parseCommandLine(parser, args))
    return *code;
  std::string model = parser.positionals().front();
  std::string output = parser.get("output").value_or("");
  if (output.empty()) {
    reportError("name the graph to write with -o GRAPH.mlir");
    return kExitUsage;
  }
  if (!isOnnxFile(model)) {
    reportError("'" + model + "' is not an .onnx model");
    return kExitUsage;
  }
  if (output == model) {
    reportError("-o would overwrite the model '" + model + "'");
    return kExitUsage;
  }
  std::string weightsPath = parser.get("weights").value_or("");
  if (weightsPath.empty()) {
    llvm::SmallString<256> path(output);
    llvm::sys::path::replace_extension(path, ".safetensors");
    weightsPath = path.str().str();
  }
  if (weightsPath == output || weightsPath == model) {
    reportError("the weights file '" + weightsPath + "' would overwrite the graph or the model");
    return kExitUsage;
  }
  OnnxImportOptions onnx;
  if (!readImportOptions(parser, /*training=*/false, onnx))
    return kExitUsage;

  mlir::MLIRContext context;
  context.printOpOnDiagnostic(false);
  mpc::loadGraphDialects(context);
  llvm::SourceMgr sourceMgr;
  DiagnosticPrinter diagnostics(sourceMgr, context);
  mpc::ModelWeights weights;
  mlir::OwningOpRef<mlir::ModuleOp> module = loadSource(model, sourceMgr, context, onnx, &weights);
  if (!module)
    return kExitError;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "// Imported by mpc from " << llvm::sys::path::filename(model)
     << "; the parameters' values are in " << llvm::sys::path::filename(weightsPath) << ".\n";
  for (mlir::Operation &op : module->getBody()->getOperations()) {
    op.print(os);
    os << "\n";
  }
  if (rt::Status status = rt::writeSafetensorViews(weightsPath, weights.views(), {});
      !status.isOk()) {
    reportError(status.message());
    return kExitError;
  }
  if (rt::Status status = rt::writeFileAtomically(output, {{text.data(), text.size()}});
      !status.isOk()) {
    llvm::sys::fs::remove(weightsPath);
    reportError(status.message());
    return kExitError;
  }
  llvm::outs() << "imported " << model << ": " << weights.size() << " parameters -> " << output
               << ", " << weightsPath << "\n";
  return kExitOk;
}
