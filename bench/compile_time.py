#!/usr/bin/python3
"""mpc's compile time against graph size: stacks of transformer blocks
(bench/make_transformer.py), each compiled twice into a training bundle
(fp16 by default) with `mpc compile --timings`, in a kernel cache of its
own: the first compile builds the host kernels, the second finds them in
the cache. Prints, per size, the graph's ops, the time of the pass pipeline
and of generating CUDA C++, the compile without compiling kernels and per
block, the first (uncached) compile and the second, and checks the targets
of the performance issue: the compile without kernel compilation grows
linearly with the graph (its time per block at the largest size within 1.5x
of the smallest size's above 4 blocks) and stays under 2 s at 48 blocks,
and a compile of an unchanged graph takes under 1 s.

  bench/compile_time.py [--mpc build/bin/mpc] [--blocks 1,6,12,24,48]
                        [--precision fp16] [--quick] [--json FILE]
--quick: 1 and 2 blocks (the test suite runs it so).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import make_transformer  # noqa: E402

TIME = re.compile(r"^mpc: time: (.+?)\s+([0-9.]+) s$")


def compile_once(mpc, graph, bundle, precision, cache):
    env = dict(os.environ, MPC_CACHE_DIR=cache)
    result = subprocess.run([mpc, "compile", graph, "--step", "train", "--precision", precision,
                             "-o", bundle, "--timings"], capture_output=True, text=True, env=env)
    if result.returncode != 0:
        sys.exit("mpc compile failed on %s:\n%s" % (graph, result.stderr))
    times = {}
    for line in result.stderr.splitlines():
        match = TIME.match(line)
        if match:
            times[match.group(1)] = float(match.group(2))
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mpc", default=os.path.join(ROOT, "build", "bin", "mpc"))
    parser.add_argument("--blocks", default="1,6,12,24,48")
    parser.add_argument("--precision", default="fp16")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args()
    sizes = [1, 2] if args.quick else [int(b) for b in args.blocks.split(",")]

    work = tempfile.mkdtemp(prefix="mpc-compile-time-")
    rows = []
    for blocks in sizes:
        graph = os.path.join(work, "transformer_%d.mlir" % blocks)
        with open(graph, "w") as f:
            f.write(make_transformer.graph(blocks))
        ops = sum(1 for line in open(graph) if " = mpg." in line or line.strip().startswith("mpg."))
        cache = os.path.join(work, "cache-%d" % blocks)
        bundle = os.path.join(work, "transformer_%d.mpcb" % blocks)
        first = compile_once(args.mpc, graph, bundle, args.precision, cache)
        second = compile_once(args.mpc, graph, bundle, args.precision, cache)
        rows.append({"blocks": blocks, "graph_ops": ops,
                     "passes_s": second["passes (per pass below)"],
                     "cuda_s": second["generating CUDA C++"],
                     "without_kernels_s": second["total without compiling kernels"],
                     "first_total_s": first["total"], "second_total_s": second["total"],
                     "second_from_cache": "host kernels (from the kernel cache)" in second})
        print("compiled %d blocks" % blocks, file=sys.stderr)

    print("Compile time of a training step (%s) against graph size, s\n" % args.precision)
    print("| blocks | graph ops | passes | CUDA C++ | without kernel compilation | per block "
          "| first compile | second compile (cached) |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %d | %d | %.3f | %.3f | %.3f | %.4f | %.2f | %.3f |" % (
            r["blocks"], r["graph_ops"], r["passes_s"], r["cuda_s"], r["without_kernels_s"],
            r["without_kernels_s"] / r["blocks"], r["first_total_s"], r["second_total_s"]))
    large = rows[-1]
    base = [r for r in rows if r["blocks"] > 4] or rows
    per_block = lambda r: r["without_kernels_s"] / r["blocks"]
    checks = {
        "linear (per block at %d within 1.5x of %d)" % (large["blocks"], base[0]["blocks"]):
            per_block(large) <= 1.5 * per_block(base[0]),
        "every second compile from the cache": all(r["second_from_cache"] for r in rows),
        "second compile < 1 s": all(r["second_total_s"] < 1.0 for r in rows),
    }
    if any(r["blocks"] == 48 for r in rows):
        checks["48 blocks < 2 s without kernel compilation"] = \
            next(r for r in rows if r["blocks"] == 48)["without_kernels_s"] < 2.0
    print()
    for name, ok in checks.items():
        print("%s: %s" % (name, "yes" if ok else "NO"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"precision": args.precision, "sizes": rows, "checks": checks}, f, indent=1)


if __name__ == "__main__":
    main()
