"""Checks pool-forms.test's outputs against NumPy.

  check_pools.py DIR ROWS ELEMENTS
DIR holds the inputs (x28, x15, x30, x16, xs, xl, x9 .npy); ROWS and ELEMENTS
are the output prefixes of the two runs (the host's forms, and the GPU's
element form). Prints one line per output: whether the two runs are bitwise
the same and whether they match the reference: max pooling exactly (it
rounds nothing: the same NaNs, and each window's first zero when +0 and -0
tie, as mpc::max_f keeps the earlier of equal values), average pooling
within a rounding of the storage type.
"""
import math
import sys

import numpy as np

from form_checks import bf16, report


def pool(x, kernel, stride, pad, average, include_pad=False):
    """Windows in row-major order, each combined element by element in
    row-major order as the kernels do, in float64."""
    n, c, h, w = x.shape
    ho = (h + pad[0] + pad[2] - kernel) // stride + 1
    wo = (w + pad[1] + pad[3] - kernel) // stride + 1
    y = np.zeros((n, c, ho, wo))
    for i in range(n):
        for j in range(c):
            for oh in range(ho):
                for ow in range(wo):
                    acc, count = (0.0 if average else -math.inf), 0
                    for a in range(kernel):
                        for b in range(kernel):
                            r, s = oh * stride - pad[0] + a, ow * stride - pad[1] + b
                            if not (0 <= r < h and 0 <= s < w):
                                continue
                            v = float(x[i, j, r, s])
                            count += 1
                            if average:
                                acc += v
                            elif math.isnan(acc) or math.isnan(v):
                                acc = math.nan
                            elif acc < v:
                                acc = v
                    y[i, j, oh, ow] = acc / (kernel * kernel if include_pad else count) \
                        if average else acc
    return y


def report_exact(name, rows, elements, reference):
    a = np.load('%s-%s.npy' % (rows, name))
    b = np.load('%s-%s.npy' % (elements, name))
    same = a.shape == b.shape and a.tobytes() == b.tobytes()
    want = reference.astype(np.float32)
    nans = np.isnan(want)
    exact = a.shape == want.shape and np.array_equal(np.isnan(a), nans) and \
        a[~nans].tobytes() == want[~nans].tobytes()
    print('%s: %s, within tolerance %s' % (name, 'bitwise same' if same else 'DIFFERENT',
                                           'yes' if exact else 'NO'))


def main():
    folder, rows, elements = sys.argv[1:4]
    load = lambda name: np.load('%s/%s.npy' % (folder, name)).astype(np.float64)
    x28, x15, x30, x16 = load('x28'), load('x15'), load('x30'), load('x16')
    xs, xl, x9 = load('xs'), load('xl'), load('x9')
    none = (0, 0, 0, 0)
    report_exact('max28', rows, elements, pool(x28, 2, 2, none, False))
    report_exact('max15', rows, elements, pool(bf16(x15), 2, 2, none, False))
    report('avg30', rows, elements, bf16(pool(bf16(x30), 3, 3, none, True)), 2.0 ** -8)
    report('avg16', rows, elements, pool(x16, 2, 2, none, True, True), 2.0 ** -22)
    report_exact('max16', rows, elements, pool(x16, 4, 4, none, False))
    report_exact('maxs', rows, elements, pool(xs, 2, 2, none, False))
    report_exact('maxsh', rows, elements, pool(bf16(xs), 3, 3, none, False))
    report_exact('maxl', rows, elements, pool(bf16(xl), 2, 2, none, False))
    report_exact('max9', rows, elements, pool(x9, 3, 2, (1, 1, 1, 1), False))


main()
