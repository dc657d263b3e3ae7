//===- SvgChart.h - line and bar charts as SVG ------------------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The charts of `mpc plot` and of the HTML report, written as standalone SVG
// (no script, no external font or style): axes with rounded ticks (linear,
// or logarithmic with ticks at powers of the base), a legend, line series,
// point marks, vertical bands that shade a range of x, and bars grouped by
// category.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DRIVER_SVGCHART_H
#define MPC_COMPILER_DRIVER_SVGCHART_H

#include <string>
#include <vector>

namespace mpc::driver {

/// A series of points, drawn as a line or as marks.
struct ChartSeries {
  std::string label;
  std::vector<double> x, y;
  /// CSS colour; empty picks one of the palette by position.
  std::string color;
  /// For bars: a colour per value, overriding `color`.
  std::vector<std::string> pointColors;
};

/// A shaded range of x, with its label written at the top.
struct ChartBand {
  double from = 0, to = 0;
  std::string label;
  std::string color;
};

struct ChartSpec {
  std::string title, xLabel, yLabel;
  /// 0 for a linear y axis, else the base of a logarithmic one (10, 2).
  double logBase = 0;
  std::vector<ChartSeries> lines;
  /// Drawn as dots over the lines (e.g. skipped steps).
  std::vector<ChartSeries> marks;
  std::vector<ChartBand> bands;
  int width = 760, height = 380;
};

/// A line chart of `spec` (lines, marks and bands).
std::string lineChartSvg(const ChartSpec &spec);

/// Bars: for each category (x label) one bar per series, side by side;
/// `spec.lines` holds the series (x unused; y one value per category), and
/// bands shade ranges of category positions.
std::string barChartSvg(const ChartSpec &spec, const std::vector<std::string> &categories);

/// `text` with &, <, > and " escaped for XML.
std::string escapeXml(const std::string &text);

/// The colour of series `index` in the charts' palette.
std::string paletteColor(size_t index);

} // namespace mpc::driver

#endif // MPC_COMPILER_DRIVER_SVGCHART_H
