//===- MpiCollective.cpp - the collectives over MPI -----------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "MpiCollective.h"

#include "FastConvert.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <vector>

using namespace mpc::rt;

namespace {

/// MPI's message for `code`.
std::string mpiMessage(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<size_t>(length));
}

/// MPI is started once per process (it cannot be started again after it
/// is finalised), and finalised at exit when mpc started it.
Status startMpi() {
  static std::once_flag once;
  static int startCode = MPI_SUCCESS;
  // What MPI gives: programs may run on any thread, one call at a time.
  static int provided = MPI_THREAD_SERIALIZED;
  std::call_once(once, [] {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized) { // (by the application)
      MPI_Query_thread(&provided);
      return;
    }
    startCode = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    if (startCode == MPI_SUCCESS)
      std::atexit([] {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized)
          MPI_Finalize();
      });
  });
  if (startCode != MPI_SUCCESS)
    return Status::error(MPC_IO_ERROR, "MPI did not start: " + mpiMessage(startCode));
  if (provided < MPI_THREAD_SERIALIZED)
    return Status::error(MPC_UNSUPPORTED,
                         "this MPI gives thread level " + std::to_string(provided) +
                             "; mpc needs MPI_THREAD_SERIALIZED (a program may run on any "
                             "thread of the process, one call at a time)");
  return {};
}

/// Elements per MPI call: counts are ints.
constexpr size_t kChunk = size_t(1) << 30;

class MpiCollective final : public Collective {
public:
  explicit MpiCollective(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~MpiCollective() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
      MPI_Comm_free(&comm_);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string transport() const override {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    std::string text(version, static_cast<size_t>(length));
    text = text.substr(0, text.find_first_of(",\n"));
    return "MPI (" + text + ")";
  }

  Status allReduce(void *data, size_t count, DType dtype, AllReduceOp op) override {
    if (!data && count > 0)
      return Status::error(MPC_INVALID_ARGUMENT, "all-reduce of a null buffer");
    if (!allReduces(dtype, op))
      return unsupportedAllReduce(dtype, op);
    // (a mean is a sum divided by the number of ranks, on every rank alike)
    MPI_Op mpiOp = op == AllReduceOp::Max ? MPI_MAX : MPI_SUM;
    bool mean = op == AllReduceOp::Mean;
    auto what = [&] {
      return std::string("all-reduce (") + allReduceOpName(op) + " of " + std::to_string(count) +
             " " + dtypeName(dtype) + ")";
    };
    switch (dtype) {
    case DType::F32: {
      Status status = reduce(data, count, MPI_FLOAT, sizeof(float), mpiOp, what);
      if (status.isOk() && mean)
        divideBySize(static_cast<float *>(data), count);
      return status;
    }
    case DType::F64: {
      Status status = reduce(data, count, MPI_DOUBLE, sizeof(double), mpiOp, what);
      if (status.isOk() && mean)
        divideBySize(static_cast<double *>(data), count);
      return status;
    }
    case DType::I32:
      return reduce(data, count, MPI_INT, sizeof(int32_t), mpiOp, what);
    case DType::F16:
    case DType::BF16: {
      // Widened, reduced in f32, rounded once: the same bits on every rank.
      // (widened_ keeps its memory from step to step)
      auto *halves = static_cast<uint16_t *>(data);
      std::vector<float> &wide = widened_;
      wide.resize(count);
      if (dtype == DType::F16)
        widenHalf(halves, wide.data(), count);
      else
        widenBf16(halves, wide.data(), count);
      if (Status status = reduce(wide.data(), count, MPI_FLOAT, sizeof(float), mpiOp, what);
          !status.isOk())
        return status;
      if (mean)
        divideBySize(wide.data(), count);
      if (dtype == DType::F16)
        narrowToHalf(wide.data(), halves, count);
      else
        narrowToBf16(wide.data(), halves, count);
      return {};
    }
    default:
      return unsupportedAllReduce(dtype, op);
    }
  }

  Status broadcast(void *data, size_t bytes, int root) override {
    if (!data && bytes > 0)
      return Status::error(MPC_INVALID_ARGUMENT, "broadcast of a null buffer");
    if (root < 0 || root >= size_)
      return Status::error(MPC_INVALID_ARGUMENT, "broadcast from rank " + std::to_string(root) +
                                                     " in a job of " + std::to_string(size_) +
                                                     " ranks");
    auto *bytesAt = static_cast<char *>(data);
    for (size_t done = 0; done < bytes; done += kChunk) {
      int piece = static_cast<int>(std::min(kChunk, bytes - done));
      if (int code = MPI_Bcast(bytesAt + done, piece, MPI_BYTE, root, comm_); code != MPI_SUCCESS)
        return failure("broadcast of " + std::to_string(bytes) + " bytes from rank " +
                           std::to_string(root),
                       code);
    }
    return {};
  }

  void abort(int code) override { MPI_Abort(comm_, code); }

  Status barrier() override {
    if (int code = MPI_Barrier(comm_); code != MPI_SUCCESS)
      return failure("barrier", code);
    return {};
  }

private:
  template <typename Element> void divideBySize(Element *values, size_t count) const {
    auto ranks = static_cast<Element>(size_);
    for (size_t i = 0; i < count; ++i)
      values[i] /= ranks;
  }

  template <typename What>
  Status reduce(void *data, size_t count, MPI_Datatype type, size_t width, MPI_Op op, What what) {
    auto *at = static_cast<char *>(data);
    for (size_t done = 0; done < count; done += kChunk) {
      int piece = static_cast<int>(std::min(kChunk, count - done));
      if (int code = MPI_Allreduce(MPI_IN_PLACE, at + done * width, piece, type, op, comm_);
          code != MPI_SUCCESS)
        return failure(what(), code);
    }
    return {};
  }

  Status failure(const std::string &what, int code) const {
    return Status::error(MPC_IO_ERROR, "MPI " + what + " failed on rank " + std::to_string(rank_) +
                                           " of " + std::to_string(size_) + ": " +
                                           mpiMessage(code));
  }

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  /// The f32 values of an f16 or bf16 all-reduce.
  std::vector<float> widened_;
};

} // namespace

Status mpc::rt::createMpiCollective(std::unique_ptr<Collective> &out) {
  if (Status status = startMpi(); !status.isOk())
    return status;
  // A communicator of mpc's own, whose errors return instead of aborting
  // (MPI_COMM_WORLD's too, for the duplication itself).
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm comm;
  if (int code = MPI_Comm_dup(MPI_COMM_WORLD, &comm); code != MPI_SUCCESS)
    return Status::error(MPC_IO_ERROR,
                         "MPI could not set up mpc's communicator: " + mpiMessage(code));
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  auto collective = std::make_unique<MpiCollective>(comm);
  if (int launched = launcherWorldSize(); launched != collective->size())
    return Status::error(MPC_IO_ERROR, "the launcher's environment says " +
                                           std::to_string(launched) + " ranks, but MPI has " +
                                           std::to_string(collective->size()) +
                                           " (start the job with mpirun -np N)");
  out = std::move(collective);
  return {};
}
