//===- Hash.cpp - 64-bit content hashes (XXH3) ----------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "mpc/format/Hash.h"

// Header-only: the functions are compiled here, static, so that neither the
// runtime nor a GPU machine needs libxxhash.so.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace mpc::rt {

uint64_t hash64(const void *data, size_t size) { return XXH3_64bits(data, size); }

struct Hasher::State {
  XXH3_state_t xxh;
};

Hasher::Hasher() : state_(std::make_unique<State>()) { XXH3_64bits_reset(&state_->xxh); }

Hasher::~Hasher() = default;

void Hasher::update(const void *data, size_t size) { XXH3_64bits_update(&state_->xxh, data, size); }

uint64_t Hasher::digest() const { return XXH3_64bits_digest(&state_->xxh); }

} // namespace mpc::rt
