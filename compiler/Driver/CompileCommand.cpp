//===- CompileCommand.cpp - `mpc compile` ----------------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Reads a graph file and compiles it (compiler/Compile/Compile.h) as far as
// --emit asks, and writes the result. Outputs are written through a
// temporary file and renamed into place, so a failure never leaves a
// half-written output.
//
//===----------------------------------------------------------------------===//

#include "compiler/Compile/Compile.h"
#include "compiler/Driver/ArgParser.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Driver/HostCompilerOptions.h"
#include "compiler/Driver/ImportOptions.h"
#include "compiler/Driver/OptimizerOptions.h"
#include "compiler/Driver/PrecisionOptions.h"
#include "compiler/Frontend/GraphLoader.h"
#include "mpc/format/Safetensors.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <optional>

using namespace mpc::driver;

static ArgParser makeCompileParser() {
  ArgParser parser("compile", "mpc compile GRAPH -o BUNDLE [--target LIST] [--emit KIND]",
                   "Compiles a training graph (MLIR text in the mpg dialect) into a bundle that "
                   "`mpc run`\nand the runtime load, or writes an intermediate form. Errors are "
                   "reported as\nFILE:LINE:COL: error: MESSAGE.");
  parser.setPositionals("GRAPH", "the graph file, or - for standard input", 1, 1);
  parser.addOption({"output", 'o', "FILE",
                    "where to write the result; - is standard output (not for bundles)", "-",
                    {}});
  parser.addOption({"emit", 0, "KIND",
                    "what to write: bundle = kernels compiled for --target with the step "
                    "program; graph = the verified graph; fused = after fusion and the memory "
                    "plan; kernels = the mpk program; cuda = the generated CUDA C++; "
                    "manifest = the bundle's step program for the runtime (JSON; a JSON array of "
                    "them for a file of several graphs)",
                    "bundle", {"bundle", "graph", "fused", "kernels", "cuda", "manifest"}});
  parser.addOption({"target", 0, "LIST",
                    "comma-separated targets of a bundle: cpu and/or GPU architectures sm_XX",
                    "cpu", {}});
  parser.addOption({"step", 0, "KIND",
                    "which step to compile: forward = the graph as written (mpg.minimize's "
                    "loss becomes the output \"loss\"); train = the whole training step "
                    "(backward pass and optimizer update)",
                    "forward", {"forward", "train"}});
  parser.addOption({"graph", 0, "NAME",
                    "the graph to compile when the file holds several (by its @name)", "", {}});
  addPrecisionOptions(parser);
  addOptimizerOptions(parser);
  addHostCompilerOptions(parser);
  addImportOptions(parser, /*training=*/false);
  parser.addFlag("timings",
                 "print where compiling went to standard error: reading the graph, the pass "
                 "pipeline (with a line per pass), generating CUDA C++, compiling kernels for "
                 "the host and GPUs (or reading them from the kernel cache), writing");
  return parser;
}

/// Writes what `--emit` asks for, short of a bundle: the CUDA C++, the
/// manifest(s), or the module as text.
static llvm::Error writeStage(llvm::raw_ostream &os, mpc::CompileStage stage,
                              mlir::ModuleOp module, const mpc::Compilation &compiled) {
  if (stage == mpc::CompileStage::Cuda) {
    for (const mpc::GeneratedKernels &kernels : compiled.kernels)
      os << kernels.source;
    return llvm::Error::success();
  }
  if (stage == mpc::CompileStage::Manifest) {
    // One graph: its manifest; several: a JSON array of them, in the file's
    // order (one JSON document either way).
    bool several = compiled.programs.size() > 1;
    if (several)
      os << "[\n";
    for (auto [index, program, kernels] : llvm::enumerate(compiled.programs, compiled.kernels)) {
      llvm::Expected<std::string> manifest = mpc::programManifest(program, kernels);
      if (!manifest)
        return manifest.takeError();
      os << (index ? ",\n" : "") << *manifest;
    }
    os << (several ? "\n]\n" : "\n"); // (a file without graphs is refused when read)
    return llvm::Error::success();
  }
  mlir::OpPrintingFlags flags;
  for (mlir::Operation &op : module.getBody()->getOperations()) {
    op.print(os, flags);
    os << "\n";
  }
  return llvm::Error::success();
}

int mpc::driver::runCompileCommand(llvm::ArrayRef<std::string> args) {
  ArgParser parser = makeCompileParser();
  if (std::optional<int> code = parseCommandLine(parser, args))
    return *code;
  mpc::CompileStage stage = *mpc::parseCompileStage(*parser.get("emit"));
  std::string output = *parser.get("output");
  if (stage == mpc::CompileStage::Bundle && output == "-") {
    reportError("a bundle is a binary file: name it with -o FILE (or choose --emit graph, "
                "fused, kernels or cuda to print text)");
    return kExitUsage;
  }
  mpc::CompileOptions options;
  if (llvm::Expected<BundleTargets> targets = parseTargets(*parser.get("target")))
    options.targets = std::move(*targets);
  else {
    reportError(llvm::toString(targets.takeError()));
    return kExitUsage;
  }
  // (--emit graph verifies the graph only, with no precision)
  if (stage != mpc::CompileStage::Graph && !readPrecisionOptions(parser, options.precision))
    return kExitUsage;
  if (!readOptimizerOptions(parser, options.optimizerArgs))
    return kExitUsage;
  options.targets.host = readHostCompilerOptions(parser);
  options.trainingStep = *parser.get("step") == "train";
  options.graphName = parser.get("graph").value_or("");
  options.sourceName = parser.positionals().front();
  options.verified = true; // by loadGraphFile

  bool timings = parser.flag("timings");
  using Clock = std::chrono::steady_clock;
  Clock::time_point started = Clock::now();
  auto since = [](Clock::time_point from) {
    return std::chrono::duration<double>(Clock::now() - from).count();
  };
  // Pass-level times, printed with the others after a compile that
  // succeeds (printTimes); a command that fails prints none.
  mlir::DefaultTimingManager passTimes;
  passTimes.setEnabled(timings);
  if (timings)
    options.passTiming = &passTimes;
  auto noTimesOnFailure = llvm::make_scope_exit([&] { passTimes.setEnabled(false); });

  mlir::MLIRContext context;
  context.printOpOnDiagnostic(false);
  mpc::loadGraphDialects(context);
  llvm::SourceMgr sourceMgr;
  DiagnosticPrinter diagnostics(sourceMgr, context);

  const std::string &input = parser.positionals().front();
  OnnxImportOptions onnx;
  if (isOnnxFile(input) && !readImportOptions(parser, options.trainingStep, onnx))
    return kExitUsage;
  mpc::ModelWeights weights;
  mlir::OwningOpRef<mlir::ModuleOp> module = loadSource(input, sourceMgr, context, onnx, &weights);
  if (!module)
    return kExitError;
  double loadSeconds = since(started);
  llvm::Expected<mpc::Compilation> compiled =
      mpc::compileModule(*module, stage, options, stage == mpc::CompileStage::Bundle ? output : "");
  if (!compiled) {
    reportCompileError(compiled.takeError());
    return kExitError;
  }
  // An .onnx model's bundle starts from its initializers only with them:
  // they go beside the bundle, for mpc run --params and mpc train --init.
  if (!weights.empty() && stage == mpc::CompileStage::Bundle) {
    llvm::SmallString<256> path(output);
    llvm::sys::path::replace_extension(path, ".safetensors");
    // (left as it is when it already holds them: a compile of an unchanged
    // model would rewrite hundreds of MB)
    std::map<std::string, rt::TensorView> views = weights.views();
    bool unchanged = rt::holdsSafetensors(path.str().str(), views, {});
    if (!unchanged)
      if (rt::Status status = rt::writeSafetensorViews(path.str().str(), views, {});
          !status.isOk()) {
        reportError(status.message());
        return kExitError;
      }
    llvm::outs() << "the model's weights: " << path << (unchanged ? ", unchanged" : "")
                 << " (mpc run --params, mpc train --init)\n";
  }

  auto printTimes = [&](const mpc::BundleTimings *bundle) {
    if (!timings)
      return;
    llvm::raw_ostream &os = llvm::errs();
    auto line = [&](llvm::StringRef what, double seconds) {
      os << llvm::format("mpc: time: %-36s %8.3f s\n", what.str().c_str(), seconds);
    };
    line("reading the graph", loadSeconds + compiled->checkSeconds);
    line("passes (per pass below)", compiled->passSeconds);
    line("generating CUDA C++", compiled->emitSeconds);
    double kernels = 0;
    if (bundle) {
      if (options.targets.cpu)
        line(bundle->hostCached ? "host kernels (from the kernel cache)"
                                : "host kernels (C++ compiler)",
             bundle->hostSeconds);
      if (!options.targets.gpuArchs.empty())
        line(bundle->gpuCached ? "GPU kernels (from the kernel cache)" : "GPU kernels (NVRTC)",
             bundle->gpuSeconds);
      line("manifest and writing", bundle->otherSeconds);
      kernels = bundle->kernelSeconds; // (the host's and the GPUs' overlap)
    }
    double total = since(started);
    line("total", total);
    line("total without compiling kernels", total - kernels);
    passTimes.print();
    passTimes.setEnabled(false); // printed once, not again when it goes
  };

  if (stage == mpc::CompileStage::Bundle) {
    printTimes(&compiled->bundle);
    return kExitOk;
  }
  llvm::Error written = llvm::writeToOutput(output, [&](llvm::raw_ostream &os) -> llvm::Error {
    return writeStage(os, stage, *module, *compiled);
  });
  if (written) {
    reportError("cannot write '" + output + "': " + llvm::toString(std::move(written)));
    return kExitError;
  }
  printTimes(nullptr);
  return kExitOk;
}

int mpc::driver::compileGraphFile(const std::string &source, const mpc::CompileOptions &options,
                                  const std::string &bundlePath, const OnnxImportOptions *onnx,
                                  ModelWeights *weights) {
  mlir::MLIRContext context;
  context.printOpOnDiagnostic(false);
  mpc::loadGraphDialects(context);
  llvm::SourceMgr sourceMgr;
  DiagnosticPrinter diagnostics(sourceMgr, context);
  OnnxImportOptions none;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      loadSource(source, sourceMgr, context, onnx ? *onnx : none, weights);
  if (!module)
    return kExitError;
  mpc::CompileOptions named = options;
  named.sourceName = source;
  named.verified = true; // by loadGraphFile
  if (llvm::Expected<mpc::Compilation> compiled =
          mpc::compileModule(*module, mpc::CompileStage::Bundle, named, bundlePath);
      !compiled) {
    reportCompileError(compiled.takeError());
    return kExitError;
  }
  return kExitOk;
}
