#!/usr/bin/env python3
"""mpc's soak test: a long CPU training run killed with SIGKILL at random
points and resumed each time, and overflows injected into single gradient
elements. Exits non-zero when any check fails.

1. Kill and resume. `mpc train` (examples/mlp.mlir, fp16 with dynamic loss
   scaling, digits) runs STEPS steps uninterrupted while its resident memory
   is sampled; then the same run is started with --save-every, killed
   (SIGKILL) after a random time KILLS times, each time resumed from the
   newest checkpoint left (or from scratch when none is), and let finish.
   Checked: the final checkpoint equals the uninterrupted run's bitwise, and
   resident memory does not grow over the run (the median of the last quarter
   of the samples at most --rss-growth-mib above that of the second).
2. Injected overflows. tools/soak/probed_mlp.mlir adds sum(param * probe) to
   its loss for every parameter. Its training step (fp16, bf16 and fp32, each
   with dynamic loss scaling) is run one step at a time by `mpc run`, with
   zero probes, except at INJECTIONS random steps, where one random element
   of one random parameter's probe is large (1e38): that element's gradient
   overflows while the loss stays finite. Checked: the step is reported
   skipped, every parameter and the optimizer's state (moments, step) are
   bitwise unchanged, the loss scale halves; and the next step is not skipped.

The test suite runs a short form (tests/lit/e2e/soak.test: the defaults,
20000 steps, 3 kills); the long form is

    /usr/bin/python3 tools/soak/soak.py --long

whose last result is recorded in bench/results/. Everything is seeded
(--seed): a failure reruns the same way.
"""
import argparse
import glob
import json
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DIGITS = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"


def fail(message):
    print("soak: FAILED: " + message, flush=True)
    sys.exit(1)


def read_safetensors(path):
    """{name: (dtype, shape, raw bytes)} of a safetensors file."""
    with open(path, "rb") as f:
        data = f.read()
    size = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + size])
    header.pop("__metadata__", None)
    body = data[8 + size:]
    return {name: (entry["dtype"], entry["shape"],
                   body[entry["data_offsets"][0]:entry["data_offsets"][1]])
            for name, entry in header.items()}


def scalar(tensors, name):
    dtype, _, raw = tensors[name]
    return {"F32": np.float32, "I64": np.int64}[dtype](np.frombuffer(raw, {
        "F32": np.float32, "I64": np.int64}[dtype])[0])


def resident_kib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


# --- 1. kill and resume -------------------------------------------------

def train_command(args, steps, save, extra=()):
    return [args.mpc, "train", os.path.join(ROOT, "examples", "mlp.mlir"), "--data", DIGITS,
            "--precision", "fp16", "--seed", str(args.seed), "--steps", str(steps),
            "--save", save, "--quiet"] + list(extra)


# Resident memory is sampled every 20 ms; the first quarter of the samples
# (loading, the first steps) is not compared.
MIN_SAMPLES = 20


def uninterrupted(args, folder):
    """Runs the whole training once, sampling resident memory; returns the
    final checkpoint's path and the samples (KiB)."""
    save = os.path.join(folder, "straight.safetensors")
    run = subprocess.Popen(train_command(args, args.steps, save), stdout=subprocess.DEVNULL)
    samples = []
    while run.poll() is None:
        rss = resident_kib(run.pid)
        if rss is not None:
            samples.append(rss)
        time.sleep(0.02)
    if run.returncode != 0:
        fail("the uninterrupted run exited with status %d" % run.returncode)
    return save, samples


def newest_checkpoint(folder):
    found = {}
    for path in glob.glob(os.path.join(folder, "run.step*.safetensors")):
        match = re.search(r"\.step(\d+)\.safetensors$", path)
        if match:
            found[int(match.group(1))] = path
    if not found:
        return 0, None
    step = max(found)
    return step, found[step]


def wait_for_checkpoint(run, folder, step):
    """Waits until `run` has written the checkpoint of `step` (or a later
    one), or has ended."""
    while run.poll() is None and newest_checkpoint(folder)[0] < step:
        time.sleep(0.01)


def killed_and_resumed(args, folder, rng, seconds):
    """Trains to args.steps through up to args.kills SIGKILLs, aimed at
    random steps spread over the whole run: a kill waits for the periodic
    checkpoint before its step, then for the rest of the way by the
    uninterrupted run's speed (a run slowed by a loaded machine still has
    its kill after that checkpoint; a run that ends before its kill is not
    killed). Returns the final
    checkpoint's path and the newest checkpoint's step after each kill (0:
    none yet)."""
    save = os.path.join(folder, "run.safetensors")
    targets = sorted(rng.randrange(1, args.steps) for _ in range(args.kills))
    stops = []
    while True:
        done, newest = newest_checkpoint(folder)
        if done == args.steps:
            # (killed after its last periodic checkpoint, before --save: that
            # checkpoint is the end of training)
            shutil.copyfile(newest, save)
            return save, stops
        extra = ["--save-every", str(args.save_every), "--keep-checkpoints", "2"]
        if newest:
            extra += ["--init", newest]
        run = subprocess.Popen(train_command(args, args.steps - done, save, extra),
                               stdout=subprocess.DEVNULL)
        # (a kill aimed at a step the resumed run starts after comes at its
        # start: a kill while it loads)
        if len(stops) < args.kills:
            aim = targets[len(stops)]
            wait_for_checkpoint(run, folder, aim - aim % args.save_every)
            time.sleep(max(aim - max(done, aim - aim % args.save_every), 0) * seconds / args.steps)
            if run.poll() is None:
                run.send_signal(signal.SIGKILL)
                run.wait()
                stops.append(newest_checkpoint(folder)[0])
                continue
        if run.wait() != 0:
            fail("the run resumed from step %d exited with status %d" % (done, run.returncode))
        return save, stops


def kill_and_resume(args, rng):
    folder = os.path.join(args.out, "kill-and-resume")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    # One step first, so that the kernels are compiled (and cached) before
    # the uninterrupted run is timed: the kills are placed by that time.
    subprocess.run(train_command(args, 1, os.path.join(folder, "warm.safetensors")),
                   check=True, stdout=subprocess.DEVNULL)
    started = time.time()
    straight, samples = uninterrupted(args, folder)
    seconds = time.time() - started
    resumed, stops = killed_and_resumed(args, folder, rng, seconds)
    with open(straight, "rb") as a, open(resumed, "rb") as b:
        identical = a.read() == b.read()
    quarter = max(1, len(samples) // 4)
    early = float(np.median(samples[quarter:2 * quarter])) if len(samples) >= 4 else 0.0
    late = float(np.median(samples[-quarter:])) if len(samples) >= 4 else 0.0
    growth = (late - early) / 1024
    print("kill and resume: %d steps in %.1f s uninterrupted; killed %d times (newest "
          "checkpoints then: %s); final parameters %s" % (
              args.steps, seconds, len(stops), stops,
              "bitwise identical" if identical else "DIFFERENT"))
    print("resident memory: %d samples; median %.1f MiB in the second quarter, %.1f MiB in the "
          "last; growth %.2f MiB (limit %.1f)" % (len(samples), early / 1024, late / 1024,
                                                 growth, args.rss_growth_mib))
    if not stops:
        fail("no run was killed: every one ended first")
    if not any(stops):
        fail("every kill came before the first checkpoint: no run resumed from one (fewer "
             "--save-every steps)")
    if not identical:
        fail("the resumed run's parameters differ from the uninterrupted run's")
    if len(samples) < MIN_SAMPLES:
        fail("the run ended before its memory could be sampled enough (%d samples of %d): "
             "more --steps" % (len(samples), MIN_SAMPLES))
    if growth > args.rss_growth_mib:
        fail("resident memory grew by %.2f MiB" % growth)


# --- 2. injected overflows ----------------------------------------------

PARAMS = {"fc1.weight": (64, 32), "fc1.bias": (32,), "fc2.weight": (32, 10), "fc2.bias": (10,)}
# A probe element that overflows that element's scaled gradient (the scale,
# at least 4 here, times 1e38 is past float32's largest, 3.4e38) but not the
# loss: the probe's product with the parameter (below 3.4 in magnitude) is
# summed in fp32 in every precision. The scale starts at 65536 and halves at
# each injection, so at most 13 injections a precision stay above 4.
OVERFLOWING_PROBE = 1.0e38


def run_step(args, bundle, folder, step, params, probes, data_rng):
    inputs = {"pixels": data_rng.random((32, 64), dtype=np.float32),
              "labels": data_rng.integers(0, 10, 32).astype(np.int32)}
    for name, shape in PARAMS.items():
        inputs["probe." + name] = probes.get(name, np.zeros(shape, np.float32))
    command = [args.mpc, "run", bundle, "--seed", str(args.seed)]
    for name, value in inputs.items():
        path = os.path.join(folder, name + ".npy")
        np.save(path, value)
        command += ["-i", "%s=%s" % (name, path)]
    saved = os.path.join(folder, "step%d.safetensors" % step)
    outputs = {name: os.path.join(folder, name + ".out.npy") for name in ("loss", "skipped")}
    for name, path in outputs.items():
        command += ["-o", "%s=%s" % (name, path)]
    if params:
        command += ["--params", params]
    command += ["--save-params", saved]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        fail("mpc run (step %d) exited with status %d: %s" % (
            step, result.returncode, result.stderr.strip()))
    return saved, float(np.load(outputs["loss"])), bool(np.load(outputs["skipped"]))


def injected_overflows(args, rng):
    folder = os.path.join(args.out, "injected")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    graph = os.path.join(HERE, "probed_mlp.mlir")
    checked = 0
    for precision in ("fp16", "bf16", "fp32"):
        bundle = os.path.join(folder, precision + ".mpcb")
        subprocess.run([args.mpc, "compile", graph, "-o", bundle, "--step", "train",
                        "--precision", precision, "--loss-scale", "dynamic"], check=True)
        steps = args.injection_steps
        inject_at = sorted(rng.sample(range(2, steps), args.injections))
        data_rng = np.random.default_rng(args.seed)
        params, after_skip = None, False
        for step in range(1, steps + 1):
            probes, where = {}, None
            if step in inject_at:
                name = rng.choice(sorted(PARAMS))
                probe = np.zeros(PARAMS[name], np.float32)
                index = tuple(rng.randrange(d) for d in PARAMS[name])
                probe[index] = OVERFLOWING_PROBE
                probes[name], where = probe, "%s%s" % (name, list(index))
            saved, loss, skipped = run_step(args, bundle, folder, step, params, probes, data_rng)
            if where:
                check_skipped(precision, step, where, params, saved, loss, skipped)
                checked += 1
            elif skipped and after_skip:
                fail("%s: step %d, after an injected overflow, was skipped as well" % (
                    precision, step))
            after_skip = bool(where)
            if params and params != saved:
                os.remove(params)
            params = saved
        print("injected overflows, %s: steps %s of %d, each skipped with every parameter and "
              "the optimizer's state unchanged and the loss scale halved" % (
                  precision, inject_at, steps))
    if checked == 0:
        fail("no overflow was injected: nothing was checked")


def check_skipped(precision, step, where, before_path, after_path, loss, skipped):
    what = "%s: step %d, an overflow injected into the gradient of %s" % (precision, step, where)
    if not np.isfinite(loss):
        fail(what + ": the loss is %r; the probe should leave it finite" % loss)
    if not skipped:
        fail(what + ": the step was not skipped")
    before, after = read_safetensors(before_path), read_safetensors(after_path)
    scaler = {"loss_scale", "loss_scale.good_steps", "loss_scale.skipped_steps"}
    changed = [name for name in before if name not in scaler and before[name] != after[name]]
    if changed:
        fail(what + ": the step changed %s" % ", ".join(changed))
    if scalar(after, "loss_scale") != scalar(before, "loss_scale") / 2:
        fail(what + ": the loss scale went from %g to %g, not halved" % (
            scalar(before, "loss_scale"), scalar(after, "loss_scale")))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mpc", default=os.path.join(ROOT, "build", "bin", "mpc"))
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "soak"),
                        help="working folder (replaced)")
    parser.add_argument("--steps", type=int, default=20000, help="training steps of part 1")
    parser.add_argument("--kills", type=int, default=3, help="SIGKILLs in part 1")
    parser.add_argument("--save-every", type=int, default=1000)
    parser.add_argument("--rss-growth-mib", type=float, default=2.0)
    parser.add_argument("--injections", type=int, default=2,
                        help="overflows injected per precision in part 2")
    parser.add_argument("--injection-steps", type=int, default=8,
                        help="steps run per precision in part 2")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--long", action="store_true",
                        help="the long form: --steps 500000 --kills 20 --save-every 5000 "
                             "--injections 10 --injection-steps 60")
    args = parser.parse_args()
    if args.long:
        args.steps, args.kills, args.save_every = 500000, 20, 5000
        args.injections, args.injection_steps = 10, 60
    if args.injections > args.injection_steps - 2 or args.injections > 13:
        parser.error("--injections must be at most 13 and below --injection-steps - 1")
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(args.seed)
    started = time.time()
    kill_and_resume(args, rng)
    injected_overflows(args, rng)
    print("soak: passed in %.0f s" % (time.time() - started))


if __name__ == "__main__":
    main()
