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

void mpc::buildTrainingPipeline(mlir::OpPassManager &pm) {
  // The backward pass and the updates come first, so that fusion and the
  // memory plan see the whole step.
  pm.nest<mlir::mpg::GraphOp>().addPass(createMpgAutodiff());
  buildForwardPipeline(pm);
}

void mpc::registerPipelines() {
  mlir::PassPipelineRegistration<>(
      "mpc-train-pipeline",
      "Compiles mpg graphs to mpk programs of a whole training step: autodiff, then the "
      "forward pipeline",
      buildTrainingPipeline);
  mlir::PassPipelineRegistration<>(
      "mpc-forward-pipeline",
      "Compiles mpg graphs to mpk programs: decompose, fuse, plan memory, lower",
      buildForwardPipeline);
}
