"""Gradients of conv2d (stride, padding, dilation, groups), max_pool2d,
avg_pool2d (with and without count_include_pad), batch_norm and
global_avg_pool from mpc's training step, against PyTorch autograd in
float64.

usage: conv_pool_grads.py MPC WORKDIR

Every tensor that needs a gradient is a parameter, and SGD with lr = 1
turns one training step into p' = p - grad, so grad = p - p'. The loss is
sum(out * r) with a fixed random r, so every output element's gradient is
different. Prints each parameter's relative error and that of the batch
norm's running statistics, then MATCH (exit 0) or MISMATCH (exit 1).
"""
import json
import os
import struct
import subprocess
import sys

import numpy as np
import torch

mpc, work = sys.argv[1:3]
rng = np.random.default_rng(7)
P = {
    "x": rng.standard_normal((2, 4, 9, 9)),
    "w1": rng.standard_normal((6, 2, 3, 3)) * 0.3,   # groups 2, stride 2, pad 1
    "w2": rng.standard_normal((4, 6, 2, 3)) * 0.3,   # dilation [2, 1], asymmetric pad
    "gamma": rng.standard_normal(4) * 0.5 + 1.0,
    "beta": rng.standard_normal(4) * 0.1,
}
graph = """
mpg.graph @grads {
  %r = mpg.input "r" : tensor<2x4xf32>
  %q = mpg.input "q" : tensor<2x4x2x2xf32>
  %x = mpg.param "x" init(zeros) : tensor<2x4x9x9xf32>
  %w1 = mpg.param "w1" init(zeros) : tensor<6x2x3x3xf32>
  %w2 = mpg.param "w2" init(zeros) : tensor<4x6x2x3xf32>
  %gamma = mpg.param "gamma" init(ones) : tensor<4xf32>
  %beta = mpg.param "beta" init(zeros) : tensor<4xf32>
  %rm = mpg.state "rm" init(zeros) : tensor<4xf32>
  %rv = mpg.state "rv" init(ones) : tensor<4xf32>
  %c1 = mpg.conv2d %x, %w1 stride [2, 2] padding [1, 1, 1, 1] groups 2 : tensor<2x4x9x9xf32>, tensor<6x2x3x3xf32> -> tensor<2x6x5x5xf32>
  %m1 = mpg.max_pool2d %c1 kernel [2, 2] stride [1, 1] : tensor<2x6x5x5xf32> -> tensor<2x6x4x4xf32>
  %c2 = mpg.conv2d %m1, %w2 padding [0, 1, 1, 0] dilation [2, 1] : tensor<2x6x4x4xf32>, tensor<4x6x2x3xf32> -> tensor<2x4x3x3xf32>
  %y, %rm2, %rv2 = mpg.batch_norm %c2, %gamma, %beta, %rm, %rv : tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>
  mpg.state_write %rm, %rm2 : tensor<4xf32>
  mpg.state_write %rv, %rv2 : tensor<4xf32>
  %a = mpg.avg_pool2d %y kernel [2, 2] stride [1, 1] padding [1, 0, 0, 1] count_include_pad : tensor<2x4x3x3xf32> -> tensor<2x4x3x3xf32>
  %b = mpg.avg_pool2d %y kernel [2, 3] stride [1, 1] padding [0, 1, 0, 1] : tensor<2x4x3x3xf32> -> tensor<2x4x2x3xf32>
  %g = mpg.global_avg_pool %a : tensor<2x4x3x3xf32> -> tensor<2x4xf32>
  %gr = mpg.mul %g, %r : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
  %bs = mpg.slice %b start [0, 0, 0, 1] limit [2, 4, 2, 3] : tensor<2x4x2x3xf32> -> tensor<2x4x2x2xf32>
  %bq = mpg.mul %bs, %q : tensor<2x4x2x2xf32>, tensor<2x4x2x2xf32> -> tensor<2x4x2x2xf32>
  %l1 = mpg.reduce_sum %gr axes [0, 1] : tensor<2x4xf32> -> tensor<f32>
  %l2 = mpg.reduce_sum %bq axes [0, 1, 2, 3] : tensor<2x4x2x2xf32> -> tensor<f32>
  %loss = mpg.add %l1, %l2 : tensor<f32>, tensor<f32> -> tensor<f32>
  mpg.minimize %loss optimizer(sgd, lr = 1.0) : tensor<f32>
}
"""
r = rng.standard_normal((2, 4))
q = rng.standard_normal((2, 4, 2, 2))
open(os.path.join(work, "grads.mlir"), "w").write(graph)
np.save(os.path.join(work, "r.npy"), r.astype(np.float32))
np.save(os.path.join(work, "q.npy"), q.astype(np.float32))

def save(path, tensors):
    header, blob, offset = {}, b"", 0
    for name in sorted(tensors):
        is_int = tensors[name].dtype == np.int64
        data = np.ascontiguousarray(tensors[name], np.int64 if is_int else np.float32).tobytes()
        header[name] = {"dtype": "I64" if is_int else "F32", "shape": list(tensors[name].shape),
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blob += data
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    open(path, "wb").write(struct.pack("<Q", len(text)) + text + blob)

def load(path):
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    return {k: np.frombuffer(data[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]],
                             np.int64 if v["dtype"] == "I64" else np.float32).reshape(v["shape"]) for k, v in header.items()
            if k != "__metadata__"}

params = {k: v.astype(np.float32) for k, v in P.items()}
params["rm"] = np.zeros(4, np.float32)
params["rv"] = np.ones(4, np.float32)
params["optimizer.step"] = np.zeros((), np.int64)
save(os.path.join(work, "in.safetensors"), params)
for cmd in ([mpc, "compile", os.path.join(work, "grads.mlir"), "--step", "train", "-o",
             os.path.join(work, "grads.mpcb")],
            [mpc, "run", os.path.join(work, "grads.mpcb"), "--params",
             os.path.join(work, "in.safetensors"), "--save-params",
             os.path.join(work, "out.safetensors"), "--input", "r=" + os.path.join(work, "r.npy"),
             "--input", "q=" + os.path.join(work, "q.npy")]):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(" ".join(cmd) + " failed:\n" + result.stderr)
out = load(os.path.join(work, "out.safetensors"))

T = {k: torch.tensor(params[k].astype(np.float64), requires_grad=True) for k in P}
F = torch.nn.functional
c1 = F.conv2d(T["x"], T["w1"], stride=2, padding=1, groups=2)
m1 = F.max_pool2d(c1, 2, stride=1)
c2 = F.conv2d(F.pad(m1, (1, 0, 0, 1)), T["w2"], dilation=(2, 1))
running_mean = torch.zeros(4, dtype=torch.float64)
running_var = torch.ones(4, dtype=torch.float64)
y = F.batch_norm(c2, running_mean, running_var, T["gamma"], T["beta"], training=True,
                 momentum=0.1, eps=1e-5)
a = F.avg_pool2d(F.pad(y, (0, 1, 1, 0)), 2, stride=1)
# count_include_pad=False with padding: average over the real positions.
ones = torch.ones_like(y)
b = F.avg_pool2d(F.pad(y, (1, 1, 0, 0)), (2, 3), stride=1) / \
    F.avg_pool2d(F.pad(ones, (1, 1, 0, 0)), (2, 3), stride=1)
loss = (a.mean((2, 3)) * torch.tensor(r)).sum() + (b[:, :, :, 1:3] * torch.tensor(q)).sum()
loss.backward()
ok = True
for k in sorted(P):
    got = params[k].astype(np.float64) - out[k]
    want = T[k].grad.numpy()
    err = np.abs(got - want).max() / max(np.abs(want).max(), 1e-12)
    print("%s relative error %.1e" % (k, err))
    ok &= err < 1e-4
# The running statistics that the step writes (mpg.state_write), updated by
# PyTorch in place: momentum 0.1, the unbiased batch variance.
for k, want in (("rm", running_mean.numpy()), ("rv", running_var.numpy())):
    err = np.abs(out[k] - want).max() / np.abs(want).max()
    print("%s relative error %.1e" % (k, err))
    ok &= err < 1e-4
# A mismatch fails the RUN line by itself (exit status 1), not only
# through FileCheck, whose CHECK: MATCH would also match MISMATCH.
print("MATCH" if ok else "MISMATCH")
sys.exit(0 if ok else 1)
