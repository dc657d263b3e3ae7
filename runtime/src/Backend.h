//===- Backend.h - where a loaded program's memory lives and steps run ----===//
//
// Part of mpc, a mixed-precision training compiler.
//
// A Program (Program.h) does what every backend shares: reading the bundle,
// initialising parameters, binding inputs and outputs by name, checkpoints.
// A backend owns the program's two memory spaces and runs its steps. The
// ranges passed to it have been checked against the manifest.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_BACKEND_H
#define MPC_RUNTIME_BACKEND_H

#include "Manifest.h"
#include "Status.h"

#include <cstddef>

namespace mpc::rt {

class Backend {
public:
  virtual ~Backend() = default;

  /// Copies `size` bytes from host memory at `data` to `at`.
  virtual Status write(const BufferRef &at, const void *data, size_t size) = 0;

  /// Copies `size` bytes at `at` to host memory at `data`.
  virtual Status read(const BufferRef &at, void *data, size_t size) const = 0;

  /// Runs the manifest's steps once, in order.
  virtual Status run() = 0;
};

} // namespace mpc::rt

#endif // MPC_RUNTIME_BACKEND_H
