#!/usr/bin/python3
"""mpc's training step against PyTorch's on the CPU, side by side.

Models (defined once in PyTorch, bench/gpu/torch_peer.py, and exported to
ONNX for mpc, with their optimizers; --source mlir compiles mpc's
hand-written examples of the same models instead): the digits MLP, the wide MLP
(784-1024-1024-10, batch 256), the Fashion-MNIST CNN and the transformer
block. Modes: mpc fp32, bf16 and fp16 (their training bundles, timed by
mpc-bench); PyTorch fp32 and bf16 autocast (forward, backward and optimizer
step). Everything runs on one thread (OMP/OpenBLAS/torch), on synthetic
batches (floats in [0, 1), integers in [0, 10)), and the runs alternate:
each round times every mode of every model once, in a rotating order, and
the table shows the median over rounds and the ratios

  mpc fp32 / torch fp32,  mpc bf16 / torch bf16,  mpc fp16 / mpc fp32

against the targets of the performance issue (fp32 <= 1.0x everywhere and
<= 0.8x on the MLPs, bf16 <= 0.8x, fp16 within 1.2x of fp32). Below it, the
median of each round's own ratios (its two sides ran under about the same
load, so it moves less with the load of this shared machine), then the
static measures of each model's fp16 step from `mpc report --json`:
launches, bytes moved against the same graph unfused, casts inserted, the
planned peak memory against fp32, and the roofline estimate on an H200.
Last, the compute floor: each model's GEMM multiply-adds at one core's peak
rate (mpc-cpu-peak, measured in every round under the same load), the share
of that peak mpc's whole step runs at, and the share its target would ask
the whole step to run at; over 100% no code can meet it on this core. The
same share of the GEMM kernel's ceiling (mpc-cpu-peak's register tile over
random operands in the L1 cache: what a GEMM's inner loop reaches at most on
real data) says how far a target is from what any GEMM can do here.

  bench/cpu_vs_pytorch.py [--mpc build/bin/mpc] [--models "mlp cnn"] [--rounds 5]
                          [--steps N] [--quick] [--json FILE]
--quick: one round of few steps (the test suite runs it so: timings ignored).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

# One thread for PyTorch too: torch.set_num_threads covers OpenMP (oneDNN),
# not the OpenBLAS that Debian's PyTorch runs its fp32 GEMMs on, which reads
# its thread count when it is loaded.
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
os.environ.update(ONE_THREAD)
# These machines set OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE (a safety
# setting for old OpenBLAS builds), which hold OpenBLAS (PyTorch's fp32
# GEMMs) to older kernels: unset for both sides (mpc-bench inherits this
# environment); the JSON records which kernels ran.
UNSET = [name for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if os.environ.pop(name, None)]
import torch  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench", "gpu"))
import torch_peer  # noqa: E402  (the PyTorch models)

MODELS = ["mlp", "wide_mlp", "cnn", "transformer_block"]
# Steps per timing, by model (a step of the wide MLP is slow). The CNN's 60
# make a timing of mpc's step about 0.1 s: with 20 (40 ms) a burst of load
# on this shared machine moved single rounds' fp16/fp32 ratio from 0.81 to
# 1.41 (bench/results/2026-12-03-cpu-vs-pytorch-10.md).
STEPS = {"mlp": 300, "wide_mlp": 20, "cnn": 60, "transformer_block": 100}
MPC_MODES = ["fp32", "bf16", "fp16"]
TORCH_MODES = ["fp32", "bf16"]


class CnnPeer(torch.nn.Module):
    """examples/cnn.mlir: conv 1->8 3x3 pad 1 (no bias), batch norm, ReLU,
    max-pool 2; conv 8->16 likewise; global average pooling; linear 16->10;
    the softmax it outputs too."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(1, 8, 3, padding=1, bias=False)
        self.b1 = torch.nn.BatchNorm2d(8)
        self.c2 = torch.nn.Conv2d(8, 16, 3, padding=1, bias=False)
        self.b2 = torch.nn.BatchNorm2d(16)
        self.fc = torch.nn.Linear(16, 10)

    def outputs(self, x):
        x = torch.nn.functional.max_pool2d(torch.relu(self.b1(self.c1(x))), 2)
        x = torch.nn.functional.max_pool2d(torch.relu(self.b2(self.c2(x))), 2)
        logits = self.fc(x.mean((2, 3)))
        return logits, logits.softmax(-1)

    def forward(self, x, labels):
        logits, self.probs = self.outputs(x)
        return torch.nn.functional.cross_entropy(logits, labels)


def torch_model(name):
    """The PyTorch model, optimizer and batches of `name`."""
    if name == "cnn":
        generator = torch.Generator().manual_seed(1)
        model = CnnPeer()
        batches = [(torch.rand(32, 1, 28, 28, generator=generator),
                    torch.randint(0, 10, (32,), generator=generator)) for _ in range(8)]
        return model, lambda p: torch.optim.Adam(p, lr=1e-3), batches
    return torch_peer.make(name)


# The optimizers of torch_model's models, as mpc takes them for an .onnx
# model (the same as examples/*.mlir's).
OPTIMIZER_OPTIONS = {
    "mlp": ["--optimizer", "sgd", "--lr", "0.1", "--optimizer-arg", "momentum=0.9"],
    "wide_mlp": ["--optimizer", "sgd", "--lr", "0.05", "--optimizer-arg", "momentum=0.9"],
    "fashion_mlp": ["--optimizer", "adam", "--lr", "1e-3"],
    "cnn": ["--optimizer", "adam", "--lr", "1e-3"],
    "transformer_block": ["--optimizer", "adamw", "--lr", "1e-3", "--optimizer-arg",
                          "weight_decay=0.01"],
}


class Outputs(torch.nn.Module):
    """A peer model's outputs (its loss aside), for torch.onnx.export."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model.outputs(x)


def export_model(name, folder):
    """The PyTorch model of `name` exported to ONNX (training mode, static
    shapes), and the options that make mpc train it as PyTorch does: the
    model mpc compiles is the one PyTorch runs."""
    torch.manual_seed(0)
    model, _, batches = torch_model(name)
    path = os.path.join(folder, name + ".onnx")
    outputs = ["logits", "probs"] if name == "cnn" else ["logits"]
    torch.onnx.export(Outputs(model), (batches[0][0],), path, opset_version=17,
                      input_names=["input"], output_names=outputs,
                      training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)
    return path, ["--loss", "softmax_cross_entropy:logits"] + OPTIMIZER_OPTIONS[name]


def time_torch(name, mode, steps, warmup):
    torch.manual_seed(0)
    model, make_optimizer, batches = torch_model(name)
    optimizer = make_optimizer(model.parameters())

    def step(i):
        x, y = batches[i % len(batches)]
        optimizer.zero_grad(set_to_none=True)
        if mode == "bf16":
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = model(x, y)
        else:
            loss = model(x, y)
        loss.backward()
        optimizer.step()
        return loss

    for i in range(warmup):
        step(i)
    import time
    start = time.perf_counter()
    for i in range(steps):
        step(i)
    return (time.perf_counter() - start) * 1e3 / steps


def time_mpc(bench, bundle, steps, warmup):
    env = dict(os.environ, **ONE_THREAD)
    result = subprocess.run([bench, bundle, "--steps", str(steps), "--warmup", str(warmup),
                             "--repeats", "1"], capture_output=True, text=True, env=env)
    if result.returncode != 0:
        sys.exit("mpc-bench failed on %s:\n%s" % (bundle, result.stderr))
    return json.loads(result.stdout)["ms_per_step"]


def mpc_report(mpc, source, precision):
    """`mpc report --json` of the training step in `precision`; `source`:
    the source file and its import options."""
    out = subprocess.run([mpc, "report", source[0], "--step", "train", "--precision", precision,
                          "--json"] + source[1], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)[0]


def static_measures(mixed, fp32):
    """From the reports of the fp16 (`mixed`) and fp32 training steps."""
    moved = mixed["read_bytes_per_step"] + mixed["written_bytes_per_step"]
    return {
        "launches_per_step": mixed["launches_per_step"],
        "bytes_moved": moved,
        "unfused_bytes": mixed["unfused_bytes_per_step"],
        "casts_inserted": mixed["precision"]["casts_inserted"],
        "peak_bytes_fp16": mixed["transient_at_peak"]["live_bytes"] + mixed["persistent_bytes"],
        "peak_bytes_fp32": fp32["transient_at_peak"]["live_bytes"] + fp32["persistent_bytes"],
        "h200_roofline_us": mixed["roofline"]["step_us"],
    }


def gemm_gflop(fp32):
    """The multiply-adds of the GEMMs of the fp32 training step, in GFLOP (2
    per multiply-add): from the GEMM steps of its report, whose names are
    "MxNxK" or "MxNxK batch B". The same GEMMs run in every mode."""
    flops = 0
    for step in fp32["steps"]:
        if step["kind"] != "gemm":
            continue
        words = step["name"].split()
        m, n, k = (int(v) for v in words[0].split("x"))
        batch = int(words[2]) if len(words) == 3 and words[1] == "batch" else 1
        flops += 2 * m * n * k * batch
    return flops / 1e9


def measure_peak(peak_tool):
    """One core's peak (mpc-cpu-peak, under a second): GFLOP/s of fp32 FMAs and
    bf16 dot products (None where this CPU has none); None without the tool."""
    if not peak_tool:
        return None
    result = subprocess.run([peak_tool, "--milliseconds", "60"], capture_output=True,
                            text=True, env=dict(os.environ, **ONE_THREAD))
    if result.returncode != 0:
        return None
    rates = json.loads(result.stdout)
    return {"fp32": rates["fp32_fma_gflops"], "bf16": rates["bf16_dot_gflops"],
            "fp32_kernel": rates["fp32_gemm_kernel_gflops"],
            "bf16_kernel": rates["bf16_gemm_kernel_gflops"]}


def compute_floor(gflop, peak, kernel, mpc_ms, target_ms):
    """The GEMMs' multiply-adds at one core's peak rate: the time no step of
    the model can go below on this core, the share of that peak mpc's whole
    step runs at (floor / step), and the share its target asks the whole step
    to run at (floor / (target ratio x PyTorch's step)); above 1, no code on
    this core can meet the target. The same two shares of the GEMM kernel's
    ceiling (`kernel` GFLOP/s): above 1, no GEMM built of such a kernel can."""
    if not peak:
        return None
    floor_ms = gflop / peak * 1e3
    floor = {"floor_ms": floor_ms, "mpc_share_of_peak": floor_ms / mpc_ms,
             "target_share_of_peak": floor_ms / target_ms}
    if kernel:
        kernel_ms = gflop / kernel * 1e3
        floor.update({"kernel_floor_ms": kernel_ms, "mpc_share_of_kernel": kernel_ms / mpc_ms,
                      "target_share_of_kernel": kernel_ms / target_ms})
    return floor


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mpc", default=os.path.join(ROOT, "build", "bin", "mpc"))
    parser.add_argument("--mpc-bench", default=None)
    parser.add_argument("--models", default=" ".join(MODELS))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=0, help="steps per timing (default: by model)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--source", choices=["onnx", "mlir"], default="onnx",
                        help="what mpc compiles: the PyTorch models exported to ONNX (the same "
                        "models on both sides), or the hand-written examples/*.mlir")
    parser.add_argument("--json")
    args = parser.parse_args()
    bench = args.mpc_bench or os.path.join(os.path.dirname(args.mpc), "mpc-bench")
    peak_tool = os.path.join(os.path.dirname(bench), "mpc-cpu-peak")
    peak_tool = peak_tool if os.path.exists(peak_tool) else None
    models = args.models.split()
    rounds = 1 if args.quick else args.rounds
    torch.set_num_threads(1)

    work = tempfile.mkdtemp(prefix="mpc-cpu-bench-")
    bundles, sources = {}, {}
    for model in models:
        sources[model] = (export_model(model, work) if args.source == "onnx" else
                          (os.path.join(ROOT, "examples", model + ".mlir"), []))
        for mode in MPC_MODES:
            bundle = os.path.join(work, "%s-%s.mpcb" % (model, mode))
            subprocess.run([args.mpc, "compile", sources[model][0], "--step", "train",
                            "--precision", mode, "-o", bundle] + sources[model][1],
                           check=True, stdout=subprocess.DEVNULL)
            bundles[model, mode] = bundle

    times, peaks = {}, []
    runs = [(m, "mpc", p) for m in models for p in MPC_MODES] + \
           [(m, "torch", p) for m in models for p in TORCH_MODES]
    for r in range(rounds):
        shift = r % len(runs)
        # The core's peak in each round, so the floor below is measured under
        # the same load as the steps.
        peak = measure_peak(peak_tool)
        if peak:
            peaks.append(peak)
        for model, who, mode in runs[shift:] + runs[:shift]:
            steps = 3 if args.quick else (args.steps or STEPS.get(model, 50))
            warmup = 1 if args.quick else max(2, steps // 10)
            if who == "mpc":
                ms = time_mpc(bench, bundles[model, mode], steps, warmup)
            else:
                ms = time_torch(model, mode, steps, warmup)
            times.setdefault((model, who, mode), []).append(ms)
        print("round %d/%d done" % (r + 1, rounds), file=sys.stderr)

    def median(model, who, mode):
        return statistics.median(times[model, who, mode])

    def median_peak(kind):
        rates = [p[kind] for p in peaks if p[kind]]
        return statistics.median(rates) if rates else None
    peak = {kind: median_peak(kind) for kind in ("fp32", "bf16", "fp32_kernel", "bf16_kernel")}

    rows, results = [], {}
    for model in models:
        m32, m16, mb = (median(model, "mpc", p) for p in ("fp32", "fp16", "bf16"))
        t32, tb = median(model, "torch", "fp32"), median(model, "torch", "bf16")
        fp32_target = 0.8 if "mlp" in model else 1.0
        entry = {"mpc_fp32_ms": m32, "mpc_bf16_ms": mb, "mpc_fp16_ms": m16,
                 "torch_fp32_ms": t32, "torch_bf16_ms": tb,
                 "fp32_ratio": m32 / t32, "bf16_ratio": mb / tb, "fp16_vs_fp32": m16 / m32}
        entry["targets"] = {
            "fp32 <= %.1fx torch" % fp32_target: entry["fp32_ratio"] <= fp32_target,
            "bf16 <= 0.8x torch bf16": entry["bf16_ratio"] <= 0.8,
            "fp16 <= 1.2x mpc fp32": entry["fp16_vs_fp32"] <= 1.2}
        # Every round's time, in the rounds' order, to see the spread.
        entry["rounds_ms"] = {"%s %s" % (who, mode): times[model, who, mode]
                              for who, modes in (("mpc", MPC_MODES), ("torch", TORCH_MODES))
                              for mode in modes}
        # Each round's own ratios: the two sides of a ratio ran minutes
        # apart at most, under about the same load, so their median moves
        # less with the load than the ratio of the medians (the targets'
        # verdicts stay on the latter).
        pairs = {"fp32_ratio": (("mpc", "fp32"), ("torch", "fp32")),
                 "bf16_ratio": (("mpc", "bf16"), ("torch", "bf16")),
                 "fp16_vs_fp32": (("mpc", "fp16"), ("mpc", "fp32"))}
        entry["round_ratios"] = {
            name: [a / b for a, b in zip(times[(model,) + top], times[(model,) + bottom])]
            for name, (top, bottom) in pairs.items()}
        entry["median_round_ratio"] = {name: statistics.median(values)
                                       for name, values in entry["round_ratios"].items()}
        fp32_report = mpc_report(args.mpc, sources[model], "fp32")
        entry["static"] = static_measures(mpc_report(args.mpc, sources[model], "fp16"),
                                          fp32_report)
        gflop = gemm_gflop(fp32_report)
        entry["floor"] = {"gemm_gflop": gflop,
                          "fp32": compute_floor(gflop, peak["fp32"], peak["fp32_kernel"], m32,
                                                fp32_target * t32),
                          "bf16": compute_floor(gflop, peak["bf16"], peak["bf16_kernel"], mb,
                                                0.8 * tb)}
        results[model] = entry
        mark = lambda ok: "yes" if ok else "NO"
        targets = list(entry["targets"].values())
        rows.append("| %s | %.3f | %.3f | %.2f (%s) | %.3f | %.3f | %.2f (%s) | %.3f | %.2f (%s) |" % (
            model, m32, t32, entry["fp32_ratio"], mark(targets[0]), mb, tb, entry["bf16_ratio"],
            mark(targets[1]), m16, entry["fp16_vs_fp32"], mark(targets[2])))

    print("Training step on the CPU, one thread each, ms (median of %d rounds)\n" % rounds)
    print("| model | mpc fp32 | torch fp32 | ratio (target) | mpc bf16 | torch bf16 | ratio | "
          "mpc fp16 | fp16 / fp32 |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print("\nThe median of each round's own ratios (the two sides of a round ran under "
          "about the same load):\n")
    print("| model | fp32 / torch fp32 | bf16 / torch bf16 | fp16 / fp32 |")
    print("|---|---|---|---|")
    for model, entry in results.items():
        r = entry["median_round_ratio"]
        print("| %s | %.2f | %.2f | %.2f |" % (model, r["fp32_ratio"], r["bf16_ratio"],
                                               r["fp16_vs_fp32"]))
    print("\nStatic measures of the fp16 training step (mpc report --json):\n")
    print("| model | launches | bytes moved | unfused | casts inserted | peak fp16 | peak fp32 "
          "| H200 roofline us |")
    print("|---|---|---|---|---|---|---|---|")
    for model, entry in results.items():
        s = entry["static"]
        print("| %s | %d | %d | %d (%.2fx) | %d | %d | %d (%.2fx) | %.2f |" % (
            model, s["launches_per_step"], s["bytes_moved"], s["unfused_bytes"],
            s["bytes_moved"] / max(s["unfused_bytes"], 1), s["casts_inserted"],
            s["peak_bytes_fp16"], s["peak_bytes_fp32"],
            s["peak_bytes_fp16"] / max(s["peak_bytes_fp32"], 1), s["h200_roofline_us"]))
    if peak["fp32"]:
        rate = lambda kind: "%.1f" % peak[kind] if peak[kind] else "no"
        print("\nCompute floor: the GEMMs' multiply-adds at one core's peak (mpc-cpu-peak, "
              "median of the rounds: %.1f GFLOP/s fp32 FMA, %s bf16 dot); the share of that "
              "peak mpc's whole step runs at, and the share its target asks for (over 100%%: "
              "out of reach on this core); in brackets the same shares of the GEMM kernel's "
              "ceiling (%s fp32, %s bf16: a register tile over random operands in the L1 "
              "cache):\n" % (peak["fp32"], rate("bf16"), rate("fp32_kernel"),
                             rate("bf16_kernel")))
        print("| model | GEMM GFLOP | fp32 floor ms | mpc fp32 at | fp32 target needs "
              "| bf16 floor ms | mpc bf16 at | bf16 target needs |")
        print("|---|---|---|---|---|---|---|---|")

        def share(f, which):
            text = "%.0f%%" % (100 * f["%s_share_of_peak" % which])
            kernel = f.get("%s_share_of_kernel" % which)
            return text + (" (%.0f%%)" % (100 * kernel) if kernel else "")
        for model, entry in results.items():
            cells = []
            for mode in ("fp32", "bf16"):
                f = entry["floor"][mode]
                cells += (["%.3f" % f["floor_ms"], share(f, "mpc"), share(f, "target")]
                          if f else ["-"] * 3)
            print("| %s | %.3f | %s |" % (model, entry["floor"]["gemm_gflop"], " | ".join(cells)))
    try:
        import threadpoolctl
        libraries = [{k: v for k, v in info.items() if k in ("internal_api", "version",
                                                              "architecture", "num_threads")}
                     for info in threadpoolctl.threadpool_info()]
    except ImportError:
        libraries = "threadpoolctl is not installed"
    print("\nunset for both sides: %s; BLAS/OpenMP libraries of PyTorch's process: %s"
          % (", ".join(UNSET) or "nothing (none was set)", libraries))
    met = all(all(e["targets"].values()) for e in results.values())
    print("\nall CPU targets met: %s" % ("yes" if met else "no"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rounds": rounds, "models": results, "targets_met": met,
                       "peak_gflops": peak, "peak_gflops_rounds": peaks,
                       "torch": torch.__version__, "source": args.source,
                       "unset": UNSET, "threadpool_info": libraries}, f, indent=1)


if __name__ == "__main__":
    main()
