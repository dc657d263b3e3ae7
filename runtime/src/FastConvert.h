//===- FastConvert.h - fp16 and bf16 arrays to and from f32, fast ---------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The runtime converts whole tensors between storage types: GEMM operands
// widened for OpenBLAS, results rounded back, working copies derived from
// their masters. These do it eight elements at a time — fp16 with the
// CPU's F16C instructions when it has them (chosen at run time), bf16 with
// integer arithmetic the compiler vectorises — and give bitwise the values
// of the device headers' to_f32 and from_f32 (round to nearest even, NaN
// kept quiet), which the scalar tails use.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_FASTCONVERT_H
#define MPC_RUNTIME_FASTCONVERT_H

#include <cstddef>
#include <cstdint>

namespace mpc::rt {

void widenHalf(const uint16_t *source, float *target, size_t count);
void narrowToHalf(const float *source, uint16_t *target, size_t count);
void widenBf16(const uint16_t *source, float *target, size_t count);
void narrowToBf16(const float *source, uint16_t *target, size_t count);

/// Whether widenHalf and narrowToHalf use F16C on this CPU.
bool haveF16c();

} // namespace mpc::rt

#endif // MPC_RUNTIME_FASTCONVERT_H
