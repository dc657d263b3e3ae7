//===- HostChunksV3.cpp - the chunk conversions as x86-64-v3 kernels see them ===//
//
// Part of mpc, a mixed-precision training compiler.
//
// A module of its own, compiled with -march=x86-64-v3 as the CPU backend's
// kernels are on a CPU with AVX2, FMA and F16C, so that narrow_chunk and
// widen_chunk take their vector paths (F16C for fp16, AVX2 for bf16
// narrowing; bf16 widening is the compiler's vectorised shift).
// HostChunksTest loads it with dlopen only on a CPU that runs such code: in
// the test executable itself its inline functions would be the same
// functions as the generic ones of the other tests, one copy of each kept by
// the linker. Values in fp16 and bf16 are passed as their bits. It is built
// a second time with -march=x86-64-v4, as kernels are on a CPU with
// AVX-512 (mpc-device-chunks-v4).
//
//===----------------------------------------------------------------------===//

#include "mpc/device/pointwise.cuh"

#include <cstdint>

#if !defined(MPC_HOST_F16C) || !defined(__AVX2__)
#error "HostChunksV3.cpp must be compiled for x86-64-v3"
#endif

#define MPC_CHUNKS_EXPORT extern "C" __attribute__((visibility("default")))

MPC_CHUNKS_EXPORT void mpc_narrow_half_chunk(const float *source, uint16_t *target,
                                             int64_t n) {
  mpc::narrow_chunk(source, reinterpret_cast<mpc::half_t *>(target), n);
}

MPC_CHUNKS_EXPORT void mpc_narrow_bf16_chunk(const float *source, uint16_t *target,
                                             int64_t n) {
  mpc::narrow_chunk(source, reinterpret_cast<mpc::bf16_t *>(target), n);
}

MPC_CHUNKS_EXPORT void mpc_widen_half_chunk(const uint16_t *source, float *target, int64_t n) {
  mpc::widen_chunk(reinterpret_cast<const mpc::half_t *>(source), target, n);
}

MPC_CHUNKS_EXPORT void mpc_widen_bf16_chunk(const uint16_t *source, float *target, int64_t n) {
  mpc::widen_chunk(reinterpret_cast<const mpc::bf16_t *>(source), target, n);
}
