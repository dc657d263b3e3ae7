//===- HostObject.cpp - the shared object of a bundle's host kernels ------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "HostObject.h"

#include "HostCpu.h"
#include "Json.h"
#include "ObjectCache.h"

#include <dlfcn.h>

namespace mpc::rt {

HostObject::~HostObject() {
  if (handle_)
    ::dlclose(handle_);
}

Status HostObject::load(const std::string &bundlePath,
                        const std::string &bytes) {
  bundlePath_ = bundlePath;
  std::string path;
  if (Status status = cacheObject(bytes, "host", ".so", path); !status.isOk())
    return Status::error(status.code(), bundlePath +
                                            ": cannot cache the host "
                                            "object: " +
                                            status.message());
  // RTLD_NODELETE: the kernels may run on OpenMP worker threads that
  // outlive the program; unmapping the object (and libgomp with it) under
  // them would crash the process at exit.
  handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!handle_) {
    const char *error = ::dlerror();
    return Status::error(MPC_FORMAT_ERROR,
                         bundlePath + ": cannot load its host object '" + path +
                             "': " + (error ? error : "unknown error"));
  }
  // Kernels compiled for a newer x86-64 level than this CPU's would stop the
  // process on an illegal instruction: refuse them here.
  if (const char *isa = static_cast<const char *>(::dlsym(handle_, "mpc_host_isa"));
      isa && std::string(isa) == "x86-64-v3" && !cpuIsX8664V3())
    return Status::error(MPC_UNSUPPORTED,
                         bundlePath +
                             ": its host kernels need an x86-64-v3 CPU (AVX2, FMA, F16C), "
                             "which this one is not; compile the graph again here, or with "
                             "MPC_HOST_ARCH=x86-64 for any x86-64 CPU");
  return Status();
}

Status HostObject::kernel(const std::string &name, HostKernel &out) const {
  ::dlerror();
  void *symbol = ::dlsym(handle_, name.c_str());
  if (!symbol)
    return Status::error(MPC_FORMAT_ERROR,
                         bundlePath_ + ": kernel " + quoteJson(name) +
                             " is missing from the host object");
  out = reinterpret_cast<HostKernel>(symbol);
  return Status();
}

} // namespace mpc::rt
