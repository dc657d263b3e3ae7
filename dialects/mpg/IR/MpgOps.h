//===- MpgOps.h - mpg dialect attributes and operations ---------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_DIALECT_MPG_MPGOPS_H
#define MPC_DIALECT_MPG_MPGOPS_H

#include "dialects/mpg/IR/MpgDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/mpg/IR/MpgEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/mpg/IR/MpgAttrs.h.inc"

namespace mlir::mpg {
class MinimizeOp;
class StateOp;
} // namespace mlir::mpg

#include "dialects/mpg/IR/MpgInterfaces.h.inc"

#define GET_OP_CLASSES
#include "dialects/mpg/IR/MpgOps.h.inc"

namespace mlir::mpg {
/// Whether `op` computes each result element from the same-index elements of
/// its (broadcast) operands, so that it fits in a pointwise kernel.
bool isPointwiseOp(Operation *op);

/// Whether `value` is computed from a trainable parameter (an attention's
/// mask that is gets no gradient: mpg-fuse-attention leaves such a mask
/// written out, mpg.attention's VJP refuses it).
bool dependsOnTrainableParameters(Value value);
} // namespace mlir::mpg

#endif // MPC_DIALECT_MPG_MPGOPS_H
