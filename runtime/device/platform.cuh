//===- platform.cuh - target macros and integer types for kernels ---------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// What differs between the two targets of a generated kernel source, at the
// level of declarations:
//   - on the GPU (NVRTC or nvcc, __CUDACC__ defined) helpers are
//     `__device__` functions and a kernel is an `extern "C" __global__`;
//   - on the host (a plain C++17 compiler building the CPU backend's shared
//     object) helpers are ordinary inline functions and a kernel is an
//     exported `extern "C"` function the backend finds with dlsym.
// NVRTC has no standard headers, so the fixed-width integer types are
// declared here when compiling under it. The host also gets the one helper
// every merged launch's entry uses (fill_from_table).
//
//===----------------------------------------------------------------------===//

#ifndef MPC_DEVICE_PLATFORM_CUH
#define MPC_DEVICE_PLATFORM_CUH

#ifdef __CUDACC__
/// A helper callable from kernels and from host code.
#define MPC_HD __host__ __device__ __forceinline__
/// A helper that only runs inside a kernel (it may use the launch geometry).
#define MPC_DEVICE_INLINE __device__ __forceinline__
/// Defines kernel `name` in the kernel ABI: its only parameter is the table
/// of buffer pointers, in the order the bundle's manifest lists the operands.
#define MPC_KERNEL(name)                                                       \
  extern "C" __global__ void name(void *const *__restrict__ mpc_buffers)
/// A kernel launched with more than 256 threads a block: the compiler keeps
/// its registers within what `threads` threads may have.
#define MPC_KERNEL_BOUNDED(name, threads)                                      \
  extern "C" __global__ void __launch_bounds__(threads)                       \
      name(void *const *__restrict__ mpc_buffers)
#define MPC_KERNEL_BUFFER_BYTES(name, ...)
#else
/// Always inlined, as on the GPU: the helpers (conversions, exp_f, tanh_f,
/// ...) must be inlined into the host's loops for them to vectorise, and a
/// host compiler's limits on a large translation unit's growth otherwise
/// leave some out of line (measured: GCC 12 kept exp_f out of a GELU
/// chain's loop in GPT-2 mini's step once its attention kernels were in
/// the same source, and the kernel took 5x as long).
#define MPC_HD inline __attribute__((always_inline))
#define MPC_DEVICE_INLINE inline
#define MPC_KERNEL(name)                                                       \
  extern "C" __attribute__((visibility("default"))) void name(                 \
      void *const *__restrict__ mpc_buffers)
#define MPC_KERNEL_BOUNDED(name, threads) MPC_KERNEL(name)
/// Kernel `name`'s buffer table as generated: the count of its buffers,
/// then the bytes of each, exported so that the CPU backend checks the
/// bundle's launch steps of the kernel against it.
#define MPC_KERNEL_BUFFER_BYTES(name, ...)                                                         \
  extern "C" __attribute__((visibility("default")))                                                \
  const unsigned long long name##_mpc_buffer_bytes[] = {__VA_ARGS__};
#endif

/// Put before the host loop of a pointwise kernel: its iterations touch
/// distinct elements (as the GPU's threads do; a result written in place of
/// an input is read and written at the same index), so the host compiler
/// vectorises it without run-time checks of its pointers for overlap, which
/// it gives up on past a few pointers.
#if defined(__CUDACC__)
#define MPC_INDEPENDENT_ITERATIONS
#elif defined(__clang__)
#define MPC_INDEPENDENT_ITERATIONS _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define MPC_INDEPENDENT_ITERATIONS _Pragma("GCC ivdep")
#else
#define MPC_INDEPENDENT_ITERATIONS
#endif

/// Host kernels compiled for x86-64-v3 or x86-64-v4 say so: the CPU backend
/// refuses them on a CPU without AVX2, FMA and F16C (or AVX-512) instead of
/// failing on an illegal instruction.
#if !defined(__CUDACC__) && defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512CD__) &&                     \
    defined(__AVX512DQ__) && defined(__AVX512VL__)
extern "C" __attribute__((visibility("default"), weak)) const char mpc_host_isa[] = "x86-64-v4";
#else
extern "C" __attribute__((visibility("default"), weak)) const char mpc_host_isa[] = "x86-64-v3";
#endif
#endif

#ifdef __CUDACC_RTC__
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
#else
#include <cstdint>
#endif

#ifndef __CUDACC__
#include <cstring>
#include <type_traits>

namespace mpc {
/// Fills a merged launch's functor, whose members are exactly the pointers
/// of the buffer table in order (the emitter asserts the size), from the
/// table with one copy. An initializer of thousands of pointers (a deep
/// model's updates, or its finite checks) is one basic block that the host
/// compiler's straight-line vectoriser spends most of a compile on.
template <class Fn> inline void fill_from_table(Fn &fn, void *const *table) {
  static_assert(std::is_trivially_copyable<Fn>::value, "a functor of plain pointers");
  std::memcpy(static_cast<void *>(&fn), table, sizeof(Fn));
}
} // namespace mpc
#endif

#endif // MPC_DEVICE_PLATFORM_CUH
