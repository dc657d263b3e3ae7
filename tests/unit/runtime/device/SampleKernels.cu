//===- SampleKernels.cu - hand-written kernels in the generated form ------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Kernels written the way mpc emits them: the kernel ABI, fp32 compute,
// sizes as literals. The same file is compiled by the host compiler into a
// shared object (SampleKernels.cpp) that the tests run, and by NVRTC for the
// GPU targets (NvrtcCompileTest.cpp).
//
//===----------------------------------------------------------------------===//

#include "mpc/device/math.cuh"
#include "mpc/device/types.cuh"
#include "mpc/device/platform.cuh"
#include "mpc/device/pointwise.cuh"
#include "mpc/device/rows.cuh"

namespace {

/// y[r, c] = x[r, c] + b[c] for a row-major x with `Cols` columns.
template <int64_t Cols> struct BroadcastAdd {
  const float *x;
  const float *b;
  float *y;
  MPC_HD void operator()(int64_t i) const { y[i] = x[i] + b[i % Cols]; }
};

/// hi[i] = max(a[i], b[i]), lo[i] = min(a[i], b[i]).
struct MaxMin {
  const float *a;
  const float *b;
  float *hi;
  float *lo;
  MPC_HD void operator()(int64_t i) const {
    hi[i] = mpc::max_f(a[i], b[i]);
    lo[i] = mpc::min_f(a[i], b[i]);
  }
};

/// y = softmax(x) along rows of `Cols` columns.
template <int64_t Cols> struct Softmax {
  const float *x;
  float *y;
  MPC_DEVICE_INLINE void operator()(mpc::RowContext &row) const {
    const float *xr = x + row.index() * Cols;
    float *yr = y + row.index() * Cols;
    float m = row.reduce_max(Cols, [=](int64_t c) { return xr[c]; });
    float s =
        row.reduce_sum(Cols, [=](int64_t c) { return mpc::exp_f(xr[c] - m); });
    row.for_each(Cols, [=](int64_t c) { yr[c] = mpc::exp_f(xr[c] - m) / s; });
  }
};

/// sum[r] and max[r] of the rows of `Cols` columns, from one thread each.
template <int64_t Cols> struct RowSumMax {
  const float *x;
  float *sum;
  float *max;
  MPC_DEVICE_INLINE void operator()(mpc::RowContext &row) const {
    const float *xr = x + row.index() * Cols;
    float s = row.reduce_sum(Cols, [=](int64_t c) { return xr[c]; });
    float m = row.reduce_max(Cols, [=](int64_t c) { return xr[c]; });
    row.for_each(1, [=](int64_t) {
      sum[row.index()] = s;
      max[row.index()] = m;
    });
  }
};

template <class T> MPC_HD const T *input(void *const *buffers, int index) {
  return static_cast<const T *>(buffers[index]);
}

template <class T> MPC_HD T *output(void *const *buffers, int index) {
  return static_cast<T *>(buffers[index]);
}

} // namespace

/// Buffers: x [5, 7], b [7], y [5, 7].
MPC_KERNEL(mpc_test_broadcast_add_5x7) {
  mpc::pointwise(5 * 7, BroadcastAdd<7>{input<float>(mpc_buffers, 0),
                                        input<float>(mpc_buffers, 1),
                                        output<float>(mpc_buffers, 2)});
}

/// Buffers: x [257, 131], b [131], y [257, 131]; large enough for the host's
/// parallel loop.
MPC_KERNEL(mpc_test_broadcast_add_257x131) {
  mpc::pointwise(257 * 131, BroadcastAdd<131>{input<float>(mpc_buffers, 0),
                                              input<float>(mpc_buffers, 1),
                                              output<float>(mpc_buffers, 2)});
}

/// Buffers: a [9], b [9], hi [9], lo [9].
MPC_KERNEL(mpc_test_max_min_9) {
  mpc::pointwise(
      9, MaxMin{input<float>(mpc_buffers, 0), input<float>(mpc_buffers, 1),
                output<float>(mpc_buffers, 2), output<float>(mpc_buffers, 3)});
}

/// Buffers: x [6, 37], y [6, 37].
MPC_KERNEL(mpc_test_softmax_6x37) {
  mpc::rows(6, Softmax<37>{input<float>(mpc_buffers, 0),
                           output<float>(mpc_buffers, 1)});
}

/// Buffers: x [300, 17], y [300, 17]; enough rows for the host's parallel
/// loop.
MPC_KERNEL(mpc_test_softmax_300x17) {
  mpc::rows(300, Softmax<17>{input<float>(mpc_buffers, 0),
                             output<float>(mpc_buffers, 1)});
}

/// Buffers: x [3, 1000], sum [3], max [3].
MPC_KERNEL(mpc_test_row_sum_max_3x1000) {
  mpc::rows(3, RowSumMax<1000>{input<float>(mpc_buffers, 0),
                               output<float>(mpc_buffers, 1),
                               output<float>(mpc_buffers, 2)});
}

/// Buffers: x [2, 5], sum [2], max [2].
MPC_KERNEL(mpc_test_row_sum_max_2x5) {
  mpc::rows(2, RowSumMax<5>{input<float>(mpc_buffers, 0),
                            output<float>(mpc_buffers, 1),
                            output<float>(mpc_buffers, 2)});
}

/// Buffers: x [4, 1], sum [4], max [4].
MPC_KERNEL(mpc_test_row_sum_max_4x1) {
  mpc::rows(4, RowSumMax<1>{input<float>(mpc_buffers, 0),
                            output<float>(mpc_buffers, 1),
                            output<float>(mpc_buffers, 2)});
}

/// Buffers: x [4, 0] (may be null: it is never read), sum [4], max [4].
MPC_KERNEL(mpc_test_row_sum_max_4x0) {
  mpc::rows(4, RowSumMax<0>{input<float>(mpc_buffers, 0),
                            output<float>(mpc_buffers, 1),
                            output<float>(mpc_buffers, 2)});
}
