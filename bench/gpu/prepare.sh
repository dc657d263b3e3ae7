#!/usr/bin/env bash
# Compiles the bundles that bench/gpu/run.sh needs, on a machine with the
# compiler (MLIR): every model's training and forward steps, with kernels for
# the CPU and for sm_80 and sm_90 (cubin and PTX; other GPUs compile the
# source at load), and the list run.sh reads (models.tsv). Carry the folder
# to the GPU machine with the source tree (it holds GoogleTest's sources too).
#   bench/gpu/prepare.sh [--out DIR] [--models "mlp wide_mlp ..."] [--no-gpt2]
#                        [--gpt2-bench CONFIG[:BATCH]]
# Unless --no-gpt2, GPT-2 tiny (bench/gpt2/gpt2.py, exported here with
# PyTorch; SGD, whose loss curve is not chaotic as Adam's is) joins them in
# fp16 and bf16, with its weights and a float64 reference of one batch
# (bench/gpu/float64_reference.py): the GPU check then runs the fused
# attention's GPU kernels against the CPU's and against float64.
# --gpt2-bench small:8 adds the GPT-2 benchmark's training steps (bench/gpu/
# gpt2.sh): GPT-2 small at batch 8 in fp16, bf16 and fp32 with AdamW, and
# gpt2-bench.tsv; the weights are not carried (500 MB): gpt2_peer.py writes
# them on the GPU machine. Another configuration (tiny, mini) makes a dry run.
#   MPC   the mpc driver (default build/bin/mpc)
#   PYTHON  a Python with PyTorch and onnx (default /usr/bin/python3)
#   GOOGLETEST_SOURCE_DIR  GoogleTest's sources to carry (default /usr/src/googletest)
#   MPC_HOST_ARCH  the CPU kernels' x86-64 level (default x86-64-v3: the GPU
#                  machine's CPU is unknown here, and a bundle of a level it
#                  does not run would be refused there)
set -euo pipefail
export MPC_HOST_ARCH=${MPC_HOST_ARCH:-x86-64-v3}

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$root/bench/gpu/bundles
gpt2=1
gpt2_bench=
# name:precision pairs; the GPU tests run all, the benchmarks the fp16 ones
# of the MLPs and the transformer block (bench/gpu/run.sh).
models="mlp:fp16 mlp:fp32 fashion_mlp:fp16 wide_mlp:fp16 wide_mlp:fp32 transformer_block:fp16 \
transformer_block:bf16 transformer_block:fp32 cnn:fp16 char_lstm:fp16"
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --no-gpt2) gpt2=0; shift ;;
    --gpt2-bench) gpt2_bench=$2; shift 2 ;;
    -h|--help) sed -n '2,23p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "prepare.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
mpc=${MPC:-$root/build/bin/mpc}
[ -x "$mpc" ] || { echo "prepare.sh: no mpc at $mpc; build it first (tools/setup/build.sh) or set MPC" >&2; exit 1; }

mkdir -p "$out"
list=$out/models.tsv.tmp
printf '# name\tprecision\ttrain\tforward (bench/gpu/prepare.sh, %s)\n' "$(date -u +%F)" > "$list"
for entry in $models; do
  name=${entry%%:*}
  precision=${entry##*:}
  [ "$name" != "$entry" ] || precision=fp16
  echo "prepare.sh: $name ($precision)"
  for step in train forward; do
    "$mpc" compile "$root/examples/$name.mlir" --step $step --precision "$precision" \
      --target cpu,sm_80,sm_90 -o "$out/$name-$precision.$step.mpcb"
  done
  printf '%s\t%s\t%s\t%s\n' "$name" "$precision" "$name-$precision.train.mpcb" \
    "$name-$precision.forward.mpcb" >> "$list"
done
if [ "$gpt2" = 1 ]; then
  echo "prepare.sh: gpt2_tiny (fp16, bf16)"
  "${PYTHON:-/usr/bin/python3}" "$root/bench/gpt2/gpt2.py" export --config tiny --batch 8 \
    -o "$out/gpt2_tiny.onnx" > /dev/null 2>&1 \
    || { echo "prepare.sh: exporting GPT-2 tiny failed (PyTorch and onnx needed; or --no-gpt2)" >&2; exit 1; }
  for precision in fp16 bf16; do
    for step in train forward; do
      "$mpc" compile "$out/gpt2_tiny.onnx" --batch 8 --constant '*mask' \
        --loss softmax_cross_entropy --optimizer sgd --lr 0.01 --step $step \
        --precision "$precision" --target cpu,sm_80,sm_90 \
        -o "$out/gpt2_tiny-$precision.$step.mpcb" > /dev/null
      # (the same weights beside every bundle: one copy is kept)
      mv "$out/gpt2_tiny-$precision.$step.safetensors" "$out/gpt2_tiny.weights.safetensors"
    done
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' gpt2_tiny "$precision" "gpt2_tiny-$precision.train.mpcb" \
      "gpt2_tiny-$precision.forward.mpcb" gpt2_tiny.weights.safetensors \
      gpt2_tiny.reference.safetensors >> "$list"
  done
  # The independent check: the same weights and a batch in float64.
  "${PYTHON:-/usr/bin/python3}" "$root/bench/gpu/float64_reference.py" --config tiny --batch 8 \
    --lr 0.01 --weights "$out/gpt2_tiny.weights.safetensors" \
    -o "$out/gpt2_tiny.reference.safetensors" > /dev/null
fi
mv "$list" "$out/models.tsv"
if [ -n "$gpt2_bench" ]; then
  config=${gpt2_bench%%:*}
  batch=8
  [ "$config" != "$gpt2_bench" ] && batch=${gpt2_bench##*:}
  echo "prepare.sh: GPT-2 $config at batch $batch for the benchmark (fp16, bf16, fp32)"
  "${PYTHON:-/usr/bin/python3}" "$root/bench/gpt2/gpt2.py" export --config "$config" \
    --batch "$batch" -o "$out/gpt2_bench.onnx" > /dev/null 2>&1 \
    || { echo "prepare.sh: exporting GPT-2 $config failed (PyTorch and onnx needed)" >&2; exit 1; }
  bench_list=$out/gpt2-bench.tsv.tmp
  printf '# config\tbatch\tprecision\ttrain (bench/gpu/prepare.sh, %s)\n' "$(date -u +%F)" \
    > "$bench_list"
  for precision in fp16 bf16 fp32; do
    # The optimizer of bench/gpu/gpt2_peer.py's PyTorch side.
    "$mpc" compile "$out/gpt2_bench.onnx" --batch "$batch" --constant '*mask' \
      --loss softmax_cross_entropy --optimizer adamw --lr 6e-4 \
      --optimizer-arg weight_decay=0.1 --step train --precision "$precision" \
      --target cpu,sm_80,sm_90 -o "$out/gpt2_bench-$precision.train.mpcb" > /dev/null
    rm -f "$out/gpt2_bench-$precision.train.safetensors"
    printf '%s\t%s\t%s\t%s\n' "$config" "$batch" "$precision" \
      "gpt2_bench-$precision.train.mpcb" >> "$bench_list"
  done
  rm -f "$out/gpt2_bench.onnx" "$out"/gpt2_bench.onnx.*
  mv "$bench_list" "$out/gpt2-bench.tsv"
fi
find_header() {
  local dir
  for dir in /usr/include /usr/local/include; do
    [ -f "$dir/$1" ] && { echo "$dir/$1"; return; }
  done
  echo "prepare.sh: $1 is not installed (tools/setup/install-deps.sh)" >&2
  exit 1
}
# GoogleTest's sources, for the runtime's tests on a machine without the
# package (run.sh builds them when find_package finds none).
googletest=${GOOGLETEST_SOURCE_DIR:-/usr/src/googletest}
if [ -f "$googletest/CMakeLists.txt" ]; then
  rm -rf "$out/googletest"
  cp -r "$googletest" "$out/googletest"
else
  echo "prepare.sh: no GoogleTest sources at $googletest (libgtest-dev): the GPU machine" \
    "will run no runtime tests unless it has GoogleTest installed" >&2
fi
# The header-only libraries the format library needs (nlohmann-json,
# xxHash), for a machine without the packages (run.sh points CMake at them).
rm -rf "$out/include"
mkdir -p "$out/include"
json_header=$(find_header nlohmann/json.hpp)
xxhash_header=$(find_header xxhash.h)
cp -r "$(dirname "$json_header")" "$out/include/nlohmann"
cp "$xxhash_header" "$out/include/"
echo "prepare.sh: $(ls "$out"/*.mpcb | wc -l) bundles, $(du -sh "$out" | cut -f1), in $out"
