//===- SvgChart.cpp - line and bar charts as SVG --------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/SvgChart.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mpc::driver;

namespace {

constexpr double kLeft = 72, kRight = 24, kTop = 40, kBottom = 56;

/// A value in the axis's space (log for a log axis).
struct Axis {
  double low = 0, high = 1;
  double logBase = 0;

  double map(double value) const {
    return logBase > 0 ? std::log(value) / std::log(logBase) : value;
  }
  /// Position of `value` between `from` (at low) and `to` (at high).
  double place(double value, double from, double to) const {
    double t = (map(value) - low) / (high - low);
    return from + t * (to - from);
  }
};

/// A rounded step for about `count` ticks over [low, high].
double niceStep(double low, double high, int count) {
  double raw = (high - low) / std::max(count, 1);
  if (!(raw > 0))
    return 1;
  double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double factor : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= factor * magnitude)
      return factor * magnitude;
  return 10 * magnitude;
}

std::string number(double value) {
  if (value != 0 && (std::abs(value) >= 1e5 || std::abs(value) < 1e-3))
    return llvm::formatv("{0:e1}", value).str();
  std::string text = llvm::formatv("{0:F3}", value).str();
  while (text.find('.') != std::string::npos && (text.back() == '0' || text.back() == '.'))
    text.pop_back();
  return text;
}

/// The axis of `values` (finite, and positive on a log axis), padded a
/// little and widened to whole ticks.
Axis axisOf(const std::vector<double> &values, double logBase, bool fromZero) {
  Axis axis;
  axis.logBase = logBase;
  double low = std::numeric_limits<double>::infinity(), high = -low;
  for (double v : values)
    if (std::isfinite(v) && (logBase <= 0 || v > 0)) {
      low = std::min(low, axis.map(v));
      high = std::max(high, axis.map(v));
    }
  if (!std::isfinite(low)) {
    low = 0;
    high = 1;
  }
  if (fromZero && logBase <= 0)
    low = std::min(low, 0.0);
  if (high - low < 1e-12) {
    low -= 0.5;
    high += 0.5;
  }
  if (logBase > 0) {
    // A value on a whole power would lie on the frame: one power below.
    axis.low = std::floor(low) == low ? low - 1 : std::floor(low);
    axis.high = std::ceil(high);
    if (axis.high == axis.low)
      axis.high += 1;
  } else {
    double step = niceStep(low, high, 5);
    axis.low = std::floor(low / step) * step;
    axis.high = std::ceil(high / step) * step;
  }
  return axis;
}

/// Tick values (in data units) of an axis.
std::vector<double> ticksOf(const Axis &axis) {
  std::vector<double> ticks;
  if (axis.logBase > 0) {
    int stride = std::max(1, static_cast<int>((axis.high - axis.low) / 8));
    for (double e = axis.low; e <= axis.high + 1e-9; e += stride)
      ticks.push_back(std::pow(axis.logBase, e));
  } else {
    double step = niceStep(axis.low, axis.high, 5);
    for (double v = axis.low; v <= axis.high + step * 1e-9; v += step)
      ticks.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
  }
  return ticks;
}

std::string tickLabel(const Axis &axis, double value) {
  if (axis.logBase == 2)
    return "2^" + number(std::round(std::log2(value)));
  return number(value);
}

/// The frame: background, title, axis labels, y ticks and grid.
void drawFrame(std::string &svg, const ChartSpec &spec, const Axis &y) {
  svg += llvm::formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
                       "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n",
                       spec.width, spec.height);
  svg += llvm::formatv("<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n", spec.width,
                       spec.height);
  svg += llvm::formatv("<text x=\"{0}\" y=\"22\" text-anchor=\"middle\" font-size=\"15\" "
                       "font-weight=\"bold\">{1}</text>\n",
                       spec.width / 2, escapeXml(spec.title));
  double bottom = spec.height - kBottom, right = spec.width - kRight;
  for (double tick : ticksOf(y)) {
    double py = y.place(tick, bottom, kTop);
    svg += llvm::formatv("<line x1=\"{0}\" y1=\"{1:F1}\" x2=\"{2}\" y2=\"{1:F1}\" "
                         "stroke=\"#e4e4e4\"/>\n",
                         kLeft, py, right);
    svg += llvm::formatv("<text x=\"{0}\" y=\"{1:F1}\" text-anchor=\"end\" "
                         "dominant-baseline=\"middle\">{2}</text>\n",
                         kLeft - 6, py, escapeXml(tickLabel(y, tick)));
  }
  svg += llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#444\"/>\n",
                       kLeft, bottom, right);
  svg += llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#444\"/>\n",
                       kLeft, kTop, bottom);
  svg += llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\">{2}</text>\n",
                       (kLeft + right) / 2, spec.height - 12, escapeXml(spec.xLabel));
  svg += llvm::formatv("<text x=\"16\" y=\"{0}\" text-anchor=\"middle\" "
                       "transform=\"rotate(-90 16 {0})\">{1}</text>\n",
                       (kTop + bottom) / 2, escapeXml(spec.yLabel));
}

/// The legend of `series` and `marks`, top right inside the plot.
void drawLegend(std::string &svg, const ChartSpec &spec) {
  size_t longest = 0;
  for (const auto *group : {&spec.lines, &spec.marks})
    for (const ChartSeries &s : *group)
      longest = std::max(longest, s.label.size());
  double x = spec.width - kRight - 40 - 6.8 * longest, y = kTop + 8;
  size_t index = 0;
  auto entry = [&](const ChartSeries &s, bool mark, size_t colorIndex) {
    std::string color = s.color.empty() ? paletteColor(colorIndex) : s.color;
    if (mark)
      svg += llvm::formatv("<circle cx=\"{0:F1}\" cy=\"{1:F1}\" r=\"4\" fill=\"{2}\"/>\n", x + 10,
                           y, color);
    else
      svg += llvm::formatv("<line x1=\"{0:F1}\" y1=\"{1:F1}\" x2=\"{2:F1}\" y2=\"{1:F1}\" "
                           "stroke=\"{3}\" stroke-width=\"3\"/>\n",
                           x, y, x + 20, color);
    svg += llvm::formatv("<text x=\"{0:F1}\" y=\"{1:F1}\" dominant-baseline=\"middle\">{2}"
                         "</text>\n",
                         x + 26, y, escapeXml(s.label));
    y += 18;
  };
  for (const ChartSeries &s : spec.lines)
    entry(s, false, index++);
  for (const ChartSeries &s : spec.marks)
    entry(s, true, index++);
}

} // namespace

std::string mpc::driver::escapeXml(const std::string &text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string mpc::driver::paletteColor(size_t index) {
  static const char *palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                  "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f"};
  return palette[index % (sizeof palette / sizeof palette[0])];
}

std::string mpc::driver::lineChartSvg(const ChartSpec &spec) {
  std::vector<double> xs, ys;
  for (const auto *group : {&spec.lines, &spec.marks})
    for (const ChartSeries &s : *group) {
      xs.insert(xs.end(), s.x.begin(), s.x.end());
      ys.insert(ys.end(), s.y.begin(), s.y.end());
    }
  for (const ChartBand &band : spec.bands) {
    xs.push_back(band.from);
    xs.push_back(band.to);
  }
  Axis x = axisOf(xs, 0, false), y = axisOf(ys, spec.logBase, true);
  std::string svg;
  drawFrame(svg, spec, y);
  double bottom = spec.height - kBottom, right = spec.width - kRight;
  for (const ChartBand &band : spec.bands) {
    double from = x.place(band.from, kLeft, right), to = x.place(band.to, kLeft, right);
    svg += llvm::formatv("<rect x=\"{0:F1}\" y=\"{1}\" width=\"{2:F1}\" height=\"{3}\" "
                         "fill=\"{4}\" opacity=\"0.18\"/>\n",
                         from, kTop, std::max(0.0, to - from), bottom - kTop,
                         band.color.empty() ? "#2ca02c" : band.color);
    svg += llvm::formatv("<text x=\"{0:F1}\" y=\"{1}\" text-anchor=\"middle\" font-size=\"11\">"
                         "{2}</text>\n",
                         (from + to) / 2, kTop + 14, escapeXml(band.label));
  }
  for (double tick : ticksOf(x)) {
    double px = x.place(tick, kLeft, right);
    svg += llvm::formatv("<line x1=\"{0:F1}\" y1=\"{1}\" x2=\"{0:F1}\" y2=\"{2}\" "
                         "stroke=\"#444\"/>\n",
                         px, bottom, bottom + 5);
    svg += llvm::formatv("<text x=\"{0:F1}\" y=\"{1}\" text-anchor=\"middle\">{2}</text>\n", px,
                         bottom + 18, escapeXml(number(tick)));
  }
  size_t index = 0;
  for (const ChartSeries &s : spec.lines) {
    std::string color = s.color.empty() ? paletteColor(index) : s.color;
    std::string points;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.y[i]) || (spec.logBase > 0 && s.y[i] <= 0))
        continue;
      points += llvm::formatv("{0:F1},{1:F1} ", x.place(s.x[i], kLeft, right),
                              y.place(s.y[i], bottom, kTop));
    }
    svg += llvm::formatv("<polyline class=\"series\" data-label=\"{0}\" fill=\"none\" "
                         "stroke=\"{1}\" stroke-width=\"1.6\" points=\"{2}\"/>\n",
                         escapeXml(s.label), color, points);
    ++index;
  }
  for (const ChartSeries &s : spec.marks) {
    std::string color = s.color.empty() ? paletteColor(index) : s.color;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
      if (std::isfinite(s.y[i]) && (spec.logBase <= 0 || s.y[i] > 0))
        svg += llvm::formatv("<circle class=\"mark\" cx=\"{0:F1}\" cy=\"{1:F1}\" r=\"3.5\" "
                             "fill=\"{2}\"><title>{3}: {4}</title></circle>\n",
                             x.place(s.x[i], kLeft, right), y.place(s.y[i], bottom, kTop), color,
                             escapeXml(s.label), escapeXml(number(s.x[i])));
    ++index;
  }
  drawLegend(svg, spec);
  svg += "</svg>\n";
  return svg;
}

std::string mpc::driver::barChartSvg(const ChartSpec &spec,
                                     const std::vector<std::string> &categories) {
  std::vector<double> ys;
  for (const ChartSeries &s : spec.lines)
    ys.insert(ys.end(), s.y.begin(), s.y.end());
  Axis y = axisOf(ys, spec.logBase, true);
  std::string svg;
  drawFrame(svg, spec, y);
  double bottom = spec.height - kBottom, right = spec.width - kRight;
  double slot = (right - kLeft) / std::max<size_t>(categories.size(), 1);
  for (const ChartBand &band : spec.bands) {
    double from = kLeft + band.from * slot, to = kLeft + (band.to + 1) * slot;
    svg += llvm::formatv("<rect x=\"{0:F1}\" y=\"{1}\" width=\"{2:F1}\" height=\"{3}\" "
                         "fill=\"{4}\" opacity=\"0.15\"/>\n",
                         from, kTop, std::max(0.0, to - from), bottom - kTop,
                         band.color.empty() ? "#2ca02c" : band.color);
    svg += llvm::formatv("<text x=\"{0:F1}\" y=\"{1}\" text-anchor=\"middle\" font-size=\"11\">"
                         "{2}</text>\n",
                         (from + to) / 2, kTop + 14, escapeXml(band.label));
  }
  size_t series = std::max<size_t>(spec.lines.size(), 1);
  double width = slot * 0.8 / series;
  double base = spec.logBase > 0 ? bottom : y.place(0, bottom, kTop);
  for (size_t c = 0; c < categories.size(); ++c) {
    for (size_t s = 0; s < spec.lines.size(); ++s) {
      const ChartSeries &bars = spec.lines[s];
      if (c >= bars.y.size() || !std::isfinite(bars.y[c]) ||
          (spec.logBase > 0 && bars.y[c] <= 0))
        continue;
      double top = y.place(bars.y[c], bottom, kTop);
      double px = kLeft + c * slot + slot * 0.1 + s * width;
      std::string color = c < bars.pointColors.size() ? bars.pointColors[c]
                          : bars.color.empty()        ? paletteColor(s)
                                                      : bars.color;
      svg += llvm::formatv("<rect class=\"bar\" x=\"{0:F1}\" y=\"{1:F1}\" width=\"{2:F1}\" "
                           "height=\"{3:F1}\" fill=\"{4}\"><title>{5} {6}: {7}</title></rect>\n",
                           px, std::min(top, base), std::max(width - 1, 1.0),
                           std::abs(base - top), color, escapeXml(bars.label),
                           escapeXml(categories[c]), escapeXml(number(bars.y[c])));
    }
    // Every category labelled when they fit, else every n-th.
    size_t every = std::max<size_t>(1, static_cast<size_t>(std::ceil(28.0 / slot)));
    if (c % every == 0)
      svg += llvm::formatv("<text x=\"{0:F1}\" y=\"{1}\" text-anchor=\"middle\" "
                           "font-size=\"10\">{2}</text>\n",
                           kLeft + (c + 0.5) * slot, bottom + 16, escapeXml(categories[c]));
  }
  drawLegend(svg, spec);
  svg += "</svg>\n";
  return svg;
}
