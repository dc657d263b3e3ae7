//===- OnnxGelu.cpp - GELU's exported forms recognised as mpg.gelu ---------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// PyTorch exports GELU before opset 20 as the arithmetic of its formula.
// Read node by node, the exact form costs an Erf and four products, and the
// tanh form (GPT-2's) seven products and sums, each storing its result for
// the backward pass; recognised, either is one mpg.gelu, whose kernel keeps
// its input only and computes in f32 with its constants unrounded.
//
//===----------------------------------------------------------------------===//

#include "compiler/Frontend/OnnxTranslator.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mpc;
using namespace mpc::onnx;

namespace {

/// The operand of a binary `node` that is not `name`, or "".
std::string other(const Node &node, const std::string &name) {
  if (node.inputs.size() != 2)
    return "";
  return node.inputs[0] == name ? node.inputs[1] : node.inputs[1] == name ? node.inputs[0] : "";
}

} // namespace

std::optional<double> Translator::scalarValue(const std::string &name) const {
  // (a constant may come from a Constant node after its reader's inputs:
  // exporters put each constant just before its reader)
  const rt::HostTensor *tensor = known(name);
  if (auto made = producer.find(name); !tensor && made != producer.end()) {
    const Node &node = model.nodes[made->second];
    if (const mpc::onnx::Attribute *value = node.attribute("value");
        node.opType == "Constant" && value)
      tensor = &value->tensor;
  }
  if (!tensor || tensor->dtype != rt::DType::F32 || tensor->numElements() != 1)
    return std::nullopt;
  float v;
  std::memcpy(&v, tensor->bytes.data(), 4);
  return v;
}

bool Translator::scalarNear(const std::string &name, double want) const {
  std::optional<double> v = scalarValue(name);
  return v && std::abs(*v - want) < 1e-3 * std::abs(want);
}

std::optional<size_t> Translator::onlyReader(const std::string &name, const char *op) const {
  auto found = readers.find(name);
  if (found == readers.end() || found->second.size() != 1 ||
      model.nodes[found->second[0]].opType != op)
    return std::nullopt;
  return found->second[0];
}

std::optional<std::vector<size_t>> Translator::matchGelu(size_t index) {
  const Node &div = model.nodes[index];
  if (div.inputs.size() != 2 || !scalarNear(div.inputs[1], std::sqrt(2.0)))
    return std::nullopt;
  const std::string &x = div.inputs[0];
  std::optional<size_t> erf = onlyReader(div.outputs[0], "Erf");
  if (!erf)
    return std::nullopt;
  const std::string &erfOut = model.nodes[*erf].outputs[0];
  std::optional<size_t> add = onlyReader(erfOut, "Add");
  if (!add || !scalarNear(other(model.nodes[*add], erfOut), 1.0))
    return std::nullopt;
  const std::string &addOut = model.nodes[*add].outputs[0];
  std::optional<size_t> mul = onlyReader(addOut, "Mul");
  if (!mul)
    return std::nullopt;
  const std::string &factor = other(model.nodes[*mul], addOut);
  std::vector<size_t> nodes{index, *erf, *add, *mul};
  std::string result;
  if (factor == x) {
    // (x * (1 + erf)) * 0.5: PyTorch's order
    const std::string &mulOut = model.nodes[*mul].outputs[0];
    std::optional<size_t> half = onlyReader(mulOut, "Mul");
    if (!half || !scalarNear(other(model.nodes[*half], mulOut), 0.5))
      return std::nullopt;
    nodes.push_back(*half);
    result = model.nodes[*half].outputs[0];
  } else {
    // (x * 0.5) * (1 + erf): the order of other exporters, the half
    // computed before the Div
    auto made = producer.find(factor);
    if (made == producer.end() || model.nodes[made->second].opType != "Mul" || made->second > index)
      return std::nullopt;
    const Node &half = model.nodes[made->second];
    if (other(half, x).empty() || !scalarNear(other(half, x), 0.5) || readers[factor].size() != 1)
      return std::nullopt;
    // (the half was translated already, as a Mul nothing else reads)
    result = model.nodes[*mul].outputs[0];
  }
  Value input = values.lookup(x);
  if (!input)
    return std::nullopt;
  define(result, b.create<mpg::GeluOp>(loc, input, /*approximate=*/false));
  return nodes;
}

std::optional<std::pair<int, double>> Translator::monomial(const std::string &name,
                                                           const std::string &x, int depth) const {
  if (name == x)
    return std::make_pair(1, 1.0);
  if (std::optional<double> c = scalarValue(name))
    return std::make_pair(0, *c);
  auto made = producer.find(name);
  if (depth > 4 || made == producer.end() || model.nodes[made->second].opType != "Mul" ||
      model.nodes[made->second].inputs.size() != 2)
    return std::nullopt;
  const Node &mul = model.nodes[made->second];
  auto a = monomial(mul.inputs[0], x, depth + 1), b = monomial(mul.inputs[1], x, depth + 1);
  if (!a || !b)
    return std::nullopt;
  return std::make_pair(a->first + b->first, a->second * b->second);
}

std::optional<std::vector<size_t>> Translator::matchTanhGelu(size_t index) {
  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), from the Tanh: its
  // argument's products and sums were translated already (they are left
  // unread and erased), its reader and theirs are covered here.
  const Node &tanh = model.nodes[index];
  auto near = [](std::optional<std::pair<int, double>> m, int power, double want) {
    return m && m->first == power && std::abs(m->second - want) < 1e-3 * std::abs(want);
  };
  auto scaled = producer.find(tanh.inputs.empty() ? "" : tanh.inputs[0]);
  if (scaled == producer.end() || model.nodes[scaled->second].opType != "Mul")
    return std::nullopt;
  const Node &scale = model.nodes[scaled->second];
  if (scale.inputs.size() != 2)
    return std::nullopt;
  // (x + 0.044715 x^3) times sqrt(2/pi), either way round
  std::string inner;
  for (int i = 0; i < 2 && inner.empty(); ++i)
    if (scalarNear(scale.inputs[1 - i], std::sqrt(2.0 / M_PI)))
      inner = scale.inputs[i];
  auto summed = producer.find(inner);
  if (inner.empty() || summed == producer.end() || model.nodes[summed->second].opType != "Add" ||
      model.nodes[summed->second].inputs.size() != 2)
    return std::nullopt;
  const Node &sum = model.nodes[summed->second];
  std::string x;
  for (int i = 0; i < 2 && x.empty(); ++i)
    if (near(monomial(sum.inputs[1 - i], sum.inputs[i]), 3, 0.044715))
      x = sum.inputs[i];
  if (x.empty())
    return std::nullopt;
  std::optional<size_t> add = onlyReader(tanh.outputs[0], "Add");
  if (!add || !scalarNear(other(model.nodes[*add], tanh.outputs[0]), 1.0))
    return std::nullopt;
  const std::string &onePlus = model.nodes[*add].outputs[0];
  std::optional<size_t> mul = onlyReader(onePlus, "Mul");
  if (!mul || !near(monomial(other(model.nodes[*mul], onePlus), x), 1, 0.5))
    return std::nullopt;
  Value input = values.lookup(x);
  if (!input)
    return std::nullopt;
  define(model.nodes[*mul].outputs[0], b.create<mpg::GeluOp>(loc, input, /*approximate=*/true));
  return std::vector<size_t>{index, *add, *mul};
}
