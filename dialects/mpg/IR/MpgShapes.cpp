//===- MpgShapes.cpp - shape rules shared by mpg verifiers and passes ------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "dialects/mpg/IR/MpgShapes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::mpg;
using llvm::ArrayRef;
using llvm::SmallVectorImpl;

std::string mlir::mpg::formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(shape, os, "x");
  return text;
}

static std::string formatList(ArrayRef<int64_t> values) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleaveComma(values, os);
  os << "]";
  return text;
}

LogicalResult mlir::mpg::broadcastShapes(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                                         SmallVectorImpl<int64_t> &result,
                                         std::string &error) {
  size_t rank = std::max(lhs.size(), rhs.size());
  result.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < lhs.size() ? lhs[lhs.size() - 1 - i] : 1;
    int64_t b = i < rhs.size() ? rhs[rhs.size() - 1 - i] : 1;
    if (a != b && a != 1 && b != 1) {
      error = "shapes " + formatShape(lhs) + " and " + formatShape(rhs) +
              " do not broadcast (dimension " + std::to_string(a) + " against " +
              std::to_string(b) + ")";
      return failure();
    }
    result[rank - 1 - i] = a == 1 ? b : a;
  }
  return success();
}

bool mlir::mpg::isBroadcastableTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  for (size_t i = 0; i < from.size(); ++i) {
    int64_t a = from[from.size() - 1 - i];
    int64_t b = to[to.size() - 1 - i];
    if (a != b && a != 1)
      return false;
  }
  return true;
}

LogicalResult mlir::mpg::normalizeAxis(int64_t axis, int64_t rank, int64_t &result,
                                       std::string &error) {
  if (axis < -rank || axis >= rank) {
    error = "axis " + std::to_string(axis) + " is out of range for rank " +
            std::to_string(rank) + " (expected [" + std::to_string(-rank) + ", " +
            std::to_string(rank) + "))";
    return failure();
  }
  result = axis < 0 ? axis + rank : axis;
  return success();
}

LogicalResult mlir::mpg::normalizeAxes(ArrayRef<int64_t> axes, int64_t rank,
                                       SmallVectorImpl<int64_t> &result,
                                       std::string &error) {
  if (axes.empty()) {
    error = "expects at least one axis";
    return failure();
  }
  result.clear();
  for (int64_t axis : axes) {
    int64_t normalized;
    if (failed(normalizeAxis(axis, rank, normalized, error)))
      return failure();
    if (llvm::is_contained(result, normalized)) {
      error = "axis " + std::to_string(axis) + " appears twice in " + formatList(axes);
      return failure();
    }
    result.push_back(normalized);
  }
  llvm::sort(result);
  return success();
}

llvm::SmallVector<int64_t> mlir::mpg::reducedShape(ArrayRef<int64_t> shape,
                                                   ArrayRef<int64_t> axes, bool keepDims) {
  llvm::SmallVector<int64_t> out;
  for (auto [i, dim] : llvm::enumerate(shape)) {
    if (llvm::is_contained(axes, static_cast<int64_t>(i))) {
      if (keepDims)
        out.push_back(1);
    } else {
      out.push_back(dim);
    }
  }
  return out;
}

static LogicalResult checkPositivePair(std::optional<ArrayRef<int64_t>> values,
                                       llvm::StringRef name, std::string &error) {
  if (!values)
    return success();
  if (values->size() != 2) {
    error = name.str() + " expects 2 values [h, w], got " + formatList(*values);
    return failure();
  }
  if (llvm::any_of(*values, [](int64_t v) { return v < 1; })) {
    error = name.str() + " values must be >= 1, got " + formatList(*values);
    return failure();
  }
  return success();
}

LogicalResult mlir::mpg::checkWindowAttrs(std::optional<ArrayRef<int64_t>> stride,
                                          std::optional<ArrayRef<int64_t>> padding,
                                          std::optional<ArrayRef<int64_t>> dilation,
                                          std::string &error) {
  if (failed(checkPositivePair(stride, "stride", error)) ||
      failed(checkPositivePair(dilation, "dilation", error)))
    return failure();
  if (padding) {
    if (padding->size() != 4) {
      error = "padding expects 4 values [top, left, bottom, right], got " +
              formatList(*padding);
      return failure();
    }
    if (llvm::any_of(*padding, [](int64_t v) { return v < 0; })) {
      error = "padding values must be >= 0, got " + formatList(*padding);
      return failure();
    }
  }
  return success();
}

LogicalResult mlir::mpg::windowOutputSize(int64_t height, int64_t width,
                                          const Window2D &window, int64_t out[2],
                                          std::string &error) {
  int64_t in[2] = {height, width};
  for (int d = 0; d < 2; ++d) {
    std::optional<int64_t> padded = llvm::checkedAdd(in[d], window.padding[d]);
    if (padded)
      padded = llvm::checkedAdd(*padded, window.padding[d + 2]);
    std::optional<int64_t> extent = llvm::checkedMul(window.dilation[d], window.kernel[d] - 1);
    if (extent)
      extent = llvm::checkedAdd(*extent, int64_t(1));
    if (!padded || !extent) {
      error = "window size or padding overflows 64-bit integers";
      return failure();
    }
    if (*extent > *padded) {
      error = std::string("window of extent ") + std::to_string(*extent) + " does not fit in " +
              (d == 0 ? "height " : "width ") + std::to_string(in[d]) + " padded to " +
              std::to_string(*padded);
      return failure();
    }
    out[d] = (*padded - *extent) / window.stride[d] + 1;
  }
  return success();
}

static void fillWindow(Window2D &w, ArrayRef<int64_t> kernel,
                       std::optional<ArrayRef<int64_t>> stride,
                       std::optional<ArrayRef<int64_t>> padding,
                       std::optional<ArrayRef<int64_t>> dilation, bool strideIsKernel) {
  for (int d = 0; d < 2; ++d) {
    w.kernel[d] = kernel[d];
    w.stride[d] = stride ? (*stride)[d] : (strideIsKernel ? kernel[d] : 1);
    w.dilation[d] = dilation ? (*dilation)[d] : 1;
  }
  for (int d = 0; d < 4; ++d)
    w.padding[d] = padding ? (*padding)[d] : 0;
}

LogicalResult mlir::mpg::conv2dOutputShape(ArrayRef<int64_t> input, ArrayRef<int64_t> filter,
                                           std::optional<ArrayRef<int64_t>> stride,
                                           std::optional<ArrayRef<int64_t>> padding,
                                           std::optional<ArrayRef<int64_t>> dilation,
                                           int64_t groups, SmallVectorImpl<int64_t> &result,
                                           std::string &error) {
  if (input.size() != 4 || filter.size() != 4) {
    error = "expects a rank-4 input [N, C, H, W] and a rank-4 filter [O, C/groups, kH, kW], "
            "got " + formatShape(input) + " and " + formatShape(filter);
    return failure();
  }
  if (failed(checkWindowAttrs(stride, padding, dilation, error)))
    return failure();
  if (groups < 1) {
    error = "groups must be >= 1, got " + std::to_string(groups);
    return failure();
  }
  if (input[1] % groups != 0 || filter[0] % groups != 0) {
    error = "groups " + std::to_string(groups) + " must divide the input channels (" +
            std::to_string(input[1]) + ") and the output channels (" +
            std::to_string(filter[0]) + ")";
    return failure();
  }
  std::optional<int64_t> filterChannels = llvm::checkedMul(filter[1], groups);
  if (!filterChannels || *filterChannels != input[1]) {
    error = "filter expects " +
            (filterChannels ? std::to_string(*filterChannels) : std::string("too many")) +
            " input channels (dim 1 times groups) but the input has " +
            std::to_string(input[1]);
    return failure();
  }
  if (filter[2] < 1 || filter[3] < 1) {
    error = "filter spatial size must be >= 1, got " + formatShape(filter.drop_front(2));
    return failure();
  }
  Window2D window;
  fillWindow(window, filter.drop_front(2), stride, padding, dilation,
             /*strideIsKernel=*/false);
  int64_t out[2];
  if (failed(windowOutputSize(input[2], input[3], window, out, error)))
    return failure();
  result.assign({input[0], filter[0], out[0], out[1]});
  return success();
}

LogicalResult mlir::mpg::pool2dOutputShape(ArrayRef<int64_t> input, ArrayRef<int64_t> kernel,
                                           std::optional<ArrayRef<int64_t>> stride,
                                           std::optional<ArrayRef<int64_t>> padding,
                                           SmallVectorImpl<int64_t> &result,
                                           std::string &error) {
  if (input.size() != 4) {
    error = "expects a rank-4 input [N, C, H, W], got " + formatShape(input);
    return failure();
  }
  if (failed(checkPositivePair(kernel, "kernel", error)) ||
      failed(checkWindowAttrs(stride, padding, std::nullopt, error)))
    return failure();
  if (padding && ((*padding)[0] >= kernel[0] || (*padding)[2] >= kernel[0] ||
                  (*padding)[1] >= kernel[1] || (*padding)[3] >= kernel[1])) {
    error = "padding " + formatList(*padding) + " must be smaller than the kernel " +
            formatList(kernel);
    return failure();
  }
  Window2D window;
  fillWindow(window, kernel, stride, padding, std::nullopt, /*strideIsKernel=*/true);
  int64_t out[2];
  if (failed(windowOutputSize(input[2], input[3], window, out, error)))
    return failure();
  result.assign({input[0], input[1], out[0], out[1]});
  return success();
}

LogicalResult mlir::mpg::sliceShape(ArrayRef<int64_t> input, ArrayRef<int64_t> start,
                                    ArrayRef<int64_t> limit,
                                    std::optional<ArrayRef<int64_t>> step,
                                    SmallVectorImpl<int64_t> &result, std::string &error) {
  size_t rank = input.size();
  if (start.size() != rank || limit.size() != rank || (step && step->size() != rank)) {
    error = "start, limit and step must each have one value per dimension (rank " +
            std::to_string(rank) + ")";
    return failure();
  }
  result.clear();
  for (size_t d = 0; d < rank; ++d) {
    int64_t s = step ? (*step)[d] : 1;
    if (s < 1) {
      error = "step must be >= 1, got " + std::to_string(s) + " in dimension " +
              std::to_string(d);
      return failure();
    }
    if (start[d] < 0 || start[d] > limit[d] || limit[d] > input[d]) {
      error = "dimension " + std::to_string(d) + ": expects 0 <= start (" +
              std::to_string(start[d]) + ") <= limit (" + std::to_string(limit[d]) +
              ") <= size (" + std::to_string(input[d]) + ")";
      return failure();
    }
    result.push_back(limit[d] == start[d] ? 0 : (limit[d] - start[d] - 1) / s + 1);
  }
  return success();
}
