//===- BatchBinder.cpp - examples of a dataset as a program's inputs ------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Data/BatchBinder.h"

#include <cstring>

using namespace mpc;

namespace {

llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

bool isInteger(const mpc_tensor_info &info) {
  std::string dtype = info.dtype;
  return dtype == "i32" || dtype == "i64";
}

int64_t elementCount(const mpc_tensor_info &info) {
  int64_t count = 1;
  for (size_t d = 0; d < info.rank; ++d)
    count *= info.shape[d];
  return count;
}

std::string shapeText(const mpc_tensor_info &info) {
  std::string text = "[";
  for (size_t d = 0; d < info.rank; ++d)
    text += (d ? ", " : "") + std::to_string(info.shape[d]);
  return text + "]";
}

/// Refuses a label (or target) outside the classes of the step's output
/// "logits" [rows, classes], when it has one: the loss would read past its
/// row (and be NaN). `values` holds `perExample` of them per example; `what`
/// names one ("label", "target").
llvm::Error checkClasses(const mpc_program *program, llvm::ArrayRef<int64_t> values,
                         int64_t perExample, llvm::StringRef what, llvm::StringRef dataName) {
  for (size_t i = 0; i < mpc_program_output_count(program); ++i) {
    mpc_tensor_info info{};
    if (mpc_program_output_info(program, i, &info) != MPC_OK ||
        std::string(info.name) != "logits" || info.rank != 2)
      continue;
    const int64_t classes = info.shape[1];
    for (size_t at = 0; at < values.size(); ++at)
      if (values[at] < 0 || values[at] >= classes)
        return failure(dataName + "'s example " + llvm::Twine(int64_t(at) / perExample) +
                       " (from 0) has " + what + " " + llvm::Twine(values[at]) +
                       ", outside the model's " + llvm::Twine(classes) +
                       " classes (its output \"logits\" is " + shapeText(info) + ")");
  }
  return llvm::Error::success();
}

/// Per-example elements of a batch-first input.
int64_t perExample(const mpc_tensor_info &info) {
  return info.rank == 0 || info.shape[0] == 0 ? 0 : elementCount(info) / info.shape[0];
}

std::vector<mpc_tensor_info> inputsOf(const mpc_program *program) {
  std::vector<mpc_tensor_info> inputs(mpc_program_input_count(program));
  for (size_t i = 0; i < inputs.size(); ++i)
    mpc_program_input_info(program, i, &inputs[i]);
  return inputs;
}

} // namespace

llvm::Expected<BatchBinder> BatchBinder::createForRegression(BatchBinder &binder,
                                                             llvm::ArrayRef<mpc_tensor_info> inputs,
                                                             const Dataset &data,
                                                             llvm::StringRef dataName) {
  std::string expected =
      (dataName +
       " holds features and f32 targets (a regression): the "
       "graph takes two f32 inputs, batch first, the features and "
       "the targets (named \"targets\", or told apart by their "
       "sizes: " +
       llvm::Twine(data.featureSize) + " features and " + llvm::Twine(data.targetSize) +
       " targets per example); for a classification, save the labels as "
       "i32 or i64")
          .str();
  if (inputs.size() != 2 || llvm::any_of(inputs, [](const mpc_tensor_info &info) {
        return std::string(info.dtype) != "f32" || info.rank < 1;
      }))
    return failure(expected);
  int targetsAt = -1;
  for (int i = 0; i < 2; ++i)
    if (std::string(inputs[i].name) == "targets")
      targetsAt = i;
  for (int i = 0; i < 2 && targetsAt < 0; ++i)
    if (perExample(inputs[i]) == data.targetSize && perExample(inputs[1 - i]) == data.featureSize &&
        perExample(inputs[1 - i]) != data.targetSize)
      targetsAt = i;
  if (targetsAt < 0)
    return failure(expected);
  binder.first = inputs[1 - targetsAt];
  binder.second = inputs[targetsAt];
  binder.batch = binder.first.shape[0];
  binder.featureSize = perExample(binder.first);
  if (binder.second.shape[0] != binder.batch)
    return failure("the targets input '" + llvm::Twine(binder.second.name) + "' " +
                   shapeText(binder.second) + " must have the features' batch of " +
                   llvm::Twine(binder.batch));
  if (binder.featureSize != data.featureSize || perExample(binder.second) != data.targetSize)
    return failure("the graph's inputs '" + llvm::Twine(binder.first.name) + "' " +
                   shapeText(binder.first) + " and '" + binder.second.name + "' " +
                   shapeText(binder.second) + " do not take " + dataName + "'s " +
                   llvm::Twine(data.featureSize) + " features and " + llvm::Twine(data.targetSize) +
                   " targets per example");
  return std::move(binder);
}

llvm::Expected<BatchBinder> BatchBinder::create(const mpc_program *program, const Dataset &data,
                                                llvm::StringRef dataName) {
  BatchBinder binder(data);
  std::vector<mpc_tensor_info> inputs = inputsOf(program);

  if (data.isText() || data.isSequences()) {
    const char *expected = data.isText()
                               ? "a step that reads text takes an integer input [B, T] (the "
                                 "characters) and an integer input \"targets\" of B*T elements "
                                 "([B, T], or [T*B] time-major)"
                               : "a step that reads sequences takes an integer input [B, T] "
                                 "(the tokens) and an integer input \"targets\" of B*T "
                                 "elements ([B, T], or [T*B] time-major)";
    bool haveChars = false, haveTargets = false;
    for (const mpc_tensor_info &info : inputs) {
      bool targets = std::string(info.name) == "targets";
      if (!isInteger(info) || (targets ? haveTargets : haveChars) || (!targets && info.rank != 2))
        return failure(llvm::Twine(expected) + "; input '" + info.name + "' " +
                       shapeText(info) + " " + info.dtype + " does not fit");
      (targets ? binder.second : binder.first) = info;
      (targets ? haveTargets : haveChars) = true;
    }
    if (!haveChars || !haveTargets)
      return failure(expected);
    binder.batch = binder.first.shape[0];
    binder.window = binder.first.shape[1];
    const mpc_tensor_info &targets = binder.second;
    bool batchMajor = targets.rank == 2 && targets.shape[0] == binder.batch &&
                      targets.shape[1] == binder.window;
    binder.timeMajor = targets.rank == 1 && targets.shape[0] == binder.batch * binder.window;
    if (!batchMajor && !binder.timeMajor)
      return failure("the targets input must be [" + llvm::Twine(binder.batch) + ", " +
                     llvm::Twine(binder.window) + "] or [" +
                     llvm::Twine(binder.batch * binder.window) + "] to match the " +
                     (data.isText() ? "characters " : "tokens ") + shapeText(binder.first) +
                     ", not " + shapeText(targets));
    if (data.isSequences() && data.sequenceLength != binder.window)
      return failure(dataName + " holds sequences of " + llvm::Twine(data.sequenceLength) +
                     " tokens, but the graph's input '" + binder.first.name + "' " +
                     shapeText(binder.first) + " takes " + llvm::Twine(binder.window));
    if (data.isSequences())
      if (llvm::Error error =
              checkClasses(program, data.tokenTargets, data.sequenceLength, "target", dataName))
        return std::move(error);
    return binder;
  }

  if (data.isRegression())
    return createForRegression(binder, inputs, data, dataName);
  const char *expected = "mpc train expects a graph with one f32 input (the features) and one "
                         "i32/i64 input (the labels), batch first";
  bool haveFeatures = false, haveLabels = false;
  for (const mpc_tensor_info &info : inputs)
    if (std::string(info.name) == "targets" && isInteger(info))
      return failure("the graph reads text (it has an integer input \"targets\"), but " +
                     dataName + " holds features and labels; give a TEXT.txt data spec");
  for (const mpc_tensor_info &info : inputs) {
    bool isFloat = std::string(info.dtype) == "f32";
    if (info.rank < 1 || (!isFloat && !isInteger(info)) ||
        (isFloat ? haveFeatures : haveLabels))
      return failure(llvm::Twine(expected) + "; input '" + info.name + "' does not fit");
    (isFloat ? binder.first : binder.second) = info;
    (isFloat ? haveFeatures : haveLabels) = true;
  }
  if (!haveFeatures || !haveLabels)
    return failure(expected);
  binder.batch = binder.first.shape[0];
  binder.featureSize = elementCount(binder.first) / std::max<int64_t>(binder.batch, 1);
  if (binder.second.rank != 1 || binder.second.shape[0] != binder.batch)
    return failure("the labels input '" + llvm::Twine(binder.second.name) + "' must be [" +
                   llvm::Twine(binder.batch) + "], one label per example of the batch");
  if (data.featureSize != binder.featureSize)
    return failure("the graph's input '" + llvm::Twine(binder.first.name) + "' holds " +
                   llvm::Twine(binder.featureSize) + " features per example, " + dataName +
                   " " + llvm::Twine(data.featureSize));
  if (llvm::Error error = checkClasses(program, data.labels, 1, "label", dataName))
    return std::move(error);
  return binder;
}

int64_t BatchBinder::exampleCount() const {
  return data->isText() ? (data->count - 1) / window : data->count;
}

llvm::Error BatchBinder::setIntegers(mpc_program *program, const mpc_tensor_info &input,
                                     llvm::ArrayRef<int64_t> values) {
  mpc_status_code status;
  if (std::string(input.dtype) == "i64") {
    status = mpc_program_set_input(program, input.name, values.data(),
                                   values.size() * sizeof(int64_t));
  } else {
    std::vector<int32_t> narrow(values.begin(), values.end());
    status = mpc_program_set_input(program, input.name, narrow.data(),
                                   narrow.size() * sizeof(int32_t));
  }
  return status == MPC_OK ? llvm::Error::success() : failure(mpc_last_error());
}

BatchBinder::PreparedBatch BatchBinder::prepare(const int64_t *indices) const {
  PreparedBatch prepared;
  if (data->isText() || data->isSequences()) {
    // Text: chars[b, t] = text[i_b*T + t], its target the next character.
    // Sequences: the tokens and targets of the example. A target goes to
    // [b, t] or, time-major, to t*B + b.
    prepared.integers.resize(batch * window);
    prepared.targets.assign(batch * window, 0);
    prepared.slots.assign(batch * window, 0);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t t = 0; t < window; ++t) {
        int64_t row = timeMajor ? t * batch + b : b * window + t;
        if (data->isText()) {
          const int32_t *text = &data->text[indices[b] * window];
          prepared.integers[b * window + t] = text[t];
          prepared.targets[row] = text[t + 1];
        } else {
          int64_t at = indices[b] * window + t;
          prepared.integers[b * window + t] = data->tokens[at];
          prepared.targets[row] = data->tokenTargets[at];
        }
        prepared.slots[row] = b;
      }
    return prepared;
  }
  prepared.features.resize(batch * featureSize);
  for (int64_t b = 0; b < batch; ++b)
    std::memcpy(&prepared.features[b * featureSize], data->featureRow(indices[b]),
                sizeof(float) * featureSize);
  if (data->isRegression()) {
    int64_t size = data->targetSize;
    prepared.floatTargets.resize(batch * size);
    for (int64_t b = 0; b < batch; ++b)
      std::memcpy(&prepared.floatTargets[b * size], &data->targets[indices[b] * size],
                  sizeof(float) * size);
    return prepared;
  }
  for (int64_t b = 0; b < batch; ++b) {
    prepared.targets.push_back(data->labels[indices[b]]);
    prepared.slots.push_back(b);
  }
  return prepared;
}

llvm::Error BatchBinder::set(mpc_program *program, PreparedBatch prepared) {
  targets = std::move(prepared.targets);
  slots = std::move(prepared.slots);
  if (data->isText() || data->isSequences()) {
    if (llvm::Error error = setIntegers(program, first, prepared.integers))
      return error;
    return setIntegers(program, second, targets);
  }
  auto setFloats = [&](const mpc_tensor_info &input, const std::vector<float> &values) {
    return mpc_program_set_input(program, input.name, values.data(),
                                 values.size() * sizeof(float)) == MPC_OK
               ? llvm::Error::success()
               : failure(mpc_last_error());
  };
  if (llvm::Error error = setFloats(first, prepared.features))
    return error;
  if (data->isRegression())
    return setFloats(second, prepared.floatTargets);
  return setIntegers(program, second, targets);
}

llvm::Error BatchBinder::bind(mpc_program *program, const int64_t *indices) {
  return set(program, prepare(indices));
}
