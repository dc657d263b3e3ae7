//===- attention_bf16.cuh - host attention on bf16 dot products -----------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The host form of attention.cuh's kernels for bf16 operands on CPUs with
// AVX512-BF16. Its VDPBF16PS multiplies 32 pairs of bf16 numbers exactly and
// adds them pairwise into 16 fp32 sums: twice the products of an fp32 FMA on
// a vector of the same width. It is chosen at run time (`enabled()`), so a
// bundle's host kernels need no x86-64 level above their own.
//
// The algorithm and its blocks of kTile queries and keys are attention.cuh's;
// only the products change:
//   - q.k and dy.v: the bf16 operands as they are, fp32 sums;
//   - p v, ds k, p^T dy and ds^T q: the fp32 probabilities p and score
//     gradients ds rounded to bf16 (to nearest even) first, as a GPU's flash
//     attention rounds them for its tensor cores and as PyTorch's bf16
//     autocast rounds them for its matmuls. The softmax statistics (the
//     running maximum and sum, lse) and delta stay in fp32.
// VDPBF16PS counts subnormal bf16 operands as zero and flushes subnormal
// sums to zero.
//
// The products are blocks of a tile times a tile: each an R x N block of
// fp32 sums in vector registers, N = 16 V columns, summed over `steps` bf16
// pairs of a (broadcast, one a row) and b (a row of N pairs). Operands are
// packed a block at a time as 32-bit words, each a bf16 pair (the lower
// half first, as two bf16 numbers lie in memory):
//   - pairs along a row: x[r][2p], x[r][2p + 1] (q and dy as they are; k
//     and v transposed, as the scores' and dy.v's b operands),
//   - pairs across rows: x[2m][c], x[2m + 1][c] (the other products' b
//     operands, and p and ds for the keys' gradient, whose sums run over
//     queries).
// A task takes a batch entry's tiles and packs each block of its keys (or
// queries) once, when first used (PackedBlocks).
//
// MPC_HOST_BF16_DOT=0 in the environment turns it off: the fp32 form runs.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_DEVICE_ATTENTION_BF16_CUH
#define MPC_DEVICE_ATTENTION_BF16_CUH

#if !defined(__CUDACC__) && defined(__x86_64__) && (defined(__clang__) || __GNUC__ >= 10)
#define MPC_HOST_HAS_BF16_DOT 1

#include <immintrin.h>

#include <cstdlib>
#include <cstring>
#include <vector>

/// The instructions of the functions below: AVX-512 with BF16.
#define MPC_BF16_DOT_TARGET __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512bf16")))

namespace mpc {
namespace detail {
namespace bf16_dot {

/// Whether this CPU has AVX512-BF16 (and the OS keeps its registers).
inline bool cpu_supports() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512bf16");
}

/// Whether the kernels take this form: the CPU has it and MPC_HOST_BF16_DOT
/// is not 0 (read once).
inline bool enabled() {
  static const bool on = [] {
    const char *setting = std::getenv("MPC_HOST_BF16_DOT");
    return !(setting && std::strcmp(setting, "0") == 0) && cpu_supports();
  }();
  return on;
}

/// Whether a head size has this form: whole vectors of 16 columns.
template <int D> constexpr bool takes_head() { return D % 16 == 0 && D <= 128; }

/// Rows an R x N block of sums takes at a time: 16 vectors of sums at most
/// (of the 32 registers), R a power of two so that it divides kTile.
template <int N> constexpr int rows_at_once() { return N / 16 <= 2 ? 8 : N / 16 <= 4 ? 4 : 2; }

/// `rows` rounded up to whole blocks of R rows for every N: the rows a
/// block's products compute, and so the rows of its operands that are
/// rounded and zeroed (a multiple of 8, which divides kTile).
constexpr int64_t whole_blocks(int64_t rows) { return (rows + 7) / 8 * 8; }
static_assert(kTile % 8 == 0 && rows_at_once<16>() == 8, "whole_blocks rounds to every R");

/// out[r][n] (+)= sum_{p < steps} a(r, p) . b[p][n] for r < R, n < N: a(r, p)
/// = a[r * aRow + p * aStep] and b[p] a row of N, each a bf16 pair; out has
/// rows of N floats.
template <int N, int R>
MPC_BF16_DOT_TARGET __attribute__((noinline)) void
dot_block(const uint32_t *a, int64_t aRow, int64_t aStep, const uint32_t *b, int64_t steps,
          float *out, bool accumulate) {
  constexpr int V = N / 16;
  __m512 sums[R][V];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < V; ++c)
      sums[r][c] = accumulate ? _mm512_loadu_ps(out + r * N + c * 16) : _mm512_setzero_ps();
  for (int64_t p = 0; p < steps; ++p) {
    __m512bh columns[V];
    for (int c = 0; c < V; ++c)
      columns[c] = (__m512bh)_mm512_loadu_si512(b + p * N + c * 16);
    for (int r = 0; r < R; ++r) {
      const __m512bh x = (__m512bh)_mm512_set1_epi32(static_cast<int>(a[r * aRow + p * aStep]));
      for (int c = 0; c < V; ++c)
        sums[r][c] = _mm512_dpbf16_ps(sums[r][c], x, columns[c]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < V; ++c)
      _mm512_storeu_ps(out + r * N + c * 16, sums[r][c]);
}

/// dot_block over `rows` rows (a multiple of R: whole_blocks).
template <int N>
MPC_BF16_DOT_TARGET void dot_rows(const uint32_t *a, int64_t aRow, int64_t aStep, const uint32_t *b,
                                  int64_t steps, float *out, int64_t rows, bool accumulate) {
  constexpr int R = rows_at_once<N>();
  for (int64_t r0 = 0; r0 < rows; r0 += R)
    dot_block<N, R>(a + r0 * aRow, aRow, aStep, b, steps, out + r0 * N, accumulate);
}

/// dot_rows summed over the first `terms` terms of b: the pairs across
/// rows of b (and of a), terms / 2 of them, and for an odd count a last pair
/// whose second term is left out, so that a term past `terms` (a key past
/// the causal walk's end, packed with its block) plays no part, not even
/// as 0 * Inf.
template <int N>
MPC_BF16_DOT_TARGET void dot_rows_over(const uint32_t *a, int64_t aRow, int64_t aStep,
                                       const uint32_t *b, int64_t terms, float *out, int64_t rows) {
  const int64_t pairs = terms / 2;
  if (pairs > 0)
    dot_rows<N>(a, aRow, aStep, b, pairs, out, rows, true);
  if (terms % 2 == 1) {
    uint32_t last[N];
    for (int n = 0; n < N; ++n)
      last[n] = b[pairs * N + n] & 0xffffu;
    dot_rows<N>(a + pairs * aStep, aRow, aStep, last, 1, out, rows, true);
  }
}

inline uint32_t pair_of(uint16_t low, uint16_t high) { return low | uint32_t(high) << 16; }

/// Rows [first, first + rows) of a [*, D] bf16 buffer as pairs along each
/// row, out[r * D / 2 + p]; zeros in the rows up to kTile.
template <int D>
void pairs_along_rows(const bf16_t *x, int64_t first, int64_t rows, uint32_t *out) {
  std::memcpy(out, x + first * D, rows * D * sizeof(bf16_t));
  std::memset(out + rows * (D / 2), 0, (kTile - rows) * (D / 2) * sizeof(uint32_t));
}

/// The same pairs transposed, out[p * kTile + r]; zeros in the columns past
/// `rows`.
template <int D>
void pairs_along_rows_transposed(const bf16_t *x, int64_t first, int64_t rows, uint32_t *out) {
  uint32_t row[D / 2];
  for (int64_t r = 0; r < rows; ++r) {
    std::memcpy(row, x + (first + r) * D, sizeof row);
    for (int p = 0; p < D / 2; ++p)
      out[p * kTile + r] = row[p];
  }
  for (int p = 0; p < D / 2; ++p)
    for (int64_t r = rows; r < kTile; ++r)
      out[p * kTile + r] = 0;
}

/// Rows [first, first + rows) as pairs across rows, out[m * D + c] = (x[2m][c],
/// x[2m + 1][c]) for m < kTile / 2; zeros for the rows past `rows`.
template <int D>
void pairs_across_rows(const bf16_t *x, int64_t first, int64_t rows, uint32_t *out) {
  for (int64_t m = 0; m < kTile / 2; ++m) {
    const bf16_t *even = 2 * m < rows ? x + (first + 2 * m) * D : nullptr;
    const bf16_t *odd = 2 * m + 1 < rows ? x + (first + 2 * m + 1) * D : nullptr;
    for (int c = 0; c < D; ++c)
      out[m * D + c] = pair_of(even ? even[c].bits : 0, odd ? odd[c].bits : 0);
  }
}

/// Rows of kTile floats rounded to bf16 as pairs along each row, out[r *
/// kTile / 2 + p].
MPC_BF16_DOT_TARGET inline void round_pairs_along_rows(const float *in, int64_t rows,
                                                       uint32_t *out) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < kTile; c += 32) {
      const float *x = in + r * kTile + c;
      const __m512bh both = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(x + 16), _mm512_loadu_ps(x));
      _mm512_storeu_si512(out + (r * kTile + c) / 2, (__m512i)both);
    }
}

/// Rows of kTile floats rounded to bf16 as pairs across rows, out[m * kTile +
/// c] = (in[2m][c], in[2m + 1][c]) for m < pairs.
MPC_BF16_DOT_TARGET inline void round_pairs_across_rows(const float *in, int64_t pairs,
                                                        uint32_t *out) {
  for (int64_t m = 0; m < pairs; ++m)
    for (int64_t c = 0; c < kTile; c += 16) {
      const __m256i even = (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(in + 2 * m * kTile + c));
      const __m256i odd =
          (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(in + (2 * m + 1) * kTile + c));
      const __m512i words = _mm512_or_si512(_mm512_cvtepu16_epi32(even),
                                            _mm512_slli_epi32(_mm512_cvtepu16_epi32(odd), 16));
      _mm512_storeu_si512(out + m * kTile + c, words);
    }
}

/// Zeros in rows [from, to) of kTile floats.
inline void zero_rows(float *rows, int64_t from, int64_t to) {
  if (to > from)
    std::memset(rows + from * kTile, 0, (to - from) * kTile * sizeof(float));
}

/// How a block of an operand's rows is packed (above).
enum class Packing { AlongRows, AlongRowsTransposed, AcrossRows };
constexpr int kPackings = 3;

/// An operand's blocks of kTile rows (rows [first, first + rows) of a
/// [*, D] buffer: one batch entry), each packed once, when a product first
/// asks for it: a task's blocks of queries or keys share them.
template <int D> class PackedBlocks {
public:
  /// The words of a block in any packing.
  static constexpr int64_t kWords = kTile * D / 2;

  PackedBlocks(const bf16_t *x, int64_t first, int64_t rows)
      : x_(x), first_(first), rows_(rows), blocks_((rows + kTile - 1) / kTile) {}

  /// Block `block` packed as `packing`.
  const uint32_t *get(Packing packing, int64_t block) {
    std::vector<uint32_t> &words = words_[static_cast<int>(packing)];
    std::vector<bool> &packed = packed_[static_cast<int>(packing)];
    if (words.empty()) {
      words.resize(blocks_ * kWords);
      packed.assign(blocks_, false);
    }
    uint32_t *out = words.data() + block * kWords;
    if (!packed[block]) {
      const int64_t start = first_ + block * kTile, count = std::min(kTile, rows_ - block * kTile);
      if (packing == Packing::AlongRows)
        pairs_along_rows<D>(x_, start, count, out);
      else if (packing == Packing::AlongRowsTransposed)
        pairs_along_rows_transposed<D>(x_, start, count, out);
      else
        pairs_across_rows<D>(x_, start, count, out);
      packed[block] = true;
    }
    return out;
  }

private:
  const bf16_t *x_;
  int64_t first_, rows_, blocks_;
  std::vector<uint32_t> words_[kPackings];
  std::vector<bool> packed_[kPackings];
};

/// delta_i = dy_i . y_i of a batch entry's queries, a block of kTile at a
/// time, each computed once, when first asked for.
template <int D> class BlockDeltas {
public:
  BlockDeltas(const bf16_t *dy, const bf16_t *y, int64_t first, int64_t rows)
      : dy_(dy), y_(y), first_(first), rows_(rows), values_(rows),
        computed_((rows + kTile - 1) / kTile, false) {}

  const float *get(int64_t block) {
    float *out = values_.data() + block * kTile;
    if (!computed_[block]) {
      row_deltas<D>(dy_, y_, first_ + block * kTile, std::min(kTile, rows_ - block * kTile), out);
      computed_[block] = true;
    }
    return out;
  }

private:
  const bf16_t *dy_, *y_;
  int64_t first_, rows_;
  std::vector<float> values_;
  std::vector<bool> computed_;
};

/// Runs task(b, t0, t1) over the tiles [t0, t1) of each batch entry b: all
/// of an entry's tiles in one task where the batch alone gives every thread
/// several tasks (the entry's blocks are then packed once), fewer where it
/// does not.
template <class Task> void batch_tasks(int64_t batch, int64_t tiles, const Task &task) {
  const int64_t perTask =
      std::max<int64_t>(1, std::min(tiles, batch * tiles / (4 * hostThreads())));
  const int64_t chunks = (tiles + perTask - 1) / perTask;
  attention_tasks(batch * chunks, [&](int64_t t) {
    const int64_t b = t / chunks, t0 = (t % chunks) * perTask;
    task(b, t0, std::min(tiles, t0 + perTask));
  });
}

template <int D, bool Causal, class M>
MPC_BF16_DOT_TARGET void forward_task(const bf16_t *q, const bf16_t *k, const bf16_t *v,
                                      const M *mask, bf16_t *out, float *lse,
                                      const AttentionSizes &s, int64_t b, int64_t t0, int64_t t1) {
  PackedBlocks<D> keys(k, b * s.keys, s.keys), values(v, b * s.keys, s.keys);
  std::vector<uint32_t> qa(kTile * D / 2), pa(kTile * kTile / 2);
  std::vector<float> scores(kTile * kTile, 0.0f), acc(kTile * D), m(kTile), l(kTile);
  for (int64_t q0 = t0 * kTile; q0 < t1 * kTile; q0 += kTile) {
    const int64_t rows = std::min(kTile, s.queries - q0), first = b * s.queries + q0;
    const int64_t blockRows = whole_blocks(rows);
    std::fill(acc.begin(), acc.end(), 0.0f);
    std::fill(m.begin(), m.end(), -inf_f());
    std::fill(l.begin(), l.end(), 0.0f);
    pairs_along_rows<D>(q, first, rows, qa.data());
    const int64_t end = keys_reached<Causal>(q0, rows, s.keys);
    for (int64_t k0 = 0; k0 < end; k0 += kTile) {
      const int64_t cols = std::min(kTile, end - k0);
      // (a block the causal walk ends inside is packed whole: the scores
      // past `cols` are masked out, and the sums over keys stop at `cols`)
      dot_rows<kTile>(qa.data(), D / 2, 1, keys.get(Packing::AlongRowsTransposed, k0 / kTile),
                      D / 2, scores.data(), blockRows, false);
      for (int64_t r = 0; r < rows; ++r) {
        float *row = scores.data() + r * kTile;
        mask_scores<Causal>(row, cols, q0 + r, k0, mask, s);
        const float next = std::max(m[r], row_max(row));
        if (next == -inf_f()) { // every key so far left out
          zero_rows(row, 0, 1);
          continue;
        }
        const float correction = exp_f(m[r] - next);
        for (int64_t j = 0; j < kTile; ++j)
          row[j] = exp_f(row[j] - next);
        l[r] = l[r] * correction + row_sum(row);
        for (int d = 0; d < D; ++d)
          acc[r * D + d] *= correction;
        m[r] = next;
      }
      zero_rows(scores.data(), rows, blockRows);
      round_pairs_along_rows(scores.data(), blockRows, pa.data());
      dot_rows_over<D>(pa.data(), kTile / 2, 1, values.get(Packing::AcrossRows, k0 / kTile), cols,
                       acc.data(), blockRows);
    }
    for (int64_t r = 0; r < rows; ++r) {
      const float inverse = 1.0f / l[r];
      for (int d = 0; d < D; ++d)
        acc[r * D + d] *= inverse;
      lse[first + r] = m[r] + log_f(l[r]);
    }
    store_rows<D>(acc.data(), rows, out + first * D);
  }
}

/// The probabilities p and score gradients ds of a block of queries (qa,
/// dya: pairs along rows) against a block of keys (keysT, valuesT), rows
/// past `rows` zero.
template <int D, bool Causal, class M>
MPC_BF16_DOT_TARGET void
block_gradients(const uint32_t *qa, const uint32_t *dya, const uint32_t *keysT,
                const uint32_t *valuesT, const float *lse, const float *delta, const M *mask,
                const AttentionSizes &s, int64_t first, int64_t q0, int64_t rows, int64_t k0,
                int64_t cols, float *p, float *ds) {
  const int64_t blockRows = whole_blocks(rows);
  dot_rows<kTile>(qa, D / 2, 1, keysT, D / 2, p, blockRows, false);
  dot_rows<kTile>(dya, D / 2, 1, valuesT, D / 2, ds, blockRows, false);
  for (int64_t r = 0; r < rows; ++r) {
    mask_scores<Causal>(p + r * kTile, cols, q0 + r, k0, mask, s);
    row_gradient(p + r * kTile, ds + r * kTile, lse[first + r], delta[r], s.scale);
  }
  zero_rows(p, rows, blockRows);
  zero_rows(ds, rows, blockRows);
}

template <int D, bool Causal, class M>
MPC_BF16_DOT_TARGET void grad_query_task(const bf16_t *q, const bf16_t *k, const bf16_t *v,
                                         const bf16_t *y, const float *lse, const bf16_t *dy,
                                         const M *mask, bf16_t *dq, const AttentionSizes &s,
                                         int64_t b, int64_t t0, int64_t t1) {
  PackedBlocks<D> keys(k, b * s.keys, s.keys), values(v, b * s.keys, s.keys);
  std::vector<uint32_t> qa(kTile * D / 2), dya(kTile * D / 2), dsa(kTile * kTile / 2);
  std::vector<float> p(kTile * kTile), ds(kTile * kTile), acc(kTile * D), delta(kTile);
  for (int64_t q0 = t0 * kTile; q0 < t1 * kTile; q0 += kTile) {
    const int64_t rows = std::min(kTile, s.queries - q0), first = b * s.queries + q0;
    std::fill(acc.begin(), acc.end(), 0.0f);
    pairs_along_rows<D>(q, first, rows, qa.data());
    pairs_along_rows<D>(dy, first, rows, dya.data());
    row_deltas<D>(dy, y, first, rows, delta.data());
    const int64_t end = keys_reached<Causal>(q0, rows, s.keys);
    for (int64_t k0 = 0; k0 < end; k0 += kTile) {
      const int64_t cols = std::min(kTile, end - k0), block = k0 / kTile;
      block_gradients<D, Causal>(qa.data(), dya.data(),
                                 keys.get(Packing::AlongRowsTransposed, block),
                                 values.get(Packing::AlongRowsTransposed, block), lse, delta.data(),
                                 mask, s, first, q0, rows, k0, cols, p.data(), ds.data());
      round_pairs_along_rows(ds.data(), whole_blocks(rows), dsa.data());
      dot_rows_over<D>(dsa.data(), kTile / 2, 1, keys.get(Packing::AcrossRows, block), cols,
                       acc.data(), whole_blocks(rows));
    }
    store_rows<D>(acc.data(), rows, dq + first * D);
  }
}

template <int D, bool Causal, class M>
MPC_BF16_DOT_TARGET void
grad_key_value_task(const bf16_t *q, const bf16_t *k, const bf16_t *v, const bf16_t *y,
                    const float *lse, const bf16_t *dy, const M *mask, bf16_t *dk, bf16_t *dv,
                    const AttentionSizes &s, int64_t b, int64_t t0, int64_t t1) {
  PackedBlocks<D> queries(q, b * s.queries, s.queries), grads(dy, b * s.queries, s.queries);
  BlockDeltas<D> deltas(dy, y, b * s.queries, s.queries);
  std::vector<uint32_t> keysT(kTile * D / 2), valuesT(kTile * D / 2), pt(kTile * kTile / 2),
      dst(kTile * kTile / 2);
  std::vector<float> p(kTile * kTile), ds(kTile * kTile), dka(kTile * D), dva(kTile * D);
  for (int64_t k0 = t0 * kTile; k0 < t1 * kTile; k0 += kTile) {
    const int64_t cols = std::min(kTile, s.keys - k0), keyRows = whole_blocks(cols);
    std::fill(dka.begin(), dka.end(), 0.0f);
    std::fill(dva.begin(), dva.end(), 0.0f);
    pairs_along_rows_transposed<D>(k, b * s.keys + k0, cols, keysT.data());
    pairs_along_rows_transposed<D>(v, b * s.keys + k0, cols, valuesT.data());
    // (causal: only queries i >= k0 reach these keys)
    for (int64_t q0 = Causal ? k0 : 0; q0 < s.queries; q0 += kTile) {
      const int64_t rows = std::min(kTile, s.queries - q0), first = b * s.queries + q0;
      const int64_t block = q0 / kTile;
      block_gradients<D, Causal>(queries.get(Packing::AlongRows, block),
                                 grads.get(Packing::AlongRows, block), keysT.data(), valuesT.data(),
                                 lse, deltas.get(block), mask, s, first, q0, rows, k0, cols,
                                 p.data(), ds.data());
      // (the sums run over queries: p and ds as pairs across query rows; key
      // j's row of them is column j)
      const int64_t pairs = (rows + 1) / 2;
      round_pairs_across_rows(p.data(), pairs, pt.data());
      round_pairs_across_rows(ds.data(), pairs, dst.data());
      dot_rows<D>(pt.data(), 1, kTile, grads.get(Packing::AcrossRows, block), pairs, dva.data(),
                  keyRows, true);
      dot_rows<D>(dst.data(), 1, kTile, queries.get(Packing::AcrossRows, block), pairs, dka.data(),
                  keyRows, true);
    }
    store_rows<D>(dka.data(), cols, dk + (b * s.keys + k0) * D);
    store_rows<D>(dva.data(), cols, dv + (b * s.keys + k0) * D);
  }
}

template <int D, bool Causal, class M>
void attention_forward(const bf16_t *q, const bf16_t *k, const bf16_t *v, const M *mask,
                       bf16_t *out, float *lse, const AttentionSizes &s) {
  batch_tasks(s.batch, (s.queries + kTile - 1) / kTile, [&](int64_t b, int64_t t0, int64_t t1) {
    forward_task<D, Causal>(q, k, v, mask, out, lse, s, b, t0, t1);
  });
}

template <int D, bool Causal, class M>
void attention_grad_query(const bf16_t *q, const bf16_t *k, const bf16_t *v, const bf16_t *y,
                          const float *lse, const bf16_t *dy, const M *mask, bf16_t *dq,
                          const AttentionSizes &s) {
  batch_tasks(s.batch, (s.queries + kTile - 1) / kTile, [&](int64_t b, int64_t t0, int64_t t1) {
    grad_query_task<D, Causal>(q, k, v, y, lse, dy, mask, dq, s, b, t0, t1);
  });
}

template <int D, bool Causal, class M>
void attention_grad_key_value(const bf16_t *q, const bf16_t *k, const bf16_t *v, const bf16_t *y,
                              const float *lse, const bf16_t *dy, const M *mask, bf16_t *dk,
                              bf16_t *dv, const AttentionSizes &s) {
  batch_tasks(s.batch, (s.keys + kTile - 1) / kTile, [&](int64_t b, int64_t t0, int64_t t1) {
    grad_key_value_task<D, Causal>(q, k, v, y, lse, dy, mask, dk, dv, s, b, t0, t1);
  });
}

} // namespace bf16_dot
} // namespace detail
} // namespace mpc

#endif
#endif // MPC_DEVICE_ATTENTION_BF16_CUH
