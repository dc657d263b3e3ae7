#!/usr/bin/python3
"""How long mpc takes to import and compile models exported from PyTorch:
torchvision's ResNet-18 (3x32x32 inputs, batch 16) and a GPT-style decoder
(the "mini" configuration: 6 pre-LN blocks, d_model 384, 6 heads, context
256, a byte vocabulary, learned positions, GELU, a tied head; batch 8).

Each model is exported once (torch.onnx.export, opset 17, training mode),
then: `mpc import` (the .onnx file to a readable graph), and `mpc compile
MODEL.onnx --step train` with --timings, twice, in a kernel cache of its own:
the first compile builds the host kernels with the C++ compiler, the second
finds them in the cache. Prints a table and writes it as JSON (--json).

  bench/onnx_import_time.py [--mpc build/bin/mpc] [--precision fp16] [--json FILE]
"""
import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIME = re.compile(r"^mpc: time: (.+?)\s+([0-9.]+) s$")

LAYERS, WIDTH, HEADS, CONTEXT, VOCAB = 6, 384, 6, 256, 256


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = torch.nn.LayerNorm(WIDTH), torch.nn.LayerNorm(WIDTH)
        self.qkv, self.proj = torch.nn.Linear(WIDTH, 3 * WIDTH), torch.nn.Linear(WIDTH, WIDTH)
        self.up, self.down = torch.nn.Linear(WIDTH, 4 * WIDTH), torch.nn.Linear(4 * WIDTH, WIDTH)
        self.register_buffer("mask", torch.triu(torch.full((CONTEXT, CONTEXT), -1e4), 1))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(WIDTH, dim=2)
        heads = lambda z: z.reshape(b, t, HEADS, c // HEADS).transpose(1, 2)  # noqa: E731
        q, k, v = heads(q), heads(k), heads(v)
        scores = q @ k.transpose(-2, -1) / float(np.sqrt(c // HEADS)) + self.mask
        y = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(b, t, c)
        x = x + self.proj(y)
        return x + self.down(torch.nn.functional.gelu(self.up(self.ln2(x))))


class Gpt(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.wte, self.wpe = torch.nn.Embedding(VOCAB, WIDTH), torch.nn.Embedding(CONTEXT, WIDTH)
        self.blocks = torch.nn.Sequential(*[Block() for _ in range(LAYERS)])
        self.ln = torch.nn.LayerNorm(WIDTH)

    def forward(self, tokens):
        x = self.wte(tokens) + self.wpe(torch.arange(CONTEXT))
        return (self.ln(self.blocks(x)) @ self.wte.weight.t()).reshape(-1, VOCAB)


def export(kind, path):
    torch.manual_seed(0)
    if kind == "resnet18":
        import torchvision
        model, example = torchvision.models.resnet18(num_classes=10), torch.zeros(16, 3, 32, 32)
        names, options = ["pixels"], ["--batch", "16"]
    else:
        model, example = Gpt(), torch.zeros(8, CONTEXT, dtype=torch.int64)
        names, options = ["tokens"], ["--batch", "8", "--constant", "*mask"]
    torch.onnx.export(model, example, path, opset_version=17, input_names=names,
                      output_names=["logits"], training=torch.onnx.TrainingMode.TRAINING,
                      do_constant_folding=False)
    return sum(p.numel() for p in model.parameters()), options


def timed(command, env=None):
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(command), result.stderr))
    times = {m.group(1): float(m.group(2))
             for m in map(TIME.match, result.stderr.splitlines()) if m}
    return seconds, times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mpc", default=os.path.join(ROOT, "build", "bin", "mpc"))
    parser.add_argument("--precision", default="fp16")
    parser.add_argument("--json")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="mpc-onnx-import-time-")
    rows = []
    for kind in ("resnet18", "gpt-mini"):
        model = os.path.join(work, kind + ".onnx")
        parameters, options = export(kind, model)
        loss = ["--loss", "softmax_cross_entropy"]
        imported, _ = timed([args.mpc, "import", model, "-o", os.path.join(work, kind + ".mlir")]
                            + options + loss)
        env = dict(os.environ, MPC_CACHE_DIR=os.path.join(work, "cache-" + kind))
        compile_command = [args.mpc, "compile", model, "--step", "train", "--precision",
                           args.precision, "-o", os.path.join(work, kind + ".mpcb"),
                           "--timings"] + options + loss
        cold, cold_times = timed(compile_command, env)
        warm, warm_times = timed(compile_command, env)
        rows.append({"model": kind, "parameters": parameters, "onnx_bytes": os.path.getsize(model),
                     "import_s": imported, "compile_cold_s": cold, "compile_warm_s": warm,
                     "read_and_import_s": cold_times.get("reading the graph"),
                     "passes_s": cold_times.get("passes (per pass below)"),
                     "host_kernels_cold_s": cold_times.get("host kernels (C++ compiler)"),
                     "host_kernels_cached_s": warm_times.get("host kernels (from the kernel cache)")})
    print("%-9s %11s %8s %9s %9s %10s %13s %13s" % (
        "model", "parameters", "import", "read+imp", "passes", "kernels", "compile cold",
        "compile warm"))
    for r in rows:
        print("%-9s %11d %7.2fs %8.2fs %8.3fs %9.2fs %12.2fs %12.2fs" % (
            r["model"], r["parameters"], r["import_s"], r["read_and_import_s"], r["passes_s"],
            r["host_kernels_cold_s"], r["compile_cold_s"], r["compile_warm_s"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"command": " ".join(sys.argv), "precision": args.precision,
                       "machine": platform.processor() or platform.machine(),
                       "cpus": os.cpu_count(), "torch": torch.__version__, "rows": rows}, f,
                      indent=1)


if __name__ == "__main__":
    main()
