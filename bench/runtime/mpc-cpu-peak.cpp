//===- mpc-cpu-peak.cpp - one core's peak multiply-add rates --------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Measures what one core of this CPU can do at most, the floor under any
// GEMM on it: fp32 fused multiply-adds (AVX-512 or AVX2 FMA, whichever is
// faster here) and bf16 dot products into fp32 (AVX512-BF16's vdpbf16ps),
// each as twelve independent chains in registers, no memory traffic. A
// GEMM's time divided by its flops at these rates says how close to the
// core's peak it runs (bench/results/2026-12-02-cpu-vs-pytorch-4.md). x86-64
// only; prints JSON.
//
//===----------------------------------------------------------------------===//

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr char kUsage[] =
    "usage: mpc-cpu-peak [--milliseconds N]\n"
    "\n"
    "Measures one core's peak fp32 multiply-add rate (AVX-512 or AVX2 FMA) and\n"
    "bf16 dot-product rate (AVX512-BF16), as GFLOP/s (a multiply-add is two\n"
    "flops), the best of three runs of about N ms each (default 300), on one\n"
    "thread. Prints JSON; a rate this CPU has no instructions for is null.\n";

// Twelve chains: more than the FMA latency (4 cycles) times the units (2).
#define MPC_CHAINS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

/// Iterations of twelve zmm FMAs (16 lanes each); the sum keeps them live.
__attribute__((target("avx512f"))) float fmaZmm(long iterations) {
#define DECLARE(i)                                                                             \
  __m512 acc##i = _mm512_set1_ps(static_cast<float>(i));                                       \
  __asm__ volatile("" : "+v"(acc##i));
  MPC_CHAINS(DECLARE)
#undef DECLARE
  __m512 x = _mm512_set1_ps(1e-9f), y = _mm512_set1_ps(1.0f);
  for (long n = 0; n < iterations; ++n) {
#define STEP(i) acc##i = _mm512_fmadd_ps(x, y, acc##i);
    MPC_CHAINS(STEP)
#undef STEP
    __asm__ volatile("" : "+v"(x)); // (no hoisting out of the loop)
  }
  float sum = 0;
#define SUM(i) sum += _mm512_reduce_add_ps(acc##i);
  MPC_CHAINS(SUM)
#undef SUM
  return sum;
}

/// Iterations of twelve ymm FMAs (8 lanes each).
__attribute__((target("avx2,fma"))) float fmaYmm(long iterations) {
#define DECLARE(i)                                                                             \
  __m256 acc##i = _mm256_set1_ps(static_cast<float>(i));                                       \
  __asm__ volatile("" : "+x"(acc##i));
  MPC_CHAINS(DECLARE)
#undef DECLARE
  __m256 x = _mm256_set1_ps(1e-9f), y = _mm256_set1_ps(1.0f);
  for (long n = 0; n < iterations; ++n) {
#define STEP(i) acc##i = _mm256_fmadd_ps(x, y, acc##i);
    MPC_CHAINS(STEP)
#undef STEP
    __asm__ volatile("" : "+x"(x));
  }
  alignas(32) float lanes[8];
  __m256 total = _mm256_setzero_ps();
#define SUM(i) total = _mm256_add_ps(total, acc##i);
  MPC_CHAINS(SUM)
#undef SUM
  _mm256_store_ps(lanes, total);
  float sum = 0;
  for (float lane : lanes)
    sum += lane;
  return sum;
}

/// Iterations of twelve vdpbf16ps (32 bf16 products into 16 fp32 lanes each).
__attribute__((target("avx512f,avx512bf16"))) float dotBf16Zmm(long iterations) {
#define DECLARE(i)                                                                             \
  __m512 acc##i = _mm512_set1_ps(static_cast<float>(i));                                       \
  __asm__ volatile("" : "+v"(acc##i));
  MPC_CHAINS(DECLARE)
#undef DECLARE
  // bf16 1.0 in every element.
  __m512bh x = (__m512bh)_mm512_set1_epi16(0x3f80), y = x;
  for (long n = 0; n < iterations; ++n) {
#define STEP(i) acc##i = _mm512_dpbf16_ps(acc##i, x, y);
    MPC_CHAINS(STEP)
#undef STEP
    __asm__ volatile("" : "+v"(x));
  }
  float sum = 0;
#define SUM(i) sum += _mm512_reduce_add_ps(acc##i);
  MPC_CHAINS(SUM)
#undef SUM
  return sum;
}

/// The best rate of three runs of `kernel` of about `milliseconds` each, in
/// GFLOP/s, for `flopsPerIteration`.
template <typename Kernel>
double bestRate(Kernel kernel, double flopsPerIteration, int milliseconds) {
  using Clock = std::chrono::steady_clock;
  // Find an iteration count that takes about the time asked.
  long iterations = 1 << 16;
  for (;;) {
    auto start = Clock::now();
    kernel(iterations);
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (seconds * 1e3 >= milliseconds / 4.0 || iterations > (1L << 40))
      break;
    iterations *= 2;
  }
  iterations *= 4;
  double best = 0;
  volatile float sink = 0;
  for (int run = 0; run < 3; ++run) {
    auto start = Clock::now();
    sink = sink + kernel(iterations);
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    best = std::max(best, iterations * flopsPerIteration / seconds / 1e9);
  }
  return best;
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

} // namespace

int main(int argc, char **argv) {
  int milliseconds = 300;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (!std::strcmp(argv[i], "--milliseconds") && i + 1 < argc) {
      char *end = nullptr;
      long value = std::strtol(argv[++i], &end, 10);
      if (*argv[i] && !*end && value >= 1 && value <= 60000) {
        milliseconds = static_cast<int>(value);
        continue;
      }
      std::fprintf(stderr, "mpc-cpu-peak: --milliseconds expects an integer in [1, 60000], "
                           "got '%s'\n%s", argv[i], kUsage);
      return 2;
    }
    std::fprintf(stderr, "mpc-cpu-peak: unknown argument '%s'\n%s", argv[i], kUsage);
    return 2;
  }
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    std::fprintf(stderr, "mpc-cpu-peak: this CPU has no AVX2 FMA instructions\n");
    return 1;
  }
  // 12 chains x 8 lanes x 2 flops, 16 lanes for zmm; 32 products for bf16.
  double ymm = bestRate(fmaYmm, 12 * 8 * 2, milliseconds);
  double zmm = __builtin_cpu_supports("avx512f") ? bestRate(fmaZmm, 12 * 16 * 2, milliseconds)
                                                 : 0;
  double bf16 = __builtin_cpu_supports("avx512bf16")
                    ? bestRate(dotBf16Zmm, 12 * 32 * 2, milliseconds)
                    : 0;
  std::printf("{\"fp32_fma_gflops\": %s, \"fp32_fma\": \"%s\", \"bf16_dot_gflops\": %s}\n",
              number(std::max(ymm, zmm)).c_str(), zmm > ymm ? "avx512 zmm" : "avx2 ymm",
              bf16 > 0 ? number(bf16).c_str() : "null");
  return 0;
}
