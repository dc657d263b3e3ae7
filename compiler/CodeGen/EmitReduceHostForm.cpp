//===- EmitReduceHostForm.cpp - the host form of a reduction --------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// `row(r)` of an fp32 reduction on the host, in one of three forms chosen by
// where the reduced and kept dimensions lie (KernelEmitter.h,
// emitReduceHostForm): lanes along a reduced run, tiles along a kept run, or
// the generic row skeleton.
//
//===----------------------------------------------------------------------===//

#include "compiler/CodeGen/KernelEmitter.h"

#include <functional>

using namespace mpc::codegen;

/// The state the forms share: the kernel, its buffers and the names of the
/// iteration's dimensions.
class Emitter::ReduceHostForm {
public:
  ReduceHostForm(Emitter &emitter, llvm::raw_ostream &os, mpk::ReduceOp k,
                 llvm::ArrayRef<Value> buffers, llvm::ArrayRef<std::string> members,
                 llvm::ArrayRef<AffineMap> maps);

  FailureOr<int64_t> emit();

private:
  bool isReduced(unsigned d) const { return llvm::is_contained(reduced, static_cast<int64_t>(d)); }
  bool isBool(unsigned j) const { return elementOf(buffers[j]).isInteger(1); }
  /// fp16 inputs that advance along the run are widened a block at a time
  /// into float arrays before the loop (widen_chunk: eight at a time with
  /// F16C), and booleans into 32-bit integers, as in pointwise rows; the
  /// loop then reads 32-bit lanes only, and vectorises without the
  /// bit-level conversion. (Read as bytes in the loop, a mask made GCC
  /// vectorise a batch-norm gradient's sums two floats at a time: 4x as
  /// long as the same sums over a stored f32 tensor.)
  bool staged(unsigned j) const {
    return in->advances[j] && (elementOf(buffers[j]).isF16() || isBool(j));
  }
  std::string combine(llvm::StringRef a, llvm::StringRef b) const {
    return isSum ? ("(" + a + " + " + b + ")").str() : ("mpc::max_f(" + a + ", " + b + ")").str();
  }

  void emitStaging(llvm::StringRef indent, llvm::ArrayRef<std::string> starts, llvm::StringRef from,
                   int64_t size);
  FailureOr<std::string> emitValue(llvm::StringRef indent, llvm::ArrayRef<std::string> starts,
                                   llvm::StringRef at, llvm::StringRef stagedAt,
                                   llvm::DenseMap<Value, std::string> &names);
  llvm::SmallVector<std::string> emitStarts(llvm::StringRef indent, unsigned first,
                                            llvm::DenseMap<Value, std::string> &names);

  FailureOr<int64_t> emitAlongReducedRun(unsigned firstReduced);
  LogicalResult emitRunBlock(unsigned laneCount, bool totals, llvm::ArrayRef<std::string> starts,
                             llvm::DenseMap<Value, std::string> &names);
  void emitFlush(llvm::StringRef indent, llvm::StringRef lanes);
  LogicalResult emitEpilogueOnce(llvm::ArrayRef<std::string> keptNames,
                                 llvm::DenseMap<Value, std::string> &names);

  FailureOr<int64_t> emitAlongKeptRun(unsigned firstKept);
  void emitReducedLoops(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<std::string> names);
  LogicalResult emitTileEpilogue(unsigned runDims, llvm::DenseMap<Value, std::string> &names);

  Emitter &emitter;
  llvm::raw_ostream &os;
  mpk::ReduceOp k;
  llvm::ArrayRef<Value> buffers;
  llvm::ArrayRef<std::string> members;
  llvm::ArrayRef<AffineMap> maps;
  llvm::ArrayRef<int64_t> iteration, reduced;
  size_t numIn, numEpi, numOut;
  Block &pro, &epi;
  bool isSum;
  unsigned rank;
  std::string identity;
  llvm::SmallVector<int64_t> outShape;
  llvm::SmallVector<std::string> fullNames, outNames;
  unsigned outRank;
  llvm::SmallVector<AffineMap> inMaps, outMaps;
  llvm::SmallVector<llvm::ArrayRef<int64_t>> inShapes, outShapes;
  /// The inputs' layout along runs of the iteration space, and the
  /// outputs'; none where the generic form runs.
  std::optional<mpc::HostRowLayout> in, out;
  llvm::SmallVector<int64_t> outerShape;
  llvm::SmallVector<std::string> outerNames;
};

Emitter::ReduceHostForm::ReduceHostForm(Emitter &emitter, llvm::raw_ostream &os, mpk::ReduceOp k,
                                        llvm::ArrayRef<Value> buffers,
                                        llvm::ArrayRef<std::string> members,
                                        llvm::ArrayRef<AffineMap> maps)
    : emitter(emitter), os(os), k(k), buffers(buffers), members(members), maps(maps),
      iteration(k.getIteration()), reduced(k.getReductionDims()), numIn(k.getInputs().size()),
      numEpi(k.getEpilogueInputs().size()), numOut(k.getOutputs().size()),
      pro(k.getPrologue().front()), epi(k.getEpilogue().front()),
      isSum(k.getKind() == mpk::ReduceKind::Sum), rank(iteration.size()),
      identity(isSum ? "0.0f" : "-mpc::inf_f()"), fullNames(rank) {
  for (unsigned d = 0; d < rank; ++d) {
    fullNames[d] = (isReduced(d) ? "r" : "o") + std::to_string(d);
    if (!isReduced(d))
      outShape.push_back(iteration[d]);
  }
  outRank = outShape.size();
  outNames = dimNames("q", outRank);
  inMaps.assign(maps.begin(), maps.begin() + numIn);
  outMaps.assign(maps.begin() + numIn, maps.end());
  for (size_t b = 0; b < buffers.size(); ++b)
    (b < numIn ? inShapes : outShapes).push_back(shapeOf(buffers[b]));
  in = mpc::hostRowLayout(iteration, inMaps, inShapes);
}

FailureOr<int64_t> Emitter::ReduceHostForm::emit() {
  int lastKept = -1, lastReduced = -1;
  for (unsigned d = 0; d < rank; ++d)
    (isReduced(d) ? lastReduced : lastKept) = static_cast<int>(d);
  os << "#ifndef __CUDACC__\n  void row(int64_t r) const {\n";
  unsigned firstReduced = in ? std::max<int>(in->firstRunDim, lastKept + 1) : rank;
  unsigned firstKept = in ? std::max<int>(in->firstRunDim, lastReduced + 1) : rank;
  if (in && firstKept < rank)
    out = mpc::hostRowLayout(outShape, outMaps, outShapes);
  if (in && firstReduced < rank)
    return emitAlongReducedRun(firstReduced);
  unsigned runDims = rank - firstKept;
  if (in && firstKept < rank && out && out->firstRunDim <= outRank - runDims &&
      product(iteration) > 0 &&
      llvm::all_of(llvm::drop_begin(out->advances, numEpi), [](bool a) { return a; }))
    return emitAlongKeptRun(firstKept);
  // The generic form.
  os << "    const mpc::RowContext row(r);\n    (*this)(row);\n  }\n#endif\n";
  return product(outShape);
}

void Emitter::ReduceHostForm::emitStaging(llvm::StringRef indent,
                                          llvm::ArrayRef<std::string> starts, llvm::StringRef from,
                                          int64_t size) {
  for (unsigned j = 0; j < numIn; ++j)
    if (staged(j))
      os << indent << (isBool(j) ? "int32_t" : "float") << " s" << j << "_[" << size << "];\n"
         << indent << "mpc::widen_chunk(" << members[j] << " + (" << starts[j] << " + " << from
         << "), s" << j << "_, n_);\n";
}

/// The prologue at element `at` of the run (advancing inputs read there;
/// staged ones at `stagedAt` of their arrays).
FailureOr<std::string>
Emitter::ReduceHostForm::emitValue(llvm::StringRef indent, llvm::ArrayRef<std::string> starts,
                                   llvm::StringRef at, llvm::StringRef stagedAt,
                                   llvm::DenseMap<Value, std::string> &names) {
  for (auto [j, arg] : llvm::enumerate(pro.getArguments())) {
    names[arg] = "a" + std::to_string(j);
    if (!in->advances[j])
      continue;
    os << indent << "const " << scalarType(arg.getType()) << " " << names[arg] << " = ";
    if (staged(j))
      os << "s" << j << "_[" << stagedAt << "]" << (isBool(j) ? " != 0" : "") << ";\n";
    else
      os << loadExpr(buffers[j], members[j], starts[j] + " + " + at.str(), kLoopConversions)
         << ";\n";
  }
  if (failed(emitter.emitScalarBody(os, indent, pro, names, kLoopConversions)))
    return failure();
  return names.lookup(llvm::cast<mpk::YieldOp>(pro.getTerminator()).getValues()[0]);
}

/// Run starts and the loads of inputs that do not advance along it.
llvm::SmallVector<std::string>
Emitter::ReduceHostForm::emitStarts(llvm::StringRef indent, unsigned first,
                                    llvm::DenseMap<Value, std::string> &names) {
  llvm::SmallVector<std::string> starts;
  for (size_t j = 0; j < numIn; ++j) {
    starts.push_back("at" + std::to_string(j) + "_");
    os << indent << "const int64_t " << starts.back() << " = "
       << linearIndex(maps[j], inShapes[j], fullNames, first) << ";\n";
    BlockArgument arg = pro.getArgument(j);
    names[arg] = "a" + std::to_string(j);
    if (!in->advances[j])
      os << indent << "const " << scalarType(arg.getType()) << " " << names[arg] << " = "
         << loadExpr(buffers[j], members[j], starts.back()) << ";\n";
  }
  return starts;
}

/// One output per row; the run is the trailing reduced dimensions.
///
/// A block of up to kReduceBlock elements of the run is summed in
/// kReduceLanes lanes (with a vector register for each 8 of them, that many
/// independent chains of additions; one chain waits on its own latency,
/// about 3 cycles per vector of elements), then 8 lanes, then lane 0; once
/// kReduceBlock elements of the row have been added (since_), the lanes are
/// added into the row's (total_) lane by lane, and those pairwise at the
/// row's end. A lane thus sums at most about 2 * kReduceBlock / kReduceLanes
/// elements before they join the row's. Rows of fewer than kReduceBlock
/// elements (a layer norm's 64) and runs shorter than 2 * kReduceLanes use
/// 8 lanes only: setting up and adding 32 would cost more than they save
/// there.
FailureOr<int64_t> Emitter::ReduceHostForm::emitAlongReducedRun(unsigned firstReduced) {
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
  int64_t rowElements = product(outerShape) * length;
  unsigned laneCount = length >= 2 * kReduceLanes && rowElements >= kReduceBlock ? kReduceLanes : 8;
  // A row of at most kReduceBlock elements needs no totals.
  bool totals = rowElements > kReduceBlock;
  std::string lanes = std::to_string(laneCount);
  os << "    float lane_[" << lanes << "]" << (totals ? ", total_[" + lanes + "]" : "") << ";\n"
     << "    for (int l_ = 0; l_ < " << lanes << "; ++l_)\n"
     << "      lane_[l_] = " << (totals ? "total_[l_] = " : "") << identity << ";\n"
     << (totals ? "    int64_t since_ = 0;\n" : "");
  emitReducedLoops(outerShape, outerNames);
  llvm::DenseMap<Value, std::string> names;
  auto starts = emitStarts("      ", firstReduced, names);
  std::string block = std::to_string(kReduceBlock);
  os << "      for (int64_t b_ = 0; b_ < " << length << "; b_ += " << block << ") {\n"
     << "        const int64_t n_ = " << length << " - b_ < " << block << " ? " << length
     << " - b_ : " << block << ";\n";
  emitStaging("        ", starts, "b_", kReduceBlock);
  if (failed(emitRunBlock(laneCount, totals, starts, names)))
    return failure();
  os << "      }\n    }\n";
  if (totals)
    emitFlush("    ", lanes);
  std::string summed = totals ? "total_" : "lane_";
  std::function<std::string(int, int)> tree = [&](int first, int count) -> std::string {
    if (count == 1)
      return summed + "[" + std::to_string(first) + "]";
    return combine(tree(first, count / 2), tree(first + count / 2, count / 2));
  };
  os << "    const float acc = " << tree(0, laneCount) << ";\n";
  if (failed(emitEpilogueOnce(keptNames, names)))
    return failure();
  os << "  }\n#endif\n";
  return product(outShape);
}

/// The loops over one block of the run: laneCount lanes, then 8, then one;
/// then, with totals, the lanes join the totals every kReduceBlock
/// elements.
LogicalResult Emitter::ReduceHostForm::emitRunBlock(unsigned laneCount, bool totals,
                                                    llvm::ArrayRef<std::string> starts,
                                                    llvm::DenseMap<Value, std::string> &names) {
  os << "        int64_t j_ = 0;\n";
  auto emitLanes = [&](unsigned width) -> LogicalResult {
    std::string w = std::to_string(width);
    os << "        for (; j_ + " << w << " <= n_; j_ += " << w << ") {\n"
       << "          for (int l_ = 0; l_ < " << w << "; ++l_) {\n";
    FailureOr<std::string> v = emitValue("            ", starts, "b_ + j_ + l_", "j_ + l_", names);
    if (failed(v))
      return failure();
    os << "            lane_[l_] = " << combine("lane_[l_]", *v) << ";\n          }\n        }\n";
    return success();
  };
  if (failed(emitLanes(laneCount)) || (laneCount > 8 && failed(emitLanes(8))))
    return failure();
  os << "        for (; j_ < n_; ++j_) {\n";
  FailureOr<std::string> v = emitValue("          ", starts, "b_ + j_", "j_", names);
  if (failed(v))
    return failure();
  os << "          lane_[0] = " << combine("lane_[0]", *v) << ";\n        }\n";
  if (totals) {
    os << "        since_ += n_;\n"
       << "        if (since_ >= " << kReduceBlock << ") {\n";
    emitFlush("          ", std::to_string(laneCount));
    os << "          since_ = 0;\n        }\n";
  }
  return success();
}

void Emitter::ReduceHostForm::emitFlush(llvm::StringRef indent, llvm::StringRef lanes) {
  os << indent << "for (int l_ = 0; l_ < " << lanes << "; ++l_) {\n"
     << indent << "  total_[l_] = " << combine("total_[l_]", "lane_[l_]") << ";\n"
     << indent << "  lane_[l_] = " << identity << ";\n"
     << indent << "}\n";
}

/// The epilogue of a row's one output, from `acc`.
LogicalResult Emitter::ReduceHostForm::emitEpilogueOnce(llvm::ArrayRef<std::string> keptNames,
                                                        llvm::DenseMap<Value, std::string> &names) {
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
  if (failed(emitter.emitScalarBody(os, "    ", epi, names)))
    return failure();
  for (auto [j, value] :
       llvm::enumerate(llvm::cast<mpk::YieldOp>(epi.getTerminator()).getValues())) {
    size_t b = numIn + numEpi + j;
    os << "    " << members[b] << "[" << linearIndex(maps[b], outShapes[numEpi + j], outNames)
       << "] = " << storeExpr(buffers[b], names.lookup(value)) << ";\n";
  }
  return success();
}

/// Opens one loop per reduced dimension, the last innermost (the order of
/// the sums), with a brace after the last. Each index is affine in its own
/// loop: one index divided and taken modulo into the dimensions made GCC
/// give up vectorising the run's loop inside ("evolution of base is not
/// affine"), a bias gradient's sum over [B, T] scalar at 4-5x the time.
void Emitter::ReduceHostForm::emitReducedLoops(llvm::ArrayRef<int64_t> shape,
                                               llvm::ArrayRef<std::string> names) {
  if (shape.empty()) {
    os << "    {\n";
    return;
  }
  for (auto [d, name] : llvm::enumerate(names))
    os << "    for (int64_t " << name << " = 0; " << name << " < " << shape[d] << "; ++" << name
       << ")" << (d + 1 == names.size() ? " {\n" : "\n");
}

/// Tiles of up to 256 outputs along the trailing kept run, summed together
/// as the reduced index advances.
FailureOr<int64_t> Emitter::ReduceHostForm::emitAlongKeptRun(unsigned firstKept) {
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
  os << "    const int64_t begin_ = " << (tiles > 1 ? "t_ * " + std::to_string(tile) : "0") << ";\n"
     << "    const int64_t n_ = " << length << " - begin_ < " << tile << " ? " << length
     << " - begin_ : " << tile << ";\n"
     << "    float acc_[" << tile << "];\n"
     << "    for (int64_t j_ = 0; j_ < n_; ++j_)\n      acc_[j_] = " << identity << ";\n";
  emitReducedLoops(reducedShape, reducedNames);
  llvm::DenseMap<Value, std::string> names;
  auto starts = emitStarts("      ", firstKept, names);
  emitStaging("      ", starts, "begin_", tile);
  os << "      MPC_INDEPENDENT_ITERATIONS\n"
     << "      for (int64_t j_ = 0; j_ < n_; ++j_) {\n";
  FailureOr<std::string> v = emitValue("        ", starts, "begin_ + j_", "j_", names);
  if (failed(v))
    return failure();
  os << "        acc_[j_] = " << combine("acc_[j_]", *v) << ";\n      }\n    }\n";
  if (failed(emitTileEpilogue(rank - firstKept, names)))
    return failure();
  os << "    }\n  }\n#endif\n";
  return product(outerShape) * tiles;
}

/// The epilogue per output of the tile.
LogicalResult Emitter::ReduceHostForm::emitTileEpilogue(unsigned runDims,
                                                        llvm::DenseMap<Value, std::string> &names) {
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
  if (failed(emitter.emitScalarBody(os, "      ", epi, names, kLoopConversions)))
    return failure();
  for (auto [j, value] :
       llvm::enumerate(llvm::cast<mpk::YieldOp>(epi.getTerminator()).getValues())) {
    size_t b = numIn + numEpi + j;
    os << "      "
       << loopStoreStatement(buffers[b], members[b], outStarts[numEpi + j] + " + begin_ + j_",
                             names.lookup(unroundedStore(value, buffers[b])))
       << "\n";
  }
  return success();
}

FailureOr<int64_t> Emitter::emitReduceHostForm(llvm::raw_ostream &os, mpk::ReduceOp k,
                                               llvm::ArrayRef<Value> buffers,
                                               llvm::ArrayRef<std::string> members,
                                               llvm::ArrayRef<AffineMap> maps) {
  return ReduceHostForm(*this, os, k, buffers, members, maps).emit();
}
