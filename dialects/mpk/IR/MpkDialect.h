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
#include "mlir/IR/Dialect.h"

#include "dialects/mpk/IR/MpkDialect.h.inc"

#endif // MPC_DIALECT_MPK_MPKDIALECT_H
