//===- Pipelines.cpp - registered pass pipelines ---------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

void mpc::buildGraphPipeline(mlir::OpPassManager &pm, bool trainingStep) {
  mlir::OpPassManager &graphPm = pm.nest<mlir::mpg::GraphOp>();
  // The backward pass and the updates come first, so that fusion and the
  // memory plan see the whole step; composites are decomposed before fusion
  // so their parts can fuse; the memory plan needs the final kernel
  // boundaries, so it follows fusion.
  if (trainingStep)
    graphPm.addPass(createMpgAutodiff());
  graphPm.addPass(createMpgDecompose());
  graphPm.addPass(createMpgFuse());
  graphPm.addPass(createMpgPlanMemory());
}

void mpc::buildForwardPipeline(mlir::OpPassManager &pm) {
  buildGraphPipeline(pm, /*trainingStep=*/false);
  pm.addPass(createConvertMpgToMpk());
}

void mpc::buildTrainingPipeline(mlir::OpPassManager &pm) {
  buildGraphPipeline(pm, /*trainingStep=*/true);
  pm.addPass(createConvertMpgToMpk());
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
