//===- EmitPointwise.cpp - pointwise and multi-tensor kernels -------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Pointwise kernels (an element form, and the host's row form that walks
// contiguous runs) and the multi-tensor launches that run consecutive
// optimizer updates and finite checks as one kernel.
//
//===----------------------------------------------------------------------===//

#include "compiler/CodeGen/KernelEmitter.h"

#include <algorithm>
#include <cmath>

using namespace mpc::codegen;

int64_t Emitter::emitHostRowForm(llvm::raw_ostream &os, mpk::PointwiseOp k,
                                 llvm::ArrayRef<Value> buffers, llvm::ArrayRef<std::string> members,
                                 llvm::ArrayRef<AffineMap> maps) {
  llvm::ArrayRef<int64_t> iteration = k.getIteration();
  Block &body = k.getBody().front();
  unsigned numInputs = k.getInputs().size();
  llvm::SmallVector<llvm::ArrayRef<int64_t>> shapes;
  for (Value buffer : buffers)
    shapes.push_back(shapeOf(buffer));
  std::optional<mpc::HostRowLayout> layout = mpc::hostRowLayout(iteration, maps, shapes);
  if (layout && !llvm::all_of(llvm::drop_begin(layout->advances, numInputs),
                              [](bool advances) { return advances; }))
    layout.reset();
  // The host form uses host-only helpers; NVRTC never sees it.
  os << "#ifndef __CUDACC__\n  void row(int64_t r) const {\n";
  if (!layout || product(iteration) == 0) {
    // No contiguous runs (a 0-d kernel, or no elements): the elements one
    // by one.
    os << "    for (int64_t i = 0; i < " << product(iteration) << "; ++i)\n"
       << "      (*this)(i);\n  }\n#endif\n";
    return 1;
  }
  // Rows of at most kHostTile elements, so that OpenMP threads share even
  // a single long run.
  constexpr int64_t kHostTile = 4096;
  // The elements the loop takes at a time (mpc::kHostChunk, pointwise.cuh).
  constexpr int64_t kHostChunk = 128;
  int64_t length = layout->runLength;
  int64_t tile = std::min(length, kHostTile);
  int64_t tiles = (length + tile - 1) / tile;
  auto dims = dimNames("d", iteration.size());
  unsigned first = layout->firstRunDim;
  if (tiles > 1)
    os << "    const int64_t t_ = r % " << tiles << ";\n";
  if (tiles > 1 && first > 0)
    os << "    r /= " << tiles << ";\n";
  emitDecompose(os, "    ", "r", iteration.take_front(first),
                llvm::ArrayRef<std::string>(dims).take_front(first));
  if (tiles > 1)
    os << "    const int64_t begin_ = t_ * " << tile << ";\n"
       << "    const int64_t end_ = begin_ + " << tile << " < " << length << " ? begin_ + " << tile
       << " : " << length << ";\n";
  else
    os << "    const int64_t begin_ = 0, end_ = " << length << ";\n";
  // Buffers converted a chunk at a time outside the loop: fp16 through
  // floats (eight at a time with F16C), booleans through 32-bit integers,
  // and bf16 results of kernels that compute, over runs of a chunk or
  // more, through floats. A bf16 input widens with a shift that
  // vectorises in the loop itself, which saves a pass over a staging
  // array. A bf16 result rounded in the loop of a kernel that computes
  // made it mix 16- and 32-bit lanes (the CNN's batch-norm + ReLU kernel
  // took 1.65x as long, a GELU 1.05x); a copy or a cast, or a short run,
  // is faster without the extra pass, and so is a fill.
  bool computes = llvm::any_of(body.without_terminator(), [](Operation &op) {
    return !llvm::isa<arith::ConstantOp, arith::ExtFOp, arith::TruncFOp>(op);
  });
  auto staged = [&](unsigned b) {
    Type type = elementOf(buffers[b]);
    bool stagedBf16Result = type.isBF16() && b >= numInputs && computes && length >= kHostChunk;
    return layout->advances[b] && (type.isF16() || type.isInteger(1) || stagedBf16Result);
  };
  auto isBool = [&](unsigned b) { return elementOf(buffers[b]).isInteger(1); };
  llvm::SmallVector<std::string> starts;
  for (auto [b, buffer] : llvm::enumerate(buffers)) {
    starts.push_back("at" + std::to_string(b) + "_");
    os << "    const int64_t " << starts.back() << " = "
       << linearIndex(maps[b], shapeOf(buffer), dims, first) << ";\n";
  }
  // What the run reads once: broadcast inputs.
  llvm::DenseMap<Value, std::string> names;
  for (auto [j, arg] : llvm::enumerate(body.getArguments())) {
    names[arg] = "a" + std::to_string(j);
    if (!layout->advances[j])
      os << "    const " << scalarType(arg.getType()) << " " << names[arg] << " = "
         << loadExpr(buffers[j], members[j], starts[j]) << ";\n";
  }
  os << "    for (int64_t c_ = begin_; c_ < end_; c_ += mpc::kHostChunk) {\n"
     << "      const int64_t n_ = end_ - c_ < mpc::kHostChunk ? end_ - c_ : mpc::kHostChunk;\n";
  for (unsigned b = 0; b < buffers.size(); ++b) {
    if (!staged(b))
      continue;
    os << "      " << (isBool(b) ? "int32_t" : "float") << " s" << b << "_[mpc::kHostChunk];\n";
    if (b < numInputs)
      os << "      mpc::widen_chunk(" << members[b] << " + (" << starts[b] << " + c_), s" << b
         << "_, n_);\n";
  }
  os << "      MPC_INDEPENDENT_ITERATIONS\n"
     << "      for (int64_t j_ = 0; j_ < n_; ++j_) {\n";
  for (auto [j, arg] : llvm::enumerate(body.getArguments())) {
    if (!layout->advances[j])
      continue;
    os << "        const " << scalarType(arg.getType()) << " " << names[arg] << " = ";
    if (staged(j))
      os << "s" << j << "_[j_]" << (isBool(j) ? " != 0" : "") << ";\n";
    else
      os << loadExpr(buffers[j], members[j], starts[j] + " + c_ + j_", kLoopConversions) << ";\n";
  }
  if (failed(emitScalarBody(os, "        ", body, names, kLoopConversions)))
    return -1;
  auto yield = llvm::cast<mpk::YieldOp>(body.getTerminator());
  for (auto [j, value] : llvm::enumerate(yield.getValues())) {
    unsigned b = numInputs + j;
    if (staged(b) && isBool(b)) {
      os << "        s" << b << "_[j_] = " << names.lookup(value) << " ? 1 : 0;\n";
      continue;
    }
    if (staged(b)) {
      os << "        s" << b << "_[j_] = " << names.lookup(unroundedStore(value, buffers[b]))
         << ";\n";
      continue;
    }
    os << "        "
       << loopStoreStatement(buffers[b], members[b], starts[b] + " + c_ + j_",
                             names.lookup(unroundedStore(value, buffers[b])))
       << "\n";
  }
  os << "      }\n";
  for (unsigned b = numInputs; b < buffers.size(); ++b)
    if (staged(b))
      os << "      mpc::narrow_chunk(s" << b << "_, " << members[b] << " + (" << starts[b]
         << " + c_), n_);\n";
  os << "    }\n  }\n#endif\n";
  return layout->runs * tiles;
}

Value Emitter::unroundedStore(Value value, Value buffer) {
  auto widen = value.getDefiningOp<arith::ExtFOp>();
  if (!widen)
    return value;
  auto round = widen.getIn().getDefiningOp<arith::TruncFOp>();
  if (!round || round.getType() != elementOf(buffer) || !round.getIn().getType().isF32())
    return value;
  return round.getIn();
}

LogicalResult Emitter::emitPointwise(llvm::raw_ostream &os, mpk::PointwiseOp k, bool functorOnly) {
  llvm::SmallVector<Value> buffers(k.getInputs());
  buffers.append(k.getOutputs().begin(), k.getOutputs().end());
  llvm::SmallVector<bool> written(k.getInputs().size(), false);
  written.append(k.getOutputs().size(), true);
  auto members = beginFunctor(os, k.getSymName(), buffers, written);
  llvm::ArrayRef<int64_t> iteration = k.getIteration();
  auto maps = llvm::to_vector(k.getIndexing().getAsValueRange<AffineMapAttr>());
  auto dims = dimNames("d", iteration.size());
  Block &body = k.getBody().front();
  unsigned numInputs = k.getInputs().size();
  // The GPU's form: element i of the iteration space.
  os << "  MPC_HD void operator()(int64_t i) const {\n";
  emitDecompose(os, "    ", "i", iteration, dims);
  llvm::DenseMap<Value, std::string> names;
  for (auto [j, arg] : llvm::enumerate(body.getArguments())) {
    std::string name = "a" + std::to_string(j);
    os << "    const " << scalarType(arg.getType()) << " " << name << " = "
       << loadExpr(buffers[j], members[j], linearIndex(maps[j], shapeOf(buffers[j]), dims))
       << ";\n";
    names[arg] = name;
  }
  if (failed(emitScalarBody(os, "    ", body, names)))
    return failure();
  auto yield = llvm::cast<mpk::YieldOp>(body.getTerminator());
  for (auto [j, value] : llvm::enumerate(yield.getValues())) {
    unsigned b = numInputs + j;
    os << "    " << members[b] << "[" << linearIndex(maps[b], shapeOf(buffers[b]), dims)
       << "] = " << storeExpr(buffers[b], names.lookup(value)) << ";\n";
  }
  os << "  }\n";
  int64_t n = product(iteration);
  int64_t rows = emitHostRowForm(os, k, buffers, members, maps);
  if (rows < 0)
    return failure();
  os << "  static constexpr int64_t kRows = " << rows << ";\n";
  if (functorOnly) {
    os << "};\n} // namespace\n";
    return success();
  }
  endFunctor(os, k.getSymName(), buffers, written,
             "mpc::pointwise_rows(" + std::to_string(rows) + ", " + std::to_string(n) + ", fn)",
             pointwiseGrid(n), 256);
  return success();
}

LogicalResult Emitter::emitDropout(llvm::raw_ostream &os, mpk::DropoutOp k) {
  Value in = k.getInput(), out = k.getOutput();
  llvm::SmallVector<Value> buffers{in, k.getSeed(), k.getRun(), out};
  llvm::SmallVector<bool> written{false, false, false, true};
  auto m = beginFunctor(os, k.getSymName(), buffers, written);
  double rate = k.getRate().convertToDouble();
  // Kept when the element's 32 bits are at least rate * 2^32 (below 2^32
  // for rate < 1).
  uint64_t threshold = static_cast<uint64_t>(std::llround(std::ldexp(rate, 32)));
  threshold = std::min<uint64_t>(threshold, 0xffffffffull);
  bool isDouble = elementOf(in).isF64();
  std::string scale = floatLiteral(
      isDouble ? 1.0 / (1.0 - rate) : static_cast<double>(static_cast<float>(1.0 / (1.0 - rate))),
      isDouble);
  os << "  MPC_HD void operator()(int64_t i) const {\n"
     << "    const uint32_t bits = mpc::dropout_bits(static_cast<uint64_t>(" << m[1]
     << "[0]), static_cast<uint64_t>(" << m[2] << "[0]), " << k.getStream() << "u, i);\n"
     << "    const " << (isDouble ? "double" : "float") << " x = " << loadExpr(in, m[0], "i")
     << ";\n"
     << "    " << m[3] << "[i] = "
     << storeExpr(out, "bits >= " + std::to_string(threshold) + "u ? x * " + scale + " : " +
                           (isDouble ? "0.0" : "0.0f"))
     << ";\n  }\n";
  int64_t n = product(shapeOf(out));
  endFunctor(os, k.getSymName(), buffers, written, "mpc::pointwise(" + std::to_string(n) + ", fn)",
             pointwiseGrid(n), 256);
  return success();
}

bool Emitter::isMergeableCheck(mpk::ReduceOp k) {
  return k->hasAttr(mlir::mpk::kFiniteCheckAttr) && k.getInputs().size() == 1 &&
         k.getEpilogueInputs().empty() && k.getOutputs().size() == 1 &&
         llvm::cast<MemRefType>(k.getOutputs()[0].getType()).getNumElements() == 1 &&
         k.getEpilogue().front().getArgument(0).getType().isF32();
}

llvm::SmallVector<Value> Emitter::readsOf(mpk::PointwiseOp k) {
  return llvm::SmallVector<Value>(k.getInputs());
}

llvm::SmallVector<Value> Emitter::readsOf(mpk::ReduceOp k) {
  llvm::SmallVector<Value> values(k.getInputs());
  values.append(k.getEpilogueInputs().begin(), k.getEpilogueInputs().end());
  return values;
}

std::string Emitter::memberFunctorType(llvm::raw_ostream &os, const std::string &text,
                                       llvm::StringRef name) {
  std::string own = (name + "_fn").str();
  auto [it, added] = functors.try_emplace(replaceName(text, own, "@functor@"), own);
  if (added)
    os << text;
  return it->second;
}

void Emitter::emitMemberHostRows(llvm::raw_ostream &os, size_t members, bool outOfLine) {
  os << "#ifndef __CUDACC__\n  void row(int64_t r) const {\n";
  for (size_t i = 0; i < members; ++i) {
    os << "    if (r < f" << i << ".kRows) {\n      ";
    if (outOfLine)
      os << "mpc::run_host_row(f" << i << ", r);";
    else
      os << "f" << i << ".row(r);";
    os << "\n      return;\n    }\n"
       << "    r -= f" << i << ".kRows;\n";
  }
  os << "  }\n#endif\n";
}

void Emitter::emitMemberInitializer(llvm::raw_ostream &os, llvm::StringRef table, size_t first,
                                    size_t count, llvm::ArrayRef<Value> buffers,
                                    llvm::ArrayRef<bool> written) {
  os << "{";
  for (size_t j = first; j < first + count; ++j)
    os << (j > first ? ", " : "") << "static_cast<" << (written[j] ? "" : "const ")
       << storageType(elementOf(buffers[j])) << " *>(" << table << "[" << j << "])";
  os << "}";
}

void Emitter::emitHostFunctorFill(llvm::raw_ostream &os, llvm::StringRef functor, size_t pointers) {
  os << "  " << functor << " fn;\n  static_assert(sizeof(fn) == " << pointers
     << " * sizeof(void *), \"the buffer table's pointers\");\n"
     << "  mpc::fill_from_table(fn, mpc_buffers);\n";
}

void Emitter::emitMergedFunctor(llvm::raw_ostream &os, llvm::StringRef functor,
                                llvm::ArrayRef<size_t> counts, llvm::ArrayRef<Value> buffers,
                                llvm::ArrayRef<bool> written) {
  os << "#ifdef __CUDACC__\n  const " << functor << " fn{";
  size_t table = 0;
  for (auto [i, count] : llvm::enumerate(counts)) {
    os << (i ? ", " : "");
    emitMemberInitializer(os, "mpc_buffers", table, count, buffers, written);
    table += count;
  }
  os << "};\n#else\n";
  emitHostFunctorFill(os, functor, table);
  os << "#endif\n";
}

LogicalResult Emitter::emitFiniteChecks(llvm::raw_ostream &os, llvm::ArrayRef<mpk::ReduceOp> run) {
  mpk::ReduceOp first = run.front();
  if (run.size() == 1) {
    std::string text;
    llvm::raw_string_ostream kos(text);
    valueCount = 0;
    if (failed(emitReduce(kos, first)))
      return failure();
    appendSharingFunctor(os, text, first.getSymName());
    return success();
  }
  llvm::SmallVector<Value> buffers;
  llvm::SmallVector<bool> written;
  llvm::SmallVector<std::string> types;
  llvm::SmallVector<size_t> counts;
  int64_t block = 32;
  for (mpk::ReduceOp k : run) {
    std::string text;
    llvm::raw_string_ostream kos(text);
    valueCount = 0;
    if (failed(emitReduce(kos, k, /*functorOnly=*/true)))
      return failure();
    types.push_back(memberFunctorType(os, text, k.getSymName()));
    llvm::SmallVector<Value> reads = readsOf(k);
    buffers.append(reads.begin(), reads.end());
    written.append(reads.size(), false);
    buffers.append(k.getOutputs().begin(), k.getOutputs().end());
    written.append(k.getOutputs().size(), true);
    counts.push_back(reads.size() + k.getOutputs().size());
    int64_t count = 1;
    for (int64_t d : k.getReductionDims())
      count *= k.getIteration()[d];
    block = std::max(block, rowBlock(count, static_cast<int64_t>(run.size())));
    if (k != first)
      result.mergedInto[k.getSymName().str()] = first.getSymName().str();
  }
  std::string name = first.getSymName().str();
  os << "\nnamespace {\nstruct " << name << "_checks_fn {\n";
  for (auto [i, type] : llvm::enumerate(types))
    os << "  " << type << " f" << i << ";\n";
  // The GPU's rows: row i is check i's only row.
  os << "  template <class Row> MPC_HD void operator()(const Row &row) const {\n"
     << "    switch (row.index()) {\n";
  for (size_t i = 0; i < run.size(); ++i)
    os << "    case " << i << ":\n      mpc::run_row(f" << i << ", row.at(0));\n      return;\n";
  os << "    }\n  }\n";
  // The host's rows, out of line: one copy of the code per functor type
  // rather than a thousand reductions inlined into one function in a deep
  // model.
  emitMemberHostRows(os, run.size(), /*outOfLine=*/true);
  os << "};\n} // namespace\n\n";
  emitKernelHead(os, name, block);
  emitMergedFunctor(os, name + "_checks_fn", counts, buffers, written);
  os << "  mpc::reduce_rows(" << run.size() << ", ";
  for (auto [i, type] : llvm::enumerate(types))
    os << (i ? " + " : "") << type << "::kRows";
  os << ", fn);\n}\n";
  result.kernels.push_back(
      {name, name, std::vector<Value>(buffers.begin(), buffers.end()), rowGrid(run.size()), block});
  return success();
}

LogicalResult Emitter::emitUpdates(llvm::raw_ostream &os, llvm::ArrayRef<mpk::PointwiseOp> run) {
  mpk::PointwiseOp first = run.front();
  if (run.size() == 1) {
    std::string text;
    llvm::raw_string_ostream kos(text);
    valueCount = 0;
    if (failed(emitPointwise(kos, first)))
      return failure();
    appendSharingFunctor(os, text, first.getSymName());
    return success();
  }
  llvm::SmallVector<Value> buffers;
  llvm::SmallVector<bool> written;
  llvm::SmallVector<int64_t> sizes;
  llvm::SmallVector<size_t> counts;
  // Each member's functor, shared with an earlier identical one (the same
  // update of a repeated layer's parameters).
  llvm::SmallVector<std::string> types;
  for (mpk::PointwiseOp k : run) {
    std::string text;
    llvm::raw_string_ostream kos(text);
    valueCount = 0;
    if (failed(emitPointwise(kos, k, /*functorOnly=*/true)))
      return failure();
    types.push_back(memberFunctorType(os, text, k.getSymName()));
    buffers.append(k.getInputs().begin(), k.getInputs().end());
    buffers.append(k.getOutputs().begin(), k.getOutputs().end());
    written.append(k.getInputs().size(), false);
    written.append(k.getOutputs().size(), true);
    counts.push_back(k.getInputs().size() + k.getOutputs().size());
    sizes.push_back(product(k.getIteration()));
    if (k != first)
      result.mergedInto[k.getSymName().str()] = first.getSymName().str();
  }
  std::string name = first.getSymName().str();
  // By element (the GPU, and the host's element form): each index builds
  // only its own member from the table, so no thread loads and no
  // compiler carries the others' pointers (an initializer of a deep
  // model's thousands of them took NVRTC minutes).
  os << "\nnamespace {\nstruct " << name << "_updates_fn {\n"
     << "  void *const *table;\n"
     << "  MPC_HD void operator()(int64_t i) const {\n";
  int64_t total = 0;
  size_t table = 0;
  for (auto [i, n] : llvm::enumerate(sizes)) {
    os << "    if (i < " << total + n << ") {\n      const " << types[i] << " f";
    emitMemberInitializer(os, "table", table, counts[i], buffers, written);
    os << ";\n      f(i - " << total << ");\n      return;\n    }\n";
    total += n;
    table += counts[i];
  }
  os << "  }\n};\n";
  // By rows (the host): every member, filled from the table at once, and
  // each member's rows in turn.
  os << "#ifndef __CUDACC__\nstruct " << name << "_update_rows_fn {\n";
  for (auto [i, type] : llvm::enumerate(types))
    os << "  " << type << " f" << i << ";\n";
  emitMemberHostRows(os, run.size(), /*outOfLine=*/false);
  os << "};\n#endif\n} // namespace\n\nMPC_KERNEL(" << name << ") {\n"
     << "#if defined(__CUDACC__) || defined(MPC_HOST_ELEMENT_FORM)\n"
     << "  const " << name << "_updates_fn fn{mpc_buffers};\n#else\n";
  emitHostFunctorFill(os, name + "_update_rows_fn", table);
  os << "#endif\n  mpc::pointwise_rows(";
  for (auto [i, type] : llvm::enumerate(types))
    os << (i ? " + " : "") << type << "::kRows";
  os << ", " << total << ", fn);\n}\n";
  result.kernels.push_back(
      {name, name, std::vector<Value>(buffers.begin(), buffers.end()), pointwiseGrid(total), 256});
  return success();
}
