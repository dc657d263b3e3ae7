//===- HostObject.h - the shared object of a bundle's host kernels --------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The compiler builds the kernels of a program for the host into one shared
// object, the bundle's "host.so" section. The CPU backend writes it to the
// object cache (ObjectCache.h), loads it with dlopen and finds each kernel
// with dlsym; every kernel has the ABI of runtime/device/README.md.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_BACKENDS_CPU_HOSTOBJECT_H
#define MPC_RUNTIME_BACKENDS_CPU_HOSTOBJECT_H

#include "Status.h"

#include <link.h>

#include <string>

namespace mpc::rt {

/// The bundle section that holds the host kernels.
constexpr char kHostObjectSection[] = "host.so";

/// A kernel: `extern "C" void kN(void *const *buffers)`.
using HostKernel = void (*)(void *const *);

class HostObject {
public:
  HostObject() = default;
  HostObject(const HostObject &) = delete;
  HostObject &operator=(const HostObject &) = delete;
  ~HostObject();

  /// Caches `bytes`, the host object of the bundle at `bundlePath`, and
  /// loads it.
  Status load(const std::string &bundlePath, const std::string &bytes);

  /// Looks up kernel `name`; MPC_FORMAT_ERROR naming it when the object
  /// lacks it.
  Status kernel(const std::string &name, HostKernel &out) const;

  /// The bytes of each buffer of kernel `name`'s table as the object was
  /// generated (MPC_KERNEL_BUFFER_BYTES), `count` of them; null for an
  /// object without the table (compiled before mpc exported it) or with one
  /// whose count does not match its size.
  const unsigned long long *bufferBytes(const std::string &name, size_t &count) const;

private:
  /// The ELF symbol of `symbol`, found by dlsym, when this object defines
  /// it (not a library it needs) with ELF type `type`; null otherwise.
  const ElfW(Sym) * definedHere(void *symbol, unsigned char type) const;

  void *handle_ = nullptr;
  std::string bundlePath_;
};

} // namespace mpc::rt

#endif // MPC_RUNTIME_BACKENDS_CPU_HOSTOBJECT_H
