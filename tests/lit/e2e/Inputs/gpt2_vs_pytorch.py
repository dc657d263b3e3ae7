"""GPT-2 (bench/gpt2/gpt2.py, the "tiny" configuration) on the King James
text in mpc, against PyTorch from the same weights and batches.

1. Agreement: 30 steps of AdamW (weight decay 0.1) with a linear warm-up
   and a cosine decay, fp32, in mpc, in PyTorch fp32 and in PyTorch fp64.
   Like any fp32 implementation, PyTorch's own fp32 run leaves the fp64
   one as Adam amplifies round-off (a gradient element near zero flips the
   sign of its update); so mpc's first loss and first update are compared
   to PyTorch's directly, and its distance from fp64 after 30 steps to
   PyTorch fp32's own.
2. Learning: LEARN_STEPS steps in mpc, then its held-out loss against a
   unigram model's (the training characters' frequencies).

usage: gpt2_vs_pytorch.py MPC TEXT FOLDER LEARN_STEPS
"""
import json
import math
import os
import subprocess
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "..", "bench", "gpt2"))
from gpt2 import CONFIGS, Gpt2, export  # noqa: E402
from safetensors_file import read  # noqa: E402

mpc, text_path, folder, learn_steps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
BATCH, LR, WEIGHT_DECAY, STEPS = 8, 3e-3, 0.1, 30
config = CONFIGS["tiny"]
T = config.context


def at(name):
    return os.path.join(folder, name)


# mpc's character ids: newline 0, ' ' to '~' 1..95 (a tab reads as a space).
text = open(text_path, encoding="ascii").read().replace("\t", " ").replace("\r", "")
ids = np.array([0 if c == "\n" else ord(c) - 31 for c in text], np.int64)
if ids.min() < 0 or ids.max() > 95:
    sys.exit("the text has characters outside mpc's ids")
# Windows of T characters and the next character of each; 90% to train.
count = (len(ids) - 1) // T
windows = np.stack([ids[i * T:i * T + T] for i in range(count)])
following = np.stack([ids[i * T + 1:i * T + T + 1] for i in range(count)])
split = count * 9 // 10
if split < max(STEPS, learn_steps) * BATCH:
    sys.exit("the text has %d windows, fewer than %d steps of %d" % (split, learn_steps, BATCH))
np.save(at("x.npy"), windows[:split])
np.save(at("y.npy"), following[:split])
held = slice(split, split + (count - split) // BATCH * BATCH)
np.save(at("hx.npy"), windows[held])
np.save(at("hy.npy"), following[held])

torch.manual_seed(0)
model = Gpt2(config)
export(model, BATCH, at("gpt2.onnx"))
start = {k: v.detach().clone() for k, v in model.state_dict().items()}


def train_mpc(steps, warmup, name, extra=()):
    result = subprocess.run(
        [mpc, "train", at("gpt2.onnx"), "--batch", str(BATCH), "--constant", "*mask", "--loss",
         "softmax_cross_entropy", "--data", at("x.npy") + "," + at("y.npy"), "--optimizer",
         "adamw", "--lr", str(LR), "--optimizer-arg", "warmup_steps=%d" % warmup,
         "--optimizer-arg", "decay_steps=%d" % (steps - warmup), "--optimizer-arg",
         "weight_decay=%g" % WEIGHT_DECAY, "--steps", str(steps), "--no-shuffle", "--log",
         at(name + ".jsonl"), "--save", at(name + ".safetensors"), "--quiet"] + list(extra),
        capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("mpc train failed:\n" + result.stderr)
    log = [json.loads(line) for line in open(at(name + ".jsonl"))]
    return log, read(at(name + ".safetensors"))


def rate(t, steps, warmup):
    """mpc's schedule at step t (from 1): warm-up, then cosine to 0 (none
    when the warm-up is the whole run)."""
    decay = steps - warmup
    progress = min(max((t - warmup) / decay, 0.0), 1.0) if decay > 0 else 0.0
    return LR * 0.5 * (1 + math.cos(math.pi * progress)) * min(1.0, t / warmup)


def train_torch(dtype, steps, warmup):
    m = Gpt2(config).to(dtype)
    m.load_state_dict({k: v.to(dtype) for k, v in start.items()})
    m.train()
    opt = torch.optim.AdamW(m.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
    xs, ys = torch.tensor(windows[:split]), torch.tensor(following[:split])
    losses = []
    for s in range(steps):
        for group in opt.param_groups:
            group["lr"] = rate(s + 1, steps, warmup)
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(m(xs[s * BATCH:(s + 1) * BATCH]),
                                                 ys[s * BATCH:(s + 1) * BATCH].reshape(-1))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, {k: v.detach().double().numpy() for k, v in m.state_dict().items()}


def param_distance(a, b, names):
    """The largest difference of a tensor's elements over its largest magnitude."""
    return max(float(np.max(np.abs(np.asarray(a[k], np.float64) - b[k])) /
                     max(float(np.max(np.abs(b[k]))), 1e-30)) for k in names)


def losses_of(log):
    return [r["loss"] for r in log if "loss" in r and not r.get("summary")]


# 1. Agreement.
log, one = train_mpc(1, 1, "one")
log_all, trained = train_mpc(STEPS, 10, "agree")
torch_one, torch_one_state = train_torch(torch.float32, 1, 1)
_, torch_one64 = train_torch(torch.float64, 1, 1)
torch32, state32 = train_torch(torch.float32, STEPS, 10)
torch64, state64 = train_torch(torch.float64, STEPS, 10)
mine = losses_of(log_all)
names = [k for k in state32 if k in trained]
if len(mine) != STEPS or not names:
    sys.exit("mpc logged %d losses, its checkpoint shares %d tensors" % (len(mine), len(names)))
first_loss = abs(losses_of(log)[0] - torch_one[0]) / torch_one[0]
first_update = param_distance(one, torch_one_state, names)
# (an element whose gradient is round-off flips the sign of its Adam update:
# both fp32 runs against fp64's)
first_update64 = param_distance(one, torch_one64, names)
torch_first64 = param_distance({k: torch_one_state[k] for k in names}, torch_one64, names)
mpc64 = max(abs(a - b) / b for a, b in zip(mine, torch64))
torch32_64 = max(abs(a - b) / b for a, b in zip(torch32, torch64))
print("GPT-2 tiny fp32: %d tensors; PyTorch's loss %.3f -> %.3f in %d steps"
      % (len(names), torch32[0], torch32[-1], STEPS))
print("first step: loss %.1e, update %.1e from PyTorch's; from fp64's: mpc %.1e, PyTorch fp32 "
      "%.1e" % (first_loss, first_update, first_update64, torch_first64))
mpc_params64 = param_distance(trained, state64, names)
torch_params64 = param_distance({k: state32[k] for k in names}, state64, names)
print("after %d steps, from PyTorch fp64: mpc's losses %.1e, parameters %.1e; PyTorch fp32's "
      "%.1e, %.1e" % (STEPS, mpc64, mpc_params64, torch32_64, torch_params64))


def within(mine, theirs):
    return "yes" if mine <= 3 * theirs else "NO (%.1fx)" % (mine / max(theirs, 1e-30))


print("mpc's distance from fp64 within 3x PyTorch fp32's: losses %s, parameters %s, first update "
      "%s" % (within(mpc64, torch32_64), within(mpc_params64, torch_params64),
              within(first_update64, torch_first64)))

# 2. Learning.
log, _ = train_mpc(learn_steps, 20, "learn", ["--eval", at("hx.npy") + "," + at("hy.npy")])
held_loss = [r["eval_loss"] for r in log if r.get("summary")][0]
# (the characters predicted: each window's following ones)
counts = np.bincount(following[:split].reshape(-1), minlength=96).astype(np.float64)
p = counts / counts.sum()
unigram = float(-(np.log(np.maximum(p, 1e-12))[following[held].reshape(-1)]).mean())
print("after %d steps: held-out loss %.3f, a unigram model's %.3f: %s"
      % (learn_steps, held_loss, unigram, "below" if held_loss < unigram else "NOT below"))
