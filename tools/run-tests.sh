#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, and runs every
# test (lit + GoogleTest) through ctest. Exits non-zero when anything fails.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}

"$root/tools/setup/install-deps.sh"
BUILD_DIR=$build "$root/tools/setup/build.sh"
cd "$build"
ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)"
