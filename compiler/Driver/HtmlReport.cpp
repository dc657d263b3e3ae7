//===- HtmlReport.cpp - `mpc report --html`: one self-contained page ------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/HtmlReport.h"

#include "compiler/Driver/GraphPicture.h"
#include "compiler/Driver/SvgChart.h"
#include "compiler/Driver/TrainingPlots.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace mpc::driver;

namespace {

constexpr char kStyle[] = R"(
body { font-family: sans-serif; margin: 24px; color: #222; max-width: 1200px; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 12px; margin: 8px 0; }
th, td { border: 1px solid #ddd; padding: 3px 6px; text-align: left; }
th { background: #f4f4f4; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.scroll { overflow: auto; max-height: 560px; border: 1px solid #eee; }
.chip { display: inline-block; padding: 2px 8px; margin: 2px; border-radius: 10px;
        cursor: pointer; font-size: 12px; border: 1px solid #999; }
.chip.active { outline: 2px solid #000; }
.dim { opacity: 0.15; } tr.hidden { display: none; }
.note { color: #666; font-size: 12px; }
svg { display: block; margin: 8px 0; }
)";

// Highlights the ops of a chosen storage type or category in the graph and
// the table; filters the table by text. Sets data-ready when done, which
// the tests read.
constexpr char kScript[] = R"(
(function () {
  var report = JSON.parse(document.getElementById('mpc-data').textContent);
  var chips = document.querySelectorAll('.chip');
  var active = null;
  function apply() {
    document.querySelectorAll('svg.graph g.op').forEach(function (g) {
      var match = !active || g.dataset[active.kind] === active.value;
      g.classList.toggle('dim', !match);
    });
    var filter = document.getElementById('filter');
    var text = filter ? filter.value.toLowerCase() : '';
    document.querySelectorAll('#decisions tbody tr').forEach(function (row) {
      var match = (!active || row.dataset[active.kind] === active.value) &&
                  (!text || row.textContent.toLowerCase().indexOf(text) >= 0);
      row.classList.toggle('hidden', !match);
    });
    chips.forEach(function (chip) {
      chip.classList.toggle('active', !!active && chip.dataset.kind === active.kind &&
                                      chip.dataset.value === active.value);
    });
  }
  chips.forEach(function (chip) {
    chip.addEventListener('click', function () {
      var same = active && active.kind === chip.dataset.kind && active.value === chip.dataset.value;
      active = same ? null : { kind: chip.dataset.kind, value: chip.dataset.value };
      apply();
    });
  });
  var filter = document.getElementById('filter');
  if (filter) filter.addEventListener('input', apply);
  document.body.dataset.ready = 'yes';
  document.body.dataset.program = report.length ? report[0].program : '';
})();
)";

std::string escape(const std::string &text) { return escapeXml(text); }

std::string bytes(int64_t value) {
  if (value >= (1 << 20))
    return llvm::formatv("{0:F2} MiB", value / double(1 << 20));
  if (value >= 1024)
    return llvm::formatv("{0:F1} KiB", value / 1024.0);
  return std::to_string(value) + " B";
}

void precisionSection(std::string &html, const HtmlReportData &data) {
  const PrecisionReport &report = *data.precision;
  html += "<h2>Precision</h2>\n";
  html += llvm::formatv("<p>Mode <b>{0}</b>: {1} casts inserted, {2} removed, {3} parameters "
                        "read through working copies. Each box is an op, coloured by the type "
                        "it stores; dot-products have a black border. Hover a box for its "
                        "decision; pick a type or category to highlight it.</p>\n",
                        escape(report.mode), report.castsInserted, report.castsRemoved,
                        report.workingCopies);
  std::map<std::string, int> storages, categories;
  for (const PrecisionDecision &d : report.decisions) {
    ++storages[d.storage];
    ++categories[d.category];
  }
  html += "<div>";
  for (const auto &[type, count] : storages)
    html += llvm::formatv("<span class=\"chip\" data-kind=\"storage\" data-value=\"{0}\" "
                          "style=\"background:{1}\">{0} ({2})</span>",
                          escape(type), storageColor(type), count);
  html += "</div><div>";
  for (const auto &[category, count] : categories)
    html += llvm::formatv("<span class=\"chip\" data-kind=\"category\" data-value=\"{0}\">{0} "
                          "({1})</span>",
                          escape(category), count);
  html += "</div>\n<div class=\"scroll\">" + data.graphSvg + "</div>\n";
  html += "<p><input id=\"filter\" placeholder=\"filter the decisions\" size=\"40\"></p>\n";
  html += "<div class=\"scroll\"><table id=\"decisions\"><thead><tr><th>location</th><th>op</th>"
          "<th>category</th><th>storage</th><th>compute</th><th>accumulate</th><th>reason</th>"
          "</tr></thead><tbody>\n";
  for (const PrecisionDecision &d : report.decisions)
    html += llvm::formatv("<tr data-storage=\"{3}\" data-category=\"{2}\"><td>{0}</td>"
                          "<td>{1}</td><td>{2}</td><td>{3}</td><td>{4}</td><td>{5}</td>"
                          "<td>{6}{7}</td></tr>\n",
                          escape(d.location), escape(d.op), escape(d.category),
                          escape(d.storage), escape(d.compute),
                          escape(d.accumulate.empty() ? "-" : d.accumulate),
                          escape(d.reason), d.forced ? " (forced)" : "");
  html += "</tbody></table></div>\n";
}

void kernelsSection(std::string &html, const HtmlReportData &data) {
  html += "<h2>Kernels</h2>\n";
  html += llvm::formatv("<p>{0} launches per step. Roofline on an {1}: {2:F2} us per step "
                        "(each launch the larger of its FLOPs at the peak rate and its bytes at "
                        "the memory bandwidth; launch overhead not counted).</p>\n",
                        data.kernels.size(), escape(data.gpu), data.stepMicroseconds);
  ChartSpec spec;
  spec.title = "estimated time per launch on an " + data.gpu;
  spec.xLabel = "launch";
  spec.yLabel = "us";
  ChartSeries launches;
  launches.label = "blue: memory-bound, red: compute-bound";
  launches.color = "#5b9bd5";
  std::vector<std::string> categories;
  for (auto [i, k] : llvm::enumerate(data.kernels)) {
    categories.push_back(std::to_string(i));
    launches.y.push_back(k.microseconds);
    launches.pointColors.push_back(k.memoryBound ? "#5b9bd5" : "#d62728");
  }
  spec.lines = {launches};
  html += barChartSvg(spec, categories);
  html += "<div class=\"scroll\"><table><thead><tr><th>#</th><th>kind</th><th>name</th>"
          "<th>what</th><th>mpg ops</th><th>read</th><th>written</th><th>FLOPs</th>"
          "<th>grid x block</th><th>us</th><th>bound</th></tr></thead><tbody>\n";
  for (auto [i, k] : llvm::enumerate(data.kernels))
    html += llvm::formatv("<tr><td class=\"num\">{0}</td><td>{1}</td><td>{2}</td><td>{3}</td>"
                          "<td>{4}</td><td class=\"num\">{5}</td><td class=\"num\">{6}</td>"
                          "<td class=\"num\">{7:E2}</td><td>{8}</td><td class=\"num\">{9:F3}</td>"
                          "<td>{10}</td></tr>\n",
                          i, escape(k.kind), escape(k.name), escape(k.what), escape(k.ops),
                          k.readBytes, k.writtenBytes, k.flops, escape(k.launch), k.microseconds,
                          k.memoryBound ? "memory" : "compute");
  html += "</tbody></table></div>\n";
}

void memorySection(std::string &html, const HtmlReportData &data) {
  html += "<h2>Memory</h2>\n";
  html += llvm::formatv("<p>Arena {0} (inputs, intermediates, outputs of one step), persistent "
                        "{1} (parameters, state, constants)",
                        bytes(data.arenaBytes), bytes(data.persistentBytes));
  if (data.fp32Memory)
    html += llvm::formatv("; in fp32: arena {0}, persistent {1}", bytes(data.fp32Memory->first),
                          bytes(data.fp32Memory->second));
  html += ".</p>\n<table><thead><tr><th>persistent</th><th>bytes</th></tr></thead><tbody>\n";
  for (const auto &[category, count] : data.persistentByCategory)
    if (count)
      html += llvm::formatv("<tr><td>{0}</td><td class=\"num\">{1}</td></tr>\n", escape(category),
                            count);
  html += "</tbody></table>\n";
  ChartSpec spec;
  spec.title = "live bytes of the arena over the step";
  spec.xLabel = "op of the step (execution order)";
  spec.yLabel = "live bytes";
  auto series = [](const std::string &label, const std::vector<int64_t> &timeline) {
    ChartSeries s;
    s.label = label;
    for (auto [i, value] : llvm::enumerate(timeline)) {
      s.x.push_back(static_cast<double>(i));
      s.y.push_back(static_cast<double>(value));
    }
    return s;
  };
  spec.lines.push_back(series(data.precisionMode, data.timeline));
  if (!data.fp32Timeline.empty())
    spec.lines.push_back(series("fp32", data.fp32Timeline));
  html += lineChartSvg(spec);
}

void trainingSection(std::string &html, const HtmlReportData &data) {
  html += "<h2>Training</h2>\n<p>";
  for (const RunLog &run : data.runs)
    html += llvm::formatv("<b>{0}</b>: {1} steps, last loss {2:F4}{3}. ", escape(run.name),
                          run.steps.size(), run.steps.back().loss,
                          std::isnan(run.evalAccuracy)
                              ? std::string()
                              : llvm::formatv(", eval accuracy {0:F2}%", 100 * run.evalAccuracy)
                                    .str());
  html += "</p>\n" + lossCurvesSvg(data.runs);
  if (llvm::Expected<std::string> scale = lossScaleSvg(data.runs))
    html += *scale;
  else
    llvm::consumeError(scale.takeError());
  for (const RunLog &run : data.runs) {
    llvm::Expected<std::string> histogram = gradientHistogramSvg(run, std::nullopt);
    if (histogram) {
      html += *histogram;
      break;
    }
    llvm::consumeError(histogram.takeError());
  }
}

} // namespace

std::string mpc::driver::renderHtmlReport(const HtmlReportData &data) {
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  html += "<title>mpc report: @" + escape(data.program) + "</title>\n<style>" +
          std::string(kStyle) + "</style></head>\n<body>\n";
  html += llvm::formatv("<h1>mpc report: @{0}</h1>\n<p class=\"note\">The {1} step in {2}, as "
                        "mpc compiles it.</p>\n",
                        escape(data.program), escape(data.step), escape(data.precisionMode));
  if (data.precision)
    precisionSection(html, data);
  if (!data.kernels.empty())
    kernelsSection(html, data);
  memorySection(html, data);
  if (!data.runs.empty())
    trainingSection(html, data);
  // The JSON report, for tools; "</" cannot end the script element early.
  std::string json = data.json;
  for (size_t at = json.find("</"); at != std::string::npos; at = json.find("</", at + 2))
    json.replace(at, 2, "<\\/");
  html += "<script type=\"application/json\" id=\"mpc-data\">" + json + "</script>\n";
  html += "<script>" + std::string(kScript) + "</script>\n</body></html>\n";
  return html;
}
