//===- HostCpu.h - What the host CPU can run ------------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Host kernels are compiled for x86-64-v3 (AVX2, FMA, F16C, BMI2) when the
// compiling CPU has it; the CPU backend refuses such kernels on a CPU that
// has not. Both ask here.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_HOSTCPU_H
#define MPC_RUNTIME_HOSTCPU_H

namespace mpc::rt {

/// Whether this CPU runs x86-64-v3 code (AVX2, FMA, F16C and BMI2).
bool cpuIsX8664V3();

} // namespace mpc::rt

#endif // MPC_RUNTIME_HOSTCPU_H
