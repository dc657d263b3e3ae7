//===- MpgDialect.cpp - mpg dialect registration ---------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "dialects/mpg/IR/MpgDialect.h"
#include "dialects/mpg/IR/MpgOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::mpg;

#include "dialects/mpg/IR/MpgDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/mpg/IR/MpgAttrs.cpp.inc"

void MpgDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/mpg/IR/MpgAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/mpg/IR/MpgOps.cpp.inc"
      >();
}
