#!/usr/bin/python3
"""GPT-2 "mini"'s training step on the CPU, mpc against PyTorch, side by side.

The model of bench/gpt2/gpt2.py in its "mini" configuration (6 layers,
d_model 384, 6 heads, context 256, a 256-token vocabulary; batch 8 x 256
tokens), trained with AdamW: mpc's fp32 and bf16 training bundles (compiled
from the ONNX export, timed by mpc-bench on synthetic batches) against
PyTorch's fp32 and bf16 autocast steps (forward, backward, optimizer) on
batches of the same kind. Both sides use every core (OMP/OpenBLAS threads,
torch.set_num_threads), with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset
for both (the JSON records the BLAS kernels PyTorch ran, from
threadpoolctl). Rounds alternate the four modes in a rotating order; the
table shows each mode's median and the ratios against issue 41's targets:
mpc fp32 <= 1.0x PyTorch fp32, mpc bf16 <= 0.8x PyTorch bf16.

  bench/gpt2/cpu_vs_pytorch.py [--mpc build/bin/mpc] [--rounds 5] [--steps 5]
                               [--json FILE]
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

THREADS = str(os.cpu_count())
os.environ.update({"OMP_NUM_THREADS": THREADS, "OPENBLAS_NUM_THREADS": THREADS})
UNSET = [name for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if os.environ.pop(name, None)]
import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from gpt2 import CONFIGS, Gpt2, export  # noqa: E402

BATCH, LR = 8, 3e-4
IMPORT = ["--batch", str(BATCH), "--constant", "*mask", "--loss", "softmax_cross_entropy",
          "--optimizer", "adamw", "--lr", str(LR)]


def time_torch(model, optimizer, mode, steps, warmup, context, vocab):
    generator = torch.Generator().manual_seed(0)
    batches = [(torch.randint(0, 10, (BATCH, context), generator=generator),
                torch.randint(0, 10, (BATCH * context,), generator=generator)) for _ in range(4)]

    def step(i):
        x, y = batches[i % len(batches)]
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=mode == "bf16"):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()

    for i in range(warmup):
        step(i)
    start = time.perf_counter()
    for i in range(steps):
        step(i)
    return (time.perf_counter() - start) * 1e3 / steps


def time_mpc(bench, bundle, steps, warmup):
    result = subprocess.run([bench, bundle, "--steps", str(steps), "--warmup", str(warmup),
                             "--repeats", "1"], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("mpc-bench failed on %s:\n%s" % (bundle, result.stderr))
    return json.loads(result.stdout)["ms_per_step"]


def blas_kernels():
    try:
        import threadpoolctl
        return [{k: v for k, v in info.items() if k in ("internal_api", "version",
                                                         "architecture", "num_threads")}
                for info in threadpoolctl.threadpool_info()]
    except ImportError:
        return "threadpoolctl is not installed"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mpc", default=os.path.join(ROOT, "build", "bin", "mpc"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    bench = os.path.join(os.path.dirname(args.mpc), "mpc-bench")
    torch.set_num_threads(int(THREADS))
    config = CONFIGS["mini"]
    work = tempfile.mkdtemp(prefix="mpc-gpt2-cpu-")
    torch.manual_seed(0)
    model = Gpt2(config)
    onnx_path = os.path.join(work, "mini.onnx")
    export(model, BATCH, onnx_path)
    bundles = {}
    for mode in ("fp32", "bf16"):
        bundles[mode] = os.path.join(work, mode + ".mpcb")
        subprocess.run([args.mpc, "compile", onnx_path, "--step", "train", "--precision", mode,
                        "-o", bundles[mode]] + IMPORT, check=True, capture_output=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=LR)
    times = {key: [] for key in ("mpc fp32", "torch fp32", "mpc bf16", "torch bf16")}
    order = list(times)
    for round_ in range(args.rounds):
        for key in order[round_ % len(order):] + order[:round_ % len(order)]:
            who, mode = key.split()
            times[key].append(time_mpc(bench, bundles[mode], args.steps, 1) if who == "mpc" else
                              time_torch(model, optimizer, mode, args.steps, 1, config.context,
                                         config.vocab))
        print("round %d: %s" % (round_ + 1, ", ".join("%s %.0f ms" % (k, v[-1])
                                                       for k, v in times.items())), flush=True)
    median = {key: statistics.median(values) for key, values in times.items()}
    fp32 = median["mpc fp32"] / median["torch fp32"]
    bf16 = median["mpc bf16"] / median["torch bf16"]
    print("\nGPT-2 mini (%d x %d, context %d), batch %d, AdamW; %s threads; median of %d rounds "
          "of %d steps, ms per step" % (config.layers, config.width, config.context, BATCH,
                                        THREADS, args.rounds, args.steps))
    print("| mpc fp32 | torch fp32 | ratio (target 1.0) | mpc bf16 | torch bf16 | ratio "
          "(target 0.8) |")
    print("|---|---|---|---|---|---|")
    print("| %.0f | %.0f | %.2f (%s) | %.0f | %.0f | %.2f (%s) |" % (
        median["mpc fp32"], median["torch fp32"], fp32, "yes" if fp32 <= 1.0 else "NO",
        median["mpc bf16"], median["torch bf16"], bf16, "yes" if bf16 <= 0.8 else "NO"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"times_ms": times, "median_ms": median, "ratios": {"fp32": fp32,
                                                                          "bf16": bf16},
                       "threads": THREADS, "unset": UNSET, "blas": blas_kernels(),
                       "torch": torch.__version__, "machine": platform.processor() or
                       platform.machine()}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
