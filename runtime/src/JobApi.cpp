//===- JobApi.cpp - the C API of data-parallel jobs -----------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// mpc_job_* over the runtime's Collective (runtime/collective/): the rank,
// the number of ranks, and the collectives an application makes outside a
// program. Like the rest of the C API, no exception leaves it.
//
//===----------------------------------------------------------------------===//

#include "mpc/runtime.h"

#include "ApiError.h"
#include "Collective.h"

#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>

using mpc::rt::AllReduceOp;
using mpc::rt::Collective;
using mpc::rt::DType;
using mpc::rt::Status;

struct mpc_job {
  std::unique_ptr<Collective> collective;
  std::string transport;
};

namespace {

using mpc::rt::failApiCall;

bool dtypeOf(const char *name, DType &out) {
  for (DType dtype :
       {DType::F16, DType::BF16, DType::F32, DType::F64, DType::I32, DType::I64, DType::Bool})
    if (std::strcmp(name, mpc::rt::dtypeName(dtype)) == 0) {
      out = dtype;
      return true;
    }
  return false;
}

bool reductionOf(const char *name, AllReduceOp &out) {
  for (AllReduceOp op : {AllReduceOp::Sum, AllReduceOp::Max, AllReduceOp::Mean})
    if (std::strcmp(name, mpc::rt::allReduceOpName(op)) == 0) {
      out = op;
      return true;
    }
  return false;
}

template <typename Body> mpc_status_code guarded(const char *function, Body body) {
  try {
    Status status = body();
    if (!status.isOk())
      return failApiCall(status.code(), std::string(function) + ": " + status.message());
    return MPC_OK;
  } catch (const std::bad_alloc &) {
    return failApiCall(MPC_RESOURCE_EXHAUSTED, std::string(function) + ": out of host memory");
  } catch (const std::exception &error) {
    return failApiCall(MPC_INTERNAL,
                       std::string(function) + ": unexpected exception: " + error.what());
  }
}

Status nullArgument(const char *argument) {
  return Status::error(MPC_INVALID_ARGUMENT, std::string(argument) + " is NULL");
}

} // namespace

mpc_status_code mpc_job_open(mpc_job **out) {
  return guarded("mpc_job_open", [&]() -> Status {
    if (!out)
      return nullArgument("out");
    auto job = std::make_unique<mpc_job>();
    if (Status status = mpc::rt::createCollective(job->collective); !status.isOk())
      return status;
    job->transport = job->collective->transport();
    *out = job.release();
    return {};
  });
}

int mpc_job_launched_size(void) { return mpc::rt::launcherWorldSize(); }

void mpc_job_release(mpc_job *job) { delete job; }

int mpc_job_rank(const mpc_job *job) { return job ? job->collective->rank() : 0; }

int mpc_job_size(const mpc_job *job) { return job ? job->collective->size() : 1; }

const char *mpc_job_transport(const mpc_job *job) { return job ? job->transport.c_str() : ""; }

mpc_status_code mpc_job_all_reduce(mpc_job *job, void *data, size_t count, const char *dtype,
                                   const char *op) {
  return guarded("mpc_job_all_reduce", [&]() -> Status {
    if (!job)
      return nullArgument("job");
    if (!dtype)
      return nullArgument("dtype");
    if (!op)
      return nullArgument("op");
    DType type;
    AllReduceOp reduce;
    if (!dtypeOf(dtype, type))
      return Status::error(MPC_INVALID_ARGUMENT, "unknown dtype \"" + std::string(dtype) +
                                                     "\" (f32, f64, f16, bf16 and i32 reduce)");
    if (!reductionOf(op, reduce))
      return Status::error(MPC_INVALID_ARGUMENT,
                           "unknown reduction \"" + std::string(op) + "\" (sum, max or mean)");
    return job->collective->allReduce(data, count, type, reduce);
  });
}

void mpc_job_abort(mpc_job *job, int code) {
  if (job && job->collective->size() > 1)
    job->collective->abort(code);
}

mpc_status_code mpc_job_first_differing_rank(mpc_job *job, uint64_t digest, int *rank) {
  return guarded("mpc_job_first_differing_rank", [&]() -> Status {
    if (!job)
      return nullArgument("job");
    if (!rank)
      return nullArgument("rank");
    return mpc::rt::firstRankDiffering(*job->collective, digest, *rank);
  });
}

mpc_status_code mpc_job_broadcast(mpc_job *job, void *data, size_t bytes, int root) {
  return guarded("mpc_job_broadcast", [&]() -> Status {
    if (!job)
      return nullArgument("job");
    return job->collective->broadcast(data, bytes, root);
  });
}
