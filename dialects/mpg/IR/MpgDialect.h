//===- MpgDialect.h - mpg dialect declaration -------------------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_DIALECT_MPG_MPGDIALECT_H
#define MPC_DIALECT_MPG_MPGDIALECT_H

// (The discardable attributes' helpers use Operation and the builtin
// attributes.)
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/Operation.h"

#include "dialects/mpg/IR/MpgDialect.h.inc"

namespace mlir::mpg {

/// The names of the discardable attributes that MpgBase.td declares, for
/// lookups by name (MpgDialect::<Name>AttrHelper has typed accessors).
inline constexpr llvm::StringLiteral kPrecisionAttr = MpgDialect::PrecisionAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kPrecisionDecisionAttr =
    MpgDialect::PrecisionDecisionAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kPrecisionSummaryAttr =
    MpgDialect::PrecisionSummaryAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kLossSeedAttr = MpgDialect::LossSeedAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kLossScaledAttr =
    MpgDialect::LossScaledAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kClipGradNormAttr =
    MpgDialect::ClipGradNormAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kAccumulateStepsAttr =
    MpgDialect::AccumulateStepsAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kFiniteCheckAttr =
    MpgDialect::FiniteCheckAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kCastOfAttr = MpgDialect::CastOfAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kArenaOffsetsAttr =
    MpgDialect::ArenaOffsetsAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kPersistentOffsetAttr =
    MpgDialect::PersistentOffsetAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kStateOffsetsAttr =
    MpgDialect::StateOffsetsAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kScratchOffsetAttr =
    MpgDialect::ScratchOffsetAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kArenaBytesAttr =
    MpgDialect::ArenaBytesAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kPersistentBytesAttr =
    MpgDialect::PersistentBytesAttrHelper::getNameStr();

/// The largest accumulate_steps an optimizer takes (runs per update).
inline constexpr int64_t kMaxAccumulateSteps = 1 << 20;

} // namespace mlir::mpg

#endif // MPC_DIALECT_MPG_MPGDIALECT_H
