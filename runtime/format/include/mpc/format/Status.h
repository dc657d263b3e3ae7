//===- Status.h - outcome of a fallible runtime call ----------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The C++ side of the runtime returns a Status from every fallible function:
// a code from the C API (mpc/runtime.h) and a message that names the file or
// object involved and what is wrong with it.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_FORMAT_STATUS_H
#define MPC_FORMAT_STATUS_H

#include "mpc/runtime.h"

#include <string>
#include <utility>

namespace mpc::rt {

class [[nodiscard]] Status {
public:
  /// Success.
  Status() = default;

  /// A failure; `code` must not be MPC_OK.
  static Status error(mpc_status_code code, std::string message) {
    Status status;
    status.code_ = code;
    status.message_ = std::move(message);
    return status;
  }

  bool isOk() const { return code_ == MPC_OK; }
  mpc_status_code code() const { return code_; }
  /// Empty on success.
  const std::string &message() const { return message_; }

private:
  mpc_status_code code_ = MPC_OK;
  std::string message_;
};

} // namespace mpc::rt

#endif // MPC_FORMAT_STATUS_H
