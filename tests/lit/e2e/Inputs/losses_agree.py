"""Compares the per-step losses of two `mpc train --log` files: each step's
loss must agree to within RTOL (relative), and the steps and skip flags must
be the same. Prints "N steps compared; largest relative difference D" and
exits 0, or names the first difference and exits 1. Logs with no step, or
of different lengths, fail.

usage: losses_agree.py A.jsonl B.jsonl --rtol RTOL
"""
import argparse
import json
import sys

parser = argparse.ArgumentParser()
parser.add_argument("a")
parser.add_argument("b")
parser.add_argument("--rtol", type=float, required=True)
args = parser.parse_args()


def steps(path):
    with open(path) as f:
        return [r for r in map(json.loads, f) if "step" in r and "loss" in r]


a, b = steps(args.a), steps(args.b)
if not a or len(a) != len(b):
    sys.exit("logs of %d and %d steps: nothing to compare step by step" % (len(a), len(b)))
worst = 0.0
for x, y in zip(a, b):
    if x["step"] != y["step"] or x.get("skipped") != y.get("skipped"):
        sys.exit("step %s: steps or skip flags differ: %r, %r" % (x["step"], x, y))
    difference = abs(x["loss"] - y["loss"]) / max(abs(y["loss"]), 1e-30)
    worst = max(worst, difference)
    if difference > args.rtol:
        sys.exit("step %d: loss %r against %r (relative %.2g > %g)"
                 % (x["step"], x["loss"], y["loss"], difference, args.rtol))
print("%d steps compared; largest relative difference %.1e" % (len(a), worst))
