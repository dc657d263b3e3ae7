"""Checks the JSON of bench/cpu_vs_pytorch.py --quick: every model has every
timing (positive) and every round's times, ratios that are the quotients of
its medians, each round's own ratios and their medians, a verdict per
target, static measures where fusion moved fewer bytes than the unfused
graph would, and the compute floor: the GEMMs' multiply-adds counted from
the report (the wide MLP's and the CNN's by hand here), at the median of the
rounds' peaks and of the GEMM kernel's ceilings, against mpc's step and the
targets; where the core's peak was measured, the printed output (argv[2])
has the floor's table."""
import json
import math
import statistics
import sys

data = json.load(open(sys.argv[1]))
problems = []
models = data["models"]
if sorted(models) != sorted(["mlp", "wide_mlp", "cnn", "transformer_block"]):
    problems.append("models: %s" % sorted(models))
for name, entry in models.items():
    for key in ("mpc_fp32_ms", "mpc_bf16_ms", "mpc_fp16_ms", "torch_fp32_ms", "torch_bf16_ms"):
        if not entry[key] > 0:
            problems.append("%s: %s = %s" % (name, key, entry[key]))
    for ratio, top, bottom in (("fp32_ratio", "mpc_fp32_ms", "torch_fp32_ms"),
                               ("bf16_ratio", "mpc_bf16_ms", "torch_bf16_ms"),
                               ("fp16_vs_fp32", "mpc_fp16_ms", "mpc_fp32_ms")):
        if not math.isclose(entry[ratio], entry[top] / entry[bottom], rel_tol=1e-9):
            problems.append("%s: %s is not %s / %s" % (name, ratio, top, bottom))
    # The medians are those of the rounds' own times.
    rounds = entry["rounds_ms"]
    for key, who_mode in (("mpc_fp32_ms", "mpc fp32"), ("mpc_bf16_ms", "mpc bf16"),
                          ("mpc_fp16_ms", "mpc fp16"), ("torch_fp32_ms", "torch fp32"),
                          ("torch_bf16_ms", "torch bf16")):
        times = rounds.get(who_mode, [])
        if len(times) != data["rounds"] or statistics.median(times) != entry[key]:
            problems.append("%s: rounds_ms[%s] = %s, median %s" % (name, who_mode, times,
                                                                   entry[key]))
    # Each round's ratios are those of its own times, and their medians.
    for ratio, top, bottom in (("fp32_ratio", "mpc fp32", "torch fp32"),
                               ("bf16_ratio", "mpc bf16", "torch bf16"),
                               ("fp16_vs_fp32", "mpc fp16", "mpc fp32")):
        expected = [a / b for a, b in zip(rounds[top], rounds[bottom])]
        got = entry["round_ratios"][ratio]
        if len(got) != data["rounds"] or not all(
                math.isclose(g, e, rel_tol=1e-12) for g, e in zip(got, expected)):
            problems.append("%s: round_ratios[%s] = %s, not %s" % (name, ratio, got, expected))
        elif entry["median_round_ratio"][ratio] != statistics.median(got):
            problems.append("%s: median_round_ratio[%s] = %s" % (
                name, ratio, entry["median_round_ratio"][ratio]))
    if len(entry["targets"]) != 3 or not all(isinstance(v, bool) for v in entry["targets"].values()):
        problems.append("%s: targets %s" % (name, entry["targets"]))
    static = entry["static"]
    if not 0 < static["bytes_moved"] < static["unfused_bytes"]:
        problems.append("%s: moved %d of unfused %d" % (name, static["bytes_moved"],
                                                          static["unfused_bytes"]))
    if not (static["launches_per_step"] > 0 and static["casts_inserted"] > 0
            and static["peak_bytes_fp16"] > 0 and static["h200_roofline_us"] > 0):
        problems.append("%s: static %s" % (name, static))
# The wide MLP's GEMMs (784-1024-1024-10, batch 256): three forward, the
# input gradients of the two upper layers (none for the input), three weight
# gradients; two flops per multiply-add.
WIDE_MLP_GFLOP = 2 * 256 * (2 * (784 * 1024 + 1024 * 1024 + 1024 * 10)
                            + (1024 * 10 + 1024 * 1024)) / 1e9
# The CNN's, batch 32: conv 1->8 3x3 on 28x28 (forward and filter gradient,
# 9 taps per output), conv 8->16 3x3 on 14x14 (forward, filter and input
# gradients, 72 taps), linear 16->10 (forward, input and weight gradients).
CNN_GFLOP = 2 * 32 * (2 * 8 * 784 * 9 + 3 * 16 * 196 * 72 + 3 * 16 * 10) / 1e9
for name, expected in (("wide_mlp", WIDE_MLP_GFLOP), ("cnn", CNN_GFLOP)):
    if not math.isclose(models[name]["floor"]["gemm_gflop"], expected, rel_tol=1e-12):
        problems.append("%s: GEMM GFLOP %s, not %s" % (name, models[name]["floor"]["gemm_gflop"],
                                                      expected))
peak = data["peak_gflops"]
for kind in ("fp32", "bf16", "fp32_kernel", "bf16_kernel"):
    rates = [p[kind] for p in data["peak_gflops_rounds"] if p[kind]]
    if (statistics.median(rates) if rates else None) != peak[kind]:
        problems.append("peak %s %s is not the median of %s" % (kind, peak[kind], rates))
for name, entry in models.items():
    floor = entry["floor"]
    if not floor["gemm_gflop"] > 0:
        problems.append("%s: GEMM GFLOP %s" % (name, floor["gemm_gflop"]))
    for mode, step, target in (("fp32", entry["mpc_fp32_ms"],
                                (0.8 if "mlp" in name else 1.0) * entry["torch_fp32_ms"]),
                               ("bf16", entry["mpc_bf16_ms"], 0.8 * entry["torch_bf16_ms"])):
        f = floor[mode]
        if not peak[mode]:
            if f is not None:
                problems.append("%s: a %s floor without a peak" % (name, mode))
            continue
        floor_ms = floor["gemm_gflop"] / peak[mode] * 1e3
        if not (math.isclose(f["floor_ms"], floor_ms, rel_tol=1e-9)
                and math.isclose(f["mpc_share_of_peak"], floor_ms / step, rel_tol=1e-9)
                and math.isclose(f["target_share_of_peak"], floor_ms / target, rel_tol=1e-9)):
            problems.append("%s: %s floor %s, expected %.6f ms over %.6f and %.6f" % (
                name, mode, f, floor_ms, step, target))
        # The same shares of the GEMM kernel's ceiling, where it was measured.
        kernel = peak[mode + "_kernel"]
        kernel_ms = floor["gemm_gflop"] / kernel * 1e3 if kernel else None
        if not kernel_ms:
            if "kernel_floor_ms" in f:
                problems.append("%s: a %s kernel floor without a kernel rate" % (name, mode))
        elif not (math.isclose(f["kernel_floor_ms"], kernel_ms, rel_tol=1e-9)
                  and math.isclose(f["mpc_share_of_kernel"], kernel_ms / step, rel_tol=1e-9)
                  and math.isclose(f["target_share_of_kernel"], kernel_ms / target,
                                   rel_tol=1e-9)):
            problems.append("%s: %s kernel floor %s, expected %.6f ms" % (name, mode, f,
                                                                          kernel_ms))
if peak["fp32"]:
    printed = open(sys.argv[2]).read()
    if "Compute floor: the GEMMs' multiply-adds at one core's peak" not in printed:
        problems.append("no compute floor table in the output")
    for name, entry in models.items():
        row = "| %s | %.3f | %.3f | " % (name, entry["floor"]["gemm_gflop"],
                                        entry["floor"]["fp32"]["floor_ms"])
        if row not in printed:
            problems.append("no floor row '%s' in the output" % row)
        f = entry["floor"]["fp32"]
        if "kernel_floor_ms" in f:
            cell = "| %.0f%% (%.0f%%) |" % (100 * f["mpc_share_of_peak"],
                                           100 * f["mpc_share_of_kernel"])
            if row + cell[2:] not in printed:
                problems.append("no share of the kernel's ceiling '%s' in %s's row" % (cell,
                                                                                      name))
if problems:
    sys.exit("\n".join(problems))
