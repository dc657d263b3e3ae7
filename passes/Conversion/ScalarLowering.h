//===- ScalarLowering.h - mpg pointwise ops as scalar arith/math -*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Inside a generated kernel every value is a scalar in its compute type:
// f32 for f16/bf16/f32 storage, f64 for f64, integers and i1 as they are.
// These helpers emit the scalar arith/math ops of one element of an mpg
// pointwise op. Only `mpg.cast` rounds (to the narrower type and back); all
// other math stays in the compute type until the kernel stores it.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_PASSES_CONVERSION_SCALARLOWERING_H
#define MPC_PASSES_CONVERSION_SCALARLOWERING_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mpc {

/// The type a stored element of type `elementType` has in registers.
mlir::Type computeType(mlir::Type elementType);

/// Emits the scalar computation of pointwise mpg op `op` (see
/// mpg::isPointwiseOp), reading its operands' scalars from `scalars` and
/// recording its result's scalar there. Fails with an error on `op` when the
/// op has no scalar form.
mlir::LogicalResult lowerToScalar(mlir::OpBuilder &builder, mlir::Operation *op,
                                  mlir::IRMapping &scalars);

/// Converts scalar `value` (in some compute type) to the compute type of
/// storage element type `elementType`; with `roundThroughStorage`, a value
/// bound for a narrower float type (f16, bf16) is rounded to it and back, as
/// an explicit cast requires.
mlir::Value convertScalar(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value value,
                          mlir::Type elementType, bool roundThroughStorage);

} // namespace mpc

#endif // MPC_PASSES_CONVERSION_SCALARLOWERING_H
