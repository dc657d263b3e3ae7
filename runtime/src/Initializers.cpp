//===- Initializers.cpp - initial values of parameters and state ----------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "Initializers.h"

#include "Elements.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

namespace mpc::rt {

namespace {

uint64_t splitMix64(uint64_t state) {
  uint64_t z = state + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// The random stream of one tensor. The standard library's distributions
/// are implementation-defined; these draws are the same everywhere.
class TensorRandom {
public:
  explicit TensorRandom(uint64_t seed) : engine_(seed) {}

  /// 64 random bits.
  uint64_t bits() { return engine_(); }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1p-53; }

  /// Standard normal.
  double normal() {
    if (hasSpare_) {
      hasSpare_ = false;
      return spare_;
    }
    double u1 = 1.0 - uniform(); // in (0, 1], so the logarithm is finite
    double u2 = uniform();
    double radius = std::sqrt(-2.0 * std::log(u1));
    double angle = 2.0 * M_PI * u2;
    spare_ = radius * std::sin(angle);
    hasSpare_ = true;
    return radius * std::cos(angle);
  }

private:
  std::mt19937_64 engine_;
  bool hasSpare_ = false;
  double spare_ = 0.0;
};

} // namespace

/// FNV-1a 64 of the name: part of the definition of the initial values
/// (Initializers.h), so it stays what it was when checksums moved to XXH3;
/// a change here would change every initialised parameter.
static uint64_t nameHash(const std::string &name) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char byte : name) {
    hash ^= byte;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

uint64_t tensorSeed(const std::string &name, uint64_t seed) {
  return splitMix64(nameHash(name) ^ seed);
}

std::pair<int64_t, int64_t> fans(const std::vector<int64_t> &shape) {
  if (shape.size() == 2)
    return {shape[0], shape[1]};
  int64_t receptive = 1;
  for (size_t i = 2; i < shape.size(); ++i)
    receptive *= shape[i];
  return {shape[1] * receptive, shape[0] * receptive};
}

void initializeParam(const ParamSpec &param, uint64_t seed, void *out) {
  size_t count = static_cast<size_t>(elementCount(param.shape).value_or(0));
  if (count == 0)
    return;
  const Initializer &init = param.init;
  TensorRandom random(tensorSeed(param.name, seed));
  if (init.kind == InitKind::Seed) {
    // Raw bits, which a double would not hold (a verified i32 or i64 dtype).
    for (size_t i = 0; i < count; ++i) {
      uint64_t bits = random.bits();
      if (param.dtype == DType::I64)
        std::memcpy(static_cast<char *>(out) + 8 * i, &bits, 8);
      else {
        uint32_t low = static_cast<uint32_t>(bits);
        std::memcpy(static_cast<char *>(out) + 4 * i, &low, 4);
      }
    }
    return;
  }
  std::vector<double> values(count);
  switch (init.kind) {
  case InitKind::Zeros:
    break;
  case InitKind::Ones:
    std::fill(values.begin(), values.end(), 1.0);
    break;
  case InitKind::Constant:
    std::fill(values.begin(), values.end(), init.arg("value"));
    break;
  case InitKind::Normal:
    for (double &value : values)
      value = init.arg("mean") + init.arg("std") * random.normal();
    break;
  case InitKind::Uniform: {
    double low = init.arg("low"), high = init.arg("high");
    for (double &value : values)
      value = low + (high - low) * random.uniform();
    break;
  }
  case InitKind::GlorotUniform: {
    auto [fanIn, fanOut] = fans(param.shape);
    double bound =
        init.arg("gain") * std::sqrt(6.0 / static_cast<double>(fanIn + fanOut));
    for (double &value : values)
      value = bound * (2.0 * random.uniform() - 1.0);
    break;
  }
  case InitKind::Seed:
    break; // (above)
  case InitKind::HeNormal: {
    double std = init.arg("gain") /
                 std::sqrt(static_cast<double>(fans(param.shape).first));
    for (double &value : values)
      value = std * random.normal();
    break;
  }
  }
  narrowElements(values.data(), param.dtype, out, count);
}

} // namespace mpc::rt
