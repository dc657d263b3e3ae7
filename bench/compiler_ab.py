#!/usr/bin/python3
"""Two builds of the compiler side by side: the same examples compiled by
`--before` and by `--after` (two `mpc` binaries, say one built without a
pass), run by one runtime (`mpc-bench`, one thread), alternating (the order
flips every round).

For a change to the compiler alone, this is its A/B: same runtime, same
machine state to within a round. Per model and mode it prints the medians of
the step's wall time on each side and their ratio (after / before), then the
static measures each compiler reports for the step (`mpc report --json`):
launches, bytes moved, the planned peak of live transient bytes, the arena,
and the roofline estimate on an H200.

  bench/compiler_ab.py --before OLD/mpc --after NEW/mpc [--mpc-bench build/bin/mpc-bench]
                       [--models "cnn transformer_block"] [--modes "fp32 fp16 bf16"]
                       [--rounds 9] [--quick] [--json FILE]
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
# Steps per timing, by model (as bench/cpu_vs_pytorch.py).
STEPS = {"mlp": 300, "wide_mlp": 20, "cnn": 60, "transformer_block": 100, "char_lstm": 100}
SIDES = ("before", "after")


def run(command, what):
    out = subprocess.run(command, capture_output=True, text=True,
                         env=dict(os.environ, **ONE_THREAD))
    if out.returncode != 0:
        sys.exit("%s failed:\n%s" % (what, out.stderr))
    return out.stdout


def static_measures(mpc, graph, mode):
    report = json.loads(run([mpc, "report", graph, "--step", "train", "--precision", mode,
                             "--json"], "%s report %s" % (mpc, graph)))[0]
    return {"launches": report["launches_per_step"],
            "bytes_moved": report["read_bytes_per_step"] + report["written_bytes_per_step"],
            "peak_live_bytes": report["transient_at_peak"]["live_bytes"],
            "arena_bytes": report["arena_bytes"],
            "h200_roofline_us": report["roofline"]["step_us"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the mpc binary before the change")
    parser.add_argument("--after", required=True, help="the mpc binary after the change")
    parser.add_argument("--mpc-bench", default=os.path.join(ROOT, "build", "bin", "mpc-bench"))
    parser.add_argument("--models", default="cnn transformer_block")
    parser.add_argument("--modes", default="fp32 fp16 bf16")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args()
    tools = {"before": args.before, "after": args.after}
    for side, tool in list(tools.items()) + [("mpc-bench", args.mpc_bench)]:
        if not os.access(tool, os.X_OK):
            sys.exit("%s: no executable at '%s'" % (side, tool))
    models, modes = args.models.split(), args.modes.split()
    for model in models:
        if model not in STEPS:
            sys.exit("unknown model '%s' (one of: %s)" % (model, ", ".join(STEPS)))
    rounds = 1 if args.quick else args.rounds

    with tempfile.TemporaryDirectory(prefix="mpc-compiler-ab-") as work:
        measure(args, tools, models, modes, rounds, work)


def measure(args, tools, models, modes, rounds, work):
    """Compiles, times and prints; the bundles go to `work`."""
    bundles, static = {}, {}
    for model in models:
        graph = os.path.join(ROOT, "examples", model + ".mlir")
        for mode in modes:
            for side in SIDES:
                bundle = os.path.join(work, "%s-%s-%s.mpcb" % (model, mode, side))
                run([tools[side], "compile", graph, "--step", "train", "--precision", mode,
                     "-o", bundle], "%s compile %s --precision %s" % (tools[side], graph, mode))
                bundles[model, mode, side] = bundle
                static[model, mode, side] = static_measures(tools[side], graph, mode)

    times = {key: [] for key in bundles}
    for r in range(rounds):
        for model in models:
            steps = 3 if args.quick else STEPS[model]
            for mode in modes:
                for side in (SIDES if r % 2 == 0 else SIDES[::-1]):
                    out = run([args.mpc_bench, bundles[model, mode, side], "--steps", str(steps),
                               "--warmup", "1" if args.quick else "3", "--repeats", "1"],
                              "mpc-bench on %s" % bundles[model, mode, side])
                    times[model, mode, side].append(json.loads(out)["ms_per_step"])
        print("round %d/%d done" % (r + 1, rounds), file=sys.stderr)

    print("%s (before) and %s (after): the training step on the CPU, one thread, ms "
          "(median of %d rounds; ratio = after / before)\n" % (args.before, args.after, rounds))
    print("| model | mode | before | after | ratio |")
    print("|---|---|---|---|---|")
    cases = {}
    for model in models:
        for mode in modes:
            before = statistics.median(times[model, mode, "before"])
            after = statistics.median(times[model, mode, "after"])
            print("| %s | %s | %.3f | %.3f | %.3f |" % (model, mode, before, after, after / before))
            cases["%s/%s" % (model, mode)] = {
                side: {"step_ms": statistics.median(times[model, mode, side]),
                       "step_ms_rounds": times[model, mode, side],
                       "static": static[model, mode, side]} for side in SIDES}
    print("\nStatic measures of the step, before -> after (mpc report --json):\n")
    print("| model | mode | launches | bytes moved | peak live bytes | arena bytes | H200 roofline us |")
    print("|---|---|---|---|---|---|---|")
    for model in models:
        for mode in modes:
            b, a = static[model, mode, "before"], static[model, mode, "after"]

            def pair(key, ratio=True):
                text = "%s -> %s" % (b[key], a[key])
                return text + (" (%.2fx)" % (a[key] / b[key]) if ratio and b[key] else "")
            print("| %s | %s | %s | %s | %s | %s | %.2f -> %.2f |" % (
                model, mode, pair("launches", False), pair("bytes_moved"),
                pair("peak_live_bytes"), pair("arena_bytes"), b["h200_roofline_us"],
                a["h200_roofline_us"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"before": args.before, "after": args.after, "rounds": rounds,
                       "cases": cases}, f, indent=1)


if __name__ == "__main__":
    main()
