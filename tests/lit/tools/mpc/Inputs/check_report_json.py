"""Checks `mpc report --json` output against the fields docs/design.md documents
(section "Reports"), and that the figures agree with each other.

usage: check_report_json.py REPORT.json [...]   (each file one report)
Prints "ok FILE: N programs" per file; exits 1 naming the first problem.
"""
import json
import sys

NUMBER = (int, float)

# field: type, or a nested schema (dict), or [schema] for a list of them.
PRECISION_OP = {"op": str, "location": str, "category": str, "storage": str,
                "compute": str, "forced": bool, "reason": str}
PRECISION = {"mode": str, "casts_inserted": int, "casts_removed": int,
             "working_copies": int, "categories": dict, "ops": [PRECISION_OP]}
STEP = {"kind": str, "name": str, "what": str, "ops": list, "read_bytes": int,
        "written_bytes": int, "flops": NUMBER, "roofline_us": NUMBER, "bound": str}
TRANSIENT = {"live_bytes": int, "inputs": int, "activations": int, "gradients": int,
             "scratch": int}
ROOFLINE = {"gpu": str, "low_precision_gemm_flops_per_s": NUMBER, "fp32_flops_per_s": NUMBER,
            "bandwidth_bytes_per_s": NUMBER, "step_us": NUMBER, "memory_bound_us": NUMBER}
REPORT = {"program": str, "precision": PRECISION, "launches_per_step": int, "steps": [STEP],
          "read_bytes_per_step": int, "written_bytes_per_step": int, "flops_per_step": NUMBER,
          "unfused_bytes_per_step": int,
          "roofline": ROOFLINE, "arena_bytes": int, "persistent_bytes": int,
          "persistent_by_category": dict, "transient_at_peak": TRANSIENT,
          "live_bytes_timeline": list}
FP32_BASELINE = {"arena_bytes": int, "persistent_bytes": int, "transient_at_peak": TRANSIENT,
                 "live_bytes_timeline": list}


def check(value, schema, where):
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            raise SystemExit(f"{where}: expected an object")
        for key, sub in schema.items():
            if key not in value:
                raise SystemExit(f"{where}: missing \"{key}\"")
            check(value[key], sub, f"{where}.{key}")
    elif isinstance(schema, list):
        if not isinstance(value, list):
            raise SystemExit(f"{where}: expected a list")
        for i, item in enumerate(value):
            check(item, schema[0], f"{where}[{i}]")
    elif schema is int and isinstance(value, bool) or not isinstance(value, schema):
        raise SystemExit(f"{where}: {value!r} is not {schema}")


def main():
    for path in sys.argv[1:]:
        reports = json.load(open(path))
        if not isinstance(reports, list) or not reports:
            raise SystemExit(f"{path}: expected a list of program reports")
        for i, report in enumerate(reports):
            where = f"{path}[{i}]"
            check(report, REPORT, where)
            mode = report["precision"]["mode"]
            if mode != "fp32":
                check(report.get("fp32_baseline"), FP32_BASELINE, where + ".fp32_baseline")
            steps = report["steps"]
            if report["launches_per_step"] != len(steps):
                raise SystemExit(f"{where}: launches_per_step is not the number of steps")
            for key in ("read_bytes", "written_bytes"):
                if sum(s[key] for s in steps) != report[key + "_per_step"]:
                    raise SystemExit(f"{where}: {key}_per_step is not the sum of the steps'")
            if abs(sum(s["flops"] for s in steps) - report["flops_per_step"]) > 1e-6 * (1 + report["flops_per_step"]):
                raise SystemExit(f"{where}: flops_per_step is not the sum of the steps'")
            if abs(sum(s["roofline_us"] for s in steps) - report["roofline"]["step_us"]) > 1e-6:
                raise SystemExit(f"{where}: roofline.step_us is not the sum of the steps'")
            for s in steps:
                if s["kind"] not in ("kernel", "gemm", "copy") or s["bound"] not in ("memory", "compute"):
                    raise SystemExit(f"{where}: a step of unknown kind or bound: {s}")
                if s["kind"] == "gemm" and s["flops"] <= 0:
                    raise SystemExit(f"{where}: a GEMM without FLOPs: {s}")
                if s["kind"] == "kernel" and not ({"grid", "block"} <= s.keys()):
                    raise SystemExit(f"{where}: a kernel without its launch configuration")
            timeline = report["live_bytes_timeline"]
            if not timeline or max(timeline) != report["transient_at_peak"]["live_bytes"]:
                raise SystemExit(f"{where}: the timeline's peak is not transient_at_peak.live_bytes")
            if max(timeline) > report["arena_bytes"]:
                raise SystemExit(f"{where}: more bytes live than the arena holds")
            total = sum(report["precision"]["categories"].values())
            if total != len(report["precision"]["ops"]):
                raise SystemExit(f"{where}: the category counts do not add up to the ops")
        print(f"ok {path}: {len(reports)} programs")


if __name__ == "__main__":
    main()
