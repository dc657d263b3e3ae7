//===- Pipelines.cpp - registered pass pipelines ---------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

void mpc::buildForwardPipeline(mlir::OpPassManager &pm) {
  // Per graph: composites first so their parts can fuse; the memory plan
  // needs the final kernel boundaries, so it follows fusion.
  mlir::OpPassManager &graphPm = pm.nest<mlir::mpg::GraphOp>();
  graphPm.addPass(createMpgDecompose());
  graphPm.addPass(createMpgFuse());
  graphPm.addPass(createMpgPlanMemory());
  // Then each planned graph becomes an mpk program.
  pm.addPass(createConvertMpgToMpk());
}

void mpc::registerPipelines() {
  mlir::PassPipelineRegistration<>(
      "mpc-forward-pipeline",
      "Compiles mpg graphs to mpk programs: decompose, fuse, plan memory, lower",
      buildForwardPipeline);
}
