# What bench/gpu/run.sh and bench/gpu/gpt2.sh share; sourced, not run.
# The caller sets: root (the source tree), out (the results' folder), build
# (the runtime's build folder), bundles, python, log_file (under out), and
# deadline (seconds) and started (date +%s) for the time budget; build_log
# (default out/build.log) where the build's output goes.

# NVRTC loads its builtins library by name: the toolkit's libraries on the
# loader's path (CUDA_HOME, else /usr/local/cuda).
cuda_lib=${CUDA_HOME:-/usr/local/cuda}/lib64
[ -d "$cuda_lib" ] && export LD_LIBRARY_PATH=$cuda_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

log() { echo "$(basename "$0"): $*" | tee -a "$log_file"; }
# Seconds left before the deadline (at least 1).
left() { local l=$((deadline - ($(date +%s) - started))); echo $((l > 1 ? l : 1)); }
# Runs "$@" for at most $1 seconds (capped by what is left); 124 when cut.
limited() {
  local limit=$1
  shift
  [ "$limit" -gt "$(left)" ] && limit=$(left)
  timeout --kill-after=5 "$limit" "$@"
}

# The machine: GPU, driver, toolkit, PyTorch.
machine_info() {
  echo "date: $(date -u '+%F %T UTC')"
  echo "host: $(uname -srm), $(nproc) CPUs"
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
      --format=csv,noheader 2>&1
  else
    echo "nvidia-smi: not found"
  fi
  command -v nvcc >/dev/null && nvcc --version | tail -2 || echo "nvcc: not found"
  "$python" -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, \
'available', torch.cuda.is_available())" 2>&1 | tail -1
}

# The runtime alone (no compiler) in $build, with its tests where GoogleTest
# exists; configured once (again when MPC_RUNTIME_CMAKE_ARGS is set).
build_runtime() {
  local generator=() extra=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  if [ ! -f "$build/CMakeCache.txt" ] || [ -n "${MPC_RUNTIME_CMAKE_ARGS:-}" ]; then
    log "configuring the runtime in $build"
    [ -f "$bundles/googletest/CMakeLists.txt" ] \
      && extra=(-DMPC_GOOGLETEST_SOURCE_DIR="$bundles/googletest")
    [ -d "$bundles/include" ] && extra+=(-DMPC_HEADER_LIBRARIES_DIR="$bundles/include")
    cmake "${generator[@]}" -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
      -DMPC_BUILD_COMPILER=OFF -DMPC_GPU_BUNDLES="$bundles" "${extra[@]}" \
      ${MPC_RUNTIME_CMAKE_ARGS:-} \
      > "${build_log:-$out/build.log}" 2>&1 \
      || { log "configure failed (see build.log)"; tail -20 "${build_log:-$out/build.log}"; return 1; }
  fi
  log "building"
  limited 300 cmake --build "$build" -j "$(nproc)" >> "${build_log:-$out/build.log}" 2>&1 \
    || { log "build failed or timed out (see build.log)"; tail -30 "${build_log:-$out/build.log}"
         return 1; }
}
