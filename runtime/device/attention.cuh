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
// products accumulate in fp32; results are rounded once (on the host with
// AVX512-BF16, bf16's p and ds are rounded to bf16 for their products:
// attention_bf16.cuh). D is the head size
// (at most kAttentionMaxHead).
//
// On the GPU: one warp per query row (or per key in the keys' gradient),
// the head dimensions spread over its lanes, the keys of a block of 32 in
// shared memory, one key per lane for the scores; fp32 FMA, not tensor
// cores. The host's form is attention_host.cuh's.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_DEVICE_ATTENTION_CUH
#define MPC_DEVICE_ATTENTION_CUH

#include "mpc/device/math.cuh"
#include "mpc/device/platform.cuh"
#include "mpc/device/pointwise.cuh"
#include "mpc/device/types.cuh"

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

#endif // __CUDACC__

} // namespace mpc

#ifndef __CUDACC__
#include "mpc/device/attention_host.cuh"
#endif

#endif // MPC_DEVICE_ATTENTION_CUH
