//===- CompileCommand.cpp - `mpc compile` ----------------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Reads a graph file, verifies it, runs the pipeline as far as --emit asks,
// and writes the result. Outputs are written through a temporary file and
// renamed into place, so a failure never leaves a half-written output.
//
//===----------------------------------------------------------------------===//

#include "compiler/CodeGen/BundleWriter.h"
#include "compiler/CodeGen/CudaEmitter.h"
#include "compiler/Driver/ArgParser.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Driver/GraphLimits.h"
#include "compiler/Driver/PrecisionOptions.h"
#include "compiler/Frontend/GraphLoader.h"
#include "passes/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/PassManager.h"
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
  parser.addFlag("timings",
                 "print where compiling went to standard error: reading the graph, the pass "
                 "pipeline (with a line per pass), generating CUDA C++, compiling kernels for "
                 "the host and GPUs (or reading them from the kernel cache), writing");
  return parser;
}

/// Keeps only the graph a bundle is made of; errors when that is ambiguous.
static mlir::LogicalResult selectGraph(mlir::ModuleOp module, const std::string &name) {
  llvm::SmallVector<mlir::mpg::GraphOp> graphs(module.getOps<mlir::mpg::GraphOp>());
  mlir::mpg::GraphOp chosen;
  for (mlir::mpg::GraphOp graph : graphs)
    if (name.empty() ? graphs.size() == 1 : graph.getSymName() == name)
      chosen = graph;
  if (!chosen) {
    std::string names;
    for (mlir::mpg::GraphOp graph : graphs)
      names += (names.empty() ? "@" : ", @") + graph.getSymName().str();
    reportError(name.empty()
                    ? "a bundle holds one graph and the file has " +
                          std::to_string(graphs.size()) + " (" + names +
                          "); choose one with --graph NAME"
                    : "the file has no graph @" + name + " (it has " + names + ")");
    return mlir::failure();
  }
  for (mlir::mpg::GraphOp graph : graphs)
    if (graph != chosen)
      graph.erase();
  return mlir::success();
}

int mpc::driver::runCompileCommand(llvm::ArrayRef<std::string> args) {
  ArgParser parser = makeCompileParser();
  std::string error;
  if (!parser.parse(args, error)) {
    reportError(error + "; run 'mpc compile --help' for usage");
    return kExitUsage;
  }
  if (parser.helpRequested()) {
    parser.printHelp(llvm::outs());
    return kExitOk;
  }
  std::string emit = *parser.get("emit");
  std::string output = *parser.get("output");
  if (emit == "bundle" && output == "-") {
    reportError("a bundle is a binary file: name it with -o FILE (or choose --emit graph, "
                "fused, kernels or cuda to print text)");
    return kExitUsage;
  }
  llvm::Expected<BundleTargets> targets = parseTargets(*parser.get("target"));
  if (!targets) {
    reportError(llvm::toString(targets.takeError()));
    return kExitUsage;
  }

  bool timings = parser.flag("timings");
  using Clock = std::chrono::steady_clock;
  Clock::time_point started = Clock::now();
  auto since = [](Clock::time_point from) {
    return std::chrono::duration<double>(Clock::now() - from).count();
  };
  // Pass-level times, printed when the timing manager goes (at return).
  mlir::DefaultTimingManager passTimes;
  passTimes.setEnabled(timings);
  double readSeconds = 0, passSeconds = 0, emitSeconds = 0;

  mlir::MLIRContext context;
  context.printOpOnDiagnostic(false);
  mpc::loadGraphDialects(context);
  llvm::SourceMgr sourceMgr;
  DiagnosticPrinter diagnostics(sourceMgr, context);

  const std::string &input = parser.positionals().front();
  mlir::OwningOpRef<mlir::ModuleOp> module = mpc::loadGraphFile(input, sourceMgr, context);
  if (!module)
    return kExitError;
  if ((emit == "bundle" || parser.isSet("graph")) &&
      mlir::failed(selectGraph(*module, parser.get("graph").value_or(""))))
    return kExitError;
  // (--emit graph verifies the graph only: the dialect takes what mpc does
  // not compile)
  if (emit != "graph" && mlir::failed(checkGraphLimits(*module, *parser.get("step") == "train")))
    return kExitError;
  readSeconds = since(started);

  if (emit != "graph") {
    mlir::PassManager pm(&context);
    bool train = *parser.get("step") == "train";
    mpc::PrecisionConfig precision;
    if (!readPrecisionOptions(parser, precision))
      return kExitUsage;
    if (emit == "fused")
      mpc::buildGraphPipeline(pm, train, precision);
    else if (train)
      mpc::buildTrainingPipeline(pm, precision);
    else
      mpc::buildForwardPipeline(pm, precision);
    Clock::time_point passesStarted = Clock::now();
    std::optional<mlir::TimingScope> passScope;
    if (timings) {
      passScope = passTimes.getRootScope();
      pm.enableTiming(*passScope);
    }
    if (mlir::failed(pm.run(*module)))
      return kExitError;
    passScope.reset();
    passSeconds = since(passesStarted);
  }

  std::vector<mpc::GeneratedKernels> generated;
  std::vector<mlir::mpk::ProgramOp> programs;
  Clock::time_point emitStarted = Clock::now();
  if (emit == "cuda" || emit == "bundle" || emit == "manifest") {
    for (auto program : module->getOps<mlir::mpk::ProgramOp>()) {
      mlir::FailureOr<mpc::GeneratedKernels> kernels = mpc::emitCuda(program);
      if (mlir::failed(kernels))
        return kExitError;
      generated.push_back(std::move(*kernels));
      programs.push_back(program);
    }
  }

  emitSeconds = since(emitStarted);
  auto printTimes = [&](const mpc::BundleTimings *bundle) {
    if (!timings)
      return;
    llvm::raw_ostream &os = llvm::errs();
    auto line = [&](llvm::StringRef what, double seconds) {
      os << llvm::format("mpc: time: %-36s %8.3f s\n", what.str().c_str(), seconds);
    };
    line("reading the graph", readSeconds);
    line("passes (per pass below)", passSeconds);
    line("generating CUDA C++", emitSeconds);
    double kernels = 0;
    if (bundle) {
      if (targets->cpu)
        line(bundle->hostCached ? "host kernels (from the kernel cache)"
                                : "host kernels (C++ compiler)",
             bundle->hostSeconds);
      if (!targets->gpuArchs.empty())
        line(bundle->gpuCached ? "GPU kernels (from the kernel cache)" : "GPU kernels (NVRTC)",
             bundle->gpuSeconds);
      line("manifest and writing", bundle->otherSeconds);
      kernels = bundle->hostSeconds + bundle->gpuSeconds;
    }
    double total = since(started);
    line("total", total);
    line("total without compiling kernels", total - kernels);
    passTimes.print();
    passTimes.setEnabled(false); // printed once, not again when it goes
  };

  if (emit == "bundle") {
    mpc::BundleTimings bundleTimes;
    if (llvm::Error failure = mpc::writeProgramBundle(programs.front(), generated.front(),
                                                      *targets, output, &bundleTimes)) {
      reportError("cannot compile " + input + ": " + llvm::toString(std::move(failure)));
      return kExitError;
    }
    printTimes(&bundleTimes);
    return kExitOk;
  }

  llvm::Error written = llvm::writeToOutput(output, [&](llvm::raw_ostream &os) -> llvm::Error {
    if (emit == "cuda") {
      for (const mpc::GeneratedKernels &kernels : generated)
        os << kernels.source;
      return llvm::Error::success();
    }
    if (emit == "manifest") {
      // One graph: its manifest; several: a JSON array of them, in the
      // file's order (one JSON document either way).
      bool several = programs.size() > 1;
      if (several)
        os << "[\n";
      for (auto [index, program, kernels] : llvm::enumerate(programs, generated)) {
        llvm::Expected<std::string> manifest = mpc::programManifest(program, kernels);
        if (!manifest)
          return manifest.takeError();
        os << (index ? ",\n" : "") << *manifest;
      }
      os << (several ? "\n]\n" : "\n"); // (a file without graphs is refused when read)
      return llvm::Error::success();
    }
    mlir::OpPrintingFlags flags;
    for (mlir::Operation &op : module->getBody()->getOperations()) {
      op.print(os, flags);
      os << "\n";
    }
    return llvm::Error::success();
  });
  if (written) {
    reportError("cannot write '" + output + "': " + llvm::toString(std::move(written)));
    return kExitError;
  }
  printTimes(nullptr);
  return kExitOk;
}
