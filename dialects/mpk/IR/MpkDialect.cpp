//===- MpkDialect.cpp - mpk dialect registration ---------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "dialects/mpk/IR/MpkDialect.h"
#include "dialects/mpk/IR/MpkOps.h"

using namespace mlir;
using namespace mlir::mpk;

#include "dialects/mpk/IR/MpkDialect.cpp.inc"

void MpkDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/mpk/IR/MpkOps.cpp.inc"
      >();
}
