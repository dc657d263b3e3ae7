"""Trains linear_regression.mlir on scikit-learn's diabetes data (442
examples, 10 features, a float target; both standardised) with float
targets from .npy files, and checks mpc against a float64 NumPy run of the
same SGD from the same initial weights and the same batches (--no-shuffle:
batch k of an epoch is examples 32k .. 32k+31):

- every step's loss (the log) and the final parameters agree to fp32
  round-off;
- the loss falls well below the variance of the targets (1.0).

usage: regression.py MPC GRAPH FOLDER
"""
import gzip
import json
import os
import subprocess
import sys

import numpy as np

from safetensors_file import read

mpc, graph, folder = sys.argv[1:4]
at = lambda name: os.path.join(folder, name)  # noqa: E731
DATA = "/usr/lib/python3/dist-packages/sklearn/datasets/data/"
BATCH, STEPS, LR = 32, 40, 0.05

x = np.loadtxt(gzip.open(DATA + "diabetes_data_raw.csv.gz"))
y = np.loadtxt(gzip.open(DATA + "diabetes_target.csv.gz"))
x = ((x - x.mean(0)) / x.std(0)).astype(np.float32)
y = ((y - y.mean()) / y.std()).astype(np.float32).reshape(-1, 1)
np.save(at("features.npy"), x)
np.save(at("targets.npy"), y)
np.save(at("batch-x.npy"), x[:BATCH])
np.save(at("batch-y.npy"), y[:BATCH])


def run(*args):
  subprocess.run([mpc] + list(args), check=True, stdout=subprocess.DEVNULL)


# The initial weights: the forward step's parameters under the same seed.
run("compile", graph, "-o", at("forward.mpcb"))
run("run", at("forward.mpcb"), "--seed", "4", "--input", "features=" + at("batch-x.npy"),
    "--input", "targets=" + at("batch-y.npy"), "--save-params", at("initial.safetensors"))
data = at("features.npy") + "," + at("targets.npy")
run("train", graph, "--data", data, "--steps", str(STEPS), "--seed", "4", "--no-shuffle",
    "--log", at("log.jsonl"), "--save", at("trained.safetensors"), "--quiet")

start = read(at("initial.safetensors"))
w, b = start["w"].astype(np.float64), start["b"].astype(np.float64)
per_epoch = len(x) // BATCH
losses = []
for step in range(STEPS):
  first = (step % per_epoch) * BATCH
  xb, yb = x[first:first + BATCH].astype(np.float64), y[first:first + BATCH].astype(np.float64)
  error = xb @ w + b - yb
  losses.append(np.mean(error ** 2))
  grad = 2 * error / error.size
  w, b = w - LR * xb.T @ grad, b - LR * grad.sum(0)
logged = [row["loss"] for row in map(json.loads, open(at("log.jsonl"))) if "loss" in row and
          not row.get("summary")]
trained = read(at("trained.safetensors"))
failures = []
if len(logged) != STEPS or not np.allclose(logged, losses, rtol=1e-5, atol=1e-6):
  failures.append("losses differ: %s vs %s" % (logged[:3], losses[:3]))
for name, want in (("w", w), ("b", b)):
  if not np.allclose(trained[name].astype(np.float64), want, rtol=1e-5, atol=1e-6):
    failures.append("%s differs by %g" % (name, np.abs(trained[name] - want).max()))
if not losses[-1] < 0.8:
  failures.append("the loss only fell to %g" % losses[-1])
if failures:
  sys.exit("regression: " + "; ".join(failures))
print("%d steps: losses and parameters match float64 NumPy (%d + %d values); loss %.3f -> %.3f"
      % (STEPS, len(logged), w.size + b.size, losses[0], losses[-1]))
