//===- Initializers.h - initial values of parameters and state ------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The runtime gives every parameter and piece of state its initial value at
// load (the initializers are described in Manifest.h). Random values are
// reproducible across platforms and independent of the order in which the
// manifest lists the parameters: each tensor draws from its own
// std::mt19937_64 seeded with SplitMix64(FNV-1a 64(name) ^ seed); uniform
// draws take the top 53 bits of one output, normal draws use Box-Muller on
// two uniform draws (both results, cosine first). Values are computed in
// double and stored as described for narrowElements (Elements.h).
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_INITIALIZERS_H
#define MPC_RUNTIME_INITIALIZERS_H

#include "mpc/format/Manifest.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mpc::rt {

/// The seed of the random stream of tensor `name` under program seed `seed`.
uint64_t tensorSeed(const std::string &name, uint64_t seed);

/// (fan_in, fan_out) of a shape of rank 2 or more.
std::pair<int64_t, int64_t> fans(const std::vector<int64_t> &shape);

/// Writes the initial value of `param` (a verified parameter) to `out`, which
/// holds tensorBytes(param.dtype, param.shape) bytes.
void initializeParam(const ParamSpec &param, uint64_t seed, void *out);

} // namespace mpc::rt

#endif // MPC_RUNTIME_INITIALIZERS_H
