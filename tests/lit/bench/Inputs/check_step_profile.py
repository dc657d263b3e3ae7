"""Checks `mpc-bench --profile` JSON against the bundle's step list
(`mpc report --json` of the same graph): one entry per step the backend runs,
in order, numbered by the manifest's step, each named as the step it timed,
with a non-negative time, and the total the sum. A GEMM taking its relu_grad
hint times the launch after it too, and one taking its im2col_b hint skips
the launch before it: those launches have no entry, and their numbers are
the only ones missing.

  check_step_profile.py PROFILE.json REPORT.json
"""
import json
import math
import sys

bench = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))[0]
profile = bench["profile"]
fail = []
steps = [p["step"] for p in profile]
# The launches a GEMM stands for: the one after a relu_grad GEMM, the one
# before an im2col GEMM.
folded = set()
for p in profile:
    if p["what"].startswith("gemm") and " relu_grad" in p["what"]:
        folded.add(p["step"] + 1)
    if p["what"].startswith("gemm") and p["what"].endswith(" im2col"):
        folded.add(p["step"] - 1)
expected = [i for i in range(len(profile) + len(folded)) if i not in folded]
if steps != expected:
    fail.append("steps %s, expected %s" % (steps, expected))
kinds = [p["what"].split()[0] for p in profile]
for kind in ("kernel", "gemm"):
    if kind not in kinds:
        fail.append("no %s step" % kind)
# The report counts every step of the program as a launch, copies included.
fused = sum(p["what"].startswith("gemm") and " relu_grad" in p["what"] for p in profile)
gathered = sum(p["what"].startswith("gemm") and p["what"].endswith(" im2col") for p in profile)
if len(profile) + fused + gathered != report["launches_per_step"]:
    fail.append("%d entries (%d GEMMs with the launch after them, %d without the one "
                "before) for %d steps"
                % (len(profile), fused, gathered, report["launches_per_step"]))
if any(not (p["us"] >= 0) for p in profile):
    fail.append("a negative or missing time")
total = sum(p["us"] for p in profile)
if not math.isclose(total, bench["profile_us_per_step"], rel_tol=1e-3, abs_tol=1e-3):
    fail.append("total %g is not the sum %g" % (bench["profile_us_per_step"], total))
if not math.isclose(sum(p["share"] for p in profile), 1.0, rel_tol=1e-3):
    fail.append("shares do not add up to 1")
if fail:
    sys.exit("check_step_profile.py: " + "; ".join(fail))
print("profile ok: %d steps, %d gemms, %d with the launch after them, %d without the "
      "one before" % (len(profile), kinds.count("gemm"), fused, gathered))
