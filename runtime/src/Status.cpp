//===- Status.cpp - status codes and version of the runtime ---------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "mpc/runtime.h"

extern "C" const char *mpc_status_code_name(mpc_status_code code) {
  switch (code) {
  case MPC_OK:
    return "ok";
  case MPC_INVALID_ARGUMENT:
    return "invalid argument";
  case MPC_NOT_FOUND:
    return "not found";
  case MPC_IO_ERROR:
    return "i/o error";
  case MPC_FORMAT_ERROR:
    return "format error";
  case MPC_UNSUPPORTED:
    return "unsupported";
  case MPC_INTERNAL:
    return "internal error";
  case MPC_RESOURCE_EXHAUSTED:
    return "resource exhausted";
  case MPC_NOT_READY:
    return "not ready";
  case MPC_BUSY:
    return "busy";
  default: // (any other int, the width markers included)
    break;
  }
  return "unknown status";
}

extern "C" const char *mpc_runtime_version(void) { return MPC_VERSION_STRING; }
