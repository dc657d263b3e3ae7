#!/usr/bin/python3
"""The paper's comparison on real data, with mpc alone: each model trained in
fp32, in fp16 with dynamic loss scaling and fp32 master weights (the paper's
recipe), in fp16 without loss scaling, and in bf16, from the same seed and
the same batches; printed side by side with the evaluation after training,
the steps the loss scaler skipped, and, from the fp32 run's gradient
telemetry (--grad-stats), the share of non-zero gradient values that fp16
would flush to zero without loss scaling (the paper's Figure 3).

Models: the Fashion-MNIST MLP (examples/fashion_mlp.mlir, evaluated on the
10000 t10k images) and the character LSTM on Genesis (examples/char_lstm.mlir,
the last 28397 characters held out).

Usage: bench/mixed_precision_training.py [--mpc build/bin/mpc] [--quick] [--json FILE]
--quick runs few steps (to test the harness; the numbers mean nothing then).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FASHION = "/usr/share/datasets/fashion-mnist/"
MODES = [("fp32", ["--precision", "fp32"]),
         ("fp16 + loss scaling", ["--precision", "fp16", "--loss-scale", "dynamic"]),
         ("fp16, no scaling", ["--precision", "fp16", "--loss-scale", "none"]),
         ("bf16", ["--precision", "bf16"])]


def models(work, quick):
    genesis = os.path.join(work, "genesis.txt")
    with open(genesis, "w") as out:
        subprocess.run(["bible", "-f", "gen1:1-gen50:26"], stdout=out, check=True)
    return [
        ("fashion_mlp", os.path.join(ROOT, "examples", "fashion_mlp.mlir"),
         [FASHION + "train-images-idx3-ubyte.gz," + FASHION + "train-labels-idx1-ubyte.gz",
          "--eval",
          FASHION + "t10k-images-idx3-ubyte.gz," + FASHION + "t10k-labels-idx1-ubyte.gz"
          + ("@0:1000" if quick else "")],
         20 if quick else 1000),
        ("char_lstm", os.path.join(ROOT, "examples", "char_lstm.mlir"),
         [genesis + "@0:180000", "--eval", genesis + "@180000:"],
         20 if quick else 600),
    ]


def train(mpc, graph, data, steps, mode_args, log, grad_stats):
    command = [mpc, "train", graph, "--data"] + data + [
        "--steps", str(steps), "--seed", "1", "--log", log, "--quiet"] + mode_args
    if grad_stats:
        command.append("--grad-stats")
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode:
        sys.exit("mpc train failed: " + " ".join(command) + "\n" + result.stderr)
    rows = [json.loads(line) for line in open(log)]
    steps_rows = [r for r in rows if "step" in r]
    summary = rows[-1]
    out = {"eval_loss": summary.get("eval_loss"), "eval_accuracy": summary.get("eval_accuracy"),
           "final_loss": summary["loss"], "seconds": summary["train_seconds"],
           "skipped_steps": summary.get("skipped_steps", 0)}
    if grad_stats:
        fractions = [r["grad_fp16_flush_fraction"] for r in steps_rows]
        out["fp16_flush_fraction_mean"] = sum(fractions) / len(fractions)
        out["fp16_flush_fraction_last"] = fractions[-1]
    return out


def nan_if_none(value):
    """A number of a train log: null there when it was not finite."""
    return float("nan") if value is None else value


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mpc", default=os.path.join(ROOT, "build", "bin", "mpc"))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", help="also write the results as JSON")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as work:
        for name, graph, data, steps in models(work, args.quick):
            for mode, mode_args in MODES:
                log = os.path.join(work, "log.jsonl")
                results.setdefault(name, {})[mode] = train(
                    args.mpc, graph, data, steps, mode_args, log, mode == "fp32")
                r = results[name][mode]
                print("%-12s %-20s eval loss %.4f  eval accuracy %6.2f%%  skipped %3d  %6.1f s%s"
                      % (name, mode, nan_if_none(r["eval_loss"]),
                         100 * nan_if_none(r["eval_accuracy"]),
                         r["skipped_steps"], r["seconds"],
                         " (with --grad-stats)" if mode == "fp32" else ""), flush=True)
            flush = results[name]["fp32"]
            print("%-12s gradients fp16 would flush to zero without loss scaling: "
                  "%.2f%% on average over the fp32 run, %.2f%% at its last step"
                  % (name, 100 * flush["fp16_flush_fraction_mean"],
                     100 * flush["fp16_flush_fraction_last"]), flush=True)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=2)


if __name__ == "__main__":
    main()
