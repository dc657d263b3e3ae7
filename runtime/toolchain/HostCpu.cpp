//===- HostCpu.cpp - What the host CPU can run ----------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "mpc/toolchain/HostCpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

namespace mpc::rt {

bool cpuIsX8664V3() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("f16c") && __builtin_cpu_supports("bmi2");
#else
  return false;
#endif
}

bool cpuHasFullWidthAvx512() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (!__builtin_cpu_supports("avx512f"))
    return false;
  if (!__builtin_cpu_is("amd"))
    return true;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
    return true;
  // The family: the base family, plus the extended one when it is 0xf.
  unsigned family = (eax >> 8) & 0xf;
  if (family == 0xf)
    family += (eax >> 20) & 0xff;
  return family != 0x19;
#else
  return false;
#endif
}

} // namespace mpc::rt
