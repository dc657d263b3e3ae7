//===- PrecisionReport.cpp - the precision section of `mpc report` --------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/PrecisionReport.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mpc::driver;

std::string mpc::driver::locationText(Location loc) {
  std::string text = "-";
  loc->walk([&](Location inner) {
    if (auto file = llvm::dyn_cast<FileLineColLoc>(inner)) {
      text = (llvm::sys::path::filename(file.getFilename().getValue()) + ":" +
              llvm::Twine(file.getLine()) + ":" + llvm::Twine(file.getColumn()))
                 .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return text;
}

namespace {

std::string typeText(Attribute attr) {
  auto type = llvm::dyn_cast_or_null<TypeAttr>(attr);
  if (!type)
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  type.getValue().print(os);
  return text;
}

} // namespace

PrecisionReport mpc::driver::collectPrecisionReport(mpg::GraphOp graph) {
  PrecisionReport report;
  report.graph = graph.getSymName().str();
  report.mode = "fp32";
  if (auto summary = graph->getAttrOfType<DictionaryAttr>(mlir::mpg::kPrecisionSummaryAttr)) {
    if (auto mode = summary.getAs<StringAttr>("mode"))
      report.mode = mode.getValue().str();
    if (auto n = summary.getAs<IntegerAttr>("casts_inserted"))
      report.castsInserted = n.getInt();
    if (auto n = summary.getAs<IntegerAttr>("casts_removed"))
      report.castsRemoved = n.getInt();
    if (auto n = summary.getAs<IntegerAttr>("working_copies"))
      report.workingCopies = n.getInt();
  }
  graph.getBody().walk([&](Operation *op) {
    auto decision = op->getAttrOfType<DictionaryAttr>(mlir::mpg::kPrecisionDecisionAttr);
    if (!decision)
      return;
    PrecisionDecision entry;
    entry.op = op->getName().getStringRef().str();
    entry.location = locationText(op->getLoc());
    if (auto category = decision.getAs<StringAttr>("category"))
      entry.category = category.getValue().str();
    if (auto reason = decision.getAs<StringAttr>("reason"))
      entry.reason = reason.getValue().str();
    entry.storage = typeText(decision.get("storage"));
    entry.compute = typeText(decision.get("compute"));
    entry.accumulate = typeText(decision.get("accumulate"));
    entry.forced = static_cast<bool>(decision.get("forced"));
    report.decisions.push_back(std::move(entry));
  });
  return report;
}

void mpc::driver::printPrecisionText(llvm::raw_ostream &os, const PrecisionReport &report) {
  os << "precision of @" << report.graph << ": mode " << report.mode;
  if (report.mode == "fp32") {
    os << " (every op as written; choose --precision fp16 or bf16)\n";
    return;
  }
  os << ", " << report.decisions.size() << " ops decided, " << report.castsInserted
     << " casts inserted, " << report.castsRemoved << " removed; " << report.workingCopies
     << " parameters read through persistent low-precision working copies (fp32 masters)\n";
  std::vector<std::pair<std::string, int64_t>> categories; // in order of appearance
  for (const PrecisionDecision &d : report.decisions) {
    std::string name = d.category + " (" + d.storage + ")";
    auto it = llvm::find_if(categories, [&](const auto &entry) { return entry.first == name; });
    if (it == categories.end())
      categories.emplace_back(name, 1);
    else
      ++it->second;
  }
  os << "  by category:";
  for (auto &[name, count] : categories)
    os << " " << name << " " << count << ";";
  os << "\n";
  os << llvm::format("  %-20s %-32s %-12s %-8s %-8s %-6s %s\n", (const char *)"location",
                     (const char *)"op", (const char *)"category", (const char *)"storage",
                     (const char *)"compute", (const char *)"accum", (const char *)"reason");
  for (const PrecisionDecision &d : report.decisions)
    os << llvm::format("  %-20s %-32s %-12s %-8s %-8s %-6s %s\n", d.location.c_str(),
                       d.op.c_str(), d.category.c_str(), d.storage.c_str(), d.compute.c_str(),
                       d.accumulate.empty() ? "-" : d.accumulate.c_str(), d.reason.c_str());
}

llvm::json::Object mpc::driver::precisionToJson(const PrecisionReport &report) {
  llvm::json::Array ops;
  llvm::json::Object categories;
  for (const PrecisionDecision &d : report.decisions) {
    llvm::json::Object entry{{"op", d.op},           {"location", d.location},
                             {"category", d.category}, {"storage", d.storage},
                             {"compute", d.compute},   {"forced", d.forced},
                             {"reason", d.reason}};
    if (!d.accumulate.empty())
      entry["accumulate"] = d.accumulate;
    ops.push_back(std::move(entry));
    int64_t count = categories.getInteger(d.category).value_or(0);
    categories[d.category] = count + 1;
  }
  return llvm::json::Object{{"mode", report.mode},
                            {"casts_inserted", report.castsInserted},
                            {"casts_removed", report.castsRemoved},
                            {"working_copies", report.workingCopies},
                            {"categories", std::move(categories)},
                            {"ops", std::move(ops)}};
}
