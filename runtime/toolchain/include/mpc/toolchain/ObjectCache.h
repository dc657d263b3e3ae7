//===- ObjectCache.h - compiled objects cached on disk --------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Backends load compiled code (the CPU backend's shared object) from files.
// A bundle carries that code as a section; the cache writes each distinct
// object once, under a name derived from its contents, so that loading a
// bundle again or loading it from several processes reuses one file.
//
// The folder is $MPC_CACHE_DIR, else $XDG_CACHE_HOME/mpc, else
// $HOME/.cache/mpc, else /tmp/mpc-cache-<uid> (empty variables count as
// unset). Missing folders are created with mode 0700. The /tmp fallback is
// shared with other users, so it must be a real folder owned by the user and
// writable by nobody else, or the cache refuses it.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_TOOLCHAIN_OBJECTCACHE_H
#define MPC_TOOLCHAIN_OBJECTCACHE_H

#include "mpc/format/Status.h"

#include <string>

namespace mpc::rt {

/// The cache folder, created when missing.
Status objectCacheDirectory(std::string &out);

/// Sets `path` to a cache file holding exactly `bytes`, named
/// "<stem>-<16 hex digits of XXH3-64 of bytes><extension>". The file is
/// written atomically unless an identical one is there already. Safe to call
/// from several threads.
Status cacheObject(const std::string &bytes, const std::string &stem,
                   const std::string &extension, std::string &path);

} // namespace mpc::rt

#endif // MPC_TOOLCHAIN_OBJECTCACHE_H
