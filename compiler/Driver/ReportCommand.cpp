//===- ReportCommand.cpp - `mpc report` ------------------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Compiles a graph and reports what the compiler made of it: the precision
// of every op (category, types, reason), the kernels of one step (launches
// and library calls, the ops each computes, the bytes each reads and
// writes, the launch configuration) and the memory plan.
// Text for people, --json for tools.
//
//===----------------------------------------------------------------------===//

#include "compiler/CodeGen/CudaEmitter.h"
#include "compiler/Compile/Compile.h"
#include "compiler/Compile/GraphLimits.h"
#include "compiler/Driver/ArgParser.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Driver/GraphPicture.h"
#include "compiler/Driver/HtmlReport.h"
#include "compiler/Driver/ImportOptions.h"
#include "compiler/Driver/KernelCost.h"
#include "compiler/Driver/OptimizerOptions.h"
#include "compiler/Driver/PrecisionOptions.h"
#include "compiler/Driver/PrecisionReport.h"
#include "compiler/Driver/RunLog.h"
#include "compiler/Driver/TransientMemory.h"
#include "compiler/Frontend/GraphLoader.h"
#include "passes/MemoryPlanning/MemoryPlanSupport.h"
#include "passes/Passes.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mpc::driver;
using namespace mlir;

namespace {

int64_t bufferBytes(Value buffer) { return mpc::bufferBytes(buffer.getType()); }

/// One launch or library call of a step.
struct StepInfo {
  std::string kind; // "kernel", "gemm", "copy", "all-reduce"
  std::string name;
  std::string detail; // kernel op or gemm epilogue
  std::vector<std::string> fused;
  int64_t readBytes = 0, writtenBytes = 0;
  int64_t grid = 0, block = 0;
  double flops = 0;
  RooflineTime roofline; // on kH200
};

std::vector<StepInfo> collectSteps(mpk::ProgramOp program, const mpc::GeneratedKernels &kernels) {
  llvm::StringMap<const mpc::KernelLaunch *> launches;
  for (const mpc::KernelLaunch &launch : kernels.kernels)
    launches[launch.symbol] = &launch;
  std::vector<StepInfo> steps;
  for (Operation &op : program.getBody().front()) {
    StepInfo step;
    step.flops = estimateFlops(&op);
    if (auto fused = op.getAttrOfType<ArrayAttr>(mlir::mpk::kFusedAttr))
      for (Attribute name : fused)
        step.fused.push_back(llvm::cast<StringAttr>(name).getValue().drop_front(4).str());
    if (auto symbol = op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName())) {
      const mpc::KernelLaunch *launch = launches.lookup(symbol.getValue());
      step.kind = "kernel";
      step.name = symbol.getValue().str();
      step.detail = op.getName().getStringRef().drop_front(4).str();
      step.grid = launch ? launch->grid : 0;
      step.block = launch ? launch->block : 0;
      if (launch && launch->buffers.size() != op.getNumOperands())
        step.detail = "multi-tensor"; // the launch also runs the updates merged into it
      // The written buffers are the op's last operands.
      unsigned numOperands = op.getNumOperands();
      unsigned numWritten = mpk::writtenBuffers(&op).size();
      for (unsigned i = 0; i < numOperands; ++i)
        (i + numWritten >= numOperands ? step.writtenBytes : step.readBytes) +=
            bufferBytes(op.getOperand(i));
      if (kernels.mergedInto.count(symbol.getValue().str()) && !steps.empty()) {
        // It runs in the launch of the update it was merged into: its ops
        // and bytes join that step.
        StepInfo &launchStep = steps.back();
        launchStep.fused.insert(launchStep.fused.end(), step.fused.begin(), step.fused.end());
        launchStep.readBytes += step.readBytes;
        launchStep.writtenBytes += step.writtenBytes;
        launchStep.flops += step.flops;
        launchStep.roofline =
            rooflineTime(&op, launchStep.flops, launchStep.readBytes + launchStep.writtenBytes,
                         kH200);
        continue;
      }
    } else if (auto gemm = llvm::dyn_cast<mpk::GemmOp>(op)) {
      step.kind = "gemm";
      bool accumulates = !gemm.getBeta().isZero();
      step.detail =
          accumulates ? "accumulate" : mpk::stringifyGemmEpilogue(gemm.getEpilogue()).str();
      step.readBytes = bufferBytes(gemm.getA()) + bufferBytes(gemm.getB()) +
                       (gemm.getBias() ? bufferBytes(gemm.getBias()) : 0) +
                       (accumulates ? bufferBytes(gemm.getC()) : 0);
      step.writtenBytes = bufferBytes(gemm.getC());
      step.name = std::to_string(gemm.getM()) + "x" + std::to_string(gemm.getN()) + "x" +
                  std::to_string(gemm.getK()) +
                  (gemm.getBatch() > 1 ? " batch " + std::to_string(gemm.getBatch()) : "");
    } else if (auto copy = llvm::dyn_cast<mpk::CopyOp>(op)) {
      step.kind = "copy";
      step.detail = "state write";
      step.readBytes = step.writtenBytes = bufferBytes(copy.getSource());
    } else if (auto reduce = llvm::dyn_cast<mpk::AllReduceOp>(op)) {
      step.kind = "all-reduce";
      step.detail = mpk::stringifyAllReduceKind(reduce.getReduce()).str();
      step.readBytes = step.writtenBytes = bufferBytes(reduce.getBuffer());
    } else {
      continue;
    }
    step.roofline = rooflineTime(&op, step.flops, step.readBytes + step.writtenBytes, kH200);
    steps.push_back(std::move(step));
  }
  return steps;
}

/// A timeline of live bytes as a line of block characters, 48 wide at most,
/// scaled to its peak.
std::string timelineText(const std::vector<int64_t> &timeline) {
  if (timeline.empty())
    return "-";
  static const char *levels[] = {" ", "\u2581", "\u2582", "\u2583", "\u2584",
                                 "\u2585", "\u2586", "\u2587", "\u2588"};
  int64_t peak = *std::max_element(timeline.begin(), timeline.end());
  size_t width = std::min<size_t>(48, timeline.size());
  std::string text;
  for (size_t i = 0; i < width; ++i) {
    // The largest value in this column's share of the timeline.
    size_t from = i * timeline.size() / width, to = (i + 1) * timeline.size() / width;
    int64_t value = *std::max_element(timeline.begin() + from, timeline.begin() + std::max(to, from + 1));
    text += levels[peak > 0 ? (value * 8 + peak - 1) / peak : 0];
  }
  return text + " (peak " + std::to_string(peak) + " bytes, " + std::to_string(timeline.size()) +
         " points)";
}

/// Persistent bytes by what they hold, in a fixed order.
std::vector<std::pair<std::string, int64_t>> persistentByCategory(mpk::ProgramOp program) {
  llvm::StringSet<> withCopies;
  program.walk([&](mpk::ParamOp param) {
    if (std::optional<llvm::StringRef> master = param.getCastOf())
      withCopies.insert(*master);
  });
  std::vector<std::pair<std::string, int64_t>> categories = {
      {"parameters", 0},   {"fp32 masters", 0},          {"working copies", 0},
      {"optimizer state", 0}, {"loss scale and counters", 0}, {"model state", 0},
      {"constants", 0}};
  auto add = [&](llvm::StringRef category, int64_t bytes) {
    for (auto &entry : categories)
      if (entry.first == category)
        entry.second += bytes;
  };
  program.walk([&](Operation *op) {
    if (auto param = llvm::dyn_cast<mpk::ParamOp>(op)) {
      llvm::StringRef name = param.getName();
      int64_t bytes = bufferBytes(param.getBuffer());
      if (param.getCastOf())
        add("working copies", bytes);
      else if (!param.getState())
        add(withCopies.contains(name) ? "fp32 masters" : "parameters", bytes);
      else if (name == "optimizer.step" || name.starts_with("loss_scale"))
        add("loss scale and counters", bytes);
      else if (name.ends_with(".momentum_buffer") || name.ends_with(".exp_avg") ||
               name.ends_with(".exp_avg_sq"))
        add("optimizer state", bytes);
      else
        add("model state", bytes);
    } else if (auto constant = llvm::dyn_cast<mpk::ConstantOp>(op)) {
      add("constants", bufferBytes(constant.getBuffer()));
    }
  });
  return categories;
}

/// The totals of a step's kernels.
struct StepTotals {
  int64_t generated = 0, gemms = 0, copies = 0, read = 0, written = 0;
  double flops = 0, seconds = 0, memoryBoundSeconds = 0;
};

StepTotals totalsOf(const std::vector<StepInfo> &steps) {
  StepTotals t;
  for (const StepInfo &s : steps) {
    t.generated += s.kind == "kernel";
    t.gemms += s.kind == "gemm";
    t.copies += s.kind == "copy";
    t.read += s.readBytes;
    t.written += s.writtenBytes;
    t.flops += s.flops;
    t.seconds += s.roofline.seconds();
    if (s.roofline.memoryBound())
      t.memoryBoundSeconds += s.roofline.seconds();
  }
  return t;
}

/// "1.2 M" style: the value with a metric prefix.
std::string metric(double value) {
  const char *prefixes[] = {"", " k", " M", " G", " T"};
  int i = 0;
  while (value >= 1000 && i < 4) {
    value /= 1000;
    ++i;
  }
  return llvm::formatv(value >= 100 || i == 0 ? "{0:F0}{1}" : "{0:F1}{1}", value, prefixes[i]);
}

void printText(llvm::raw_ostream &os, mpk::ProgramOp program, const std::vector<StepInfo> &steps,
               bool kernels, bool memory) {
  if (kernels) {
    StepTotals totals = totalsOf(steps);
    int64_t generated = totals.generated, gemms = totals.gemms, copies = totals.copies,
            read = totals.read, written = totals.written;
    os << "kernels of @" << program.getSymName() << ": " << steps.size()
       << " launches per step (" << generated << " generated kernels, " << gemms << " GEMM calls, "
       << copies << " copies)\n";
    os << llvm::format("  %-4s %-7s %-16s %-14s %-44s %12s %12s %-14s %9s %10s\n",
                       (const char *)"#", (const char *)"kind", (const char *)"name",
                       (const char *)"what", (const char *)"mpg ops", (const char *)"read B",
                       (const char *)"written B", (const char *)"grid x block",
                       (const char *)"FLOPs", (const char *)"H200 us");
    for (auto [i, s] : llvm::enumerate(steps)) {
      std::string ops = llvm::join(s.fused, " + ");
      std::string launch =
          s.kind == "kernel" ? std::to_string(s.grid) + " x " + std::to_string(s.block) : "-";
      std::string time = llvm::formatv("{0:F2}{1}", s.roofline.seconds() * 1e6,
                                       s.roofline.memoryBound() ? " m" : " c");
      os << llvm::format("  %-4zu %-7s %-16s %-14s %-44s %12lld %12lld %-14s %9s %10s\n", i,
                         s.kind.c_str(), s.name.empty() ? "-" : s.name.c_str(),
                         s.detail.c_str(), ops.empty() ? "-" : ops.c_str(),
                         (long long)s.readBytes, (long long)s.writtenBytes, launch.c_str(),
                         metric(s.flops).c_str(), time.c_str());
    }
    os << "  total: " << read << " bytes read, " << written << " bytes written, "
       << metric(totals.flops) << "FLOPs per step\n";
    os << "  roofline on an " << kH200.name << " ("
       << llvm::formatv("{0:F0}", kH200.lowPrecisionGemmFlops / 1e12)
       << " TFLOP/s fp16/bf16 GEMMs, " << llvm::formatv("{0:F0}", kH200.vectorFlops / 1e12)
       << " TFLOP/s fp32, " << llvm::formatv("{0:F1}", kH200.bandwidth / 1e12)
       << " TB/s): " << llvm::formatv("{0:F2}", totals.seconds * 1e6) << " us per step, "
       << llvm::formatv("{0:F0}", totals.seconds > 0
                                      ? 100 * totals.memoryBoundSeconds / totals.seconds
                                      : 0.0)
       << "% of it in memory-bound launches (m: memory-bound, c: compute-bound; launch "
          "overhead not counted)\n";
  }
  if (memory) {
    os << "memory of @" << program.getSymName() << ": arena " << program.getArenaBytes()
       << " bytes (inputs, intermediates, outputs of one step), persistent "
       << program.getPersistentBytes() << " bytes (parameters, state, constants)\n";
    os << "  persistent by category:";
    for (const auto &[category, bytes] : persistentByCategory(program))
      if (bytes)
        os << " " << category << " " << bytes << ";";
    os << "\n";
  }
}

llvm::json::Object toJson(mpk::ProgramOp program, const std::vector<StepInfo> &steps,
                         bool kernels, bool memory) {
  llvm::json::Array array;
  for (const StepInfo &s : steps) {
    llvm::json::Array fused;
    for (const std::string &op : s.fused)
      fused.push_back(op);
    llvm::json::Object step{{"kind", s.kind},
                            {"name", s.name},
                            {"what", s.detail},
                            {"ops", std::move(fused)},
                            {"read_bytes", s.readBytes},
                            {"written_bytes", s.writtenBytes},
                            {"flops", s.flops},
                            {"roofline_us", s.roofline.seconds() * 1e6},
                            {"bound", s.roofline.memoryBound() ? "memory" : "compute"}};
    if (s.kind == "kernel") {
      step["grid"] = s.grid;
      step["block"] = s.block;
    }
    array.push_back(std::move(step));
  }
  llvm::json::Object report{{"program", program.getSymName().str()}};
  if (kernels) {
    StepTotals totals = totalsOf(steps);
    report["launches_per_step"] = static_cast<int64_t>(steps.size());
    report["steps"] = std::move(array);
    report["read_bytes_per_step"] = totals.read;
    report["written_bytes_per_step"] = totals.written;
    report["flops_per_step"] = totals.flops;
    report["roofline"] = llvm::json::Object{
        {"gpu", kH200.name},
        {"low_precision_gemm_flops_per_s", kH200.lowPrecisionGemmFlops},
        {"fp32_flops_per_s", kH200.vectorFlops},
        {"bandwidth_bytes_per_s", kH200.bandwidth},
        {"step_us", totals.seconds * 1e6},
        {"memory_bound_us", totals.memoryBoundSeconds * 1e6}};
  }
  if (memory) {
    report["arena_bytes"] = static_cast<int64_t>(program.getArenaBytes());
    report["persistent_bytes"] = static_cast<int64_t>(program.getPersistentBytes());
    llvm::json::Object categories;
    for (const auto &[category, bytes] : persistentByCategory(program))
      categories[category] = bytes;
    report["persistent_by_category"] = std::move(categories);
  }
  return report;
}

} // namespace

namespace {

/// What `mpc report` was asked for.
struct ReportRequest {
  std::string graphPath;
  bool wantPrecision = true, wantKernels = true, wantMemory = true;
  bool train = false, json = false;
  mpc::PrecisionConfig precision;
  /// How an .onnx model becomes a graph.
  mpc::OnnxImportOptions onnx;
  /// --lr, --optimizer-arg, ...: set in the graph's optimizer first.
  std::vector<std::pair<std::string, double>> optimizerArgs;
  /// --html: the page to write, and the training runs it charts.
  std::string htmlPath;
  std::vector<RunLog> runs;
};

/// What the report is made of: the precision decisions (read right after
/// precision assignment, later passes fusing the ops into kernels), the
/// memory at the peak (in the chosen precision and in fp32), the fp32
/// step's memory, the bytes the step would move unfused, and the programs.
struct ReportData {
  std::vector<mpc::driver::PrecisionReport> precisionReports;
  std::vector<std::string> graphPictures;
  std::vector<mpc::driver::TransientMemory> transient, fp32Transient;
  std::vector<std::pair<int64_t, int64_t>> fp32Memory; // arena, persistent
  std::vector<int64_t> unfusedBytes;
  std::vector<mpk::ProgramOp> programs;
};

/// Parses the command line into `request`; returns an exit code to end
/// with, or nothing to go on.
std::optional<int> parseReportRequest(llvm::ArrayRef<std::string> args, ReportRequest &request) {
  ArgParser parser(
      "report",
      "mpc report GRAPH [precision|kernels|memory] [--step forward|train] [--precision MODE] "
      "[--loss-scale SPEC] [--json | --html FILE [--log RUN.jsonl ...]]",
      "Compiles a graph and reports the precision of every op (category, storage, compute "
      "and\naccumulate types, and the reason), the kernels of one step (each launch or library "
      "call,\nthe mpg ops it computes, bytes read and written, FLOPs, launch configuration, "
      "and a roofline\nestimate for an H200) and the memory plan (persistent and transient "
      "bytes, by category, the\nlive bytes over the step, against fp32). Without a section, all "
      "three. --html writes them as\none self-contained page with the graph drawn by precision "
      "and charts, and with --log the\ncharts of training runs (loss, loss scale, gradient "
      "histogram).");
  parser.setPositionals("GRAPH [SECTION]", "the graph file, then precision, kernels or memory",
                        1, 2);
  parser.addOption({"step", 0, "KIND",
                    "which step to report: forward, or train (backward pass and optimizer "
                    "included)",
                    "forward", {"forward", "train"}});
  addPrecisionOptions(parser);
  addOptimizerOptions(parser);
  addImportOptions(parser, /*training=*/false);
  parser.addFlag("json", "write JSON instead of text");
  parser.addOption({"html", 0, "FILE",
                    "write the whole report as one HTML page (no network needed to view it)",
                    "", {}});
  parser.addOption({"log", 0, "RUN.jsonl",
                    "with --html: a training log of 'mpc train --log' to chart (repeatable)",
                    "", {}, true});
  if (std::optional<int> code = parseCommandLine(parser, args))
    return *code;
  std::string section = parser.positionals().size() > 1 ? parser.positionals()[1] : "";
  if (!section.empty() && section != "precision" && section != "kernels" &&
      section != "memory") {
    reportError("unknown report section '" + section +
                "'; expected precision, kernels or memory");
    return kExitUsage;
  }
  request.htmlPath = parser.get("html").value_or("");
  bool html = !request.htmlPath.empty();
  if (html && parser.flag("json")) {
    reportError("--html and --json are exclusive: --html embeds the JSON report in the page");
    return kExitUsage;
  }
  if (!html && !parser.getAll("log").empty()) {
    reportError("--log charts training runs in the HTML report: add --html FILE");
    return kExitUsage;
  }
  if (html && !section.empty()) {
    reportError("--html writes every section; leave out '" + section + "'");
    return kExitUsage;
  }
  for (const std::string &path : parser.getAll("log")) {
    llvm::Expected<RunLog> run = readRunLog(path);
    if (!run) {
      reportError(llvm::toString(run.takeError()));
      return kExitError;
    }
    request.runs.push_back(std::move(*run));
  }
  request.graphPath = parser.positionals().front();
  request.wantPrecision = section.empty() || section == "precision";
  request.wantKernels = section.empty() || section == "kernels";
  request.wantMemory = section.empty() || section == "memory";
  request.train = *parser.get("step") == "train";
  request.json = parser.flag("json") || html;
  if (isOnnxFile(request.graphPath) && !readImportOptions(parser, request.train, request.onnx))
    return kExitUsage;
  if (!readPrecisionOptions(parser, request.precision))
    return kExitUsage;
  if (!readOptimizerOptions(parser, request.optimizerArgs))
    return kExitUsage;
  return std::nullopt;
}

/// Compiles `target` to `stage` in the precision `config`.
LogicalResult compileTo(ModuleOp target, mpc::CompileStage stage, bool train,
                        const mpc::PrecisionConfig &config) {
  mpc::CompileOptions options;
  options.trainingStep = train;
  options.precision = config;
  options.verified = true; // by loadGraphFile
  llvm::Expected<mpc::Compilation> compiled = mpc::compileModule(target, stage, options);
  if (compiled)
    return success();
  mpc::driver::reportCompileError(compiled.takeError());
  return failure();
}

/// The precision decisions of every graph, from a copy of `module` after
/// precision assignment (and its picture for the HTML page).
LogicalResult collectPrecision(ModuleOp module, const ReportRequest &request, ReportData &data) {
  OwningOpRef<ModuleOp> copy = module.clone();
  PassManager pm(module.getContext());
  mpc::buildPrecisionPipeline(pm, request.train, request.precision);
  if (failed(pm.run(*copy)))
    return failure();
  for (auto graph : copy->getOps<mpg::GraphOp>()) {
    data.precisionReports.push_back(mpc::driver::collectPrecisionReport(graph));
    if (!request.htmlPath.empty())
      data.graphPictures.push_back(mpc::driver::graphPictureSvg(graph));
  }
  return success();
}

/// What the arena holds at its peak, read from the planned graph.
LogicalResult collectTransient(ModuleOp module, bool train, const mpc::PrecisionConfig &config,
                               std::vector<mpc::driver::TransientMemory> &out) {
  OwningOpRef<ModuleOp> copy = module.clone();
  if (failed(compileTo(*copy, mpc::CompileStage::Fused, train, config)))
    return failure();
  for (auto graph : copy->getOps<mpg::GraphOp>())
    out.push_back(mpc::driver::measureTransientMemory(graph));
  return success();
}

/// The memory of the same step in fp32, for the memory section's
/// comparison.
LogicalResult collectFp32Memory(ModuleOp module, bool train, ReportData &data) {
  OwningOpRef<ModuleOp> copy = module.clone();
  if (failed(compileTo(*copy, mpc::CompileStage::Kernels, train, mpc::PrecisionConfig())))
    return failure();
  for (auto program : copy->getOps<mpk::ProgramOp>())
    data.fp32Memory.emplace_back(program.getArenaBytes(), program.getPersistentBytes());
  return success();
}

/// The bytes the step would move if every op were a kernel of its own: the
/// precision-assigned, decomposed graph before fusion, each op reading its
/// operands and writing its results (views and declarations move nothing).
LogicalResult collectUnfusedBytes(ModuleOp module, const ReportRequest &request,
                                  ReportData &data) {
  OwningOpRef<ModuleOp> copy = module.clone();
  PassManager pm(module.getContext());
  mpc::buildPrecisionPipeline(pm, request.train, request.precision);
  pm.addNestedPass<mpg::GraphOp>(mpc::createMpgDecompose());
  if (failed(pm.run(*copy)))
    return failure();
  for (auto graph : copy->getOps<mpg::GraphOp>()) {
    int64_t bytes = 0;
    for (Operation &op : graph.getBody().front()) {
      if (llvm::isa<mpg::InputOp, mpg::ParamOp, mpg::StateOp, mpg::ConstantOp, mpg::OutputOp,
                    mpg::MinimizeOp, mpg::ReshapeOp>(op))
        continue;
      for (Value v : op.getOperands())
        bytes += mpc::bufferBytes(v.getType());
      for (Value v : op.getResults())
        bytes += mpc::bufferBytes(v.getType());
      if (auto write = llvm::dyn_cast<mpg::StateWriteOp>(op)) // a copy: read and write
        bytes += mpc::bufferBytes(write->getOperand(1).getType());
    }
    data.unfusedBytes.push_back(bytes);
  }
  return success();
}

/// Everything the report shows; `module` ends compiled to its programs.
LogicalResult collectReportData(ModuleOp module, const ReportRequest &request,
                                ReportData &data) {
  bool mixed = request.precision.mode != "fp32";
  if (request.wantPrecision && failed(collectPrecision(module, request, data)))
    return failure();
  if (request.wantMemory &&
      (failed(collectTransient(module, request.train, request.precision, data.transient)) ||
       (mixed && (failed(collectTransient(module, request.train, mpc::PrecisionConfig(),
                                          data.fp32Transient)) ||
                  failed(collectFp32Memory(module, request.train, data))))))
    return failure();
  if (request.wantKernels && failed(collectUnfusedBytes(module, request, data)))
    return failure();
  if (request.wantKernels || request.wantMemory) {
    if (failed(compileTo(module, mpc::CompileStage::Kernels, request.train, request.precision)))
      return failure();
    for (auto program : module.getOps<mpk::ProgramOp>())
      data.programs.push_back(program);
  }
  return success();
}

llvm::json::Object transientJson(const mpc::driver::TransientMemory &t) {
  return llvm::json::Object{{"live_bytes", t.peak},
                            {"inputs", t.inputs},
                            {"activations", t.activations},
                            {"gradients", t.gradients},
                            {"scratch", t.scratch}};
}

std::string transientText(const mpc::driver::TransientMemory &t) {
  return std::to_string(t.peak) + " bytes live (inputs " + std::to_string(t.inputs) +
         ", activations " + std::to_string(t.activations) + ", gradients " +
         std::to_string(t.gradients) + ", scratch " + std::to_string(t.scratch) + ")";
}

/// The kernels and memory of program `i` on the HTML page.
void fillPage(mpc::driver::HtmlReportData &page, const ReportData &data, size_t i,
              const std::vector<StepInfo> &steps) {
  mpk::ProgramOp program = data.programs[i];
  page.program = program.getSymName().str();
  for (const StepInfo &s : steps) {
    mpc::driver::HtmlKernel k;
    k.kind = s.kind;
    k.name = s.name;
    k.what = s.detail;
    k.ops = llvm::join(s.fused, " + ");
    k.launch = s.kind == "kernel" ? std::to_string(s.grid) + " x " + std::to_string(s.block) : "-";
    k.readBytes = s.readBytes;
    k.writtenBytes = s.writtenBytes;
    k.flops = s.flops;
    k.microseconds = s.roofline.seconds() * 1e6;
    k.memoryBound = s.roofline.memoryBound();
    page.stepMicroseconds += k.microseconds;
    page.kernels.push_back(std::move(k));
  }
  page.arenaBytes = program.getArenaBytes();
  page.persistentBytes = program.getPersistentBytes();
  page.persistentByCategory = persistentByCategory(program);
  if (i < data.fp32Memory.size())
    page.fp32Memory = data.fp32Memory[i];
  if (i < data.transient.size())
    page.timeline = data.transient[i].timeline;
  if (i < data.fp32Transient.size())
    page.fp32Timeline = data.fp32Transient[i].timeline;
}

/// The kernels and memory of program `i` into its JSON report.
void addProgramJson(llvm::json::Object &report, const ReportRequest &request,
                    const ReportData &data, size_t i, const std::vector<StepInfo> &steps) {
  llvm::json::Object rest =
      toJson(data.programs[i], steps, request.wantKernels, request.wantMemory);
  for (auto &entry : rest)
    report[entry.first] = std::move(entry.second);
  if (request.wantKernels && i < data.unfusedBytes.size())
    report["unfused_bytes_per_step"] = data.unfusedBytes[i];
  if (i < data.transient.size()) {
    report["transient_at_peak"] = transientJson(data.transient[i]);
    report["live_bytes_timeline"] = llvm::json::Array(data.transient[i].timeline);
  }
  if (i < data.fp32Memory.size()) {
    bool peak = i < data.fp32Transient.size();
    report["fp32_baseline"] = llvm::json::Object{
        {"arena_bytes", data.fp32Memory[i].first},
        {"persistent_bytes", data.fp32Memory[i].second},
        {"transient_at_peak", peak ? llvm::json::Value(transientJson(data.fp32Transient[i]))
                                   : llvm::json::Value(nullptr)},
        {"live_bytes_timeline",
         peak ? llvm::json::Value(llvm::json::Array(data.fp32Transient[i].timeline))
              : llvm::json::Value(nullptr)}};
  }
}

/// The kernels and memory of program `i` as text.
void printProgramText(llvm::raw_ostream &os, const ReportRequest &request, const ReportData &data,
                      size_t i, const std::vector<StepInfo> &steps) {
  mpk::ProgramOp program = data.programs[i];
  printText(os, program, steps, request.wantKernels, request.wantMemory);
  if (request.wantKernels && i < data.unfusedBytes.size())
    os << "  unfused, every op a kernel of its own: " << data.unfusedBytes[i]
       << " bytes moved per step\n";
  if (i < data.transient.size()) {
    os << "  transient at the peak: " << transientText(data.transient[i]) << "\n";
    os << "  live bytes over the step: " << timelineText(data.transient[i].timeline) << "\n";
  }
  if (i >= data.fp32Memory.size())
    return;
  auto ratio = [](int64_t mixed, int64_t fp32) {
    return fp32 ? static_cast<double>(mixed) / static_cast<double>(fp32) : 0.0;
  };
  os << "  vs fp32: arena " << data.fp32Memory[i].first << " bytes ("
     << llvm::format("%.2f", ratio(program.getArenaBytes(), data.fp32Memory[i].first))
     << "x), persistent " << data.fp32Memory[i].second << " bytes ("
     << llvm::format("%.2f", ratio(program.getPersistentBytes(), data.fp32Memory[i].second))
     << "x)\n";
  if (i < data.fp32Transient.size())
    os << "  fp32 transient at the peak: " << transientText(data.fp32Transient[i]) << "\n";
}

/// Writes the HTML page with the JSON reports embedded.
int writePage(mpc::driver::HtmlReportData &page, const std::string &json,
              const std::string &path) {
  page.json = json;
  std::string rendered = mpc::driver::renderHtmlReport(page);
  if (llvm::Error written = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
        os << rendered;
        return llvm::Error::success();
      })) {
    reportError("cannot write '" + path + "': " + llvm::toString(std::move(written)));
    return kExitError;
  }
  llvm::outs() << "wrote " << path << " (" << rendered.size() << " bytes)\n";
  return kExitOk;
}

} // namespace

int mpc::driver::runReportCommand(llvm::ArrayRef<std::string> args) {
  ReportRequest request;
  if (std::optional<int> code = parseReportRequest(args, request))
    return *code;
  MLIRContext context;
  context.printOpOnDiagnostic(false);
  mpc::loadGraphDialects(context);
  llvm::SourceMgr sourceMgr;
  DiagnosticPrinter diagnostics(sourceMgr, context);
  OwningOpRef<ModuleOp> module =
      loadSource(request.graphPath, sourceMgr, context, request.onnx, nullptr);
  if (!module || failed(mpc::checkGraphLimits(*module, request.train)) ||
      failed(mpc::setOptimizerArgs(*module, request.optimizerArgs)))
    return kExitError;
  ReportData data;
  if (failed(collectReportData(*module, request, data)))
    return kExitError;

  std::optional<mpc::driver::HtmlReportData> page;
  if (!request.htmlPath.empty()) {
    page.emplace();
    page->precisionMode = request.precision.mode;
    page->step = request.train ? "training" : "forward";
    page->gpu = kH200.name;
    page->runs = std::move(request.runs);
  }
  llvm::json::Array reports;
  size_t count = std::max(data.precisionReports.size(), data.programs.size());
  for (size_t i = 0; i < count; ++i) {
    llvm::json::Object report;
    if (i < data.precisionReports.size()) {
      report["program"] = data.precisionReports[i].graph;
      if (request.json)
        report["precision"] = mpc::driver::precisionToJson(data.precisionReports[i]);
      else
        mpc::driver::printPrecisionText(llvm::outs(), data.precisionReports[i]);
      if (page && i == 0) {
        page->program = data.precisionReports[i].graph;
        page->precision = data.precisionReports[i];
        page->graphSvg = data.graphPictures[i];
      }
    }
    if (i < data.programs.size()) {
      FailureOr<mpc::GeneratedKernels> kernels = mpc::emitCuda(data.programs[i]);
      if (failed(kernels))
        return kExitError;
      std::vector<StepInfo> steps = collectSteps(data.programs[i], *kernels);
      if (page && i == 0)
        fillPage(*page, data, i, steps);
      if (request.json)
        addProgramJson(report, request, data, i, steps);
      else
        printProgramText(llvm::outs(), request, data, i, steps);
    }
    reports.push_back(std::move(report));
  }
  std::string text = llvm::formatv("{0:2}", llvm::json::Value(std::move(reports))).str();
  if (page)
    return writePage(*page, text, request.htmlPath);
  if (request.json)
    llvm::outs() << text << "\n";
  return kExitOk;
}
