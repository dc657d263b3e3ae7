//===- rows.cuh - the row-wise kernel skeleton and its reductions ---------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// A row kernel (softmax, layer norm, a loss over classes, a reduction along
// the last axis) hands mpc::rows a functor called once per row with a row
// context:
//
//   struct Softmax {
//     const float *x; float *y;
//     MPC_DEVICE_INLINE void operator()(mpc::RowContext &row) const {
//       const float *xr = x + row.index() * 37;
//       float *yr = y + row.index() * 37;
//       float m = row.reduce_max(37, [=](int64_t c) { return xr[c]; });
//       float s = row.reduce_sum(
//           37, [=](int64_t c) { return mpc::exp_f(xr[c] - m); });
//       row.for_each(
//           37, [=](int64_t c) { yr[c] = mpc::exp_f(xr[c] - m) / s; });
//     }
//   };
//
// On the GPU each row belongs to one block (blocks stride over the rows when
// there are more rows than blocks); the block's threads stride over the
// columns and reduce with warp shuffles and shared memory. On the host a row
// is a plain loop, and rows run on OpenMP threads when there are many.
//
// Rules for the functor, which the GPU needs:
//   - every thread of the block runs it: the reductions hold barriers, so
//     they must be reached by all threads, with the same n, in the same order;
//   - column c is always handled by the thread c mod blockDim.x, in for_each
//     and in the loads of a reduction alike, so a reduction may read what an
//     earlier for_each of the same row wrote at the same column without a
//     barrier; reading another column of it is not safe;
//   - blockDim.x is a multiple of 32, at most 1024.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_DEVICE_ROWS_CUH
#define MPC_DEVICE_ROWS_CUH

#include "mpc/device/math.cuh"
#include "mpc/device/platform.cuh"
#include "mpc/device/pointwise.cuh"

namespace mpc {

#ifdef __CUDACC__

namespace detail {
/// Shared memory of a row block: one partial result per warp (at most 32
/// warps in 1024 threads), then one slot that broadcasts the block's result.
constexpr int kRowScratchSlots = 33;
constexpr int kRowBroadcastSlot = 32;
/// Loads a thread of a row reduction issues before it uses the first: one
/// block streams a whole tensor when a reduction has few rows (a finite
/// check, a loss), and one load at a time would leave its multiprocessor
/// waiting on memory. A power of two.
constexpr int kLoadsInFlight = 8;

struct SumOp {
  MPC_DEVICE_INLINE float operator()(float a, float b) const { return a + b; }
};

struct MaxOp {
  MPC_DEVICE_INLINE float operator()(float a, float b) const {
    return max_f(a, b);
  }
};
} // namespace detail

/// One row as a thread of the row's block sees it. Reductions return the
/// row's result to every thread of the block.
class RowContext {
public:
  MPC_DEVICE_INLINE RowContext(int64_t index, float *scratch)
      : index_(index), scratch_(scratch) {}

  MPC_DEVICE_INLINE int64_t index() const { return index_; }

  /// The same block as row `index` (a multi-tensor launch hands each of its
  /// kernels' functors its own row numbers).
  MPC_DEVICE_INLINE RowContext at(int64_t index) const { return RowContext(index, scratch_); }

  /// The fp32 sum of load(c) over the columns c in [0, n); 0 when n is 0.
  /// Each thread keeps detail::kLoadsInFlight partial sums of its columns
  /// (so that as many loads are in flight), adds them as a tree, then the
  /// threads' sums are added as a tree.
  template <class Load>
  MPC_DEVICE_INLINE float reduce_sum(int64_t n, Load load) const {
    return reduceBlock(reduceThread(n, load, 0.0f, detail::SumOp()), 0.0f,
                       detail::SumOp());
  }

  /// The largest load(c) over [0, n); NaN if any is NaN, -inf when n is 0.
  template <class Load>
  MPC_DEVICE_INLINE float reduce_max(int64_t n, Load load) const {
    return reduceBlock(reduceThread(n, load, -inf_f(), detail::MaxOp()),
                       -inf_f(), detail::MaxOp());
  }

  /// Calls body(c) once for every column c in [0, n).
  template <class Body>
  MPC_DEVICE_INLINE void for_each(int64_t n, Body body) const {
    for (int64_t c = threadIdx.x; c < n; c += blockDim.x)
      body(c);
  }

private:
  /// This thread's columns (c = threadIdx.x + i blockDim.x) combined with
  /// `op`: in groups of kLoadsInFlight loads issued before any is used, one
  /// partial result per position in the group, then the rest in order.
  template <class Load, class Op>
  MPC_DEVICE_INLINE float reduceThread(int64_t n, Load &load, float identity,
                                       Op op) const {
    constexpr int kGroup = detail::kLoadsInFlight;
    float partial[kGroup];
#pragma unroll
    for (int i = 0; i < kGroup; ++i)
      partial[i] = identity;
    const int64_t stride = blockDim.x;
    int64_t c = threadIdx.x;
    for (; c + (kGroup - 1) * stride < n; c += kGroup * stride) {
      float loaded[kGroup];
#pragma unroll
      for (int i = 0; i < kGroup; ++i)
        loaded[i] = load(c + i * stride);
#pragma unroll
      for (int i = 0; i < kGroup; ++i)
        partial[i] = op(partial[i], loaded[i]);
    }
    for (; c < n; c += stride)
      partial[0] = op(partial[0], load(c));
#pragma unroll
    for (int width = kGroup / 2; width > 0; width /= 2)
#pragma unroll
      for (int i = 0; i < width; ++i)
        partial[i] = op(partial[i], partial[i + width]);
    return partial[0];
  }

  /// Combines every thread's `value` with `op`. Two barriers make
  /// back-to-back reductions safe: the per-warp slots are rewritten only
  /// after the second barrier of the previous reduction (so after warp 0 has
  /// read them), and the broadcast slot only after the first barrier of the
  /// next one (so after every thread has read it).
  template <class Op>
  MPC_DEVICE_INLINE float reduceBlock(float value, float identity,
                                      Op op) const {
    constexpr unsigned kFullMask = 0xffffffffu;
    const unsigned lane = threadIdx.x % 32;
    const unsigned warp = threadIdx.x / 32;
    for (int offset = 16; offset > 0; offset /= 2)
      value = op(value, __shfl_xor_sync(kFullMask, value, offset));
    if (lane == 0)
      scratch_[warp] = value;
    __syncthreads();
    if (warp == 0) {
      value = lane < (blockDim.x + 31) / 32 ? scratch_[lane] : identity;
      for (int offset = 16; offset > 0; offset /= 2)
        value = op(value, __shfl_xor_sync(kFullMask, value, offset));
      if (lane == 0)
        scratch_[detail::kRowBroadcastSlot] = value;
    }
    __syncthreads();
    return scratch_[detail::kRowBroadcastSlot];
  }

  int64_t index_;
  float *scratch_;
};

/// Calls `fn(row)` once for every row index in [0, count), each row on one
/// block of a 1-D launch.
template <typename Fn>
MPC_DEVICE_INLINE void rows(int64_t count, const Fn &fn) {
  __shared__ float scratch[detail::kRowScratchSlots];
  for (int64_t r = blockIdx.x; r < count; r += gridDim.x) {
    RowContext row(r, scratch);
    fn(row);
  }
}

/// `fn(row)` out of line: a multi-tensor launch calls each of its kernels'
/// functors through this, so that its code holds one copy per functor type
/// rather than one per member.
template <class Fn, class Row>
__device__ __noinline__ void run_row(const Fn &fn, const Row &row) {
  fn(row);
}

/// The skeleton of generated reductions: on the GPU, rows(count, fn), one
/// output per row; on the host, `fn.row(r)` for every r in [0, hostRows),
/// the host's own form of the reduction (see compiler/CodeGen/EmitRows.cpp).
/// `elements`: how many the reduction reads in all (0: not known).
template <typename Fn>
MPC_DEVICE_INLINE void reduce_rows(int64_t count, int64_t hostRows, const Fn &fn,
                                   int64_t elements = 0) {
  (void)hostRows;
  (void)elements;
  rows(count, fn);
}

#else

namespace detail {
/// Below this many rows the host runs them on one thread.
constexpr int64_t kHostParallelMinRows = 64;
/// Column blocks this short are summed left to right (see pairwiseSum).
constexpr int64_t kPairwiseSumBlock = 32;

/// The sum of load(c) over [begin, end): halves summed recursively, blocks
/// of at most kPairwiseSumBlock columns summed in order. The rounding error
/// grows with log2(n) rather than with n as in a running sum, which keeps
/// long rows (a vocabulary of 50k classes) within fp32 accuracy; the
/// order differs from the GPU's, so results may differ in the last bits.
template <class Load>
float pairwiseSum(int64_t begin, int64_t end, Load &load) {
  if (end - begin <= kPairwiseSumBlock) {
    float acc = 0.0f;
    for (int64_t c = begin; c < end; ++c)
      acc += load(c);
    return acc;
  }
  int64_t mid = begin + (end - begin) / 2;
  return pairwiseSum(begin, mid, load) + pairwiseSum(mid, end, load);
}
} // namespace detail

/// One row of a rows kernel on the host.
class RowContext {
public:
  explicit RowContext(int64_t index) : index_(index) {}

  int64_t index() const { return index_; }

  /// Row `index` (a multi-tensor launch hands each of its kernels' functors
  /// its own row numbers).
  RowContext at(int64_t index) const { return RowContext(index); }

  /// The fp32 sum of load(c) over [0, n), summed pairwise; 0 when n is 0.
  template <class Load> float reduce_sum(int64_t n, Load load) const {
    return detail::pairwiseSum(0, n, load);
  }

  /// The largest load(c) over [0, n); NaN if any is NaN, -inf when n is 0.
  template <class Load> float reduce_max(int64_t n, Load load) const {
    float acc = -inf_f();
    for (int64_t c = 0; c < n; ++c)
      acc = max_f(acc, load(c));
    return acc;
  }

  /// Calls body(c) once for every column c in [0, n), in order.
  template <class Body> void for_each(int64_t n, Body body) const {
    for (int64_t c = 0; c < n; ++c)
      body(c);
  }

private:
  int64_t index_;
};

/// Calls `fn(row)` once for every row index in [0, count), rows on OpenMP
/// threads when the shared object is built with OpenMP and there are many.
template <typename Fn>
MPC_DEVICE_INLINE void rows(int64_t count, const Fn &fn) {
  if (detail::hostParallel(count >= detail::kHostParallelMinRows)) {
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < count; ++r) {
      RowContext row(r);
      fn(row);
    }
    return;
  }
  for (int64_t r = 0; r < count; ++r) {
    RowContext row(r);
    fn(row);
  }
}

/// `fn(row)` out of line (see the GPU's run_row).
template <class Fn, class Row>
__attribute__((noinline)) void run_row(const Fn &fn, const Row &row) {
  fn(row);
}

/// `fn.row(r)`, the host's form of row r, out of line: a multi-tensor
/// launch calls each of its kernels' functors through this, so that its
/// code holds one copy per functor type rather than one per member.
template <class Fn>
__attribute__((noinline)) void run_host_row(const Fn &fn, int64_t r) {
  fn.row(r);
}

/// The skeleton of generated reductions: `fn.row(r)` for every r in
/// [0, hostRows), the host's own form of the reduction (see
/// compiler/CodeGen/EmitRows.cpp), rows on OpenMP threads when there are
/// many, or when there are a few large ones: `elements` (how many the
/// reduction reads in all; 0: not known) says so, as for a bias gradient's
/// sum over a batch, whose host rows are a few stripes of columns.
template <typename Fn>
void reduce_rows(int64_t count, int64_t hostRows, const Fn &fn, int64_t elements = 0) {
  (void)count;
  const bool large = hostRows >= detail::kHostParallelMinRows ||
                     (hostRows > 1 && elements >= detail::kHostParallelMinElements);
  if (detail::hostParallel(large)) {
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < hostRows; ++r)
      fn.row(r);
    return;
  }
  for (int64_t r = 0; r < hostRows; ++r)
    fn.row(r);
}

#endif

} // namespace mpc

#endif // MPC_DEVICE_ROWS_CUH
