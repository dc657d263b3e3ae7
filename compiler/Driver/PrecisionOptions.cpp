//===- PrecisionOptions.cpp - --precision, --loss-scale, --keep-fp32 ------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/PrecisionOptions.h"
#include "compiler/Driver/Driver.h"

using namespace mpc::driver;

void mpc::driver::addPrecisionOptions(ArgParser &parser) {
  parser.addOption({"precision", 0, "MODE",
                    "fp32 = as written; fp16 or bf16 = mixed precision: dot-products with "
                    "low-precision operands and fp32 accumulation; reductions, softmax, "
                    "losses, norms and optimizer updates in fp32; pointwise ops in "
                    "low-precision storage (see 'mpc report GRAPH precision')",
                    "fp32", {"fp32", "fp16", "bf16"}});
  parser.addOption({"loss-scale", 0, "SPEC",
                    "auto = dynamic for fp16, none otherwise; none; static:S; or dynamic, "
                    "optionally with :KEY=VALUE,... of init (65536), growth (2), backoff "
                    "(0.5), interval (2000 finite steps), hysteresis (1 overflow), min (1), "
                    "max (16777216). Overflowing steps are skipped on the device",
                    "auto", {}});
  parser.addOption({"keep-fp32",
                    0,
                    "PATTERN",
                    "fp16/bf16: keep in fp32 what PATTERN names: an op kind (exp, softmax, "
                    "mpg.matmul) or a glob of parameter names (fc1.*, *.bias), whose reading "
                    "ops then run in fp32 (the reason shows in 'mpc report GRAPH precision'). "
                    "Repeat for several",
                    "",
                    {},
                    /*repeatable=*/true});
  parser.addFlag("grad-stats",
                 "add outputs that count gradient values by magnitude (powers of two), so "
                 "'mpc train --log' records the fraction fp16 would flush to zero without "
                 "loss scaling and the exponent histogram (costs a reduction per gradient)");
  parser.addFlag("no-working-copies",
                 "fp16/bf16: keep no persistent low-precision copies of the fp32 master "
                 "parameters; each step converts a master where it reads it instead (less "
                 "memory, more conversions; the same values: training on the CPU is bitwise the same)");
  parser.addFlag("no-fuse-attention",
                 "keep attention written out (batch_matmul, scale, mask, softmax, batch_matmul) "
                 "instead of one fused mpg.attention, whose kernels never store the S x S "
                 "probabilities (for comparing the two; 'mpc report GRAPH' shows which ran)");
  parser.addFlag("data-parallel",
                 "data-parallel training: each update reads the mean over the ranks of the job "
                 "(mpirun -np N) of its gradient, and the loss output is the mean of the ranks' "
                 "losses; before loss scaling, so every rank skips or changes the scale alike. "
                 "'mpc train' turns it on by itself when a launcher starts it as one of several "
                 "ranks; a bundle compiled with it runs alone too");
  parser.addOption({"all-reduce-type",
                    0,
                    "TYPE",
                    "with --data-parallel: f32 = widen fp16/bf16 gradients to f32 for the "
                    "all-reduce (f32's range for the sum of every rank's scaled gradients); "
                    "storage = reduce each in its storage type (half the bytes; on the CPU "
                    "summed in f32 and rounded once, on GPUs as NCCL sums)",
                    "f32",
                    {"f32", "storage"}});
  parser.addOption({"bucket-mb",
                    0,
                    "MB",
                    "with --data-parallel: gradients are all-reduced in buckets of at least this "
                    "many MiB (the last one of each type smaller), each as soon as its last "
                    "gradient is computed",
                    "25",
                    {}});
}

bool mpc::driver::readPrecisionOptions(const ArgParser &parser, mpc::PrecisionConfig &config) {
  config.mode = *parser.get("precision");
  config.gradientStats = parser.flag("grad-stats");
  config.workingCopies = !parser.flag("no-working-copies");
  config.fuseAttention = !parser.flag("no-fuse-attention");
  config.keepFp32 = parser.getAll("keep-fp32");
  config.dataParallel = parser.flag("data-parallel");
  config.allReduce.reduceType = *parser.get("all-reduce-type");
  uint64_t bucketMiB = 25;
  if (!readIntegerOption(parser, "bucket-mb", bucketMiB, /*minimum=*/1))
    return false;
  if (bucketMiB > (uint64_t(1) << 20)) {
    reportError("--bucket-mb " + std::to_string(bucketMiB) + " is above 1048576 (1 TiB)");
    return false;
  }
  config.allReduce.bucketBytes = static_cast<int64_t>(bucketMiB) << 20;
  if (llvm::Error error = mpc::parseLossScaleSpec(*parser.get("loss-scale"), config.lossScale)) {
    reportError(llvm::toString(std::move(error)));
    return false;
  }
  return true;
}
