//===- Evaluation.cpp - `mpc train`'s evaluation of the trained step ------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/Evaluation.h"

#include "compiler/Driver/DataParallel.h"
#include "compiler/Driver/Driver.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

using namespace mpc::driver;

namespace {

/// The forward step's parameters and state take the trained values.
llvm::Error copyParameters(const mpc_program *trained, mpc_program *forward) {
  for (size_t i = 0, e = mpc_program_param_count(forward); i < e; ++i) {
    mpc_tensor_info info;
    mpc_program_param_info(forward, i, &info);
    if (info.flags & MPC_TENSOR_WORKING_COPY)
      continue; // follows its parameter
    std::vector<char> bytes(info.bytes);
    if (mpc_program_get_param(trained, info.name, bytes.data(), bytes.size()) != MPC_OK ||
        mpc_program_set_param(forward, info.name, bytes.data(), bytes.size()) != MPC_OK)
      return lastRuntimeError();
  }
  return llvm::Error::success();
}

/// The step's output "logits" when it is an f32 [rows, classes] tensor.
std::optional<mpc_tensor_info> logitsOf(const mpc_program *forward) {
  for (size_t i = 0, e = mpc_program_output_count(forward); i < e; ++i) {
    mpc_tensor_info info;
    mpc_program_output_info(forward, i, &info);
    if (std::string(info.name) == "logits" && std::string(info.dtype) == "f32" && info.rank == 2)
      return info;
  }
  return std::nullopt;
}

} // namespace

llvm::Expected<EvaluationResult> mpc::driver::evaluateTrainedStep(const mpc_program *trained,
                                                                  mpc_program *forward,
                                                                  mpc::BatchBinder &binder,
                                                                  mpc_job *job) {
  if (llvm::Error error = copyParameters(trained, forward))
    return std::move(error);
  int64_t batch = binder.batchSize(), count = binder.exampleCount();
  int64_t fullBatches = count / batch, batches = (count + batch - 1) / batch;
  if (fullBatches == 0)
    return llvm::createStringError("the evaluation data has fewer examples than one batch of " +
                                   std::to_string(batch));
  std::optional<mpc_tensor_info> logits = logitsOf(forward);
  std::vector<int64_t> indices(batches * batch);
  for (int64_t i = 0, e = indices.size(); i < e; ++i)
    indices[i] = i % count;
  std::vector<float> scores(logits ? logits->shape[0] * logits->shape[1] : 0);
  double lossSum = 0;
  int64_t correct = 0, counted = 0;
  // (in a job of several ranks, each evaluates every N-th batch)
  int64_t rank = job ? mpc_job_rank(job) : 0, ranks = job ? mpc_job_size(job) : 1;
  for (int64_t b = rank; b < batches; b += ranks) {
    if (llvm::Error error = binder.bind(forward, &indices[b * batch]))
      return std::move(error);
    float batchLoss;
    if (mpc_program_run(forward) != MPC_OK ||
        mpc_program_get_output(forward, "loss", &batchLoss, sizeof batchLoss) != MPC_OK)
      return lastRuntimeError();
    if (b < fullBatches)
      lossSum += batchLoss;
    llvm::ArrayRef<int64_t> targets = binder.rowTargets();
    if (!logits || static_cast<size_t>(logits->shape[0]) != targets.size())
      continue;
    if (mpc_program_get_output(forward, "logits", scores.data(),
                               scores.size() * sizeof(float)) != MPC_OK)
      return lastRuntimeError();
    int64_t classes = logits->shape[1];
    for (size_t r = 0; r < targets.size(); ++r) {
      if (b * batch + binder.rowSlots()[r] >= count)
        continue; // a filler example of the last batch
      const float *row = &scores[r * classes];
      correct += std::max_element(row, row + classes) - row == targets[r];
      ++counted;
    }
  }
  double sums[3] = {lossSum, static_cast<double>(correct), static_cast<double>(counted)};
  if (job)
    if (llvm::Error error = sumOverRanks(job, sums, 3))
      return std::move(error);
  lossSum = sums[0];
  correct = static_cast<int64_t>(sums[1]);
  counted = static_cast<int64_t>(sums[2]);
  EvaluationResult result;
  result.loss = lossSum / fullBatches;
  if (counted > 0)
    result.accuracy = double(correct) / double(counted);
  return result;
}
