#!/usr/bin/python3
"""One runtime setting, on and off, side by side: the same bundles timed by
`mpc-bench --profile` without NAME in the environment ("as is": the
runtime's default) and with NAME=VALUE, alternating (the order flips every
round), one thread.

For a change that is a runtime setting (MPC_CPU_HUGE_PAGES=0, say), this
is the A/B of that change alone: same build, same bundles, same machine
state to within a round. Per model and mode it prints the medians of the
step's wall time, the steps' times summed by kind (GEMMs, kernels), and the
kernel slowest by its median as is (in a training step, the optimizer's
update), for each side, and the ratios with / as is.

  bench/cpu_setting_ab.py --env NAME=VALUE [--mpc build/bin/mpc]
                          [--models "wide_mlp"] [--modes "fp32 bf16"] [--rounds 5]
                          [--quick] [--json FILE]
--quick: one round of few steps (the test suite runs it so: timings ignored).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Steps per timing, by model (a step of the wide MLP or the CNN is slow).
STEPS = {"mlp": 2000, "wide_mlp": 20, "cnn": 20, "transformer_block": 200}
SIDES = ("as is", "with setting")


def profile(bench, bundle, steps, warmup, name, value):
    env = dict(os.environ, **ONE_THREAD)
    env.pop(name, None)
    if value is not None:
        env[name] = value
    out = subprocess.run([bench, bundle, "--steps", str(steps), "--warmup", str(warmup),
                          "--repeats", "1", "--profile"], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        sys.exit("mpc-bench failed on %s:\n%s" % (bundle, out.stderr))
    result = json.loads(out.stdout)
    sums = {"gemm": 0.0, "kernel": 0.0, "copy": 0.0}
    kernels = {}
    for entry in result["profile"]:
        kind = entry["what"].split()[0]
        sums[kind] += entry["us"] / 1e3
        if kind == "kernel":
            # (by step: the launches of one shared kernel are apart)
            kernels["%s@%d" % (entry["what"].split()[1], entry["step"])] = entry["us"] / 1e3
    return {"step_ms": result["ms_per_step"], "gemm_ms": sums["gemm"],
            "kernel_ms": sums["kernel"], "kernels": kernels}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", required=True, help="NAME=VALUE added on one side")
    parser.add_argument("--mpc", default=os.path.join(ROOT, "build", "bin", "mpc"))
    parser.add_argument("--mpc-bench", default=None)
    parser.add_argument("--models", default="wide_mlp")
    parser.add_argument("--modes", default="fp32 bf16")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args()
    name, equals, value = args.env.partition("=")
    if not name or not equals:
        parser.error("--env wants NAME=VALUE, not '%s'" % args.env)
    bench = args.mpc_bench or os.path.join(os.path.dirname(args.mpc), "mpc-bench")
    rounds = 1 if args.quick else args.rounds

    with tempfile.TemporaryDirectory(prefix="mpc-setting-ab-") as work:
        run(args, name, value, bench, rounds, work)


def run(args, name, value, bench, rounds, work):
    cases = [(model, mode) for model in args.models.split() for mode in args.modes.split()]
    bundles = {}
    for model, mode in cases:
        bundle = os.path.join(work, "%s-%s.mpcb" % (model, mode))
        subprocess.run([args.mpc, "compile", os.path.join(ROOT, "examples", model + ".mlir"),
                        "--step", "train", "--precision", mode, "-o", bundle], check=True)
        bundles[model, mode] = bundle

    samples = {(case, side): [] for case in cases for side in SIDES}
    for r in range(rounds):
        for case in cases:
            steps = 3 if args.quick else STEPS.get(case[0], 50)
            order = SIDES if r % 2 == 0 else SIDES[::-1]
            for side in order:
                samples[case, side].append(
                    profile(bench, bundles[case], steps, 1 if args.quick else 2, name,
                            value if side == SIDES[1] else None))
        print("round %d/%d done" % (r + 1, rounds), file=sys.stderr)

    def median(case, side, key):
        return statistics.median(s[key] for s in samples[case, side])

    results = {}
    print("%s on and off, one thread, ms (median of %d rounds; ratio = with / as is)\n"
          % (args.env, rounds))
    print("| model | mode | step as is | step with | ratio | GEMMs as is | GEMMs with "
          "| kernels as is | kernels with | slowest kernel | as is | with | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for case in cases:
        kernel_median = lambda side, kernel: statistics.median(
            s["kernels"].get(kernel, 0.0) for s in samples[case, side])
        slowest = max(samples[case, SIDES[0]][0]["kernels"],
                      key=lambda kernel: kernel_median(SIDES[0], kernel), default="")
        entry = {}
        for side in SIDES:
            entry[side] = {key: median(case, side, key)
                           for key in ("step_ms", "gemm_ms", "kernel_ms")}
            entry[side]["slowest_kernel"] = slowest
            entry[side]["slowest_kernel_ms"] = kernel_median(side, slowest) if slowest else 0.0
        a, b = entry[SIDES[0]], entry[SIDES[1]]
        ratio = lambda key: b[key] / a[key] if a[key] else float("nan")
        entry["step_ratio"] = ratio("step_ms")
        entry["slowest_kernel_ratio"] = ratio("slowest_kernel_ms")
        results["%s/%s" % case] = entry
        print("| %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %s | %.3f | %.3f "
              "| %.3f |" % (case[0], case[1], a["step_ms"], b["step_ms"], entry["step_ratio"],
                            a["gemm_ms"], b["gemm_ms"], a["kernel_ms"], b["kernel_ms"],
                            a["slowest_kernel"], a["slowest_kernel_ms"], b["slowest_kernel_ms"],
                            entry["slowest_kernel_ratio"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"env": args.env, "rounds": rounds, "cases": results}, f, indent=1)


if __name__ == "__main__":
    main()
