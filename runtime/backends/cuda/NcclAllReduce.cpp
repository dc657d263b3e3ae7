//===- NcclAllReduce.cpp - a bundle's all_reduce steps on GPUs ------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "NcclAllReduce.h"

using namespace mpc::rt;

namespace {

bool ncclTypeOf(DType dtype, ncclDataType_t &out) {
  switch (dtype) {
  case DType::F32:
    out = ncclFloat32;
    return true;
  case DType::F64:
    out = ncclFloat64;
    return true;
  case DType::F16:
    out = ncclFloat16;
    return true;
  case DType::BF16:
    out = ncclBfloat16;
    return true;
  case DType::I32:
    out = ncclInt32;
    return true;
  default:
    return false;
  }
}

ncclRedOp_t ncclOpOf(AllReduceOp op) {
  switch (op) {
  case AllReduceOp::Sum:
    return ncclSum;
  case AllReduceOp::Max:
    return ncclMax;
  case AllReduceOp::Mean:
    return ncclAvg;
  }
  return ncclSum;
}

} // namespace

NcclAllReduce::~NcclAllReduce() {
  if (comm_)
    nccl_->ncclCommDestroy(comm_);
}

Status NcclAllReduce::create(const CudaApi &api, Collective &job, const std::string &prefix) {
  // What this rank can do alone: load NCCL, check its version, and on rank
  // 0 draw the unique id. Every rank then learns whether all could, before
  // any waits for another in NCCL's own setup.
  ncclUniqueId id{};
  Status local = prepare(api, job.rank() == 0 ? &id : nullptr, prefix);
  int32_t failed = local.isOk() ? 0 : 1;
  if (Status s = job.allReduce(&failed, 1, DType::I32, AllReduceOp::Max); !s.isOk())
    return Status::error(s.code(), prefix + "agreeing to start NCCL: " + s.message());
  if (!local.isOk())
    return local;
  if (failed)
    return Status::error(MPC_IO_ERROR, prefix + "another rank could not start NCCL (its own "
                                                "error says why)");
  if (Status s = job.broadcast(&id, sizeof id, 0); !s.isOk())
    return Status::error(s.code(), prefix + "broadcasting NCCL's unique id: " + s.message());
  if (ncclResult_t r = nccl_->ncclCommInitRank(&comm_, job.size(), id, job.rank());
      r != ncclSuccess) {
    comm_ = nullptr;
    return ncclFailure(*nccl_, r,
                       prefix + "ncclCommInitRank (rank " + std::to_string(job.rank()) + " of " +
                           std::to_string(job.size()) + ")");
  }
  return Status();
}

Status NcclAllReduce::prepare(const CudaApi &api, ncclUniqueId *id, const std::string &prefix) {
  if (!api.nccl)
    return Status::error(MPC_UNSUPPORTED, prefix + "this CUDA API has no NCCL");
  if (Status s = api.nccl(nccl_); !s.isOk())
    return Status::error(s.code(), prefix + s.message());
  int version = 0;
  if (ncclResult_t r = nccl_->ncclGetVersion(&version); r != ncclSuccess)
    return ncclFailure(*nccl_, r, prefix + "ncclGetVersion");
  // (NCCL_VERSION_CODE: major * 10000 + minor * 100 + patch since 2.9)
  std::string name = "NCCL " + std::to_string(version / 10000) + "." +
                     std::to_string(version / 100 % 100) + "." + std::to_string(version % 100);
  if (version < 21000)
    return Status::error(MPC_UNSUPPORTED, prefix + name +
                                              " is older than 2.10, which mpc needs (its "
                                              "mean, ncclAvg, and bf16)");
  if (id)
    if (ncclResult_t r = nccl_->ncclGetUniqueId(id); r != ncclSuccess)
      return ncclFailure(*nccl_, r, prefix + "ncclGetUniqueId");
  return Status();
}

Status NcclAllReduce::check(const AllReduceStep &step, const std::string &what) {
  ncclDataType_t type;
  if (!ncclTypeOf(step.dtype, type) || !allReduces(step.dtype, step.reduce))
    return Status::error(MPC_UNSUPPORTED, what + ": NCCL does not all-reduce " +
                                              allReduceOpName(step.reduce) + " of " +
                                              dtypeName(step.dtype) + " elements");
  return Status();
}

Status NcclAllReduce::enqueue(CUdeviceptr buffer, const AllReduceStep &step, CUstream stream,
                              const std::string &what) const {
  ncclDataType_t type;
  if (!ncclTypeOf(step.dtype, type))
    return check(step, what);
  void *data = reinterpret_cast<void *>(static_cast<uintptr_t>(buffer));
  if (ncclResult_t r = nccl_->ncclAllReduce(data, data, static_cast<size_t>(step.count), type,
                                            ncclOpOf(step.reduce), comm_,
                                            reinterpret_cast<cudaStream_t>(stream));
      r != ncclSuccess)
    return ncclFailure(*nccl_, r, what + ": ncclAllReduce");
  return Status();
}
