//===- DataParallel.cpp - `mpc train` as one rank of a job ----------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/DataParallel.h"

#include "compiler/Driver/Driver.h"

#include "mpc/format/Hash.h"

#include <string>
#include <vector>

using namespace mpc::driver;

namespace {

/// The parameters and state the program's runs change (working copies
/// follow their masters).
std::vector<mpc_tensor_info> ownedTensors(const mpc_program *program) {
  std::vector<mpc_tensor_info> tensors;
  for (size_t i = 0, e = mpc_program_param_count(program); i < e; ++i) {
    mpc_tensor_info info;
    mpc_program_param_info(program, i, &info);
    if (!(info.flags & MPC_TENSOR_WORKING_COPY))
      tensors.push_back(info);
  }
  return tensors;
}

} // namespace

llvm::Expected<JobHandle> mpc::driver::openJob() {
  mpc_job *job = nullptr;
  if (mpc_job_open(&job) != MPC_OK)
    return lastRuntimeError();
  return JobHandle(job, mpc_job_release);
}

llvm::Error mpc::driver::broadcastParameters(mpc_job *job, mpc_program *program) {
  if (mpc_job_size(job) == 1)
    return llvm::Error::success();
  std::vector<char> bytes;
  for (const mpc_tensor_info &info : ownedTensors(program)) {
    bytes.resize(info.bytes);
    if (mpc_program_get_param(program, info.name, bytes.data(), bytes.size()) != MPC_OK ||
        mpc_job_broadcast(job, bytes.data(), bytes.size(), 0) != MPC_OK ||
        mpc_program_set_param(program, info.name, bytes.data(), bytes.size()) != MPC_OK)
      return lastRuntimeError();
  }
  return llvm::Error::success();
}

llvm::Error mpc::driver::checkRanksAgree(mpc_job *job, const mpc_program *program, uint64_t step) {
  if (mpc_job_size(job) == 1)
    return llvm::Error::success();
  mpc::rt::Hasher hasher;
  std::vector<char> bytes;
  for (const mpc_tensor_info &info : ownedTensors(program)) {
    bytes.resize(info.bytes);
    if (mpc_program_get_param(program, info.name, bytes.data(), bytes.size()) != MPC_OK)
      return lastRuntimeError();
    hasher.update(info.name, std::char_traits<char>::length(info.name) + 1);
    hasher.update(bytes.data(), bytes.size());
  }
  int differing = -1;
  if (mpc_job_first_differing_rank(job, hasher.digest(), &differing) != MPC_OK)
    return lastRuntimeError();
  if (differing < 0)
    return llvm::Error::success();
  return llvm::createStringError(
      "after step " + std::to_string(step) + " the parameters of rank " +
      std::to_string(differing) +
      " differ from rank 0's: the ranks no longer train one model. A training step that does "
      "not all-reduce its gradients does this (a bundle compiled without --data-parallel)");
}

llvm::Error mpc::driver::sumOverRanks(mpc_job *job, double *values, size_t count) {
  if (mpc_job_size(job) > 1 && mpc_job_all_reduce(job, values, count, "f64", "sum") != MPC_OK)
    return lastRuntimeError();
  return llvm::Error::success();
}
