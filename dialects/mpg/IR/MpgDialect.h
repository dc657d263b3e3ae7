//===- MpgDialect.h - mpg dialect declaration -------------------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_DIALECT_MPG_MPGDIALECT_H
#define MPC_DIALECT_MPG_MPGDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/mpg/IR/MpgDialect.h.inc"

#endif // MPC_DIALECT_MPG_MPGDIALECT_H
