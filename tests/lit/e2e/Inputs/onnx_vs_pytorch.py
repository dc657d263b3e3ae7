"""A PyTorch model exported to ONNX and trained by mpc (`mpc train
model.onnx`) against PyTorch's training of the same model from the same
weights and batches (the digits data, --no-shuffle), then mpc's checkpoint
loaded back into PyTorch with load_state_dict.

Prints, for the precision given: the largest relative difference of the
per-step losses, of the trained parameters, and of the outputs of the
reloaded model against PyTorch's trained one.

usage: onnx_vs_pytorch.py MPC FOLDER MODEL PRECISION [STEPS]
  MODEL: mlp (Linear-ReLU-Linear) or cnn (Conv-ReLU-MaxPool-Flatten-Linear)
"""
import copy
import gzip
import json
import os
import subprocess
import sys

import numpy as np
import torch

from safetensors_file import read

mpc, folder, kind, precision = sys.argv[1:5]
steps = int(sys.argv[5]) if len(sys.argv) > 5 else 20
at = lambda name: os.path.join(folder, name)  # noqa: E731
DIGITS = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
BATCH, LR = 32, 0.1

torch.manual_seed(0)
if kind == "mlp":
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    shape = (64,)
else:
    model = torch.nn.Sequential(torch.nn.Conv2d(1, 8, 3, padding=1), torch.nn.ReLU(),
                                torch.nn.MaxPool2d(2), torch.nn.Flatten(),
                                torch.nn.Linear(8 * 4 * 4, 10))
    shape = (1, 8, 8)
start = {k: v.detach().clone() for k, v in model.state_dict().items()}

data = np.loadtxt(gzip.open(DIGITS), delimiter=",")
x = (data[:, :64] / 16.0).astype(np.float32)[:steps * BATCH]
y = data[:, 64].astype(np.int32)[:steps * BATCH]
np.save(at("x.npy"), x.reshape((-1,) + shape))
np.save(at("y.npy"), y)

torch.onnx.export(model, torch.zeros((BATCH,) + shape), at("model.onnx"), opset_version=17,
                  input_names=["pixels"], output_names=["logits"],
                  dynamic_axes={"pixels": {0: "batch"}, "logits": {0: "batch"}},
                  training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)

result = subprocess.run(
    [mpc, "train", at("model.onnx"), "--data", at("x.npy") + "," + at("y.npy"), "--batch",
     str(BATCH), "--loss", "softmax_cross_entropy", "--optimizer", "sgd", "--lr", str(LR),
     "--steps", str(steps), "--no-shuffle", "--precision", precision, "--log", at("log.jsonl"),
     "--save", at("trained.safetensors"), "--quiet"], capture_output=True, text=True)
if result.returncode != 0:
    sys.exit("mpc train failed:\n" + result.stderr)
mpc_losses = [r["loss"] for r in map(json.loads, open(at("log.jsonl")))
              if "loss" in r and not r.get("summary")]

model.load_state_dict(start)
opt = torch.optim.SGD(model.parameters(), lr=LR)
xs, ys = torch.tensor(x.reshape((-1,) + shape)), torch.tensor(y.astype(np.int64))
losses = []
for s in range(steps):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(xs[s * BATCH:(s + 1) * BATCH]),
                                             ys[s * BATCH:(s + 1) * BATCH])
    loss.backward()
    opt.step()
    losses.append(loss.item())

# mpc's checkpoint in PyTorch: the parameters keep the model's names and
# layouts, so load_state_dict takes them as they are.
trained = read(at("trained.safetensors"))
state = {k: torch.tensor(np.array(trained[k], np.float32)) for k in model.state_dict()}
mine = {k: v.detach().clone() for k, v in model.state_dict().items()}
model_mpc = copy.deepcopy(model)
model_mpc.load_state_dict(state)
with torch.no_grad():
    probe = xs[:BATCH]
    out_torch, out_mpc = model(probe), model_mpc(probe)

def rel(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-30))

if len(mpc_losses) != steps:
    sys.exit("mpc logged %d losses for %d steps" % (len(mpc_losses), steps))
loss_diff = max(abs(a - b) / abs(b) for a, b in zip(mpc_losses, losses))
param_diff = max(rel(state[k], mine[k]) for k in mine)
out_diff = rel(out_mpc, out_torch)
print("%s %s: %d steps, %d parameters; loss %.3f -> %.3f" % (kind, precision, steps, len(mine),
                                                              losses[0], losses[-1]))
print("largest relative loss difference: %.2e" % loss_diff)
print("largest relative parameter difference: %.2e" % param_diff)
print("reloaded in PyTorch, largest relative output difference: %.2e" % out_diff)
