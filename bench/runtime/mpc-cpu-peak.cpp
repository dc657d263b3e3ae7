//===- mpc-cpu-peak.cpp - one core's peak multiply-add rates --------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Measures what one core of this CPU can do at most, the floor under any GEMM
// on it: fp32 fused multiply-adds (AVX-512 or AVX2 FMA, whichever is faster
// here) and bf16 dot products into fp32 (AVX512-BF16's vdpbf16ps), each as
// twelve independent chains in registers, no memory traffic. A GEMM's time
// divided by its flops at these rates says how close to the core's peak it runs
// (bench/results/2026-12-02-cpu-vs-pytorch-4.md).
//
// Then the ceiling of a GEMM's inner kernel: a register tile of C (14 x 32 with
// AVX-512 or 6 x 16 with AVX2, whichever is faster here) summing products of
// packed panels of A and B that stay in the L1 cache, filled with random values
// as a GEMM's operands are. That is the peak less what any GEMM kernel pays on
// real data: the loads and broadcasts of its operands, and whatever the core's
// clock gives up to random operands against the constant ones of the chains (on
// the Zen 4 VM of bench/results/2026-12-03-cpu-vs-pytorch-13.md the tile ran at
// a median 97% of the chains' rate, fp32 and bf16). x86-64 only; prints JSON.
//
//===----------------------------------------------------------------------===//

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr char kUsage[] =
    "usage: mpc-cpu-peak [--milliseconds N]\n"
    "\n"
    "Measures one core's peak fp32 multiply-add rate (AVX-512 or AVX2 FMA) and\n"
    "bf16 dot-product rate (AVX512-BF16), as GFLOP/s (a multiply-add is two\n"
    "flops), then the rate of a GEMM kernel's register tile over random operands\n"
    "in the L1 cache, fp32 and bf16: what a GEMM's inner loop can reach at most.\n"
    "Each is the best of three runs of about N ms (default 300), on one thread.\n"
    "Prints JSON; a rate this CPU has no instructions for is null.\n";

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

/// Random operands for the GEMM kernels: packed panels of A and B, `depth`
/// deep, that fit in the L1 cache together, and a C tile per call.
struct Panels {
  static constexpr int kDepth = 128; // (pairs of products for bf16)
  std::vector<float> a, b, c;
  Panels(int rows, int columns) {
    std::mt19937 engine(7);
    std::uniform_real_distribution<float> value(-0.5f, 0.5f);
    a.resize(static_cast<size_t>(rows) * kDepth + 16);
    b.resize(static_cast<size_t>(columns) * kDepth + 16);
    c.assign(static_cast<size_t>(rows) * columns, 0.0f);
    for (float &x : a)
      x = value(engine);
    for (float &x : b)
      x = value(engine);
  }
  /// A float's bits as two bf16 values (random mantissas, exponent of about
  /// 0.25-0.5): what vdpbf16ps reads from a 32-bit lane.
  static void asBf16Pairs(std::vector<float> &values) {
    for (float &x : values) {
      uint32_t bits;
      std::memcpy(&bits, &x, sizeof bits);
      bits = (bits & 0x807f807fu) | 0x3e803e80u;
      std::memcpy(&x, &bits, sizeof bits);
    }
  }
};

constexpr int kZmmRows = 14, kZmmColumns = 32, kYmmRows = 6, kYmmColumns = 16;

/// One pass of a 14 x 32 fp32 tile over the panels (28 zmm accumulators).
__attribute__((target("avx512f"), noinline)) void tileZmm(const float *a, const float *b,
                                                          float *c) {
  __m512 left[kZmmRows], right[kZmmRows];
  for (int i = 0; i < kZmmRows; ++i)
    left[i] = right[i] = _mm512_setzero_ps();
  for (int p = 0; p < Panels::kDepth; ++p) {
    const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 14
    for (int i = 0; i < kZmmRows; ++i) {
      const __m512 x = _mm512_set1_ps(a[i]);
      left[i] = _mm512_fmadd_ps(x, b0, left[i]);
      right[i] = _mm512_fmadd_ps(x, b1, right[i]);
    }
    a += kZmmRows;
    b += kZmmColumns;
  }
  for (int i = 0; i < kZmmRows; ++i) {
    float *row = c + i * kZmmColumns;
    _mm512_storeu_ps(row, _mm512_add_ps(left[i], _mm512_loadu_ps(row)));
    _mm512_storeu_ps(row + 16, _mm512_add_ps(right[i], _mm512_loadu_ps(row + 16)));
  }
}

/// One pass of a 6 x 16 fp32 tile over the panels (12 ymm accumulators).
__attribute__((target("avx2,fma"), noinline)) void tileYmm(const float *a, const float *b,
                                                           float *c) {
  __m256 left[kYmmRows], right[kYmmRows];
  for (int i = 0; i < kYmmRows; ++i)
    left[i] = right[i] = _mm256_setzero_ps();
  for (int p = 0; p < Panels::kDepth; ++p) {
    const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 6
    for (int i = 0; i < kYmmRows; ++i) {
      const __m256 x = _mm256_broadcast_ss(a + i);
      left[i] = _mm256_fmadd_ps(x, b0, left[i]);
      right[i] = _mm256_fmadd_ps(x, b1, right[i]);
    }
    a += kYmmRows;
    b += kYmmColumns;
  }
  for (int i = 0; i < kYmmRows; ++i) {
    float *row = c + i * kYmmColumns;
    _mm256_storeu_ps(row, _mm256_add_ps(left[i], _mm256_loadu_ps(row)));
    _mm256_storeu_ps(row + 8, _mm256_add_ps(right[i], _mm256_loadu_ps(row + 8)));
  }
}

/// One pass of a 14 x 32 bf16 tile: each 32-bit lane of the panels holds a
/// pair of bf16 values, each vdpbf16ps sums 32 products into 16 lanes.
__attribute__((target("avx512f,avx512bf16"), noinline)) void tileBf16(const float *a,
                                                                      const float *b, float *c) {
  __m512 left[kZmmRows], right[kZmmRows];
  for (int i = 0; i < kZmmRows; ++i)
    left[i] = right[i] = _mm512_setzero_ps();
  for (int p = 0; p < Panels::kDepth; ++p) {
    const __m512bh b0 = (__m512bh)_mm512_castps_si512(_mm512_loadu_ps(b));
    const __m512bh b1 = (__m512bh)_mm512_castps_si512(_mm512_loadu_ps(b + 16));
#pragma GCC unroll 14
    for (int i = 0; i < kZmmRows; ++i) {
      const __m512bh x = (__m512bh)_mm512_castps_si512(_mm512_set1_ps(a[i]));
      left[i] = _mm512_dpbf16_ps(left[i], x, b0);
      right[i] = _mm512_dpbf16_ps(right[i], x, b1);
    }
    a += kZmmRows;
    b += kZmmColumns;
  }
  for (int i = 0; i < kZmmRows; ++i) {
    float *row = c + i * kZmmColumns;
    _mm512_storeu_ps(row, _mm512_add_ps(left[i], _mm512_loadu_ps(row)));
    _mm512_storeu_ps(row + 16, _mm512_add_ps(right[i], _mm512_loadu_ps(row + 16)));
  }
}

/// `iterations` passes of `tile` over `panels`, for bestRate to time.
template <typename Tile> auto tilePasses(Tile tile, Panels &panels) {
  return [tile, &panels](long iterations) {
    for (long n = 0; n < iterations; ++n)
      tile(panels.a.data(), panels.b.data(), panels.c.data());
    return panels.c[0];
  };
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
  // The GEMM kernels' ceilings: 2 flops per product, depth x rows x columns
  // products a pass (twice the depth's products for bf16 pairs).
  // The faster of the zmm and the ymm tile, as for the peak.
  const bool avx512 = __builtin_cpu_supports("avx512f");
  Panels wide(kZmmRows, kZmmColumns), narrow(kYmmRows, kYmmColumns);
  const double zmmPass = 2.0 * Panels::kDepth * kZmmRows * kZmmColumns;
  const double ymmKernel = bestRate(tilePasses(tileYmm, narrow),
                                    2.0 * Panels::kDepth * kYmmRows * kYmmColumns, milliseconds);
  const double zmmKernel = avx512 ? bestRate(tilePasses(tileZmm, wide), zmmPass, milliseconds) : 0;
  double bf16Kernel = 0;
  if (bf16 > 0) {
    Panels::asBf16Pairs(wide.a);
    Panels::asBf16Pairs(wide.b);
    bf16Kernel = bestRate(tilePasses(tileBf16, wide), 2 * zmmPass, milliseconds);
  }
  std::printf("{\"fp32_fma_gflops\": %s, \"fp32_fma\": \"%s\", \"bf16_dot_gflops\": %s, "
              "\"fp32_gemm_kernel_gflops\": %s, \"fp32_gemm_kernel\": \"%s\", "
              "\"bf16_gemm_kernel_gflops\": %s}\n",
              number(std::max(ymm, zmm)).c_str(), zmm > ymm ? "avx512 zmm" : "avx2 ymm",
              bf16 > 0 ? number(bf16).c_str() : "null",
              number(std::max(ymmKernel, zmmKernel)).c_str(),
              zmmKernel > ymmKernel ? "14x32 zmm" : "6x16 ymm",
              bf16Kernel > 0 ? number(bf16Kernel).c_str() : "null");
  return 0;
}
