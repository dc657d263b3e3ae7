//===- Collective.cpp - the ranks of a data-parallel job ------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "Collective.h"

#ifdef MPC_HAVE_MPI
#include "MpiCollective.h"
#endif

#include "mpc/format/Hash.h"

#include <cstdlib>
#include <string>

using namespace mpc::rt;

namespace {

class SingleRank final : public Collective {
public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string transport() const override { return "single process"; }
  Status allReduce(void *data, size_t count, DType dtype, AllReduceOp op) override {
    if (!data && count > 0)
      return Status::error(MPC_INVALID_ARGUMENT, "all-reduce of a null buffer");
    if (!allReduces(dtype, op))
      return unsupportedAllReduce(dtype, op);
    return {};
  }
  Status broadcast(void *data, size_t bytes, int root) override {
    if (!data && bytes > 0)
      return Status::error(MPC_INVALID_ARGUMENT, "broadcast of a null buffer");
    if (root != 0)
      return Status::error(MPC_INVALID_ARGUMENT,
                           "broadcast from rank " + std::to_string(root) + " in a job of 1 rank");
    return {};
  }
  Status barrier() override { return {}; }
  void abort(int) override {}
};

} // namespace

Status mpc::rt::unsupportedAllReduce(DType dtype, AllReduceOp op) {
  if (!allReduces(dtype))
    return Status::error(MPC_UNSUPPORTED, std::string("all-reduce of ") + dtypeName(dtype) +
                                              " elements (f32, f64, f16, bf16 and i32 reduce)");
  return Status::error(MPC_UNSUPPORTED, std::string("all-reduce ") + allReduceOpName(op) + " of " +
                                            dtypeName(dtype) + " elements (a mean is of floats)");
}

Status mpc::rt::firstRankDiffering(Collective &job, uint64_t digest, int &differing) {
  differing = -1;
  if (job.size() == 1)
    return {};
  uint64_t first = digest;
  if (Status status = job.broadcast(&first, sizeof first, 0); !status.isOk())
    return status;
  // The lowest rank that differs, as the maximum of size - rank.
  int32_t differs = digest == first ? 0 : job.size() - job.rank();
  if (Status status = job.allReduce(&differs, 1, DType::I32, AllReduceOp::Max); !status.isOk())
    return status;
  if (differs > 0)
    differing = job.size() - differs;
  return {};
}

Status mpc::rt::agreeOnAllReduces(Collective &job, const Manifest &manifest) {
  if (job.size() == 1)
    return {};
  Hasher hasher;
  for (const Step &step : manifest.steps)
    if (const auto *reduce = std::get_if<AllReduceStep>(&step)) {
      uint64_t fields[3] = {static_cast<uint64_t>(reduce->dtype), reduce->count,
                            static_cast<uint64_t>(reduce->reduce)};
      hasher.update(fields, sizeof fields);
    }
  int differing = -1;
  if (Status status = firstRankDiffering(job, hasher.digest(), differing); !status.isOk())
    return status;
  if (differing < 0)
    return {};
  return Status::error(MPC_FORMAT_ERROR,
                       "the all-reduce steps of rank " + std::to_string(differing) +
                           "'s program differ from rank 0's (every rank must load the same "
                           "program: compile it once, or from the same graph and options)");
}

std::unique_ptr<Collective> mpc::rt::singleRankCollective() {
  return std::make_unique<SingleRank>();
}

int mpc::rt::launcherWorldSize() {
  for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    if (const char *value = std::getenv(name)) {
      char *end = nullptr;
      long size = std::strtol(value, &end, 10);
      if (end != value && *end == '\0' && size >= 1 && size <= 1 << 20)
        return static_cast<int>(size);
    }
  return 1;
}

int mpc::rt::launcherLocalRank() {
  for (const char *name :
       {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "LOCAL_RANK"})
    if (const char *value = std::getenv(name)) {
      char *end = nullptr;
      long rank = std::strtol(value, &end, 10);
      if (end != value && *end == '\0' && rank >= 0 && rank < 1 << 20)
        return static_cast<int>(rank);
    }
  return -1;
}

Status mpc::rt::createCollective(std::unique_ptr<Collective> &out) {
  int worldSize = launcherWorldSize();
#ifdef MPC_HAVE_MPI
  if (worldSize > 1)
    return createMpiCollective(out);
#endif
  if (worldSize > 1)
    return Status::error(MPC_UNSUPPORTED,
                         "a launcher started this process as one of " + std::to_string(worldSize) +
                             " ranks, but this runtime was built without MPI (install "
                             "libopenmpi-dev and rebuild)");
  out = singleRankCollective();
  return {};
}
