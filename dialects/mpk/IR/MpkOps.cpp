//===- MpkOps.cpp - mpk operations: verifiers -----------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "dialects/mpk/IR/MpkOps.h"

#include "dialects/mpg/IR/MpgOps.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::mpk;

#include "dialects/mpk/IR/MpkEnums.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static MemRefType memrefOf(Value buffer) { return llvm::cast<MemRefType>(buffer.getType()); }

static int64_t elementsOf(Value buffer) { return memrefOf(buffer).getNumElements(); }

static bool isFloatBuffer(Value buffer) {
  return llvm::isa<FloatType>(memrefOf(buffer).getElementType());
}

/// Integer buffers hold labels and indices: i32 or i64 (not i1).
static bool isIndexBuffer(Value buffer) {
  Type element = memrefOf(buffer).getElementType();
  return element.isInteger(32) || element.isInteger(64);
}

/// The bytes a buffer of `type` covers (an i1 element takes a byte).
static int64_t bytesOf(MemRefType type) {
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  return type.getNumElements() * (bits == 1 ? 1 : bits / 8);
}

//===----------------------------------------------------------------------===//
// Program structure and declarations
//===----------------------------------------------------------------------===//

LogicalResult ProgramOp::verifyRegions() {
  int64_t arena = static_cast<int64_t>(getArenaBytes());
  int64_t persistent = static_cast<int64_t>(getPersistentBytes());
  if (arena < 0 || persistent < 0)
    return emitOpError("expects non-negative arena and persistent sizes");
  llvm::StringSet<> inputs, outputs;
  llvm::StringMap<ParamOp> params;
  for (Operation &op : getBody().front()) {
    if (auto buffer = llvm::dyn_cast<BufferOp>(op)) {
      bool inArena = buffer.getSpace() == Space::Arena;
      int64_t size = inArena ? arena : persistent;
      int64_t end = static_cast<int64_t>(buffer.getOffset()) + bytesOf(buffer.getType());
      if (end > size)
        return buffer.emitOpError()
               << "covers bytes up to " << end << ", past the end of "
               << (inArena ? "the arena" : "persistent memory") << " (" << size << " bytes)";
      continue;
    }
    auto declareOnce = [&](llvm::StringSet<> &names, llvm::StringRef name,
                           llvm::StringRef what) -> LogicalResult {
      if (!names.insert(name).second)
        return op.emitOpError() << "declares " << what << " \"" << name << "\" again";
      return success();
    };
    if (auto input = llvm::dyn_cast<InputOp>(op)) {
      if (failed(declareOnce(inputs, input.getName(), "input")))
        return failure();
    } else if (auto output = llvm::dyn_cast<OutputOp>(op)) {
      if (failed(declareOnce(outputs, output.getName(), "output")))
        return failure();
    } else if (auto param = llvm::dyn_cast<ParamOp>(op)) {
      if (!params.try_emplace(param.getName(), param).second)
        return param.emitOpError() << "declares parameter \"" << param.getName() << "\" again";
      auto buffer = param.getBuffer().getDefiningOp<BufferOp>();
      if (!buffer || buffer.getSpace() != Space::Persistent)
        return param.emitOpError("expects a buffer in persistent memory");
    }
  }
  // Working copies name an f32 parameter of their shape that is not a copy.
  for (auto &entry : params) {
    ParamOp copy = entry.getValue();
    std::optional<llvm::StringRef> master = copy.getCastOf();
    if (!master)
      continue;
    MemRefType copyType = memrefOf(copy.getBuffer());
    if (!copyType.getElementType().isF16() && !copyType.getElementType().isBF16())
      return copy.emitOpError("expects a working copy (cast_of) to be f16 or bf16");
    auto found = params.find(*master);
    if (found == params.end())
      return copy.emitOpError() << "is a copy of \"" << *master
                                << "\", which is not a parameter of the program";
    ParamOp of = found->getValue();
    MemRefType masterType = memrefOf(of.getBuffer());
    if (of.getCastOf() || !masterType.getElementType().isF32() ||
        masterType.getShape() != copyType.getShape())
      return copy.emitOpError() << "expects \"" << *master
                                << "\" to be an f32 parameter of the copy's shape, not a copy";
  }
  return success();
}

LogicalResult ConstantOp::verify() {
  auto value = llvm::dyn_cast<DenseElementsAttr>(getValue());
  if (!value)
    return emitOpError("expects dense elements");
  MemRefType type = memrefOf(getBuffer());
  if (value.getType().getShape() != type.getShape() ||
      value.getType().getElementType() != type.getElementType())
    return emitOpError() << "expects a value of the buffer's shape and element type, got "
                         << value.getType();
  return success();
}

LogicalResult BufferOp::verify() {
  if (static_cast<int64_t>(getOffset()) < 0)
    return emitOpError("expects a non-negative offset");
  if (!getType().getLayout().isIdentity())
    return emitOpError("expects a contiguous row-major memref (identity layout)");
  return success();
}

/// Checks that `maps[i]` has `dims` dimensions and one result per dimension
/// of `buffers[i]`, and that the body has one scalar argument per input.
static LogicalResult verifyIndexing(Operation *op, llvm::ArrayRef<AffineMap> maps,
                                    ValueRange buffers, llvm::ArrayRef<unsigned> dims) {
  if (maps.size() != buffers.size())
    return op->emitOpError() << "expects one indexing map per buffer (" << buffers.size()
                             << "), got " << maps.size();
  for (auto [i, map, buffer] : llvm::enumerate(maps, buffers)) {
    auto type = llvm::cast<MemRefType>(buffer.getType());
    if (map.getNumDims() != dims[i] || map.getNumResults() != type.getRank() ||
        map.getNumSymbols() != 0)
      return op->emitOpError() << "indexing map " << i << " must map " << dims[i]
                               << " dimensions to the " << type.getRank()
                               << " dimensions of its buffer, got " << AffineMapAttr::get(map);
  }
  return success();
}

static LogicalResult verifyBody(Operation *op, Region &region, unsigned numArgs,
                                unsigned numYields, llvm::StringRef what) {
  Block &block = region.front();
  if (block.getNumArguments() != numArgs)
    return op->emitOpError() << what << " expects " << numArgs << " arguments, got "
                             << block.getNumArguments();
  Operation *terminator = block.getTerminator();
  if (!llvm::isa<YieldOp>(terminator) || terminator->getNumOperands() != numYields)
    return op->emitOpError() << what << " must end with an mpk.yield of " << numYields
                             << " values";
  return success();
}

LogicalResult PointwiseOp::verify() {
  unsigned rank = getIteration().size();
  llvm::SmallVector<AffineMap> maps(getIndexing().getAsValueRange<AffineMapAttr>());
  llvm::SmallVector<Value> buffers(getInputs());
  buffers.append(getOutputs().begin(), getOutputs().end());
  llvm::SmallVector<unsigned> dims(buffers.size(), rank);
  if (failed(verifyIndexing(*this, maps, buffers, dims)))
    return failure();
  return verifyBody(*this, getBody(), getInputs().size(), getOutputs().size(), "the body");
}

LogicalResult ReduceOp::verify() {
  unsigned rank = getIteration().size();
  for (int64_t dim : getReductionDims())
    if (dim < 0 || dim >= static_cast<int64_t>(rank))
      return emitOpError() << "reduction dimension " << dim << " is out of range";
  unsigned outRank = rank - getReductionDims().size();
  llvm::SmallVector<AffineMap> maps(getIndexing().getAsValueRange<AffineMapAttr>());
  llvm::SmallVector<Value> buffers(getInputs());
  buffers.append(getEpilogueInputs().begin(), getEpilogueInputs().end());
  buffers.append(getOutputs().begin(), getOutputs().end());
  llvm::SmallVector<unsigned> dims(getInputs().size(), rank);
  dims.append(getEpilogueInputs().size() + getOutputs().size(), outRank);
  if (failed(verifyIndexing(*this, maps, buffers, dims)))
    return failure();
  if (failed(verifyBody(*this, getPrologue(), getInputs().size(), 1, "the prologue")))
    return failure();
  return verifyBody(*this, getEpilogue(), 1 + getEpilogueInputs().size(),
                    getOutputs().size(), "the epilogue");
}

LogicalResult GemmOp::verify() {
  auto elements = [](Value v) { return llvm::cast<MemRefType>(v.getType()).getNumElements(); };
  int64_t batch = getBatch(), m = getM(), n = getN(), k = getK();
  if (batch < 1 || m < 1 || n < 1 || k < 1)
    return emitOpError("expects positive batch, m, n and k");
  auto fits = [&](Value buffer, int64_t offset, int64_t stride, int64_t size) {
    return offset >= 0 && stride >= 0 && offset + (batch - 1) * stride + size <= elements(buffer);
  };
  if (!fits(getA(), getOffsetA(), getStrideA(), m * k) ||
      !fits(getB(), getOffsetB(), getStrideB(), k * n) ||
      !fits(getC(), getOffsetC(), getStrideC(), m * n))
    return emitOpError("expects every batch of A, B and C to lie inside its buffer");
  bool wantsBias = getEpilogue() == GemmEpilogue::Bias ||
                   getEpilogue() == GemmEpilogue::BiasRelu ||
                   getEpilogue() == GemmEpilogue::BiasGelu;
  if (wantsBias != static_cast<bool>(getBias()))
    return emitOpError("expects a bias operand exactly when the epilogue adds one");
  if (getBias() && elements(getBias()) != n)
    return emitOpError() << "expects a bias of " << n << " elements";
  double beta = getBeta().convertToDouble();
  if (!std::isfinite(beta) || std::abs(beta) > std::numeric_limits<float>::max())
    return emitOpError("expects a finite beta of an f32's range");
  if (beta != 0) {
    auto element = [](Value v) { return llvm::cast<MemRefType>(v.getType()).getElementType(); };
    bool allF64 = element(getA()).isF64() && element(getB()).isF64() && element(getC()).isF64();
    if (batch != 1 || getEpilogue() != GemmEpilogue::None || !(element(getC()).isF32() || allF64))
      return emitOpError("accumulates into C (beta) only in a single product without an "
                         "epilogue, into an f32 C (or with A, B and C in f64)");
  }
  return success();
}

/// Checks an im2col/col2im pair of an image [N, C, H, W] and its columns
/// [N, C * kH * kW, Ho * Wo] against the window attributes.
static LogicalResult verifyWindows(Operation *op, Value image, Value columns,
                                   llvm::ArrayRef<int64_t> kernel, llvm::ArrayRef<int64_t> stride,
                                   llvm::ArrayRef<int64_t> padding,
                                   llvm::ArrayRef<int64_t> dilation) {
  if (kernel.size() != 2 || stride.size() != 2 || padding.size() != 4 || dilation.size() != 2)
    return op->emitOpError(
        "expects 2 kernel sizes, 2 strides, 4 paddings (top, left, bottom, right) and 2 "
        "dilations");
  if (llvm::any_of(kernel, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(stride, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(dilation, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(padding, [](int64_t v) { return v < 0; }))
    return op->emitOpError(
        "expects positive kernel sizes, strides and dilations and non-negative paddings");
  auto imageType = llvm::cast<MemRefType>(image.getType());
  auto columnsType = llvm::cast<MemRefType>(columns.getType());
  if (imageType.getRank() != 4 || columnsType.getRank() != 3)
    return op->emitOpError("expects an image [N, C, H, W] and columns [N, C * kH * kW, Ho * Wo]");
  llvm::ArrayRef<int64_t> shape = imageType.getShape();
  int64_t outH = (shape[2] + padding[0] + padding[2] - dilation[0] * (kernel[0] - 1) - 1);
  int64_t outW = (shape[3] + padding[1] + padding[3] - dilation[1] * (kernel[1] - 1) - 1);
  if (outH < 0 || outW < 0)
    return op->emitOpError("expects windows that fit in the padded image");
  outH = outH / stride[0] + 1;
  outW = outW / stride[1] + 1;
  llvm::SmallVector<int64_t> expected = {shape[0], shape[1] * kernel[0] * kernel[1], outH * outW};
  if (columnsType.getShape() != llvm::ArrayRef<int64_t>(expected))
    return op->emitOpError() << "expects columns of shape [" << expected[0] << ", "
                             << expected[1] << ", " << expected[2] << "] for this image, got "
                             << columnsType;
  return success();
}

LogicalResult Im2ColOp::verify() {
  return verifyWindows(*this, getInput(), getColumns(), getKernel(), getStride(), getPadding(),
                       getDilation());
}

LogicalResult Col2ImOp::verify() {
  return verifyWindows(*this, getOutput(), getColumns(), getKernel(), getStride(), getPadding(),
                       getDilation());
}

//===----------------------------------------------------------------------===//
// Row kernels
//===----------------------------------------------------------------------===//

/// Checks that every one of `buffers` holds floating-point values.
static LogicalResult expectFloats(Operation *op, llvm::ArrayRef<Value> buffers,
                                  llvm::StringRef what) {
  if (!llvm::all_of(buffers, isFloatBuffer))
    return op->emitOpError() << "expects " << what << " of a floating-point type";
  return success();
}

/// Checks the labels of `rows` rows: i32 or i64, one per row.
static LogicalResult expectLabels(Operation *op, Value labels, int64_t rows) {
  if (!isIndexBuffer(labels) || elementsOf(labels) != rows)
    return op->emitOpError() << "expects " << rows << " i32 or i64 labels (one per row), got "
                             << labels.getType();
  return success();
}

LogicalResult SoftmaxOp::verify() {
  int64_t outer = getOuter(), cols = getCols(), inner = getInner();
  if (outer < 0 || cols < 0 || inner < 0)
    return emitOpError("expects non-negative outer, cols and inner");
  if (failed(expectFloats(*this, {getInput(), getOutput()}, "an input and an output")))
    return failure();
  if (memrefOf(getInput()).getShape() != memrefOf(getOutput()).getShape())
    return emitOpError("expects the output to have the input's shape");
  if (outer * cols * inner != elementsOf(getInput()))
    return emitOpError() << "expects outer x cols x inner (" << outer * cols * inner
                         << ") to be the input's " << elementsOf(getInput()) << " elements";
  return success();
}

/// What fused attention's kernels share: `batch` x `queries` x `head`
/// queries (and outputs, output gradients), `batch` x `keys` x `head` keys
/// and values, one f32 log-sum-exp per query, an optional [queries, keys]
/// mask; `lowValues` (queries, keys, values and what has their type) of one
/// float type.
static LogicalResult verifyAttentionBuffers(Operation *op, int64_t batch, int64_t queries,
                                            int64_t keys, int64_t head, double scale, bool causal,
                                            llvm::ArrayRef<Value> queryShaped,
                                            llvm::ArrayRef<Value> keyShaped, Value lse,
                                            Value mask) {
  if (batch < 1 || queries < 1 || keys < 1 || head < 1)
    return op->emitOpError("expects batch, queries, keys and head of at least 1");
  if (head > kAttentionMaxHead)
    return op->emitOpError() << "expects a head of at most " << kAttentionMaxHead
                             << " (the kernels' largest)";
  if (!std::isfinite(scale) || scale == 0)
    return op->emitOpError("expects a finite, nonzero scale");
  if (causal && queries != keys)
    return op->emitOpError("expects as many queries as keys when causal");
  llvm::SmallVector<Value> low(queryShaped);
  llvm::append_range(low, keyShaped);
  if (failed(expectFloats(op, low, "queries, keys and values")))
    return failure();
  Type element = memrefOf(low.front()).getElementType();
  for (Value buffer : low)
    if (memrefOf(buffer).getElementType() != element)
      return op->emitOpError("expects queries, keys, values and their gradients of one type");
  for (Value buffer : queryShaped)
    if (elementsOf(buffer) != batch * queries * head)
      return op->emitOpError() << "expects query-shaped buffers of batch x queries x head ("
                               << batch * queries * head << ") elements";
  for (Value buffer : keyShaped)
    if (elementsOf(buffer) != batch * keys * head)
      return op->emitOpError() << "expects key-shaped buffers of batch x keys x head ("
                               << batch * keys * head << ") elements";
  if (!memrefOf(lse).getElementType().isF32() || elementsOf(lse) != batch * queries)
    return op->emitOpError() << "expects an f32 log-sum-exp of batch x queries (" << batch * queries
                             << ") elements";
  if (mask && (!isFloatBuffer(mask) || elementsOf(mask) != queries * keys))
    return op->emitOpError() << "expects a float mask of queries x keys (" << queries * keys
                             << ") elements";
  return success();
}

LogicalResult AttentionOp::verify() {
  return verifyAttentionBuffers(
      *this, getBatch(), getQueries(), getKeys(), getHead(), getScale().convertToDouble(),
      getCausal(), {getQuery(), getOutput()}, {getKey(), getValue()}, getLse(), getMask());
}

LogicalResult AttentionGradQueryOp::verify() {
  return verifyAttentionBuffers(*this, getBatch(), getQueries(), getKeys(), getHead(),
                                getScale().convertToDouble(), getCausal(),
                                {getQuery(), getOutput(), getGradOutput(), getGradQuery()},
                                {getKey(), getValue()}, getLse(), getMask());
}

LogicalResult AttentionGradKeyValueOp::verify() {
  return verifyAttentionBuffers(
      *this, getBatch(), getQueries(), getKeys(), getHead(), getScale().convertToDouble(),
      getCausal(), {getQuery(), getOutput(), getGradOutput()},
      {getKey(), getValue(), getGradKey(), getGradValue()}, getLse(), getMask());
}

LogicalResult LayerNormOp::verify() {
  int64_t rows = getRows(), cols = getCols();
  if (rows < 0 || cols < 0)
    return emitOpError("expects non-negative rows and cols");
  if (failed(expectFloats(*this, {getInput(), getGamma(), getBeta(), getOutput()},
                          "an input, gamma, beta and an output")))
    return failure();
  if (memrefOf(getInput()).getShape() != memrefOf(getOutput()).getShape())
    return emitOpError("expects the output to have the input's shape");
  if (rows * cols != elementsOf(getInput()))
    return emitOpError() << "expects rows x cols (" << rows * cols << ") to be the input's "
                         << elementsOf(getInput()) << " elements";
  if (elementsOf(getGamma()) != cols || elementsOf(getBeta()) != cols)
    return emitOpError() << "expects gamma and beta of " << cols << " elements (one per column)";
  double eps = getEps().convertToDouble();
  if (!(eps > 0) || !std::isfinite(eps))
    return emitOpError("expects a finite eps > 0");
  return success();
}

/// What a cross-entropy kernel and its gradient share: `rows` x `cols`
/// floating-point logits (as every one of `floats`, `what` naming them)
/// and one label per row.
static LogicalResult verifyLogitsAndLabels(Operation *op, int64_t rows, int64_t cols,
                                           Value logits, Value labels,
                                           llvm::ArrayRef<Value> floats, llvm::StringRef what) {
  if (rows < 0 || cols < 1)
    return op->emitOpError("expects non-negative rows and positive cols");
  if (failed(expectFloats(op, floats, what)))
    return failure();
  if (elementsOf(logits) != rows * cols)
    return op->emitOpError() << "expects logits of rows x cols (" << rows * cols
                             << ") elements, got " << logits.getType();
  return expectLabels(op, labels, rows);
}

LogicalResult CrossEntropyOp::verify() {
  int64_t rows = getRows();
  if (failed(verifyLogitsAndLabels(*this, rows, getCols(), getLogits(), getLabels(),
                                   {getLogits(), getLosses()}, "logits and losses")))
    return failure();
  if (elementsOf(getLosses()) != rows)
    return emitOpError() << "expects " << rows << " losses (one per row), got "
                         << getLosses().getType();
  return success();
}

LogicalResult CrossEntropyGradOp::verify() {
  if (failed(verifyLogitsAndLabels(*this, getRows(), getCols(), getLogits(), getLabels(),
                                   {getLogits(), getGradLoss(), getGradLogits()},
                                   "logits and gradients")))
    return failure();
  if (elementsOf(getGradLoss()) != 1)
    return emitOpError() << "expects the loss gradient to be one element, got "
                         << getGradLoss().getType();
  if (memrefOf(getGradLogits()).getShape() != memrefOf(getLogits()).getShape())
    return emitOpError("expects the logits' gradient to have the logits' shape");
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling and gathers
//===----------------------------------------------------------------------===//

/// Checks a pooling of `image` [N, C, H, W] into `pooled` [N, C, Ho, Wo]
/// against the window attributes: Ho = (H + top + bottom - kH) / sH + 1,
/// likewise Wo, and every window holds at least one image element (padding
/// smaller than the kernel).
static LogicalResult verifyPooling(Operation *op, Value image, Value pooled,
                                   llvm::ArrayRef<int64_t> kernel, llvm::ArrayRef<int64_t> stride,
                                   llvm::ArrayRef<int64_t> padding) {
  if (kernel.size() != 2 || stride.size() != 2 || padding.size() != 4)
    return op->emitOpError(
        "expects 2 kernel sizes, 2 strides and 4 paddings (top, left, bottom, right)");
  if (llvm::any_of(kernel, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(stride, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(padding, [](int64_t v) { return v < 0; }))
    return op->emitOpError("expects positive kernel sizes and strides and non-negative paddings");
  if (padding[0] >= kernel[0] || padding[2] >= kernel[0] || padding[1] >= kernel[1] ||
      padding[3] >= kernel[1])
    return op->emitOpError("expects paddings smaller than the kernel");
  MemRefType imageType = memrefOf(image), pooledType = memrefOf(pooled);
  if (imageType.getRank() != 4 || pooledType.getRank() != 4)
    return op->emitOpError("expects an image [N, C, H, W] and a pooled [N, C, Ho, Wo]");
  if (!isFloatBuffer(image) || !isFloatBuffer(pooled))
    return op->emitOpError("expects floating-point buffers");
  llvm::ArrayRef<int64_t> shape = imageType.getShape();
  int64_t spanH = shape[2] + padding[0] + padding[2] - kernel[0];
  int64_t spanW = shape[3] + padding[1] + padding[3] - kernel[1];
  if (spanH < 0 || spanW < 0)
    return op->emitOpError("expects windows that fit in the padded image");
  llvm::SmallVector<int64_t> expected = {shape[0], shape[1], spanH / stride[0] + 1,
                                         spanW / stride[1] + 1};
  if (pooledType.getShape() != llvm::ArrayRef<int64_t>(expected))
    return op->emitOpError() << "expects a pooled shape [" << expected[0] << ", " << expected[1]
                             << ", " << expected[2] << ", " << expected[3]
                             << "] for this image, got " << pooledType;
  return success();
}

LogicalResult Pool2DOp::verify() {
  if (getCountIncludePad() && getKind() != PoolKind::Avg)
    return emitOpError("expects count_include_pad only with average pooling");
  return verifyPooling(*this, getInput(), getOutput(), getKernel(), getStride(), getPadding());
}

LogicalResult Pool2DGradOp::verify() {
  bool isMax = getKind() == PoolKind::Max;
  if (getCountIncludePad() && isMax)
    return emitOpError("expects count_include_pad only with average pooling");
  if (isMax != static_cast<bool>(getInput()))
    return emitOpError("expects the forward input exactly with max pooling");
  if (isMax && memrefOf(getInput()).getShape() != memrefOf(getGradInput()).getShape())
    return emitOpError("expects the forward input to have the input gradient's shape");
  if (isMax && !isFloatBuffer(getInput()))
    return emitOpError("expects floating-point buffers");
  return verifyPooling(*this, getGradInput(), getGradOutput(), getKernel(), getStride(),
                       getPadding());
}

LogicalResult DropoutOp::verify() {
  MemRefType input = memrefOf(getInput()), output = memrefOf(getOutput());
  if (input != output || !isFloatBuffer(getInput()))
    return emitOpError() << "expects a floating-point input and an output of its type, got "
                         << input << " and " << output;
  for (Value key : {getSeed(), getRun()})
    if (memrefOf(key).getRank() != 0 || !memrefOf(key).getElementType().isInteger(64))
      return emitOpError() << "expects an i64 scalar seed and run, got " << key.getType();
  double rate = getRate().convertToDouble();
  if (!(rate >= 0 && rate < 1))
    return emitOpError() << "expects a rate in [0, 1), got " << rate;
  int64_t stream = getStreamAttr().getInt();
  if (stream < 0 || stream > 0xffffffffll)
    return emitOpError() << "expects a stream in [0, 2^32), got " << stream;
  if (input.getNumElements() >= (int64_t(1) << 34))
    return emitOpError("expects fewer than 2^34 elements");
  return success();
}

LogicalResult GatherOp::verify() {
  MemRefType table = memrefOf(getTable()), indices = memrefOf(getIndices()),
             output = memrefOf(getOutput());
  if (table.getRank() != 2)
    return emitOpError() << "expects a table [V, D], got " << table;
  if (!isIndexBuffer(getIndices()))
    return emitOpError() << "expects i32 or i64 indices, got " << indices;
  if (table.getElementType() != output.getElementType() || !isFloatBuffer(getTable()))
    return emitOpError("expects a floating-point table and an output of its element type");
  llvm::SmallVector<int64_t> expected(indices.getShape());
  expected.push_back(table.getDimSize(1));
  if (output.getShape() != llvm::ArrayRef<int64_t>(expected)) {
    InFlightDiagnostic diag = emitOpError() << "expects an output of shape [";
    llvm::interleaveComma(expected, diag);
    return diag << "] (the indices' shape, then D), got " << output;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// What steps read and write
//===----------------------------------------------------------------------===//

LogicalResult mlir::mpk::AllReduceOp::verify() {
  Type element = getBuffer().getType().getElementType();
  if (element.isInteger(64) || element.isInteger(1))
    return emitOpError("reduces f16, bf16, f32, f64 or i32 elements, not ") << element;
  if (getReduce() == AllReduceKind::Mean && !llvm::isa<FloatType>(element))
    return emitOpError("takes the mean of float elements only, not ") << element;
  return success();
}

llvm::SmallVector<Value> mlir::mpk::writtenBuffers(Operation *op) {
  if (auto pointwise = llvm::dyn_cast<PointwiseOp>(op))
    return llvm::to_vector(pointwise.getOutputs());
  if (auto reduce = llvm::dyn_cast<ReduceOp>(op))
    return llvm::to_vector(reduce.getOutputs());
  if (auto gemm = llvm::dyn_cast<GemmOp>(op))
    return {gemm.getC()};
  if (auto copy = llvm::dyn_cast<CopyOp>(op))
    return {copy.getTarget()};
  if (auto reduce = llvm::dyn_cast<AllReduceOp>(op))
    return {reduce.getBuffer()};
  if (auto attention = llvm::dyn_cast<AttentionOp>(op))
    return {attention.getOutput(), attention.getLse()};
  if (auto grad = llvm::dyn_cast<AttentionGradKeyValueOp>(op))
    return {grad.getGradKey(), grad.getGradValue()};
  if (op->hasAttr(SymbolTable::getSymbolAttrName()) && op->getNumOperands() > 0)
    return {op->getOperands().back()};
  return {};
}

llvm::SmallVector<Value> mlir::mpk::readBuffers(Operation *op) {
  if (auto pointwise = llvm::dyn_cast<PointwiseOp>(op))
    return llvm::to_vector(pointwise.getInputs());
  if (auto reduce = llvm::dyn_cast<ReduceOp>(op)) {
    llvm::SmallVector<Value> read(reduce.getInputs());
    llvm::append_range(read, reduce.getEpilogueInputs());
    return read;
  }
  if (auto gemm = llvm::dyn_cast<GemmOp>(op)) {
    llvm::SmallVector<Value> read{gemm.getA(), gemm.getB()};
    if (gemm.getBias())
      read.push_back(gemm.getBias());
    if (!gemm.getBeta().isZero())
      read.push_back(gemm.getC());
    return read;
  }
  if (auto copy = llvm::dyn_cast<CopyOp>(op))
    return {copy.getSource()};
  llvm::SmallVector<Value> read(op->getOperands());
  if (op->hasAttr(SymbolTable::getSymbolAttrName()) && !read.empty())
    read.pop_back_n(writtenBuffers(op).size());
  return read;
}

#define GET_OP_CLASSES
#include "dialects/mpk/IR/MpkOps.cpp.inc"
