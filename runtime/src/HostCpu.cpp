//===- HostCpu.cpp - What the host CPU can run ----------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "HostCpu.h"

namespace mpc::rt {

bool cpuIsX8664V3() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("f16c") && __builtin_cpu_supports("bmi2");
#else
  return false;
#endif
}

} // namespace mpc::rt
