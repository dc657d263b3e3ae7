//===- MpkDialect.h - mpk dialect declaration -------------------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_DIALECT_MPK_MPKDIALECT_H
#define MPC_DIALECT_MPK_MPKDIALECT_H

#include "dialects/mpg/IR/MpgDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/Operation.h"

#include "dialects/mpk/IR/MpkDialect.h.inc"

namespace mlir::mpk {

/// The names of the discardable attributes that MpkOps.td declares, for
/// lookups by name (MpkDialect::<Name>AttrHelper has typed accessors).
inline constexpr llvm::StringLiteral kFusedAttr = MpkDialect::FusedAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kUpdateAttr = MpkDialect::UpdateAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kFiniteCheckAttr =
    MpkDialect::FiniteCheckAttrHelper::getNameStr();

} // namespace mlir::mpk

#endif // MPC_DIALECT_MPK_MPKDIALECT_H
