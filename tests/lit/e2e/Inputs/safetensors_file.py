"""Reads a safetensors file (a checkpoint of mpc train or mpc run) into
NumPy arrays, for the tests' scripts: `from safetensors_file import read`."""
import json
import struct

import numpy as np

DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64, "I32": np.int32,
          "I64": np.int64, "BOOL": np.bool_}


def read(path, dtypes=None):
    """{name: array} of the tensors of `path` (of the safetensors dtypes
    `dtypes` only, when given), the metadata left out."""
    with open(path, "rb") as f:
        data = f.read()
    size = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + size])
    body = data[8 + size:]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__" or (dtypes and entry["dtype"] not in dtypes):
            continue
        begin, end = entry["data_offsets"]
        tensors[name] = np.frombuffer(body[begin:end], DTYPES[entry["dtype"]]).reshape(
            entry["shape"])
    return tensors
