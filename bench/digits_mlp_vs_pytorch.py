#!/usr/bin/python3
"""Trains the digits MLP (examples/mlp.mlir) in mpc and in PyTorch from the same
initial weights and the same batches, fp32 on the CPU, and prints the largest
loss difference over the run and the ratio of the median step times.

The batches are drawn here (one NumPy permutation of the 1500 training
examples per epoch) and written as .npy pairs in step order; mpc replays them
with `mpc train --no-shuffle`. The initial weights (Glorot uniform, drawn
here) reach mpc through `--init` as a safetensors checkpoint.

Both trainers run --rounds times, alternating, and the step-time ratio is the
median over rounds of (mpc median step / PyTorch median step): mpc's step time
is the one its --log records (binding a batch, running the step, reading the
loss), PyTorch's the time of forward, backward and optimizer.step().

With --clip-grad-norm X both clip the gradients to that global norm (mpc
train --clip-grad-norm, torch.nn.utils.clip_grad_norm_), and the norms each
step measured before clipping are compared too. With --accumulate N each
step takes N batches of 64: mpc train --accumulate N, and in PyTorch N
backward passes of loss / N before one (clipping and) optimizer step; the
loss compared is the mean of the step's N batches.

With --precision fp16 or bf16 mpc trains in that precision (fp16 with its
dynamic loss scaling from 65536) and PyTorch stays in fp32 (PyTorch 1.13
has no fp16 autocast on the CPU): the differences printed are then those
of mixed precision against fp32, which a test bounds by a tolerance.

Usage: bench/digits_mlp_vs_pytorch.py [--mpc build/bin/mpc] [--steps 300] [--rounds 3]
                                      [--clip-grad-norm X] [--accumulate N]
                                      [--precision fp32|fp16|bf16]
"""
import argparse
import gzip
import json
import math
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIGITS = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
BATCH, TRAIN = 64, 1500


def save_safetensors(path, tensors):
    header, blob, offset = {}, b"", 0
    for name in sorted(tensors):
        array = tensors[name]
        kind = {np.dtype(np.int64): ("I64", np.int64), np.dtype(np.bool_): ("BOOL", np.bool_)}.get(
            array.dtype, ("F32", np.float32))
        data = np.ascontiguousarray(array, kind[1]).tobytes()
        header[name] = {"dtype": kind[0], "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blob += data
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + blob)


def glorot(rng, fan_in, fan_out):
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-limit, limit, (fan_in, fan_out)).astype(np.float32)


def run_mpc(mpc, work, steps, clip, runs, precision):
    log = os.path.join(work, "mpc.jsonl")
    cmd = [mpc, "train", os.path.join(ROOT, "examples", "mlp.mlir"),
           "--data", os.path.join(work, "x.npy") + "," + os.path.join(work, "y.npy"),
           "--no-shuffle", "--steps", str(steps), "--init", os.path.join(work, "init.safetensors"),
           "--log", log, "--quiet"]
    if clip:
        cmd += ["--clip-grad-norm", repr(clip)]
    if runs > 1:
        cmd += ["--accumulate", str(runs)]
    cmd += ["--precision", precision]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("mpc train failed:\n" + result.stderr)
    rows = [json.loads(line) for line in open(log)]
    steps_rows = [r for r in rows if "loss" in r and not r.get("summary")]
    return ([r["loss"] for r in steps_rows], [r["ms"] for r in steps_rows],
            [r.get("grad_norm") for r in steps_rows])


def run_torch(init, x, y, steps, clip, runs):
    params = {k: torch.tensor(v) for k, v in init.items() if k.startswith("fc") and "." in k
              and not k.endswith("momentum_buffer") and not k.endswith("grad_accum")}
    for p in params.values():
        p.requires_grad_(True)
    opt = torch.optim.SGD(params.values(), lr=0.1, momentum=0.9)
    xs, ys = torch.tensor(x), torch.tensor(y.astype(np.int64))
    losses, ms, norms = [], [], []
    for s in range(steps):
        start = time.perf_counter()
        opt.zero_grad()
        value = 0.0
        for run in range(runs):
            b = s * runs + run
            xb, yb = xs[b * BATCH:(b + 1) * BATCH], ys[b * BATCH:(b + 1) * BATCH]
            h = torch.relu(xb @ params["fc1.weight"] + params["fc1.bias"])
            logits = h @ params["fc2.weight"] + params["fc2.bias"]
            loss = torch.nn.functional.cross_entropy(logits, yb)
            (loss / runs).backward()
            value += loss.item() / runs
        if clip:
            norms.append(float(torch.nn.utils.clip_grad_norm_(list(params.values()), clip)))
        opt.step()
        ms.append((time.perf_counter() - start) * 1e3)
        losses.append(value)
    return losses, ms, norms


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mpc", default=os.path.join(ROOT, "build", "bin", "mpc"))
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--clip-grad-norm", type=float, default=0.0)
    parser.add_argument("--accumulate", type=int, default=1,
                        help="batches per step (gradient accumulation)")
    parser.add_argument("--precision", choices=("fp32", "fp16", "bf16"), default="fp32",
                        help="mpc's precision (PyTorch trains in fp32)")
    args = parser.parse_args()
    if args.accumulate < 1:
        parser.error("--accumulate must be 1 or more")
    if not os.access(args.mpc, os.X_OK):
        sys.exit("error: no mpc at '%s' (build first, or pass --mpc)" % args.mpc)
    if not os.path.exists(DIGITS):
        sys.exit("error: the digits data '%s' is missing (tools/setup/install-deps.sh installs it)"
                 % DIGITS)

    data = np.loadtxt(gzip.open(DIGITS), delimiter=",")
    features = (data[:, :64] / np.abs(data[:, :64]).max()).astype(np.float32)
    labels = data[:, 64].astype(np.int32)
    rng = np.random.default_rng(args.seed)
    per_epoch = TRAIN // BATCH
    order, batches = [], args.steps * args.accumulate
    while len(order) < batches:
        perm = rng.permutation(TRAIN)
        order += [perm[b * BATCH:(b + 1) * BATCH] for b in range(per_epoch)]
    index = np.concatenate(order[:batches])
    x, y = features[index], labels[index]
    init = {"fc1.weight": glorot(rng, 64, 128), "fc1.bias": np.zeros(128, np.float32),
            "fc2.weight": glorot(rng, 128, 10), "fc2.bias": np.zeros(10, np.float32)}
    for name in list(init):
        init[name + ".momentum_buffer"] = np.zeros_like(init[name])
    init["optimizer.step"] = np.zeros((), np.int64)
    if args.accumulate > 1:  # (the accumulating program's state: a window's start)
        for name in ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"):
            init[name + ".grad_accum"] = np.zeros_like(init[name])
        init["grad_accum.micro"] = np.zeros((), np.int64)
        init["grad_accum.runs"] = np.array(args.accumulate, np.int64)
    if args.precision == "fp16":  # (the loss scaler's state at its start)
        init["loss_scale"] = np.array(65536.0, np.float32)
        init["loss_scale.good_steps"] = np.zeros((), np.int64)
        init["loss_scale.skipped_steps"] = np.zeros((), np.int64)
        if args.accumulate > 1:
            init["grad_accum.finite"] = np.array(True)

    torch.manual_seed(args.seed)
    print("digits MLP (64-128-10, SGD lr 0.1 momentum 0.9%s), mpc %s, PyTorch fp32, CPU, "
          "%d steps of %s%d, "
          "%d rounds; torch %s with %d threads"
          % (", gradients clipped to norm %g" % args.clip_grad_norm if args.clip_grad_norm else "",
             args.precision, args.steps, "%d x " % args.accumulate if args.accumulate > 1 else "", BATCH,
             args.rounds, torch.__version__, torch.get_num_threads()))
    ratios, diffs, norm_diffs, clipped = [], [], [], 0
    with tempfile.TemporaryDirectory(prefix="mpc-bench-") as work:
        np.save(os.path.join(work, "x.npy"), x)
        np.save(os.path.join(work, "y.npy"), y)
        save_safetensors(os.path.join(work, "init.safetensors"), init)
        for r in range(args.rounds):
            mpc_loss, mpc_ms, mpc_norms = run_mpc(args.mpc, work, args.steps,
                                                  args.clip_grad_norm, args.accumulate,
                                                  args.precision)
            torch_loss, torch_ms, torch_norms = run_torch(init, x, y, args.steps,
                                                          args.clip_grad_norm, args.accumulate)
            if args.clip_grad_norm:
                if None in mpc_norms or len(mpc_norms) != len(torch_norms):
                    sys.exit("digits_mlp_vs_pytorch: mpc's log has no grad_norm for every step")
                norm_diffs.append(max(abs(a - b) / b for a, b in zip(mpc_norms, torch_norms)))
                clipped = sum(n > args.clip_grad_norm for n in torch_norms)
            if not (len(mpc_loss) == len(torch_loss) == args.steps):
                sys.exit("digits_mlp_vs_pytorch: %d mpc and %d PyTorch losses for %d steps"
                         % (len(mpc_loss), len(torch_loss), args.steps))
            if not all(math.isfinite(v) for v in mpc_loss + torch_loss):
                sys.exit("digits_mlp_vs_pytorch: a loss is not finite")
            diff = max(abs(a - b) for a, b in zip(mpc_loss, torch_loss))
            diffs.append(diff)
            ratio = statistics.median(mpc_ms) / statistics.median(torch_ms)
            ratios.append(ratio)
            print("round %d: median step mpc %.3f ms, PyTorch %.3f ms (ratio %.2f); first loss "
                  "%.6f / %.6f, last %.6f / %.6f; largest loss difference %.2e" %
                  (r + 1, statistics.median(mpc_ms), statistics.median(torch_ms), ratio,
                   mpc_loss[0], torch_loss[0], mpc_loss[-1], torch_loss[-1], diff))
    print("largest loss difference over the run: %.2e" % max(diffs))
    if args.clip_grad_norm:
        print("gradient norm: largest relative difference %.2e; %d of %d steps clipped"
              % (max(norm_diffs), clipped, args.steps))
    print("step-time ratio mpc / PyTorch (median over rounds): %.2f" % statistics.median(ratios))


if __name__ == "__main__":
    main()
