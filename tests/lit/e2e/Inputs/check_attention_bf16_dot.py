"""attention-bf16-dot.test: the causal attention of attention_bf16.mlir, run
with the host's bf16 dot products and with MPC_HOST_BF16_DOT=0 (fp32
products), against float64 from the same bf16 inputs. Each must be within
bf16's rounding of y plus two roundings of sum_j p |v_j| (the bf16 form
rounds p for its product with v), and the two must differ: the switch
changes the form.

  check_attention_bf16_dot.py DIR   (DIR holds q, k, v, dot and fp32 .npy)
"""
import sys

import numpy as np

UNIT = 2.0 ** -8


def to_bf16(a):
    """f32 -> bf16 -> f32, rounding to nearest even."""
    bits = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7fff + ((bits >> 16) & 1)) & 0xffff0000
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def main(folder):
    q, k, v = (to_bf16(np.load('%s/%s.npy' % (folder, name))) for name in 'qkv')
    scores = 0.125 * q @ np.swapaxes(k, -1, -2)
    keys = scores.shape[-1]
    scores[..., np.triu_indices(keys, 1)[0], np.triu_indices(keys, 1)[1]] = -np.inf
    p = np.exp(scores - scores.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    want, magnitude = p @ v, p @ np.abs(v)
    bound = UNIT * (np.abs(want) + 2 * magnitude)
    results = {}
    for form in ('dot', 'fp32'):
        got = np.load('%s/%s.npy' % (folder, form)).astype(np.float64)
        assert got.shape == want.shape and got.size > 0, 'no elements compared'
        results[form] = got
        worst = (np.abs(got - want) / bound).max()
        print('%s: %s (worst %.2f of the bound), %d elements' %
              (form, 'within' if worst <= 1 else 'OUT OF BOUND', worst, got.size))
    print('forms differ: %s' % ('yes' if np.any(results['dot'] != results['fp32']) else 'no'))


if __name__ == '__main__':
    main(sys.argv[1])
