//===- MpiCollective.h - the collectives over MPI ---------------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The CPU backend's collectives: MPI_COMM_WORLD of the job that mpirun (or
// another MPI launcher) started. MPI is initialised by the first
// collective created in the process and finalised when the last goes.
// Errors return (MPI_ERRORS_RETURN) rather than abort, so a failure is a
// Status with MPI's own message.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_COLLECTIVE_MPICOLLECTIVE_H
#define MPC_RUNTIME_COLLECTIVE_MPICOLLECTIVE_H

#include "Collective.h"

namespace mpc::rt {

Status createMpiCollective(std::unique_ptr<Collective> &out);

} // namespace mpc::rt

#endif // MPC_RUNTIME_COLLECTIVE_MPICOLLECTIVE_H
