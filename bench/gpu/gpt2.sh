#!/usr/bin/env bash
# The GPT-2 GPU benchmark (bench/gpu/README.md): GPT-2 small's training step
# in mpc (fp16, bf16, fp32) against PyTorch on the same GPU, from the same
# weights and batch. Needs the bundles of `bench/gpu/prepare.sh --gpt2-bench
# small:8` (gpt2-bench.tsv), the CUDA toolkit and PyTorch 2 with CUDA; no
# MLIR, no network. Writes under OUT:
#   gpt2-summary.md/.json  tokens/s, ms per step, MFU, peak memory, the
#                          targets met or missed, GEMMs against the GPU's
#                          peak, the attention against SDPA, mpc's step by
#                          kind of kernel; every raw result inside the JSON
#   gpt2.log               what happened;  machine.txt  the machine
#   gpt2-raw.tgz           the raw results (mpc-bench's and PyTorch's JSON)
# Usage:
#   bench/gpu/gpt2.sh OUT          (OUT defaults to $OUT, else bench/gpu/out)
#   BUILD_DIR=... MPC_GPU_BUNDLES=... MPC_PYTHON=python3
#   MPC_GPT2_DEADLINE_S=480   the whole run's budget in seconds
#   MPC_GPT2_ROUNDS=2         rounds of mpc and PyTorch eager, alternating
#   MPC_GPT2_MAX_AUTOTUNE=1   also torch.compile(mode="max-autotune") if time allows
#   MPC_GPT2_DEVICE=cpu       a dry run on the CPU (mpc-bench --device cpu,
#                             PyTorch fp32 eager), e.g. of a tiny configuration
#   MPC_BENCH_BIN=DIR         use mpc-bench from DIR instead of building it
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-${OUT:-$root/bench/gpu/out}}
build=${BUILD_DIR:-$root/build-gpu}
bundles=${MPC_GPU_BUNDLES:-$root/bench/gpu/bundles}
python=${MPC_PYTHON:-python3}
device=${MPC_GPT2_DEVICE:-cuda}
rounds=${MPC_GPT2_ROUNDS:-2}
mkdir -p "$out"
log_file=$out/gpt2.log
started=$(date +%s)
deadline=${MPC_GPT2_DEADLINE_S:-480}
: > "$log_file"
source "$root/bench/gpu/common.sh"
raw=$(mktemp -d "${TMPDIR:-/tmp}/mpc-gpt2.XXXXXX")
build_log=$raw/build.log
summarized=0
finish() {
  [ "$summarized" = 1 ] && return 0
  summarized=1
  "$python" "$root/bench/gpu/gpt2_summary.py" "$raw" --out "$out" --log "$log_file" \
    --config "${config:-small}" --batch "${batch:-8}"
  local status=$?
  tar czf "$out/gpt2-raw.tgz" -C "$raw" --exclude=inputs . 2>/dev/null
  rm -rf "$raw"
  return $status
}
trap 'finish > /dev/null 2>&1 || true' EXIT

machine_info > "$out/machine.txt"
cat "$out/machine.txt"
list=$bundles/gpt2-bench.tsv
[ -f "$list" ] || { log "no $list: run bench/gpu/prepare.sh --gpt2-bench small:8 first"; exit 1; }
read -r config batch < <(grep -v '^#' "$list" | head -1 | cut -f1,2)
log "GPT-2 $config, batch $batch, on $device"
if [ -n "${MPC_BENCH_BIN:-}" ]; then
  bin=$MPC_BENCH_BIN
else
  build_runtime || exit 1
  bin=$build/bin
fi

status=0
peer() { limited "$1" "$python" "$root/bench/gpu/gpt2_peer.py" "${@:2}" --config "$config" \
  --batch "$batch" --device "$device" 2>> "$raw/torch.log"; }
inputs=$raw/inputs
limited 120 "$python" "$root/bench/gpu/gpt2_peer.py" inputs --config "$config" --batch "$batch" \
  --out "$inputs" >> "$log_file" 2>&1 || { log "writing the weights and batch failed"; exit 1; }

# mpc's step in each precision; round 1 also times every GEMM alone (fp16,
# bf16, on a GPU) and every step (the breakdown).
mpc_round() {
  local round=$1 precision bundle extra
  while IFS=$'\t' read -r _ _ precision bundle; do
    extra=()
    if [ "$round" = 1 ]; then
      extra=(--profile)
      [ "$device" != cpu ] && [ "$precision" != fp32 ] && extra+=(--gemms)
    fi
    limited 120 "$bin/mpc-bench" "$bundles/$bundle" --device "$device" --steps 20 --warmup 5 \
      --repeats 3 --params "$inputs/weights.safetensors" --input tokens="$inputs/tokens.npy" \
      --input targets="$inputs/targets.npy" "${extra[@]}" --label "gpt2_$config-$precision" \
      --json "$raw/mpc-$precision-round$round.json" > /dev/null 2>> "$raw/mpc.log"
    case $? in
      0) ;;
      77) log "mpc-bench: no usable $device here (see mpc.log)"; return 77 ;;
      *) log "mpc-bench $precision failed or timed out (see mpc.log)"; status=1 ;;
    esac
  done < <(grep -v '^#' "$list")
}
eager_runs=fp16:eager,bf16:eager,fp32:eager
[ "$device" = cpu ] && eager_runs=fp32:eager
gpu_listed=0
command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU' && gpu_listed=1
round_of() {
  local round=$1
  mpc_round "$round"
  if [ $? = 77 ]; then
    # (a GPU that nvidia-smi lists but CUDA cannot use is a failure)
    [ "$gpu_listed" = 1 ] && { log "FAILED: nvidia-smi lists a GPU but CUDA is not usable"; exit 1; }
    log "benchmark skipped: no GPU"
    exit 0
  fi
  peer 200 train --inputs "$inputs" --runs "$eager_runs" --json "$raw/torch-eager-round$round.json" \
    || { log "PyTorch eager failed or timed out (see torch.log)"; status=1; }
  if [ "$round" = 1 ]; then
    peer 60 attention --json "$raw/torch-attention.json" \
      || { log "SDPA alone failed or timed out (see torch.log)"; status=1; }
  fi
  log "round $round done ($(( $(date +%s) - started )) s)"
}
# Round 1, then torch.compile once (most of it compiling) while time is
# left, then the other rounds.
round_of 1
if [ "$device" = cpu ]; then
  log "torch.compile skipped on the CPU (a dry run)"
elif [ "$(left)" -ge 200 ]; then
  peer $(( $(left) - 20 )) train --inputs "$inputs" --runs fp16:compile,bf16:compile \
    --json "$raw/torch-compile.json" \
    || { log "torch.compile failed or timed out (see torch.log)"; status=1; }
  if [ "${MPC_GPT2_MAX_AUTOTUNE:-0}" = 1 ] && [ "$(left)" -ge 300 ]; then
    peer $(( $(left) - 20 )) train --inputs "$inputs" --runs fp16:max-autotune \
      --json "$raw/torch-max-autotune.json" \
      || { log "max-autotune failed or timed out (see torch.log)"; status=1; }
  fi
else
  log "torch.compile skipped: $(left) s left of the deadline"
fi
for round in $(seq 2 "$rounds"); do
  if [ "$(left)" -lt 60 ]; then
    log "round $round skipped: $(left) s left of the deadline"
    break
  fi
  round_of "$round"
done
finish || status=1
log "done in $(( $(date +%s) - started )) s; results in $out"
exit $status
