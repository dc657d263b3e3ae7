//===- DatasetTest.cpp - data sets and batch preparation -----------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// .npy features are memory-mapped (also through a range and a hold-out),
// f32 targets make a regression data set, and the prefetcher prepares the
// next batch on its own thread while the caller works.
//
//===----------------------------------------------------------------------===//

#include "compiler/Data/Dataset.h"
#include "compiler/Data/BatchPrefetcher.h"

#include "mpc/format/Npy.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

using mpc::rt::DType;
using mpc::rt::HostTensor;

class DatasetTest : public ::testing::Test {
protected:
  void SetUp() override {
    char pattern[] = "/tmp/mpc-dataset-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir = pattern;
  }
  void TearDown() override { std::system(("rm -rf '" + dir + "'").c_str()); }

  /// Writes a .npy file of `dtype` and `shape` whose element i is i * scale.
  std::string write(const std::string &name, DType dtype, std::vector<int64_t> shape,
                    double scale = 1.0) {
    HostTensor tensor;
    tensor.dtype = dtype;
    tensor.shape = std::move(shape);
    int64_t n = tensor.numElements();
    tensor.bytes.resize(n * (dtype == DType::I64 ? 8 : 4));
    for (int64_t i = 0; i < n; ++i) {
      if (dtype == DType::F32) {
        float v = static_cast<float>(i * scale);
        std::memcpy(&tensor.bytes[4 * i], &v, 4);
      } else {
        int64_t v = i % 10;
        std::memcpy(&tensor.bytes[8 * i], &v, 8);
      }
    }
    std::string path = dir + "/" + name;
    EXPECT_TRUE(mpc::rt::writeNpy(path, tensor).isOk());
    return path;
  }

  std::string dir;
};

TEST_F(DatasetTest, NpyFeaturesAreMappedNotCopied) {
  // 4096 examples of 256 features: 4 MiB.
  std::string features = write("x.npy", DType::F32, {4096, 256}, 0.25);
  std::string labels = write("y.npy", DType::I64, {4096});
  llvm::Expected<mpc::Dataset> data = mpc::loadDataset(features + "," + labels);
  ASSERT_TRUE(static_cast<bool>(data)) << llvm::toString(data.takeError());
  EXPECT_NE(data->mappedFeatures, nullptr);
  EXPECT_TRUE(data->features.empty());
  EXPECT_EQ(data->count, 4096);
  EXPECT_EQ(data->featureSize, 256);
  EXPECT_EQ(data->featureRow(3)[5], (3 * 256 + 5) * 0.25f);
  EXPECT_EQ(data->labels[13], 3);

  // A range maps the same file from its first example.
  llvm::Expected<mpc::Dataset> slice = mpc::loadDataset(features + "," + labels + "@100:200");
  ASSERT_TRUE(static_cast<bool>(slice)) << llvm::toString(slice.takeError());
  EXPECT_NE(slice->mappedFeatures, nullptr);
  EXPECT_EQ(slice->count, 100);
  EXPECT_EQ(slice->featureRow(0)[0], 100 * 256 * 0.25f);

  // A hold-out copies the examples it moves, and those it keeps.
  mpc::Dataset held = mpc::holdOut(*data, 10, 7);
  EXPECT_EQ(held.count, 10);
  EXPECT_EQ(data->count, 4086);
  for (int64_t i = 0; i < held.count; ++i) {
    float first = held.featureRow(i)[0];
    int64_t example = static_cast<int64_t>(first / 0.25f) / 256;
    EXPECT_EQ(held.featureRow(i)[255], (example * 256 + 255) * 0.25f);
    EXPECT_EQ(held.labels[i], example % 10);
  }
}

TEST_F(DatasetTest, FloatTargetsMakeARegression) {
  std::string features = write("x.npy", DType::F32, {50, 3});
  std::string targets = write("t.npy", DType::F32, {50, 2}, 0.5);
  llvm::Expected<mpc::Dataset> data = mpc::loadDataset(features + "," + targets);
  ASSERT_TRUE(static_cast<bool>(data)) << llvm::toString(data.takeError());
  EXPECT_TRUE(data->isRegression());
  EXPECT_EQ(data->targetSize, 2);
  EXPECT_TRUE(data->labels.empty());
  EXPECT_EQ(data->targets[7], 3.5f);
  mpc::Dataset held = mpc::holdOut(*data, 5, 1);
  EXPECT_EQ(held.targets.size(), 10u);
  EXPECT_EQ(data->targets.size(), 90u);

  // The targets must match the examples and be finite.
  std::string short_ = write("short.npy", DType::F32, {49, 2});
  llvm::Expected<mpc::Dataset> mismatched = mpc::loadDataset(features + "," + short_);
  ASSERT_FALSE(static_cast<bool>(mismatched));
  EXPECT_NE(llvm::toString(mismatched.takeError())
                .find("must hold 50 i32 or i64 labels [N], or f32 targets [N, ...]"),
            std::string::npos);
  HostTensor nan;
  nan.dtype = DType::F32;
  nan.shape = {50};
  nan.bytes.assign(200, 0);
  float value = NAN;
  std::memcpy(&nan.bytes[4 * 9], &value, 4);
  ASSERT_TRUE(mpc::rt::writeNpy(dir + "/nan.npy", nan).isOk());
  llvm::Expected<mpc::Dataset> withNan = mpc::loadDataset(features + "," + dir + "/nan.npy");
  ASSERT_FALSE(static_cast<bool>(withNan));
  EXPECT_NE(llvm::toString(withNan.takeError()).find("target 0 of example 9 is NaN"),
            std::string::npos);
}

TEST(BatchPrefetcher, PreparesTheNextBatchOnItsOwnThreadWhileTheCallerWorks) {
  using Clock = std::chrono::steady_clock;
  const std::thread::id caller = std::this_thread::get_id();
  bool onCaller = false;
  mpc::BatchPrefetcher prefetcher([&](const std::vector<int64_t> &examples) {
    onCaller |= std::this_thread::get_id() == caller;
    if (examples[0] > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(200)); // a slow read
    mpc::BatchBinder::PreparedBatch batch;
    for (int64_t example : examples)
      batch.features.push_back(static_cast<float>(example));
    return batch;
  });
  prefetcher.request({1, 2, 3});
  for (int64_t step = 0; step < 3; ++step) {
    // The caller's step takes twice as long as a preparation (200 ms): the
    // batch it takes next was prepared meanwhile, so taking it does not
    // wait for a preparation (generous margins for a loaded machine).
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    Clock::time_point before = Clock::now();
    mpc::BatchBinder::PreparedBatch batch = prefetcher.take();
    EXPECT_LT(Clock::now() - before, std::chrono::milliseconds(100)) << "step " << step;
    ASSERT_EQ(batch.features.size(), 3u);
    EXPECT_EQ(batch.features[0], static_cast<float>(3 * step + 1));
    EXPECT_EQ(batch.features[2], static_cast<float>(3 * step + 3));
    prefetcher.request({3 * step + 4, 3 * step + 5, 3 * step + 6});
  }
  EXPECT_FALSE(onCaller);
  EXPECT_GE(prefetcher.preparedOnWorker(), 3u);
  // Taken at once after the request (the worker may hold it, preparing):
  // the take waits for it.
  mpc::BatchBinder::PreparedBatch last = prefetcher.take();
  EXPECT_EQ(last.features.size(), 3u);
  for (int64_t i = -1; i > -200; --i) {
    prefetcher.request({i});
    EXPECT_EQ(prefetcher.take().features, std::vector<float>{static_cast<float>(i)});
  }
}

} // namespace
