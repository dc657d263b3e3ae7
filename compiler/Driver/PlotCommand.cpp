//===- PlotCommand.cpp - `mpc plot` ------------------------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Draws the logs of `mpc train --log` (TrainingPlots.h) as SVG, or as PNG
// through rsvg-convert (Debian's librsvg2-bin) when the output ends in .png.
// The file is written through a temporary one and renamed.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/ArgParser.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Driver/RunLog.h"
#include "compiler/Driver/TrainingPlots.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mpc::driver;

namespace {

int fail(const std::string &message) {
  reportError(message);
  return kExitError;
}

/// `svg` as PNG bytes, by rsvg-convert.
llvm::Expected<std::string> toPng(const std::string &svg) {
  llvm::ErrorOr<std::string> converter = llvm::sys::findProgramByName("rsvg-convert");
  if (!converter)
    return llvm::createStringError("writing PNG needs rsvg-convert (Debian's librsvg2-bin, "
                                   "installed by tools/setup/install-deps.sh); or write .svg");
  llvm::SmallString<128> dir;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("mpc-plot", dir))
    return llvm::createStringError("cannot create a temporary directory: " + ec.message());
  auto cleanup = llvm::make_scope_exit([&] { llvm::sys::fs::remove_directories(dir); });
  std::string in = (dir + "/plot.svg").str(), out = (dir + "/plot.png").str();
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(in, ec);
    if (ec)
      return llvm::createStringError("cannot write " + in + ": " + ec.message());
    os << svg;
  }
  std::string message;
  llvm::StringRef args[] = {*converter, "--format", "png", "--output", out, in};
  if (llvm::sys::ExecuteAndWait(*converter, args, std::nullopt, {}, 0, 0, &message) != 0)
    return llvm::createStringError("rsvg-convert failed" +
                                   (message.empty() ? std::string() : ": " + message));
  auto bytes = llvm::MemoryBuffer::getFile(out, /*IsText=*/false);
  if (!bytes)
    return llvm::createStringError("rsvg-convert wrote no PNG");
  return (*bytes)->getBuffer().str();
}

} // namespace

int mpc::driver::runPlotCommand(llvm::ArrayRef<std::string> args) {
  ArgParser parser(
      "plot", "mpc plot RUN.jsonl... -o FILE.svg|FILE.png [--kind loss|loss-scale|gradients]",
      "Draws the logs of 'mpc train --log' (one or more runs, each labelled with its file's\n"
      "name):\n"
      "  loss        the loss curves of the runs on one chart (e.g. fp32, fp16, fp16 without\n"
      "              loss scaling)\n"
      "  loss-scale  each run's loss scale over the steps, the skipped steps marked\n"
      "  gradients   one step's gradients by power of two against the range of fp16, as\n"
      "              measured and after that step's loss scale: the paper's Figure 3 (the\n"
      "              first run; it must have been trained with --grad-stats)\n"
      "The output is SVG, or PNG when its name ends in .png (needs rsvg-convert).");
  parser.setPositionals("RUN.jsonl...", "logs written by 'mpc train --log'", 1, 64);
  parser.addOption({"output", 'o', "FILE", "the picture to write (.svg or .png)", "", {}});
  parser.addOption({"kind", 0, "KIND", "which chart", "loss", {"loss", "loss-scale", "gradients"}});
  parser.addOption({"step", 0, "N",
                    "for --kind gradients: the step to draw (default: the last logged with "
                    "gradient counts)",
                    "", {}});
  if (std::optional<int> code = parseCommandLine(parser, args))
    return *code;
  std::string output = parser.get("output").value_or("");
  if (output.empty()) {
    reportError("mpc plot needs -o FILE.svg or -o FILE.png");
    return kExitUsage;
  }
  bool png = llvm::StringRef(output).ends_with(".png");
  if (!png && !llvm::StringRef(output).ends_with(".svg")) {
    reportError("-o '" + output + "': the picture's name must end in .svg or .png");
    return kExitUsage;
  }
  std::optional<int64_t> step;
  if (std::string text = parser.get("step").value_or(""); !text.empty()) {
    int64_t value = 0;
    if (llvm::StringRef(text).getAsInteger(10, value)) {
      reportError("--step expects an integer, got '" + text + "'");
      return kExitUsage;
    }
    step = value;
  }
  std::vector<RunLog> runs;
  for (const std::string &path : parser.positionals()) {
    llvm::Expected<RunLog> run = readRunLog(path);
    if (!run)
      return fail(llvm::toString(run.takeError()));
    runs.push_back(std::move(*run));
  }
  std::string kind = *parser.get("kind");
  llvm::Expected<std::string> svg = kind == "loss"         ? lossCurvesSvg(runs)
                                    : kind == "loss-scale" ? lossScaleSvg(runs)
                                                           : gradientHistogramSvg(runs.front(), step);
  if (!svg)
    return fail(llvm::toString(svg.takeError()));
  std::string bytes = std::move(*svg);
  if (png) {
    llvm::Expected<std::string> converted = toPng(bytes);
    if (!converted)
      return fail(llvm::toString(converted.takeError()));
    bytes = std::move(*converted);
  }
  if (llvm::Error written =
          llvm::writeToOutput(output, [&](llvm::raw_ostream &os) { os << bytes; return llvm::Error::success(); }))
    return fail("cannot write '" + output + "': " + llvm::toString(std::move(written)));
  return kExitOk;
}
