"""Runs a loss-scaled training step of the MLP example one step at a time
with `mpc run`, each step resuming from the checkpoint the previous one
saved, on batches that are finite or poisoned (a NaN or a value that is inf
in fp16 among the pixels), and prints per step: the scale the step used, the
scale after it, whether it was skipped, and whether the parameters, the
optimizer state and the step counter are bitwise what they were before it.

usage: loss_scale_steps.py MPC BUNDLE WORKDIR PLAN
PLAN: one letter per step: f finite, n NaN, i inf (in fp16).
"""
import json, struct, subprocess, sys

import numpy as np

mpc, bundle, work, plan = sys.argv[1:5]


def load(path):
    data = open(path, 'rb').read()
    n = struct.unpack('<Q', data[:8])[0]
    header = json.loads(data[8:8 + n])
    types = {'F32': np.float32, 'F16': np.float16, 'I64': np.int64, 'I32': np.int32}
    out = {}
    for name, spec in header.items():
        if name == '__metadata__':
            continue
        start, end = spec['data_offsets']
        out[name] = np.frombuffer(data[8 + n + start:8 + n + end],
                                  types[spec['dtype']]).reshape(spec['shape'])
    return out


rng = np.random.default_rng(0)
labels = rng.integers(0, 10, 64).astype(np.int32)
np.save(work + '/labels.npy', labels)
checkpoint = work + '/state.safetensors'
before = None
for step, kind in enumerate(plan):
    pixels = rng.random((64, 64)).astype(np.float32)
    if kind == 'n':
        pixels[3, 5] = np.nan
    elif kind == 'i':
        pixels[7, 1] = 1e6  # above fp16's largest finite value, 65504
    np.save(work + '/pixels.npy', pixels)
    command = [mpc, 'run', bundle, '--seed', '1', '-i', 'pixels=' + work + '/pixels.npy',
               '-i', 'labels=' + work + '/labels.npy', '-o', 'loss_scale=' + work + '/scale.npy',
               '-o', 'skipped=' + work + '/skipped.npy', '--save-params', checkpoint]
    if before is not None:
        command += ['--params', checkpoint]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode:
        print(result.stderr)
        sys.exit(1)
    after = load(checkpoint)
    trained = [k for k in after if not k.startswith('loss_scale')]
    unchanged = before is not None and all(
        before[k].tobytes() == after[k].tobytes() for k in trained)
    # (a static scale has no state: '-')
    state = lambda name, kind: '%g' % kind(after[name]) if name in after else '-'
    print('step %d %s: used %g, next %s, skipped %s, unchanged %s, good_steps %s, '
          'skipped_steps %s' % (step, kind, float(np.load(work + '/scale.npy')),
                                state('loss_scale', float), bool(np.load(work + '/skipped.npy')),
                                unchanged, state('loss_scale.good_steps', int),
                                state('loss_scale.skipped_steps', int)))
    before = after
