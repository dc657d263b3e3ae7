//===- FuzzDataset.cpp - fuzzing the dataset readers of `mpc train` -------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Input: one byte that picks the reader, then the file(s):
//
//   c  CSV                 the rest is FILE.csv
//   g  gzip-compressed CSV the rest is FILE.csv.gz
//   t  text                the rest is TEXT.txt
//   i  IDX images, labels  u32 little-endian N, N bytes of the images file,
//                          the rest the labels file
//   n  .npy pair           the same split: features, then labels
//
// The upper-case letter reads the same with the example range @1:3. An
// accepted dataset must be consistent: its arrays as long as its counts say,
// finite features.
//
//===----------------------------------------------------------------------===//

#include "FuzzTarget.h"

#include "compiler/Data/Dataset.h"

#include "llvm/Support/Error.h"

#include <cctype>
#include <cmath>

using namespace mpc;

namespace {

/// Splits `body` at the u32 length at its start: (first file, second file).
std::pair<std::string_view, std::string_view> splitPair(std::string_view body) {
  if (body.size() < 4)
    return {"", body};
  uint32_t length = 0;
  for (int i = 0; i < 4; ++i)
    length |= static_cast<uint32_t>(static_cast<unsigned char>(body[i])) << (8 * i);
  body.remove_prefix(4);
  length = std::min<uint32_t>(length, body.size());
  return {body.substr(0, length), body.substr(length)};
}

/// Writes the input's files and returns the data spec naming them, or "".
std::string writeFiles(char kind, std::string_view body) {
  using mpc::fuzz::writeScratchFile;
  switch (kind) {
  case 'c':
    return writeScratchFile("data.csv", body);
  case 'g':
    return writeScratchFile("data.csv.gz", body);
  case 't':
    return writeScratchFile("data.txt", body);
  case 'i': {
    auto [images, labels] = splitPair(body);
    return writeScratchFile("images-idx3-ubyte", images) + "," +
           writeScratchFile("labels-idx1-ubyte", labels);
  }
  case 'n': {
    auto [features, labels] = splitPair(body);
    return writeScratchFile("features.npy", features) + "," +
           writeScratchFile("labels.npy", labels);
  }
  default:
    return "";
  }
}

void checkConsistent(const Dataset &data) {
  FUZZ_CHECK(data.count >= 0, "a negative example count");
  if (data.isText()) {
    FUZZ_CHECK(static_cast<int64_t>(data.text.size()) == data.count, "text length != count");
    for (int32_t id : data.text)
      FUZZ_CHECK(id >= 0 && id < kTextVocabularySize, "a character id outside the vocabulary");
    return;
  }
  if (data.isSequences()) {
    size_t elements = static_cast<size_t>(data.count * data.sequenceLength);
    FUZZ_CHECK(data.tokens.size() == elements && data.tokenTargets.size() == elements,
               "token arrays do not hold count x sequence length");
    return;
  }
  FUZZ_CHECK(data.featureSize >= 0, "a negative feature size");
  FUZZ_CHECK(data.mappedFeatures ||
                 data.features.size() == static_cast<size_t>(data.count * data.featureSize),
             "features do not hold count x feature size");
  if (data.isRegression())
    FUZZ_CHECK(data.targets.size() == static_cast<size_t>(data.count * data.targetSize),
               "targets do not hold count x target size");
  else
    FUZZ_CHECK(data.labels.size() == static_cast<size_t>(data.count), "labels != count");
  for (int64_t i = 0; i < data.count; ++i)
    for (int64_t f = 0; f < data.featureSize; ++f)
      FUZZ_CHECK(std::isfinite(data.featureRow(i)[f]), "a feature is not finite");
  for (float value : data.targets)
    FUZZ_CHECK(std::isfinite(value), "a target is not finite");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  char selector = static_cast<char>(data[0]);
  std::string_view body(reinterpret_cast<const char *>(data) + 1, size - 1);
  std::string spec =
      writeFiles(static_cast<char>(std::tolower(static_cast<unsigned char>(selector))), body);
  if (spec.empty())
    return 0;
  if (std::isupper(static_cast<unsigned char>(selector)))
    spec += "@1:3";
  // (a data spec splits at ',' and '@': in the scratch folder's path they
  // would make every input a refused spec, and the target test nothing)
  FUZZ_CHECK(mpc::fuzz::scratchDirectory().find_first_of(",@") == std::string::npos,
             "the scratch folder's path holds ',' or '@': set TMPDIR to a folder without");
  llvm::Expected<Dataset> dataset = loadDataset(spec);
  if (!dataset) {
    llvm::consumeError(dataset.takeError());
    return 0;
  }
  checkConsistent(*dataset);
  return 0;
}
