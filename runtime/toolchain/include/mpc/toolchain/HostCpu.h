//===- HostCpu.h - What the host CPU can run ------------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Host kernels are compiled for the highest x86-64 level the compiling CPU
// runs: x86-64-v4 (AVX-512), x86-64-v3 (AVX2, FMA, F16C, BMI2) or x86-64;
// the CPU backend refuses kernels of a level this CPU does not run. Both
// ask here.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_TOOLCHAIN_HOSTCPU_H
#define MPC_TOOLCHAIN_HOSTCPU_H

namespace mpc::rt {

/// Whether this CPU runs x86-64-v3 code (AVX2, FMA, F16C and BMI2).
bool cpuIsX8664V3();

/// Whether this CPU runs x86-64-v4 code: x86-64-v3's, and AVX-512's F, BW,
/// CD, DQ and VL.
bool cpuIsX8664V4();

/// Whether this CPU runs code of x86-64 level `level` ("x86-64",
/// "x86-64-v3", "x86-64-v4"); false for any other name.
bool cpuRunsX8664Level(const char *level);

/// Whether this CPU has AVX-512 and runs its 512-bit multiply-adds at full
/// width, as far as the CPUID family tells: any x86-64 CPU with AVX-512F
/// except AMD's family 19h (Zen 4), which splits each into two 256-bit
/// halves, so that oneDNN's AVX-512 kernels have no wider units than
/// OpenBLAS's AVX2 ones there. A heuristic: mobile Zen 5 parts (family
/// 1Ah) also run AVX-512 on 256-bit datapaths and count as full width.
bool cpuHasFullWidthAvx512();

} // namespace mpc::rt

#endif // MPC_TOOLCHAIN_HOSTCPU_H
