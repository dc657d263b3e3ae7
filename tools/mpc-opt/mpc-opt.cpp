//===- mpc-opt.cpp - run mpc's passes on MLIR files -----------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The opt tool of the project, for lit tests: parses MLIR with the mpg
// dialect, runs the passes named on the command line, prints the result.
//
//===----------------------------------------------------------------------===//

#include "dialects/mpg/IR/MpgDialect.h"
#include "dialects/mpk/IR/MpkDialect.h"
#include "passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  mpc::registerMpcPasses();
  mpc::registerPipelines();

  mlir::DialectRegistry registry;
  registry.insert<mlir::mpg::MpgDialect, mlir::mpk::MpkDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "mpc optimizer driver: mpc's dialects and passes\n", registry));
}
