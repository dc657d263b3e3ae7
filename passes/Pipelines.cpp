//===- Pipelines.cpp - registered pass pipelines ---------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>

namespace {

/// The options of the registered pipelines (mpc-opt).
struct PipelineOptions : public mlir::PassPipelineOptions<PipelineOptions> {
  Option<std::string> precision{*this, "precision",
                                llvm::cl::desc("fp32 (no change), fp16 or bf16"),
                                llvm::cl::init("fp32")};
  Option<std::string> lossScale{
      *this, "loss-scale",
      llvm::cl::desc("auto (dynamic for fp16), none, static:S or dynamic[:KEY=VALUE,...]"),
      llvm::cl::init("auto")};
  Option<bool> gradientStats{*this, "grad-stats",
                             llvm::cl::desc("add the gradient-magnitude outputs"),
                             llvm::cl::init(false)};
  Option<bool> workingCopies{
      *this, "working-copies",
      llvm::cl::desc("keep a low-precision working copy of each fp32 master weight "
                     "(mpg-master-weights); false casts the master where it is read, as "
                     "mpc's --no-working-copies does"),
      llvm::cl::init(true)};
  Option<bool> fuseAttention{
      *this, "fuse-attention",
      llvm::cl::desc("replace written-out attention with mpg.attention (mpg-fuse-attention); "
                     "false keeps the ops as written, as mpc's --no-fuse-attention does"),
      llvm::cl::init(true)};
  Option<bool> dataParallel{
      *this, "data-parallel",
      llvm::cl::desc("all-reduce the gradients and the loss (mpg-all-reduce-gradients)"),
      llvm::cl::init(false)};

  mpc::PrecisionConfig config() const {
    mpc::PrecisionConfig config;
    config.mode = precision;
    if (llvm::Error error = mpc::parseLossScaleSpec(lossScale, config.lossScale))
      llvm::report_fatal_error(std::move(error)); // (mpc-opt only; the driver checks first)
    config.gradientStats = gradientStats;
    config.workingCopies = workingCopies;
    config.fuseAttention = fuseAttention;
    config.dataParallel = dataParallel;
    return config;
  }
};

} // namespace

void mpc::buildPrecisionPipeline(mlir::OpPassManager &pm, bool trainingStep,
                                 const PrecisionConfig &precision) {
  mlir::OpPassManager &graphPm = pm.nest<mlir::mpg::GraphOp>();
  // (attention fused before autodiff: its gradient is then the fused one,
  // and neither pass stores the probabilities)
  if (trainingStep) {
    graphPm.addPass(createMpgSeedDropout());
    if (precision.fuseAttention)
      graphPm.addPass(createMpgFuseAttention());
    graphPm.addPass(createMpgAutodiff());
  } else {
    graphPm.addPass(createMpgRemoveDropout());
    if (precision.fuseAttention)
      graphPm.addPass(createMpgFuseAttention());
  }
  MpgAssignPrecisionOptions assign;
  assign.mode = precision.mode;
  assign.keepFp32 = precision.keepFp32;
  graphPm.addPass(createMpgAssignPrecision(assign));
  graphPm.addPass(createMpgVerifyPrecision());
  // (before loss scaling, whose overflow check then sees the reduced
  // gradients: every rank decides alike)
  if (precision.dataParallel)
    graphPm.addPass(createMpgAllReduceGradients(precision.allReduce));
  MpgInsertLossScalingOptions loss = precision.lossScale;
  if (loss.mode == "auto")
    loss.mode = precision.mode == "fp16" ? "dynamic" : "none";
  graphPm.addPass(createMpgInsertLossScaling(loss));
  if (precision.gradientStats)
    graphPm.addPass(createMpgGradientStats());
  // (after the statistics, which count each run's gradients as computed;
  // before clipping, whose norm is the accumulated gradients')
  graphPm.addPass(createMpgAccumulateGradients());
  graphPm.addPass(createMpgClipGradients());
  if (precision.workingCopies)
    graphPm.addPass(createMpgMasterWeights());
}

llvm::Error mpc::parseLossScaleSpec(llvm::StringRef spec, LossScaleConfig &config) {
  auto failure = [&](const llvm::Twine &what) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "invalid loss-scale spec '" + spec + "': " + what +
                                       "; expected none, static:S or dynamic[:KEY=VALUE,...] "
                                       "with keys init, growth, backoff, interval, hysteresis, "
                                       "min, max");
  };
  auto [mode, rest] = spec.split(':');
  LossScaleConfig parsed = autoLossScale();
  parsed.mode = mode.str();
  if (mode == "auto" || mode == "none") {
    if (!rest.empty())
      return failure("'" + mode + "' takes no value");
  } else if (mode == "static") {
    if (rest.getAsDouble(parsed.initScale) || !(parsed.initScale > 0) ||
        !std::isfinite(parsed.initScale))
      return failure("static needs a finite scale > 0, as in static:1024");
  } else if (mode == "dynamic") {
    llvm::SmallVector<llvm::StringRef> items;
    if (!rest.empty())
      rest.split(items, ',');
    for (llvm::StringRef item : items) {
      auto [key, value] = item.split('=');
      double number;
      if (value.getAsDouble(number) || !std::isfinite(number))
        return failure("'" + key + "' needs a number, got '" + value + "'");
      auto integer = [&](int64_t &out) -> bool {
        if (number != std::floor(number) || number < 1)
          return false;
        out = static_cast<int64_t>(number);
        return true;
      };
      if (key == "init" && number > 0)
        parsed.initScale = number;
      else if (key == "growth" && number > 1)
        parsed.growthFactor = number;
      else if (key == "backoff" && number > 0 && number < 1)
        parsed.backoffFactor = number;
      else if (key == "interval" && integer(parsed.growthInterval))
        ;
      else if (key == "hysteresis" && integer(parsed.hysteresis))
        ;
      else if (key == "min" && number > 0)
        parsed.minScale = number;
      else if (key == "max" && number > 0)
        parsed.maxScale = number;
      else if (key == "init" || key == "growth" || key == "backoff" || key == "interval" ||
               key == "hysteresis" || key == "min" || key == "max")
        return failure("'" + item + "' is out of range (init, min, max > 0; growth > 1; "
                       "0 < backoff < 1; interval, hysteresis: integers >= 1)");
      else
        return failure("unknown key '" + key + "'");
    }
    if (parsed.minScale > parsed.maxScale)
      return failure("min is above max");
    if (parsed.initScale < parsed.minScale || parsed.initScale > parsed.maxScale)
      return failure("init is outside [min, max]");
  } else {
    return failure("unknown mode '" + mode + "'");
  }
  // The scale and its factors live in f32 on the device: the scales (init,
  // min, max) must round to normal f32 values (1e40 would be infinite, 1e-50
  // zero), growth to an f32 above 1 and backoff to one in (0, 1).
  auto f32 = [](double value) { return static_cast<float>(value); };
  auto normalF32 = [&](double value) {
    return std::isfinite(f32(value)) && f32(value) >= std::numeric_limits<float>::min();
  };
  if (!normalF32(parsed.initScale))
    return failure(llvm::Twine(mode == "static" ? "the scale " : "init ") +
                   llvm::formatv("{0:e}", parsed.initScale) + " is not a normal f32 value");
  if (mode == "dynamic") {
    if (!normalF32(parsed.minScale) || !normalF32(parsed.maxScale))
      return failure("min and max must be normal f32 values");
    if (!(f32(parsed.growthFactor) > 1) || !std::isfinite(f32(parsed.growthFactor)))
      return failure("growth must round to an f32 value above 1");
    if (!(f32(parsed.backoffFactor) < 1) || !(f32(parsed.backoffFactor) > 0))
      return failure("backoff must round to an f32 value in (0, 1)");
  }
  config = parsed;
  return llvm::Error::success();
}

void mpc::buildGraphPipeline(mlir::OpPassManager &pm, bool trainingStep,
                             const PrecisionConfig &precision) {
  // The backward pass and the updates come first, so that precision
  // assignment, fusion and the memory plan see the whole step; composites
  // are decomposed before fusion so their parts can fuse; the memory plan
  // needs the final kernel boundaries, so it follows fusion and the
  // dissolving of pointwise groups into their readers.
  buildPrecisionPipeline(pm, trainingStep, precision);
  mlir::OpPassManager &graphPm = pm.nest<mlir::mpg::GraphOp>();
  graphPm.addPass(createMpgDecompose());
  // Decompositions repeat the same scalar math per parameter (Adam's bias
  // corrections, constants): computed once, they no longer sit between the
  // updates that fusion and code generation run as one launch.
  graphPm.addPass(mlir::createCSEPass());
  graphPm.addPass(createMpgFuse());
  graphPm.addPass(createMpgRecomputePointwise());
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
