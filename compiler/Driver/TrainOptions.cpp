//===- TrainOptions.cpp - the command line of `mpc train` -----------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/TrainOptions.h"

#include "compiler/Driver/ImportOptions.h"

#include "compiler/Driver/ArgParser.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Driver/HostCompilerOptions.h"
#include "compiler/Driver/OptimizerOptions.h"
#include "compiler/Driver/PrecisionOptions.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mpc::driver;

namespace {

ArgParser makeTrainParser() {
  ArgParser parser(
      "train", "mpc train GRAPH|BUNDLE --data SPEC [--eval SPEC] [--steps N] [options]",
      "Compiles GRAPH's training step (backward pass and optimizer), or loads a BUNDLE written "
      "by\n'mpc compile --step train', and trains it: one step per batch of the data, shuffled "
      "every\nepoch with --seed. Then copies the trained parameters into the forward step and "
      "evaluates it on\n--eval or --holdout (loss, and accuracy when the graph has an output "
      "\"logits\").\n\nClassification data goes to a graph with one f32 input (the features, "
      "batch first) and one\ni32/i64 input (the labels); text goes to a graph with an integer "
      "input [B, T] (characters)\nand an integer input \"targets\" ([B, T], or [T*B] "
      "time-major) that holds the next characters;\na sequence task (integer tokens and targets "
      "[N, T]) to the same two inputs.\n\nData specs: FILE.csv[.gz] (features then "
      "a label per line, scaled by the largest value),\n"
      "IMAGES-idx3-ubyte[.gz],LABELS-idx1-ubyte[.gz] (pixels / 255), FEATURES.npy,LABELS.npy\n"
      "(or TOKENS.npy,TARGETS.npy),\n"
      "or TEXT.txt[.gz] (printable ASCII and newlines, 96 character ids: newline 0, ' ' to '~' "
      "1-95);\neach optionally followed by @START:END to take a range of examples (of "
      "characters for text).\n\nData-parallel: 'mpirun -np N mpc train ...' runs N ranks (MPI; "
      "NCCL on GPUs); each takes its\npart of every batch (a step is N batches), the step "
      "all-reduces the mean of the gradients\n(--data-parallel), and rank 0 prints, logs and "
      "writes checkpoints, which resume on any N.");
  parser.setPositionals("GRAPH|BUNDLE",
                        "the graph file (with mpg.minimize), or a training-step bundle", 1, 1);
  parser.addOption({"data", 0, "SPEC", "training data", "", {}});
  parser.addOption({"graph",
                    0,
                    "NAME",
                    "the graph to train when the file holds several (by its @name)",
                    "",
                    {}});
  parser.addOption({"eval", 0, "SPEC", "evaluation data", "", {}});
  parser.addOption({"forward", 0, "BUNDLE",
                    "the forward-step bundle to evaluate with, when training a bundle "
                    "('mpc compile --step forward' of the same graph)",
                    "", {}});
  parser.addOption({"holdout", 0, "N",
                    "evaluate on N examples of --data drawn with --seed and kept out of "
                    "training (instead of --eval)",
                    "", {}});
  parser.addOption({"steps", 0, "N", "number of training steps (more steps when resuming)",
                    "100", {}});
  parser.addOption({"seed", 0, "N", "seed of the initializers and of the shuffling", "0", {}});
  parser.addOption({"log", 0, "FILE", "write one JSON object per step, then a summary", "", {}});
  parser.addOption({"init", 0, "FILE",
                    "resume from a checkpoint written by --save: parameters, optimizer state "
                    "and the step count (the batches continue where they were)",
                    "", {}});
  parser.addOption({"save", 0, "FILE",
                    "write parameters and optimizer state as safetensors at the end", "", {}});
  parser.addOption({"save-every",
                    0,
                    "N",
                    "also write a checkpoint every N steps, next to --save's file with the "
                    "step before its extension (c.safetensors: c.step100.safetensors), "
                    "atomically (a killed run leaves whole files); resume with --init",
                    "0",
                    {}});
  parser.addOption({"keep-checkpoints",
                    0,
                    "K",
                    "keep the last K checkpoints --save-every wrote in this run, deleting "
                    "older ones",
                    "3",
                    {}});
  parser.addOption({"eval-every",
                    0,
                    "N",
                    "also evaluate on --eval or --holdout every N steps: a line on stdout "
                    "and in the log",
                    "0",
                    {}});
  parser.addOption({"max-floor-steps",
                    0,
                    "K",
                    "stop with an error when K steps in a row were skipped at one loss scale "
                    "(the scale at its floor, every gradient overflowing); 0: never",
                    "100",
                    {}});
  addDeviceOption(parser, "where to train");
  addPrecisionOptions(parser);
  addOptimizerOptions(parser);
  addHostCompilerOptions(parser);
  addImportOptions(parser, /*training=*/true);
  parser.addFlag("no-shuffle", "take the batches in the order of the data (to replay batches "
                                "chosen elsewhere, as bench/ does)");
  parser.addFlag("quiet", "no progress on stderr");
  parser.addFlag("check-numerics",
                 "when a step's loss is not finite, run its forward pass again from the "
                 "parameters it started from with every op's value kept, and report the first "
                 "op whose value is NaN or infinite: its source location, its precision and the "
                 "range of its operands (slower: every step waits for the device and keeps a "
                 "copy of the parameters; needs the graph, not a bundle)");
  return parser;
}

/// The first option given that a bundle fixed when it was compiled.
std::optional<std::string> compileOnlyOption(const ArgParser &parser) {
  for (const char *option :
       {"precision", "loss-scale", "graph", "lr", "clip-grad-norm", "accumulate", "optimizer-arg",
        "keep-fp32", "host-cxx", "host-arch", "host-kernel-form", "all-reduce-type", "bucket-mb"})
    if (parser.isSet(option))
      return "--" + std::string(option);
  for (const char *flag : {"grad-stats", "no-working-copies", "no-fuse-attention", "data-parallel"})
    if (parser.flag(flag))
      return "--" + std::string(flag);
  return std::nullopt;
}

/// Reads the options that name files and data; a wrong one is reported.
bool readFileOptions(const ArgParser &parser, TrainOptions &options) {
  // Outputs go to folders that exist (checked now, not after training).
  for (const char *option : {"log", "save"}) {
    std::string path = parser.get(option).value_or("");
    llvm::StringRef folder = llvm::sys::path::parent_path(path);
    if (!path.empty() && !folder.empty() && !llvm::sys::fs::is_directory(folder)) {
      reportError("--" + std::string(option) + " '" + path + "': the folder '" + folder +
                  "' does not exist");
      return false;
    }
  }
  options.logPath = parser.get("log").value_or("");
  options.savePath = parser.get("save").value_or("");
  options.initPath = parser.get("init").value_or("");
  options.dataSpec = parser.get("data").value_or("");
  if (options.dataSpec.empty()) {
    reportError("mpc train needs --data SPEC; run 'mpc train --help' for the formats");
    return false;
  }
  options.evalSpec = parser.get("eval").value_or("");
  if (parser.isSet("holdout")) {
    if (!options.evalSpec.empty()) {
      reportError("--holdout and --eval are exclusive: both name the evaluation data");
      return false;
    }
    uint64_t holdout = 0;
    if (!readIntegerOption(parser, "holdout", holdout, /*minimum=*/1))
      return false;
    // (more than the data holds is refused when the data is read)
    options.holdout = static_cast<int64_t>(std::min<uint64_t>(holdout, INT64_MAX));
  }
  return true;
}

/// Reads what a graph is compiled with, or checks that a bundle is given
/// none of it; a wrong one is reported.
bool readCompileOptions(const ArgParser &parser, TrainOptions &options) {
  options.source = parser.positionals().front();
  options.forwardBundle = parser.get("forward").value_or("");
  options.givenBundle = isBundleFile(options.source);
  if (isOnnxFile(options.source) && !readImportOptions(parser, /*training=*/true, options.onnx))
    return false;
  if (options.givenBundle) {
    if (std::optional<std::string> option = compileOnlyOption(parser)) {
      reportError(*option + " is chosen when a bundle is compiled; '" + options.source +
                  "' keeps its own");
      return false;
    }
    return true;
  }
  if (!options.forwardBundle.empty()) {
    reportError("--forward is for training a bundle; with a graph, mpc train compiles the "
                "forward step itself");
    return false;
  }
  options.compile.trainingStep = true;
  options.compile.targets.host = readHostCompilerOptions(parser);
  options.compile.graphName = parser.get("graph").value_or("");
  return readPrecisionOptions(parser, options.compile.precision) &&
         readOptimizerOptions(parser, options.compile.optimizerArgs);
}

/// Reads --eval-every, --save-every, --keep-checkpoints and
/// --max-floor-steps, which need the options they act with.
bool readRunControlOptions(const ArgParser &parser, TrainOptions &options) {
  if (!readIntegerOption(parser, "eval-every", options.evalEvery) ||
      !readIntegerOption(parser, "save-every", options.saveEvery) ||
      !readIntegerOption(parser, "keep-checkpoints", options.keepCheckpoints, /*minimum=*/1) ||
      !readIntegerOption(parser, "max-floor-steps", options.maxFloorSteps))
    return false;
  if (options.evalEvery > 0 && options.evalSpec.empty() && options.holdout == 0) {
    reportError("--eval-every needs evaluation data: --eval SPEC or --holdout N");
    return false;
  }
  if (options.saveEvery > 0 && options.savePath.empty()) {
    reportError("--save-every needs --save FILE: the periodic checkpoints are named after it "
                "(c.safetensors: c.step100.safetensors)");
    return false;
  }
  return true;
}

} // namespace

std::string mpc::driver::periodicCheckpointPath(const std::string &savePath, uint64_t step) {
  llvm::StringRef path(savePath);
  std::string tag = ".step" + std::to_string(step);
  if (path.consume_back(".safetensors"))
    return path.str() + tag + ".safetensors";
  return savePath + tag;
}

std::optional<int> mpc::driver::parseTrainOptions(llvm::ArrayRef<std::string> args,
                                                  TrainOptions &options) {
  ArgParser parser = makeTrainParser();
  if (std::optional<int> code = parseCommandLine(parser, args))
    return *code;
  if (!readIntegerOption(parser, "steps", options.steps, /*minimum=*/1) ||
      !readIntegerOption(parser, "seed", options.seed))
    return kExitUsage;
  if (int code = resolveDeviceOption(parser, options.device))
    return code;
  if (!readFileOptions(parser, options) || !readCompileOptions(parser, options))
    return kExitUsage;
  if (!readRunControlOptions(parser, options))
    return kExitUsage;
  options.shuffle = !parser.flag("no-shuffle");
  options.progress = !parser.flag("quiet");
  options.checkNumerics = parser.flag("check-numerics");
  if (options.checkNumerics && options.givenBundle) {
    reportError("--check-numerics compiles the graph with every op's value kept: give the "
                "graph file, not a bundle");
    return kExitUsage;
  }
  return std::nullopt;
}
