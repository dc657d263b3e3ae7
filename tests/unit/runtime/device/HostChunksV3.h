//===- HostChunksV3.h - the chunk conversions built for x86-64-v3 -*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// mpc::narrow_chunk and mpc::widen_chunk of pointwise.cuh compiled for
// x86-64-v3 (HostChunksV3.cpp); fp16 and bf16 values as their bits. Call
// them only on a CPU with AVX2, FMA and F16C.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_TESTS_UNIT_RUNTIME_DEVICE_HOSTCHUNKSV3_H
#define MPC_TESTS_UNIT_RUNTIME_DEVICE_HOSTCHUNKSV3_H

#include <cstdint>

namespace mpc::testing {

void narrowHalfChunkV3(const float *source, uint16_t *target, int64_t n);
void narrowBf16ChunkV3(const float *source, uint16_t *target, int64_t n);
void widenHalfChunkV3(const uint16_t *source, float *target, int64_t n);
void widenBf16ChunkV3(const uint16_t *source, float *target, int64_t n);

} // namespace mpc::testing

#endif // MPC_TESTS_UNIT_RUNTIME_DEVICE_HOSTCHUNKSV3_H
