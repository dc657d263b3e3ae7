//===- ProgramHandle.h - what an mpc_program is ------------------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The struct behind the C API's opaque mpc_program (RuntimeApi.cpp): the
// program, the tensor descriptions the *_info functions hand out, and the
// flag that makes a program take one call at a time. Private to the
// runtime and its tests.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_SRC_PROGRAMHANDLE_H
#define MPC_RUNTIME_SRC_PROGRAMHANDLE_H

#include "Program.h"

#include "mpc/runtime.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

struct mpc_program {
  std::unique_ptr<mpc::rt::Program> program;
  std::vector<mpc_tensor_info> inputs, outputs, params;
  /// The device name mpc_program_get_stats returned last.
  mutable std::string statsDevice;
  /// A thread is inside a call on the program: another thread's call gets
  /// MPC_BUSY (RuntimeApi.cpp, exclusive()).
  mutable std::atomic<bool> inUse{false};
};

#endif // MPC_RUNTIME_SRC_PROGRAMHANDLE_H
