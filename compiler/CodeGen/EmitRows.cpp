//===- EmitRows.cpp - reductions and row kernels --------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Reductions (with prologues and epilogues, their host forms by kept and
// reduced axes), softmax, layer norm and the cross-entropy kernels: one
// block, or one host loop, a row.
//
//===----------------------------------------------------------------------===//

#include "compiler/CodeGen/KernelEmitter.h"

using namespace mpc::codegen;

LogicalResult Emitter::emitReduce(llvm::raw_ostream &os, mpk::ReduceOp k, bool functorOnly) {
  llvm::SmallVector<Value> buffers(k.getInputs());
  buffers.append(k.getEpilogueInputs().begin(), k.getEpilogueInputs().end());
  buffers.append(k.getOutputs().begin(), k.getOutputs().end());
  size_t numIn = k.getInputs().size(), numEpi = k.getEpilogueInputs().size();
  llvm::SmallVector<bool> written(numIn + numEpi, false);
  written.append(k.getOutputs().size(), true);
  Block &pro = k.getPrologue().front();
  Block &epi = k.getEpilogue().front();
  Type accType = epi.getArgument(0).getType();
  bool viaRows = accType.isF32();
  bool isSum = k.getKind() == mpk::ReduceKind::Sum;

  auto members = beginFunctor(os, k.getSymName(), buffers, written);
  llvm::ArrayRef<int64_t> iteration = k.getIteration();
  llvm::ArrayRef<int64_t> reduced = k.getReductionDims();
  llvm::SmallVector<int64_t> outShape, redShape;
  llvm::SmallVector<std::string> fullNames(iteration.size());
  llvm::SmallVector<std::string> outNames, redNames;
  for (auto [d, size] : llvm::enumerate(iteration)) {
    bool isReduced = llvm::is_contained(reduced, static_cast<int64_t>(d));
    std::string name = (isReduced ? "r" : "o") + std::to_string(d);
    fullNames[d] = name;
    (isReduced ? redShape : outShape).push_back(size);
    (isReduced ? redNames : outNames).push_back(name);
  }
  auto maps = llvm::to_vector(k.getIndexing().getAsValueRange<AffineMapAttr>());
  auto outDims = dimNames("q", outShape.size());
  llvm::DenseMap<Value, std::string> names;
  std::string acc = scalarType(accType);

  // Loads the prologue's inputs at reduced position c and computes the
  // value to accumulate; returns its name.
  auto emitPrologue = [&](llvm::StringRef indent) -> FailureOr<std::string> {
    emitDecompose(os, indent, "c", redShape, redNames);
    for (auto [j, arg] : llvm::enumerate(pro.getArguments())) {
      std::string name = "a" + std::to_string(j);
      os << indent << "const " << scalarType(arg.getType()) << " " << name << " = "
         << loadExpr(buffers[j], members[j], linearIndex(maps[j], shapeOf(buffers[j]), fullNames))
         << ";\n";
      names[arg] = name;
    }
    if (failed(emitScalarBody(os, indent, pro, names)))
      return failure();
    return names.lookup(llvm::cast<mpk::YieldOp>(pro.getTerminator()).getValues()[0]);
  };
  // Computes and stores the outputs from the accumulator `acc`.
  auto emitEpilogue = [&](llvm::StringRef indent) -> LogicalResult {
    for (auto [j, name] : llvm::enumerate(outNames))
      os << indent << "const int64_t " << outDims[j] << " = " << name << ";\n";
    names[epi.getArgument(0)] = "acc";
    for (size_t j = 0; j < numEpi; ++j) {
      BlockArgument arg = epi.getArgument(j + 1);
      std::string name = "e" + std::to_string(j);
      size_t b = numIn + j;
      os << indent << "const " << scalarType(arg.getType()) << " " << name << " = "
         << loadExpr(buffers[b], members[b], linearIndex(maps[b], shapeOf(buffers[b]), outDims))
         << ";\n";
      names[arg] = name;
    }
    if (failed(emitScalarBody(os, indent, epi, names)))
      return failure();
    auto epiYield = llvm::cast<mpk::YieldOp>(epi.getTerminator());
    for (auto [j, value] : llvm::enumerate(epiYield.getValues())) {
      size_t b = numIn + numEpi + j;
      os << indent << members[b] << "[" << linearIndex(maps[b], shapeOf(buffers[b]), outDims)
         << "] = " << storeExpr(buffers[b], names.lookup(value)) << ";\n";
    }
    return success();
  };

  int64_t rows = product(outShape), count = product(redShape);
  if (viaRows) {
    os << "  template <class Row> MPC_HD void operator()(const Row &row) const {\n";
    emitDecompose(os, "    ", "row.index()", outShape, outNames);
    os << "    const float acc = row." << (isSum ? "reduce_sum" : "reduce_max") << "(" << count
       << ", [&](int64_t c) {\n";
    FailureOr<std::string> value = emitPrologue("      ");
    if (failed(value))
      return failure();
    os << "      return " << *value << ";\n    });\n";
    os << "    row.for_each(1, [&](int64_t) {\n";
    if (failed(emitEpilogue("      ")))
      return failure();
    os << "    });\n  }\n";
    FailureOr<int64_t> hostRows = emitReduceHostForm(os, k, buffers, members, maps);
    if (failed(hostRows))
      return failure();
    if (functorOnly) {
      os << "  static constexpr int64_t kRows = " << *hostRows << ";\n};\n} // namespace\n";
      return success();
    }
    endFunctor(os, k.getSymName(), buffers, written,
               "mpc::reduce_rows(" + std::to_string(rows) + ", " + std::to_string(*hostRows) +
                   ", fn, " + std::to_string(rows * count) + ")",
               rowGrid(rows), rowBlock(count, rows));
    return success();
  }
  assert(!functorOnly && "only fp32 reductions (the row skeleton) share a launch");
  std::string identity =
      isSum ? "static_cast<" + acc + ">(0)"
            : (accType.isF64() ? std::string("static_cast<double>(-mpc::inf_f())")
                               : "static_cast<" + acc + ">(0 - (1ULL << " +
                                     std::to_string(accType.getIntOrFloatBitWidth() - 1) + "))");
  os << "  MPC_HD void operator()(int64_t i) const {\n";
  emitDecompose(os, "    ", "i", outShape, outNames);
  os << "    " << acc << " acc = " << identity << ";\n"
     << "    for (int64_t c = 0; c < " << count << "; ++c) {\n";
  FailureOr<std::string> value = emitPrologue("      ");
  if (failed(value))
    return failure();
  if (isSum)
    os << "      acc = acc + " << *value << ";\n";
  else if (accType.isF64())
    os << "      acc = mpc::max_f(acc, " << *value << ");\n";
  else
    os << "      acc = " << *value << " > acc ? " << *value << " : acc;\n";
  os << "    }\n";
  if (failed(emitEpilogue("    ")))
    return failure();
  os << "  }\n";
  endFunctor(os, k.getSymName(), buffers, written,
             "mpc::pointwise(" + std::to_string(rows) + ", fn)", pointwiseGrid(rows), 256);
  return success();
}

LogicalResult Emitter::emitSoftmax(llvm::raw_ostream &os, mpk::SoftmaxOp k) {
  Value in = k.getInput(), out = k.getOutput();
  if (elementOf(in).isF64())
    return k.emitError("f64 softmax is not supported by the kernel generator yet");
  auto members = beginFunctor(os, k.getSymName(), {in, out}, {false, true});
  int64_t outer = k.getOuter(), cols = k.getCols(), inner = k.getInner();
  std::string at = "base + c * " + std::to_string(inner);
  os << "  template <class Row> MPC_HD void operator()(const Row &row) const {\n"
     << "    const int64_t base = (row.index() / " << inner << ") * " << cols * inner
     << " + row.index() % " << inner << ";\n"
     << "    const float m = row.reduce_max(" << cols << ", [&](int64_t c) { return "
     << loadExpr(in, members[0], at) << "; });\n"
     << "    const float s = row.reduce_sum(" << cols << ", [&](int64_t c) { return mpc::exp_f("
     << loadExpr(in, members[0], at) << " - m); });\n"
     << "    row.for_each(" << cols << ", [&](int64_t c) {\n"
     << "      const float v = " << loadExpr(in, members[0], at) << " - m;\n"
     << "      " << members[1] << "[" << at
     << "] = " << storeExpr(out, k.getLog() ? "v - mpc::log_f(s)" : "mpc::exp_f(v) / s") << ";\n"
     << "    });\n  }\n";
  int64_t rows = outer * inner;
  endFunctor(os, k.getSymName(), {in, out}, {false, true},
             "mpc::rows(" + std::to_string(rows) + ", fn)", rowGrid(rows), rowBlock(cols, rows));
  return success();
}

LogicalResult Emitter::emitLayerNorm(llvm::raw_ostream &os, mpk::LayerNormOp k) {
  llvm::SmallVector<Value> buffers{k.getInput(), k.getGamma(), k.getBeta(), k.getOutput()};
  for (Value b : buffers)
    if (elementOf(b).isF64())
      return k.emitError("f64 layer_norm is not supported by the kernel generator yet");
  llvm::SmallVector<bool> written{false, false, false, true};
  auto m = beginFunctor(os, k.getSymName(), buffers, written);
  int64_t cols = k.getCols();
  std::string x = loadExpr(buffers[0], m[0], "base + c");
  os << "  template <class Row> MPC_HD void operator()(const Row &row) const {\n"
     << "    const int64_t base = row.index() * " << cols << ";\n"
     << "    const float mean = row.reduce_sum(" << cols << ", [&](int64_t c) { return " << x
     << "; }) * " << floatLiteral(1.0 / cols, false) << ";\n"
     << "    const float var = row.reduce_sum(" << cols
     << ", [&](int64_t c) { const float d = " << x << " - mean; return d * d; }) * "
     << floatLiteral(1.0 / cols, false) << ";\n"
     << "    const float inv = mpc::rsqrt_f(var + "
     << floatLiteral(k.getEps().convertToDouble(), false) << ");\n"
     << "    row.for_each(" << cols << ", [&](int64_t c) {\n"
     << "      const float v = (" << x << " - mean) * inv * " << loadExpr(buffers[1], m[1], "c")
     << " + " << loadExpr(buffers[2], m[2], "c") << ";\n"
     << "      " << m[3] << "[base + c] = " << storeExpr(buffers[3], "v") << ";\n"
     << "    });\n  }\n";
  endFunctor(os, k.getSymName(), buffers, written,
             "mpc::rows(" + std::to_string(k.getRows()) + ", fn)", rowGrid(k.getRows()),
             rowBlock(cols, k.getRows()));
  return success();
}

LogicalResult Emitter::emitCrossEntropy(llvm::raw_ostream &os, mpk::CrossEntropyOp k) {
  llvm::SmallVector<Value> buffers{k.getLogits(), k.getLabels(), k.getLosses()};
  if (elementOf(buffers[0]).isF64())
    return k.emitError("f64 cross-entropy is not supported by the kernel generator yet");
  llvm::SmallVector<bool> written{false, false, true};
  auto m = beginFunctor(os, k.getSymName(), buffers, written);
  int64_t cols = k.getCols();
  std::string x = loadExpr(buffers[0], m[0], "base + c");
  os << "  template <class Row> MPC_HD void operator()(const Row &row) const {\n"
     << "    const int64_t base = row.index() * " << cols << ";\n"
     << "    const float mx = row.reduce_max(" << cols << ", [&](int64_t c) { return " << x
     << "; });\n"
     << "    const float s = row.reduce_sum(" << cols << ", [&](int64_t c) { return mpc::exp_f("
     << x << " - mx); });\n"
     << "    row.for_each(1, [&](int64_t) {\n"
     << "      const int64_t label = static_cast<int64_t>(" << m[1] << "[row.index()]);\n"
     << "      const float picked = (label >= 0 && label < " << cols << ") ? "
     << loadExpr(buffers[0], m[0], "base + label") << " : mpc::nan_f();\n"
     << "      " << m[2]
     << "[row.index()] = " << storeExpr(buffers[2], "mpc::log_f(s) + mx - picked") << ";\n"
     << "    });\n  }\n";
  endFunctor(os, k.getSymName(), buffers, written,
             "mpc::rows(" + std::to_string(k.getRows()) + ", fn)", rowGrid(k.getRows()),
             rowBlock(cols, k.getRows()));
  return success();
}

LogicalResult Emitter::emitCrossEntropyGrad(llvm::raw_ostream &os, mpk::CrossEntropyGradOp k) {
  llvm::SmallVector<Value> buffers{k.getLogits(), k.getLabels(), k.getGradLoss(),
                                   k.getGradLogits()};
  if (elementOf(buffers[0]).isF64())
    return k.emitError("f64 cross-entropy is not supported by the kernel generator yet");
  llvm::SmallVector<bool> written{false, false, false, true};
  auto m = beginFunctor(os, k.getSymName(), buffers, written);
  int64_t rows = k.getRows(), cols = k.getCols();
  std::string x = loadExpr(buffers[0], m[0], "base + c");
  os << "  template <class Row> MPC_HD void operator()(const Row &row) const {\n"
     << "    const int64_t base = row.index() * " << cols << ";\n"
     << "    const float mx = row.reduce_max(" << cols << ", [&](int64_t c) { return " << x
     << "; });\n"
     << "    const float s = row.reduce_sum(" << cols << ", [&](int64_t c) { return mpc::exp_f("
     << x << " - mx); });\n"
     << "    const int64_t label = static_cast<int64_t>(" << m[1] << "[row.index()]);\n"
     << "    const float scale = " << loadExpr(buffers[2], m[2], "0") << " * "
     << floatLiteral(1.0 / rows, false) << ";\n"
     << "    row.for_each(" << cols << ", [&](int64_t c) {\n"
     << "      const float p = mpc::exp_f(" << x << " - mx) / s - (c == label ? 1.0f : 0.0f);\n"
     << "      " << m[3] << "[base + c] = " << storeExpr(buffers[3], "p * scale") << ";\n"
     << "    });\n  }\n";
  endFunctor(os, k.getSymName(), buffers, written, "mpc::rows(" + std::to_string(rows) + ", fn)",
             rowGrid(rows), rowBlock(cols, rows));
  return success();
}
