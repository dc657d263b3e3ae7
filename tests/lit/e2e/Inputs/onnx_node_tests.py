"""ONNX's backend node tests (Debian's libonnx-testdata) through `mpc run`.

Each case is a one-node model with its inputs and expected outputs as
TensorProto files. A checked-in list says what mpc does with every case:

    test_relu            run
    test_gather_1        refused  only a Gather of rows of a [V, D] table
    test_batchnorm_...   differs  the running variance is PyTorch's

`run`: `mpc run model.onnx` with the case's inputs gives the expected
outputs within the suite's own tolerance (rtol 1e-3, atol 1e-7, as ONNX's
backend runner; integers and booleans exactly). `refused`: mpc exits with an
error whose message contains the listed reason, and writes no output.
`differs`: mpc runs the case and knowingly computes something else, for the
reason given (the case must still run and still differ).

    onnx_node_tests.py MPC DATA LIST WORKDIR [--jobs N]
        checks every listed case; exits 1 if any case does otherwise than
        its line says, or if a listed case is missing from DATA.
    onnx_node_tests.py MPC DATA LIST WORKDIR --survey
        runs every case in DATA and writes what happened as a new list to
        LIST (to review before checking it in).
"""

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

RTOL, ATOL = 1e-3, 1e-7


def read_tensor(path):
    tensor = onnx.TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return numpy_helper.to_array(tensor)


def case_files(case_dir):
    """The model's input and output names, and each data set's arrays."""
    model = onnx.load(os.path.join(case_dir, "model.onnx"))
    initializers = {t.name for t in model.graph.initializer}
    inputs = [v.name for v in model.graph.input if v.name not in initializers]
    outputs = [v.name for v in model.graph.output]
    sets = []
    for entry in sorted(os.listdir(case_dir)):
        data = os.path.join(case_dir, entry)
        if not entry.startswith("test_data_set_"):
            continue
        ins = [read_tensor(os.path.join(data, "input_%d.pb" % i)) for i in range(len(inputs))]
        outs = [read_tensor(os.path.join(data, "output_%d.pb" % i)) for i in range(len(outputs))]
        sets.append((ins, outs))
    return inputs, outputs, sets


def error_reason(stderr, case_dir):
    """mpc's first error line without its 'mpc: error: PATH: ' prefix."""
    for line in stderr.splitlines():
        if "error:" in line:
            reason = line.split("error:", 1)[1].strip()
            model = os.path.join(case_dir, "model.onnx")
            if reason.startswith(model + ": "):
                reason = reason[len(model) + 2:]
            return re.sub(r"^node '[^']*' \([^)]*\): ", "", reason)
    return stderr.strip().splitlines()[-1] if stderr.strip() else "no message"


def run_case(mpc, case_dir, work):
    """('run', compared elements, worst error) or ('refused', reason) or
    ('wrong', what)."""
    try:
        inputs, outputs, sets = case_files(case_dir)
    except (ValueError, TypeError):
        # (data that is not a tensor, such as a sequence: mpc's import
        # refuses such a model before it asks for inputs)
        done = subprocess.run([mpc, "run", os.path.join(case_dir, "model.onnx")],
                              capture_output=True, text=True)
        if done.returncode != 0 and "is not bound" not in done.stderr:
            return ("refused", error_reason(done.stderr, case_dir))
        return ("wrong", "its data is not tensors, and mpc does not refuse the model")
    if not sets:
        return ("wrong", "the case has no data set")
    os.makedirs(work, exist_ok=True)
    compared, worst = 0, 0.0
    for index, (ins, expected) in enumerate(sets):
        command = [mpc, "run", os.path.join(case_dir, "model.onnx")]
        for k, (name, array) in enumerate(zip(inputs, ins)):
            path = os.path.join(work, "in_%d_%d.npy" % (index, k))
            np.save(path, array)
            command += ["-i", "%s=%s" % (name, path)]
        out_paths = []
        for k, name in enumerate(outputs):
            path = os.path.join(work, "out_%d_%d.npy" % (index, k))
            if os.path.exists(path):
                os.remove(path)
            out_paths.append(path)
            command += ["-o", "%s=%s" % (name, path)]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            reason = error_reason(done.stderr, case_dir)
            if any(os.path.exists(p) for p in out_paths):
                return ("wrong", "refused (%s) but wrote an output" % reason)
            return ("refused", reason)
        for name, path, want in zip(outputs, out_paths, expected):
            got = np.load(path)
            if got.shape != want.shape:
                return ("wrong", "output %s has shape %s, expected %s" % (name, got.shape, want.shape))
            if want.dtype.kind in "fc":
                got64, want64 = got.astype(np.float64), want.astype(np.float64)
                bad = ~np.isclose(got64, want64, rtol=RTOL, atol=ATOL, equal_nan=True)
                if bad.any():
                    i = np.argmax(bad)
                    return ("wrong", "output %s differs at %d of %d elements (first: %r, expected %r)"
                            % (name, bad.sum(), bad.size, got64.flat[i], want64.flat[i]))
                finite = np.isfinite(want64)
                if finite.any():
                    worst = max(worst, float(np.max(np.abs(got64 - want64)[finite]
                                                    / (ATOL + RTOL * np.abs(want64[finite])))))
            elif got.dtype.kind != want.dtype.kind and not (
                    got.dtype.kind in "iu" and want.dtype.kind in "iu"):
                return ("wrong", "output %s is %s, expected %s" % (name, got.dtype, want.dtype))
            elif not np.array_equal(got.astype(want.dtype), want):
                return ("wrong", "output %s differs (integers or booleans)" % name)
            compared += want.size
    if compared == 0:
        return ("wrong", "no elements were compared")
    return ("run", compared, worst)


def read_list(path):
    cases = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            if len(parts) < 2 or parts[1] not in ("run", "refused", "differs") or (
                    parts[1] != "run" and len(parts) < 3):
                sys.exit("%s:%d: expected 'CASE run', 'CASE refused REASON' or "
                         "'CASE differs REASON'" % (path, number))
            cases[parts[0]] = (parts[1], parts[2] if len(parts) > 2 else "")
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mpc")
    parser.add_argument("data", help="the node tests' folder")
    parser.add_argument("list")
    parser.add_argument("work")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--survey", action="store_true")
    args = parser.parse_args()

    if args.survey:
        names = sorted(os.listdir(args.data))
    else:
        listed = read_list(args.list)
        names = sorted(listed)
    missing = [n for n in names if not os.path.isdir(os.path.join(args.data, n))]

    def one(name):
        return name, run_case(args.mpc, os.path.join(args.data, name), os.path.join(args.work, name))

    present = [n for n in names if n not in missing]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = dict(pool.map(one, present))

    if args.survey:
        with open(args.list, "w") as f:
            f.write("# ONNX backend node tests (libonnx-testdata %s) in mpc: run = matches the\n"
                    "# expected outputs through `mpc run`; refused = mpc's error says why.\n"
                    "# Written by onnx_node_tests.py --survey, then reviewed.\n" % onnx.__version__)
            for name in names:
                result = results[name]
                if result[0] == "run":
                    f.write("%s run\n" % name)
                elif result[0] == "refused":
                    # (an unsupported op's reason without the list of those
                    # that are)
                    f.write("%s refused %s\n" % (name, result[1].split("; mpc imports ")[0]))
                else:
                    f.write("# %s wrong: %s\n" % (name, result[1]))
        counts = {}
        for result in results.values():
            counts[result[0]] = counts.get(result[0], 0) + 1
        print("survey:", counts)
        return 0

    failures = ["%s: listed but not in %s" % (n, args.data) for n in missing]
    ran = refused = differs = elements = 0
    worst = 0.0
    for name in present:
        expect, reason = listed[name]
        result = results[name]
        if expect == "run":
            if result[0] != "run":
                failures.append("%s: expected to run, but %s: %s" % (name, result[0], result[1]))
                continue
            ran += 1
            elements += result[1]
            worst = max(worst, result[2])
        elif expect == "differs":
            if result[0] == "run":
                failures.append("%s: listed as differing (%s) but now matches; list it as run"
                                % (name, reason))
            elif result[0] != "wrong" or not result[1].startswith("output "):
                failures.append("%s: listed as differing (%s), but %s: %s"
                                % (name, reason, result[0], result[1]))
            else:
                differs += 1
        else:
            if result[0] == "run":
                failures.append("%s: listed as refused (%s) but now runs; list it as run"
                                % (name, reason))
            elif result[0] != "refused" or reason not in result[1]:
                failures.append("%s: expected refusal '%s', got %s: %s"
                                % (name, reason, result[0], result[1]))
            else:
                refused += 1
    for line in failures:
        print("FAIL", line)
    print("%d cases run and match (%d elements; worst error %.3f of the tolerance), "
          "%d refused as listed, %d differ as listed, %d failures"
          % (ran, elements, worst, refused, differs, len(failures)))
    return 1 if failures or ran == 0 or elements == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
