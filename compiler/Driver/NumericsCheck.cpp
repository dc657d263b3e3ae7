//===- NumericsCheck.cpp - `mpc train --check-numerics` -------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/NumericsCheck.h"

#include "compiler/Driver/ImportOptions.h"
#include "compiler/Frontend/GraphLoader.h"

#include "mlir/Pass/PassManager.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/SourceMgr.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mpc::driver;

namespace {

/// The elements of a tensor of `dtype` (its name) as doubles; empty for
/// integers and booleans.
std::vector<double> floatElements(llvm::StringRef dtype, const std::vector<char> &bytes) {
  mpc::rt::HostTensor tensor;
  for (mpc::rt::DType candidate :
       {mpc::rt::DType::F16, mpc::rt::DType::BF16, mpc::rt::DType::F32, mpc::rt::DType::F64})
    if (dtype == mpc::rt::dtypeName(candidate)) {
      tensor.dtype = candidate;
      tensor.bytes.assign(bytes.begin(), bytes.end());
      return mpc::rt::floatValues(tensor);
    }
  return {};
}

/// How many elements are NaN or infinite, and the range of the others.
struct ValueStats {
  size_t count = 0, nans = 0, infinities = 0;
  double min = INFINITY, max = -INFINITY;

  explicit ValueStats(const std::vector<double> &values) : count(values.size()) {
    for (double v : values) {
      if (std::isnan(v)) {
        ++nans;
      } else if (std::isinf(v)) {
        ++infinities;
      } else {
        min = std::min(min, v);
        max = std::max(max, v);
      }
    }
  }
  bool finite() const { return nans == 0 && infinities == 0; }

  std::string describe() const {
    std::string text;
    llvm::raw_string_ostream os(text);
    if (finite())
      os << "finite";
    else
      os << nans << " of " << count << " elements NaN, " << infinities << " infinite";
    if (count > nans + infinities)
      os << (finite() ? ", in [" : "; the others in [") << llvm::format("%.6g", min) << ", "
         << llvm::format("%.6g", max) << "]";
    return text;
  }
};

/// The output `name` of `program`'s last run, as doubles.
llvm::Expected<std::vector<double>> readOutput(const mpc_program *program,
                                               const std::string &name) {
  for (size_t i = 0, e = mpc_program_output_count(program); i < e; ++i) {
    mpc_tensor_info info;
    mpc_program_output_info(program, i, &info);
    if (name != info.name)
      continue;
    std::vector<char> bytes(info.bytes);
    if (mpc_program_get_output(program, info.name, bytes.data(), bytes.size()) != MPC_OK)
      return lastRuntimeError();
    return floatElements(info.dtype, bytes);
  }
  return llvm::createStringError("the numerics check's program has no output '" + name + "'");
}

} // namespace

llvm::Expected<std::unique_ptr<NumericsCheck>>
NumericsCheck::create(const TrainOptions &options, llvm::StringRef dir, const mpc::Dataset &data) {
  if (options.givenBundle)
    return llvm::createStringError("--check-numerics compiles the graph with every op's value "
                                   "kept: give the graph file, not a bundle");
  mlir::MLIRContext context;
  context.printOpOnDiagnostic(false);
  mpc::loadGraphDialects(context);
  llvm::SourceMgr sourceMgr;
  DiagnosticPrinter diagnostics(sourceMgr, context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      loadSource(options.source, sourceMgr, context, options.onnx, nullptr);
  if (!module)
    return llvm::createStringError("cannot load '" + options.source + "' for --check-numerics");
  llvm::Expected<std::vector<NumericsProbe>> probes =
      addNumericsProbes(*module, options.compile.graphName, options.compile.precision);
  if (!probes)
    return probes.takeError();
  // Dropout keyed as in the training step: with the training program's
  // seed and run counter (keepStart copies them) the rerun draws the
  // failing run's masks.
  mlir::PassManager keying(&context);
  keying.nest<mlir::mpg::GraphOp>().addPass(mpc::createMpgSeedDropout());
  if (mlir::failed(keying.run(*module)))
    return llvm::createStringError("keying the numerics check's dropout failed");
  mpc::CompileOptions forward;
  forward.precision.mode = options.compile.precision.mode;
  forward.precision.workingCopies = options.compile.precision.workingCopies;
  forward.precision.fuseAttention = options.compile.precision.fuseAttention;
  forward.precision.keepFp32 = options.compile.precision.keepFp32;
  forward.targets.host = options.compile.targets.host;
  forward.sourceName = options.source;
  std::string bundle = (dir + "/numerics.mpcb").str();
  if (llvm::Expected<mpc::Compilation> compiled =
          mpc::compileModule(*module, mpc::CompileStage::Bundle, forward, bundle);
      !compiled)
    return llvm::joinErrors(
        llvm::createStringError("compiling the numerics check's forward step failed:"),
        compiled.takeError());
  ProgramHandle program = loadProgram(bundle, options.device, options.seed);
  if (!program)
    return llvm::createStringError("cannot load the numerics check's forward step");
  llvm::Expected<mpc::BatchBinder> binder =
      mpc::BatchBinder::create(program.get(), data, "the data");
  if (!binder)
    return binder.takeError();
  return std::unique_ptr<NumericsCheck>(
      new NumericsCheck(std::move(program), std::move(*binder), std::move(*probes)));
}

llvm::Error NumericsCheck::keepStart(const mpc_program *training, const int64_t *batch) {
  for (size_t i = 0, e = mpc_program_param_count(program.get()); i < e; ++i) {
    mpc_tensor_info info;
    mpc_program_param_info(program.get(), i, &info);
    if (info.flags & MPC_TENSOR_WORKING_COPY)
      continue; // follows its parameter
    std::vector<char> &bytes = params[info.name];
    bytes.resize(info.bytes);
    if (mpc_program_get_param(training, info.name, bytes.data(), bytes.size()) != MPC_OK)
      return lastRuntimeError();
  }
  examples.assign(batch, batch + binder.batchSize());
  return llvm::Error::success();
}

llvm::Error NumericsCheck::diagnose(uint64_t step, double loss) {
  std::string report;
  llvm::raw_string_ostream os(report);
  os << "the loss is "
     << (std::isnan(loss) ? "NaN"
         : loss > 0       ? "+inf"
                          : "-inf")
     << " at step " << step
     << "; --check-numerics ran the step's forward pass again from the parameters it started "
        "from, every op's value stored in its precision:\n";
  // A parameter that an earlier update already made non-finite.
  std::map<std::string, ValueStats> paramStats;
  for (size_t i = 0, e = mpc_program_param_count(program.get()); i < e; ++i) {
    mpc_tensor_info info;
    mpc_program_param_info(program.get(), i, &info);
    auto kept = params.find(info.name);
    if (kept == params.end())
      continue;
    ValueStats stats(floatElements(info.dtype, kept->second));
    paramStats.emplace(info.name, stats);
    if (!stats.finite()) {
      os << "  parameter '" << info.name << "' is not finite before the step: " << stats.describe()
         << " (an earlier update, or the checkpoint given with --init, made it so; lower the "
         << "learning rate, or clip the gradients with --clip-grad-norm)";
      return llvm::createStringError(report);
    }
    if (mpc_program_set_param(program.get(), info.name, kept->second.data(), kept->second.size()) !=
        MPC_OK)
      return lastRuntimeError();
  }
  if (llvm::Error error = binder.bind(program.get(), examples.data()))
    return error;
  if (mpc_program_run(program.get()) != MPC_OK)
    return lastRuntimeError();
  std::vector<ValueStats> stats;
  for (const NumericsProbe &probe : probes) {
    llvm::Expected<std::vector<double>> values = readOutput(program.get(), probe.output);
    if (!values)
      return values.takeError();
    stats.emplace_back(*values);
    if (stats.back().finite())
      continue;
    os << "  the first value that is not finite: " << probe.op;
    if (probe.result > 0)
      os << " (result " << probe.result << ")";
    os << " at " << probe.location;
    if (!probe.precision.empty())
      os << ", in " << probe.precision;
    os << "\n    its value: " << stats.back().describe();
    for (auto [index, operand] : llvm::enumerate(probe.operands)) {
      os << "\n    operand " << index << ": ";
      using Kind = NumericsProbe::Operand::Kind;
      switch (operand.kind) {
      case Kind::Probe:
        os << probes[operand.probe].op << " at " << probes[operand.probe].location << ", "
           << stats[operand.probe].describe();
        break;
      case Kind::Param: {
        auto found = paramStats.find(operand.name);
        os << "'" << operand.name << "'";
        if (found != paramStats.end() && found->second.count > 0)
          os << ", " << found->second.describe();
        break;
      }
      case Kind::Input:
        os << "input '" << operand.name << "' (the data)";
        break;
      case Kind::Constant:
        os << "a constant";
        break;
      case Kind::Other:
        os << "an integer or other value";
        break;
      }
    }
    return llvm::createStringError(report);
  }
  os << "  no op's value was non-finite this time (the step's own kernels fuse ops, keep some "
        "values in fp32 registers and differ from the forward step in the backward pass's "
        "recomputations; compare `mpc report GRAPH precision`)";
  return llvm::createStringError(report);
}
