//===- MpkOps.cpp - mpk operations: verifiers -----------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "dialects/mpk/IR/MpkOps.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::mpk;

#include "dialects/mpk/IR/MpkEnums.cpp.inc"

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

#define GET_OP_CLASSES
#include "dialects/mpk/IR/MpkOps.cpp.inc"
