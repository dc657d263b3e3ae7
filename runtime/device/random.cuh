//===- random.cuh - counter-based random bits for generated kernels -------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Philox 4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC 2011): four 32-bit words of a counter and two of a key give four
// random words, with integer arithmetic only, so that the GPU and the host
// draw the same bits for the same (key, counter) and an element's bits do
// not depend on which thread or lane computes it. The tests check it
// against Random123's own implementation (tests/unit/runtime/
// PhiloxTest.cpp).
//
// Dropout (mpg.dropout) draws with
//   key     = (seed low, seed high),
//   counter = (element / 4, stream, run low, run high),
// and element e of the tensor takes word e % 4: `seed` and `run` are the
// op's key operands (a per-run seed and a run counter kept as persistent
// state), `stream` is the op's own number, so two dropouts of one step and
// two runs of one dropout draw independent bits.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_DEVICE_RANDOM_CUH
#define MPC_DEVICE_RANDOM_CUH

#include "mpc/device/platform.cuh"

namespace mpc {

struct Philox4x32 {
  uint32_t word[4];
};

/// The high and low 32 bits of a * b.
MPC_HD void mul_hi_lo(uint32_t a, uint32_t b, uint32_t &hi, uint32_t &lo) {
  const uint64_t product = static_cast<uint64_t>(a) * static_cast<uint64_t>(b);
  hi = static_cast<uint32_t>(product >> 32);
  lo = static_cast<uint32_t>(product);
}

/// Philox 4x32 with 10 rounds of `counter` under key (k0, k1).
MPC_HD Philox4x32 philox4x32_10(Philox4x32 counter, uint32_t k0, uint32_t k1) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  uint32_t *c = counter.word;
  for (int round = 0; round < 10; ++round) {
    uint32_t hi0, lo0, hi1, lo1;
    mul_hi_lo(kMul0, c[0], hi0, lo0);
    mul_hi_lo(kMul1, c[2], hi1, lo1);
    const uint32_t next0 = hi1 ^ c[1] ^ k0, next2 = hi0 ^ c[3] ^ k1;
    c[0] = next0;
    c[1] = lo1;
    c[2] = next2;
    c[3] = lo0;
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  return counter;
}

/// The 32 random bits of element `element` of dropout stream `stream` in
/// run `run` under `seed` (the layout above).
MPC_HD uint32_t dropout_bits(uint64_t seed, uint64_t run, uint32_t stream, int64_t element) {
  const uint64_t block = static_cast<uint64_t>(element) >> 2;
  Philox4x32 counter{{static_cast<uint32_t>(block), stream, static_cast<uint32_t>(run),
                      static_cast<uint32_t>(run >> 32)}};
  const Philox4x32 bits = philox4x32_10(counter, static_cast<uint32_t>(seed),
                                        static_cast<uint32_t>(seed >> 32));
  return bits.word[element & 3];
}

} // namespace mpc

#endif // MPC_DEVICE_RANDOM_CUH
