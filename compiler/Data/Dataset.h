//===- Dataset.h - labelled data for `mpc train` ----------------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Reads real datasets into memory as float features and integer labels. A
// data spec names the files and, optionally, a range of examples:
//
//   PATH.csv[.gz][@START:END]        one example per line: features, then an
//                                     integer label (the digits set)
//   IMAGES-idx3-ubyte[.gz],LABELS-idx1-ubyte[.gz][@START:END]
//                                     IDX files (Fashion-MNIST)
//   FEATURES.npy,LABELS.npy[@START:END]
//                                     f32 features [N, ...] and integer labels
//                                     [N]; or f32 features and f32 targets
//                                     [N, ...] (regression, for mse_loss); or
//                                     integer tokens [N, T] and integer
//                                     targets [N, T] (a sequence task: a
//                                     target per position)
//   TEXT.txt[.gz][@START:END]         plain text for a character language
//                                     model; the range counts characters
//
// Normalisation: CSV features are divided by the largest absolute value in
// the file (digits: 16), IDX pixels by 255, .npy features are used as they
// are. The f32 features of a .npy file are memory-mapped, not copied (a
// hold-out copies the examples, and loading reads them once to refuse NaN
// and infinity); the file must not change while mpc reads it. Text is read
// as printable ASCII and newlines, one id per character (see
// textCharacterId); a tab reads as a space, a carriage return is dropped,
// and any other byte is an error that names its line and column.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DATA_DATASET_H
#define MPC_COMPILER_DATA_DATASET_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mpc {

/// Classification data (features and a label per example), regression data
/// (features and float targets per example), sequences (a token and a
/// target per position of each example), or text (one character id per
/// element; `count` is the number of characters).
struct Dataset {
  /// The features, count x featureSize row-major: in `features`, or, read
  /// from a .npy file, at `mappedFeatures` inside the mapped `featureFile`.
  std::vector<float> features;
  std::shared_ptr<llvm::MemoryBuffer> featureFile;
  const float *mappedFeatures = nullptr;
  std::vector<int64_t> labels; // count
  /// Regression targets, count x targetSize row-major (labels is empty).
  std::vector<float> targets;
  int64_t targetSize = 0;
  std::vector<int32_t> text;   // count character ids, for text data
  std::vector<int64_t> tokens, tokenTargets; // count x sequenceLength, for sequences
  int64_t count = 0;
  int64_t featureSize = 0;
  int64_t sequenceLength = 0;

  bool isText() const { return !text.empty(); }
  bool isSequences() const { return sequenceLength > 0; }
  bool isRegression() const { return targetSize > 0; }
  /// The featureSize features of example `i`.
  const float *featureRow(int64_t i) const {
    return (mappedFeatures ? mappedFeatures : features.data()) + i * featureSize;
  }
};

/// The character vocabulary of text data: newline is 0, the printable ASCII
/// characters ' ' (32) to '~' (126) are 1 to 95.
constexpr int kTextVocabularySize = 96;
/// The id of `c`, or -1 when it is outside the vocabulary.
inline int textCharacterId(unsigned char c) {
  if (c == '\n')
    return 0;
  return c >= 32 && c <= 126 ? c - 31 : -1;
}
/// The character of id `id` (0 <= id < kTextVocabularySize).
inline char textCharacter(int id) { return id == 0 ? '\n' : static_cast<char>(id + 31); }

/// Loads the examples a data spec names (see the file comment). Errors name
/// the file and what is wrong with it.
llvm::Expected<Dataset> loadDataset(llvm::StringRef spec);

/// Moves `count` examples of `data`, drawn by a shuffle seeded with `seed`,
/// into the returned set (in the shuffled order); the others stay in `data`
/// in their original order. `count` must be below `data.count`, and the data
/// must not be text (its examples are windows whose length only the graph
/// knows).
Dataset holdOut(Dataset &data, int64_t count, uint64_t seed);

} // namespace mpc

#endif // MPC_COMPILER_DATA_DATASET_H
