"""Checks the JSON of bench/cpu_vs_pytorch.py --quick: every model has every
timing (positive) and every round's times, ratios that are the quotients of
its medians, a verdict per target, and static measures where fusion moved
fewer bytes than the unfused graph would."""
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
    if len(entry["targets"]) != 3 or not all(isinstance(v, bool) for v in entry["targets"].values()):
        problems.append("%s: targets %s" % (name, entry["targets"]))
    static = entry["static"]
    if not 0 < static["bytes_moved"] < static["unfused_bytes"]:
        problems.append("%s: moved %d of unfused %d" % (name, static["bytes_moved"],
                                                          static["unfused_bytes"]))
    if not (static["launches_per_step"] > 0 and static["casts_inserted"] > 0
            and static["peak_bytes_fp16"] > 0 and static["h200_roofline_us"] > 0):
        problems.append("%s: static %s" % (name, static))
if problems:
    sys.exit("\n".join(problems))
