#!/usr/bin/env bash
# Everything bench/gpu has for a lent GPU machine, in one call that ends
# inside the device tool's 10 minutes: run.sh (the GPU tests and the example
# models' benchmarks) and gpt2.sh (GPT-2 small against PyTorch), each under
# its own deadline, with what comes back packed into 8 files under OUT (the
# tool returns no more): run-summary.md/.json and run-raw.tgz (run.sh's
# files), machine.txt, and gpt2.sh's gpt2-summary.md/.json, gpt2.log and
# gpt2-raw.tgz.
#   bench/gpu/device.sh "$OUT"
#   MPC_GPU_DEADLINE_S=220 MPC_GPT2_DEADLINE_S=340  (the two budgets; run.sh
#   gets one round of benchmarks, too little time for its torch.compile runs,
#   which were recorded before: GPT-2 comes first)
# Needs the bundles of `bench/gpu/prepare.sh --gpt2-bench small:8`.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-${OUT:?device.sh: give the results folder}}
work=$(mktemp -d "${TMPDIR:-/tmp}/mpc-device.XXXXXX")
mkdir -p "$out"
status=0
MPC_GPU_DEADLINE_S=${MPC_GPU_DEADLINE_S:-220} MPC_BENCH_ROUNDS=${MPC_BENCH_ROUNDS:-1} \
  "$root/bench/gpu/run.sh" "$work/run" || status=1
for name in summary.md summary.json; do
  [ -f "$work/run/$name" ] && cp "$work/run/$name" "$out/run-$name"
done
tar czf "$out/run-raw.tgz" -C "$work/run" . 2>/dev/null
MPC_GPT2_DEADLINE_S=${MPC_GPT2_DEADLINE_S:-340} "$root/bench/gpu/gpt2.sh" "$out" || status=1
rm -rf "$work"
echo "device.sh: done (status $status); $(ls "$out" | wc -l) files in $out"
exit $status
