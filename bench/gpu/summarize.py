#!/usr/bin/env python3
"""Summarises what bench/gpu/run.sh wrote in OUT: the GPU tests, and per
model mpc's fp16 step against PyTorch eager AMP and torch.compile (the median
of the rounds), and where measured its model under CUDA graphs
(torch.compile mode="reduce-overhead", no target), peak device memory, GEMM
efficiency, host syncs and graph launches per step, with the targets of the
CUDA-backend issue:
  mpc step <= 0.5x eager AMP and <= 1.0x torch.compile, memory <= eager AMP,
  every GEMM at >= 70% of the best cuBLASLt algorithm alone, 0 host syncs and
  1 graph launch per step.
Writes OUT/summary.md and OUT/summary.json and prints the table.

  summarize.py OUT
"""

import glob
import json
import os
import statistics
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def error_text(error):
    """A measured error; JSON null is one that was not finite (NaN or inf)."""
    return "not finite" if error is None else format(error, ".3g")


def problems(out):
    """The lines of run.log that report a failure, a timeout or a skip."""
    try:
        with open(os.path.join(out, "run.log")) as f:
            return [line.strip() for line in f
                    if any(word in line for word in ("FAILED", "failed", "timed out", "skipped"))]
    except OSError:
        return []


def format_or_dash(value):
    return format(value, ".2f") if value is not None else "-"


def autotune_rows(out, mpc):
    """Per model, round 1's step and GEMM efficiency against the same bundle
    run with MPC_GEMM_AUTOTUNE=0 (mpc-MODEL-untuned.json)."""
    rows = {}
    for model, results in mpc.items():
        tuned = next((r for r in results if r.get("gemms") is not None), None)
        heuristic = load(os.path.join(out, f"mpc-{model}-untuned.json"))
        if not tuned or not heuristic or heuristic.get("ms_per_step") is None:
            continue

        def least(run):
            return min((g["efficiency"] for g in run.get("gemms", [])), default=None)

        rows[model] = {"tuned_ms": tuned["ms_per_step"], "heuristic_ms": heuristic["ms_per_step"],
                       "tuned_efficiency_min": least(tuned),
                       "heuristic_efficiency_min": least(heuristic)}
    return rows


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    out = sys.argv[1]
    check = load(os.path.join(out, "gpu-check.json"))
    mpc = {}
    for path in sorted(glob.glob(os.path.join(out, "mpc-*-round*.json"))):
        result = load(path)
        if result and result.get("ms_per_step") is not None:
            mpc.setdefault(result["label"], []).append(result)
    torch_runs = {}
    for path in sorted(glob.glob(os.path.join(out, "torch-round*.json"))):
        data = load(path) or {}
        for result in data.get("results", []):
            if result.get("ms_per_step") is not None:
                torch_runs.setdefault((result["model"], result["mode"]), []).append(result)

    lines = ["# GPU benchmarks and tests", ""]
    machine = os.path.join(out, "machine.txt")
    if os.path.exists(machine):
        lines += ["```", open(machine).read().strip(), "```", ""]
    reported = problems(out)
    if reported:
        lines += ["What run.sh reported:", ""] + [f"- {line}" for line in reported] + [""]
    if check is None:
        lines += ["GPU tests: no result (gpu-check.json missing)", ""]
    elif check.get("skipped"):
        lines += [f"GPU tests: skipped ({check.get('reason')})", ""]
    else:
        # A measure that compared nothing fails, whatever the file says: the
        # GPU check of runs before 2026-12-05 passed such measures (an Adam
        # update where no gradient is above the floor).
        def compared_nothing(measure):
            return measure.get("elements") == 0

        def case_passed(case):
            return case["passed"] and not any(map(compared_nothing, case["measures"]))

        all_passed = check["passed"] and all(map(case_passed, check["cases"]))
        lines += [f"GPU tests on {check['device']}: "
                  f"{'passed' if all_passed else 'FAILED'}", ""]
        for case in check["cases"]:
            worst = [m for m in case["measures"] if not m["passed"] and not compared_nothing(m)]
            empty = [m["what"] for m in case["measures"] if compared_nothing(m)]
            lines.append(f"- {case['name']} ({case['precision']}): "
                         f"{'pass' if case_passed(case) else 'FAIL'}"
                         + (f" — {case['error']}" if case.get("error") else "")
                         + "".join(f"; {m['what']}: {error_text(m['error'])} > "
                                   f"{m['tolerance']:.3g}" for m in worst)
                         + (f"; nothing compared: {', '.join(empty)}" if empty else ""))
        lines.append("")

    rows, summary = [], {"models": {}, "targets_met": None}
    all_met = True if mpc else None
    for model, results in mpc.items():
        ms = statistics.median(r["ms_per_step"] for r in results)
        first = results[0]

        def peer(mode):
            runs = torch_runs.get((model, mode), [])
            return statistics.median(r["ms_per_step"] for r in runs) if runs else None

        eager, compiled, graphed = peer("eager"), peer("compile"), peer("graphs")
        eager_runs = torch_runs.get((model, "eager"), [])
        eager_peak = max((r.get("peak_bytes", 0) for r in eager_runs), default=None)
        gemms = first.get("gemms", [])
        efficiency = min((g["efficiency"] for g in gemms), default=None)
        entry = {
            "mpc_ms": ms, "eager_amp_ms": eager, "compile_ms": compiled,
            "ratio_eager": ms / eager if eager else None,
            "ratio_compile": ms / compiled if compiled else None,
            "graphs_ms": graphed, "ratio_graphs": ms / graphed if graphed else None,
            "mpc_device_bytes": first["device_bytes"], "eager_amp_peak_bytes": eager_peak,
            "memory_ratio": first["device_bytes"] / eager_peak if eager_peak else None,
            "gemm_efficiency_min": efficiency,
            "host_syncs_per_step": first["host_syncs_per_step"],
            "graph_launches_per_step": first["graph_launches_per_step"],
        }
        targets = {
            "step <= 0.5x eager AMP": entry["ratio_eager"] is not None and entry["ratio_eager"] <= 0.5,
            "step <= 1.0x torch.compile": entry["ratio_compile"] is not None and entry["ratio_compile"] <= 1.0,
            "memory <= eager AMP": entry["memory_ratio"] is not None and entry["memory_ratio"] <= 1.0,
            "GEMMs >= 70% of cuBLASLt alone": efficiency is None or efficiency >= 0.7,
            "0 host syncs per step": entry["host_syncs_per_step"] == 0,
            "1 graph launch per step": entry["graph_launches_per_step"] == 1,
        }
        entry["targets"] = targets
        all_met = all_met and all(targets.values())
        summary["models"][model] = entry

        def fmt(value, spec):
            return format(value, spec) if value is not None else "-"

        rows.append(f"| {model} | {ms:.3f} | {fmt(eager, '.3f')} | {fmt(compiled, '.3f')} | "
                    f"{fmt(graphed, '.3f')} | {fmt(entry['ratio_eager'], '.2f')} | "
                    f"{fmt(entry['ratio_compile'], '.2f')} | {fmt(entry['ratio_graphs'], '.2f')} | "
                    f"{first['device_bytes'] / 2**20:.1f} | "
                    f"{fmt(eager_peak / 2**20 if eager_peak else None, '.1f')} | "
                    f"{fmt(efficiency, '.2f')} | {entry['host_syncs_per_step']:g} | "
                    f"{entry['graph_launches_per_step']:g} | "
                    f"{sum(targets.values())}/{len(targets)} |")
    summary["targets_met"] = all_met
    if rows:
        lines += ["Train step, fp16 mixed precision, ms (median of rounds); ratios mpc / peer;",
                  "graphs: PyTorch's model under CUDA graphs (reduce-overhead), no target;",
                  "memory in MiB (mpc: what the program allocated, its 4 MiB GEMM workspace",
                  "included; PyTorch: max_memory_allocated).", "",
                  "| model | mpc ms | eager AMP ms | compile ms | graphs ms | / eager | / compile | "
                  "/ graphs | mpc MiB | AMP MiB | GEMM eff. min | syncs/step | graphs/step | "
                  "targets |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"] + rows + [""]
        for model, entry in summary["models"].items():
            missed = [t for t, ok in entry["targets"].items() if not ok]
            if missed:
                lines.append(f"- {model} misses: {', '.join(missed)}")
    else:
        lines.append("Benchmarks: none ran (no GPU, or no bundles).")
    tuning = autotune_rows(out, mpc)
    if tuning:
        summary["gemm_autotune"] = tuning
        lines += ["", "GEMM algorithms timed at load (round 1) against cuBLASLt's heuristic",
                  "choice (MPC_GEMM_AUTOTUNE=0, run right after); GEMM efficiency as above:", "",
                  "| model | step ms, timed | step ms, heuristic | ratio | GEMM eff. min, timed | "
                  "heuristic |", "|---|---|---|---|---|---|"]
        for model, entry in tuning.items():
            lines.append(f"| {model} | {entry['tuned_ms']:.4f} | {entry['heuristic_ms']:.4f} | "
                         f"{entry['tuned_ms'] / entry['heuristic_ms']:.2f} | "
                         f"{format_or_dash(entry['tuned_efficiency_min'])} | "
                         f"{format_or_dash(entry['heuristic_efficiency_min'])} |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(text)
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump({"gpu_check": check, "run_log_problems": reported, **summary}, f, indent=1)
    print(text)


if __name__ == "__main__":
    main()
