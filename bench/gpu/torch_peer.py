#!/usr/bin/env python3
"""PyTorch's side of the GPU benchmarks: mpc's example models written in
PyTorch, trained one step per batch in fp16 mixed precision the way PyTorch
users do it, timed, with their peak device memory.

Modes (each model, same batch sizes and optimizers as examples/*.mlir):
  eager    torch.autocast(float16) + torch.cuda.amp.GradScaler (PyTorch AMP)
  compile  the same step with the model under torch.compile (default mode)
  graphs   the model under torch.compile(mode="reduce-overhead"): its forward
           and backward replayed as CUDA graphs (the optimizer and the
           scaler stay eager, as torch.compile leaves them)
Inputs are synthetic like mpc-bench's (floats in [0, 1), integers in [0, 10)),
eight batches cycled. Time per step: the median of --repeats runs of --steps
steps, each ended by torch.cuda.synchronize(). Peak memory:
torch.cuda.max_memory_allocated() over a run, from a reset.

  torch_peer.py --models "mlp wide_mlp" [--steps N] [--repeats R]
                [--modes eager,compile,graphs] [--device cuda] [--json FILE]
--device cpu runs the same code on the CPU (without AMP) to check the script.
"""

import argparse
import json
import math
import os
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Mlp(nn.Module):
    """examples/mlp.mlir, fashion_mlp.mlir and wide_mlp.mlir: Linear + ReLU layers."""

    def __init__(self, sizes):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes, sizes[1:]))

    def outputs(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i + 1 < len(self.layers):
                x = F.relu(x)
        return x

    def forward(self, x, labels):
        return F.cross_entropy(self.outputs(x), labels)


class TransformerBlock(nn.Module):
    """examples/transformer_block.mlir: token and position embeddings, one
    pre-norm block (4-head attention, exact-GELU MLP), final norm, head."""

    def __init__(self, vocab=32, seq=16, width=64, heads=4, hidden=256):
        super().__init__()
        self.heads = heads
        self.tok = nn.Embedding(vocab, width)
        self.pos = nn.Parameter(torch.randn(seq, width) * 0.02)
        self.ln1 = nn.LayerNorm(width)
        self.q = nn.Linear(width, width)
        self.k = nn.Linear(width, width)
        self.v = nn.Linear(width, width)
        self.out = nn.Linear(width, width)
        self.ln2 = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, hidden)
        self.fc2 = nn.Linear(hidden, width)
        self.ln_f = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab)

    def outputs(self, tokens):
        b, s = tokens.shape
        x = self.tok(tokens) + self.pos
        h = self.ln1(x)

        def split(t):
            return t.view(b, s, self.heads, -1).transpose(1, 2)

        q, k, v = split(self.q(h)), split(self.k(h)), split(self.v(h))
        scores = q @ k.transpose(-1, -2) * (1.0 / math.sqrt(q.shape[-1]))
        ctx = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, s, -1)
        x = x + self.out(ctx)
        x = x + self.fc2(F.gelu(self.fc1(self.ln2(x))))
        return self.head(self.ln_f(x)).reshape(b * s, -1)

    def forward(self, tokens, targets):
        return F.cross_entropy(self.outputs(tokens), targets.reshape(-1))


def make(name):
    """The model, its optimizer, and a function giving batch i."""
    if name == "mlp":
        model, batch, features = Mlp([64, 128, 10]), 64, 64
    elif name == "fashion_mlp":
        model, batch, features = Mlp([784, 256, 10]), 128, 784
    elif name == "wide_mlp":
        model, batch, features = Mlp([784, 1024, 1024, 10]), 256, 784
    elif name == "transformer_block":
        model = TransformerBlock()
    else:
        raise SystemExit(f"torch_peer.py: unknown model '{name}'")
    if name == "mlp":
        optimizer = lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9)
    elif name == "wide_mlp":
        optimizer = lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9)
    elif name == "fashion_mlp":
        optimizer = lambda p: torch.optim.Adam(p, lr=1e-3)
    else:
        optimizer = lambda p: torch.optim.AdamW(p, lr=1e-3, weight_decay=0.01)
    generator = torch.Generator().manual_seed(1)
    if name == "transformer_block":
        batches = [(torch.randint(0, 10, (8, 16), generator=generator),
                    torch.randint(0, 10, (8, 16), generator=generator)) for _ in range(8)]
    else:
        batches = [(torch.rand(batch, features, generator=generator),
                    torch.randint(0, 10, (batch,), generator=generator)) for _ in range(8)]
    return model, optimizer, batches


def grad_scaler(enabled):
    """PyTorch's loss scaler: torch.amp's (2.3 and later), else torch.cuda.amp's."""
    if hasattr(torch, "amp") and hasattr(torch.amp, "GradScaler"):
        return torch.amp.GradScaler("cuda", enabled=enabled)
    return torch.cuda.amp.GradScaler(enabled=enabled)


# torch.compile's modes by the peers' names for them ("graphs": its CUDA
# graphs, reduce-overhead).
COMPILE_MODES = {"compile": "default", "graphs": "reduce-overhead",
                 "max-autotune": "max-autotune"}


def compiled(model, mode, allowed):
    """`model` for `mode`, one of `allowed`: itself for "eager", else under
    torch.compile in the mode COMPILE_MODES names."""
    if mode not in allowed:
        raise SystemExit("%s: unknown mode '%s' (%s)" % (os.path.basename(sys.argv[0]), mode,
                                                          ", ".join(allowed)))
    return model if mode == "eager" else torch.compile(model, mode=COMPILE_MODES[mode])


def write_json(path, data):
    """`data` as JSON text, written to `path` (when given) through a
    temporary file, so that a run killed meanwhile leaves the last whole
    file."""
    text = json.dumps(data, indent=1)
    if path:
        with open(path + ".tmp", "w") as out:
            out.write(text + "\n")
        os.replace(path + ".tmp", path)
    return text


def time_steps(step, device, warmup, steps, repeats):
    """Runs step(i) `warmup` times, then `repeats` runs of `steps` steps, each
    ended by one synchronisation, the peak memory reset after the warm-up.
    Returns the first step's loss, the last one's, each run's ms per step and
    the warm-up's seconds."""
    def sync():
        if device == "cuda":
            torch.cuda.synchronize()

    started = time.perf_counter()
    first = float(step(0)) if warmup > 0 else None
    for i in range(1, warmup):
        step(i)
    sync()
    warm_seconds = time.perf_counter() - started
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()
    times, loss = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        for i in range(steps):
            loss = step(i)
        sync()
        times.append((time.perf_counter() - start) * 1e3 / steps)
    return first, loss, times, warm_seconds


def measure(name, mode, device, steps, repeats, warmup):
    torch.manual_seed(0)
    model, make_optimizer, batches = make(name)
    model = model.to(device)
    optimizer = make_optimizer(model.parameters())
    batches = [tuple(t.to(device) for t in b) for b in batches]
    amp = device == "cuda"
    scaler = grad_scaler(amp)
    forward = compiled(model, mode, ("eager", "compile", "graphs"))

    def step(i):
        x, y = batches[i % len(batches)]
        optimizer.zero_grad(set_to_none=True)
        if amp:
            with torch.autocast(device_type="cuda", dtype=torch.float16):
                loss = forward(x, y)
        else:
            loss = forward(x, y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        return loss

    _, loss, times, warm_seconds = time_steps(step, device, warmup, steps, repeats)
    result = {"model": name, "mode": mode, "device": device, "steps": steps,
              "repeats": repeats, "ms_per_step": statistics.median(times),
              "ms_per_step_all": times, "last_loss": float(loss),
              "warmup_seconds": warm_seconds}
    if device == "cuda":
        result["peak_bytes"] = torch.cuda.max_memory_allocated()
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="mlp fashion_mlp wide_mlp transformer_block")
    parser.add_argument("--modes", default="eager,compile")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--json")
    args = parser.parse_args()
    def write(results):
        """The results so far (after every measurement: a run cut short by
        run.sh's deadline keeps what it measured)."""
        return write_json(args.json, results)

    if args.device == "cuda" and not torch.cuda.is_available():
        print("torch_peer.py: skipped: PyTorch sees no CUDA GPU", file=sys.stderr)
        results = {"skipped": True, "reason": "PyTorch sees no CUDA GPU", "results": []}
    else:
        torch.backends.cuda.matmul.allow_tf32 = False  # fp32 parts in fp32, as mpc
        results = {"skipped": False, "torch": torch.__version__,
                   "gpu": torch.cuda.get_device_name() if args.device == "cuda" else "cpu",
                   "results": []}
        write(results)
        for name in args.models.split():
            for mode in args.modes.split(","):
                try:
                    result = measure(name, mode, args.device, args.steps, args.repeats,
                                     args.warmup)
                except Exception as error:  # a mode this PyTorch cannot run is reported
                    result = {"model": name, "mode": mode, "error": repr(error)}
                print(json.dumps(result), file=sys.stderr)
                results["results"].append(result)
                write(results)
    text = write(results)
    if not args.json:
        print(text)


if __name__ == "__main__":
    main()
