"""Checks pool-grad-forms.test's outputs against float64 NumPy.

  check_pool_grads.py DIR ROWS ELEMENTS
DIR holds the inputs (x, dy1, dy2, dy3, xs, xf, dyf, xm, dy7, xw, dy10, dy15
.npy); ROWS and ELEMENTS are the output prefixes of the two runs. Prints one
line per output: whether the two runs are bitwise equal and the largest
error against the reference relative to the output's scale.
"""
import sys

import numpy as np

from form_checks import bf16


def windows(h, w, kernel, stride, pad, ho, wo):
    for oh in range(ho):
        for ow in range(wo):
            h0, w0 = oh * stride - pad[0], ow * stride - pad[1]
            yield oh, ow, h0, w0


def max_grad(x, dy, kernel, stride, pad):
    dx = np.zeros_like(x)
    n, c, h, w = x.shape
    for i in range(n):
        for j in range(c):
            for oh, ow, h0, w0 in windows(h, w, kernel, stride, pad, *dy.shape[2:]):
                best = None
                for a in range(kernel):
                    for b in range(kernel):
                        y, z = h0 + a, w0 + b
                        if not (0 <= y < h and 0 <= z < w):
                            continue
                        # The first maximum in row-major order; a NaN is
                        # larger than any number, and the first NaN stays.
                        v = x[i, j, y, z]
                        if best is None or v > x[i, j][best] or (np.isnan(v) and not np.isnan(x[i, j][best])):
                            best = (y, z)
                if best is not None:
                    dx[i, j][best] += dy[i, j, oh, ow]
    return dx


def avg_grad(dy, shape, kernel, stride, pad, include_pad):
    dx = np.zeros(shape)
    n, c, h, w = shape
    for i in range(n):
        for j in range(c):
            for oh, ow, h0, w0 in windows(h, w, kernel, stride, pad, *dy.shape[2:]):
                cells = [(h0 + a, w0 + b) for a in range(kernel) for b in range(kernel)]
                inside = [(y, z) for y, z in cells if 0 <= y < h and 0 <= z < w]
                if include_pad:
                    count = sum(1 for y, z in cells if y < h + pad[2] and z < w + pad[3])
                else:
                    count = len(inside)
                for y, z in inside:
                    dx[i, j, y, z] += dy[i, j, oh, ow] / count
    return dx


def main():
    folder, rows, elements = sys.argv[1:4]
    load = lambda name: np.load("%s/%s.npy" % (folder, name)).astype(np.float64)
    x, dy1, dy2, dy3 = bf16(load("x")), bf16(load("dy1")), bf16(load("dy2")), bf16(load("dy3"))
    xs32, dy332 = load("xs"), load("dy3")
    xf, dyf = load("xf"), load("dyf")
    xm, dy7, xw32 = load("xm"), load("dy7"), load("xw")
    pad1 = (1, 1, 1, 1)
    none = (0, 0, 0, 0)
    references = {
        "max1": (max_grad(x, dy1, 2, 2, pad1), 2.0 ** -8),
        "max2": (max_grad(x, dy2, 2, 3, (0, 0, 0, 0)), 2.0 ** -8),
        "max3": (max_grad(x, dy3, 2, 2, (0, 0, 0, 0)), 2.0 ** -8),
        "max4": (max_grad(x, dy2, 3, 3, (0, 0, 0, 0)), 2.0 ** -8),
        "maxs": (max_grad(bf16(xs32), dy3, 2, 2, (0, 0, 0, 0)), 2.0 ** -8),
        "maxsf": (max_grad(xs32, dy332, 2, 2, (0, 0, 0, 0)), 2.0 ** -23),
        "maxf3": (max_grad(xf, dy332, 2, 2, (0, 0, 0, 0)), 2.0 ** -23),
        "avg1": (avg_grad(dy1, x.shape, 2, 2, pad1, False), 2.0 ** -8),
        "avg2": (avg_grad(dy1, x.shape, 2, 2, pad1, True), 2.0 ** -8),
        "avg3": (avg_grad(dy2, x.shape, 2, 3, (0, 0, 0, 0), False), 2.0 ** -8),
        "maxf": (max_grad(xf, dyf, 2, 2, pad1), 2.0 ** -23),
        "avgf": (avg_grad(dyf, xf.shape, 2, 2, pad1, False), 2.0 ** -23),
        "maxb7": (max_grad(xm, dy7, 2, 2, none), 2.0 ** -23),
        "maxb7h": (max_grad(bf16(xm), bf16(dy7), 2, 2, none), 2.0 ** -8),
        "maxb10": (max_grad(bf16(xw32), bf16(load("dy10")), 3, 3, none), 2.0 ** -8),
        "maxb15": (max_grad(xw32, load("dy15"), 2, 2, none), 2.0 ** -23),
    }
    for name, (want, tolerance) in references.items():
        got_rows = np.load("%s-%s.npy" % (rows, name))
        got_elements = np.load("%s-%s.npy" % (elements, name))
        same = got_rows.tobytes() == got_elements.tobytes()
        error = np.max(np.abs(got_rows - want) / (np.abs(want) + 1e-30 + (want == 0)))
        print("%s: bitwise %s, within tolerance %s" % (name, "same" if same else "DIFFERENT",
                                                       "yes" if error <= tolerance else "NO (%g)" % error))


main()
