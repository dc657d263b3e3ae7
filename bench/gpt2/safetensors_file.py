"""Safetensors files as mpc reads and writes them (parameters, checkpoints,
the GPU check's float64 references), for the benchmarks' and the tests'
scripts: `read(path)` gives {name: NumPy array}, `write(path, arrays)` the
reverse."""
import json
import os
import struct

import numpy as np

DTYPES = {"F64": np.float64, "F32": np.float32, "F16": np.float16, "I64": np.int64,
          "I32": np.int32, "BOOL": np.bool_}


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


def write(path, arrays):
    """Writes {name: array} to `path` (little-endian, in name order) through a
    temporary file, so that a failed write leaves no partial file."""
    names = {np.dtype(v): k for k, v in DTYPES.items()}
    header, blobs, offset = {}, [], 0
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        if array.dtype not in names:
            raise ValueError("%s: dtype %s has no safetensors name here" % (name, array.dtype))
        blob = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {"dtype": names[array.dtype], "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    temporary = path + ".tmp"
    with open(temporary, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for blob in blobs:
            f.write(blob)
    os.replace(temporary, path)
