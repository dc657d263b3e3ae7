//===- RunLog.cpp - the JSONL log of a training run -----------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/RunLog.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace mpc::driver;

llvm::Expected<RunLog> mpc::driver::readRunLog(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return llvm::createStringError("cannot read log '" + path + "': " +
                                   buffer.getError().message());
  constexpr int kMaxLoggedExponent = 1100; // past f64's, -1074 to 1023
  RunLog log;
  log.name = llvm::sys::path::stem(path).str();
  llvm::SmallVector<llvm::StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  for (auto [index, line] : llvm::enumerate(lines)) {
    if (line.trim().empty())
      continue;
    std::string where = path + ":" + std::to_string(index + 1) + ": ";
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(line);
    if (!value)
      return llvm::createStringError(where + "not JSON: " + llvm::toString(value.takeError()) +
                                     " (mpc plot reads the logs of 'mpc train --log')");
    const llvm::json::Object *object = value->getAsObject();
    if (!object)
      return llvm::createStringError(where + "expected a JSON object per line");
    if (object->getBoolean("summary").value_or(false)) {
      log.evalAccuracy = object->getNumber("eval_accuracy").value_or(NAN);
      continue;
    }
    // (--eval-every's evaluations and --save-every's checkpoints)
    if (object->getBoolean("eval").value_or(false) || object->get("checkpoint"))
      continue;
    LoggedStep step;
    std::optional<int64_t> number = object->getInteger("step");
    // (null: a loss that was not finite, a diverged step)
    const llvm::json::Value *lossValue = object->get("loss");
    std::optional<double> loss = lossValue && lossValue->getAsNull() ? std::optional<double>(NAN)
                                                                     : object->getNumber("loss");
    if (!number || !loss)
      return llvm::createStringError(where + "a step's line needs \"step\" and \"loss\"");
    step.step = *number;
    step.loss = *loss;
    step.lossScale = object->getNumber("loss_scale").value_or(NAN);
    step.skipped = object->getBoolean("skipped").value_or(false);
    if (const llvm::json::Object *counts = object->getObject("grad_exponent_counts"))
      for (const auto &[key, count] : *counts) {
        int exponent = 0;
        if (llvm::StringRef(key).getAsInteger(10, exponent) || !count.getAsInteger())
          return llvm::createStringError(where + "grad_exponent_counts holds '" + key.str() +
                                         "', not an exponent and a count");
        // (binary exponents of floating-point values: a plot has a bar for
        // every exponent between the lowest and the highest)
        if (exponent < -kMaxLoggedExponent || exponent > kMaxLoggedExponent)
          return llvm::createStringError(
              where + "grad_exponent_counts holds exponent " + key.str() + ", outside [-" +
              std::to_string(kMaxLoggedExponent) + ", " + std::to_string(kMaxLoggedExponent) + "]");
        step.gradExponentCounts[exponent] = *count.getAsInteger();
      }
    log.steps.push_back(std::move(step));
  }
  if (log.steps.empty())
    return llvm::createStringError("log '" + path + "' has no steps");
  return log;
}
