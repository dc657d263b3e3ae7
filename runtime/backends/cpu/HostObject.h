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

#include "mpc/format/Status.h"

#include <link.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

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

  /// What the object's dynamic symbol table says of a symbol it defines.
  struct DefinedSymbol {
    unsigned char type; // STT_FUNC, STT_OBJECT, ...
    uint64_t size;
  };

private:
  /// The symbol `name` that dlsym found at `symbol` when this object
  /// defines it (not a library it needs) with ELF type `type`; nothing
  /// otherwise.
  std::optional<DefinedSymbol> definedHere(const std::string &name, void *symbol,
                                           unsigned char type) const;

  void *handle_ = nullptr;
  std::string bundlePath_;
  /// The symbols the object defines, read once from its dynamic symbol
  /// table (asking the dynamic loader with dladdr for each scanned the whole
  /// table every time: a 48-layer transformer's few thousand kernels spent
  /// 40% of its load there). `fromTable_` is false for an object without
  /// section headers, whose symbols are then asked of the loader.
  std::unordered_map<std::string, DefinedSymbol> defined_;
  bool fromTable_ = false;
};

} // namespace mpc::rt

#endif // MPC_RUNTIME_BACKENDS_CPU_HOSTOBJECT_H
