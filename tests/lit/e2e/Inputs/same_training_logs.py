"""Compares the per-step records of two `mpc train --log` files: every step's
loss, loss scale and skip flag must be equal as logged (7 significant
digits; the bitwise comparison is of the checkpoints). Prints "N steps agree;
skipped K; loss A -> B" and exits 0, or names the first difference and exits
1. Logs with no step, or of different lengths, fail.

usage: same_training_logs.py A.jsonl B.jsonl
"""
import json
import sys


def steps(path):
  with open(path) as f:
    return [r for r in map(json.loads, f) if 'step' in r]


a, b = steps(sys.argv[1]), steps(sys.argv[2])
if not a or len(a) != len(b):
  sys.exit('logs of %d and %d steps: nothing to compare step by step' % (len(a), len(b)))
keys = ('step', 'loss', 'loss_scale', 'skipped')
for x, y in zip(a, b):
  for key in keys:
    if x.get(key) != y.get(key):
      sys.exit('step %s: %s %r != %r' % (x.get('step'), key, x.get(key), y.get(key)))
skipped = sum(1 for r in a if r.get('skipped'))
print('%d steps agree; skipped %d; loss %.6g -> %.6g' % (len(a), skipped, a[0]['loss'],
                                                                  a[-1]['loss']))
