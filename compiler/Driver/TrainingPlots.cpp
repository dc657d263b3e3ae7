//===- TrainingPlots.cpp - the charts of training runs --------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/TrainingPlots.h"

#include "compiler/Driver/SvgChart.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mpc::driver;

namespace {

/// fp16's powers of two: values below 2^-25 round to zero, 2^-24 is the
/// smallest subnormal, 2^-14 the smallest normal, and 65504 < 2^16 the
/// largest finite value.
constexpr int kFp16FlushBelow = -25, kFp16Subnormal = -24, kFp16Normal = -14,
              kFp16Overflow = 16;

} // namespace

std::string mpc::driver::lossCurvesSvg(const std::vector<RunLog> &runs) {
  ChartSpec spec;
  spec.title = "training loss";
  spec.xLabel = "step";
  spec.yLabel = "loss (log scale)";
  spec.logBase = 10;
  for (const RunLog &run : runs) {
    ChartSeries series;
    series.label = run.name;
    for (const LoggedStep &step : run.steps) {
      series.x.push_back(static_cast<double>(step.step));
      series.y.push_back(step.loss);
    }
    spec.lines.push_back(std::move(series));
  }
  return lineChartSvg(spec);
}

llvm::Expected<std::string> mpc::driver::lossScaleSvg(const std::vector<RunLog> &runs) {
  ChartSpec spec;
  spec.title = "loss scale (dots: skipped steps, gradients not finite)";
  spec.xLabel = "step";
  spec.yLabel = "loss scale";
  spec.logBase = 2;
  ChartSeries skipped;
  skipped.label = "skipped";
  skipped.color = "#d62728";
  for (const RunLog &run : runs) {
    ChartSeries series;
    series.label = run.name;
    for (const LoggedStep &step : run.steps) {
      if (!std::isfinite(step.lossScale))
        continue;
      series.x.push_back(static_cast<double>(step.step));
      series.y.push_back(step.lossScale);
      if (step.skipped) {
        skipped.x.push_back(static_cast<double>(step.step));
        skipped.y.push_back(step.lossScale);
      }
    }
    if (!series.x.empty())
      spec.lines.push_back(std::move(series));
  }
  if (spec.lines.empty())
    return llvm::createStringError("no run has a loss scale (fp16 runs with loss scaling log "
                                   "\"loss_scale\"; bf16 and fp32 runs have none)");
  spec.marks.push_back(std::move(skipped));
  return lineChartSvg(spec);
}

llvm::Expected<std::string> mpc::driver::gradientHistogramSvg(const RunLog &run,
                                                             std::optional<int64_t> step) {
  const LoggedStep *chosen = nullptr;
  for (const LoggedStep &s : run.steps)
    if (!s.gradExponentCounts.empty() && (!step || s.step == *step))
      chosen = &s;
  if (!chosen)
    return llvm::createStringError(
        "run '" + run.name + "' has no gradient counts" +
        (step ? " at step " + std::to_string(*step) : std::string()) +
        " (train with --grad-stats to log them)");
  int shift = std::isfinite(chosen->lossScale) && chosen->lossScale > 0
                  ? static_cast<int>(std::lround(std::log2(chosen->lossScale)))
                  : 0;
  int low = chosen->gradExponentCounts.begin()->first;
  int high = std::max(chosen->gradExponentCounts.rbegin()->first + shift, kFp16Overflow);
  std::vector<std::string> categories;
  ChartSeries measured, scaled;
  measured.label = "gradients";
  scaled.label = "scaled by 2^" + std::to_string(shift);
  scaled.color = "#ff7f0e";
  double total = 0, flushed = 0, flushedScaled = 0;
  for (int e = low; e <= high; ++e) {
    categories.push_back(std::to_string(e));
    auto count = [&](int exponent) -> double {
      auto it = chosen->gradExponentCounts.find(exponent);
      return it == chosen->gradExponentCounts.end() ? 0.0 : static_cast<double>(it->second);
    };
    measured.y.push_back(count(e));
    scaled.y.push_back(count(e - shift));
    total += count(e);
    if (e < kFp16FlushBelow)
      flushed += count(e);
    if (e + shift < kFp16FlushBelow)
      flushedScaled += count(e);
  }
  ChartSpec spec;
  double percent = total > 0 ? 100 * flushed / total : 0;
  double percentScaled = total > 0 ? 100 * flushedScaled / total : 0;
  spec.title = llvm::formatv("{0}, step {1}: {2:F2}% of gradients flush to zero in fp16; {3:F2}% "
                             "after scaling",
                             run.name, chosen->step, percent, percentScaled)
                   .str();
  spec.xLabel = "log2 |gradient|";
  spec.yLabel = "values (log scale)";
  spec.logBase = 10;
  spec.lines.push_back(std::move(measured));
  if (shift != 0)
    spec.lines.push_back(std::move(scaled));
  auto position = [&](int exponent) { return static_cast<double>(exponent - low); };
  spec.bands.push_back({position(low), position(kFp16FlushBelow - 1), "zero in fp16", "#d62728"});
  spec.bands.push_back({position(kFp16Subnormal), position(kFp16Normal - 1), "fp16 subnormal",
                        "#ff7f0e"});
  spec.bands.push_back({position(kFp16Normal), position(kFp16Overflow - 1), "fp16 normal",
                        "#2ca02c"});
  return barChartSvg(spec, categories);
}
