#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, and runs every
# test (lit + GoogleTest) through ctest; then builds the runtime alone, as a
# GPU machine does (no MLIR), and runs bench/gpu/run.sh on it, whose GPU
# parts report themselves skipped where there is no GPU. Exits non-zero when
# anything fails.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}

"$root/tools/setup/install-deps.sh"
BUILD_DIR=$build "$root/tools/setup/build.sh"
(cd "$build" && ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)")

# The runtime-only configuration and the GPU script (build-runtime/), also
# built without oneDNN, as a GPU machine may be: its tests cover the
# OpenBLAS GEMM paths that oneDNN takes over in build/.
runtime_build=${RUNTIME_BUILD_DIR:-$root/build-runtime}
BUILD_DIR=$runtime_build MPC_PYTHON=/usr/bin/python3 MPC_RUNTIME_CMAKE_ARGS=-DMPC_USE_ONEDNN=OFF \
  "$root/bench/gpu/run.sh" "$runtime_build/gpu-out"
