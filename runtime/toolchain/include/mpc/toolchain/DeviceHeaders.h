//===- DeviceHeaders.h - the device helper headers as string resources ----===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The headers of runtime/device/ compiled into the runtime, for NVRTC: pass
// `contents` as its `headers` and `name` as its `includeNames`, so generated
// kernels `#include "mpc/device/rows.cuh"` and an NVRTC error names the
// header and line. The definitions are generated at build time by
// runtime/device/EmbedHeaders.cmake.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_TOOLCHAIN_DEVICEHEADERS_H
#define MPC_TOOLCHAIN_DEVICEHEADERS_H

namespace mpc::rt {

/// One header: `name` is "mpc/device/<file>"; `contents` holds the file's
/// `size` bytes followed by a NUL.
struct EmbeddedHeader {
  const char *name;
  const char *contents;
  unsigned long size;
};

/// Every header of runtime/device/, sorted by name.
extern const EmbeddedHeader kDeviceHeaders[];
extern const unsigned kNumDeviceHeaders;

} // namespace mpc::rt

#endif // MPC_TOOLCHAIN_DEVICEHEADERS_H
