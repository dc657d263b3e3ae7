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

# The runtime-only configuration and the GPU script (build-runtime/).
runtime_build=${RUNTIME_BUILD_DIR:-$root/build-runtime}
BUILD_DIR=$runtime_build MPC_PYTHON=/usr/bin/python3 \
  "$root/bench/gpu/run.sh" "$runtime_build/gpu-out"
