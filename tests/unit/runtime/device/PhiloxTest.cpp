//===- PhiloxTest.cpp - random.cuh against Random123 ----------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The generated kernels' Philox 4x32-10 (runtime/device/random.cuh) against
// the reference implementation of its authors (Random123, Debian's
// librandom123-dev): their published known-answer vectors, then a spread of
// counters and keys, and the element layout dropout draws with.
//
//===----------------------------------------------------------------------===//

#include "mpc/device/random.cuh"

#include <Random123/philox.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

namespace {

using Reference = r123::Philox4x32_R<10>;

mpc::Philox4x32 ours(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0, uint32_t k1) {
  return mpc::philox4x32_10({{c0, c1, c2, c3}}, k0, k1);
}

Reference::ctr_type reference(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0,
                              uint32_t k1) {
  Reference generator;
  Reference::ctr_type counter = {{c0, c1, c2, c3}};
  Reference::key_type key = {{k0, k1}};
  return generator(counter, key);
}

TEST(Philox, KnownAnswers) {
  // Random123's kat_vectors for philox4x32 with 10 rounds.
  mpc::Philox4x32 zero = ours(0, 0, 0, 0, 0, 0);
  EXPECT_EQ(zero.word[0], 0x6627e8d5u);
  EXPECT_EQ(zero.word[1], 0xe169c58du);
  EXPECT_EQ(zero.word[2], 0xbc57ac4cu);
  EXPECT_EQ(zero.word[3], 0x9b00dbd8u);
  mpc::Philox4x32 ones = ours(~0u, ~0u, ~0u, ~0u, ~0u, ~0u);
  EXPECT_EQ(ones.word[0], 0x408f276du);
  EXPECT_EQ(ones.word[1], 0x41c83b0eu);
  EXPECT_EQ(ones.word[2], 0xa20bc7c6u);
  EXPECT_EQ(ones.word[3], 0x6d5451fdu);
  mpc::Philox4x32 pi =
      ours(0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u);
  EXPECT_EQ(pi.word[0], 0xd16cfe09u);
  EXPECT_EQ(pi.word[1], 0x94fdccebu);
  EXPECT_EQ(pi.word[2], 0x5001e420u);
  EXPECT_EQ(pi.word[3], 0x24126ea1u);
}

TEST(Philox, MatchesRandom123) {
  std::mt19937 engine(7);
  int compared = 0;
  for (int trial = 0; trial < 10000; ++trial) {
    uint32_t v[6];
    for (uint32_t &word : v)
      word = engine();
    mpc::Philox4x32 got = ours(v[0], v[1], v[2], v[3], v[4], v[5]);
    Reference::ctr_type want = reference(v[0], v[1], v[2], v[3], v[4], v[5]);
    for (int w = 0; w < 4; ++w, ++compared)
      ASSERT_EQ(got.word[w], want.v[w]) << "trial " << trial << " word " << w;
  }
  EXPECT_EQ(compared, 40000);
}

TEST(Philox, DropoutLayout) {
  // Element e of stream s in run r under seed k: word e % 4 of the counter
  // (e / 4, s, r low, r high) under key (k low, k high).
  const uint64_t seed = 0x0123456789abcdefull, run = 0x100000002ull;
  for (int64_t element : {0, 1, 2, 3, 4, 7, 1000, 4095}) {
    Reference::ctr_type want =
        reference(static_cast<uint32_t>(element / 4), 5, 2, 1, 0x89abcdefu, 0x01234567u);
    EXPECT_EQ(mpc::dropout_bits(seed, run, 5, element), want.v[element % 4]) << element;
  }
  // Another stream, run or seed draws other bits.
  EXPECT_NE(mpc::dropout_bits(seed, run, 5, 9), mpc::dropout_bits(seed, run, 6, 9));
  EXPECT_NE(mpc::dropout_bits(seed, run, 5, 9), mpc::dropout_bits(seed, run + 1, 5, 9));
  EXPECT_NE(mpc::dropout_bits(seed, run, 5, 9), mpc::dropout_bits(seed ^ 1, run, 5, 9));
}

} // namespace
