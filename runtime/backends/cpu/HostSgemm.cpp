//===- HostSgemm.cpp - mpc's own fp32 GEMM for AVX-512 CPUs ---------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Loops, outermost first: blocks of the sum (at most kMaxDepth deep, all of
// the same depth but the last); in each, op(A) is packed whole, kRows rows
// per panel; then blocks of kBlockColumns columns of op(B), packed kColumns
// columns per panel (256 KiB: it stays in the L2 cache); then A's panels,
// each kept in the L1 cache while the kernel runs it against every panel of
// the B block. A tail of fewer rows runs a kernel of that many rows; a
// tail of fewer columns is padded with zeros and stored under a mask.
//
//===----------------------------------------------------------------------===//

#include "HostSgemm.h"

#include "CpuSettings.h"
#include "mpc/toolchain/HostCpu.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <utility>

#if defined(__linux__)
#include <sched.h>
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define MPC_HOST_SGEMM 1
#endif

namespace mpc::rt {

namespace {

#ifdef MPC_HOST_SGEMM
#define MPC_AVX512 __attribute__((target("avx512f")))

constexpr int kRows = HostSgemm::kRows;
constexpr int kColumns = HostSgemm::kColumns;
constexpr int64_t kBlockColumns = 256;

/// The lanes of a row of `count` (at most kColumns) columns in each of a
/// kernel row's two vectors.
MPC_AVX512 inline std::pair<__mmask16, __mmask16> columnMasks(int count) {
  auto lanes = [](int n) {
    return n >= 16 ? __mmask16(0xffff) : n <= 0 ? __mmask16(0) : __mmask16((1u << n) - 1);
  };
  return {lanes(count), lanes(count - 16)};
}

/// C's rows [0, kTileRows) x columns [0, columns) = the product of a packed
/// panel of A (depth x kRows, its first kTileRows rows used) and a packed
/// panel of B (depth x kColumns), plus `scaleC` times C's values (which a
/// `scaleC` of 0 leaves unread).
template <int kTileRows>
MPC_AVX512 void kernel(int depth, const float *panelA, const float *panelB, float *c, int64_t ldc,
                       int columns, float scaleC) {
  __m512 left[kTileRows], right[kTileRows];
#pragma GCC unroll 14
  for (int i = 0; i < kTileRows; ++i) {
    left[i] = _mm512_setzero_ps();
    right[i] = _mm512_setzero_ps();
  }
  if (scaleC != 0.0f) // C's lines, on their way while the products are summed
    for (int i = 0; i < kTileRows; ++i) {
      _mm_prefetch(reinterpret_cast<const char *>(c + i * ldc), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char *>(c + i * ldc + 16), _MM_HINT_T0);
    }
  for (int p = 0; p < depth; ++p) {
    const __m512 b0 = _mm512_load_ps(panelB), b1 = _mm512_load_ps(panelB + 16);
#pragma GCC unroll 14
    for (int i = 0; i < kTileRows; ++i) {
      const __m512 a = _mm512_set1_ps(panelA[i]);
      left[i] = _mm512_fmadd_ps(a, b0, left[i]);
      right[i] = _mm512_fmadd_ps(a, b1, right[i]);
    }
    panelA += kRows;
    panelB += kColumns;
  }
  const auto [mask0, mask1] = columnMasks(columns);
#pragma GCC unroll 14
  for (int i = 0; i < kTileRows; ++i) {
    float *row = c + i * ldc;
    __m512 v0 = left[i], v1 = right[i];
    if (scaleC == 1.0f) {
      v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(mask0, row));
      v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(mask1, row + 16));
    } else if (scaleC != 0.0f) {
      const __m512 scale = _mm512_set1_ps(scaleC);
      v0 = _mm512_fmadd_ps(scale, _mm512_maskz_loadu_ps(mask0, row), v0);
      v1 = _mm512_fmadd_ps(scale, _mm512_maskz_loadu_ps(mask1, row + 16), v1);
    }
    _mm512_mask_storeu_ps(row, mask0, v0);
    _mm512_mask_storeu_ps(row + 16, mask1, v1);
  }
}

using Kernel = void (*)(int, const float *, const float *, float *, int64_t, int, float);

template <int... kTails>
constexpr std::array<Kernel, sizeof...(kTails)>
kernelsByRows(std::integer_sequence<int, kTails...>) {
  return {&kernel<kTails + 1>...};
}
/// kKernels[r - 1] computes r rows.
constexpr auto kKernels = kernelsByRows(std::make_integer_sequence<int, kRows>());

/// Transposes 16 rows of 16 floats in registers: rows[i] holds row i on
/// entry and column i on return.
MPC_AVX512 inline void transpose16(__m512 rows[16]) {
  __m512 pairs[16], quads[16];
  for (int i = 0; i < 16; i += 2) {
    pairs[i] = _mm512_unpacklo_ps(rows[i], rows[i + 1]);
    pairs[i + 1] = _mm512_unpackhi_ps(rows[i], rows[i + 1]);
  }
  // quads[4g + c], 128-bit lane L: rows 4g..4g+3 of column 4L + c.
  for (int g = 0; g < 4; ++g) {
    quads[4 * g + 0] = _mm512_shuffle_ps(pairs[4 * g], pairs[4 * g + 2], 0x44);
    quads[4 * g + 1] = _mm512_shuffle_ps(pairs[4 * g], pairs[4 * g + 2], 0xEE);
    quads[4 * g + 2] = _mm512_shuffle_ps(pairs[4 * g + 1], pairs[4 * g + 3], 0x44);
    quads[4 * g + 3] = _mm512_shuffle_ps(pairs[4 * g + 1], pairs[4 * g + 3], 0xEE);
  }
  // Column 4L + c gathers lane L of quads[c], quads[4 + c], quads[8 + c] and
  // quads[12 + c].
  for (int c = 0; c < 4; ++c) {
    const __m512 evenLo = _mm512_shuffle_f32x4(quads[c], quads[4 + c], 0x88);
    const __m512 oddLo = _mm512_shuffle_f32x4(quads[c], quads[4 + c], 0xDD);
    const __m512 evenHi = _mm512_shuffle_f32x4(quads[8 + c], quads[12 + c], 0x88);
    const __m512 oddHi = _mm512_shuffle_f32x4(quads[8 + c], quads[12 + c], 0xDD);
    rows[c] = _mm512_shuffle_f32x4(evenLo, evenHi, 0x88);
    rows[8 + c] = _mm512_shuffle_f32x4(evenLo, evenHi, 0xDD);
    rows[4 + c] = _mm512_shuffle_f32x4(oddLo, oddHi, 0x88);
    rows[12 + c] = _mm512_shuffle_f32x4(oddLo, oddHi, 0xDD);
  }
}

/// Loads `count` (at most 16) floats of each of `rowCount` (at most 16)
/// rows `stride` apart, zeros for the rest, and transposes them.
MPC_AVX512 inline void loadTransposed(const float *from, int64_t stride, int rowCount, int count,
                                      __m512 rows[16]) {
  const __mmask16 lanes = count >= 16 ? __mmask16(0xffff) : __mmask16((1u << count) - 1);
  for (int i = 0; i < 16; ++i)
    rows[i] = i < rowCount ? _mm512_maskz_loadu_ps(lanes, from + i * stride) : _mm512_setzero_ps();
  transpose16(rows);
}

/// panel[p * kRows + r] = op(A)[row + r][from + p], for r < rowCount (zero
/// beyond) and p < depth.
MPC_AVX512 void packA(bool transposeA, const float *a, int64_t lda, int64_t row, int rowCount,
                      int64_t from, int depth, float *panel) {
  constexpr __mmask16 kPanelLanes = (1u << kRows) - 1;
  if (transposeA) { // op(A)'s rows are a's columns: copy rows of a
    const __mmask16 lanes = __mmask16((1u << rowCount) - 1);
    for (int p = 0; p < depth; ++p)
      _mm512_mask_storeu_ps(panel + p * kRows, kPanelLanes,
                            _mm512_maskz_loadu_ps(lanes, a + (from + p) * lda + row));
    return;
  }
  for (int p0 = 0; p0 < depth; p0 += 16) {
    const int count = std::min(16, depth - p0);
    __m512 columns[16];
    loadTransposed(a + row * lda + from + p0, lda, rowCount, count, columns);
    for (int j = 0; j < count; ++j)
      _mm512_mask_storeu_ps(panel + (p0 + j) * kRows, kPanelLanes, columns[j]);
  }
}

/// panel[p * kColumns + c] = op(B)[from + p][column + c], for c <
/// columnCount (zero beyond) and p < depth.
MPC_AVX512 void packB(bool transposeB, const float *b, int64_t ldb, int64_t column, int columnCount,
                      int64_t from, int depth, float *panel) {
  if (!transposeB) {
    const auto [mask0, mask1] = columnMasks(columnCount);
    for (int p = 0; p < depth; ++p) {
      const float *source = b + (from + p) * ldb + column;
      _mm512_store_ps(panel + p * kColumns, _mm512_maskz_loadu_ps(mask0, source));
      _mm512_store_ps(panel + p * kColumns + 16, _mm512_maskz_loadu_ps(mask1, source + 16));
    }
    return;
  }
  for (int half = 0; half < 2; ++half) { // op(B)'s columns are b's rows
    const int first = half * 16, rowCount = std::clamp(columnCount - first, 0, 16);
    for (int p0 = 0; p0 < depth; p0 += 16) {
      const int count = std::min(16, depth - p0);
      __m512 columns[16];
      loadTransposed(b + (column + first) * ldb + from + p0, ldb, rowCount, count, columns);
      for (int j = 0; j < count; ++j)
        _mm512_store_ps(panel + (p0 + j) * kColumns + first, columns[j]);
    }
  }
}

/// `count` floats of `storage` from a 64-byte boundary.
float *aligned(std::vector<float> &storage, size_t count) {
  if (storage.size() < count + 16)
    storage.resize(count + 16);
  const auto address = reinterpret_cast<uintptr_t>(storage.data());
  return reinterpret_cast<float *>((address + 63) & ~uintptr_t(63));
}

MPC_AVX512 void multiplyAvx512(bool transposeA, bool transposeB, int64_t m, int64_t n, int64_t k,
                               const float *a, const float *b, float beta, float *c,
                               std::vector<float> &packedA, std::vector<float> &packedB) {
  if (k == 0) {
    for (int64_t i = 0; i < m * n; ++i)
      c[i] = beta == 0.0f ? 0.0f : beta * c[i];
    return;
  }
  const int64_t lda = transposeA ? m : k, ldb = transposeB ? k : n, ldc = n;
  const int64_t depthBlocks = (k + HostSgemm::kMaxDepth - 1) / HostSgemm::kMaxDepth;
  // Blocks of about equal depth, a multiple of 8 (784 = 200 x 3 + 184, not
  // 256 x 3 + 16: each block reads and writes C once more).
  const int64_t blockDepth =
      std::min<int64_t>(HostSgemm::kMaxDepth, ((k + depthBlocks - 1) / depthBlocks + 7) / 8 * 8);
  const int64_t panelsA = (m + kRows - 1) / kRows;
  float *panelsOfA = aligned(packedA, static_cast<size_t>(panelsA * kRows * blockDepth));
  float *panelsOfB = aligned(packedB, static_cast<size_t>(kBlockColumns * blockDepth));
  for (int64_t from = 0; from < k; from += blockDepth) {
    const int depth = static_cast<int>(std::min(blockDepth, k - from));
    // The first block adds beta times C's old values, the others the sums so far.
    const float scaleC = from > 0 ? 1.0f : beta;
    for (int64_t panel = 0; panel < panelsA; ++panel)
      packA(transposeA, a, lda, panel * kRows,
            static_cast<int>(std::min<int64_t>(kRows, m - panel * kRows)), from, depth,
            panelsOfA + panel * kRows * depth);
    for (int64_t column = 0; column < n; column += kBlockColumns) {
      const int columns = static_cast<int>(std::min(kBlockColumns, n - column));
      const int panelsB = (columns + kColumns - 1) / kColumns;
      for (int panel = 0; panel < panelsB; ++panel)
        packB(transposeB, b, ldb, column + panel * kColumns,
              std::min(kColumns, columns - panel * kColumns), from, depth,
              panelsOfB + panel * kColumns * depth);
      for (int64_t panelA = 0; panelA < panelsA; ++panelA) {
        const int rows = static_cast<int>(std::min<int64_t>(kRows, m - panelA * kRows));
        const Kernel run = kKernels[rows - 1];
        for (int panelB = 0; panelB < panelsB; ++panelB)
          run(depth, panelsOfA + panelA * kRows * depth, panelsOfB + panelB * kColumns * depth,
              c + panelA * kRows * ldc + column + panelB * kColumns, ldc,
              std::min(kColumns, columns - panelB * kColumns), scaleC);
      }
    }
  }
}
#endif

} // namespace

bool HostSgemm::available() {
#ifdef MPC_HOST_SGEMM
  static const bool hasAvx512 = __builtin_cpu_supports("avx512f");
  return hasAvx512;
#else
  return false;
#endif
}

namespace {

/// Whether `name` is set to 1 ("1", or a list such as "1,4" whose first
/// level is 1); false when unset.
bool environmentSaysOne(const char *name) {
  const char *value = std::getenv(name);
  return value && value[0] == '1' && (value[1] == '\0' || value[1] == ',');
}

} // namespace

bool HostSgemm::singleThreaded() {
#if defined(__linux__)
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0 && CPU_COUNT(&allowed) == 1)
    return true;
#endif
#ifdef MPC_HAVE_ONEDNN
  return environmentSaysOne("OMP_NUM_THREADS");
#else
  if (std::getenv("OPENBLAS_NUM_THREADS"))
    return environmentSaysOne("OPENBLAS_NUM_THREADS");
  return environmentSaysOne("OMP_NUM_THREADS");
#endif
}

bool HostSgemm::usedByDefault() {
  return available() && !cpuHasFullWidthAvx512() && singleThreaded();
}

bool HostSgemm::fits(int64_t m, int64_t n, int64_t k) {
  return k >= kMinDepth && k <= kMaxDepth && m >= kMinRows && n >= kColumns;
}

bool HostSgemm::takes(int64_t m, int64_t n, int64_t k) {
  // Forced on: every shape; by default: the shapes that fit.
  static const std::optional<bool> forced = cpuSetting("MPC_CPU_HOST_SGEMM");
  static const bool byDefault = !forced && usedByDefault();
  return forced.value_or(false) || (byDefault && fits(m, n, k));
}

void HostSgemm::multiply(bool transposeA, bool transposeB, int64_t m, int64_t n, int64_t k,
                         const float *a, const float *b, float *c, float beta) {
#ifdef MPC_HOST_SGEMM
  if (available()) {
    multiplyAvx512(transposeA, transposeB, m, n, k, a, b, beta, c, packedA_, packedB_);
    return;
  }
#endif
  // Without AVX-512 (HostGemm does not call it then): the same sums in
  // plain loops.
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0.0f;
      for (int64_t p = 0; p < k; ++p)
        sum +=
            (transposeA ? a[p * m + i] : a[i * k + p]) * (transposeB ? b[j * k + p] : b[p * n + j]);
      c[i * n + j] = beta == 0.0f ? sum : sum + beta * c[i * n + j];
    }
}

} // namespace mpc::rt
