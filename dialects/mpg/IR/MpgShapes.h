//===- MpgShapes.h - shape rules shared by mpg verifiers and passes -*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The shape arithmetic of the mpg ops (NumPy broadcasting, axis
// normalisation, windowed output sizes) in one place, so that verifiers,
// type inference and later passes agree. Each function that can fail returns
// failure with a message for the caller to attach to its diagnostic.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_DIALECT_MPG_MPGSHAPES_H
#define MPC_DIALECT_MPG_MPGSHAPES_H

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir::mpg {

/// Writes a shape as MLIR does in a tensor type: "4x5", or "scalar" for rank 0.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// The NumPy broadcast of `lhs` and `rhs`.
LogicalResult broadcastShapes(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs,
                              llvm::SmallVectorImpl<int64_t> &result, std::string &error);

/// True when `from` broadcasts to exactly `to`.
bool isBroadcastableTo(llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to);

/// Maps axes in [-rank, rank) to [0, rank), checking that they are distinct;
/// the result is sorted.
LogicalResult normalizeAxes(llvm::ArrayRef<int64_t> axes, int64_t rank,
                            llvm::SmallVectorImpl<int64_t> &result, std::string &error);

/// One axis in [-rank, rank), mapped to [0, rank).
LogicalResult normalizeAxis(int64_t axis, int64_t rank, int64_t &result, std::string &error);

/// The shape after reducing `axes` (already normalised) of `shape`.
llvm::SmallVector<int64_t> reducedShape(llvm::ArrayRef<int64_t> shape,
                                        llvm::ArrayRef<int64_t> axes, bool keepDims);

/// Spatial parameters of a 2-D window op (convolution or pooling).
struct Window2D {
  int64_t kernel[2];
  int64_t stride[2];
  int64_t padding[4]; // top, left, bottom, right
  int64_t dilation[2];
};

/// Checks the lengths and ranges of window attributes: kernel/stride/dilation
/// of 2 values >= 1, padding of 4 values >= 0.
LogicalResult checkWindowAttrs(std::optional<llvm::ArrayRef<int64_t>> stride,
                               std::optional<llvm::ArrayRef<int64_t>> padding,
                               std::optional<llvm::ArrayRef<int64_t>> dilation,
                               std::string &error);

/// Output spatial size [Ho, Wo] of a window over [H, W]; fails when the
/// window does not fit.
LogicalResult windowOutputSize(int64_t height, int64_t width, const Window2D &window,
                               int64_t out[2], std::string &error);

/// The output shape of a 2-D convolution of `input` [N, C, H, W] by `filter`
/// [O, C / groups, kH, kW].
LogicalResult conv2dOutputShape(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> filter,
                                std::optional<llvm::ArrayRef<int64_t>> stride,
                                std::optional<llvm::ArrayRef<int64_t>> padding,
                                std::optional<llvm::ArrayRef<int64_t>> dilation,
                                int64_t groups, llvm::SmallVectorImpl<int64_t> &result,
                                std::string &error);

/// The output shape of 2-D pooling of `input` [N, C, H, W]; stride defaults
/// to the kernel.
LogicalResult pool2dOutputShape(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> kernel,
                                std::optional<llvm::ArrayRef<int64_t>> stride,
                                std::optional<llvm::ArrayRef<int64_t>> padding,
                                llvm::SmallVectorImpl<int64_t> &result, std::string &error);

/// The result shape of a strided slice; checks ranks and bounds.
LogicalResult sliceShape(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> start,
                         llvm::ArrayRef<int64_t> limit,
                         std::optional<llvm::ArrayRef<int64_t>> step,
                         llvm::SmallVectorImpl<int64_t> &result, std::string &error);

} // namespace mlir::mpg

#endif // MPC_DIALECT_MPG_MPGSHAPES_H
