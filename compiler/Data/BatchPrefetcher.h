//===- BatchPrefetcher.h - batches prepared while the step runs -*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// `mpc train` gathers the examples of the next batch on a worker thread
// while the current step runs (BatchBinder::prepare only reads the data),
// so that reading the data, a memory-mapped .npy file paging in included,
// overlaps the step instead of preceding it. One request is outstanding at
// a time: the loop asks for the batch it binds next, then takes it.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DATA_BATCHPREFETCHER_H
#define MPC_COMPILER_DATA_BATCHPREFETCHER_H

#include "compiler/Data/BatchBinder.h"

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace mpc {

class BatchPrefetcher {
public:
  /// Gathers the batch of the examples it is given (BatchBinder::prepare).
  using Prepare = std::function<BatchBinder::PreparedBatch(const std::vector<int64_t> &)>;

  /// Prepares batches with `prepare`, which the worker thread calls.
  explicit BatchPrefetcher(Prepare prepare);
  ~BatchPrefetcher();
  BatchPrefetcher(const BatchPrefetcher &) = delete;
  BatchPrefetcher &operator=(const BatchPrefetcher &) = delete;

  /// Starts preparing the batch of examples `indices` (the binder's batch
  /// size of them) on the worker. The previous request must have been
  /// taken.
  void request(std::vector<int64_t> indices);

  /// Waits for the requested batch and returns it.
  BatchBinder::PreparedBatch take();

  /// Batches the worker thread has prepared.
  uint64_t preparedOnWorker() const;

private:
  void work();

  Prepare prepare;
  mutable std::mutex mutex;
  std::condition_variable changed;
  std::optional<std::vector<int64_t>> pending;
  std::optional<BatchBinder::PreparedBatch> ready;
  uint64_t prepared = 0;
  /// A batch was requested and not yet taken.
  bool requested = false;
  bool stopping = false;
  std::thread worker;
};

} // namespace mpc

#endif // MPC_COMPILER_DATA_BATCHPREFETCHER_H
