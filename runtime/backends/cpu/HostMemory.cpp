//===- HostMemory.cpp - the CPU backend's memory spaces -------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "HostMemory.h"

#include "CpuSettings.h"

#include <cstring>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace mpc::rt {

namespace {

/// Whether MPC_CPU_HUGE_PAGES allows the advice (unset, or anything but 0).
bool hugePagesAllowed() { return cpuSetting("MPC_CPU_HUGE_PAGES").value_or(true); }

/// `bytes` rounded up to a multiple of `alignment`, at least one (0 when
/// that does not fit in 64 bits).
uint64_t roundUp(uint64_t bytes, uint64_t alignment) {
  if (bytes > UINT64_MAX - alignment)
    return 0;
  return bytes == 0 ? alignment : (bytes + alignment - 1) / alignment * alignment;
}

} // namespace

void HostMemoryRelease::operator()(uint8_t *memory) const {
#ifdef MADV_HUGEPAGE
  if (mappedBytes) {
    ::munmap(memory, mappedBytes);
    return;
  }
#endif
  std::free(memory);
}

Status HostMemory::allocate(const std::string &bundlePath, BufferSpace space,
                            uint64_t bytes) {
  memory_.reset();
  hugePagesAdvised_ = false;
  auto exhausted = [&] {
    return Status::error(MPC_RESOURCE_EXHAUSTED, bundlePath + ": cannot allocate " +
                                                     std::to_string(bytes) + " bytes of " +
                                                     bufferSpaceName(space) + " memory");
  };
#ifdef MADV_HUGEPAGE
  if (bytes >= kHugePageBytes && hugePagesAllowed()) {
    // A mapping of its own, so that no page of it was touched before the
    // advice (memory from malloc's heap may have been) and the advice ends
    // with it. Mapped a huge page larger, then trimmed to an aligned start.
    uint64_t rounded = roundUp(bytes, kHugePageBytes);
    if (rounded == 0 || rounded > SIZE_MAX - kHugePageBytes)
      return exhausted();
    size_t mapped = static_cast<size_t>(rounded) + kHugePageBytes;
    void *region = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED)
      return exhausted();
    auto *start = static_cast<uint8_t *>(region);
    size_t lead = (kHugePageBytes - reinterpret_cast<uintptr_t>(start) % kHugePageBytes) %
                  kHugePageBytes;
    if (lead)
      ::munmap(start, lead);
    if (size_t tail = kHugePageBytes - lead)
      ::munmap(start + lead + rounded, tail);
    start += lead;
    memory_ = std::unique_ptr<uint8_t, HostMemoryRelease>(
        start, HostMemoryRelease{static_cast<size_t>(rounded)});
    hugePagesAdvised_ = ::madvise(start, static_cast<size_t>(rounded), MADV_HUGEPAGE) == 0;
    // Anonymous pages read as zero; touching them now faults them in (as
    // huge pages where the system has them) before the first step.
    std::memset(start, 0, static_cast<size_t>(rounded));
    return Status();
  }
#endif
  uint64_t rounded = roundUp(bytes, kAlignment);
  void *memory = rounded != 0 && rounded <= SIZE_MAX
                     ? std::aligned_alloc(kAlignment, static_cast<size_t>(rounded))
                     : nullptr;
  if (!memory)
    return exhausted();
  memory_ = std::unique_ptr<uint8_t, HostMemoryRelease>(static_cast<uint8_t *>(memory),
                                                       HostMemoryRelease{});
  std::memset(memory, 0, static_cast<size_t>(rounded));
  return Status();
}

} // namespace mpc::rt
