"""Checks `mpc-bench --profile` JSON against the bundle's step list
(`mpc report --json` of the same graph): one entry per step, in order, each
named as the step it timed, with a non-negative time, and the total the sum
(a GEMM with a relu_grad hint times the launch after it too, which has no
entry of its own, so entries are numbered as the backend runs the steps).

  check_step_profile.py PROFILE.json REPORT.json
"""
import json
import math
import sys

bench = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))[0]
profile = bench["profile"]
fail = []
if [p["step"] for p in profile] != list(range(len(profile))):
    fail.append("steps not 0..n-1 in order: %s" % [p["step"] for p in profile])
kinds = [p["what"].split()[0] for p in profile]
for kind in ("kernel", "gemm"):
    if kind not in kinds:
        fail.append("no %s step" % kind)
# The report counts every step of the program as a launch, copies included;
# a GEMM taking a relu_grad hint runs the launch after it too.
fused = sum(p["what"].startswith("gemm") and p["what"].endswith(" relu_grad") for p in profile)
if len(profile) + fused != report["launches_per_step"]:
    fail.append("%d entries (%d GEMMs with the launch after them) for %d steps"
                % (len(profile), fused, report["launches_per_step"]))
if any(not (p["us"] >= 0) for p in profile):
    fail.append("a negative or missing time")
total = sum(p["us"] for p in profile)
if not math.isclose(total, bench["profile_us_per_step"], rel_tol=1e-3, abs_tol=1e-3):
    fail.append("total %g is not the sum %g" % (bench["profile_us_per_step"], total))
if not math.isclose(sum(p["share"] for p in profile), 1.0, rel_tol=1e-3):
    fail.append("shares do not add up to 1")
if fail:
    sys.exit("check_step_profile.py: " + "; ".join(fail))
print("profile ok: %d steps, %d gemms, %d with the launch after them"
      % (len(profile), kinds.count("gemm"), fused))
