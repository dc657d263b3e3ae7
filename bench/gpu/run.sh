#!/usr/bin/env bash
# The one prepared command for a GPU machine (CMake, a C++ compiler, the CUDA
# toolkit, PyTorch; no MLIR, no network). Builds the runtime alone, runs the
# GPU tests and the GPU benchmarks, and writes the results under OUT:
#   machine.txt        GPU, driver, toolkit, PyTorch
#   gpu-check.json     the GPU tests: each model on the GPU against the CPU
#   mpc-*.json         mpc's step times, host syncs, launches, memory, GEMMs
#                      (mpc-MODEL-untuned.json: round 1 again with
#                      MPC_GEMM_AUTOTUNE=0, the heuristic's GEMM algorithms)
#   torch-round*.json  PyTorch eager AMP, torch.compile and its CUDA graphs
#                      (reduce-overhead) on the same models
#   summary.md/.json   ratios mpc / PyTorch and the targets, met or not
# Usage, with bench/gpu/bundles compiled by bench/gpu/prepare.sh beforehand:
#   bench/gpu/run.sh OUT            (OUT defaults to $OUT, else bench/gpu/out)
#   BUILD_DIR=...  MPC_GPU_BUNDLES=...  MPC_BENCH_ROUNDS=2  MPC_PYTHON=python3
#   MPC_RUNTIME_CMAKE_ARGS="-DMPC_USE_ONEDNN=OFF ..."  (more options for CMake)
#   MPC_GPU_DEADLINE_S=450  (the whole run's budget in seconds)
# On a machine without a GPU it still builds and runs the CPU-side tests, and
# reports every GPU part as skipped, with the reason. Every stage runs under
# what is left of the deadline (a stage cut short is logged as timed out, and
# torch.compile is left out when too little time is left), and the summary
# is written however the run ends.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-${OUT:-$root/bench/gpu/out}}
build=${BUILD_DIR:-$root/build-gpu}
bundles=${MPC_GPU_BUNDLES:-$root/bench/gpu/bundles}
rounds=${MPC_BENCH_ROUNDS:-2}
python=${MPC_PYTHON:-python3}
mkdir -p "$out"
log_file=$out/run.log
started=$(date +%s)
deadline=${MPC_GPU_DEADLINE_S:-450}
: > "$log_file"
source "$root/bench/gpu/common.sh"
# The summary, however the run ends (a failed build, a timeout, a signal).
summarized=0
summarize() {
  [ "$summarized" = 1 ] && return 0
  summarized=1
  "$python" "$root/bench/gpu/summarize.py" "$out"
}
trap 'summarize > /dev/null 2>&1 || true' EXIT

# 1. The machine.
machine_info > "$out/machine.txt"
cat "$out/machine.txt"

# 2. The runtime alone (no compiler), with its tests where GoogleTest exists.
build_runtime || exit 1
bin=$build/bin

status=0
# Where nvidia-smi lists a GPU, a test that needs one fails rather than
# skips when the GPU cannot run (MPC_REQUIRE_GPU, tests/unit/runtime).
gpu_listed=0
command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU' && gpu_listed=1
[ "$gpu_listed" = 1 ] && export MPC_REQUIRE_GPU=1
# 3. Tests: the GPU tests proper first (the GPU against the CPU and against
#    float64: what a short deadline must not squeeze out), then the
#    runtime's own.
log "GPU tests (bundles: $bundles)"
limited 180 "$bin/mpc-gpu-check" "$bundles/models.tsv" --device cuda --json "$out/gpu-check.json" \
  | tee "$out/gpu-check.log"
check=${PIPESTATUS[0]}
# Exit code 77 is "no usable GPU": a failure where nvidia-smi lists one.
case $check in
  0) log "GPU tests passed" ;;
  77) if [ "$gpu_listed" = 1 ]; then
        log "GPU tests FAILED: nvidia-smi lists a GPU but CUDA is not usable (see gpu-check.log)"
        status=1
      else
        log "GPU tests skipped: no GPU here"
      fi ;;
  124|137) log "GPU tests timed out"; status=1 ;;
  *) log "GPU tests FAILED"; status=1 ;;
esac

# 3b. The runtime's own tests (CPU, the emulated GPU, and on a GPU the GPU
#     itself through the C API).
if [ -x "$bin/mpc-runtime-tests" ]; then
  log "runtime tests"
  (cd "$build" && limited 150 ctest --output-on-failure -j "$(nproc)" -E '^gpu-check$') \
    > "$out/runtime-tests.log" 2>&1 && log "runtime tests passed" \
    || { log "runtime tests FAILED or timed out (see runtime-tests.log)"; status=1; }
else
  log "runtime tests FAILED: not built (no GoogleTest? see build.log)"; status=1
fi

# 4. Benchmarks: mpc and PyTorch on the same models, alternating rounds.
if [ "$check" = 77 ]; then
  log "benchmarks skipped: no GPU here"
else
  bench_models="mlp fashion_mlp wide_mlp transformer_block"
  for round in $(seq 1 "$rounds"); do
    if [ "$(left)" -lt 30 ]; then
      log "benchmark round $round skipped: $(left) s left of the deadline"
      break
    fi
    for model in $bench_models; do
      bundle=$bundles/$model-fp16.train.mpcb
      [ -f "$bundle" ] || { log "no $bundle: skipped"; continue; }
      gemms=()
      [ "$round" = 1 ] && gemms=(--gemms)
      limited 60 "$bin/mpc-bench" "$bundle" --device cuda --steps 200 --repeats 5 "${gemms[@]}" \
        --label "$model" --json "$out/mpc-$model-round$round.json" > /dev/null \
        || { log "mpc-bench $model failed or timed out"; status=1; }
      # Once, right after: the same without timing GEMM algorithms at load.
      [ "$round" = 1 ] && { MPC_GEMM_AUTOTUNE=0 limited 60 "$bin/mpc-bench" "$bundle" \
        --device cuda --steps 200 --repeats 5 --gemms --label "$model" \
        --json "$out/mpc-$model-untuned.json" > /dev/null \
        || { log "mpc-bench $model (MPC_GEMM_AUTOTUNE=0) failed or timed out"; status=1; }; }
    done
    modes=eager
    # Compiling is most of the run: once, and only with time for it (its
    # default mode, then with CUDA graphs: "reduce-overhead").
    if [ "$round" = 1 ] && [ "$(left)" -ge 240 ]; then
      modes=eager,compile,graphs
    elif [ "$round" = 1 ]; then
      log "torch.compile skipped: $(left) s left of the deadline"
    fi
    limited 300 "$python" "$root/bench/gpu/torch_peer.py" --models "$bench_models" --modes "$modes" \
      --steps 200 --repeats 5 --json "$out/torch-round$round.json" 2>> "$out/torch.log" \
      || { log "torch_peer.py failed or timed out (see torch.log)"; status=1; }
    log "benchmark round $round done ($(( $(date +%s) - started )) s)"
  done
fi

# 5. The summary.
summarize || status=1
log "done in $(( $(date +%s) - started )) s; results in $out"
exit $status
