"""Compares two safetensors checkpoints of the same model: each momentum
buffer of a weight is non-zero and agrees to fp32 rounding of sums of 256
products, and so does every other tensor."""
import json
import struct
import sys

import numpy as np


def load(path):
    data = open(path, "rb").read()
    size = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + size])
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__" or entry["dtype"] != "F32":
            continue
        begin, end = entry["data_offsets"]
        tensors[name] = np.frombuffer(data[8 + size + begin:8 + size + end], dtype=np.float32)
    return tensors


def agree(a, b):
    scale = max(float(np.abs(a).max()), 1e-30)
    return bool(np.abs(a.astype(np.float64) - b).max() <= 1e-4 * scale)


own, library = load(sys.argv[1]), load(sys.argv[2])
for layer in ("fc1", "fc2", "fc3"):
    name = layer + ".weight.momentum_buffer"
    print(name, "nonzero", bool(np.abs(own[name]).max() > 0), "agree",
          agree(own[name], library[name]))
print("parameters agree", sorted(own) == sorted(library) and
      all(agree(own[k], library[k]) for k in own))
