//===- NcclAllReduce.h - a bundle's all_reduce steps on GPUs ------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The CUDA backend's all_reduce steps: one NCCL communicator per program,
// over the ranks of the process's job (runtime/collective/: rank 0 draws
// NCCL's unique id and the job's collective broadcasts it, so MPI starts
// NCCL), and one ncclAllReduce per step, enqueued on the step's stream.
// The backend captures the step into a CUDA graph, NCCL's calls included:
// a step with all-reduces stays one graph launch with no host sync.
//
// Reductions: sum, max, and mean (NCCL's ncclAvg); f32, f64, f16, bf16
// and i32 as NCCL reduces them (its ring reduces each chunk once and
// copies the result, so every rank holds the same bits; f16/bf16 partial
// sums are rounded at each hop, unlike the MPI path's single rounding).
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_BACKENDS_CUDA_NCCLALLREDUCE_H
#define MPC_RUNTIME_BACKENDS_CUDA_NCCLALLREDUCE_H

#include "Collective.h"

#include "mpc/format/Manifest.h"
#include "mpc/toolchain/CudaApi.h"

#include <string>

namespace mpc::rt {

class NcclAllReduce {
public:
  NcclAllReduce() = default;
  ~NcclAllReduce();
  NcclAllReduce(const NcclAllReduce &) = delete;
  NcclAllReduce &operator=(const NcclAllReduce &) = delete;

  /// Joins the NCCL communicator of `job`'s ranks. Collective (every rank
  /// calls it, with its GPU's context current). Errors say what failed and
  /// start with `prefix`.
  Status create(const CudaApi &api, Collective &job, const std::string &prefix);

  /// Checks that NCCL reduces `step` (its type and reduction).
  static Status check(const AllReduceStep &step, const std::string &what);

  /// Enqueues the in-place all-reduce of `step` at `buffer` on `stream`.
  Status enqueue(CUdeviceptr buffer, const AllReduceStep &step, CUstream stream,
                 const std::string &what) const;

private:
  /// What a rank does alone: loads NCCL, checks its version, and draws the
  /// unique id into `id` when it is not null (rank 0).
  Status prepare(const CudaApi &api, ncclUniqueId *id, const std::string &prefix);

  const NcclApi *nccl_ = nullptr;
  ncclComm_t comm_ = nullptr;
};

} // namespace mpc::rt

#endif // MPC_RUNTIME_BACKENDS_CUDA_NCCLALLREDUCE_H
