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
//
// Normalisation: CSV features are divided by the largest absolute value in
// the file (digits: 16), IDX pixels by 255, .npy features are used as they
// are.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DATA_DATASET_H
#define MPC_COMPILER_DATA_DATASET_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mpc {

struct Dataset {
  std::vector<float> features; // count x featureSize, row-major
  std::vector<int64_t> labels; // count
  int64_t count = 0;
  int64_t featureSize = 0;
};

/// Loads the examples a data spec names (see the file comment). Errors name
/// the file and what is wrong with it.
llvm::Expected<Dataset> loadDataset(llvm::StringRef spec);

/// Moves `count` examples of `data`, drawn by a shuffle seeded with `seed`,
/// into the returned set (in the shuffled order); the others stay in `data`
/// in their original order. `count` must be below `data.count`.
Dataset holdOut(Dataset &data, int64_t count, uint64_t seed);

} // namespace mpc

#endif // MPC_COMPILER_DATA_DATASET_H
