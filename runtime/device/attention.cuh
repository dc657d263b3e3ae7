//===- attention.cuh - fused scaled dot-product attention -----------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The kernels of mpg.attention and its gradient, for `batch` independent
// attentions (batch x heads) of queries [queries, D] over keys and values
// [keys, D], row-major, with an optional additive mask [queries, keys] and a
// causal flag (key j is left out of query i's softmax when j > i):
//
//   s[i][j] = scale * (q_i . k_j) + mask[i][j],  p = softmax_j(s),
//   y_i = sum_j p[i][j] v_j,  lse_i = log sum_j exp(s[i][j]).
//
// The S x S scores and probabilities are never stored. The forward pass
// walks each query's keys in blocks with an online softmax (the running
// maximum m and sum l in fp32; earlier blocks rescaled by exp(m - m_new))
// and saves lse; the backward pass recomputes each block's probabilities as
// exp(s - lse), with delta_i = dy_i . y_i (FlashAttention-2's algorithm):
//
//   dv_j = sum_i p[i][j] dy_i,  ds[i][j] = p[i][j] (dy_i . v_j - delta_i),
//   dq_i = scale sum_j ds[i][j] k_j,  dk_j = scale sum_i ds[i][j] q_i.
//
// Its two kernels each own the rows they write: attention_grad_key_value
// walks all queries for a block of keys, attention_grad_query all keys for a
// block of queries (the probabilities are computed twice; no atomics, and
// the results do not depend on the order of blocks).
//
// Operands are stored in T (float, half_t, bf16_t), read into fp32; all
// products accumulate in fp32; results are rounded once. D is the head size
// (at most kAttentionMaxHead).
//
// On the GPU: one warp per query row (or per key in the keys' gradient),
// the head dimensions spread over its lanes, the keys of a block of 32 in
// shared memory, one key per lane for the scores; fp32 FMA, not tensor
// cores. On the host: blocks of kHostAttentionTile queries and keys in fp32
// arrays whose loops a host compiler vectorises, blocks on OpenMP threads.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_DEVICE_ATTENTION_CUH
#define MPC_DEVICE_ATTENTION_CUH

#include "mpc/device/math.cuh"
#include "mpc/device/platform.cuh"
#include "mpc/device/pointwise.cuh"
#include "mpc/device/types.cuh"

#ifndef __CUDACC__
#include <algorithm>
#include <cstring>
#include <vector>
#endif

namespace mpc {

/// The sizes of an attention kernel's launch.
struct AttentionSizes {
  int64_t batch, queries, keys;
  float scale;
};

/// The largest head size the kernels take.
constexpr int kAttentionMaxHead = 128;
/// Threads of a GPU attention block: four warps.
constexpr int kAttentionThreads = 128;
/// Queries a GPU block of the forward pass or the queries' gradient takes
/// (four a warp), and keys a block of the keys' gradient takes (four a warp).
constexpr int kAttentionQueryTile = 16;
constexpr int kAttentionKeyTile = 16;

#ifdef __CUDACC__

namespace detail {
constexpr unsigned kAttentionFullMask = 0xffffffffu;
/// Keys a block stages in shared memory at a time: one per lane.
constexpr int kAttentionKeyBlock = 32;
constexpr int kAttentionRowsPerWarp = kAttentionQueryTile / (kAttentionThreads / 32);
constexpr int kAttentionKeysPerWarp = kAttentionKeyTile / (kAttentionThreads / 32);

MPC_DEVICE_INLINE int64_t smaller(int64_t a, int64_t b) { return a < b ? a : b; }

MPC_DEVICE_INLINE float warp_sum(float value) {
  for (int offset = 16; offset > 0; offset >>= 1)
    value += __shfl_xor_sync(kAttentionFullMask, value, offset);
  return value;
}

MPC_DEVICE_INLINE float warp_max(float value) {
  for (int offset = 16; offset > 0; offset >>= 1)
    value = max_f(value, __shfl_xor_sync(kAttentionFullMask, value, offset));
  return value;
}

/// Row `row` of a [*, D] buffer spread over a warp: lane l holds
/// dimensions l, l + 32, ... (0 past D).
template <int D, class T>
MPC_DEVICE_INLINE void load_lanes(const T *buffer, int64_t row, float (&out)[(D + 31) / 32]) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int t = 0; t < (D + 31) / 32; ++t) {
    const int d = lane + 32 * t;
    out[t] = d < D ? to_f32(buffer[row * D + d]) : 0.0f;
  }
}

template <int D, class T>
MPC_DEVICE_INLINE void store_lanes(T *buffer, int64_t row, const float (&values)[(D + 31) / 32],
                                   float factor) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int t = 0; t < (D + 31) / 32; ++t) {
    const int d = lane + 32 * t;
    if (d < D)
      buffer[row * D + d] = from_f32<T>(values[t] * factor);
  }
}

/// The dot product of a row spread over the warp's lanes with a row of D
/// floats every lane reads (its own key's, in shared memory).
template <int D>
MPC_DEVICE_INLINE float lanes_dot(const float (&lanes)[(D + 31) / 32], const float *row) {
  float acc = 0.0f;
#pragma unroll
  for (int d = 0; d < D; ++d)
    acc += __shfl_sync(kAttentionFullMask, lanes[d / 32], d % 32) * row[d];
  return acc;
}

/// Stages keys [k0, k0 + 32) of attention `b` (zeros past the last key)
/// in shared memory as fp32: `first` from `a`, `second` from `c`. Rows are
/// D | 1 floats apart, an odd stride: the lanes reading a row each (one key
/// per lane) hit 32 different banks.
template <int D, int Stride, class T>
MPC_DEVICE_INLINE void stage_keys(const T *a, const T *c, int64_t b, int64_t k0, int64_t keys,
                                  float (*first)[Stride], float (*second)[Stride]) {
  for (int e = threadIdx.x; e < kAttentionKeyBlock * D; e += blockDim.x) {
    const int j = e / D, d = e % D;
    const int64_t key = k0 + j;
    const bool inside = key < keys;
    first[j][d] = inside ? to_f32(a[(b * keys + key) * D + d]) : 0.0f;
    second[j][d] = inside ? to_f32(c[(b * keys + key) * D + d]) : 0.0f;
  }
}

/// The masked score of query i and key j from their dot product; -inf
/// where the key is left out.
template <bool Causal, class M>
MPC_DEVICE_INLINE float attention_score(float dot, int64_t i, int64_t j, const M *mask,
                                        const AttentionSizes &s) {
  if (j >= s.keys || (Causal && j > i))
    return -inf_f();
  return dot * s.scale + (mask ? to_f32(mask[i * s.keys + j]) : 0.0f);
}
} // namespace detail

template <int D, bool Causal, class T, class M>
MPC_DEVICE_INLINE void attention_forward(const T *q, const T *k, const T *v, const M *mask,
                                         T *out, float *lse, AttentionSizes s) {
  using namespace detail;
  constexpr int P = (D + 31) / 32, R = kAttentionRowsPerWarp;
  __shared__ float ks[kAttentionKeyBlock][D | 1];
  __shared__ float vs[kAttentionKeyBlock][D | 1];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int64_t tiles = (s.queries + kAttentionQueryTile - 1) / kAttentionQueryTile;
  for (int64_t tile = blockIdx.x; tile < s.batch * tiles; tile += gridDim.x) {
    const int64_t b = tile / tiles, q0 = (tile % tiles) * kAttentionQueryTile;
    float qr[R][P], acc[R][P], m[R], l[R];
    #pragma unroll
    for (int r = 0; r < R; ++r) {
      const int64_t i = q0 + warp * R + r;
      if (i < s.queries)
        load_lanes<D>(q, b * s.queries + i, qr[r]);
      #pragma unroll
      for (int t = 0; t < P; ++t)
        acc[r][t] = 0.0f;
      m[r] = -inf_f();
      l[r] = 0.0f;
    }
    const int64_t end = Causal ? smaller(s.keys, q0 + kAttentionQueryTile) : s.keys;
    for (int64_t k0 = 0; k0 < end; k0 += kAttentionKeyBlock) {
      __syncthreads();
      stage_keys<D>(k, v, b, k0, s.keys, ks, vs);
      __syncthreads();
      #pragma unroll
      for (int r = 0; r < R; ++r) {
        const int64_t i = q0 + warp * R + r;
        if (i >= s.queries)
          continue; // (the whole warp)
        const float x =
            attention_score<Causal>(lanes_dot<D>(qr[r], ks[lane]), i, k0 + lane, mask, s);
        const float next = max_f(m[r], warp_max(x));
        if (next == -inf_f())
          continue; // every key so far left out
        const float p = exp_f(x - next), correction = exp_f(m[r] - next);
        l[r] = l[r] * correction + warp_sum(p);
        #pragma unroll
        for (int t = 0; t < P; ++t)
          acc[r][t] *= correction;
        for (int j = 0; j < kAttentionKeyBlock; ++j) {
          const float pj = __shfl_sync(kAttentionFullMask, p, j);
          #pragma unroll
          for (int t = 0; t < P; ++t)
            if (lane + 32 * t < D)
              acc[r][t] += pj * vs[j][lane + 32 * t];
        }
        m[r] = next;
      }
    }
    #pragma unroll
    for (int r = 0; r < R; ++r) {
      const int64_t i = q0 + warp * R + r;
      if (i >= s.queries)
        continue;
      store_lanes<D>(out, b * s.queries + i, acc[r], 1.0f / l[r]);
      if (lane == 0)
        lse[b * s.queries + i] = m[r] + log_f(l[r]);
    }
  }
}

template <int D, bool Causal, class T, class M>
MPC_DEVICE_INLINE void attention_grad_query(const T *q, const T *k, const T *v, const T *y,
                                            const float *lse, const T *dy, const M *mask, T *dq,
                                            AttentionSizes s) {
  using namespace detail;
  constexpr int P = (D + 31) / 32, R = kAttentionRowsPerWarp;
  __shared__ float ks[kAttentionKeyBlock][D | 1];
  __shared__ float vs[kAttentionKeyBlock][D | 1];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int64_t tiles = (s.queries + kAttentionQueryTile - 1) / kAttentionQueryTile;
  for (int64_t tile = blockIdx.x; tile < s.batch * tiles; tile += gridDim.x) {
    const int64_t b = tile / tiles, q0 = (tile % tiles) * kAttentionQueryTile;
    float qr[R][P], dyr[R][P], acc[R][P], delta[R], rowLse[R];
    #pragma unroll
    for (int r = 0; r < R; ++r) {
      const int64_t i = q0 + warp * R + r;
      float yr[P];
      if (i < s.queries) {
        load_lanes<D>(q, b * s.queries + i, qr[r]);
        load_lanes<D>(dy, b * s.queries + i, dyr[r]);
        load_lanes<D>(y, b * s.queries + i, yr);
        float partial = 0.0f;
        #pragma unroll
        for (int t = 0; t < P; ++t)
          partial += dyr[r][t] * yr[t];
        delta[r] = warp_sum(partial);
        rowLse[r] = lse[b * s.queries + i];
      }
      #pragma unroll
      for (int t = 0; t < P; ++t)
        acc[r][t] = 0.0f;
    }
    const int64_t end = Causal ? smaller(s.keys, q0 + kAttentionQueryTile) : s.keys;
    for (int64_t k0 = 0; k0 < end; k0 += kAttentionKeyBlock) {
      __syncthreads();
      stage_keys<D>(k, v, b, k0, s.keys, ks, vs);
      __syncthreads();
      #pragma unroll
      for (int r = 0; r < R; ++r) {
        const int64_t i = q0 + warp * R + r;
        if (i >= s.queries)
          continue;
        const float x =
            attention_score<Causal>(lanes_dot<D>(qr[r], ks[lane]), i, k0 + lane, mask, s);
        const float dp = lanes_dot<D>(dyr[r], vs[lane]);
        const float p = x == -inf_f() ? 0.0f : exp_f(x - rowLse[r]);
        const float ds = p * (dp - delta[r]) * s.scale;
        for (int j = 0; j < kAttentionKeyBlock; ++j) {
          const float dsj = __shfl_sync(kAttentionFullMask, ds, j);
          #pragma unroll
          for (int t = 0; t < P; ++t)
            if (lane + 32 * t < D)
              acc[r][t] += dsj * ks[j][lane + 32 * t];
        }
      }
    }
    #pragma unroll
    for (int r = 0; r < R; ++r) {
      const int64_t i = q0 + warp * R + r;
      if (i < s.queries)
        store_lanes<D>(dq, b * s.queries + i, acc[r], 1.0f);
    }
  }
}

template <int D, bool Causal, class T, class M>
MPC_DEVICE_INLINE void attention_grad_key_value(const T *q, const T *k, const T *v, const T *y,
                                                const float *lse, const T *dy, const M *mask,
                                                T *dk, T *dv, AttentionSizes s) {
  using namespace detail;
  constexpr int P = (D + 31) / 32, K = kAttentionKeysPerWarp;
  const int warp = threadIdx.x / 32;
  const int64_t tiles = (s.keys + kAttentionKeyTile - 1) / kAttentionKeyTile;
  for (int64_t tile = blockIdx.x; tile < s.batch * tiles; tile += gridDim.x) {
    const int64_t b = tile / tiles, first = (tile % tiles) * kAttentionKeyTile + warp * K;
    if (first >= s.keys)
      continue; // (the whole warp: its keys are past the last; no barrier below)
    float kr[K][P], vr[K][P], dkr[K][P], dvr[K][P];
    #pragma unroll
    for (int c = 0; c < K; ++c) {
      if (first + c < s.keys) {
        load_lanes<D>(k, b * s.keys + first + c, kr[c]);
        load_lanes<D>(v, b * s.keys + first + c, vr[c]);
      }
      #pragma unroll
      for (int t = 0; t < P; ++t)
        dkr[c][t] = dvr[c][t] = 0.0f;
    }
    // (causal: query i reaches keys j <= i only)
    for (int64_t i = Causal ? smaller(first, s.queries) : 0; i < s.queries; ++i) {
      float qr[P], dyr[P], yr[P];
      load_lanes<D>(q, b * s.queries + i, qr);
      load_lanes<D>(dy, b * s.queries + i, dyr);
      load_lanes<D>(y, b * s.queries + i, yr);
      float partial = 0.0f;
      #pragma unroll
      for (int t = 0; t < P; ++t)
        partial += dyr[t] * yr[t];
      const float delta = warp_sum(partial), rowLse = lse[b * s.queries + i];
      #pragma unroll
      for (int c = 0; c < K; ++c) {
        const int64_t j = first + c;
        if (j >= s.keys || (Causal && j > i))
          continue; // (the whole warp)
        float qk = 0.0f, dyv = 0.0f;
        #pragma unroll
        for (int t = 0; t < P; ++t) {
          qk += qr[t] * kr[c][t];
          dyv += dyr[t] * vr[c][t];
        }
        const float x = attention_score<Causal>(warp_sum(qk), i, j, mask, s);
        const float p = x == -inf_f() ? 0.0f : exp_f(x - rowLse);
        const float ds = p * (warp_sum(dyv) - delta) * s.scale;
        #pragma unroll
        for (int t = 0; t < P; ++t) {
          dvr[c][t] += p * dyr[t];
          dkr[c][t] += ds * qr[t];
        }
      }
    }
    #pragma unroll
    for (int c = 0; c < K; ++c)
      if (first + c < s.keys) {
        store_lanes<D>(dk, b * s.keys + first + c, dkr[c], 1.0f);
        store_lanes<D>(dv, b * s.keys + first + c, dvr[c], 1.0f);
      }
  }
}

#else // the host

/// Queries and keys of a host block.
constexpr int64_t kHostAttentionTile = 64;

namespace detail {

constexpr int64_t kTile = kHostAttentionTile;

/// a * b + c, fused where the host has FMA (x86-64-v3, mpc's default host
/// architecture): the kernels below are products, and the host kernels are
/// otherwise compiled without contraction (-ffp-contract=off).
inline float madd(float a, float b, float c) {
#ifdef __FMA__
  return __builtin_fmaf(a, b, c);
#else
  return a * b + c;
#endif
}

/// Runs task(t) for t in [0, count), on OpenMP threads when there are
/// several (blocks of the causal pattern differ in cost: dynamic schedule).
template <class Task> void attention_tasks(int64_t count, const Task &task) {
  if (hostParallel(count > 1)) {
#pragma omp parallel for schedule(dynamic)
    for (int64_t t = 0; t < count; ++t)
      task(t);
    return;
  }
  for (int64_t t = 0; t < count; ++t)
    task(t);
}

/// Rows [first, first + rows) of a [*, D] buffer, as fp32, row-major into
/// `out` (`rows` x D).
template <int D, class T>
void load_rows(const T *buffer, int64_t first, int64_t rows, float *out) {
  for (int64_t r = 0; r < rows; ++r)
    for (int d = 0; d < D; ++d)
      out[r * D + d] = to_f32(buffer[(first + r) * D + d]);
}

/// The same rows transposed, kTile columns: out[d * kTile + r], zeros in
/// the columns past `rows`.
template <int D, class T>
void load_columns(const T *buffer, int64_t first, int64_t rows, float *out) {
  for (int64_t r = 0; r < rows; ++r)
    for (int d = 0; d < D; ++d)
      out[d * kTile + r] = to_f32(buffer[(first + r) * D + d]);
  for (int d = 0; d < D; ++d)
    for (int64_t r = rows; r < kTile; ++r)
      out[d * kTile + r] = 0.0f;
}

/// Eight floats in a vector register (GCC's and Clang's vector extension):
/// the products below keep their sums in registers, which a local array of
/// floats did not (the host compiler stored it back every step).
typedef float f32x8 __attribute__((vector_size(32)));
constexpr int kVector = 8;

inline f32x8 load8(const float *p) {
  f32x8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store8(float *p, f32x8 v) { std::memcpy(p, &v, sizeof v); }
inline f32x8 broadcast8(float x) { return f32x8{x, x, x, x, x, x, x, x}; }
/// a * b + c, fused where the host has FMA.
inline f32x8 madd8(f32x8 a, f32x8 b, f32x8 c) {
#if defined(__FMA__) && defined(__x86_64__)
  return __builtin_ia32_vfmaddps256(a, b, c);
#else
  return a * b + c;
#endif
}

/// out[j] = sum_d row[d] * columns[d * kTile + j] for all kTile columns.
template <int D>
__attribute__((noinline)) void row_times_columns(const float *__restrict row,
                                                 const float *__restrict columns,
                                                 float *__restrict out) {
  constexpr int V = kTile / kVector;
  f32x8 acc[V];
  for (int c = 0; c < V; ++c)
    acc[c] = broadcast8(0.0f);
  for (int d = 0; d < D; ++d) {
    const f32x8 x = broadcast8(row[d]);
    const float *column = columns + d * kTile;
#pragma GCC unroll 8
    for (int c = 0; c < V; ++c)
      acc[c] = madd8(x, load8(column + c * kVector), acc[c]);
  }
  for (int c = 0; c < V; ++c)
    store8(out + c * kVector, acc[c]);
}

/// acc[d] += sum_j weights[j] * rows[j * D + d] for j < count.
template <int D>
__attribute__((noinline)) void add_weighted_rows(float *__restrict acc,
                                                 const float *__restrict weights,
                                                 const float *__restrict rows, int64_t count) {
  if constexpr (D % kVector == 0 && D / kVector <= 16) {
    constexpr int V = D / kVector;
    f32x8 a[V];
    for (int c = 0; c < V; ++c)
      a[c] = load8(acc + c * kVector);
    for (int64_t j = 0; j < count; ++j) {
      const f32x8 w = broadcast8(weights[j]);
      const float *row = rows + j * D;
#pragma GCC unroll 16
      for (int c = 0; c < V; ++c)
        a[c] = madd8(w, load8(row + c * kVector), a[c]);
    }
    for (int c = 0; c < V; ++c)
      store8(acc + c * kVector, a[c]);
  } else {
    for (int64_t j = 0; j < count; ++j)
      for (int d = 0; d < D; ++d)
        acc[d] = madd(weights[j], rows[j * D + d], acc[d]);
  }
}

/// The largest of a row's kTile scores, in vector lanes. (A NaN score may
/// be passed over here; it reaches the output through its exp.)
inline float row_max(const float *row) {
  constexpr int kLanes = 8;
  float lanes[kLanes];
  for (int c = 0; c < kLanes; ++c)
    lanes[c] = row[c];
  for (int64_t j = kLanes; j < kTile; j += kLanes)
    for (int c = 0; c < kLanes; ++c)
      lanes[c] = row[j + c] > lanes[c] ? row[j + c] : lanes[c];
  float result = lanes[0];
  for (int c = 1; c < kLanes; ++c)
    result = lanes[c] > result ? lanes[c] : result;
  return result;
}

/// The sum of a row's kTile values, in vector lanes.
inline float row_sum(const float *row) {
  constexpr int kLanes = 8;
  float lanes[kLanes] = {};
  for (int64_t j = 0; j < kTile; j += kLanes)
    for (int c = 0; c < kLanes; ++c)
      lanes[c] += row[j + c];
  float result = 0.0f;
  for (int c = 0; c < kLanes; ++c)
    result += lanes[c];
  return result;
}

/// Scales and masks a row of dot products of query i with keys k0...:
/// -inf where the key is left out (causal, or past the block's `cols`).
template <bool Causal, class M>
void mask_scores(float *row, int64_t cols, int64_t i, int64_t k0, const M *mask,
                 const AttentionSizes &s) {
  if (mask) {
    const M *m = mask + i * s.keys + k0;
    for (int64_t j = 0; j < cols; ++j)
      row[j] = row[j] * s.scale + to_f32(m[j]);
  } else {
    for (int64_t j = 0; j < cols; ++j)
      row[j] = row[j] * s.scale;
  }
  // (causal: keys past the query's index; the block's end)
  const int64_t end = Causal ? (i - k0 + 1 < cols ? i - k0 + 1 : cols) : cols;
  for (int64_t j = end < 0 ? 0 : end; j < kTile; ++j)
    row[j] = -inf_f();
}

/// The probabilities exp(s - lse) of a masked row, in place (0 where left
/// out), and the gradient of its scores p (dp - delta) * scale into `ds`.
inline void row_gradient(float *__restrict p, float *__restrict ds, float rowLse, float delta,
                         float scale) {
  for (int64_t j = 0; j < kTile; ++j) {
    p[j] = p[j] == -inf_f() ? 0.0f : exp_f(p[j] - rowLse);
    ds[j] = p[j] * (ds[j] - delta) * scale;
  }
}

/// delta_i = dy_i . y_i for `rows` rows from `first`.
template <int D, class T>
void row_deltas(const T *dy, const T *y, int64_t first, int64_t rows, float *delta) {
  for (int64_t r = 0; r < rows; ++r) {
    float lanes[kVector] = {};
    for (int d = 0; d < D; ++d)
      lanes[d % kVector] += to_f32(dy[(first + r) * D + d]) * to_f32(y[(first + r) * D + d]);
    float acc = 0.0f;
    for (int c = 0; c < kVector; ++c)
      acc += lanes[c];
    delta[r] = acc;
  }
}

template <int D, class T> void store_rows(const float *rows, int64_t count, T *out) {
  for (int64_t e = 0; e < count * D; ++e)
    out[e] = from_f32<T>(rows[e]);
}

/// The end of the keys a block of queries [q0, q0 + rows) reaches.
template <bool Causal> int64_t keys_reached(int64_t q0, int64_t rows, int64_t keys) {
  return Causal && q0 + rows < keys ? q0 + rows : keys;
}

} // namespace detail

template <int D, bool Causal, class T, class M>
void attention_forward(const T *q, const T *k, const T *v, const M *mask, T *out, float *lse,
                       AttentionSizes s) {
  using namespace detail;
  const int64_t tiles = (s.queries + kTile - 1) / kTile;
  attention_tasks(s.batch * tiles, [&](int64_t task) {
    const int64_t b = task / tiles, q0 = (task % tiles) * kTile;
    const int64_t rows = std::min(kTile, s.queries - q0);
    std::vector<float> work(kTile * D * 4 + kTile * kTile + 2 * kTile, 0.0f);
    float *qf = work.data(), *kt = qf + kTile * D, *vf = kt + kTile * D, *acc = vf + kTile * D;
    float *scores = acc + kTile * D, *m = scores + kTile * kTile, *l = m + kTile;
    load_rows<D>(q, b * s.queries + q0, rows, qf);
    for (int64_t r = 0; r < rows; ++r)
      m[r] = -inf_f();
    const int64_t end = keys_reached<Causal>(q0, rows, s.keys);
    for (int64_t k0 = 0; k0 < end; k0 += kTile) {
      const int64_t cols = std::min(kTile, end - k0);
      load_columns<D>(k, b * s.keys + k0, cols, kt);
      load_rows<D>(v, b * s.keys + k0, cols, vf);
      for (int64_t r = 0; r < rows; ++r) {
        float *row = scores + r * kTile;
        row_times_columns<D>(qf + r * D, kt, row);
        mask_scores<Causal>(row, cols, q0 + r, k0, mask, s);
        const float next = std::max(m[r], row_max(row));
        if (next == -inf_f())
          continue; // every key so far left out
        const float correction = exp_f(m[r] - next);
        for (int64_t j = 0; j < kTile; ++j)
          row[j] = exp_f(row[j] - next);
        l[r] = l[r] * correction + row_sum(row);
        float *a = acc + r * D;
        for (int d = 0; d < D; ++d)
          a[d] *= correction;
        add_weighted_rows<D>(a, row, vf, cols);
        m[r] = next;
      }
    }
    for (int64_t r = 0; r < rows; ++r) {
      const float inverse = 1.0f / l[r];
      for (int d = 0; d < D; ++d)
        acc[r * D + d] *= inverse;
      lse[b * s.queries + q0 + r] = m[r] + log_f(l[r]);
    }
    store_rows<D>(acc, rows, out + (b * s.queries + q0) * D);
  });
}

template <int D, bool Causal, class T, class M>
void attention_grad_query(const T *q, const T *k, const T *v, const T *y, const float *lse,
                          const T *dy, const M *mask, T *dq, AttentionSizes s) {
  using namespace detail;
  const int64_t tiles = (s.queries + kTile - 1) / kTile;
  attention_tasks(s.batch * tiles, [&](int64_t task) {
    const int64_t b = task / tiles, q0 = (task % tiles) * kTile;
    const int64_t rows = std::min(kTile, s.queries - q0), first = b * s.queries + q0;
    std::vector<float> work(kTile * D * 6 + 2 * kTile + kTile, 0.0f);
    float *qf = work.data(), *dyf = qf + kTile * D, *kt = dyf + kTile * D, *vt = kt + kTile * D;
    float *kf = vt + kTile * D, *acc = kf + kTile * D, *p = acc + kTile * D, *ds = p + kTile;
    float *delta = ds + kTile;
    load_rows<D>(q, first, rows, qf);
    load_rows<D>(dy, first, rows, dyf);
    row_deltas<D>(dy, y, first, rows, delta);
    const int64_t end = keys_reached<Causal>(q0, rows, s.keys);
    for (int64_t k0 = 0; k0 < end; k0 += kTile) {
      const int64_t cols = std::min(kTile, end - k0);
      load_columns<D>(k, b * s.keys + k0, cols, kt);
      load_columns<D>(v, b * s.keys + k0, cols, vt);
      load_rows<D>(k, b * s.keys + k0, cols, kf);
      for (int64_t r = 0; r < rows; ++r) {
        row_times_columns<D>(qf + r * D, kt, p);
        mask_scores<Causal>(p, cols, q0 + r, k0, mask, s);
        row_times_columns<D>(dyf + r * D, vt, ds);
        row_gradient(p, ds, lse[first + r], delta[r], s.scale);
        add_weighted_rows<D>(acc + r * D, ds, kf, cols);
      }
    }
    store_rows<D>(acc, rows, dq + first * D);
  });
}

template <int D, bool Causal, class T, class M>
void attention_grad_key_value(const T *q, const T *k, const T *v, const T *y, const float *lse,
                              const T *dy, const M *mask, T *dk, T *dv, AttentionSizes s) {
  using namespace detail;
  const int64_t tiles = (s.keys + kTile - 1) / kTile;
  attention_tasks(s.batch * tiles, [&](int64_t task) {
    const int64_t b = task / tiles, k0 = (task % tiles) * kTile;
    const int64_t cols = std::min(kTile, s.keys - k0);
    std::vector<float> work(kTile * D * 6 + 4 * kTile * kTile + kTile, 0.0f);
    float *kt = work.data(), *vt = kt + kTile * D, *qf = vt + kTile * D, *dyf = qf + kTile * D;
    float *dka = dyf + kTile * D, *dva = dka + kTile * D, *p = dva + kTile * D;
    float *ds = p + kTile * kTile, *pt = ds + kTile * kTile, *dst = pt + kTile * kTile;
    float *delta = dst + kTile * kTile;
    load_columns<D>(k, b * s.keys + k0, cols, kt);
    load_columns<D>(v, b * s.keys + k0, cols, vt);
    // (causal: only queries i >= k0 reach these keys)
    for (int64_t q0 = Causal ? k0 : 0; q0 < s.queries; q0 += kTile) {
      const int64_t rows = std::min(kTile, s.queries - q0), first = b * s.queries + q0;
      load_rows<D>(q, first, rows, qf);
      load_rows<D>(dy, first, rows, dyf);
      row_deltas<D>(dy, y, first, rows, delta);
      for (int64_t r = 0; r < rows; ++r) {
        float *pr = p + r * kTile, *dsr = ds + r * kTile;
        row_times_columns<D>(qf + r * D, kt, pr);
        mask_scores<Causal>(pr, cols, q0 + r, k0, mask, s);
        row_times_columns<D>(dyf + r * D, vt, dsr);
        row_gradient(pr, dsr, lse[first + r], delta[r], s.scale);
      }
      // (transposed, so that each key's sums run over contiguous weights)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < cols; ++j) {
          pt[j * kTile + r] = p[r * kTile + j];
          dst[j * kTile + r] = ds[r * kTile + j];
        }
      for (int64_t j = 0; j < cols; ++j) {
        add_weighted_rows<D>(dva + j * D, pt + j * kTile, dyf, rows);
        add_weighted_rows<D>(dka + j * D, dst + j * kTile, qf, rows);
      }
    }
    store_rows<D>(dka, cols, dk + (b * s.keys + k0) * D);
    store_rows<D>(dva, cols, dv + (b * s.keys + k0) * D);
  });
}

#endif

} // namespace mpc

#endif // MPC_DEVICE_ATTENTION_CUH
