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

FailureOr<int64_t> Emitter::emitReduceHostForm(llvm::raw_ostream &os, mpk::ReduceOp k,
                                               llvm::ArrayRef<Value> buffers,
                                               llvm::ArrayRef<std::string> members,
                                               llvm::ArrayRef<AffineMap> maps) {
  llvm::ArrayRef<int64_t> iteration = k.getIteration();
  llvm::ArrayRef<int64_t> reduced = k.getReductionDims();
  size_t numIn = k.getInputs().size(), numEpi = k.getEpilogueInputs().size();
  size_t numOut = k.getOutputs().size();
  Block &pro = k.getPrologue().front();
  Block &epi = k.getEpilogue().front();
  bool isSum = k.getKind() == mpk::ReduceKind::Sum;
  unsigned rank = iteration.size();
  auto isReduced = [&](unsigned d) { return llvm::is_contained(reduced, static_cast<int64_t>(d)); };
  llvm::SmallVector<int64_t> outShape;
  llvm::SmallVector<std::string> fullNames(rank);
  for (unsigned d = 0; d < rank; ++d) {
    fullNames[d] = (isReduced(d) ? "r" : "o") + std::to_string(d);
    if (!isReduced(d))
      outShape.push_back(iteration[d]);
  }
  unsigned outRank = outShape.size();
  auto outNames = dimNames("q", outRank);
  llvm::SmallVector<AffineMap> inMaps(maps.take_front(numIn)), outMaps(maps.drop_front(numIn));
  llvm::SmallVector<llvm::ArrayRef<int64_t>> inShapes, outShapes;
  for (size_t b = 0; b < buffers.size(); ++b)
    (b < numIn ? inShapes : outShapes).push_back(shapeOf(buffers[b]));
  std::optional<mpc::HostRowLayout> in = mpc::hostRowLayout(iteration, inMaps, inShapes);
  int lastKept = -1, lastReduced = -1;
  for (unsigned d = 0; d < rank; ++d)
    (isReduced(d) ? lastReduced : lastKept) = static_cast<int>(d);
  std::string identity = isSum ? "0.0f" : "-mpc::inf_f()";
  auto combine = [&](llvm::StringRef a, llvm::StringRef b) {
    return isSum ? ("(" + a + " + " + b + ")").str() : ("mpc::max_f(" + a + ", " + b + ")").str();
  };
  // In both forms below, fp16 inputs that advance along the run are
  // widened a block at a time into float arrays before the loop
  // (widen_chunk: eight at a time with F16C), and booleans into 32-bit
  // integers, as in pointwise rows; the loop then reads 32-bit lanes
  // only, and vectorises without the bit-level conversion. (Read as bytes
  // in the loop, a mask made GCC vectorise a batch-norm gradient's sums
  // two floats at a time: 4x as long as the same sums over a stored f32
  // tensor.)
  auto isBool = [&](unsigned j) { return elementOf(buffers[j]).isInteger(1); };
  auto staged = [&](unsigned j, llvm::ArrayRef<bool> advances) {
    return advances[j] && (elementOf(buffers[j]).isF16() || isBool(j));
  };
  auto emitStaging = [&](llvm::StringRef indent, llvm::ArrayRef<std::string> starts,
                         llvm::ArrayRef<bool> advances, llvm::StringRef from, int64_t size) {
    for (unsigned j = 0; j < numIn; ++j)
      if (staged(j, advances))
        os << indent << (isBool(j) ? "int32_t" : "float") << " s" << j << "_[" << size << "];\n"
           << indent << "mpc::widen_chunk(" << members[j] << " + (" << starts[j] << " + " << from
           << "), s" << j << "_, n_);\n";
  };
  // The prologue at element `at` of the run (advancing inputs read there;
  // staged ones at `stagedAt` of their arrays).
  auto emitValue = [&](llvm::StringRef indent, llvm::ArrayRef<std::string> starts,
                       llvm::ArrayRef<bool> advances, llvm::StringRef at, llvm::StringRef stagedAt,
                       llvm::DenseMap<Value, std::string> &names) -> FailureOr<std::string> {
    for (auto [j, arg] : llvm::enumerate(pro.getArguments())) {
      names[arg] = "a" + std::to_string(j);
      if (!advances[j])
        continue;
      os << indent << "const " << scalarType(arg.getType()) << " " << names[arg] << " = ";
      if (staged(j, advances))
        os << "s" << j << "_[" << stagedAt << "]" << (isBool(j) ? " != 0" : "") << ";\n";
      else
        os << loadExpr(buffers[j], members[j], starts[j] + " + " + at.str(), kLoopConversions)
           << ";\n";
    }
    if (failed(emitScalarBody(os, indent, pro, names, kLoopConversions)))
      return failure();
    return names.lookup(llvm::cast<mpk::YieldOp>(pro.getTerminator()).getValues()[0]);
  };
  // Run starts and the loads of inputs that do not advance along it.
  auto emitStarts = [&](llvm::StringRef indent, unsigned first, llvm::ArrayRef<bool> advances,
                        llvm::DenseMap<Value, std::string> &names) {
    llvm::SmallVector<std::string> starts;
    for (size_t j = 0; j < numIn; ++j) {
      starts.push_back("at" + std::to_string(j) + "_");
      os << indent << "const int64_t " << starts.back() << " = "
         << linearIndex(maps[j], inShapes[j], fullNames, first) << ";\n";
      BlockArgument arg = pro.getArgument(j);
      names[arg] = "a" + std::to_string(j);
      if (!advances[j])
        os << indent << "const " << scalarType(arg.getType()) << " " << names[arg] << " = "
           << loadExpr(buffers[j], members[j], starts.back()) << ";\n";
    }
    return starts;
  };
  llvm::SmallVector<int64_t> outerShape;
  llvm::SmallVector<std::string> outerNames;

  os << "#ifndef __CUDACC__\n  void row(int64_t r) const {\n";
  unsigned firstReduced = in ? std::max<int>(in->firstRunDim, lastKept + 1) : rank;
  unsigned firstKept = in ? std::max<int>(in->firstRunDim, lastReduced + 1) : rank;
  std::optional<mpc::HostRowLayout> out;
  if (in && firstKept < rank)
    out = mpc::hostRowLayout(outShape, outMaps, outShapes);
  if (in && firstReduced < rank) {
    // One output per row; the run is the trailing reduced dimensions.
    int64_t length = product(iteration.drop_front(firstReduced));
    llvm::SmallVector<std::string> keptNames;
    for (unsigned d = 0; d < rank; ++d) {
      if (!isReduced(d))
        keptNames.push_back(fullNames[d]);
      else if (d < firstReduced) {
        outerShape.push_back(iteration[d]);
        outerNames.push_back(fullNames[d]);
      }
    }
    emitDecompose(os, "    ", "r", outShape, keptNames);
    // A block of up to kReduceBlock elements of the run is summed in
    // kReduceLanes lanes (with a vector register for each 8 of them, that
    // many independent chains of additions; one chain waits on its own
    // latency, about 3 cycles per vector of elements), then 8 lanes, then
    // lane 0; once kReduceBlock elements of the row have been added
    // (since_), the lanes are added into the row's (total_) lane by lane,
    // and those pairwise at the row's end. A lane thus sums at most about
    // 2 * kReduceBlock / kReduceLanes elements before they join the
    // row's. Rows of fewer than kReduceBlock elements (a layer norm's 64)
    // and runs shorter than 2 * kReduceLanes use 8 lanes only: setting up
    // and adding 32 would cost more than they save there.
    int64_t rowElements = product(outerShape) * length;
    int laneCount = length >= 2 * kReduceLanes && rowElements >= kReduceBlock ? kReduceLanes : 8;
    // A row of at most kReduceBlock elements needs no totals.
    bool totals = rowElements > kReduceBlock;
    std::string lanes = std::to_string(laneCount);
    os << "    float lane_[" << lanes << "]" << (totals ? ", total_[" + lanes + "]" : "") << ";\n"
       << "    for (int l_ = 0; l_ < " << lanes << "; ++l_)\n"
       << "      lane_[l_] = " << (totals ? "total_[l_] = " : "") << identity << ";\n"
       << (totals ? "    int64_t since_ = 0;\n" : "") << "    for (int64_t c = 0; c < "
       << product(outerShape) << "; ++c) {\n";
    emitDecompose(os, "      ", "c", outerShape, outerNames);
    llvm::DenseMap<Value, std::string> names;
    auto starts = emitStarts("      ", firstReduced, in->advances, names);
    std::string block = std::to_string(kReduceBlock);
    os << "      for (int64_t b_ = 0; b_ < " << length << "; b_ += " << block << ") {\n"
       << "        const int64_t n_ = " << length << " - b_ < " << block << " ? " << length
       << " - b_ : " << block << ";\n";
    emitStaging("        ", starts, in->advances, "b_", kReduceBlock);
    os << "        int64_t j_ = 0;\n";
    auto emitLanes = [&](int width) -> LogicalResult {
      std::string w = std::to_string(width);
      os << "        for (; j_ + " << w << " <= n_; j_ += " << w << ") {\n"
         << "          for (int l_ = 0; l_ < " << w << "; ++l_) {\n";
      FailureOr<std::string> v =
          emitValue("            ", starts, in->advances, "b_ + j_ + l_", "j_ + l_", names);
      if (failed(v))
        return failure();
      os << "            lane_[l_] = " << combine("lane_[l_]", *v) << ";\n          }\n        }\n";
      return success();
    };
    if (failed(emitLanes(laneCount)) || (laneCount > 8 && failed(emitLanes(8))))
      return failure();
    os << "        for (; j_ < n_; ++j_) {\n";
    FailureOr<std::string> v =
        emitValue("          ", starts, in->advances, "b_ + j_", "j_", names);
    if (failed(v))
      return failure();
    std::string summed = totals ? "total_" : "lane_";
    std::function<std::string(int, int)> tree = [&](int first, int count) -> std::string {
      if (count == 1)
        return summed + "[" + std::to_string(first) + "]";
      return combine(tree(first, count / 2), tree(first + count / 2, count / 2));
    };
    auto emitFlush = [&](llvm::StringRef indent) {
      os << indent << "for (int l_ = 0; l_ < " << lanes << "; ++l_) {\n"
         << indent << "  total_[l_] = " << combine("total_[l_]", "lane_[l_]") << ";\n"
         << indent << "  lane_[l_] = " << identity << ";\n"
         << indent << "}\n";
    };
    os << "          lane_[0] = " << combine("lane_[0]", *v) << ";\n        }\n";
    if (totals) {
      os << "        since_ += n_;\n"
         << "        if (since_ >= " << block << ") {\n";
      emitFlush("          ");
      os << "          since_ = 0;\n        }\n";
    }
    os << "      }\n    }\n";
    if (totals)
      emitFlush("    ");
    os << "    const float acc = " << tree(0, laneCount) << ";\n";
    // The epilogue, once.
    for (unsigned j = 0; j < outRank; ++j)
      os << "    const int64_t " << outNames[j] << " = " << keptNames[j] << ";\n";
    names[epi.getArgument(0)] = "acc";
    for (size_t j = 0; j < numEpi; ++j) {
      BlockArgument arg = epi.getArgument(j + 1);
      names[arg] = "e" + std::to_string(j);
      os << "    const " << scalarType(arg.getType()) << " " << names[arg] << " = "
         << loadExpr(buffers[numIn + j], members[numIn + j],
                     linearIndex(maps[numIn + j], outShapes[j], outNames))
         << ";\n";
    }
    if (failed(emitScalarBody(os, "    ", epi, names)))
      return failure();
    for (auto [j, value] :
         llvm::enumerate(llvm::cast<mpk::YieldOp>(epi.getTerminator()).getValues())) {
      size_t b = numIn + numEpi + j;
      os << "    " << members[b] << "[" << linearIndex(maps[b], outShapes[numEpi + j], outNames)
         << "] = " << storeExpr(buffers[b], names.lookup(value)) << ";\n";
    }
    os << "  }\n#endif\n";
    return product(outShape);
  }
  unsigned runDims = rank - firstKept;
  if (in && firstKept < rank && out && out->firstRunDim <= outRank - runDims &&
      product(iteration) > 0 &&
      llvm::all_of(llvm::drop_begin(out->advances, numEpi), [](bool a) { return a; })) {
    // Tiles of up to 256 outputs along the trailing kept run, summed
    // together as the reduced index advances.
    int64_t length = product(iteration.drop_front(firstKept));
    int64_t tile = std::min<int64_t>(length, 256);
    int64_t tiles = (length + tile - 1) / tile;
    llvm::SmallVector<int64_t> reducedShape;
    llvm::SmallVector<std::string> reducedNames, keptOuter;
    for (unsigned d = 0; d < rank; ++d) {
      if (isReduced(d)) {
        reducedShape.push_back(iteration[d]);
        reducedNames.push_back(fullNames[d]);
      } else if (d < firstKept) {
        outerShape.push_back(iteration[d]);
        keptOuter.push_back(fullNames[d]);
      }
    }
    if (tiles > 1)
      os << "    const int64_t t_ = r % " << tiles << ";\n";
    if (tiles > 1 && !outerShape.empty())
      os << "    r /= " << tiles << ";\n";
    emitDecompose(os, "    ", "r", outerShape, keptOuter);
    for (unsigned d = firstKept; d < rank; ++d)
      os << "    const int64_t " << fullNames[d] << " = 0;\n";
    os << "    const int64_t begin_ = " << (tiles > 1 ? "t_ * " + std::to_string(tile) : "0")
       << ";\n"
       << "    const int64_t n_ = " << length << " - begin_ < " << tile << " ? " << length
       << " - begin_ : " << tile << ";\n"
       << "    float acc_[" << tile << "];\n"
       << "    for (int64_t j_ = 0; j_ < n_; ++j_)\n      acc_[j_] = " << identity << ";\n"
       << "    for (int64_t c = 0; c < " << product(reducedShape) << "; ++c) {\n";
    emitDecompose(os, "      ", "c", reducedShape, reducedNames);
    llvm::DenseMap<Value, std::string> names;
    auto starts = emitStarts("      ", firstKept, in->advances, names);
    emitStaging("      ", starts, in->advances, "begin_", tile);
    os << "      MPC_INDEPENDENT_ITERATIONS\n"
       << "      for (int64_t j_ = 0; j_ < n_; ++j_) {\n";
    FailureOr<std::string> v =
        emitValue("        ", starts, in->advances, "begin_ + j_", "j_", names);
    if (failed(v))
      return failure();
    os << "        acc_[j_] = " << combine("acc_[j_]", *v) << ";\n      }\n    }\n";
    // The epilogue per output of the tile.
    llvm::SmallVector<std::string> outSpace;
    for (unsigned d = 0; d < rank; ++d)
      if (!isReduced(d))
        outSpace.push_back(fullNames[d]);
    unsigned outFirst = outRank - runDims;
    llvm::SmallVector<std::string> outStarts;
    for (size_t j = 0; j < numEpi + numOut; ++j) {
      outStarts.push_back("out" + std::to_string(j) + "_");
      os << "    const int64_t " << outStarts.back() << " = "
         << linearIndex(outMaps[j], outShapes[j], outSpace, outFirst) << ";\n";
    }
    os << "    MPC_INDEPENDENT_ITERATIONS\n"
       << "    for (int64_t j_ = 0; j_ < n_; ++j_) {\n"
       << "      const float acc = acc_[j_];\n";
    names[epi.getArgument(0)] = "acc";
    for (size_t j = 0; j < numEpi; ++j) {
      BlockArgument arg = epi.getArgument(j + 1);
      names[arg] = "e" + std::to_string(j);
      std::string at = outStarts[j] + (out->advances[j] ? " + begin_ + j_" : "");
      os << "      const " << scalarType(arg.getType()) << " " << names[arg] << " = "
         << loadExpr(buffers[numIn + j], members[numIn + j], at, kLoopConversions) << ";\n";
    }
    if (failed(emitScalarBody(os, "      ", epi, names, kLoopConversions)))
      return failure();
    for (auto [j, value] :
         llvm::enumerate(llvm::cast<mpk::YieldOp>(epi.getTerminator()).getValues())) {
      size_t b = numIn + numEpi + j;
      os << "      "
         << loopStoreStatement(buffers[b], members[b], outStarts[numEpi + j] + " + begin_ + j_",
                               names.lookup(unroundedStore(value, buffers[b])))
         << "\n";
    }
    os << "    }\n  }\n#endif\n";
    return product(outerShape) * tiles;
  }
  // The generic form.
  os << "    const mpc::RowContext row(r);\n    (*this)(row);\n  }\n#endif\n";
  return product(outShape);
}

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
                   ", fn)",
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
