//===- pointwise.cuh - the elementwise kernel skeleton --------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// A pointwise kernel hands a functor that computes one output element to
// mpc::pointwise:
//
//   struct K3 {
//     const float *x; const float *b; float *y;
//     MPC_HD void operator()(int64_t i) const { y[i] = x[i] + b[i % 7]; }
//   };
//   MPC_KERNEL(k3) {
//     mpc::pointwise(35, K3{static_cast<const float *>(mpc_buffers[0]), ...});
//   }
//
// The functor must not depend on the order in which elements are visited:
// the GPU visits them in parallel, the host possibly from several threads.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_DEVICE_POINTWISE_CUH
#define MPC_DEVICE_POINTWISE_CUH

#include "mpc/device/platform.cuh"

namespace mpc {

#ifndef __CUDACC__
namespace detail {
/// Below this many elements the host loop stays on one thread: starting a
/// parallel region costs more than the loop.
constexpr int64_t kHostParallelMinElements = 32768;
} // namespace detail
#endif

/// Calls `fn(i)` once for every `i` in [0, n). On the GPU a grid-stride loop
/// over any 1-D launch; on the host a loop, run by OpenMP threads when the
/// shared object is built with OpenMP and n is large.
template <typename Fn>
MPC_DEVICE_INLINE void pointwise(int64_t n, const Fn &fn) {
#ifdef __CUDACC__
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       i < n; i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    fn(i);
#else
#ifdef _OPENMP
  const bool parallel = n >= detail::kHostParallelMinElements;
#pragma omp parallel for schedule(static) if (parallel)
#endif
  for (int64_t i = 0; i < n; ++i)
    fn(i);
#endif
}

/// The skeleton of generated pointwise kernels: on the GPU, `fn(i)` for
/// every element i in [0, elements); on the host, `fn.row(r)` for every row
/// r in [0, rows), which runs the row's elements in order with the last
/// index a plain loop (no division per element, vectorised), rows on OpenMP
/// threads when there are many elements.
template <typename Fn>
MPC_DEVICE_INLINE void pointwise_rows(int64_t rows, int64_t elements, const Fn &fn) {
#ifdef __CUDACC__
  (void)rows;
  pointwise(elements, fn);
#else
#ifdef _OPENMP
  const bool parallel = elements >= detail::kHostParallelMinElements && rows > 1;
#pragma omp parallel for schedule(static) if (parallel)
#endif
  for (int64_t r = 0; r < rows; ++r)
    fn.row(r);
#endif
}

} // namespace mpc

#endif // MPC_DEVICE_POINTWISE_CUH
