#!/usr/bin/env python3
"""The GPT-2 GPU benchmark's summary (bench/gpu/gpt2.sh): its table, its
targets met or missed, and where mpc's step goes.

Reads the raw results gpt2.sh collected (mpc-bench's mpc-PRECISION-roundR
.json; gpt2_peer.py's torch-eager-roundR.json, torch-compile.json,
torch-max-autotune.json, torch-attention.json) and writes OUT/gpt2-summary.md
and OUT/gpt2-summary.json (which holds every raw result too).

Definitions:
  tokens/s   batch x context / the median step time (of the rounds' medians)
  MFU        model FLOPs per step / step time / the GPU's dense peak:
             6 N (B T) + 12 L d T (B T) (the attention's scores and sums,
             counted as if not causal: nanoGPT's and PaLM's count), N every
             parameter; over the fp16/bf16 tensor-core peak for fp16 and
             bf16, over the fp32 (non-tensor) peak for fp32 (TF32 is off)
  peak memory  mpc: the device memory its program holds (arena, persistent
             state, GEMM workspace); PyTorch: torch.cuda.max_memory_allocated
             over the timed steps. Neither counts the CUDA context.
  attention  mpc: its attention kernels' time in the step (forward and both
             gradients, each timed alone) per layer; PyTorch: SDPA's forward
             and backward on one layer's shapes, causal
  first loss mpc's and PyTorch's from the same weights and batch: a coarse
             check that both ran the model (at initialisation any GPT-2's is
             near ln(vocab); fp32's tolerance, 1e-4, is the telling one)
  peaks      datasheet figures; a GEMM measures below them (an H100 here:
             about 800 TFLOP/s of bf16 at 8192^3), so MFU reads low

  gpt2_summary.py RAW --out OUT --config small --batch 8 [--log gpt2.log]
"""
import argparse
import glob
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpt2"))
from configs import CONFIGS  # noqa: E402
from summarize import load  # noqa: E402 (beside this file: run.sh's summary)

# Dense peaks from NVIDIA's datasheets (TFLOP/s: fp16/bf16 tensor cores
# without sparsity, fp32 without tensor cores; TB/s of memory), by a part of
# the name torch.cuda.get_device_name() or nvidia-smi gives, most specific
# first.
PEAKS = [
    ("H100 PCIe", {"fp16": 756.5, "fp32": 51.2, "tbps": 2.0}),
    ("H100 NVL", {"fp16": 835.5, "fp32": 60.0, "tbps": 3.9}),
    ("H100", {"fp16": 989.4, "fp32": 66.9, "tbps": 3.35}),
    ("H200 NVL", {"fp16": 835.5, "fp32": 60.0, "tbps": 4.8}),
    ("H200", {"fp16": 989.4, "fp32": 66.9, "tbps": 4.8}),
    ("A100", {"fp16": 312.0, "fp32": 19.5, "tbps": 2.0}),
]
# |mpc's first loss - PyTorch's| / PyTorch's, from the same weights and batch.
SAME_LOSS = {"fp32": 1e-4, "fp16": 2e-2, "bf16": 2e-2}


def peaks_of(gpu):
    for name, peaks in PEAKS:
        if gpu and name in gpu:
            return name, peaks
    return None, None


def parameters(config):
    c = config
    per_layer = 12 * c.width * c.width + 13 * c.width
    return c.vocab * c.width + c.context * c.width + c.layers * per_layer + 2 * c.width


def median_of(runs, key):
    values = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(values) if values else None


def collect(raw):
    mpc, torch_runs, attention = {}, {}, {}
    for path in sorted(glob.glob(os.path.join(raw, "mpc-*-round*.json"))):
        match = re.match(r"mpc-(\w+)-round(\d+)\.json$", os.path.basename(path))
        data = load(path)
        if match and data:
            mpc.setdefault(match.group(1), []).append(dict(data, round=int(match.group(2))))
    gpu = None
    for path in sorted(glob.glob(os.path.join(raw, "torch-*.json"))):
        data = load(path) or {}
        gpu = data.get("gpu", gpu)
        for result in data.get("results", []):
            if os.path.basename(path) == "torch-attention.json":
                attention[result["precision"]] = result
            else:
                torch_runs.setdefault((result["precision"], result["mode"]), []).append(result)
    if gpu is None:  # (PyTorch did not run: mpc-bench's "cuda:0 (NAME, sm_90)")
        gpu = next((r.get("device") for runs in mpc.values() for r in runs
                    if "(" in r.get("device", "")), None)
    return mpc, torch_runs, attention, gpu


def breakdown(run):
    """mpc's profiled step by kind: [(kind, ms, share)], largest first."""
    kinds = {}
    for step in run.get("profile", []):
        kinds[step["kind"]] = kinds.get(step["kind"], 0.0) + step["us"] / 1e3
    total = sum(kinds.values()) or 1.0
    return sorted(((k, ms, ms / total) for k, ms in kinds.items()), key=lambda x: -x[1])


def gemm_table(run, peak):
    """Every GEMM's rate, against the peak; the time-weighted rate."""
    gemms = run.get("gemms", [])
    flop = sum(2.0 * g["m"] * g["n"] * g["k"] * g["batch"] for g in gemms)
    ms = sum(g["ms"] for g in gemms)
    rates = [g["tflops"] for g in gemms if g.get("tflops")]
    return {"count": len(gemms), "ms": ms,
            "tflops_time_weighted": flop / (ms * 1e-3) / 1e12 if ms else None,
            "tflops_min": min(rates) if rates else None,
            "tflops_median": statistics.median(rates) if rates else None,
            "fraction_of_peak_time_weighted":
                flop / (ms * 1e-3) / 1e12 / peak if ms and peak else None,
            "least_efficiency_against_cublaslt": min((g["efficiency"] for g in gemms
                                                      if g.get("efficiency")), default=None)}


def summarize(raw, config_name, batch, log_lines):
    mpc, torch_runs, attention, gpu = collect(raw)
    config = CONFIGS.get(config_name)
    peak_name, peaks = peaks_of(gpu)
    tokens = batch * config.context if config else None
    flop = None
    if config:
        flop = (6 * parameters(config) * tokens
                + 12 * config.layers * config.width * config.context * tokens)
    rows = {}
    for precision in ("fp16", "bf16", "fp32"):
        runs = mpc.get(precision, [])
        row = {"mpc_ms": median_of(runs, "ms_per_step"),
               "mpc_device_bytes": max((r.get("device_bytes", 0) for r in runs), default=None),
               "mpc_first_loss": next((r.get("first_loss") for r in runs
                                       if r.get("first_loss") is not None), None)}
        for mode in ("eager", "compile", "max-autotune"):
            done = [r for r in torch_runs.get((precision, mode), []) if "ms_per_step" in r]
            row[mode + "_ms"] = median_of(done, "ms_per_step")
            row[mode + "_peak_bytes"] = max((r.get("peak_bytes") or 0 for r in done),
                                            default=None) or None
            errors = [r["error"] for r in torch_runs.get((precision, mode), []) if "error" in r]
            if errors:
                row[mode + "_error"] = errors[0]
            if mode == "eager" and done:
                row["torch_first_loss"] = done[0].get("first_loss")
        if row["mpc_ms"] and tokens:
            row["mpc_tokens_per_s"] = tokens / (row["mpc_ms"] * 1e-3)
        peak = (peaks or {}).get("fp32" if precision == "fp32" else "fp16")
        if row["mpc_ms"] and flop and peak:
            row["mpc_mfu"] = flop / (row["mpc_ms"] * 1e-3) / (peak * 1e12)
        best_torch = [row[m + "_ms"] for m in ("compile", "max-autotune") if row.get(m + "_ms")]
        if best_torch and flop and peak:
            row["torch_compile_mfu"] = flop / (min(best_torch) * 1e-3) / (peak * 1e12)
        if row["mpc_first_loss"] is not None and row.get("torch_first_loss"):
            difference = abs(row["mpc_first_loss"] - row["torch_first_loss"]) / abs(
                row["torch_first_loss"])
            row["first_loss_relative_difference"] = difference
            row["same_first_loss"] = difference <= SAME_LOSS[precision]
        first = next((r for r in runs if r.get("round") == 1), None)
        if first:
            row["breakdown"] = [{"kind": k, "ms": ms, "share": share}
                                for k, ms, share in breakdown(first)]
            row["profile_ms"] = first.get("profile_us_per_step", 0) / 1e3
            attention_ms = sum(b["ms"] for b in row["breakdown"]
                               if b["kind"].startswith("attention"))
            if config and attention_ms:
                row["mpc_attention_ms_per_layer"] = attention_ms / config.layers
            if first.get("gemms"):
                row["gemms"] = gemm_table(first, peak)
                row["gemm_list"] = first["gemms"]
        sdpa = attention.get(precision, {})
        if sdpa.get("forward_backward_ms"):
            row["sdpa_ms"] = sdpa["forward_backward_ms"]
        elif sdpa.get("error"):
            row["sdpa_error"] = sdpa["error"]
        rows[precision] = row
    targets = {}

    def target(name, value, met):
        targets[name] = {"value": value, "met": met if value is not None else None}

    for precision in ("fp16", "bf16"):
        row = rows[precision]
        compiled = [row[m] for m in ("compile_ms", "max-autotune_ms") if row.get(m)]
        speed = min(compiled) / row["mpc_ms"] if compiled and row["mpc_ms"] else None
        target(f"{precision} tokens/s >= 1.1x torch.compile's", speed, speed and speed >= 1.1)
        mfu = row.get("mpc_mfu")
        target(f"{precision} MFU >= 50%", mfu, mfu and mfu >= 0.5)
        memory = (row["mpc_device_bytes"] / row["eager_peak_bytes"]
                  if row.get("eager_peak_bytes") and row["mpc_device_bytes"] else None)
        target(f"{precision} peak memory <= 0.9x PyTorch AMP's", memory, memory and memory <= 0.9)
        rate = (row["sdpa_ms"] / row["mpc_attention_ms_per_layer"]
                if row.get("sdpa_ms") and row.get("mpc_attention_ms_per_layer") else None)
        target(f"{precision} attention forward+backward >= 0.9x SDPA", rate, rate and rate >= 0.9)
    fp16_over_fp32 = (rows["fp32"]["mpc_ms"] / rows["fp16"]["mpc_ms"]
                      if rows["fp32"]["mpc_ms"] and rows["fp16"]["mpc_ms"] else None)
    target("fp16 >= 3x fp32 (mpc)", fp16_over_fp32, fp16_over_fp32 and fp16_over_fp32 >= 3)
    return {"gpu": gpu, "peaks": {"name": peak_name, **(peaks or {})}, "config": config_name,
            "batch": batch, "tokens_per_step": tokens, "model_flop_per_step": flop,
            "parameters": parameters(config) if config else None, "rows": rows,
            "targets": targets, "reported": log_lines,
            "raw": {"mpc": mpc, "attention": attention,
                    "torch": [r for runs in torch_runs.values() for r in runs]}}


def number(value, digits=3):
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}g}" if abs(value) < 1000 else f"{value:,.0f}"
    return str(value)


def markdown(s):
    lines = ["# GPT-2 on the GPU: mpc against PyTorch", ""]
    lines += [f"GPU: {s['gpu'] or 'unknown'}; peaks used: {s['peaks']}",
              f"GPT-2 {s['config']}, batch {s['batch']} ({number(s['tokens_per_step'])} tokens a "
              f"step), {number(s['parameters'])} parameters, "
              f"{number((s['model_flop_per_step'] or 0) / 1e12)} TFLOP a step (model FLOPs)", ""]
    if s["reported"]:
        lines += ["What gpt2.sh reported:", ""] + [f"- {x}" for x in s["reported"]] + [""]
    lines += ["| precision | mpc ms | mpc tokens/s | mpc MFU | eager ms | compile ms | "
              "compile / mpc | mpc GB | eager GB | first loss mpc / PyTorch |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for precision, r in s["rows"].items():
        compiled = [r[m] for m in ("compile_ms", "max-autotune_ms") if r.get(m)]
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s |" % (
            precision, number(r["mpc_ms"], 4), number(r.get("mpc_tokens_per_s")),
            number(r.get("mpc_mfu")), number(r.get("eager_ms"), 4),
            number(min(compiled) if compiled else None, 4),
            number(min(compiled) / r["mpc_ms"] if compiled and r["mpc_ms"] else None),
            number(r["mpc_device_bytes"] / 1e9 if r["mpc_device_bytes"] else None),
            number(r["eager_peak_bytes"] / 1e9 if r.get("eager_peak_bytes") else None),
            number(r["mpc_first_loss"], 6), number(r.get("torch_first_loss"), 6)))
    lines += ["", "Targets:", ""]
    for name, t in s["targets"].items():
        verdict = {True: "met", False: "MISSED", None: "not measured"}[t["met"]]
        lines.append(f"- {name}: {verdict} ({number(t['value'])})")
    for precision, r in s["rows"].items():
        for mode in ("eager", "compile", "max-autotune"):
            if r.get(mode + "_error"):
                lines.append(f"- PyTorch {precision} {mode} failed: {r[mode + '_error'][:300]}")
        if r.get("same_first_loss") is False:
            lines.append(f"- {precision}: mpc's first loss differs from PyTorch's by "
                         f"{number(r['first_loss_relative_difference'])}: not the same model?")
    for precision, r in s["rows"].items():
        if not r.get("breakdown"):
            continue
        lines += ["", f"mpc's {precision} step by kind of step (each timed alone; sum "
                  f"{number(r['profile_ms'], 4)} ms against the step's {number(r['mpc_ms'], 4)} ms):",
                  "", "| kind | ms | share |", "|---|---|---|"]
        lines += [f"| {b['kind']} | {number(b['ms'], 4)} | {b['share']:.1%} |"
                  for b in r["breakdown"][:10]]
        if r.get("gemms"):
            g = r["gemms"]
            lines += ["", f"{precision} GEMMs: {g['count']}, {number(g['ms'], 4)} ms; "
                      f"{number(g['tflops_time_weighted'])} TFLOP/s time-weighted = "
                      f"{number(g['fraction_of_peak_time_weighted'])} of the peak; median "
                      f"{number(g['tflops_median'])}, least {number(g['tflops_min'])}; least "
                      f"efficiency against cuBLASLt's best algorithm "
                      f"{number(g['least_efficiency_against_cublaslt'])}"]
        if r.get("mpc_attention_ms_per_layer"):
            sdpa = (f"{number(r['sdpa_ms'], 4)} ms" if r.get("sdpa_ms")
                    else f"not measured ({r.get('sdpa_error', 'no result')})")
            lines += ["", f"{precision} attention per layer, forward and backward: mpc "
                      f"{number(r['mpc_attention_ms_per_layer'], 4)} ms, SDPA {sdpa}"]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("raw")
    parser.add_argument("--out", required=True)
    parser.add_argument("--config", default="small")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--log", help="gpt2.sh's log: its lines are reported")
    args = parser.parse_args()
    log_lines = []
    if args.log and os.path.exists(args.log):
        log_lines = [line.strip() for line in open(args.log)
                     if re.search(r"failed|FAILED|skipped|timed out|no ", line)]
    s = summarize(args.raw, args.config, args.batch, log_lines)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "gpt2-summary.json"), "w") as f:
        json.dump(s, f, indent=1)
    text = markdown(s)
    with open(os.path.join(args.out, "gpt2-summary.md"), "w") as f:
        f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
