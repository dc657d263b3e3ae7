//===- HostMemory.cpp - the CPU backend's memory spaces -------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "HostMemory.h"

#include <cstring>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace mpc::rt {

namespace {

/// Whether MPC_CPU_HUGE_PAGES allows the advice (unset, or anything but 0).
bool hugePagesAllowed() {
  const char *value = std::getenv("MPC_CPU_HUGE_PAGES");
  return !value || std::strcmp(value, "0") != 0;
}

} // namespace

Status HostMemory::allocate(const std::string &bundlePath, BufferSpace space,
                            uint64_t bytes) {
#ifdef MADV_HUGEPAGE
  const bool huge = bytes >= kHugePageBytes && hugePagesAllowed();
#else
  const bool huge = false;
#endif
  const size_t alignment = huge ? kHugePageBytes : kAlignment;
  // aligned_alloc wants a non-zero multiple of the alignment.
  uint64_t rounded = (bytes + alignment) / alignment * alignment;
  void *memory = rounded >= bytes
                     ? std::aligned_alloc(alignment, static_cast<size_t>(rounded))
                     : nullptr;
  if (!memory)
    return Status::error(MPC_RESOURCE_EXHAUSTED, bundlePath + ": cannot allocate " +
                                                     std::to_string(bytes) + " bytes of " +
                                                     bufferSpaceName(space) + " memory");
  memory_.reset(static_cast<uint8_t *>(memory));
  hugePagesAdvised_ = false;
#ifdef MADV_HUGEPAGE
  // Before the first touch, so that zeroing faults in huge pages.
  if (huge)
    hugePagesAdvised_ = ::madvise(memory, static_cast<size_t>(rounded), MADV_HUGEPAGE) == 0;
#endif
  std::memset(memory, 0, static_cast<size_t>(rounded));
  return Status();
}

} // namespace mpc::rt
