//===- Compile.cpp - compiling a graph, as a library call -----------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Compile/Compile.h"

#include "compiler/Compile/GraphLimits.h"
#include "dialects/mpg/IR/MpgOps.h"
#include "dialects/mpk/IR/MpkOps.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringSwitch.h"

#include <chrono>

using namespace mlir;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point from) {
  return std::chrono::duration<double>(Clock::now() - from).count();
}

/// Keeps only the graph named `name` (or the only one, when `name` is
/// empty); an error names the graphs there are when that is ambiguous.
llvm::Error selectGraph(ModuleOp module, const std::string &name) {
  llvm::SmallVector<mpg::GraphOp> graphs(module.getOps<mpg::GraphOp>());
  mpg::GraphOp chosen;
  for (mpg::GraphOp graph : graphs)
    if (name.empty() ? graphs.size() == 1 : graph.getSymName() == name)
      chosen = graph;
  if (!chosen) {
    std::string names;
    for (mpg::GraphOp graph : graphs)
      names += (names.empty() ? "@" : ", @") + graph.getSymName().str();
    return llvm::createStringError(
        name.empty()
            ? "a bundle holds one graph and the file has " + std::to_string(graphs.size()) + " (" +
                  names + "); choose one with --graph NAME"
            : "the file has no graph @" + name + " (it has " + names + ")");
  }
  for (mpg::GraphOp graph : graphs)
    if (graph != chosen)
      graph.erase();
  return llvm::Error::success();
}

/// The pass pipeline up to `stage` (Fused: the graph pipeline; later: the
/// whole pipeline to mpk programs).
LogicalResult runPasses(ModuleOp module, mpc::CompileStage stage,
                        const mpc::CompileOptions &options) {
  PassManager pm(module.getContext());
  if (stage == mpc::CompileStage::Fused)
    mpc::buildGraphPipeline(pm, options.trainingStep, options.precision);
  else if (options.trainingStep)
    mpc::buildTrainingPipeline(pm, options.precision);
  else
    mpc::buildForwardPipeline(pm, options.precision);
  std::optional<TimingScope> scope;
  if (options.passTiming) {
    scope = options.passTiming->getRootScope();
    pm.enableTiming(*scope);
  }
  return pm.run(module);
}

llvm::Error diagnosed(const char *stage) { return llvm::make_error<mpc::DiagnosedError>(stage); }

} // namespace

LogicalResult mpc::setOptimizerArgs(ModuleOp module,
                                    llvm::ArrayRef<std::pair<std::string, double>> args) {
  if (args.empty())
    return success();
  for (auto graph : module.getOps<mpg::GraphOp>()) {
    auto minimizes = llvm::to_vector(graph.getBody().front().getOps<mpg::MinimizeOp>());
    if (minimizes.empty())
      return graph.emitError()
             << "the optimizer's settings (--lr, --clip-grad-norm, --optimizer-arg) apply to "
                "a graph with mpg.minimize; @"
             << graph.getSymName() << " has none";
    for (mpg::MinimizeOp minimize : minimizes) {
      mpg::OptimizerAttr optimizer = minimize.getOptimizer();
      NamedAttrList entries(optimizer.getArgs());
      Builder builder(module.getContext());
      for (const auto &[name, value] : args)
        entries.set(name, builder.getF64FloatAttr(value));
      auto emitError = [&] { return minimize.emitError("with the optimizer's settings given: "); };
      auto changed =
          mpg::OptimizerAttr::getChecked(emitError, module.getContext(), optimizer.getKind(),
                                         entries.getDictionary(module.getContext()));
      if (!changed)
        return failure();
      minimize.setOptimizerAttr(changed);
    }
  }
  return success();
}

char mpc::DiagnosedError::ID = 0;

void mpc::DiagnosedError::log(llvm::raw_ostream &os) const {
  os << stage << " failed (the diagnostics say where)";
}

std::optional<mpc::CompileStage> mpc::parseCompileStage(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<CompileStage>>(name)
      .Case("graph", CompileStage::Graph)
      .Case("fused", CompileStage::Fused)
      .Case("kernels", CompileStage::Kernels)
      .Case("cuda", CompileStage::Cuda)
      .Case("manifest", CompileStage::Manifest)
      .Case("bundle", CompileStage::Bundle)
      .Default(std::nullopt);
}

llvm::Expected<mpc::Compilation> mpc::compileModule(ModuleOp module, CompileStage stage,
                                                    const CompileOptions &options,
                                                    llvm::StringRef bundlePath) {
  Compilation result;
  Clock::time_point started = Clock::now();
  if (stage == CompileStage::Bundle && bundlePath.empty())
    return llvm::createStringError("a bundle needs a file to be written to");
  if (!options.verified && failed(verify(module)))
    return diagnosed("verifying the graph");
  if (stage == CompileStage::Bundle || !options.graphName.empty())
    if (llvm::Error error = selectGraph(module, options.graphName))
      return std::move(error);
  if (failed(mpc::setOptimizerArgs(module, options.optimizerArgs)))
    return diagnosed("setting the optimizer's hyper-parameters");
  // (The Graph stage verifies the graph only: the dialect takes what mpc
  // does not compile.)
  if (stage == CompileStage::Graph)
    return result;
  if (failed(checkGraphLimits(module, options.trainingStep)))
    return diagnosed("checking the graph");
  result.checkSeconds = secondsSince(started);

  Clock::time_point passesStarted = Clock::now();
  if (failed(runPasses(module, stage, options)))
    return diagnosed("the pass pipeline");
  result.passSeconds = secondsSince(passesStarted);
  if (stage == CompileStage::Fused)
    return result;
  for (auto program : module.getOps<mpk::ProgramOp>())
    result.programs.push_back(program);
  if (stage == CompileStage::Kernels)
    return result;

  Clock::time_point emitStarted = Clock::now();
  for (mpk::ProgramOp program : result.programs) {
    FailureOr<GeneratedKernels> kernels = emitCuda(program);
    if (failed(kernels))
      return diagnosed("generating the kernels");
    result.kernels.push_back(std::move(*kernels));
  }
  result.emitSeconds = secondsSince(emitStarted);
  if (stage != CompileStage::Bundle)
    return result;

  if (llvm::Error error =
          writeProgramBundle(result.programs.front(), result.kernels.front(), options.targets,
                             bundlePath.str(), &result.bundle))
    return llvm::createStringError("cannot compile " + options.sourceName + ": " +
                                   llvm::toString(std::move(error)));
  return result;
}
