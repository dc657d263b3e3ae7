#!/usr/bin/env bash
# The README's first command: installs what is missing, builds mpc, and runs
# its main job: the MLP example is compiled into a training step and trained
# on the CPU on the digits set (scikit-learn's copy of the UCI data) in fp32,
# fp16 and bf16, each evaluated on held-out digits; the precision decisions
# and the kernels of the step are listed, the loss curves plotted and the
# whole report written as one HTML page; and a graph with a shape error is
# refused with its location. What it writes stays in build/main-job/.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}

"$root/tools/setup/install-deps.sh"
BUILD_DIR=$build "$root/tools/setup/build.sh" >/dev/null
mpc=$build/bin/mpc
out=$build/main-job
rm -rf "$out"
mkdir -p "$out"

digits=/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz
if [ ! -f "$digits" ]; then
  echo "error: the digits data is missing ($digits); run tools/setup/install-deps.sh" >&2
  exit 1
fi
echo "== train examples/mlp.mlir on the digits data, evaluate on 297 examples held out at random"
for precision in fp32 fp16 bf16; do
  printf '%-5s ' "$precision"
  "$mpc" train "$root/examples/mlp.mlir" --data "$digits" --holdout 297 --precision "$precision" \
    --steps 300 --seed 1 --log "$out/$precision.jsonl" --save "$out/mlp-$precision.safetensors" \
    --grad-stats --quiet
done
echo "   (fp16 with dynamic loss scaling; bf16 needs none)"
echo
echo "== the precision decisions of the fp16 training step (first lines)"
"$mpc" report "$root/examples/mlp.mlir" precision --step train --precision fp16 > "$out/precision.txt"
head -8 "$out/precision.txt"   # (not a pipe into head: pipefail would stop the job)
echo
echo "== the kernels of one fp16 training step (forward, backward and the SGD update)"
"$mpc" report "$root/examples/mlp.mlir" kernels --step train --precision fp16
echo
echo "== pictures: the loss curves, fp16 against fp32 and bf16; the gradients of step 1 against"
echo "   fp16's range (the paper's Figure 3); the whole report as one page"
"$mpc" plot "$out/fp32.jsonl" "$out/fp16.jsonl" "$out/bf16.jsonl" -o "$out/loss.svg"
"$mpc" plot "$out/fp16.jsonl" --kind gradients --step 1 -o "$out/gradients.svg"
"$mpc" report "$root/examples/mlp.mlir" --step train --precision fp16 --html "$out/report.html" \
  --log "$out/fp32.jsonl" --log "$out/fp16.jsonl" --log "$out/bf16.jsonl" > /dev/null
echo "   $out/loss.svg"
echo "   $out/gradients.svg"
echo "   $out/report.html"
echo
echo "== a graph with a shape error (fc2.weight resized to 100x10) is refused with its location:"
sed 's/tensor<128x10xf32>/tensor<100x10xf32>/g' \
  "$root/examples/mlp.mlir" > "$out/broken-mlp.mlir"
if "$mpc" compile "$out/broken-mlp.mlir" -o "$out/never-written.mpcb"; then
  echo "error: the broken graph was accepted" >&2
  exit 1
fi
