"""Writes the inputs of Inputs/finite_checks.mlir for each case of
finite-checks.test: WORKDIR/CASE/{a,b,c,d}.npy, every value finite except
the one the case poisons.

usage: finite_check_inputs.py WORKDIR
"""
import os
import sys

import numpy as np

SHAPES = {"a": ((4, 8), np.float32), "b": ((300,), np.float16),
          "c": ((2, 3, 5), np.float32), "d": ((1000,), np.float32)}
# case: (operand, flat index, value), or None for all finite. 65504 is the
# largest finite f16.
CASES = {"finite": None, "a": ("a", 5, -np.inf), "b": ("b", 299, np.inf),
         "c": ("c", 17, np.nan), "d": ("d", 999, np.inf), "b-max": ("b", 3, 65504.0)}

work = sys.argv[1]
rng = np.random.default_rng(5)
for case, poison in CASES.items():
    os.makedirs(os.path.join(work, case), exist_ok=True)
    for name, (shape, dtype) in SHAPES.items():
        values = (rng.standard_normal(shape) * 100).astype(dtype)
        if poison and poison[0] == name:
            values.reshape(-1)[poison[1]] = poison[2]
        np.save(os.path.join(work, case, name + ".npy"), values)
