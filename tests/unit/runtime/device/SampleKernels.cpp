//===- SampleKernels.cpp - the sample kernels built for the host ----------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Builds SampleKernels.cu with the host compiler into a loadable module, the
// way the CPU backend builds generated kernels into a shared object.
//
//===----------------------------------------------------------------------===//

#include "SampleKernels.cu"
