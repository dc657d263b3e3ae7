//===- HostMemory.h - the CPU backend's memory spaces ---------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Zeroed, aligned host memory for one of a program's memory spaces (the
// arena, the persistent space). On Linux a space of at least
// kHugePageBytes is a mapping of its own, aligned to that size and advised
// to be backed by transparent huge pages (madvise MADV_HUGEPAGE, before its
// first touch); smaller ones come from aligned_alloc. The update
// kernels stream through every parameter, its gradient and its optimizer
// state once a step: with 4 KiB pages the CPU's prefetchers stop at every
// page boundary and each page costs a TLB miss. Measured on the wide MLP's
// step (bench/results/2026-12-02-cpu-huge-pages.md), its update kernel
// takes 1.12 ms instead of 1.34 in bf16, 0.91 instead of 1.11 in fp32.
// The CNN's arena (4.7 MB) is advised too, its step unchanged within the
// noise; the other examples' spaces are under 2 MiB. The advice is only
// that: where the system gives no huge pages, or THP is off, the memory is
// the same memory with 4 KiB pages. MPC_CPU_HUGE_PAGES=0 leaves it out.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_BACKENDS_CPU_HOSTMEMORY_H
#define MPC_RUNTIME_BACKENDS_CPU_HOSTMEMORY_H

#include "mpc/format/Manifest.h"
#include "mpc/format/Status.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

namespace mpc::rt {

/// How HostMemory gives a space back: munmap for a mapping of its own
/// (mappedBytes long), free otherwise.
struct HostMemoryRelease {
  size_t mappedBytes = 0;
  void operator()(uint8_t *memory) const;
};

class HostMemory {
public:
  /// Alignment of every space, as cudaMalloc gives on the GPU.
  static constexpr size_t kAlignment = 256;
  /// A transparent huge page on x86-64 (and the smallest space advised).
  static constexpr size_t kHugePageBytes = size_t(2) << 20;

  /// `bytes` of zeroed memory for `space` of the program in `bundlePath`
  /// (named in the error when there is not that much memory).
  Status allocate(const std::string &bundlePath, BufferSpace space, uint64_t bytes);

  uint8_t *at(uint64_t offset) const { return memory_.get() + offset; }

  /// Whether the system took the advice to back the space with huge pages
  /// (madvise succeeded; whether it finds them is up to it).
  bool hugePagesAdvised() const { return hugePagesAdvised_; }

private:
  std::unique_ptr<uint8_t, HostMemoryRelease> memory_;
  bool hugePagesAdvised_ = false;
};

} // namespace mpc::rt

#endif // MPC_RUNTIME_BACKENDS_CPU_HOSTMEMORY_H
