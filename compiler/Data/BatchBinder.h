//===- BatchBinder.h - examples of a dataset as a program's inputs -*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Decides how a compiled step takes the examples of a dataset and sets its
// inputs one batch at a time:
//
// - Classification data (features and labels) goes to a step with one f32
//   input, batch first, whose per-example size is the data's feature count,
//   and one i32/i64 input [B] (the labels).
// - Regression data (features and f32 targets) goes to a step with two f32
//   inputs, batch first: the targets are the input named "targets", or else
//   the one whose per-example size is the targets' (and not the features').
// - Text goes to a step with an integer input [B, T] (the characters) and an
//   integer input named "targets" of B*T elements, each the character after
//   the one at the same place: either [B, T], or [T*B] time-major
//   (targets[t*B + b] follows chars[b, t]), the order in which an unrolled
//   recurrent network concatenates its time steps. An example of text is a
//   window of T characters; window i starts at character i*T, so windows do
//   not overlap and the last character only serves as a target.
// - Sequences (tokens and targets [N, T]) go to a step with the same two
//   inputs; the targets are the data's, position by position.
//
// After each bind, rowTargets() gives for every row of a [rows, classes]
// output ("logits") the class it should predict, and rowSlots() the batch
// slot the row belongs to, so that accuracy can be counted.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DATA_BATCHBINDER_H
#define MPC_COMPILER_DATA_BATCHBINDER_H

#include "compiler/Data/Dataset.h"

#include "mpc/runtime.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mpc {

class BatchBinder {
public:
  /// Matches `program`'s inputs with `data` (which must outlive the binder).
  /// `dataName` names the data in errors ("the data", "the evaluation data").
  static llvm::Expected<BatchBinder> create(const mpc_program *program, const Dataset &data,
                                            llvm::StringRef dataName);

  /// Examples per batch (the leading dimension of the step's inputs).
  int64_t batchSize() const { return batch; }
  /// Examples the data holds for this step: its examples, or its windows of
  /// text.
  int64_t exampleCount() const;

  /// The inputs of one batch, gathered from the data.
  struct PreparedBatch {
    std::vector<float> features, floatTargets;
    /// Characters or tokens (text and sequences).
    std::vector<int64_t> integers;
    /// The labels or integer targets, and each one's batch slot.
    std::vector<int64_t> targets, slots;
  };

  /// Gathers the inputs of examples indices[0], ..., indices[B - 1]. It
  /// only reads the data: another thread may prepare the next batch while
  /// this thread runs the step (BatchPrefetcher.h).
  PreparedBatch prepare(const int64_t *indices) const;

  /// Sets the step's inputs to a prepared batch.
  llvm::Error set(mpc_program *program, PreparedBatch batch);

  /// Sets the step's inputs to examples indices[0], ..., indices[B - 1].
  llvm::Error bind(mpc_program *program, const int64_t *indices);

  /// After bind(): the expected class and the batch slot of each output row.
  llvm::ArrayRef<int64_t> rowTargets() const { return targets; }
  llvm::ArrayRef<int64_t> rowSlots() const { return slots; }

private:
  BatchBinder(const Dataset &data) : data(&data) {}

  /// create() for regression data.
  static llvm::Expected<BatchBinder> createForRegression(BatchBinder &binder,
                                                         llvm::ArrayRef<mpc_tensor_info> inputs,
                                                         const Dataset &data,
                                                         llvm::StringRef dataName);

  llvm::Error setIntegers(mpc_program *program, const mpc_tensor_info &input,
                          llvm::ArrayRef<int64_t> values);

  const Dataset *data;
  mpc_tensor_info first{};  // features, or the characters of text
  mpc_tensor_info second{}; // labels, or the targets of text or regression
  int64_t batch = 0;
  int64_t featureSize = 0;  // classification and regression
  int64_t window = 0;       // text and sequences: T
  bool timeMajor = false;   // text and sequences: targets are [T*B]
  std::vector<int64_t> targets, slots;
};

} // namespace mpc

#endif // MPC_COMPILER_DATA_BATCHBINDER_H
