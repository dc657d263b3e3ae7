#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, and runs every
# test (lit + GoogleTest) through ctest; then builds the runtime alone, as a
# GPU machine does (no MLIR), and runs bench/gpu/run.sh on it, whose GPU
# parts report themselves skipped where there is no GPU. Exits non-zero when
# anything fails.
#
#   tools/run-tests.sh                        the suite (what .ci/run calls)
#   tools/run-tests.sh --sanitize=address,undefined
#                                             the same suite built with clang 19,
#                                             ASan and UBSan, in
#                                             build-address-undefined/ (--runtime-only:
#                                             the runtime alone); the fuzz targets
#                                             are libFuzzer's there and each runs a
#                                             fixed number of inputs (tools/fuzz.sh
#                                             runs them longer in the same build)
#   tools/run-tests.sh --sanitize=thread --runtime-only
#                                             the runtime alone (no MLIR, which
#                                             TSan would need instrumented too)
#                                             with TSan, its GoogleTest tests only
#
# A sanitizer's report fails the test that triggered it.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sanitize="" runtime_only=0
for arg in "$@"; do
  case "$arg" in
    --sanitize=*) sanitize=${arg#--sanitize=} ;;
    --runtime-only) runtime_only=1 ;;
    *) echo "run-tests.sh: unknown argument '$arg' (see the comment at its top)" >&2; exit 2 ;;
  esac
done

"$root/tools/setup/install-deps.sh"

if [ -n "$sanitize" ]; then
  # (no comma in the folder's name: it would split the linker's -Wl options)
  build=${BUILD_DIR:-$root/build-${sanitize//,/-}}
  cmake_args="-DMPC_SANITIZE=$sanitize"
  if [ "$runtime_only" = 1 ]; then
    build=${BUILD_DIR:-$root/build-${sanitize//,/-}-runtime}
    cmake_args="$cmake_args -DMPC_BUILD_COMPILER=OFF"
  fi
  # Leaks are not errors here (MLIR keeps its contexts' storage to the end);
  # everything else is. allow_user_poisoning=0: LLVM's BumpPtrAllocator
  # poisons and unpoisons its slabs in inline code when the includer is
  # built with ASan; Debian's MLIR libraries are not, and their copies of
  # that code do not unpoison what ours poisoned (false use-after-poison).
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:allow_user_poisoning=0}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
  # Debian's libgomp is not built with TSan, which then cannot see an OpenMP
  # region's closing barrier and reports the host kernels' writes as races
  # with the reads after it. TSan checks the runtime's own threads (the C
  # API, the concurrency tests); the kernels run on one OpenMP thread.
  [ "$sanitize" = thread ] && export OMP_NUM_THREADS=1
  if [ "$sanitize" = address,undefined ]; then
    # clang, so that the fuzz targets link libFuzzer (MPC_FUZZ)
    export CC=clang-19 CXX=clang++-19
    cmake_args="$cmake_args -DMPC_FUZZ=ON"
  fi
  BUILD_DIR=$build MPC_CMAKE_ARGS="$cmake_args" "$root/tools/setup/build.sh"
  (cd "$build" && ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)")
  exit 0
fi
[ "$runtime_only" = 1 ] && { echo "run-tests.sh: --runtime-only goes with --sanitize" >&2; exit 2; }

build=${BUILD_DIR:-$root/build}
BUILD_DIR=$build "$root/tools/setup/build.sh"
(cd "$build" && ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)")

runtime_build=${RUNTIME_BUILD_DIR:-$root/build-runtime}
BUILD_DIR=$runtime_build MPC_PYTHON=/usr/bin/python3 MPC_RUNTIME_CMAKE_ARGS=-DMPC_USE_ONEDNN=OFF \
  "$root/bench/gpu/run.sh" "$runtime_build/gpu-out"
