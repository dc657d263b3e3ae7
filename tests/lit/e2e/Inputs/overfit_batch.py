"""Trains a compiled training step on one fixed batch and checks that the
loss falls: every gradient of the model has to be right for a step to make
progress on all its parameters.

usage: overfit_batch.py MPC GRAPH.mlir BUNDLE WORKDIR STEPS

Integer inputs get values in [0, 10) (valid ids and labels for every
example); the parameters start from their initializers (seed 0) and go
through --save-params / --params between steps. Prints the first and last
loss and FELL when the last is below 60% of the first.
"""
import os
import re
import subprocess
import sys

import numpy as np

mpc, graph, bundle, workdir, steps = sys.argv[1:6]
text = open(graph).read()
rng = np.random.default_rng(0)
args = []
for name, shape, dtype in re.findall(r'mpg\.input "([^"]+)" : tensor<([0-9x]+)x(f32|i32)>', text):
    dims = [int(d) for d in shape.split("x")]
    data = (rng.standard_normal(dims).astype(np.float32) if dtype == "f32"
            else rng.integers(0, 10, dims).astype(np.int32))
    path = os.path.join(workdir, name + ".npy")
    np.save(path, data)
    args += ["--input", "%s=%s" % (name, path)]
checkpoint = os.path.join(workdir, "params.safetensors")
loss_file = os.path.join(workdir, "loss.npy")
losses = []
for step in range(int(steps)):
    resume = ["--params", checkpoint] if step else []
    result = subprocess.run([mpc, "run", bundle] + args + resume +
                            ["--save-params", checkpoint, "--output", "loss=" + loss_file],
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("mpc run failed: " + result.stderr)
    losses.append(float(np.load(loss_file)))
print("first loss %.4f last loss %.4f" % (losses[0], losses[-1]))
fell = bool(np.isfinite(losses[-1]) and losses[-1] < 0.6 * losses[0])
print("FELL" if fell else "DID NOT FALL")
sys.exit(0 if fell else 1)
