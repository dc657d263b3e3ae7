//===- Hash.h - 64-bit content hashes (XXH3) ------------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Bundle checksums and the names of cached kernels and host objects are
// XXH3-64 hashes (xxHash, Debian's libxxhash-dev, used header-only here):
// fast enough to check a 100 MB bundle at memory speed, and with the
// avalanche a byte-at-a-time hash lacks. A Hasher hashes a sequence of byte
// ranges as if they were one.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_FORMAT_HASH_H
#define MPC_FORMAT_HASH_H

#include <cstddef>
#include <cstdint>
#include <memory>

namespace mpc::rt {

/// The XXH3-64 hash (seed 0) of `size` bytes at `data`.
uint64_t hash64(const void *data, size_t size);

/// XXH3-64 over bytes given in pieces: update(a); update(b) hashes what
/// hash64 of a followed by b would.
class Hasher {
public:
  Hasher();
  ~Hasher();
  Hasher(const Hasher &) = delete;
  Hasher &operator=(const Hasher &) = delete;

  void update(const void *data, size_t size);
  /// The hash of everything given so far; update may go on after it.
  uint64_t digest() const;

private:
  struct State;
  std::unique_ptr<State> state_;
};

} // namespace mpc::rt

#endif // MPC_FORMAT_HASH_H
