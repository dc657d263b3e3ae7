//===- TrainCommand.cpp - `mpc train` ----------------------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Compiles a graph into a training step and a forward step, trains on a
// dataset for a number of steps (shuffled batches, one step per batch),
// copies the trained parameters into the forward step and evaluates it.
// Logs one JSON object per step and a summary; shows progress on stderr.
//
//===----------------------------------------------------------------------===//

#include "compiler/Compile/Compile.h"
#include "compiler/Data/BatchBinder.h"
#include "compiler/Data/Dataset.h"
#include "compiler/Driver/ArgParser.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Driver/PrecisionOptions.h"
#include "compiler/Driver/StepTelemetry.h"

#include "mpc/runtime.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numeric>
#include <random>

using namespace mpc::driver;

namespace {

int fail(const std::string &message) {
  reportError(message);
  return kExitError;
}

/// Whether the loaded program is a training step (it counts its steps).
bool isTrainingStep(const mpc_program *program) {
  for (size_t i = 0, e = mpc_program_param_count(program); i < e; ++i) {
    mpc_tensor_info info;
    mpc_program_param_info(program, i, &info);
    if (std::string(info.name) == "optimizer.step")
      return true;
  }
  return false;
}

bool readScalar(const mpc_program *program, const char *name, double &value) {
  float v;
  if (mpc_program_get_output(program, name, &v, sizeof v) != MPC_OK)
    return false;
  value = v;
  return true;
}

} // namespace

int mpc::driver::runTrainCommand(llvm::ArrayRef<std::string> args) {
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
      "characters for text).");
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
  addDeviceOption(parser, "where to train");
  addPrecisionOptions(parser);
  parser.addFlag("no-shuffle", "take the batches in the order of the data (to replay batches "
                                "chosen elsewhere, as bench/ does)");
  parser.addFlag("quiet", "no progress on stderr");
  std::string error;
  if (!parser.parse(args, error)) {
    reportError(error + "; run 'mpc train --help' for usage");
    return kExitUsage;
  }
  if (parser.helpRequested()) {
    parser.printHelp(llvm::outs());
    return kExitOk;
  }
  uint64_t steps = 0, seed = 0;
  if (llvm::StringRef(*parser.get("steps")).getAsInteger(10, steps) || steps == 0) {
    reportError("--steps expects a positive integer, got '" + *parser.get("steps") + "'");
    return kExitUsage;
  }
  if (llvm::StringRef(*parser.get("seed")).getAsInteger(10, seed)) {
    reportError("--seed expects a non-negative integer, got '" + *parser.get("seed") + "'");
    return kExitUsage;
  }
  std::string device;
  if (int code = resolveDeviceOption(parser, device))
    return code;
  // Outputs go to folders that exist (checked now, not after training).
  for (const char *option : {"log", "save"}) {
    std::string path = parser.get(option).value_or("");
    llvm::StringRef folder = llvm::sys::path::parent_path(path);
    if (!path.empty() && !folder.empty() && !llvm::sys::fs::is_directory(folder)) {
      reportError("--" + std::string(option) + " '" + path + "': the folder '" + folder +
                  "' does not exist");
      return kExitUsage;
    }
  }
  std::string dataSpec = parser.get("data").value_or("");
  if (dataSpec.empty()) {
    reportError("mpc train needs --data SPEC; run 'mpc train --help' for the formats");
    return kExitUsage;
  }

  llvm::Expected<mpc::Dataset> train = mpc::loadDataset(dataSpec);
  if (!train)
    return fail(llvm::toString(train.takeError()));
  std::optional<mpc::Dataset> eval;
  if (std::string holdout = parser.get("holdout").value_or(""); !holdout.empty()) {
    int64_t count = 0;
    if (parser.get("eval").value_or("") != "") {
      reportError("--holdout and --eval are exclusive: both name the evaluation data");
      return kExitUsage;
    }
    if (llvm::StringRef(holdout).getAsInteger(10, count) || count <= 0) {
      reportError("--holdout expects a positive integer, got '" + holdout + "'");
      return kExitUsage;
    }
    if (train->isText())
      return fail("--holdout draws examples of classification data; for text, give --eval "
                  "TEXT.txt@START:END with a range of characters kept out of --data");
    if (count >= train->count)
      return fail("--holdout " + holdout + " leaves no training data: the data has " +
                  std::to_string(train->count) + " examples");
    eval = mpc::holdOut(*train, count, seed ^ 0x243F6A8885A308D3ull);
  }
  if (std::string spec = parser.get("eval").value_or(""); !spec.empty()) {
    llvm::Expected<mpc::Dataset> loaded = mpc::loadDataset(spec);
    if (!loaded)
      return fail(llvm::toString(loaded.takeError()));
    eval = std::move(*loaded);
  }

  // Compile both steps into a private temporary folder, unless given bundles.
  llvm::SmallString<128> dir;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("mpc-train", dir))
    return fail("cannot create a temporary directory: " + ec.message());
  auto cleanup = llvm::make_scope_exit([&] { llvm::sys::fs::remove_directories(dir); });
  std::string source = parser.positionals().front();
  std::string forwardOption = parser.get("forward").value_or("");
  std::string trainBundle = (dir + "/train.mpcb").str(), forwardBundle = (dir + "/forward.mpcb").str();
  bool givenBundle = isBundleFile(source);
  if (givenBundle) {
    if (parser.isSet("precision") || parser.isSet("loss-scale") || parser.flag("grad-stats") ||
        parser.flag("no-working-copies") || parser.isSet("graph")) {
      reportError(std::string(parser.isSet("precision")    ? "--precision"
                              : parser.isSet("loss-scale") ? "--loss-scale"
                              : parser.isSet("graph")      ? "--graph"
                              : parser.flag("grad-stats")  ? "--grad-stats"
                                                           : "--no-working-copies") +
                  " is chosen when a bundle is compiled; '" + source + "' keeps its own");
      return kExitUsage;
    }
    trainBundle = source;
    if (eval && forwardOption.empty())
      return fail("evaluating a bundle's training needs its forward step: add --forward "
                  "FORWARD.mpcb (from 'mpc compile GRAPH --step forward')");
    forwardBundle = forwardOption;
  } else {
    if (!forwardOption.empty()) {
      reportError("--forward is for training a bundle; with a graph, mpc train compiles the "
                  "forward step itself");
      return kExitUsage;
    }
    mpc::CompileOptions train;
    if (!readPrecisionOptions(parser, train.precision))
      return kExitUsage;
    train.trainingStep = true;
    train.graphName = parser.get("graph").value_or("");
    // The forward step (evaluation) in the same precision, without the
    // training step's loss scaling and gradient statistics.
    mpc::CompileOptions forward;
    forward.precision.mode = train.precision.mode;
    forward.precision.workingCopies = train.precision.workingCopies;
    forward.graphName = train.graphName;
    if (int code = compileGraphFile(source, train, trainBundle))
      return code;
    if (eval)
      if (int code = compileGraphFile(source, forward, forwardBundle))
        return code;
  }

  ProgramHandle program = loadProgram(trainBundle, device, seed);
  if (!program)
    return kExitError;
  if (!isTrainingStep(program.get()))
    return fail("'" + trainBundle + "' is not a training step (it has no optimizer.step); "
                "compile it with 'mpc compile GRAPH --step train'");
  if (std::string init = parser.get("init").value_or(""); !init.empty())
    if (mpc_program_load_params(program.get(), init.c_str()) != MPC_OK)
      return fail(mpc_last_error());

  llvm::Expected<mpc::BatchBinder> binder =
      mpc::BatchBinder::create(program.get(), *train, "the data");
  if (!binder)
    return fail(llvm::toString(binder.takeError()));
  int64_t batch = binder->batchSize();
  if (binder->exampleCount() < batch)
    return fail("the data has " + std::to_string(binder->exampleCount()) +
                (train->isText() ? " windows of text" : " examples") +
                ", fewer than one batch of " + std::to_string(batch));

  // The forward step for evaluation, checked against the evaluation data
  // before training starts.
  ProgramHandle forward(nullptr, mpc_program_release);
  std::optional<mpc::BatchBinder> evalBinder;
  if (eval) {
    forward = loadProgram(forwardBundle, device, seed);
    if (!forward)
      return kExitError;
    if (isTrainingStep(forward.get()))
      return fail("'" + forwardBundle + "' is a training step; evaluation needs the forward "
                  "step ('mpc compile GRAPH --step forward')");
    llvm::Expected<mpc::BatchBinder> created =
        mpc::BatchBinder::create(forward.get(), *eval, "the evaluation data");
    if (!created)
      return fail(llvm::toString(created.takeError()));
    evalBinder.emplace(std::move(*created));
  }

  // The log and the progress line read each step's telemetry (the loss, and
  // the step's learning rate, loss scale, skip and gradient statistics when
  // it has them) as the step completes: on a GPU the loop never waits for
  // the device except when it runs kRunsInFlight steps ahead.
  llvm::Expected<StepTelemetry> telemetry = StepTelemetry::create(program.get());
  if (!telemetry)
    return fail(llvm::toString(telemetry.takeError()));
  std::unique_ptr<llvm::raw_fd_ostream> log;
  if (std::string path = parser.get("log").value_or(""); !path.empty()) {
    std::error_code ec;
    log = std::make_unique<llvm::raw_fd_ostream>(path, ec);
    if (ec)
      return fail("cannot write log '" + path + "': " + ec.message());
  }
  bool progress = !parser.flag("quiet");
  bool terminal = llvm::sys::Process::StandardErrIsDisplayed();

  // Where training stands: the optimizer's step counter (0, or the count of
  // the checkpoint given with --init), plus the steps loss scaling skipped
  // (they did not advance the optimizer).
  int64_t done = 0, skippedBefore = 0;
  if (mpc_program_get_param(program.get(), "optimizer.step", &done, sizeof done) != MPC_OK)
    return fail(mpc_last_error());
  bool countsSkips = mpc_program_get_param(program.get(), "loss_scale.skipped_steps",
                                           &skippedBefore, sizeof skippedBefore) == MPC_OK;
  // (a checkpoint's counters come from a file: negative ones, or ones whose
  // sum with the steps to run overflows, would index the data out of range)
  std::string countersFrom = parser.get("init").value_or("");
  countersFrom = countersFrom.empty() ? "the program" : "checkpoint '" + countersFrom + "'";
  if (done < 0 || skippedBefore < 0)
    return fail(countersFrom + ": " +
                (done < 0 ? "optimizer.step is " + std::to_string(done)
                          : "loss_scale.skipped_steps is " + std::to_string(skippedBefore)) +
                "; a step counter must be 0 or more");
  if (skippedBefore > INT64_MAX - done ||
      steps > static_cast<uint64_t>(INT64_MAX - (done + skippedBefore)))
    return fail(countersFrom + ": its step counters (optimizer.step " + std::to_string(done) +
                ", loss_scale.skipped_steps " + std::to_string(skippedBefore) + ") plus " +
                std::to_string(steps) + " steps overflow a 64-bit step count");
  done += skippedBefore;
  uint64_t runsBefore = 0;
  mpc_program_run_count(program.get(), &runsBefore);

  // One step per batch; batches are consecutive slices of a permutation of
  // the data drawn for each epoch from --seed and the epoch's number, so a
  // run resumed from a checkpoint sees the batches an uninterrupted run
  // would (the last partial batch of an epoch is dropped).
  int64_t batchesPerEpoch = binder->exampleCount() / batch;
  std::vector<int64_t> order(binder->exampleCount());
  int64_t epoch = -1;
  auto start = std::chrono::steady_clock::now();
  auto lastCompletion = start;
  auto lastDraw = start - std::chrono::seconds(1);
  double loss = 0;
  int64_t skippedSteps = 0;
  uint64_t logged = 0; // steps whose telemetry has been handled
  // Logs the steps that have completed (all of them with `wait`).
  auto handleCompleted = [&](bool wait) -> std::optional<int> {
    if (wait && mpc_program_synchronize(program.get()) != MPC_OK)
      return fail(mpc_last_error());
    uint64_t completed = 0;
    if (mpc_program_completed_runs(program.get(), &completed) != MPC_OK)
      return fail(mpc_last_error());
    for (; runsBefore + logged < completed; ++logged) {
      StepValues values;
      if (llvm::Error error = telemetry->read(program.get(), runsBefore + logged, values))
        return fail(llvm::toString(std::move(error)));
      auto now = std::chrono::steady_clock::now();
      double ms = std::chrono::duration<double, std::milli>(now - lastCompletion).count();
      lastCompletion = now;
      uint64_t step = done + 1 + logged;
      loss = values.loss;
      skippedSteps += values.skipped;
      if (log)
        telemetry->writeLogLine(*log, step, values, ms);
      if (!std::isfinite(loss))
        return fail("the loss is not finite at step " + std::to_string(step) +
                    "; lower the learning rate, or check the data (in a graph without an output "
                    "\"logits\", a label outside the model's classes makes the loss NaN)");
      uint64_t taken = logged + 1, last = done + steps;
      double elapsed = std::chrono::duration<double>(now - start).count();
      // On a terminal the line is redrawn at most ten times a second;
      // elsewhere a line is written every tenth of the run.
      bool draw = terminal ? now - lastDraw >= std::chrono::milliseconds(100) || step == last
                           : taken % std::max<uint64_t>(1, steps / 10) == 0 || step == last;
      if (progress && draw) {
        lastDraw = now;
        double rate = taken / std::max(elapsed, 1e-9);
        if (terminal) {
          // A bar of 24 cells redrawn in place.
          constexpr int kCells = 24;
          int filled = static_cast<int>(kCells * taken / std::max<uint64_t>(steps, 1));
          llvm::errs() << "\r[" << std::string(filled, '#') << std::string(kCells - filled, '.')
                       << "] ";
        }
        llvm::errs() << "step " << step << "/" << last << "  loss " << llvm::format("%.4f", loss)
                     << "  " << llvm::format("%.0f", rate) << " steps/s  ETA "
                     << llvm::format("%.0f", (last - step) / rate) << "s"
                     << (terminal && step < last ? "  " : "\n");
      }
    }
    return std::nullopt;
  };
  for (uint64_t step = done + 1, last = done + steps; step <= last; ++step) {
    int64_t index = static_cast<int64_t>(step - 1);
    if (index / batchesPerEpoch != epoch) {
      epoch = index / batchesPerEpoch;
      std::iota(order.begin(), order.end(), 0);
      std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(epoch));
      if (!parser.flag("no-shuffle"))
        std::shuffle(order.begin(), order.end(), rng);
    }
    int64_t position = index % batchesPerEpoch;
    if (llvm::Error error = binder->bind(program.get(), &order[position * batch]))
      return fail(llvm::toString(std::move(error)));
    if (mpc_program_run(program.get()) != MPC_OK)
      return fail(mpc_last_error());
    if (std::optional<int> code = handleCompleted(/*wait=*/false))
      return *code;
  }
  if (std::optional<int> code = handleCompleted(/*wait=*/true))
    return *code;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (std::string save = parser.get("save").value_or(""); !save.empty())
    if (mpc_program_save_params(program.get(), save.c_str()) != MPC_OK)
      return fail(mpc_last_error());

  double evalLoss = NAN, evalAccuracy = NAN;
  if (eval) {
    // The forward step's parameters and state take the trained values.
    for (size_t i = 0, e = mpc_program_param_count(forward.get()); i < e; ++i) {
      mpc_tensor_info info;
      mpc_program_param_info(forward.get(), i, &info);
      if (info.flags & MPC_TENSOR_WORKING_COPY)
        continue; // follows its parameter
      std::vector<char> bytes(info.bytes);
      if (mpc_program_get_param(program.get(), info.name, bytes.data(), bytes.size()) != MPC_OK ||
          mpc_program_set_param(forward.get(), info.name, bytes.data(), bytes.size()) != MPC_OK)
        return fail(mpc_last_error());
    }
    // Accuracy counts every example: the last partial batch is filled up with
    // examples from the start, whose predictions are not counted. The loss
    // is the mean of the full batches' losses.
    int64_t evalBatch = evalBinder->batchSize(), evalCount = evalBinder->exampleCount();
    int64_t fullBatches = evalCount / evalBatch;
    int64_t batches = (evalCount + evalBatch - 1) / evalBatch;
    if (fullBatches == 0)
      return fail("the evaluation data has fewer examples than one batch of " +
                  std::to_string(evalBatch));
    mpc_tensor_info logits{};
    bool haveLogits = false;
    for (size_t i = 0, e = mpc_program_output_count(forward.get()); i < e; ++i) {
      mpc_tensor_info info;
      mpc_program_output_info(forward.get(), i, &info);
      if (std::string(info.name) == "logits" && std::string(info.dtype) == "f32" &&
          info.rank == 2)
        logits = info, haveLogits = true;
    }
    std::vector<int64_t> indices(batches * evalBatch);
    for (int64_t i = 0, e = indices.size(); i < e; ++i)
      indices[i] = i % evalCount;
    double lossSum = 0;
    int64_t correct = 0, counted = 0;
    std::vector<float> scores(haveLogits ? logits.shape[0] * logits.shape[1] : 0);
    for (int64_t b = 0; b < batches; ++b) {
      double batchLoss;
      if (llvm::Error error = evalBinder->bind(forward.get(), &indices[b * evalBatch]))
        return fail(llvm::toString(std::move(error)));
      if (mpc_program_run(forward.get()) != MPC_OK ||
          !readScalar(forward.get(), "loss", batchLoss))
        return fail(mpc_last_error());
      if (b < fullBatches)
        lossSum += batchLoss;
      llvm::ArrayRef<int64_t> targets = evalBinder->rowTargets();
      if (haveLogits && static_cast<size_t>(logits.shape[0]) == targets.size()) {
        if (mpc_program_get_output(forward.get(), "logits", scores.data(),
                                   scores.size() * sizeof(float)) != MPC_OK)
          return fail(mpc_last_error());
        int64_t classes = logits.shape[1];
        for (size_t r = 0; r < targets.size(); ++r) {
          if (b * evalBatch + evalBinder->rowSlots()[r] >= evalCount)
            continue; // a filler example of the last batch
          const float *row = &scores[r * classes];
          correct += std::max_element(row, row + classes) - row == targets[r];
          ++counted;
        }
      }
    }
    evalLoss = lossSum / fullBatches;
    if (counted > 0)
      evalAccuracy = double(correct) / double(counted);
  }

  llvm::outs() << "trained " << steps << " steps in " << llvm::format("%.2f", seconds)
               << " s; last loss " << llvm::format("%.4f", loss);
  if (skippedSteps > 0)
    llvm::outs() << "; " << skippedSteps << " skipped (gradient overflow)";
  if (eval) {
    llvm::outs() << "; eval loss " << llvm::format("%.4f", evalLoss);
    if (!std::isnan(evalAccuracy))
      llvm::outs() << ", eval accuracy " << llvm::format("%.2f", 100 * evalAccuracy) << "%";
  }
  llvm::outs() << "\n";
  if (log) {
    *log << "{\"summary\": true, \"steps\": " << steps << ", \"train_seconds\": " << seconds
         << ", \"loss\": " << JsonNumber{loss};
    if (countsSkips)
      *log << ", \"skipped_steps\": " << skippedSteps;
    if (eval) {
      *log << ", \"eval_loss\": " << JsonNumber{evalLoss};
      if (!std::isnan(evalAccuracy))
        *log << ", \"eval_accuracy\": " << JsonNumber{evalAccuracy};
    }
    *log << "}\n";
  }
  return kExitOk;
}
