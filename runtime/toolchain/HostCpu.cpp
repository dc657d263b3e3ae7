//===- HostCpu.cpp - What the host CPU can run ----------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "mpc/toolchain/HostCpu.h"

#include <string>

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

bool cpuIsX8664V4() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  return cpuIsX8664V3() && __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512cd") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#else
  return false;
#endif
}

bool cpuRunsX8664Level(const char *level) {
  const std::string name = level;
#if defined(__x86_64__)
  if (name == "x86-64")
    return true;
#endif
  if (name == "x86-64-v3")
    return cpuIsX8664V3();
  if (name == "x86-64-v4")
    return cpuIsX8664V4();
  return false;
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
