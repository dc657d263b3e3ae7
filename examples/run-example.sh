#!/usr/bin/env bash
# Runs one of mpc's examples end to end on the CPU: gets its data, trains it
# with mpc train (fp16 mixed precision unless --precision says otherwise),
# evaluates it, and shows what it shows (examples/README.md).
#   examples/run-example.sh NAME [--quick] [--precision fp32|fp16|bf16] [--out DIR]
# NAME: mlp, fashion_mlp, wide_mlp, cnn, char_lstm, transformer_block.
# --quick trains a few steps only (the test suite runs every example so).
# Results (log, checkpoint) go to --out (default build/examples/NAME).
#   MPC   the mpc driver (default build/bin/mpc)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
name=${1:-}
[ -n "$name" ] && shift || { sed -n '2,9p' "${BASH_SOURCE[0]}"; exit 2; }
quick=0 precision=fp16 out=
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1; shift ;;
    --precision) precision=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "run-example.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
mpc=${MPC:-$root/build/bin/mpc}
[ -x "$mpc" ] || { echo "run-example.sh: no mpc at $mpc; build it first (tools/setup/build.sh)" >&2; exit 1; }
out=${out:-$root/build/examples/$name}
mkdir -p "$out"
steps() { if [ $quick = 1 ]; then echo "$2"; else echo "$1"; fi; }
digits=/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz
fashion=/usr/share/datasets/fashion-mnist
fashion_train=$fashion/train-images-idx3-ubyte.gz,$fashion/train-labels-idx1-ubyte.gz
fashion_test=$fashion/t10k-images-idx3-ubyte.gz,$fashion/t10k-labels-idx1-ubyte.gz
need() { [ -e "$1" ] || { echo "run-example.sh: $1 is missing; run tools/setup/install-deps.sh" >&2; exit 1; }; }
train=("$mpc" train "$root/examples/$name.mlir" --precision "$precision" --log "$out/train.jsonl"
       --save "$out/params.safetensors")

case $name in
  mlp)
    need "$digits"
    "${train[@]}" --data "$digits" --holdout 297 --steps "$(steps 300 20)" --seed 1 ;;
  fashion_mlp)
    need "$fashion"
    "${train[@]}" --data "$fashion_train" --eval "$fashion_test" --steps "$(steps 1000 20)" ;;
  wide_mlp)
    need "$fashion"
    "${train[@]}" --data "$fashion_train" --eval "$fashion_test@0:2000" --steps "$(steps 300 5)" ;;
  cnn)
    need "$fashion"
    "${train[@]}" --data "$fashion_train" --eval "$fashion_test@0:2000" --steps "$(steps 1000 5)" ;;
  char_lstm)
    command -v bible >/dev/null || { echo "run-example.sh: 'bible' (bible-kjv) is missing; run tools/setup/install-deps.sh" >&2; exit 1; }
    [ -s "$out/kjv.txt" ] || bible -f gen1:1-rev22:21 > "$out/kjv.txt"
    # Held out: the last 200000 characters (the end of Revelation).
    size=$(wc -c < "$out/kjv.txt")
    "${train[@]}" --data "$out/kjv.txt@0:$((size - 200000))" --eval "$out/kjv.txt@$((size - 200000)):" \
      --steps "$(steps 3000 20)"
    echo "== a sample, continuing \"And God said\":"
    "$mpc" generate "$root/examples/char_lstm.mlir" --params "$out/params.safetensors" \
      --prompt "And God said" --length "$(steps 300 40)" --seed 1 ;;
  transformer_block)
    [ -f "$out/data/train-tokens.npy" ] ||
      /usr/bin/python3 "$root/examples/data/make_sequence_task.py" "$out/data"
    "${train[@]}" --data "$out/data/train-tokens.npy,$out/data/train-targets.npy" \
      --eval "$out/data/test-tokens.npy,$out/data/test-targets.npy" --steps "$(steps 1500 20)" ;;
  *)
    echo "run-example.sh: unknown example '$name' (mlp, fashion_mlp, wide_mlp, cnn, char_lstm, transformer_block)" >&2
    exit 2 ;;
esac
echo "log and checkpoint in $out"
