#!/usr/bin/env python3
"""Writes the seed corpora of mpc's fuzz targets into tests/fuzz/corpus/.

The seeds are committed; this script says where they came from and makes them
again (after a format change, say):

    /usr/bin/python3 tests/fuzz/make-seeds.py --mpc build/bin/mpc

graph/ seeds are small hand-written graphs kept in the corpus as they are, and
the examples (examples/*.mlir), which the fuzz targets read from there. Files
named crash-* in a corpus are inputs that once failed, kept as regression
tests; this script leaves them alone.
"""
import argparse
import gzip
import io
import json
import os
import struct
import subprocess
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
ROOT = os.path.dirname(os.path.dirname(HERE))


def write(target, name, data):
    os.makedirs(os.path.join(CORPUS, target), exist_ok=True)
    with open(os.path.join(CORPUS, target, name), "wb") as f:
        f.write(data)


def npy_bytes(array, version=None):
    out = io.BytesIO()
    if version is None:
        np.save(out, array, allow_pickle=False)
    else:
        np.lib.format.write_array(out, array, version=version, allow_pickle=False)
    return out.getvalue()


def safetensors_bytes(tensors, metadata=None):
    header, data, offset = {}, b"", 0
    names = {np.float32: "F32", np.float16: "F16", np.int64: "I64", np.int32: "I32",
             np.float64: "F64", np.bool_: "BOOL"}
    for name, array in tensors.items():
        raw = array.tobytes()
        header[name] = {"dtype": names[array.dtype.type], "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        data += raw
        offset += len(raw)
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def idx_bytes(array, type_code=0x08):
    return struct.pack(">HBB", 0, type_code, array.ndim) + \
        b"".join(struct.pack(">I", d) for d in array.shape) + array.astype(np.uint8).tobytes()


def bundle_bytes(sections):
    """A bundle (mpc/format/Bundle.h) with zero checksums: the bundle target
    stores the right ones before reading."""
    count = len(sections)
    offset = 24 + 56 * count
    table, data, offsets = b"", b"", []
    for name, payload in sections:
        offset = (offset + 63) // 64 * 64
        offsets.append(offset)
        table += name.encode().ljust(32, b"\0") + struct.pack("<QQQ", offset, len(payload), 0)
        offset += len(payload)
    body = b""
    position = 24 + 56 * count
    for (name, payload), at in zip(sections, offsets):
        body += b"\0" * (at - position) + payload
        position = at + len(payload)
    size = position + 8
    return b"MPCBUNDL" + struct.pack("<IIQ", 2, count, size) + table + body + b"\0" * 8


def pair(first, second):
    return struct.pack("<I", len(first)) + first + second


def tensor_seeds():
    rng = np.random.default_rng(0)
    write("npy", "f32-2x3.npy", npy_bytes(rng.standard_normal((2, 3)).astype(np.float32)))
    write("npy", "f16-scalar.npy", npy_bytes(np.array(1.5, dtype=np.float16)))
    write("npy", "i64-4.npy", npy_bytes(np.arange(4, dtype=np.int64)))
    write("npy", "bool-3.npy", npy_bytes(np.array([True, False, True])))
    write("npy", "f64-v2.npy", npy_bytes(np.ones((2, 2)), version=(2, 0)))
    write("npy", "i32-empty.npy", npy_bytes(np.zeros((0, 3), dtype=np.int32)))
    write("safetensors", "two.safetensors", safetensors_bytes(
        {"fc.weight": rng.standard_normal((2, 3)).astype(np.float32),
         "fc.bias": np.zeros(3, dtype=np.float16)}, {"step": "7", "loss_scale": "65536"}))
    write("safetensors", "scalar.safetensors", safetensors_bytes(
        {"step": np.array(3, dtype=np.int64)}))


def dataset_seeds():
    csv = b"0,1,2,3,1\n4,5,6,7,0\n8,9,10,11,2\n1,1,1,1,1\n"
    write("dataset", "csv", b"c" + csv)
    write("dataset", "csv-range", b"C" + csv)
    write("dataset", "csv-gz", b"g" + gzip.compress(csv, mtime=0))
    text = b"In the beginning God created the heaven and the earth.\n\tAnd\r\n"
    write("dataset", "text", b"t" + text)
    write("dataset", "text-range", b"T" + text)
    images = np.arange(4 * 2 * 3).reshape(4, 2, 3)
    labels = np.array([0, 1, 2, 1])
    write("dataset", "idx", b"i" + pair(idx_bytes(images), idx_bytes(labels)))
    write("dataset", "idx-range", b"I" + pair(idx_bytes(images), idx_bytes(labels)))
    features = np.arange(12, dtype=np.float32).reshape(4, 3)
    write("dataset", "npy", b"n" + pair(npy_bytes(features), npy_bytes(labels.astype(np.int64))))
    tokens = np.arange(8, dtype=np.int32).reshape(4, 2)
    write("dataset", "npy-sequences", b"N" + pair(npy_bytes(tokens), npy_bytes(tokens + 1)))


TINY_GRAPH = """\
mpg.graph @tiny {
  %x = mpg.input "x" : tensor<4x3xf32>
  %y = mpg.input "y" : tensor<4xi32>
  %w = mpg.param "w" init(glorot_uniform) : tensor<3x2xf32>
  %b = mpg.param "b" init(zeros) : tensor<2xf32>
  %m = mpg.matmul %x, %w : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
  %z = mpg.add %m, %b : tensor<4x2xf32>, tensor<2xf32> -> tensor<4x2xf32>
  %h = mpg.relu %z : tensor<4x2xf32>
  %loss = mpg.softmax_cross_entropy %h, %y : tensor<4x2xf32>, tensor<4xi32> -> tensor<f32>
  mpg.output "h" %h : tensor<4x2xf32>
  mpg.minimize %loss optimizer(adam, lr = 0.01) : tensor<f32>
}
"""


def compiled_seeds(mpc):
    write("graph", "tiny.mlir", TINY_GRAPH.encode())
    with tempfile.TemporaryDirectory() as tmp:
        graph = os.path.join(tmp, "tiny.mlir")
        with open(graph, "w") as f:
            f.write(TINY_GRAPH)
        env = dict(os.environ, MPC_CACHE_DIR=os.path.join(tmp, "cache"))
        for step, precision in [("forward", "fp32"), ("train", "fp16"), ("train", "bf16")]:
            manifest = subprocess.run(
                [mpc, "compile", graph, "--emit", "manifest", "--step", step,
                 "--precision", precision], check=True, capture_output=True, env=env).stdout
            write("manifest", f"tiny-{step}-{precision}.json", manifest)
            write("bundle", f"manifest-only-{step}-{precision}.mpcb",
                  bundle_bytes([("manifest.json", manifest), ("const.0", b"\1\2\3")]))
        bundle = os.path.join(tmp, "tiny.mpcb")
        subprocess.run([mpc, "compile", graph, "-o", bundle, "--step", "train",
                        "--precision", "fp16"], check=True, env=env)
        with open(bundle, "rb") as f:
            write("bundle", "tiny-train-fp16.mpcb", f.read())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mpc", default=os.path.join(ROOT, "build", "bin", "mpc"))
    args = parser.parse_args()
    tensor_seeds()
    dataset_seeds()
    compiled_seeds(args.mpc)


if __name__ == "__main__":
    main()
