//===- Passes.h - mpc's compiler passes -------------------------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_PASSES_PASSES_H
#define MPC_PASSES_PASSES_H

#include "dialects/mpg/IR/MpgOps.h"
#include "dialects/mpk/IR/MpkOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mpc {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// Loss scaling of a pipeline: mpg-insert-loss-scaling's generated options,
/// whose mode may also be "auto" here (dynamic for fp16, none otherwise;
/// the pipeline decides, knowing the precision). Note that a
/// default-constructed one has the pass's default mode, "dynamic": start
/// from autoLossScale(), as PrecisionConfig does.
using LossScaleConfig = MpgInsertLossScalingOptions;

/// The loss scaling of a pipeline that was given none: "auto".
inline LossScaleConfig autoLossScale() {
  LossScaleConfig config;
  config.mode = "auto";
  return config;
}

/// The precision choices of a pipeline (the driver's --precision and
/// --loss-scale).
struct PrecisionConfig {
  std::string mode = "fp32"; // fp32, fp16 or bf16
  LossScaleConfig lossScale = autoLossScale();
  bool gradientStats = false; // mpg-gradient-stats (telemetry)
  /// mpg-master-weights: persistent fp16/bf16 working copies of the fp32
  /// masters. Without them each step casts a master where it is read, which
  /// computes the same values (tests/lit/e2e/master-weights.test).
  bool workingCopies = true;
  /// mpg-fuse-attention: written-out attention becomes mpg.attention (off:
  /// mpc's --no-fuse-attention, the unfused ops as written).
  bool fuseAttention = true;
  /// mpg-assign-precision's keep-fp32 (--keep-fp32): op kinds, or globs of
  /// parameter names whose readers, kept in fp32.
  std::vector<std::string> keepFp32;
  /// mpg-all-reduce-gradients (data-parallel training, mpc's
  /// --data-parallel): the mean of every rank's gradients and loss.
  bool dataParallel = false;
  MpgAllReduceGradientsOptions allReduce;
};

/// Reads a --loss-scale spec: `none`, `static:S`, or `dynamic` optionally
/// followed by `:KEY=VALUE,...` with keys init, growth, backoff, interval,
/// hysteresis, min, max. Errors say which part is wrong.
llvm::Error parseLossScaleSpec(llvm::StringRef spec, LossScaleConfig &config);

/// The per-graph passes up to the memory plan: [autodiff when
/// `trainingStep`], assign and verify precision, decompose, fuse, plan
/// memory.
void buildGraphPipeline(mlir::OpPassManager &pm, bool trainingStep,
                        const PrecisionConfig &precision = {});

/// The graph pipeline without autodiff, then convert-mpg-to-mpk.
void buildForwardPipeline(mlir::OpPassManager &pm, const PrecisionConfig &precision = {});

/// mpg-autodiff, then the forward pipeline: a whole training step.
void buildTrainingPipeline(mlir::OpPassManager &pm, const PrecisionConfig &precision = {});

/// The graph pipeline up to and including precision assignment and loss
/// scaling (what `mpc report precision` reads).
void buildPrecisionPipeline(mlir::OpPassManager &pm, bool trainingStep,
                            const PrecisionConfig &precision);

/// Registers the pipelines with the pass registry (for mpc-opt).
void registerPipelines();

} // namespace mpc

#endif // MPC_PASSES_PASSES_H
