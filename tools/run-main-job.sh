#!/usr/bin/env bash
# The README's first command: installs what is missing, builds mpc, and runs
# its main job. Today that is the forward path on real data: the MLP example
# is compiled into a bundle and run on the first 64 images of the digits set
# (scikit-learn's copy of the UCI data), the kernels of the step are listed,
# and a graph with a shape error is refused with its location.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}

"$root/tools/setup/install-deps.sh"
BUILD_DIR=$build "$root/tools/setup/build.sh" >/dev/null
mpc=$build/bin/mpc
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

digits=/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz
if [ ! -f "$digits" ]; then
  echo "error: the digits data is missing ($digits); run tools/setup/install-deps.sh" >&2
  exit 1
fi
# Pixels 0..16 scaled to [0, 1]; labels as i32.
/usr/bin/python3 - "$digits" "$out" <<'PY'
import gzip, sys
import numpy as np
rows = np.loadtxt(gzip.open(sys.argv[1], "rt"), delimiter=",")[:64]
np.save(sys.argv[2] + "/pixels.npy", (rows[:, :64] / 16.0).astype(np.float32))
np.save(sys.argv[2] + "/labels.npy", rows[:, 64].astype(np.int32))
PY

echo "== compile examples/mlp.mlir into a bundle (fused kernels, memory plan, host object)"
"$mpc" compile "$root/examples/mlp.mlir" --target cpu -o "$out/mlp.mpcb"
echo "   $(stat -c %s "$out/mlp.mpcb") bytes"
echo
echo "== one forward step on 64 digit images (parameters from their initializers, seed 1)"
"$mpc" run "$out/mlp.mpcb" --seed 1 --input pixels="$out/pixels.npy" \
  --input labels="$out/labels.npy" --output logits="$out/logits.npy" --output loss="$out/loss.npy"
/usr/bin/python3 - "$out" <<'PY'
import sys
import numpy as np
logits = np.load(sys.argv[1] + "/logits.npy")
labels = np.load(sys.argv[1] + "/labels.npy")
loss = float(np.load(sys.argv[1] + "/loss.npy"))
print("   logits %s, cross-entropy %.4f (ln 10 = 2.3026 for an untrained model), accuracy %.1f%%"
      % (logits.shape, loss, 100.0 * (logits.argmax(1) == labels).mean()))
PY
echo
echo "== the kernels of the step"
"$mpc" report "$root/examples/mlp.mlir"
echo
echo "== a graph with a shape error (fc2.weight resized to 100x10) is refused with its location:"
sed 's/tensor<128x10xf32>/tensor<100x10xf32>/g' \
  "$root/examples/mlp.mlir" > "$out/broken-mlp.mlir"
if "$mpc" compile "$out/broken-mlp.mlir" -o "$out/never-written.mpcb"; then
  echo "error: the broken graph was accepted" >&2
  exit 1
fi
