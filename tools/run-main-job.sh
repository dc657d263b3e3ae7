#!/usr/bin/env bash
# The README's first command: installs what is missing, builds mpc, and runs
# its main job on the example models. Today that job is the front end: each
# example graph is parsed, verified and written back in canonical form, and
# a deliberately broken graph shows the located error a user gets.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}

"$root/tools/setup/install-deps.sh"
BUILD_DIR=$build "$root/tools/setup/build.sh" >/dev/null
mpc=$build/bin/mpc
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for example in mlp cnn transformer_block char_lstm; do
  "$mpc" compile "$root/examples/$example.mlir" --emit graph -o "$out/$example.mlir"
  ops=$(grep -c ' = mpg\.\| mpg\.output\| mpg\.minimize\| mpg\.state_write' "$out/$example.mlir")
  params=$(grep -c 'mpg\.param' "$out/$example.mlir")
  printf '%-18s verified: %3d ops, %2d parameters\n' "$example" "$ops" "$params"
done

echo
echo "A graph with a shape error (fc2.weight resized to 100x10) is refused with its location:"
sed 's/tensor<128x10xf32>/tensor<100x10xf32>/g' \
  "$root/examples/mlp.mlir" > "$out/broken-mlp.mlir"
if "$mpc" compile "$out/broken-mlp.mlir" --emit graph -o "$out/never-written.mlir"; then
  echo "error: the broken graph was accepted" >&2
  exit 1
fi
