"""One accumulation window run by run (mpc run, one micro-batch a call) of
tools/soak/probed_mlp.mlir compiled with --accumulate 2, fp16: the first run
changes no parameter; the second updates them all once. Then a window whose
first run overflows one gradient element (its probe) and whose second does
not: the overflow is remembered (grad_accum.finite) with the accumulators
left finite, the window is skipped as a whole, the loss scale halves once,
and the accumulators start over at zero.

usage: accumulate_window.py MPC BUNDLE FOLDER
"""
import os
import subprocess
import sys

import numpy as np

from safetensors_file import read

mpc, bundle, folder = sys.argv[1:4]
PARAMS = {"fc1.weight": (64, 32), "fc1.bias": (32,), "fc2.weight": (32, 10), "fc2.bias": (10,)}
rng = np.random.default_rng(3)


def run(index, params, overflow=None):
    inputs = {"pixels": rng.random((32, 64), dtype=np.float32),
              "labels": rng.integers(0, 10, 32).astype(np.int32)}
    for name, shape in PARAMS.items():
        probe = np.zeros(shape, np.float32)
        if name == overflow:
            probe.flat[5] = 1.0e36
        inputs["probe." + name] = probe
    command = [mpc, "run", bundle, "-o", "skipped=%s/skipped.npy" % folder]
    for name, value in inputs.items():
        np.save("%s/%s.npy" % (folder, name), value)
        command += ["-i", "%s=%s/%s.npy" % (name, folder, name)]
    saved = "%s/run%d.safetensors" % (folder, index)
    if params:
        command += ["--params", params]
    subprocess.run(command + ["--save-params", saved], check=True, stdout=subprocess.DEVNULL)
    return saved, bool(np.load("%s/skipped.npy" % folder))


def same(a, b, names):
    return all(np.array_equal(a[n], b[n]) for n in names)


weights = list(PARAMS) + [n + s for n in PARAMS for s in (".exp_avg", ".exp_avg_sq")]
start = None
first, _ = run(1, start)
second, skipped = run(2, first)
a, b = read(first), read(second)
print("runs per window:", int(a["grad_accum.runs"]))
print("after run 1: micro", int(a["grad_accum.micro"]), "step", int(a["optimizer.step"]),
      "accumulated", bool(np.any(a["fc1.weight.grad_accum"] != 0)))
print("after run 2: micro", int(b["grad_accum.micro"]), "step", int(b["optimizer.step"]),
      "skipped", skipped, "accumulators zero",
      all(not np.any(b[n + ".grad_accum"]) for n in PARAMS),
      "every parameter updated", all(not np.array_equal(a[n], b[n]) for n in PARAMS))
third, skipped3 = run(3, second, overflow="fc2.weight")
fourth, skipped4 = run(4, third)
c, d = read(third), read(fourth)
print("overflow in run 1 of the window: skipped after run 1", skipped3, "after run 2", skipped4,
      "window finite after run 1", bool(c["grad_accum.finite"]), "accumulators finite",
      all(np.isfinite(c[n + ".grad_accum"]).all() for n in PARAMS))
print("window skipped: parameters and optimizer state unchanged", same(b, d, weights),
      "step", int(d["optimizer.step"]), "loss scale %g -> %g" % (b["loss_scale"], d["loss_scale"]),
      "accumulators zero", all(not np.any(d[n + ".grad_accum"]) for n in PARAMS))
