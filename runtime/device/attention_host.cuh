//===- attention_host.cuh - fused attention on the host -------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The host form of attention.cuh's kernels: blocks of kHostAttentionTile
// queries and keys in fp32 arrays whose loops a host compiler vectorises,
// blocks on OpenMP threads. Where the operands are bf16 and the CPU has
// AVX512-BF16, the blocks' products take bf16 dot products instead
// (attention_bf16.cuh).
//
//===----------------------------------------------------------------------===//

#ifndef MPC_DEVICE_ATTENTION_HOST_CUH
#define MPC_DEVICE_ATTENTION_HOST_CUH

#ifdef __CUDACC__
#error "attention_host.cuh is the host's form: NVRTC compiles attention.cuh's GPU form"
#endif

#include "mpc/device/attention.cuh"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

namespace mpc {
/// Queries and keys of a host block.
constexpr int64_t kHostAttentionTile = 64;

namespace detail {

constexpr int64_t kTile = kHostAttentionTile;

/// a * b + c, fused where the host has FMA (x86-64-v3 and -v4, the levels
/// mpc builds host kernels for by default): the kernels below are products,
/// and the host kernels are otherwise compiled without contraction
/// (-ffp-contract=off).
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
template <int D, class T> void load_rows(const T *buffer, int64_t first, int64_t rows, float *out) {
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

template <int D, bool Causal, class T, class M>
void attention_forward_fp32(const T *q, const T *k, const T *v, const M *mask, T *out, float *lse,
                            AttentionSizes s) {
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
void attention_grad_query_fp32(const T *q, const T *k, const T *v, const T *y, const float *lse,
                               const T *dy, const M *mask, T *dq, AttentionSizes s) {
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
void attention_grad_key_value_fp32(const T *q, const T *k, const T *v, const T *y, const float *lse,
                                   const T *dy, const M *mask, T *dk, T *dv, AttentionSizes s) {
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

} // namespace detail
} // namespace mpc

#include "mpc/device/attention_bf16.cuh"

namespace mpc {

/// Where T is bf16, the head size D whole vectors and the CPU has
/// AVX512-BF16, the host's attention takes attention_bf16.cuh's form.
#ifdef MPC_HOST_HAS_BF16_DOT
template <int D, class T> constexpr bool has_bf16_dot_form() {
  return std::is_same<T, bf16_t>::value && detail::bf16_dot::takes_head<D>();
}
#endif

template <int D, bool Causal, class T, class M>
void attention_forward(const T *q, const T *k, const T *v, const M *mask, T *out, float *lse,
                       AttentionSizes s) {
#ifdef MPC_HOST_HAS_BF16_DOT
  if constexpr (has_bf16_dot_form<D, T>())
    if (detail::bf16_dot::enabled())
      return detail::bf16_dot::attention_forward<D, Causal>(q, k, v, mask, out, lse, s);
#endif
  detail::attention_forward_fp32<D, Causal>(q, k, v, mask, out, lse, s);
}

template <int D, bool Causal, class T, class M>
void attention_grad_query(const T *q, const T *k, const T *v, const T *y, const float *lse,
                          const T *dy, const M *mask, T *dq, AttentionSizes s) {
#ifdef MPC_HOST_HAS_BF16_DOT
  if constexpr (has_bf16_dot_form<D, T>())
    if (detail::bf16_dot::enabled())
      return detail::bf16_dot::attention_grad_query<D, Causal>(q, k, v, y, lse, dy, mask, dq, s);
#endif
  detail::attention_grad_query_fp32<D, Causal>(q, k, v, y, lse, dy, mask, dq, s);
}

template <int D, bool Causal, class T, class M>
void attention_grad_key_value(const T *q, const T *k, const T *v, const T *y, const float *lse,
                              const T *dy, const M *mask, T *dk, T *dv, AttentionSizes s) {
#ifdef MPC_HOST_HAS_BF16_DOT
  if constexpr (has_bf16_dot_form<D, T>())
    if (detail::bf16_dot::enabled())
      return detail::bf16_dot::attention_grad_key_value<D, Causal>(q, k, v, y, lse, dy, mask, dk,
                                                                   dv, s);
#endif
  detail::attention_grad_key_value_fp32<D, Causal>(q, k, v, y, lse, dy, mask, dk, dv, s);
}

} // namespace mpc

#endif // MPC_DEVICE_ATTENTION_HOST_CUH
