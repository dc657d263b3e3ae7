//===- MpiCollective.h - the collectives over MPI ---------------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The CPU backend's collectives: MPI_COMM_WORLD of the job that mpirun (or
// another MPI launcher) started, through a communicator of mpc's own. MPI
// is started by the first collective created in the process (a failure
// there is MPI's to report: its start-up errors abort) and finalised at
// exit. Later errors return (MPI_ERRORS_RETURN) rather than abort, so a
// failure is a Status with MPI's own message.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_COLLECTIVE_MPICOLLECTIVE_H
#define MPC_RUNTIME_COLLECTIVE_MPICOLLECTIVE_H

#include "Collective.h"

namespace mpc::rt {

Status createMpiCollective(std::unique_ptr<Collective> &out);

} // namespace mpc::rt

#endif // MPC_RUNTIME_COLLECTIVE_MPICOLLECTIVE_H
