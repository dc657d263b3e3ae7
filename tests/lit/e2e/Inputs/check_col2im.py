"""Checks col2im-forms.test's outputs against float64 NumPy.

  check_col2im.py DIR ROWS ELEMENTS
DIR holds the inputs (dy1, w1, dy2, w2, dy3, w3 .npy); ROWS and ELEMENTS are
the output prefixes of the two runs. Prints one line per output: whether
the two runs are bitwise equal and whether the largest error against the
reference, relative to the largest magnitude of the reference, is within
the output's tolerance (f32 sums; bf16 columns and outputs).
"""
import sys

import numpy as np

from form_checks import bf16, report


def input_grad(dy, w, shape, stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1)):
    """The gradient of a cross-correlation's input: each filter tap's
    products with dy added where that tap read the padded input."""
    n, c, h, wd = shape
    _, _, kh, kw = w.shape
    top, left, bottom, right = padding
    ho, wo = dy.shape[2:]
    padded = np.zeros((n, c, h + top + bottom, wd + left + right))
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dilation[0], j * dilation[1]
            padded[:, :, r0:r0 + stride[0] * (ho - 1) + 1:stride[0],
                   c0:c0 + stride[1] * (wo - 1) + 1:stride[1]] += np.einsum(
                       'nohw,oc->nchw', dy, w[:, :, i, j])
    return padded[:, :, top:top + h, left:left + wd]


def main():
    folder, rows, elements = sys.argv[1:4]
    load = lambda name: np.load('%s/%s.npy' % (folder, name)).astype(np.float64)
    dy1, w1, dy2, w2, dy3, w3 = (load(n) for n in ('dy1', 'w1', 'dy2', 'w2', 'dy3', 'w3'))
    references = {
        'plane': (input_grad(dy1, w1, (2, 3, 14, 14), padding=(1, 1, 1, 1)), 1e-5),
        'bands': (input_grad(dy2, w2, (1, 2, 90, 100), stride=(2, 2), padding=(1, 1, 0, 0)), 1e-5),
        'dilated': (input_grad(dy3, w3, (1, 1, 70, 70), padding=(2, 2, 2, 2), dilation=(2, 2)),
                    1e-5),
        'half': (input_grad(bf16(dy1), bf16(w1), (2, 3, 14, 14), padding=(1, 1, 1, 1)), 3e-2),
    }
    for name, (reference, tolerance) in references.items():
        report(name, rows, elements, reference, tolerance)


if __name__ == '__main__':
    main()
