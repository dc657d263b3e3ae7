//===- HostChunksV3.cpp - the chunk conversions as x86-64-v3 kernels see them ===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Compiled with -march=x86-64-v3, as the CPU backend's kernels are on a CPU
// with AVX2, FMA and F16C, so that narrow_chunk and widen_chunk take their
// vector paths (F16C for fp16, AVX2 for bf16). HostChunksTest calls these
// only on a CPU that runs them; the rest of the tests are built for any
// x86-64.
//
//===----------------------------------------------------------------------===//

#include "HostChunksV3.h"

#include "mpc/device/pointwise.cuh"

#if !defined(MPC_HOST_F16C) || !defined(__AVX2__)
#error "HostChunksV3.cpp must be compiled for x86-64-v3"
#endif

namespace mpc::testing {

void narrowHalfChunkV3(const float *source, uint16_t *target, int64_t n) {
  narrow_chunk(source, reinterpret_cast<half_t *>(target), n);
}

void narrowBf16ChunkV3(const float *source, uint16_t *target, int64_t n) {
  narrow_chunk(source, reinterpret_cast<bf16_t *>(target), n);
}

void widenHalfChunkV3(const uint16_t *source, float *target, int64_t n) {
  widen_chunk(reinterpret_cast<const half_t *>(source), target, n);
}

void widenBf16ChunkV3(const uint16_t *source, float *target, int64_t n) {
  widen_chunk(reinterpret_cast<const bf16_t *>(source), target, n);
}

} // namespace mpc::testing
