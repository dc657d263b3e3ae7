//===- DataParallel.h - `mpc train` as one rank of a job ----------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// What `mpirun -np N mpc train ...` adds to a run of one process: the job
// (the runtime's mpc_job: MPI's ranks), the parameters of rank 0 on every
// rank before the first step, and a check that the ranks still agree (a
// hash of every parameter and piece of state, rank 0's broadcast, a
// mismatch reduced so that every rank stops alike). The training step
// all-reduces its gradients itself (mpg-all-reduce-gradients); each rank
// takes its own part of every batch (TrainingLoop.cpp), evaluates its share
// of the evaluation batches (Evaluation.cpp), and only rank 0 prints, logs
// and writes checkpoints.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DRIVER_DATAPARALLEL_H
#define MPC_COMPILER_DRIVER_DATAPARALLEL_H

#include "mpc/runtime.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>

namespace mpc::driver {

using JobHandle = std::unique_ptr<mpc_job, void (*)(mpc_job *)>;

/// Joins the job of this process (a job of one rank when no launcher
/// started it).
llvm::Expected<JobHandle> openJob();

/// Gives every rank rank 0's parameters and state.
llvm::Error broadcastParameters(mpc_job *job, mpc_program *program);

/// Checks that every rank holds rank 0's parameters and state after `step`
/// (bitwise); an error on every rank otherwise, naming the first rank that
/// differs.
llvm::Error checkRanksAgree(mpc_job *job, const mpc_program *program, uint64_t step);

/// Sums `count` f64 values over the ranks, in place.
llvm::Error sumOverRanks(mpc_job *job, double *values, size_t count);

} // namespace mpc::driver

#endif // MPC_COMPILER_DRIVER_DATAPARALLEL_H
