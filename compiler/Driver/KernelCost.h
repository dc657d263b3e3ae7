//===- KernelCost.h - FLOPs and a roofline time for each kernel -*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// For `mpc report kernels`: the arithmetic a launch does and the time it
// would take at the limits of a GPU, the larger of its FLOPs at the peak
// rate and its bytes at the memory bandwidth (a roofline; launch overhead
// and caches not counted). FLOPs are counted, not measured:
//   - GEMM: 2 m n k per batch (a multiply-add is two), plus the epilogue's
//     one or two per output;
//   - pointwise and reduce kernels: the scalar arith/math ops of their body,
//     once per element of the iteration space (a reduction's combine too);
//   - row kernels, per element of a row: softmax 5 (max, subtract, exp, sum,
//     divide), layer norm 8, cross-entropy and its gradient 5;
//   - pooling: a window per output; col2im: an add per column entry;
//     gathers, im2col and copies: none.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DRIVER_KERNELCOST_H
#define MPC_COMPILER_DRIVER_KERNELCOST_H

#include "mlir/IR/Operation.h"

#include <cstdint>

namespace mpc::driver {

/// The limits of the GPU the roofline is drawn for.
struct GpuLimits {
  const char *name;
  /// FLOP/s of GEMMs with fp16/bf16 operands (dense tensor cores).
  double lowPrecisionGemmFlops;
  /// FLOP/s of fp32 and fp64 arithmetic (GEMMs in plain fp32, kernels).
  double vectorFlops;
  /// Bytes/s of device memory.
  double bandwidth;
};

/// An NVIDIA H200 (SXM): 989 TFLOP/s fp16/bf16 dense, 67 TFLOP/s fp32,
/// 4.8 TB/s.
constexpr GpuLimits kH200 = {"H200", 989e12, 67e12, 4.8e12};

/// The FLOPs of one mpk launch or library call (see the file comment).
double estimateFlops(mlir::Operation *op);

struct RooflineTime {
  double computeSeconds = 0, memorySeconds = 0;
  double seconds() const { return computeSeconds > memorySeconds ? computeSeconds : memorySeconds; }
  bool memoryBound() const { return memorySeconds >= computeSeconds; }
};

/// The roofline time of `op` on `gpu`, moving `bytes` bytes.
RooflineTime rooflineTime(mlir::Operation *op, double flops, int64_t bytes, const GpuLimits &gpu);

} // namespace mpc::driver

#endif // MPC_COMPILER_DRIVER_KERNELCOST_H
