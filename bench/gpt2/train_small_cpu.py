#!/usr/bin/python3
"""GPT-2 small trained by mpc on this machine's CPU: a short run at full
size, its first losses against PyTorch's from the same weights.

GPT-2 small as bench/gpt2/gpt2.py defines it (124,439,808 parameters,
context 1024, vocabulary 50257) exported to ONNX at batch B, trained by
`mpc train` with AdamW (linear warm-up, cosine decay) on windows of 1024
characters of the King James Bible (Debian's bible-kjv; mpc's character
ids 0-95, which GPT-2's vocabulary covers). PyTorch 1.13 trains the same
model from the same weights on the same batches for the first steps in
fp32, and the losses are compared. Prints a JSON summary; long: each step
is seconds of two cores' work.

  bench/gpt2/train_small_cpu.py --mpc build/bin/mpc [--onnx gpt2-small-b1.onnx]
      [--batch 1] [--steps 30] [--torch-steps 3] [--precision fp32] --out DIR
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gpt2 import CONFIGS, Gpt2, export  # noqa: E402

LR, WEIGHT_DECAY, SEED = 6e-4, 0.1, 0


def character_windows(text, context):
    """Windows of `context` character ids and their next characters."""
    text = text.replace("\t", " ").replace("\r", "")
    ids = np.array([0 if c == "\n" else ord(c) - 31 for c in text], np.int64)
    if ids.min() < 0 or ids.max() > 95:
        sys.exit("the text has characters outside mpc's ids")
    count = (len(ids) - 1) // context
    x = np.stack([ids[i * context:(i + 1) * context] for i in range(count)])
    y = np.stack([ids[i * context + 1:(i + 1) * context + 1] for i in range(count)])
    return x, y


def rate(t, steps, warmup):
    """mpc's schedule at step t (from 1): warm-up, then cosine to 0."""
    progress = min(max((t - warmup) / (steps - warmup), 0.0), 1.0)
    return LR * 0.5 * (1 + math.cos(math.pi * progress)) * min(1.0, t / warmup)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mpc", required=True)
    parser.add_argument("--onnx", help="an export of GPT-2 small at --batch by `gpt2.py export "
                        "--config small` with its default seed 0 (made here if absent)")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--torch-steps", type=int, default=3)
    parser.add_argument("--precision", default="fp32", choices=["fp32", "fp16", "bf16"])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    at = lambda name: os.path.join(args.out, name)  # noqa: E731
    config = CONFIGS["small"]

    text = subprocess.run(["bible", "-f", "gen1:1-rev22:21"], capture_output=True, text=True,
                          check=True).stdout
    x, y = character_windows(text, config.context)
    need = args.steps * args.batch
    if len(x) < need:
        sys.exit("the text has %d windows, fewer than %d" % (len(x), need))
    np.save(at("x.npy"), x[:need])
    np.save(at("y.npy"), y[:need])

    torch.manual_seed(SEED)
    model = Gpt2(config)
    onnx_path = args.onnx or at("gpt2-small.onnx")
    if not args.onnx:
        export(model, args.batch, onnx_path)
    # (the export's initializers are the weights of seed 0's model, which
    # PyTorch trains below: mpc starts from them)

    started = time.time()
    result = subprocess.run(
        [args.mpc, "train", onnx_path, "--batch", str(args.batch), "--constant", "*mask",
         "--loss", "softmax_cross_entropy", "--data", at("x.npy") + "," + at("y.npy"),
         "--optimizer", "adamw", "--lr", str(LR), "--optimizer-arg",
         "warmup_steps=%d" % args.warmup, "--optimizer-arg",
         "decay_steps=%d" % (args.steps - args.warmup), "--optimizer-arg",
         "weight_decay=%g" % WEIGHT_DECAY, "--precision", args.precision, "--steps",
         str(args.steps), "--no-shuffle", "--log", at("mpc.jsonl"), "--quiet"],
        capture_output=True, text=True)
    mpc_seconds = time.time() - started
    if result.returncode != 0:
        sys.exit("mpc train failed:\n" + result.stderr)
    log = [json.loads(line) for line in open(at("mpc.jsonl"))]
    mpc_losses = [entry["loss"] for entry in log if "step" in entry]

    torch_losses = []
    if args.torch_steps:
        optimizer = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
        xs, ys = torch.tensor(x[:need]), torch.tensor(y[:need])
        torch_started = time.time()
        for s in range(args.torch_steps):
            for group in optimizer.param_groups:
                group["lr"] = rate(s + 1, args.steps, args.warmup)
            optimizer.zero_grad()
            batch = slice(s * args.batch, (s + 1) * args.batch)
            loss = torch.nn.functional.cross_entropy(model(xs[batch]), ys[batch].reshape(-1))
            loss.backward()
            optimizer.step()
            torch_losses.append(loss.item())
        torch_seconds = (time.time() - torch_started) / args.torch_steps
    compared = min(len(torch_losses), len(mpc_losses))
    summary = {
        "model": "GPT-2 small (%d parameters)" % sum(p.numel() for p in model.parameters()),
        "batch": args.batch, "context": config.context, "precision": args.precision,
        "steps": args.steps, "mpc_seconds": round(mpc_seconds, 1),
        "mpc_losses": [round(v, 5) for v in mpc_losses],
        "torch_fp32_losses": [round(v, 5) for v in torch_losses],
        "torch_seconds_per_step": round(torch_seconds, 1) if torch_losses else None,
        "first_losses_relative_difference":
            [abs(a - b) / abs(b) for a, b in zip(mpc_losses[:compared], torch_losses)],
    }
    print(json.dumps(summary, indent=1))
    if compared == 0 and args.torch_steps:
        sys.exit("no loss compared")


if __name__ == "__main__":
    main()
