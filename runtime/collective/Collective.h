//===- Collective.h - the ranks of a data-parallel job --------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Data-parallel training runs one process per device; a Collective is what
// the processes share: their number, each one's rank, and the collectives
// between them (an all-reduce of gradients, of the loss scaler's overflow
// flag, of evaluation metrics; a broadcast of the starting parameters).
// The ranks come from the launcher: `mpirun -np N` (MPI, on the CPU
// backend). A process that no launcher started is a job of one rank, whose
// collectives leave the data as it is.
//
// Every call is collective: each rank makes the same calls in the same
// order with the same counts and types. An error the transport returns is
// a Status naming the operation and the rank. A rank that dies ends the
// job through its launcher (mpirun stops the other ranks and names it).
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_COLLECTIVE_COLLECTIVE_H
#define MPC_RUNTIME_COLLECTIVE_COLLECTIVE_H

#include "mpc/format/HostTensor.h"
#include "mpc/format/Manifest.h"
#include "mpc/format/Status.h"

#include <cstddef>
#include <memory>
#include <string>

namespace mpc::rt {

class Collective {
public:
  virtual ~Collective() = default;

  /// This process's rank, from 0, and the number of ranks.
  virtual int rank() const = 0;
  virtual int size() const = 0;

  /// What carries the collectives: "single process" or "MPI (...)".
  virtual std::string transport() const = 0;

  /// Reduces `count` elements of `dtype` at `data` over every rank, in
  /// place: each rank ends with the same result. f32, f64 and i32 reduce
  /// as they are; f16 and bf16 are widened to f32, reduced, and rounded
  /// once (to nearest even), so every rank holds the same bits. A mean
  /// divides the sum by size() (floats only).
  virtual Status allReduce(void *data, size_t count, DType dtype, AllReduceOp op) = 0;

  /// Copies `bytes` bytes at `data` on rank `root` to `data` on every rank.
  virtual Status broadcast(void *data, size_t bytes, int root) = 0;

  /// Returns once every rank has called it.
  virtual Status barrier() = 0;

  /// Ends every rank of the job with exit code `code` (a rank that fails
  /// alone calls it, so that the others do not wait for it in a
  /// collective). Not collective; returns only in a job of one rank.
  virtual void abort(int code) = 0;
};

/// Whether a launcher started this process as one rank of several (its
/// environment names a world size: OMPI_COMM_WORLD_SIZE, PMI_SIZE or
/// PMIX_SIZE), and that size (1 otherwise).
int launcherWorldSize();

/// This process's place among the ranks of its node, from the launcher's
/// environment (OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID
/// or LOCAL_RANK), or -1 when it names none.
int launcherLocalRank();

/// The collective of this process: MPI's when a launcher started it (and
/// the runtime was built with MPI), a single rank otherwise. A launcher's
/// job of several ranks in a runtime built without MPI is an error that
/// says so, as is an MPI that fails to start.
Status createCollective(std::unique_ptr<Collective> &out);

/// The error of an all-reduce that `allReduces(dtype, op)` refuses.
Status unsupportedAllReduce(DType dtype, AllReduceOp op);

/// Compares this rank's `digest` (a hash of what every rank should hold
/// alike) with rank 0's. Collective. Sets `differing`, on every rank, to
/// the lowest rank whose digest differs from rank 0's, or -1.
Status firstRankDiffering(Collective &job, uint64_t digest, int &differing);

/// Checks that every rank's `manifest` has the same all_reduce steps (in
/// order: element type, count, reduction), as its rank 0's: ranks whose
/// programs reduce differently would wait for each other, or reduce
/// mismatched data. Collective. The error names the first rank that
/// differs.
Status agreeOnAllReduces(Collective &job, const Manifest &manifest);

/// A job of one rank: allReduce and broadcast leave the data as it is.
std::unique_ptr<Collective> singleRankCollective();

} // namespace mpc::rt

#endif // MPC_RUNTIME_COLLECTIVE_COLLECTIVE_H
