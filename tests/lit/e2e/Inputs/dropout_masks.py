"""Runs the training step of dropout_masks.mlir twice with `mpc run` and
checks its dropout against the NumPy Philox of tests/e2e/mpg_testing.py:

- run k (from 0) keeps exactly the elements that the reference keeps under
  the checkpoint's "dropout.seed", run k and stream 0, and writes
  x * w / (1 - 0.25) there (the output "d");
- the two runs draw different masks, each keeping about 75%;
- the gradient uses the same mask: with x = 1, w = 1 and lr 0.5, w after
  the first step is 1 - 0.5 / 0.75 = 1/3 where the element was kept and 1
  where it was dropped;
- "dropout.run" counts the runs; "dropout.seed" depends on --seed;
- the forward step (inference) has no dropout: d = x * w.

usage: dropout_masks.py MPC GRAPH FOLDER PRECISION
"""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "e2e"))
from mpg_testing import dropout_keep  # noqa: E402
from safetensors_file import read  # noqa: E402

mpc, graph, folder, precision = sys.argv[1:5]
at = lambda name: os.path.join(folder, name)  # noqa: E731
SHAPE, RATE = (48, 40), 0.25
SCALE = float(np.float32(1 / (1 - RATE)))


def run(*args):
  subprocess.run([mpc] + list(args), check=True, stdout=subprocess.DEVNULL)


run("compile", graph, "--step", "train", "--precision", precision, "-o", at("train.mpcb"))
run("compile", graph, "--precision", precision, "-o", at("forward.mpcb"))
np.save(at("x.npy"), np.ones(SHAPE, np.float32))
run("run", at("train.mpcb"), "--seed", "5", "--input", "x=" + at("x.npy"), "--output",
    "d=" + at("d0.npy"), "--save-params", at("p1.safetensors"))
run("run", at("train.mpcb"), "--params", at("p1.safetensors"), "--input", "x=" + at("x.npy"),
    "--output", "d=" + at("d1.npy"), "--save-params", at("p2.safetensors"))
p1, p2 = read(at("p1.safetensors")), read(at("p2.safetensors"))
seed = int(p1["dropout.seed"])
failures = []


def expect(condition, what):
  if not condition:
    failures.append(what)


expect(int(p1["dropout.run"]) == 1 and int(p2["dropout.run"]) == 2, "dropout.run counts runs")
expect(int(p2["dropout.seed"]) == seed, "dropout.seed stays")
compared = 0
keeps = []
w = np.ones(SHAPE)
for step, name in enumerate(("d0.npy", "d1.npy")):
  d = np.load(at(name)).astype(np.float64)
  keep = dropout_keep(seed, step, 0, SHAPE, RATE)
  keeps.append(keep)
  expect(np.array_equal(d != 0, keep), "run %d: the mask is the reference's" % step)
  expect(np.allclose(d[keep], (w * SCALE)[keep], rtol=1e-3), "run %d: kept values" % step)
  expect(abs(keep.mean() - 0.75) < 0.05, "run %d: keeps %.3f" % (step, keep.mean()))
  compared += d.size
  w = w - 0.5 * SCALE * keep
expect(not np.array_equal(keeps[0], keeps[1]), "the two runs draw different masks")
w1 = read(at("p1.safetensors"))["w"].astype(np.float64)
expect(np.allclose(w1, np.where(keeps[0], 1 - 0.5 * SCALE, 1.0), rtol=1e-6, atol=1e-6),
       "the gradient's mask")

run("run", at("train.mpcb"), "--seed", "6", "--input", "x=" + at("x.npy"), "--save-params",
    at("other.safetensors"))
expect(int(read(at("other.safetensors"))["dropout.seed"]) != seed, "another --seed, another key")

run("run", at("forward.mpcb"), "--params", at("p1.safetensors"), "--input",
    "x=" + at("x.npy"), "--output", "d=" + at("forward.npy"))
expect(np.allclose(np.load(at("forward.npy")).astype(np.float64), w1, rtol=1e-3),
       "the forward step has no dropout")

if failures or compared == 0:
  sys.exit("dropout checks failed: " + "; ".join(failures or ["nothing compared"]))
print("%s: masks of 2 runs (%d elements) match the reference; gradient, key and forward step "
      "as expected" % (precision, compared))
