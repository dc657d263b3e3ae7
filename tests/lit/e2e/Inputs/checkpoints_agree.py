"""Compares the f32 tensors that two safetensors checkpoints share (names
given with --skip excepted): each pair must agree to within RTOL of the
larger tensor's largest magnitude. Prints how many tensors and elements it
compared and the largest difference; a comparison of nothing fails.

usage: checkpoints_agree.py A B --rtol RTOL [--skip NAME ...]
"""
import argparse
import sys

import numpy as np

from safetensors_file import read


parser = argparse.ArgumentParser()
parser.add_argument("a")
parser.add_argument("b")
parser.add_argument("--rtol", type=float, required=True)
parser.add_argument("--skip", nargs="*", default=[])
args = parser.parse_args()
a, b = read(args.a, {"F32"}), read(args.b, {"F32"})
names = sorted((set(a) & set(b)) - set(args.skip))
elements, worst, failed = 0, 0.0, []
for name in names:
    scale = max(float(np.abs(a[name]).max()), float(np.abs(b[name]).max()), 1e-30)
    difference = float(np.abs(a[name].astype(np.float64) - b[name]).max()) / scale
    elements += a[name].size
    worst = max(worst, difference)
    if difference > args.rtol:
        failed.append("%s (%.3g)" % (name, difference))
if elements == 0:
    sys.exit("no element compared: the checkpoints share no f32 tensor")
print("%d tensors, %d elements compared; largest difference %.1e of the tensor's largest "
      "magnitude (tolerance %g)" % (len(names), elements, worst, args.rtol))
if failed:
    sys.exit("differ beyond the tolerance: " + ", ".join(failed))
