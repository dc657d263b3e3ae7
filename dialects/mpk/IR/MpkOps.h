//===- MpkOps.h - mpk dialect operations ------------------------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_DIALECT_MPK_MPKOPS_H
#define MPC_DIALECT_MPK_MPKOPS_H

#include "dialects/mpk/IR/MpkDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/mpk/IR/MpkEnums.h.inc"

#define GET_OP_CLASSES
#include "dialects/mpk/IR/MpkOps.h.inc"

namespace mlir::mpk {

/// The buffers that a step of a program writes: the outputs of
/// mpk.pointwise and mpk.reduce, C of mpk.gemm, the target of mpk.copy, the
/// output and log-sum-exp of mpk.attention, the two gradients of
/// mpk.attention_grad_key_value, and the last operand of every other
/// kernel. A kernel's written buffers are its last operands, in order.
/// Empty for ops that are not steps.
llvm::SmallVector<Value> writtenBuffers(Operation *op);

/// The buffers that `op` reads: the inputs (and epilogue inputs) of
/// mpk.pointwise and mpk.reduce, A, B and the bias of mpk.gemm, the source
/// of mpk.copy, every operand but the last of every other kernel, and every
/// operand of any other op (mpk.output reads its buffer at the end).
llvm::SmallVector<Value> readBuffers(Operation *op);

/// The largest head size of the attention kernels
/// (runtime/device/attention.cuh's kAttentionMaxHead): mpg-fuse-attention
/// leaves larger heads written out.
constexpr int64_t kAttentionMaxHead = 128;

} // namespace mlir::mpk

#endif // MPC_DIALECT_MPK_MPKOPS_H
