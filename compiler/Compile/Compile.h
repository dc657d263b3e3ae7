//===- Compile.h - compiling a graph, as a library call ----------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The one entry to mpc's compilation: a module of mpg graphs and the options
// in, the step's programs and kernels (or a bundle file) out. `mpc compile`,
// `mpc train`, `mpc generate` and `mpc report` call it, and so can an
// importer or an application that embeds the compiler. The stages are
// visible: compilation stops after any of them (`mpc compile --emit`).
//
//   Graph     the graph verified (the dialect's verifiers)
//   Fused     mpc's limits checked (GraphLimits.h), then the graph
//             pipeline: autodiff, precision, decomposition, fusion, the
//             memory plan
//   Kernels   the mpk programs (one kernel launch or library call an op)
//   Cuda      the kernels' CUDA C++ source, one per program
//   Manifest  the same: what a bundle's step program is made from
//   Bundle    the source compiled for the targets and written as a bundle
//
// Errors: diagnostics about the graph go to the module's MLIRContext (the
// caller's handler prints them with their locations) and the llvm::Error is
// a DiagnosedError naming the stage; where there is no location (a graph
// that is not there, kernels that do not compile, a file that cannot be
// written) the llvm::Error carries the whole message.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_COMPILE_COMPILE_H
#define MPC_COMPILER_COMPILE_COMPILE_H

#include "compiler/CodeGen/BundleWriter.h"
#include "compiler/CodeGen/CudaEmitter.h"
#include "passes/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace mpc {

/// The stages of compilation, in order.
enum class CompileStage { Graph, Fused, Kernels, Cuda, Manifest, Bundle };

/// The stage named `name` ("graph", "fused", "kernels", "cuda", "manifest",
/// "bundle": `mpc compile --emit`), if it is one.
std::optional<CompileStage> parseCompileStage(llvm::StringRef name);

struct CompileOptions {
  /// The whole training step (backward pass and update) rather than the
  /// forward step as written.
  bool trainingStep = false;
  /// --precision, --loss-scale, --grad-stats, --no-working-copies.
  PrecisionConfig precision;
  /// The graph to compile when the module holds several (by its @name);
  /// empty: the only one. Only a bundle needs one graph: the other stages
  /// take every graph of the module unless a name is given.
  std::string graphName;
  /// Hyper-parameters of each graph's optimizer (mpg.minimize) to set before
  /// anything else: a name (lr, momentum, warmup_steps, ...) and its value,
  /// later ones winning; each replaces the graph's, and the optimizer is
  /// checked again as the graph's was.
  std::vector<std::pair<std::string, double>> optimizerArgs;
  /// What a bundle is compiled for.
  BundleTargets targets;
  /// The module was verified already (mpc::loadGraphFile verifies what it
  /// parses): compileModule does not verify it again.
  bool verified = false;
  /// Where the module came from (a graph file), for messages.
  std::string sourceName = "the graph";
  /// When set, the pass pipeline is timed with it (a root scope around the
  /// pipeline's run).
  mlir::DefaultTimingManager *passTiming = nullptr;
};

/// A failure already reported as diagnostics at their locations in the
/// module's context: the message only names the stage.
class DiagnosedError : public llvm::ErrorInfo<DiagnosedError> {
public:
  static char ID;
  explicit DiagnosedError(std::string stage) : stage(std::move(stage)) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }
  const std::string stage;
};

/// What compiling to a stage produced, with where the time went.
struct Compilation {
  /// From the Kernels stage on: the module's mpk programs.
  std::vector<mlir::mpk::ProgramOp> programs;
  /// From the Cuda stage on: each program's generated kernels.
  std::vector<GeneratedKernels> kernels;
  /// The Bundle stage: compiling the kernels and writing.
  BundleTimings bundle;
  double checkSeconds = 0, passSeconds = 0, emitSeconds = 0;
};

/// Compiles `module` in place up to and including `stage` and, for the
/// Bundle stage, writes the bundle to `bundlePath` (atomically: a failure
/// leaves no file). The module then holds the graphs (Graph, Fused) or the
/// mpk programs (later stages).
llvm::Expected<Compilation> compileModule(mlir::ModuleOp module, CompileStage stage,
                                          const CompileOptions &options,
                                          llvm::StringRef bundlePath = "");

/// Sets `args` (CompileOptions::optimizerArgs) in the optimizer of every
/// mpg.minimize of `module`, as compileModule does first; an error at the
/// op when the result is not a valid optimizer, or when a graph has none.
mlir::LogicalResult setOptimizerArgs(mlir::ModuleOp module,
                                     llvm::ArrayRef<std::pair<std::string, double>> args);

} // namespace mpc

#endif // MPC_COMPILER_COMPILE_COMPILE_H
