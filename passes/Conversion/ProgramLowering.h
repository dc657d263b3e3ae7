//===- ProgramLowering.h - one planned mpg graph to an mpk program -*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Private to passes/Conversion: the class that convert-mpg-to-mpk runs on
// each graph, and the helpers its parts share. Its methods are defined by
// family: the graph's ops, fusion groups and shared helpers
// (ConvertMpgToMpk.cpp), pointwise groups and reductions
// (LowerPointwise.cpp), GEMMs and convolutions (LowerGemm.cpp), and the
// groups of one op: row kernels, pooling, gathers and copies
// (LowerSingle.cpp).
//
// The table in Passes.td says what each fusion group becomes. Indexing maps
// go from a kernel's iteration space to a buffer's dimensions; NumPy
// broadcasting maps a size-1 (or missing) dimension to index 0.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_PASSES_CONVERSION_PROGRAMLOWERING_H
#define MPC_PASSES_CONVERSION_PROGRAMLOWERING_H

#include "dialects/mpg/IR/MpgOps.h"
#include "dialects/mpk/IR/MpkOps.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace mpc::conversion {

using namespace mlir;
using namespace mlir::mpg;
namespace mpk = mlir::mpk;

inline RankedTensorType tensorTypeOf(Value v) { return llvm::cast<RankedTensorType>(v.getType()); }

MemRefType memrefFor(Type tensor);

int64_t product(llvm::ArrayRef<int64_t> dims);

/// Map from `numDims` iteration dims to a buffer of `shape` broadcast
/// against `target`, whose dimension j is `targetExprs[j]`.
AffineMap broadcastMap(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> target,
                       llvm::ArrayRef<AffineExpr> targetExprs, unsigned numDims, MLIRContext *ctx);

llvm::SmallVector<AffineExpr> dimExprs(unsigned n, MLIRContext *ctx);

class ProgramLowering {
public:
  ProgramLowering(GraphOp graph, OpBuilder &builder)
      : graph(graph), b(builder), ctx(graph.getContext()) {}

  /// Builds the graph's mpk.program before it; the caller erases the graph.
  LogicalResult run();

private:
  //===--- The graph's ops and its fusion groups (ConvertMpgToMpk.cpp) ---===//

  LogicalResult lower(Operation *op);

  LogicalResult lowerFusion(FusionOp fusion);

  /// Records on each launch or call made for `fusion` (the ops after
  /// `last`) which mpg ops it computes, for reports.
  void tagFusedOps(FusionOp fusion, Operation *last);

  //===--- Helpers the families share (ConvertMpgToMpk.cpp) ---===//

  /// Copies buffer `from` into `to` (of the same type), unless both are the
  /// same memory: a value already written in place.
  void copyUnlessThere(Location loc, Value from, Value to);

  /// The planned offset attribute `name` of `op`, or an error on `op`.
  template <typename AttrT> FailureOr<AttrT> planned(Operation *op, llvm::StringRef name) {
    if (auto attr = op->getAttrOfType<AttrT>(name))
      return attr;
    return op->emitError() << "convert-mpg-to-mpk expects a planned graph: '" << op->getName()
                           << "' has no " << name << " (run mpg-plan-memory)";
  }

  Value buffer(Location loc, mpk::Space space, int64_t offset, Type tensorType);

  /// A buffer in `group`'s scratch memory, `at` bytes into it.
  FailureOr<Value> scratch(Operation *group, Type elementType, llvm::ArrayRef<int64_t> shape,
                           int64_t at = 0);

  StringAttr nextKernelName() { return b.getStringAttr("k" + std::to_string(kernelCount++)); }

  /// The buffer of a group-level value: a group input or a group output.
  Value bufferOf(Value v);

  /// Emits the scalar body for `ops`; block arguments are `inputs`' scalars.
  LogicalResult emitScalarBody(Block *block, llvm::ArrayRef<Value> inputs,
                               llvm::ArrayRef<Operation *> ops, IRMapping &scalars);

  /// The operands of `ops` defined outside them, in first-use order.
  static llvm::SmallVector<Value> externalOperands(llvm::ArrayRef<Operation *> ops);

  void yieldStored(Location loc, llvm::ArrayRef<Value> outputs, IRMapping &scalars);

  /// One sum kernel: output[d1, ...] = sum over d0 of input[d0, d1, ...]
  /// over `iteration`, in `accType`, times `scale` when given (a loss's
  /// mean; a sum of partials has none).
  void sumOverFirstDim(Location loc, Value input, Value output, llvm::ArrayRef<int64_t> iteration,
                       Type accType, std::optional<double> scale = std::nullopt);

  /// One copy kernel: output[outMap(d)] = input[inMap(d)] over `iteration`.
  void copyKernel(Location loc, Value input, Value output, llvm::ArrayRef<int64_t> iteration,
                  AffineMap inMap, AffineMap outMap);

  //===--- Pointwise groups and reductions (LowerPointwise.cpp) ---===//

  LogicalResult lowerPointwise(FusionOp fusion);

  LogicalResult lowerReduction(FusionOp fusion);

  //===--- GEMMs and convolutions (LowerGemm.cpp) ---===//

  LogicalResult lowerGemm(FusionOp fusion);

  /// The sizes of a convolution's GEMMs, from its input [N, C, H, W], filter
  /// [O, C / G, kH, kW] and output [N, O, Ho, Wo] shapes (or their gradients').
  struct ConvSizes {
    int64_t n, c, o, groups;
    int64_t spatial; // Ho * Wo
    int64_t ckk;     // C * kH * kW: the rows of the im2col columns
    int64_t og, kg;  // O / G and C / G * kH * kW: per group
  };
  static ConvSizes convSizes(RankedTensorType input, RankedTensorType filter,
                             RankedTensorType output, int64_t groups);

  LogicalResult lowerConv(FusionOp fusion);

  /// A convolution's input gradient as GEMMs: per image and group of
  /// channels, the columns W_g^T dY_g [C / G * kH * kW, Ho * Wo] (in the
  /// compute type, in scratch); mpk.col2im then folds them onto the input.
  LogicalResult lowerConvGradInput(FusionOp fusion, Conv2DGradInputOp grad);

  /// A convolution's filter gradient as GEMMs: the input's columns (im2col,
  /// in scratch), per image and group dY_g columns_g^T into per-image
  /// partial sums (compute type, in scratch after the columns), and an
  /// mpk.reduce of those over the images.
  LogicalResult lowerConvGradFilter(FusionOp fusion, Conv2DGradFilterOp grad);

  //===--- Groups of one op (LowerSingle.cpp) ---===//

  LogicalResult lowerSingle(FusionOp fusion, Operation *op);

  /// Softmax, log-softmax, layer norm and the cross-entropy and its
  /// gradient: row kernels.
  LogicalResult lowerRowOp(FusionOp fusion, Operation *op);

  /// Pooling, its gradients, and embedding lookups (gathers).
  LogicalResult lowerWindowOp(Operation *op);

  /// Fused attention (one kernel) and its gradient (two: keys and values,
  /// then queries).
  LogicalResult lowerAttention(FusionOp fusion, Operation *op);

  /// Transpose, slice, its gradient and concat: copy kernels.
  LogicalResult lowerCopy(Operation *op);

  GraphOp graph;
  OpBuilder &b;
  MLIRContext *ctx;
  mpk::ProgramOp program;
  IRMapping buffers;
  llvm::DenseMap<Value, Value> groupOutputs;
  unsigned kernelCount = 0;
};

} // namespace mpc::conversion

#endif // MPC_PASSES_CONVERSION_PROGRAMLOWERING_H
