//===- Pipelines.cpp - registered pass pipelines ---------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

namespace {

/// The options of the registered pipelines (mpc-opt).
struct PipelineOptions : public mlir::PassPipelineOptions<PipelineOptions> {
  Option<std::string> precision{*this, "precision",
                                llvm::cl::desc("fp32 (no change), fp16 or bf16"),
                                llvm::cl::init("fp32")};

  mpc::PrecisionConfig config() const {
    mpc::PrecisionConfig config;
    config.mode = precision;
    return config;
  }
};

} // namespace

void mpc::buildPrecisionPipeline(mlir::OpPassManager &pm, bool trainingStep,
                                 const PrecisionConfig &precision) {
  mlir::OpPassManager &graphPm = pm.nest<mlir::mpg::GraphOp>();
  if (trainingStep)
    graphPm.addPass(createMpgAutodiff());
  MpgAssignPrecisionOptions assign;
  assign.mode = precision.mode;
  graphPm.addPass(createMpgAssignPrecision(assign));
  graphPm.addPass(createMpgVerifyPrecision());
}

void mpc::buildGraphPipeline(mlir::OpPassManager &pm, bool trainingStep,
                             const PrecisionConfig &precision) {
  // The backward pass and the updates come first, so that precision
  // assignment, fusion and the memory plan see the whole step; composites
  // are decomposed before fusion so their parts can fuse; the memory plan
  // needs the final kernel boundaries, so it follows fusion.
  buildPrecisionPipeline(pm, trainingStep, precision);
  mlir::OpPassManager &graphPm = pm.nest<mlir::mpg::GraphOp>();
  graphPm.addPass(createMpgDecompose());
  graphPm.addPass(createMpgFuse());
  graphPm.addPass(createMpgPlanMemory());
}

void mpc::buildForwardPipeline(mlir::OpPassManager &pm, const PrecisionConfig &precision) {
  buildGraphPipeline(pm, /*trainingStep=*/false, precision);
  pm.addPass(createConvertMpgToMpk());
}

void mpc::buildTrainingPipeline(mlir::OpPassManager &pm, const PrecisionConfig &precision) {
  buildGraphPipeline(pm, /*trainingStep=*/true, precision);
  pm.addPass(createConvertMpgToMpk());
}

void mpc::registerPipelines() {
  mlir::PassPipelineRegistration<PipelineOptions>(
      "mpc-train-pipeline",
      "Compiles mpg graphs to mpk programs of a whole training step: autodiff, then the "
      "forward pipeline",
      [](mlir::OpPassManager &pm, const PipelineOptions &options) {
        buildTrainingPipeline(pm, options.config());
      });
  mlir::PassPipelineRegistration<PipelineOptions>(
      "mpc-forward-pipeline",
      "Compiles mpg graphs to mpk programs: assign precision, decompose, fuse, plan memory, "
      "lower",
      [](mlir::OpPassManager &pm, const PipelineOptions &options) {
        buildForwardPipeline(pm, options.config());
      });
}
