//===- TrainCommand.cpp - `mpc train` ----------------------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Compiles a graph into a training step and a forward step (or takes
// bundles), trains on a dataset for a number of steps (TrainingLoop.h),
// copies the trained parameters into the forward step and evaluates it
// (Evaluation.h). Logs one JSON object per step and a summary; shows
// progress on stderr. The command line: TrainOptions.h.
//
//===----------------------------------------------------------------------===//

#include "compiler/Compile/Compile.h"
#include "compiler/Data/BatchBinder.h"
#include "compiler/Data/Dataset.h"
#include "compiler/Driver/DataParallel.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Driver/Evaluation.h"
#include "compiler/Driver/ImportOptions.h"
#include "compiler/Driver/StepTelemetry.h"

#include "compiler/Driver/TrainOptions.h"
#include "compiler/Driver/TrainingLoop.h"
#include "mpc/format/Safetensors.h"

#include "mpc/runtime.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <memory>
#include <optional>

using namespace mpc::driver;

namespace {

int fail(const std::string &message) {
  reportError(message);
  return kExitError;
}

int fail(llvm::Error error) { return fail(llvm::toString(std::move(error))); }

/// The value of the i64 state `name` of `program`, if it has one.
std::optional<int64_t> readCounter(mpc_program *program, const char *name) {
  int64_t value = 0;
  if (mpc_program_get_param(program, name, &value, sizeof value) != MPC_OK)
    return std::nullopt;
  return value;
}

/// Loads --init into the training step and reads how many runs make a step
/// (options.runsPerStep): a checkpoint must have been written at the end of
/// a step, by a program that accumulates as many runs.
llvm::Error loadInitialState(mpc_program *program, const std::string &bundle,
                             TrainOptions &options) {
  std::optional<int64_t> runs = readCounter(program, "grad_accum.runs");
  if (runs && *runs < 1)
    return llvm::createStringError("'" + bundle + "': grad_accum.runs is " + std::to_string(*runs) +
                                   "; it must be 1 or more");
  options.runsPerStep = runs ? static_cast<uint64_t>(*runs) : 1;
  if (options.initPath.empty())
    return llvm::Error::success();
  // A file without the step counter holds weights only (mpc import's, or
  // a model's parameters): the optimizer starts from them at step 0.
  std::map<std::string, mpc::rt::HostTensor> tensors;
  if (mpc::rt::Status status = mpc::rt::readSafetensors(options.initPath, tensors, nullptr);
      !status.isOk())
    return llvm::createStringError(status.message());
  if (!tensors.count("optimizer.step")) {
    mpc::ModelWeights weights;
    for (auto &[name, tensor] : tensors)
      weights.add(name, std::move(tensor));
    return setWeights(program, weights, "weights file '" + options.initPath + "'");
  }
  if (mpc_program_load_params(program, options.initPath.c_str()) != MPC_OK)
    return llvm::createStringError(mpc_last_error());
  std::string from = "checkpoint '" + options.initPath + "'";
  if (std::optional<int64_t> loaded = readCounter(program, "grad_accum.runs");
      loaded && loaded != runs)
    return llvm::createStringError(from + " accumulates the gradients of " +
                                   std::to_string(*loaded) + " runs per step, this training step " +
                                   std::to_string(*runs) + "; train with --accumulate " +
                                   std::to_string(*loaded) + " to resume it");
  if (std::optional<int64_t> micro = readCounter(program, "grad_accum.micro"); micro && *micro)
    return llvm::createStringError(from + " was written after run " + std::to_string(*micro) +
                                   " of " + std::to_string(*runs) +
                                   " of a step (grad_accum.micro), not at the end of one: resume "
                                   "from a checkpoint that mpc train wrote");
  return llvm::Error::success();
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

/// The training data and the evaluation data (--eval, or --holdout examples
/// drawn out of the training data), if any.
llvm::Error loadData(const TrainOptions &options, mpc::Dataset &train,
                     std::optional<mpc::Dataset> &eval) {
  llvm::Expected<mpc::Dataset> loaded = mpc::loadDataset(options.dataSpec);
  if (!loaded)
    return loaded.takeError();
  train = std::move(*loaded);
  if (options.holdout > 0) {
    if (train.isText())
      return llvm::createStringError(
          "--holdout draws examples of classification data; for text, give --eval "
          "TEXT.txt@START:END with a range of characters kept out of --data");
    if (options.holdout >= train.count)
      return llvm::createStringError("--holdout " + std::to_string(options.holdout) +
                                     " leaves no training data: the data has " +
                                     std::to_string(train.count) + " examples");
    eval = mpc::holdOut(train, options.holdout, options.seed ^ 0x243F6A8885A308D3ull);
  }
  if (!options.evalSpec.empty()) {
    llvm::Expected<mpc::Dataset> evalData = mpc::loadDataset(options.evalSpec);
    if (!evalData)
      return evalData.takeError();
    eval = std::move(*evalData);
  }
  return llvm::Error::success();
}

/// The bundles of the training and forward steps: those given, or the
/// graph compiled into `dir`. Returns an exit code on failure.
std::optional<int> prepareBundles(const TrainOptions &options, bool evaluate, llvm::StringRef dir,
                                  std::string &trainBundle, std::string &forwardBundle,
                                  mpc::ModelWeights &weights) {
  if (options.givenBundle) {
    trainBundle = options.source;
    forwardBundle = options.forwardBundle;
    if (evaluate && forwardBundle.empty())
      return fail("evaluating a bundle's training needs its forward step: add --forward "
                  "FORWARD.mpcb (from 'mpc compile GRAPH --step forward')");
    return std::nullopt;
  }
  trainBundle = (dir + "/train.mpcb").str();
  forwardBundle = (dir + "/forward.mpcb").str();
  // The forward step (evaluation) in the same precision, without the
  // training step's loss scaling and gradient statistics.
  mpc::CompileOptions forward;
  forward.precision.mode = options.compile.precision.mode;
  forward.precision.workingCopies = options.compile.precision.workingCopies;
  forward.precision.fuseAttention = options.compile.precision.fuseAttention;
  forward.precision.keepFp32 = options.compile.precision.keepFp32;
  forward.graphName = options.compile.graphName;
  forward.targets.host = options.compile.targets.host;
  if (int code =
          compileGraphFile(options.source, options.compile, trainBundle, &options.onnx, &weights))
    return code;
  if (evaluate)
    if (int code = compileGraphFile(options.source, forward, forwardBundle, &options.onnx))
      return code;
  return std::nullopt;
}

/// The line on stdout and in the log of an evaluation during training (on
/// rank 0 only).
void reportEvaluation(uint64_t step, const EvaluationResult &evaluated, llvm::raw_ostream *log,
                      const TrainOptions &options) {
  if (options.rank != 0)
    return;
  llvm::outs() << "step " << step << ": eval loss " << llvm::format("%.4f", evaluated.loss);
  if (!std::isnan(evaluated.accuracy))
    llvm::outs() << ", eval accuracy " << llvm::format("%.2f", 100 * evaluated.accuracy) << "%";
  llvm::outs() << "\n";
  llvm::outs().flush();
  if (!log)
    return;
  *log << "{\"eval\": true, \"step\": " << step
       << ", \"eval_loss\": " << JsonNumber{evaluated.loss};
  if (!std::isnan(evaluated.accuracy))
    *log << ", \"eval_accuracy\": " << JsonNumber{evaluated.accuracy};
  *log << "}\n";
}

/// The line on stdout and the log's summary object.
void reportSummary(const TrainOptions &options, const TrainingResult &trained,
                   const std::optional<EvaluationResult> &evaluated, llvm::raw_ostream *log) {
  if (options.rank != 0)
    return;
  llvm::outs() << "trained " << options.steps << " steps in "
               << llvm::format("%.2f", trained.seconds) << " s";
  if (options.ranks > 1)
    llvm::outs() << " on " << options.ranks
                 << " ranks (parameters and state bitwise the same on every rank)";
  llvm::outs() << "; last loss " << llvm::format("%.4f", trained.loss);
  if (trained.skippedSteps > 0)
    llvm::outs() << "; " << trained.skippedSteps << " skipped (gradient overflow)";
  if (evaluated) {
    llvm::outs() << "; eval loss " << llvm::format("%.4f", evaluated->loss);
    if (!std::isnan(evaluated->accuracy))
      llvm::outs() << ", eval accuracy " << llvm::format("%.2f", 100 * evaluated->accuracy)
                   << "%";
  }
  llvm::outs() << "\n";
  if (!log)
    return;
  *log << "{\"summary\": true, \"steps\": " << options.steps
       << ", \"train_seconds\": " << trained.seconds << ", \"loss\": " << JsonNumber{trained.loss};
  if (trained.countsSkips)
    *log << ", \"skipped_steps\": " << trained.skippedSteps;
  if (evaluated) {
    *log << ", \"eval_loss\": " << JsonNumber{evaluated->loss};
    if (!std::isnan(evaluated->accuracy))
      *log << ", \"eval_accuracy\": " << JsonNumber{evaluated->accuracy};
  }
  *log << "}\n";
}

} // namespace

/// mpc train in this process, one rank of its job (`job`, once joined).
static int trainAsRank(llvm::ArrayRef<std::string> args, JobHandle &job) {
  TrainOptions options;
  if (std::optional<int> code = parseTrainOptions(args, options))
    return *code;
  // One rank of a data-parallel job (mpirun -np N): the graph's step
  // all-reduces its gradients.
  options.ranks = mpc_job_launched_size();
  if (options.ranks > 1) {
    if (options.checkNumerics)
      return fail("--check-numerics replays a step in one process; run it without mpirun");
    options.compile.precision.dataParallel = true;
  }
  mpc::Dataset train;
  std::optional<mpc::Dataset> eval;
  if (llvm::Error error = loadData(options, train, eval))
    return fail(std::move(error));

  // Compile both steps into a private temporary folder, unless given bundles.
  llvm::SmallString<128> dir;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("mpc-train", dir))
    return fail("cannot create a temporary directory: " + ec.message());
  auto cleanup = llvm::make_scope_exit([&] { llvm::sys::fs::remove_directories(dir); });
  std::string trainBundle, forwardBundle;
  // (an .onnx model's initializers: the parameters' first values)
  mpc::ModelWeights weights;
  if (std::optional<int> code =
          prepareBundles(options, eval.has_value(), dir, trainBundle, forwardBundle, weights))
    return *code;

  // (joined after compiling: the host compiler runs before MPI starts)
  llvm::Expected<JobHandle> joined = openJob();
  if (!joined)
    return fail(joined.takeError());
  job = std::move(*joined);
  options.rank = mpc_job_rank(job.get());
  if (options.rank != 0)
    options.progress = false; // (rank 0 prints, logs and saves)
  ProgramHandle program = loadProgram(trainBundle, options.device, options.seed);
  if (!program)
    return kExitError;
  if (!isTrainingStep(program.get()))
    return fail("'" + trainBundle + "' is not a training step (it has no optimizer.step); "
                "compile it with 'mpc compile GRAPH --step train'");
  if (!weights.empty() && options.initPath.empty())
    if (llvm::Error error = setWeights(program.get(), weights, "model '" + options.source + "'"))
      return fail(std::move(error));
  if (llvm::Error error = loadInitialState(program.get(), trainBundle, options))
    return fail(std::move(error));
  if (llvm::Error error = broadcastParameters(job.get(), program.get()))
    return fail(std::move(error));
  llvm::Expected<mpc::BatchBinder> binder =
      mpc::BatchBinder::create(program.get(), train, "the data");
  if (!binder)
    return fail(binder.takeError());
  if (binder->exampleCount() < binder->batchSize())
    return fail("the data has " + std::to_string(binder->exampleCount()) +
                (train.isText() ? " windows of text" : " examples") +
                ", fewer than one batch of " + std::to_string(binder->batchSize()));
  uint64_t batchesPerStep = options.runsPerStep * static_cast<uint64_t>(options.ranks);
  if (static_cast<uint64_t>(binder->exampleCount() / binder->batchSize()) < batchesPerStep)
    return fail("the data has " + std::to_string(binder->exampleCount()) +
                (train.isText() ? " windows of text" : " examples") + ", fewer than one step of " +
                std::to_string(batchesPerStep) + " batches of " +
                std::to_string(binder->batchSize()) + " (--accumulate " +
                std::to_string(options.runsPerStep) +
                (options.ranks > 1 ? ", " + std::to_string(options.ranks) + " ranks)" : ")"));

  // The forward step for evaluation, checked against the evaluation data
  // before training starts.
  ProgramHandle forward(nullptr, mpc_program_release);
  std::optional<mpc::BatchBinder> evalBinder;
  if (eval) {
    forward = loadProgram(forwardBundle, options.device, options.seed);
    if (!forward)
      return kExitError;
    if (isTrainingStep(forward.get()))
      return fail("'" + forwardBundle + "' is a training step; evaluation needs the forward "
                  "step ('mpc compile GRAPH --step forward')");
    llvm::Expected<mpc::BatchBinder> created =
        mpc::BatchBinder::create(forward.get(), *eval, "the evaluation data");
    if (!created)
      return fail(created.takeError());
    evalBinder.emplace(std::move(*created));
  }

  llvm::Expected<StepTelemetry> telemetry = StepTelemetry::create(program.get());
  if (!telemetry)
    return fail(telemetry.takeError());
  std::unique_ptr<llvm::raw_fd_ostream> log;
  if (!options.logPath.empty() && options.rank == 0) {
    std::error_code ec;
    log = std::make_unique<llvm::raw_fd_ostream>(options.logPath, ec);
    if (ec)
      return fail("cannot write log '" + options.logPath + "': " + ec.message());
  }

  PeriodicEvaluation evaluate;
  if (options.evalEvery > 0)
    evaluate = [&](uint64_t step) -> llvm::Error {
      llvm::Expected<EvaluationResult> result =
          evaluateTrainedStep(program.get(), forward.get(), *evalBinder, job.get());
      if (!result)
        return result.takeError();
      reportEvaluation(step, *result, log.get(), options);
      return llvm::Error::success();
    };
  std::unique_ptr<NumericsCheck> numerics;
  if (options.checkNumerics) {
    llvm::Expected<std::unique_ptr<NumericsCheck>> created =
        NumericsCheck::create(options, dir, train);
    if (!created)
      return fail(created.takeError());
    numerics = std::move(*created);
  }
  llvm::Expected<TrainingResult> trained = runTrainingSteps(
      program.get(), *binder, *telemetry, log.get(), options, job.get(), evaluate, numerics.get());
  if (!trained)
    return fail(trained.takeError());
  if (llvm::Error error = checkRanksAgree(job.get(), program.get(), trained->lastStep))
    return fail(std::move(error));
  if (!options.savePath.empty() && options.rank == 0 &&
      mpc_program_save_params(program.get(), options.savePath.c_str()) != MPC_OK)
    return fail(mpc_last_error());
  std::optional<EvaluationResult> evaluated;
  if (eval) {
    llvm::Expected<EvaluationResult> result =
        evaluateTrainedStep(program.get(), forward.get(), *evalBinder, job.get());
    if (!result)
      return fail(result.takeError());
    evaluated = *result;
  }
  reportSummary(options, *trained, evaluated, log.get());
  return kExitOk;
}

int mpc::driver::runTrainCommand(llvm::ArrayRef<std::string> args) {
  JobHandle job(nullptr, mpc_job_release);
  int code = trainAsRank(args, job);
  // A rank that fails alone (its data, its checkpoint, its GPU) ends the
  // job: the other ranks would wait for it in their next collective.
  if (code != kExitOk && job && mpc_job_size(job.get()) > 1) {
    llvm::errs().flush();
    llvm::outs().flush();
    mpc_job_abort(job.get(), code);
  }
  return code;
}
