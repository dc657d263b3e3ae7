#!/usr/bin/python3
"""Where mpc's training step goes on the CPU, and what its GEMMs cost PyTorch.

For each model and mode, `mpc-bench --profile` times every step of the
compiled training step where it runs; the steps are summed by kind (GEMMs,
generated kernels, copies), the GEMMs' rate is given in GFLOP/s, and the same
GEMMs (shapes, transpositions and operand types read from the profile) are
timed alone in PyTorch 1.13 with torch.mm / torch.bmm: what the peer's step
cannot go below. fp16 GEMMs are timed in PyTorch in fp32, as this PyTorch
has no fp16 GEMM on the CPU. Everything runs on one thread; the rounds
alternate mpc and PyTorch, and the table shows medians.

  bench/cpu_step_breakdown.py [--mpc build/bin/mpc] [--models "mlp wide_mlp"]
                              [--modes "fp32 bf16 fp16"] [--rounds 5] [--quick] [--json FILE]
--quick: one round of few steps (the test suite runs it so: timings ignored).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
os.environ.update(ONE_THREAD)
import torch  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Steps per timing, by model (a step of the wide MLP or the CNN is slow).
STEPS = {"mlp": 2000, "wide_mlp": 20, "cnn": 20, "transformer_block": 200}
# "gemm 64x128x64 batch 4 f16*f16^T->f16 bias_relu"
GEMM = re.compile(r"gemm (\d+)x(\d+)x(\d+)(?: batch (\d+))? (\w+?)(\^T)?\*(\w+?)(\^T)?->(\w+)")
TORCH_DTYPE = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float32,
               "f64": torch.float64}


def profile_mpc(bench, bundle, steps, warmup):
    out = subprocess.run([bench, bundle, "--steps", str(steps), "--warmup", str(warmup),
                          "--repeats", "1", "--profile"], capture_output=True, text=True,
                         env=dict(os.environ, **ONE_THREAD))
    if out.returncode != 0:
        sys.exit("mpc-bench failed on %s:\n%s" % (bundle, out.stderr))
    return json.loads(out.stdout)


def parse_gemm(what):
    match = GEMM.match(what)
    if not match:
        sys.exit("cannot read the GEMM step '%s'" % what)
    m, n, k, batch, a, ta, b, tb, _ = match.groups()
    return {"m": int(m), "n": int(n), "k": int(k), "batch": int(batch or 1),
            "a": a, "transpose_a": bool(ta), "b": b, "transpose_b": bool(tb)}


def time_torch_gemms(gemms, repeats):
    """The summed medians of the GEMMs timed alone in PyTorch, ms."""
    total = 0.0
    for g in gemms:
        generator = torch.Generator().manual_seed(0)
        shape_a = (g["k"], g["m"]) if g["transpose_a"] else (g["m"], g["k"])
        shape_b = (g["n"], g["k"]) if g["transpose_b"] else (g["k"], g["n"])
        if g["batch"] > 1:
            shape_a, shape_b = (g["batch"],) + shape_a, (g["batch"],) + shape_b
        a = torch.rand(shape_a, generator=generator).to(TORCH_DTYPE[g["a"]])
        b = torch.rand(shape_b, generator=generator).to(TORCH_DTYPE[g["b"]])
        a = a.transpose(-1, -2) if g["transpose_a"] else a
        b = b.transpose(-1, -2) if g["transpose_b"] else b
        multiply = torch.bmm if g["batch"] > 1 else torch.mm
        for _ in range(2):
            multiply(a, b)
        samples = []
        for _ in range(repeats):
            start = time.perf_counter()
            multiply(a, b)
            samples.append(time.perf_counter() - start)
        total += statistics.median(samples) * 1e3
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mpc", default=os.path.join(ROOT, "build", "bin", "mpc"))
    parser.add_argument("--mpc-bench", default=None)
    parser.add_argument("--models", default="mlp wide_mlp")
    parser.add_argument("--modes", default="fp32 bf16 fp16")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args()
    bench = args.mpc_bench or os.path.join(os.path.dirname(args.mpc), "mpc-bench")
    models, modes = args.models.split(), args.modes.split()
    rounds = 1 if args.quick else args.rounds
    torch.set_num_threads(1)

    work = tempfile.mkdtemp(prefix="mpc-cpu-breakdown-")
    cases = [(model, mode) for model in models for mode in modes]
    bundles = {}
    for model, mode in cases:
        bundle = os.path.join(work, "%s-%s.mpcb" % (model, mode))
        subprocess.run([args.mpc, "compile", os.path.join(ROOT, "examples", model + ".mlir"),
                        "--step", "train", "--precision", mode, "-o", bundle], check=True)
        bundles[model, mode] = bundle

    samples = {case: [] for case in cases}
    for r in range(rounds):
        for model, mode in cases[r % len(cases):] + cases[:r % len(cases)]:
            steps = 3 if args.quick else STEPS.get(model, 50)
            profile = profile_mpc(bench, bundles[model, mode], steps, 1 if args.quick else 2)
            kinds = {"gemm": 0.0, "kernel": 0.0, "copy": 0.0}
            gemms, flop = [], 0.0
            for entry in profile["profile"]:
                kind = entry["what"].split()[0]
                kinds[kind] += entry["us"] / 1e3
                if kind == "gemm":
                    g = parse_gemm(entry["what"])
                    gemms.append(g)
                    flop += 2.0 * g["m"] * g["n"] * g["k"] * g["batch"]
            torch_ms = time_torch_gemms(gemms, 3 if args.quick else 15)
            samples[model, mode].append({
                "step_ms": profile["ms_per_step"], "profiled_ms": profile["profile_us_per_step"] / 1e3,
                "gemm_ms": kinds["gemm"], "kernel_ms": kinds["kernel"], "copy_ms": kinds["copy"],
                "gemms": len(gemms), "gemm_gflop": flop / 1e9, "torch_gemm_ms": torch_ms})
        print("round %d/%d done" % (r + 1, rounds), file=sys.stderr)

    results = {}
    print("Training step on the CPU by kind of step, one thread, ms (median of %d rounds)\n" % rounds)
    print("| model | mode | step | GEMMs | GEMM GFLOP/s | kernels | copies | GEMM share "
          "| same GEMMs in PyTorch |")
    print("|---|---|---|---|---|---|---|---|---|")
    for model, mode in cases:
        entry = {key: statistics.median(s[key] for s in samples[model, mode])
                 for key in samples[model, mode][0]}
        entry["gemm_gflops"] = entry["gemm_gflop"] / (entry["gemm_ms"] / 1e3) if entry["gemm_ms"] else 0
        entry["gemm_share"] = entry["gemm_ms"] / entry["profiled_ms"] if entry["profiled_ms"] else 0
        entry["torch_gemm_dtype"] = "f32" if mode == "fp16" else mode
        results["%s/%s" % (model, mode)] = entry
        print("| %s | %s | %.3f | %.3f | %.1f | %.3f | %.3f | %.2f | %.3f%s |" % (
            model, mode, entry["step_ms"], entry["gemm_ms"], entry["gemm_gflops"],
            entry["kernel_ms"], entry["copy_ms"], entry["gemm_share"], entry["torch_gemm_ms"],
            " (fp32)" if mode == "fp16" else ""))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rounds": rounds, "cases": results, "torch": torch.__version__}, f,
                      indent=1)


if __name__ == "__main__":
    main()
