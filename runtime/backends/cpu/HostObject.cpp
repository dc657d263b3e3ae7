//===- HostObject.cpp - the shared object of a bundle's host kernels ------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "HostObject.h"

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
