//===- TrainingLoop.cpp - the steps of `mpc train` ------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/TrainingLoop.h"

#include "compiler/Data/BatchPrefetcher.h"
#include "compiler/Driver/DataParallel.h"
#include "compiler/Driver/Driver.h"

#include "mpc/format/Json.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Process.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

using namespace mpc::driver;

namespace {

using Clock = std::chrono::steady_clock;

/// The state of one run of the loop.
class TrainingLoop {
public:
  TrainingLoop(mpc_program *program, mpc::BatchBinder &binder, const StepTelemetry &telemetry,
               llvm::raw_ostream *log, const TrainOptions &options, mpc_job *job,
               const PeriodicEvaluation &evaluate, NumericsCheck *numerics)
      : program(program), binder(binder), telemetry(telemetry), log(log), options(options),
        job(job), evaluate(evaluate), numerics(numerics),
        terminal(llvm::sys::Process::StandardErrIsDisplayed()) {}

  llvm::Expected<TrainingResult> run();

private:
  llvm::Error readCounters();
  std::vector<int64_t> examplesOf(int64_t index);
  llvm::Error runBatch(mpc::BatchPrefetcher &prefetcher, int64_t index, int64_t lastIndex);
  llvm::Error handleCompleted(bool wait);
  llvm::Error checkLossScaleFloor(uint64_t step, const StepValues &values);
  llvm::Error runPeriodicWork(uint64_t step, uint64_t last);
  llvm::Error saveCheckpoint(uint64_t step);
  void drawProgress(uint64_t step, Clock::time_point now);

  mpc_program *program;
  mpc::BatchBinder &binder;
  const StepTelemetry &telemetry;
  llvm::raw_ostream *log;
  const TrainOptions &options;
  mpc_job *job;
  const PeriodicEvaluation &evaluate;
  NumericsCheck *numerics;
  const bool terminal;

  /// Steps taken before this run (the optimizer's counter plus the steps
  /// loss scaling skipped), and the program's runs before it.
  int64_t done = 0;
  uint64_t runsBefore = 0;
  /// Runs of the program (micro-batches, options.runsPerStep a step) whose
  /// telemetry has been handled, and the sum of the losses of the current
  /// step's runs so far.
  uint64_t logged = 0;
  double stepLossSum = 0;
  /// The batch order of the latest epoch asked for, and the examples of the
  /// batch the prefetcher prepares.
  std::vector<int64_t> order, current;
  int64_t epoch = -1;
  Clock::time_point start, lastCompletion, lastDraw;
  TrainingResult result;
  /// Consecutive skipped steps at one loss scale, and the last step's scale.
  uint64_t stepsAtOneScale = 0;
  double lastScale = NAN;
  /// The periodic checkpoints this run wrote, oldest first.
  std::vector<std::string> checkpoints;
};

/// Where training stands: the optimizer's step counter (0, or the count of
/// the checkpoint given with --init), plus the steps loss scaling skipped
/// (they did not advance the optimizer).
llvm::Error TrainingLoop::readCounters() {
  int64_t skippedBefore = 0;
  if (mpc_program_get_param(program, "optimizer.step", &done, sizeof done) != MPC_OK)
    return lastRuntimeError();
  result.countsSkips = mpc_program_get_param(program, "loss_scale.skipped_steps",
                                             &skippedBefore, sizeof skippedBefore) == MPC_OK;
  // (a checkpoint's counters come from a file: negative ones, or ones whose
  // sum with the steps to run overflows, would index the data out of range)
  std::string from =
      options.initPath.empty() ? "the program" : "checkpoint '" + options.initPath + "'";
  if (done < 0 || skippedBefore < 0)
    return llvm::createStringError(
        from + ": " +
        (done < 0 ? "optimizer.step is " + std::to_string(done)
                  : "loss_scale.skipped_steps is " + std::to_string(skippedBefore)) +
        "; a step counter must be 0 or more");
  if (skippedBefore > INT64_MAX - done ||
      options.steps > static_cast<uint64_t>(INT64_MAX - (done + skippedBefore)))
    return llvm::createStringError(
        from + ": its step counters (optimizer.step " + std::to_string(done) +
        ", loss_scale.skipped_steps " + std::to_string(skippedBefore) + ") plus " +
        std::to_string(options.steps) + " steps overflow a 64-bit step count");
  done += skippedBefore;
  uint64_t runs = options.runsPerStep;
  if (static_cast<uint64_t>(done) + options.steps > static_cast<uint64_t>(INT64_MAX) / runs)
    return llvm::createStringError(
        from + ": " + std::to_string(done) + " steps done plus " + std::to_string(options.steps) +
        " to run, " + std::to_string(runs) + " runs each, overflow a 64-bit batch count");
  mpc_program_run_count(program, &runsBefore);
  return llvm::Error::success();
}

/// This rank's examples of batch `index` (counted from 0 over the whole
/// training; a step takes options.runsPerStep of them). An epoch is the
/// whole steps that fit the data, so that N runs of batch B take the
/// examples that a batch of N*B would, epoch after epoch. A batch of a job
/// of R ranks is R*B examples, rank r's the r-th B of them, so that R ranks
/// of batch B take the examples that one process of batch R*B would.
std::vector<int64_t> TrainingLoop::examplesOf(int64_t index) {
  int64_t batch = binder.batchSize(), ranks = options.ranks;
  int64_t runs = static_cast<int64_t>(options.runsPerStep);
  int64_t batchesPerEpoch = binder.exampleCount() / (batch * ranks * runs) * runs;
  if (index / batchesPerEpoch != epoch) {
    epoch = index / batchesPerEpoch;
    order.resize(binder.exampleCount());
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(options.seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(epoch));
    if (options.shuffle)
      std::shuffle(order.begin(), order.end(), rng);
  }
  int64_t first = (index % batchesPerEpoch * ranks + options.rank) * batch;
  return std::vector<int64_t>(order.begin() + first, order.begin() + first + batch);
}

/// Runs the step on batch `index`, which `prefetcher` was asked for, after
/// asking it for the next one (up to `lastIndex`).
llvm::Error TrainingLoop::runBatch(mpc::BatchPrefetcher &prefetcher, int64_t index,
                                   int64_t lastIndex) {
  std::vector<int64_t> examples = current;
  mpc::BatchBinder::PreparedBatch batch = prefetcher.take();
  if (index < lastIndex) {
    current = examplesOf(index + 1);
    prefetcher.request(current);
  }
  if (numerics)
    if (llvm::Error failure = numerics->keepStart(program, examples.data()))
      return failure;
  if (llvm::Error failure = binder.set(program, std::move(batch)))
    return failure;
  if (mpc_program_run(program) != MPC_OK)
    return lastRuntimeError();
  return llvm::Error::success();
}

/// Logs the steps that have completed (all of them with `wait`).
llvm::Error TrainingLoop::handleCompleted(bool wait) {
  if (wait && mpc_program_synchronize(program) != MPC_OK)
    return lastRuntimeError();
  uint64_t completed = 0;
  if (mpc_program_completed_runs(program, &completed) != MPC_OK)
    return lastRuntimeError();
  for (; runsBefore + logged < completed; ++logged) {
    StepValues values;
    if (llvm::Error failure = telemetry.read(program, runsBefore + logged, values))
      return failure;
    if (numerics && !std::isfinite(values.loss)) {
      // (the failing run's line, as a run without the check logs it)
      uint64_t step = done + 1 + logged / options.runsPerStep;
      if (log)
        telemetry.writeLogLine(*log, step, values, 0);
      return numerics->diagnose(step, values.loss);
    }
    // A step is logged at its last run, with the mean loss of its runs and
    // that run's other values (the update's).
    stepLossSum += values.loss;
    if ((logged + 1) % options.runsPerStep != 0)
      continue;
    values.loss = stepLossSum / static_cast<double>(options.runsPerStep);
    stepLossSum = 0;
    Clock::time_point now = Clock::now();
    double ms = std::chrono::duration<double, std::milli>(now - lastCompletion).count();
    lastCompletion = now;
    uint64_t step = done + 1 + logged / options.runsPerStep;
    result.loss = values.loss;
    result.skippedSteps += values.skipped;
    if (log)
      telemetry.writeLogLine(*log, step, values, ms);
    if (!std::isfinite(result.loss))
      return llvm::createStringError(
          "the loss is not finite at step " + std::to_string(step) +
          "; lower the learning rate, or check the data (in a graph without an "
          "output \"logits\", a label outside the model's classes makes the loss NaN); "
          "--check-numerics finds the op whose value first is not finite");
    if (llvm::Error failure = checkLossScaleFloor(step, values))
      return failure;
    drawProgress(step, now);
  }
  return llvm::Error::success();
}

/// Stops a run that no longer trains: every step skipped (a gradient
/// overflowing) while the loss scale stays where it is, at its floor or a
/// static scale.
llvm::Error TrainingLoop::checkLossScaleFloor(uint64_t step, const StepValues &values) {
  bool sameScale = values.lossScale == lastScale;
  lastScale = values.lossScale;
  // (the first skipped step at a scale counts: K skipped steps stop the run)
  stepsAtOneScale = !values.skipped ? 0 : sameScale ? stepsAtOneScale + 1 : 1;
  if (options.maxFloorSteps == 0 || stepsAtOneScale < options.maxFloorSteps)
    return llvm::Error::success();
  char scale[32];
  std::snprintf(scale, sizeof scale, "%g", values.lossScale);
  return llvm::createStringError(
      "steps " + std::to_string(step + 1 - stepsAtOneScale) + " to " + std::to_string(step) +
      " were all skipped, a gradient overflowing each time, and the loss scale stayed at " + scale +
      ": training has stopped making progress. Lower the learning rate, check the data, or "
      "train in bf16 (--precision bf16); --max-floor-steps 0 lets such a run go on");
}

/// Every --save-every steps a checkpoint; every --eval-every steps (but the
/// last, which the final evaluation covers) an evaluation. Both wait for
/// the step first.
llvm::Error TrainingLoop::runPeriodicWork(uint64_t step, uint64_t last) {
  bool save = options.saveEvery > 0 && step % options.saveEvery == 0;
  bool eval = options.evalEvery > 0 && step % options.evalEvery == 0 && step < last && evaluate;
  if (!save && !eval)
    return llvm::Error::success();
  if (llvm::Error failure = handleCompleted(/*wait=*/true))
    return failure;
  if (save) {
    if (llvm::Error failure = checkRanksAgree(job, program, step))
      return failure;
    if (options.rank == 0)
      if (llvm::Error failure = saveCheckpoint(step))
        return failure;
  }
  if (eval)
    return evaluate(step);
  return llvm::Error::success();
}

/// Writes the checkpoint of `step` (atomically: the runtime writes a
/// temporary file and renames it), then deletes this run's oldest ones
/// past --keep-checkpoints.
llvm::Error TrainingLoop::saveCheckpoint(uint64_t step) {
  std::string path = periodicCheckpointPath(options.savePath, step);
  if (mpc_program_save_params(program, path.c_str()) != MPC_OK)
    return lastRuntimeError();
  if (log)
    *log << "{\"checkpoint\": " << mpc::rt::quoteJson(path) << ", \"step\": " << step << "}\n";
  checkpoints.push_back(path);
  // (one already gone is fine; one that cannot be deleted costs disk, not
  // the run)
  while (checkpoints.size() > options.keepCheckpoints) {
    if (std::error_code ec = llvm::sys::fs::remove(checkpoints.front()))
      llvm::errs() << "mpc: warning: cannot delete the old checkpoint '" << checkpoints.front()
                   << "': " << ec.message() << "\n";
    checkpoints.erase(checkpoints.begin());
  }
  return llvm::Error::success();
}

/// The progress line: on a terminal a bar redrawn at most ten times a
/// second; elsewhere a line every tenth of the run.
void TrainingLoop::drawProgress(uint64_t step, Clock::time_point now) {
  uint64_t taken = step - done, last = done + options.steps;
  bool draw = terminal ? now - lastDraw >= std::chrono::milliseconds(100) || step == last
                       : taken % std::max<uint64_t>(1, options.steps / 10) == 0 || step == last;
  if (!options.progress || !draw)
    return;
  lastDraw = now;
  double elapsed = std::chrono::duration<double>(now - start).count();
  double rate = taken / std::max(elapsed, 1e-9);
  if (terminal) {
    constexpr int kCells = 24;
    int filled = static_cast<int>(kCells * taken / std::max<uint64_t>(options.steps, 1));
    llvm::errs() << "\r[" << std::string(filled, '#') << std::string(kCells - filled, '.')
                 << "] ";
  }
  llvm::errs() << "step " << step << "/" << last << "  loss "
               << llvm::format("%.4f", result.loss) << "  " << llvm::format("%.0f", rate)
               << " steps/s  ETA " << llvm::format("%.0f", (last - step) / rate) << "s"
               << (terminal && step < last ? "  " : "\n");
}

llvm::Expected<TrainingResult> TrainingLoop::run() {
  if (llvm::Error failure = readCounters())
    return std::move(failure);
  start = lastCompletion = Clock::now();
  lastDraw = start - std::chrono::seconds(1);
  int64_t runs = static_cast<int64_t>(options.runsPerStep);
  uint64_t last = done + options.steps;
  int64_t lastIndex = static_cast<int64_t>(last) * runs - 1;
  mpc::BatchPrefetcher prefetcher(
      [&](const std::vector<int64_t> &examples) { return binder.prepare(examples.data()); });
  current = examplesOf(static_cast<int64_t>(done) * runs);
  prefetcher.request(current);
  for (uint64_t step = done + 1; step <= last; ++step) {
    for (int64_t run = 0; run < runs; ++run) {
      if (llvm::Error failure =
              runBatch(prefetcher, (static_cast<int64_t>(step) - 1) * runs + run, lastIndex))
        return std::move(failure);
      // (each run: a step's runs may outnumber the telemetry the runtime
      // keeps; the numerics check diagnoses a run before the next changes
      // the parameters)
      if (llvm::Error failure = handleCompleted(/*wait=*/numerics != nullptr))
        return std::move(failure);
    }
    if (llvm::Error failure = runPeriodicWork(step, last))
      return std::move(failure);
    // (in a job of several ranks, once early: a step that does not reduce
    // its gradients is found at its first step, not at the end of the run)
    if (step == static_cast<uint64_t>(done) + 1 && options.ranks > 1) {
      if (llvm::Error failure = handleCompleted(/*wait=*/true))
        return std::move(failure);
      if (llvm::Error failure = checkRanksAgree(job, program, step))
        return std::move(failure);
    }
  }
  if (llvm::Error failure = handleCompleted(/*wait=*/true))
    return std::move(failure);
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.lastStep = last;
  return result;
}

} // namespace

llvm::Expected<TrainingResult>
mpc::driver::runTrainingSteps(mpc_program *program, mpc::BatchBinder &binder,
                              const StepTelemetry &telemetry, llvm::raw_ostream *log,
                              const TrainOptions &options, mpc_job *job,
                              const PeriodicEvaluation &evaluate, NumericsCheck *numerics) {
  return TrainingLoop(program, binder, telemetry, log, options, job, evaluate, numerics).run();
}
