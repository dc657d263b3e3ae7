//===- Dataset.cpp - labelled data for `mpc train` ------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Data/Dataset.h"

#include "mpc/format/HostTensor.h"
#include "mpc/format/Npy.h"

#include "llvm/ADT/StringExtras.h"

#include <zlib.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>

using namespace mpc;

namespace {

llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The whole file, decompressed when it is gzip (zlib reads plain files too).
llvm::Expected<std::string> readMaybeGzip(const std::string &path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file)
    return failure("cannot open data file '" + path + "': " + std::strerror(errno));
  std::string bytes;
  char buffer[1 << 16];
  int n;
  while ((n = gzread(file, buffer, sizeof buffer)) > 0)
    bytes.append(buffer, n);
  int error = 0;
  // (the message belongs to `file`: copied before gzclose frees it)
  const char *text = gzerror(file, &error);
  std::string message = text && *text ? text : "error";
  gzclose(file);
  if (n < 0 || (error != Z_OK && error != Z_STREAM_END))
    return failure("cannot read data file '" + path + "': " + message);
  return bytes;
}

llvm::Expected<Dataset> readCsv(const std::string &path) {
  llvm::Expected<std::string> text = readMaybeGzip(path);
  if (!text)
    return text.takeError();
  Dataset data;
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(*text).split(lines, '\n', -1, /*KeepEmpty=*/false);
  float largest = 0;
  for (auto [i, line] : llvm::enumerate(lines)) {
    line = line.trim();
    if (line.empty())
      continue;
    llvm::SmallVector<llvm::StringRef> fields;
    line.split(fields, ',');
    int64_t features = static_cast<int64_t>(fields.size()) - 1;
    if (features < 1)
      return failure(path + ":" + llvm::Twine(i + 1) + ": expected features and a label");
    if (data.featureSize == 0)
      data.featureSize = features;
    if (features != data.featureSize)
      return failure(path + ":" + llvm::Twine(i + 1) + ": " + llvm::Twine(features) +
                     " features, but line 1 has " + llvm::Twine(data.featureSize));
    for (int64_t f = 0; f < features; ++f) {
      double value;
      if (fields[f].trim().getAsDouble(value))
        return failure(path + ":" + llvm::Twine(i + 1) + ": field " + llvm::Twine(f + 1) +
                       " is not a number: '" + fields[f].trim() + "'");
      if (!std::isfinite(static_cast<float>(value)))
        return failure(path + ":" + llvm::Twine(i + 1) + ": field " + llvm::Twine(f + 1) +
                       " is not a finite f32 number: '" + fields[f].trim() + "'");
      data.features.push_back(static_cast<float>(value));
      largest = std::max(largest, std::fabs(static_cast<float>(value)));
    }
    double label;
    // (labels feed i32 inputs: the class index of a cross-entropy)
    if (fields.back().trim().getAsDouble(label) || label != std::floor(label) || label < 0 ||
        label > std::numeric_limits<int32_t>::max())
      return failure(path + ":" + llvm::Twine(i + 1) + ": the label '" + fields.back().trim() +
                     "' is not an integer in [0, 2^31)");
    data.labels.push_back(static_cast<int64_t>(label));
  }
  data.count = data.labels.size();
  if (data.count == 0)
    return failure("data file '" + path + "' holds no examples");
  if (largest > 0)
    for (float &v : data.features)
      v /= largest;
  return data;
}

uint32_t bigEndian32(const std::string &bytes, size_t at) {
  return (uint32_t(uint8_t(bytes[at])) << 24) | (uint32_t(uint8_t(bytes[at + 1])) << 16) |
         (uint32_t(uint8_t(bytes[at + 2])) << 8) | uint32_t(uint8_t(bytes[at + 3]));
}

llvm::Expected<Dataset> readIdx(const std::string &imagesPath, const std::string &labelsPath) {
  llvm::Expected<std::string> images = readMaybeGzip(imagesPath);
  if (!images)
    return images.takeError();
  llvm::Expected<std::string> labels = readMaybeGzip(labelsPath);
  if (!labels)
    return labels.takeError();
  if (images->size() < 16 || bigEndian32(*images, 0) != 0x803)
    return failure("'" + imagesPath + "' is not an IDX file of unsigned-byte images (magic 0x803)");
  if (labels->size() < 8 || bigEndian32(*labels, 0) != 0x801)
    return failure("'" + labelsPath + "' is not an IDX file of unsigned-byte labels (magic 0x801)");
  uint64_t count = bigEndian32(*images, 4), rows = bigEndian32(*images, 8),
           cols = bigEndian32(*images, 12);
  if (bigEndian32(*labels, 4) != count)
    return failure("'" + imagesPath + "' holds " + llvm::Twine(count) + " images but '" +
                   labelsPath + "' " + llvm::Twine(bigEndian32(*labels, 4)) + " labels");
  if (images->size() != 16 + count * rows * cols || labels->size() != 8 + count)
    return failure("IDX files '" + imagesPath + "' and '" + labelsPath +
                   "' are truncated or have trailing bytes");
  Dataset data;
  data.count = count;
  data.featureSize = rows * cols;
  data.features.resize(count * rows * cols);
  for (uint64_t i = 0; i < data.features.size(); ++i)
    data.features[i] = static_cast<float>(uint8_t((*images)[16 + i])) / 255.0f;
  for (uint64_t i = 0; i < count; ++i)
    data.labels.push_back(uint8_t((*labels)[8 + i]));
  return data;
}

/// The error naming the first element of `values` (count x size) that is
/// NaN or infinite, if one is.
llvm::Error checkFinite(const float *values, int64_t count, int64_t size, const std::string &path,
                        llvm::StringRef what) {
  const float *end = values + count * size;
  const float *notFinite =
      std::find_if(values, end, [](float value) { return !std::isfinite(value); });
  if (notFinite == end)
    return llvm::Error::success();
  int64_t at = notFinite - values;
  return failure("'" + path + "': " + what + " " + llvm::Twine(at % size) + " of example " +
                 llvm::Twine(at / size) + " is " + (std::isnan(*notFinite) ? "NaN" : "infinite") +
                 "; " + what + "s must be finite numbers");
}

/// The f32 features of `path` [N, ...], mapped into memory rather than
/// copied (copied when the file's elements are not aligned for floats).
llvm::Error mapFeatures(const std::string &path, const rt::NpyLayout &layout, Dataset &data) {
  data.count = layout.shape[0];
  data.featureSize = 1;
  for (size_t d = 1; d < layout.shape.size(); ++d)
    data.featureSize *= layout.shape[d];
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file = llvm::MemoryBuffer::getFile(
      path, /*IsText=*/false, /*RequiresNullTerminator=*/false, /*IsVolatile=*/false);
  if (!file)
    return failure("cannot read '" + path + "': " + file.getError().message());
  if ((*file)->getBufferSize() != layout.dataOffset + layout.dataBytes)
    return failure("'" + path + "' changed while it was read");
  const char *elements = (*file)->getBufferStart() + layout.dataOffset;
  if (reinterpret_cast<uintptr_t>(elements) % alignof(float) == 0) {
    data.featureFile = std::move(*file);
    data.mappedFeatures = reinterpret_cast<const float *>(elements);
  } else {
    data.features.resize(layout.dataBytes / sizeof(float));
    std::memcpy(data.features.data(), elements, layout.dataBytes);
  }
  // (as the CSV reader does: a NaN or infinite feature would only show later
  // as a loss that is not finite)
  if (data.featureSize == 0)
    return llvm::Error::success();
  return checkFinite(data.featureRow(0), data.count, data.featureSize, path, "feature");
}

llvm::Expected<Dataset> readNpyPair(const std::string &featuresPath,
                                    const std::string &labelsPath) {
  rt::NpyLayout layout;
  rt::HostTensor labels;
  if (rt::Status status = rt::readNpyLayout(featuresPath, layout); !status.isOk())
    return failure(status.message());
  if (rt::Status status = rt::readNpy(labelsPath, labels); !status.isOk())
    return failure(status.message());
  auto isInteger = [](rt::DType dtype) {
    return dtype == rt::DType::I32 || dtype == rt::DType::I64;
  };
  auto integerAt = [](const rt::HostTensor &t, int64_t i) -> int64_t {
    return t.dtype == rt::DType::I32 ? reinterpret_cast<const int32_t *>(t.bytes.data())[i]
                                     : reinterpret_cast<const int64_t *>(t.bytes.data())[i];
  };
  if (isInteger(layout.dtype)) {
    // A sequence task: a token and a target at every position.
    rt::HostTensor features;
    if (rt::Status status = rt::readNpy(featuresPath, features); !status.isOk())
      return failure(status.message());
    if (features.shape.size() != 2 || !isInteger(labels.dtype) || labels.shape != features.shape)
      return failure("'" + featuresPath + "' holds integers, so it must be tokens [N, T] with "
                     "'" + labelsPath + "' the integer targets [N, T] of the same shape");
    Dataset data;
    data.count = features.shape[0];
    data.sequenceLength = features.shape[1];
    for (int64_t i = 0, e = features.numElements(); i < e; ++i) {
      data.tokens.push_back(integerAt(features, i));
      data.tokenTargets.push_back(integerAt(labels, i));
    }
    if (data.count == 0 || data.sequenceLength == 0)
      return failure("'" + featuresPath + "' holds no tokens");
    return data;
  }
  if (layout.dtype != rt::DType::F32 || layout.shape.empty())
    return failure("'" + featuresPath + "' must hold f32 features [N, ...] or integer tokens "
                   "[N, T]");
  int64_t count = layout.shape[0];
  bool regression = labels.dtype == rt::DType::F32;
  if ((!regression && !isInteger(labels.dtype)) || labels.shape.empty() ||
      labels.shape[0] != count || (!regression && labels.shape.size() != 1))
    return failure("'" + labelsPath + "' must hold " + llvm::Twine(count) +
                   " i32 or i64 labels [N], or f32 targets [N, ...] for a regression");
  Dataset data;
  if (llvm::Error error = mapFeatures(featuresPath, layout, data))
    return std::move(error);
  if (regression) {
    data.targetSize = count ? labels.numElements() / count : 1;
    data.targets.resize(labels.numElements());
    if (!labels.bytes.empty())
      std::memcpy(data.targets.data(), labels.bytes.data(), labels.bytes.size());
    if (data.targetSize == 0)
      return failure("'" + labelsPath + "' holds no targets");
    if (llvm::Error error =
            checkFinite(data.targets.data(), count, data.targetSize, labelsPath, "target"))
      return std::move(error);
    return data;
  }
  for (int64_t i = 0; i < count; ++i)
    data.labels.push_back(integerAt(labels, i));
  return data;
}

llvm::Expected<Dataset> readText(const std::string &path) {
  llvm::Expected<std::string> bytes = readMaybeGzip(path);
  if (!bytes)
    return bytes.takeError();
  Dataset data;
  data.text.reserve(bytes->size());
  int64_t line = 1, column = 1;
  for (unsigned char c : *bytes) {
    if (c == '\r') // Windows line ends read as newlines
      continue;
    int id = textCharacterId(c == '\t' ? ' ' : c);
    if (id < 0)
      return failure(path + ":" + llvm::Twine(line) + ":" + llvm::Twine(column) + ": byte 0x" +
                     llvm::utohexstr(c, /*LowerCase=*/true, /*Width=*/2) +
                     " is not printable ASCII; text data holds printable ASCII, tabs "
                     "and newlines");
    data.text.push_back(id);
    if (c == '\n')
      ++line, column = 1;
    else
      ++column;
  }
  data.count = data.text.size();
  if (data.count < 2)
    return failure("text file '" + path + "' holds fewer than two characters");
  return data;
}

} // namespace

llvm::Expected<Dataset> mpc::loadDataset(llvm::StringRef spec) {
  auto [files, range] = spec.rsplit('@');
  if (!spec.contains('@'))
    range = "";
  llvm::SmallVector<llvm::StringRef> paths;
  files.split(paths, ',');
  llvm::Expected<Dataset> data = failure("");
  if (paths.size() == 1 && (files.ends_with(".csv") || files.ends_with(".csv.gz"))) {
    data = readCsv(files.str());
  } else if (paths.size() == 2 && paths[0].contains("idx3")) {
    data = readIdx(paths[0].str(), paths[1].str());
  } else if (paths.size() == 2 && paths[0].ends_with(".npy")) {
    data = readNpyPair(paths[0].str(), paths[1].str());
  } else if (paths.size() == 1 && (files.ends_with(".txt") || files.ends_with(".txt.gz"))) {
    data = readText(files.str());
  } else {
    return failure("cannot tell the format of data spec '" + spec +
                   "'; expected FILE.csv[.gz], IMAGES-idx3-ubyte[.gz],LABELS-idx1-ubyte[.gz], "
                   "FEATURES.npy,LABELS.npy or TEXT.txt[.gz], optionally followed by "
                   "@START:END");
  }
  if (!data)
    return data.takeError();
  if (range.empty())
    return data;
  auto [startText, endText] = range.split(':');
  int64_t start = 0, end = data->count;
  if ((!startText.empty() && startText.getAsInteger(10, start)) ||
      (!endText.empty() && endText.getAsInteger(10, end)) || start < 0 || end > data->count ||
      start >= end)
    return failure("invalid example range '@" + range + "' in data spec '" + spec +
                   "' (the data has " + llvm::Twine(data->count) +
                   (data->isText() ? " characters)" : " examples)"));
  Dataset slice;
  if (data->isSequences()) {
    int64_t t = data->sequenceLength;
    slice.sequenceLength = t;
    slice.count = end - start;
    slice.tokens.assign(data->tokens.begin() + start * t, data->tokens.begin() + end * t);
    slice.tokenTargets.assign(data->tokenTargets.begin() + start * t,
                              data->tokenTargets.begin() + end * t);
    return slice;
  }
  if (data->isText()) {
    slice.text.assign(data->text.begin() + start, data->text.begin() + end);
    slice.count = end - start;
    return slice;
  }
  slice.featureSize = data->featureSize;
  slice.count = end - start;
  if (data->mappedFeatures) {
    slice.featureFile = data->featureFile;
    slice.mappedFeatures = data->featureRow(start);
  } else {
    slice.features.assign(data->features.begin() + start * data->featureSize,
                          data->features.begin() + end * data->featureSize);
  }
  if (data->isRegression()) {
    slice.targetSize = data->targetSize;
    slice.targets.assign(data->targets.begin() + start * data->targetSize,
                         data->targets.begin() + end * data->targetSize);
  } else {
    slice.labels.assign(data->labels.begin() + start, data->labels.begin() + end);
  }
  return slice;
}

mpc::Dataset mpc::holdOut(Dataset &data, int64_t count, uint64_t seed) {
  assert(!data.isText() && "text is split by character ranges, not held out");
  std::vector<int64_t> order(data.count);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<bool> heldOut(data.count, false);
  Dataset held, kept;
  held.featureSize = kept.featureSize = data.featureSize;
  held.targetSize = kept.targetSize = data.targetSize;
  held.sequenceLength = kept.sequenceLength = data.sequenceLength;
  auto append = [&](Dataset &to, int64_t i) {
    if (data.isSequences()) {
      int64_t t = data.sequenceLength;
      to.tokens.insert(to.tokens.end(), data.tokens.begin() + i * t,
                       data.tokens.begin() + (i + 1) * t);
      to.tokenTargets.insert(to.tokenTargets.end(), data.tokenTargets.begin() + i * t,
                             data.tokenTargets.begin() + (i + 1) * t);
    } else {
      const float *row = data.featureRow(i);
      to.features.insert(to.features.end(), row, row + data.featureSize);
      if (data.isRegression())
        to.targets.insert(to.targets.end(), data.targets.begin() + i * data.targetSize,
                          data.targets.begin() + (i + 1) * data.targetSize);
      else
        to.labels.push_back(data.labels[i]);
    }
    ++to.count;
  };
  for (int64_t i = 0; i < count; ++i) {
    heldOut[order[i]] = true;
    append(held, order[i]);
  }
  for (int64_t i = 0; i < data.count; ++i)
    if (!heldOut[i])
      append(kept, i);
  data = std::move(kept);
  return held;
}
