//===- BatchPrefetcher.cpp - batches prepared while the step runs ---------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Data/BatchPrefetcher.h"

#include <cassert>

using namespace mpc;

BatchPrefetcher::BatchPrefetcher(Prepare prepare)
    : prepare(std::move(prepare)), worker([this] { work(); }) {}

BatchPrefetcher::~BatchPrefetcher() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  changed.notify_all();
  worker.join();
}

void BatchPrefetcher::request(std::vector<int64_t> indices) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    assert(!requested && "the previous batch was not taken");
    requested = true;
    pending = std::move(indices);
  }
  changed.notify_all();
}

BatchBinder::PreparedBatch BatchPrefetcher::take() {
  std::unique_lock<std::mutex> lock(mutex);
  // (the worker may hold the request, neither pending nor ready)
  assert(requested && "no batch was requested");
  changed.wait(lock, [&] { return ready.has_value(); });
  BatchBinder::PreparedBatch batch = std::move(*ready);
  ready.reset();
  requested = false;
  return batch;
}

uint64_t BatchPrefetcher::preparedOnWorker() const {
  std::lock_guard<std::mutex> lock(mutex);
  return prepared;
}

void BatchPrefetcher::work() {
  std::unique_lock<std::mutex> lock(mutex);
  for (;;) {
    changed.wait(lock, [&] { return stopping || pending.has_value(); });
    if (stopping)
      return;
    std::vector<int64_t> indices = std::move(*pending);
    pending.reset();
    lock.unlock();
    BatchBinder::PreparedBatch batch = prepare(indices);
    lock.lock();
    ready = std::move(batch);
    ++prepared;
    changed.notify_all();
  }
}
