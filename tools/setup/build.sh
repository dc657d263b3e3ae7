#!/usr/bin/env bash
# Configures and builds mpc (compiler, runtime, tests, op docs) into build/
# with Ninja and ccache. Incremental: a second run only rebuilds what changed.
#   BUILD_DIR      where to build (default: <repo>/build)
#   MPC_CMAKE_ARGS extra CMake arguments, e.g. "-DMPC_BUILD_COMPILER=OFF"
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$root/build}

if [ ! -f "$build/build.ninja" ]; then
  # shellcheck disable=SC2086
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release ${MPC_CMAKE_ARGS:-}
fi
jobs=$(nproc 2>/dev/null || echo 2)
targets=(all)
if grep -q '^build mlir-doc:' "$build/build.ninja" 2>/dev/null; then
  targets+=(mlir-doc)
fi
ninja -C "$build" -j "$jobs" "${targets[@]}"
