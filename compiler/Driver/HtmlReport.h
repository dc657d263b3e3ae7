//===- HtmlReport.h - `mpc report --html`: one self-contained page -*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The report as one HTML file that needs nothing else (no network, no other
// file): the graph drawn by precision with the table of decisions, the
// kernels with their roofline estimate, the memory plan with the live bytes
// over the step (mixed precision against fp32), and, given training logs,
// their loss curves, loss scales and gradient histogram. All pictures are
// inline SVG; a small script lets a reader pick a storage type or category
// to highlight and filter the decisions.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DRIVER_HTMLREPORT_H
#define MPC_COMPILER_DRIVER_HTMLREPORT_H

#include "compiler/Driver/PrecisionReport.h"
#include "compiler/Driver/RunLog.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mpc::driver {

/// One launch of the step, as the kernels section shows it.
struct HtmlKernel {
  std::string kind, name, what, ops, launch;
  int64_t readBytes = 0, writtenBytes = 0;
  double flops = 0, microseconds = 0;
  bool memoryBound = true;
};

struct HtmlReportData {
  std::string program, precisionMode, step;
  /// The graph after precision assignment, drawn (GraphPicture.h).
  std::string graphSvg;
  std::optional<PrecisionReport> precision;
  std::vector<HtmlKernel> kernels;
  std::string gpu;
  double stepMicroseconds = 0;
  int64_t arenaBytes = 0, persistentBytes = 0;
  std::optional<std::pair<int64_t, int64_t>> fp32Memory; // arena, persistent
  std::vector<std::pair<std::string, int64_t>> persistentByCategory;
  std::vector<int64_t> timeline, fp32Timeline;
  std::vector<RunLog> runs;
  /// The JSON report (`mpc report --json`), embedded for tools.
  std::string json;
};

/// The page.
std::string renderHtmlReport(const HtmlReportData &data);

} // namespace mpc::driver

#endif // MPC_COMPILER_DRIVER_HTMLREPORT_H
