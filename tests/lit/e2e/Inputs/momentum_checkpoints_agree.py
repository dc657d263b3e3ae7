"""Compares two safetensors checkpoints of the same model: each momentum
buffer of a weight is non-zero and agrees to fp32 rounding of sums of 256
products, and so does every other tensor."""
import sys

import numpy as np

from safetensors_file import read


def agree(a, b):
    scale = max(float(np.abs(a).max()), 1e-30)
    return bool(np.abs(a.astype(np.float64) - b).max() <= 1e-4 * scale)


own, library = read(sys.argv[1], {"F32"}), read(sys.argv[2], {"F32"})
for layer in ("fc1", "fc2", "fc3"):
    name = layer + ".weight.momentum_buffer"
    print(name, "nonzero", bool(np.abs(own[name]).max() > 0), "agree",
          agree(own[name], library[name]))
print("parameters agree", sorted(own) == sorted(library) and
      all(agree(own[k], library[k]) for k in own))
