#!/usr/bin/env python3
"""Writes a synthetic sequence task for examples/transformer_block.mlir: random
sequences of 16 tokens in [0, 10) and, as the target at every position, the
sequence sorted (the token the sorted sequence has there). A model has to
compare every token with every other, which bidirectional attention can.

  make_sequence_task.py OUT_DIR [--train N] [--test N] [--seed S]

writes OUT_DIR/{train,test}-{tokens,targets}.npy (int32 [N, 16]), for
  mpc train examples/transformer_block.mlir \
      --data OUT_DIR/train-tokens.npy,OUT_DIR/train-targets.npy \
      --eval OUT_DIR/test-tokens.npy,OUT_DIR/test-targets.npy
Needs NumPy (Debian's python3-numpy: run it with /usr/bin/python3).
"""
import argparse
import os

import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--train", type=int, default=20000)
    parser.add_argument("--test", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    for split, count in (("train", args.train), ("test", args.test)):
        tokens = rng.integers(0, 10, (count, 16)).astype(np.int32)
        targets = np.sort(tokens, axis=1).astype(np.int32)
        np.save(os.path.join(args.out, f"{split}-tokens.npy"), tokens)
        np.save(os.path.join(args.out, f"{split}-targets.npy"), targets)
    print(f"make_sequence_task.py: {args.train} training and {args.test} test sequences "
          f"in {args.out}")


if __name__ == "__main__":
    main()
