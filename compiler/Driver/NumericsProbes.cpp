//===- NumericsProbes.cpp - every op's value as an output -----------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/NumericsProbes.h"

#include "compiler/Driver/PrecisionReport.h"

#include "dialects/mpg/IR/MpgDialect.h"
#include "dialects/mpg/IR/MpgOps.h"
#include "passes/Precision/PrecisionSupport.h"

#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mpc::driver;

namespace {

/// Marks an op with the index of its first probe, so that the copy that
/// precision assignment runs on finds it again.
constexpr llvm::StringLiteral kProbeAttr = "mpc.numerics_probe";

bool isFloatTensor(Value value) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  return type && llvm::isa<FloatType>(type.getElementType());
}

/// Where `value` comes from, given the probes of the ops before it.
NumericsProbe::Operand operandOf(Value value, const llvm::DenseMap<Value, size_t> &probeOf) {
  using Kind = NumericsProbe::Operand::Kind;
  NumericsProbe::Operand operand;
  if (auto found = probeOf.find(value); found != probeOf.end()) {
    operand.kind = Kind::Probe;
    operand.probe = found->second;
  } else if (auto input = value.getDefiningOp<mpg::InputOp>()) {
    operand.kind = Kind::Input;
    operand.name = input.getName().str();
  } else if (auto param = value.getDefiningOp<mpg::ParamOp>()) {
    operand.kind = Kind::Param;
    operand.name = param.getName().str();
  } else if (auto state = value.getDefiningOp<mpg::StateOp>()) {
    operand.kind = Kind::Param;
    operand.name = state.getName().str();
  } else if (value.getDefiningOp<mpg::ConstantOp>()) {
    operand.kind = Kind::Constant;
  }
  return operand;
}

/// The graph a bundle of `module` holds; the others are erased.
llvm::Expected<mpg::GraphOp> chooseGraph(ModuleOp module, const std::string &name) {
  llvm::SmallVector<mpg::GraphOp> graphs(module.getOps<mpg::GraphOp>());
  mpg::GraphOp chosen;
  for (mpg::GraphOp graph : graphs)
    if (name.empty() ? graphs.size() == 1 : graph.getSymName() == name)
      chosen = graph;
  if (!chosen)
    return llvm::createStringError("--check-numerics needs one graph: choose it with --graph NAME");
  for (mpg::GraphOp graph : graphs)
    if (graph != chosen)
      graph.erase();
  return chosen;
}

/// Fills in each probe's precision from a copy of `module` after
/// precision assignment of its forward step (`firstOf[i]`: the first probe
/// of probe i's op, which the op is marked with).
llvm::Error describePrecision(ModuleOp module, const mpc::PrecisionConfig &precision,
                              llvm::ArrayRef<size_t> firstOf, std::vector<NumericsProbe> &probes) {
  OwningOpRef<ModuleOp> copy = module.clone();
  PassManager pm(module.getContext());
  mpc::buildPrecisionPipeline(pm, /*trainingStep=*/false, precision);
  if (failed(pm.run(*copy)))
    return llvm::createStringError("the numerics check's precision assignment failed");
  llvm::DenseMap<size_t, std::string> byFirst;
  copy->walk([&](Operation *op) {
    auto first = op->getAttrOfType<IntegerAttr>(kProbeAttr);
    if (!first || op->getNumResults() == 0)
      return;
    // (fp32 runs, inputs and f64 ops have no decision: the stored type is
    // the result's)
    auto decision = op->getAttrOfType<DictionaryAttr>(mlir::mpg::kPrecisionDecisionAttr);
    Type storage = llvm::cast<ShapedType>(op->getResult(0).getType()).getElementType();
    Type compute = storage.isF64() ? storage : Float32Type::get(op->getContext());
    if (decision) {
      if (auto type = decision.getAs<TypeAttr>("storage"))
        storage = type.getValue();
      if (auto type = decision.getAs<TypeAttr>("compute"))
        compute = type.getValue();
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    os << storage << " storage, " << compute << " compute";
    byFirst[first.getInt()] = text;
  });
  for (auto [probe, first] : llvm::zip_equal(probes, firstOf))
    probe.precision = byFirst.lookup(first);
  return llvm::Error::success();
}

} // namespace

llvm::Expected<std::vector<NumericsProbe>>
mpc::driver::addNumericsProbes(ModuleOp module, const std::string &graphName,
                               const mpc::PrecisionConfig &precision) {
  llvm::Expected<mpg::GraphOp> graph = chooseGraph(module, graphName);
  if (!graph)
    return graph.takeError();
  Block &body = graph->getBody().front();
  std::vector<NumericsProbe> probes;
  std::vector<size_t> firstOf;
  llvm::DenseMap<Value, size_t> probeOf;
  llvm::SmallVector<std::pair<Value, std::string>> outputs;
  for (Operation &op : body) {
    // (an input is probed too: data from outside may hold NaN)
    if (mpc::precision::isStructural(&op) && !llvm::isa<mpg::CastOp, mpg::InputOp>(op))
      continue;
    size_t first = probes.size();
    for (OpResult result : op.getResults()) {
      if (!isFloatTensor(result))
        continue;
      NumericsProbe probe;
      probe.output = "numerics." + std::to_string(probes.size());
      probe.op = op.getName().getStringRef().str();
      if (auto input = llvm::dyn_cast<mpg::InputOp>(op))
        probe.op = "input '" + input.getName().str() + "'";
      probe.result = result.getResultNumber();
      probe.location = locationText(op.getLoc());
      for (Value operand : op.getOperands())
        probe.operands.push_back(operandOf(operand, probeOf));
      if (!op.hasAttr(kProbeAttr))
        op.setAttr(kProbeAttr, Builder(op.getContext()).getI64IntegerAttr(first));
      probeOf[result] = probes.size();
      firstOf.push_back(first);
      outputs.push_back({result, probe.output});
      probes.push_back(std::move(probe));
    }
  }
  OpBuilder b = OpBuilder::atBlockEnd(&body);
  for (auto &[value, name] : outputs)
    b.create<mpg::OutputOp>(graph->getLoc(), name, value);
  if (llvm::Error error = describePrecision(module, precision, firstOf, probes))
    return std::move(error);
  return probes;
}
