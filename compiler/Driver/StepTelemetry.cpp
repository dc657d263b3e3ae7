//===- StepTelemetry.cpp - what `mpc train` logs of each step -------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/StepTelemetry.h"

#include <string>

using namespace mpc::driver;

namespace {

/// The lowest power of two the gradient statistics count (grad_at_least[0]
/// counts |g| >= 2^-40), and the one below which fp16 without loss scaling
/// rounds a value to zero (half of its smallest subnormal, 2^-24).
constexpr int kLowestExponent = -40, kFp16FlushExponent = -25;

} // namespace

llvm::Expected<StepTelemetry> StepTelemetry::create(const mpc_program *program) {
  StepTelemetry telemetry;
  bool hasLoss = false;
  for (size_t i = 0, e = mpc_program_output_count(program); i < e; ++i) {
    mpc_tensor_info info;
    mpc_program_output_info(program, i, &info);
    std::string name = info.name, dtype = info.dtype;
    bool scalarF32 = info.rank == 0 && dtype == "f32";
    hasLoss |= name == "loss" && scalarF32;
    telemetry.hasLr_ |= name == "lr" && scalarF32;
    telemetry.hasLossScale_ |= name == "loss_scale" && scalarF32;
    telemetry.hasSkipped_ |= name == "skipped" && info.rank == 0 && dtype == "i1";
    telemetry.hasGradNorm_ |= name == "grad_norm" && scalarF32;
    if (name == "grad_at_least" && info.rank == 1 && dtype == "f32" &&
        info.shape[0] > kFp16FlushExponent - kLowestExponent) {
      telemetry.hasGradStats_ = true;
      telemetry.gradBuckets_ = static_cast<size_t>(info.shape[0]);
    }
  }
  if (!hasLoss)
    return llvm::createStringError("the training step has no f32 scalar output \"loss\"");
  return telemetry;
}

llvm::Error StepTelemetry::read(mpc_program *program, uint64_t run, StepValues &out) const {
  auto get = [&](const char *name, void *data, size_t bytes) -> llvm::Error {
    if (mpc_program_get_telemetry(program, run, name, data, bytes) != MPC_OK)
      return llvm::createStringError(mpc_last_error());
    return llvm::Error::success();
  };
  auto scalar = [&](const char *name, double &value) -> llvm::Error {
    float v = 0;
    if (llvm::Error error = get(name, &v, sizeof v))
      return error;
    value = v;
    return llvm::Error::success();
  };
  StepValues values;
  if (llvm::Error error = scalar("loss", values.loss))
    return error;
  if (hasLr_)
    if (llvm::Error error = scalar("lr", values.lr))
      return error;
  if (hasLossScale_)
    if (llvm::Error error = scalar("loss_scale", values.lossScale))
      return error;
  if (hasGradNorm_)
    if (llvm::Error error = scalar("grad_norm", values.gradNorm))
      return error;
  if (hasSkipped_) {
    uint8_t skipped = 0;
    if (llvm::Error error = get("skipped", &skipped, sizeof skipped))
      return error;
    values.skipped = skipped != 0;
  }
  if (hasGradStats_) {
    values.gradAtLeast.resize(gradBuckets_);
    if (llvm::Error error = scalar("grad_nonzero", values.gradNonzero))
      return error;
    if (llvm::Error error = get("grad_at_least", values.gradAtLeast.data(),
                                values.gradAtLeast.size() * sizeof(float)))
      return error;
  }
  out = std::move(values);
  return llvm::Error::success();
}

llvm::raw_ostream &mpc::driver::operator<<(llvm::raw_ostream &os, JsonNumber number) {
  if (!std::isfinite(number.value))
    return os << "null";
  return os << number.value;
}

void StepTelemetry::writeLogLine(llvm::raw_ostream &os, uint64_t step, const StepValues &values,
                                 double ms) const {
  os << "{\"step\": " << step << ", \"loss\": " << JsonNumber{values.loss};
  if (hasLr_)
    os << ", \"lr\": " << JsonNumber{values.lr};
  if (hasLossScale_)
    os << ", \"loss_scale\": " << JsonNumber{values.lossScale};
  if (hasSkipped_)
    os << ", \"skipped\": " << (values.skipped ? "true" : "false");
  if (hasGradNorm_)
    os << ", \"grad_norm\": " << JsonNumber{values.gradNorm};
  if (hasGradStats_) {
    const std::vector<float> &atLeast = values.gradAtLeast;
    double nonzero = values.gradNonzero;
    double representable = atLeast[kFp16FlushExponent - kLowestExponent];
    double flushed = nonzero > 0 ? (nonzero - representable) / nonzero : 0;
    os << ", \"grad_nonzero\": " << static_cast<int64_t>(nonzero)
       << ", \"grad_fp16_flush_fraction\": " << JsonNumber{flushed}
       << ", \"grad_exponent_counts\": {";
    for (size_t k = 0; k < gradBuckets_; ++k) {
      // Values with 2^e <= |g| < 2^(e+1); the first bucket also holds
      // everything smaller (down to the smallest non-zero value).
      double below = k + 1 < gradBuckets_ ? atLeast[k + 1] : 0;
      double count = (k == 0 ? nonzero : atLeast[k]) - below;
      os << (k ? ", " : "") << "\"" << static_cast<int>(k) + kLowestExponent
         << "\": " << static_cast<int64_t>(count);
    }
    os << "}";
  }
  os << ", \"ms\": " << JsonNumber{ms} << "}\n";
}
