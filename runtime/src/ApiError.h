//===- ApiError.h - the C API's last error ----------------------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The thread's last error (mpc_last_error) lives in RuntimeApi.cpp; the
// other files of the C API (JobApi.cpp) set it through this.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_SRC_APIERROR_H
#define MPC_RUNTIME_SRC_APIERROR_H

#include "mpc/runtime.h"

#include <string>

namespace mpc::rt {

/// Makes `message` the thread's last error and returns `code`.
mpc_status_code failApiCall(mpc_status_code code, std::string message);

} // namespace mpc::rt

#endif // MPC_RUNTIME_SRC_APIERROR_H
