//===- CpuSettings.h - the CPU backend's switches in the environment -----===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The CPU backend's MPC_CPU_* variables (README: runtime settings) turn a
// choice of the backend on or off for side-by-side measurements and tests:
// "0" is off, "1" on, and anything else, or the variable unset, leaves the
// backend's own choice.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_BACKENDS_CPU_CPUSETTINGS_H
#define MPC_RUNTIME_BACKENDS_CPU_CPUSETTINGS_H

#include <cstdlib>
#include <cstring>
#include <optional>

namespace mpc::rt {

/// false for `name`=0, true for `name`=1, none otherwise.
inline std::optional<bool> cpuSetting(const char *name) {
  const char *value = std::getenv(name);
  if (value && std::strcmp(value, "0") == 0)
    return false;
  if (value && std::strcmp(value, "1") == 0)
    return true;
  return std::nullopt;
}

} // namespace mpc::rt

#endif // MPC_RUNTIME_BACKENDS_CPU_CPUSETTINGS_H
