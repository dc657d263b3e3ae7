//===- GraphPicture.cpp - a training graph drawn by precision -------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/GraphPicture.h"

#include "compiler/Driver/SvgChart.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;

namespace {

constexpr int kColumn = 118, kRow = 30, kBoxWidth = 104, kBoxHeight = 22, kMargin = 12;

std::string typeName(Type type) {
  if (auto tensor = llvm::dyn_cast<RankedTensorType>(type))
    type = tensor.getElementType();
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// The decision's field `name`, or "".
std::string field(DictionaryAttr decision, llvm::StringRef name) {
  if (!decision)
    return "";
  if (auto text = decision.getAs<StringAttr>(name))
    return text.getValue().str();
  if (auto type = decision.getAs<TypeAttr>(name))
    return typeName(type.getValue());
  return "";
}

std::string locationText(Location location) {
  if (auto file = llvm::dyn_cast<FileLineColLoc>(location))
    return (file.getFilename().getValue() + ":" + llvm::Twine(file.getLine())).str();
  if (auto fused = llvm::dyn_cast<FusedLoc>(location))
    for (Location inner : fused.getLocations())
      if (std::string text = locationText(inner); !text.empty())
        return text;
  if (auto name = llvm::dyn_cast<NameLoc>(location))
    return locationText(name.getChildLoc());
  return "";
}

} // namespace

std::string mpc::driver::storageColor(const std::string &type) {
  if (type == "f16")
    return "#ff9f40";
  if (type == "bf16")
    return "#b07cd8";
  if (type == "f32")
    return "#5b9bd5";
  if (type == "f64")
    return "#2f5597";
  return "#bdbdbd"; // integers, booleans, no result
}

std::string mpc::driver::graphPictureSvg(mpg::GraphOp graph) {
  Block &body = graph.getBody().front();
  // Columns by depth: an op one column right of its deepest operand. An op
  // without operands (an input, a parameter, a constant) goes just left of
  // its first user, so that it is drawn next to what reads it.
  llvm::DenseMap<Operation *, int> column;
  std::vector<Operation *> order;
  for (Operation &op : body) {
    if (llvm::isa<mpg::OutputOp, mpg::MinimizeOp>(op))
      continue;
    int depth = 0;
    for (Value operand : op.getOperands())
      if (Operation *def = operand.getDefiningOp())
        if (auto it = column.find(def); it != column.end())
          depth = std::max(depth, it->second + (def->getNumOperands() ? 1 : 0));
    if (op.getNumOperands())
      depth = std::max(depth, 1);
    column[&op] = depth;
    order.push_back(&op);
  }
  for (Operation *op : order) {
    if (op->getNumOperands())
      continue;
    int first = -1;
    for (Operation *user : op->getUsers())
      if (auto it = column.find(body.findAncestorOpInBlock(*user)); it != column.end())
        first = first < 0 ? it->second : std::min(first, it->second);
    column[op] = std::max(0, first - 1);
  }
  std::vector<std::vector<Operation *>> columns;
  for (Operation *op : order) {
    int c = column[op];
    if (static_cast<int>(columns.size()) <= c)
      columns.resize(c + 1);
    columns[c].push_back(op);
  }
  llvm::DenseMap<Operation *, std::pair<int, int>> at; // box centre
  size_t rows = 0;
  for (auto [c, ops] : llvm::enumerate(columns)) {
    rows = std::max(rows, ops.size());
    for (auto [r, op] : llvm::enumerate(ops))
      at[op] = {kMargin + static_cast<int>(c) * kColumn + kBoxWidth / 2,
                kMargin + static_cast<int>(r) * kRow + kBoxHeight / 2};
  }
  int width = kMargin * 2 + std::max<int>(1, columns.size()) * kColumn;
  int height = kMargin * 2 + std::max<int>(1, rows) * kRow;
  std::string svg = llvm::formatv(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"graph\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"10\">\n",
      width, height);
  for (auto &[op, centre] : at)
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        if (auto from = at.find(def); from != at.end())
          svg += llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{3}\" "
                               "stroke=\"#c8c8c8\" stroke-width=\"0.8\"/>\n",
                               from->second.first + kBoxWidth / 2, from->second.second,
                               centre.first - kBoxWidth / 2, centre.second);
  for (auto &ops : columns)
    for (Operation *op : ops) {
      auto decision = op->getAttrOfType<DictionaryAttr>(mlir::mpg::kPrecisionDecisionAttr);
      std::string storage = field(decision, "storage");
      if (storage.empty())
        storage = op->getNumResults() ? typeName(op->getResult(0).getType()) : "-";
      std::string category = field(decision, "category");
      std::string name = op->getName().getStringRef().drop_front(4).str();
      std::string label = name;
      if (auto named = op->getAttrOfType<StringAttr>("name"))
        label += " " + named.getValue().str();
      if (label.size() > 18)
        label = label.substr(0, 17) + "\u2026";
      std::string tip = name + (category.empty() ? "" : " [" + category + "]") + ": storage " +
                        storage;
      if (std::string compute = field(decision, "compute"); !compute.empty())
        tip += ", compute " + compute;
      if (std::string accumulate = field(decision, "accumulate"); !accumulate.empty())
        tip += ", accumulate " + accumulate;
      if (std::string reason = field(decision, "reason"); !reason.empty())
        tip += " \u2014 " + reason;
      if (std::string where = locationText(op->getLoc()); !where.empty())
        tip += " (" + where + ")";
      auto [x, y] = at[op];
      svg += llvm::formatv(
          "<g class=\"op\" data-category=\"{0}\" data-storage=\"{1}\"><title>{2}</title>"
          "<rect x=\"{3}\" y=\"{4}\" width=\"{5}\" height=\"{6}\" rx=\"4\" fill=\"{7}\" "
          "stroke=\"{8}\" stroke-width=\"{9}\"/><text x=\"{10}\" y=\"{11}\" "
          "text-anchor=\"middle\" dominant-baseline=\"middle\">{12}</text></g>\n",
          escapeXml(category), escapeXml(storage), escapeXml(tip), x - kBoxWidth / 2,
          y - kBoxHeight / 2, kBoxWidth, kBoxHeight, storageColor(storage),
          category == "dot-product" ? "#000" : "#666", category == "dot-product" ? 2 : 0.6, x,
          y + 1, escapeXml(label));
    }
  svg += "</svg>\n";
  return svg;
}
