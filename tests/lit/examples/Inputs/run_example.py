"""Runs one forward step of a compiled example bundle on random inputs.

usage: run_example.py MPC GRAPH.mlir BUNDLE WORKDIR

The inputs are read from the graph's `mpg.input` declarations: f32 inputs get
standard-normal values, integer inputs (labels, token ids) values in [0, 10),
valid for every example (10 classes, vocabularies of 32 and 96). Prints each
output's type, and checks that every output is finite.
"""
import re
import subprocess
import sys

import numpy as np

mpc, graph, bundle, workdir = sys.argv[1:5]
text = open(graph).read()
rng = np.random.default_rng(0)
args = []
for name, shape, dtype in re.findall(r'mpg\.input "([^"]+)" : tensor<([0-9x]+)x(f32|i32|i64)>', text):
    dims = [int(d) for d in shape.split("x")]
    if dtype == "f32":
        data = rng.standard_normal(dims).astype(np.float32)
    else:
        data = rng.integers(0, 10, dims).astype(np.int32 if dtype == "i32" else np.int64)
    path = "%s/%s.npy" % (workdir, name)
    np.save(path, data)
    args += ["--input", "%s=%s" % (name, path)]
outputs = re.findall(r'mpg\.output "([^"]+)"', text) + ["loss"]
for name in outputs:
    args += ["--output", "%s=%s/out-%s.npy" % (name, workdir, name)]
result = subprocess.run([mpc, "run", bundle] + args, capture_output=True, text=True)
if result.returncode != 0:
    sys.exit("mpc run failed: " + result.stderr)
for name in outputs:
    value = np.load("%s/out-%s.npy" % (workdir, name))
    finite = bool(np.isfinite(value).all())
    print("%s %s %s finite=%s" % (name, value.dtype, list(value.shape), finite))
    if not finite:
        sys.exit("output %s is not finite" % name)
