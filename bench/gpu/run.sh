#!/usr/bin/env bash
# The one prepared command for a GPU machine (CMake, a C++ compiler, the CUDA
# toolkit, PyTorch; no MLIR, no network). Builds the runtime alone, runs the
# GPU tests and the GPU benchmarks, and writes the results under OUT:
#   machine.txt        GPU, driver, toolkit, PyTorch
#   gpu-check.json     the GPU tests: each model on the GPU against the CPU
#   mpc-*.json         mpc's step times, host syncs, launches, memory, GEMMs
#   torch.json         PyTorch eager AMP and torch.compile on the same models
#   summary.md/.json   ratios mpc / PyTorch and the targets, met or not
# Usage, with bench/gpu/bundles compiled by bench/gpu/prepare.sh beforehand:
#   bench/gpu/run.sh OUT            (OUT defaults to $OUT, else bench/gpu/out)
#   BUILD_DIR=...  MPC_GPU_BUNDLES=...  MPC_BENCH_ROUNDS=2  MPC_PYTHON=python3
#   MPC_RUNTIME_CMAKE_ARGS="-DMPC_USE_ONEDNN=OFF ..."  (more options for CMake)
# On a machine without a GPU it still builds and runs the CPU-side tests, and
# reports every GPU part as skipped, with the reason. Finishes in about 8
# minutes on a GPU machine (most of it torch.compile).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-${OUT:-$root/bench/gpu/out}}
build=${BUILD_DIR:-$root/build-gpu}
bundles=${MPC_GPU_BUNDLES:-$root/bench/gpu/bundles}
rounds=${MPC_BENCH_ROUNDS:-2}
python=${MPC_PYTHON:-python3}
mkdir -p "$out"
log() { echo "run.sh: $*" | tee -a "$out/run.log"; }
started=$(date +%s)

# 1. The machine.
{
  echo "date: $(date -u '+%F %T UTC')"
  echo "host: $(uname -srm), $(nproc) CPUs"
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
  else
    echo "nvidia-smi: not found"
  fi
  command -v nvcc >/dev/null && nvcc --version | tail -2 || echo "nvcc: not found"
  "$python" -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, \
'available', torch.cuda.is_available())" 2>&1 | tail -1
} > "$out/machine.txt"
cat "$out/machine.txt"

# 2. The runtime alone (no compiler), with its tests where GoogleTest exists.
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [ ! -f "$build/CMakeCache.txt" ] || [ -n "${MPC_RUNTIME_CMAKE_ARGS:-}" ]; then
  log "configuring the runtime in $build"
  cmake "${generator[@]}" -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DMPC_BUILD_COMPILER=OFF -DMPC_GPU_BUNDLES="$bundles" ${MPC_RUNTIME_CMAKE_ARGS:-} \
    > "$out/build.log" 2>&1 \
    || { log "configure failed (see build.log)"; tail -20 "$out/build.log"; exit 1; }
fi
log "building"
cmake --build "$build" -j "$(nproc)" >> "$out/build.log" 2>&1 \
  || { log "build failed (see build.log)"; tail -30 "$out/build.log"; exit 1; }
bin=$build/bin

status=0
# 3. Tests: the runtime's own (CPU, the emulated GPU, and on a GPU the GPU
#    itself through the C API), then the GPU tests proper.
if [ -x "$bin/mpc-runtime-tests" ]; then
  log "runtime tests"
  (cd "$build" && ctest --output-on-failure -j "$(nproc)" -E '^gpu-check$') \
    > "$out/runtime-tests.log" 2>&1 && log "runtime tests passed" \
    || { log "runtime tests FAILED (see runtime-tests.log)"; status=1; }
fi
log "GPU tests (bundles: $bundles)"
"$bin/mpc-gpu-check" "$bundles/models.tsv" --device cuda --json "$out/gpu-check.json" \
  | tee "$out/gpu-check.log"
check=${PIPESTATUS[0]}
case $check in
  0) log "GPU tests passed" ;;
  77) log "GPU tests skipped: no GPU here" ;;
  *) log "GPU tests FAILED"; status=1 ;;
esac

# 4. Benchmarks: mpc and PyTorch on the same models, alternating rounds.
if [ "$check" = 77 ]; then
  log "benchmarks skipped: no GPU here"
else
  bench_models="mlp fashion_mlp wide_mlp transformer_block"
  for round in $(seq 1 "$rounds"); do
    for model in $bench_models; do
      bundle=$bundles/$model-fp16.train.mpcb
      [ -f "$bundle" ] || { log "no $bundle: skipped"; continue; }
      gemms=()
      [ "$round" = 1 ] && gemms=(--gemms)
      "$bin/mpc-bench" "$bundle" --device cuda --steps 200 --repeats 5 "${gemms[@]}" \
        --label "$model" --json "$out/mpc-$model-round$round.json" > /dev/null \
        || { log "mpc-bench $model failed"; status=1; }
    done
    modes=eager
    [ "$round" = 1 ] && modes=eager,compile # compiling is most of the run: once
    "$python" "$root/bench/gpu/torch_peer.py" --models "$bench_models" --modes "$modes" \
      --steps 200 --repeats 5 --json "$out/torch-round$round.json" 2>> "$out/torch.log" \
      || { log "torch_peer.py failed (see torch.log)"; status=1; }
    log "benchmark round $round done ($(( $(date +%s) - started )) s)"
  done
fi

# 5. The summary.
"$python" "$root/bench/gpu/summarize.py" "$out" || status=1
log "done in $(( $(date +%s) - started )) s; results in $out"
exit $status
