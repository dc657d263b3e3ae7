"""Checks im2col-forms.test's outputs against float64 NumPy.

  check_im2col.py DIR ROWS ELEMENTS
DIR holds the inputs (x1, w1, x2, w2, x3, w3, x5, w5, x6, w6 .npy); ROWS and ELEMENTS
are the output prefixes of the two runs. Prints one line per output: whether
the two runs are bitwise equal and whether the largest error against the
reference, relative to the largest magnitude of the reference, is within the
output's tolerance (f32 sums; bf16 inputs, columns and outputs).
"""
import sys

import numpy as np

from form_checks import bf16, report


def conv2d(x, w, stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1)):
    """NCHW cross-correlation, padding [top, left, bottom, right]."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    top, left, bottom, right = padding
    ho = (h + top + bottom - (dilation[0] * (kh - 1) + 1)) // stride[0] + 1
    wo = (wd + left + right - (dilation[1] * (kw - 1) + 1)) // stride[1] + 1
    padded = np.zeros((n, c, h + top + bottom, wd + left + right))
    padded[:, :, top:top + h, left:left + wd] = x
    out = np.zeros((n, o, ho, wo))
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dilation[0], j * dilation[1]
            patch = padded[:, :, r0:r0 + stride[0] * (ho - 1) + 1:stride[0],
                           c0:c0 + stride[1] * (wo - 1) + 1:stride[1]]
            out += np.einsum('nchw,oc->nohw', patch, w[:, :, i, j])
    return out


def main():
    folder, rows, elements = sys.argv[1:4]
    load = lambda name: np.load('%s/%s.npy' % (folder, name)).astype(np.float64)
    x1, w1, x2, w2, x3, w3, x5, w5, x6, w6 = (
        load(n) for n in ('x1', 'w1', 'x2', 'w2', 'x3', 'w3', 'x5', 'w5', 'x6', 'w6'))
    references = {
        'same': (conv2d(x1, w1, padding=(1, 1, 1, 1)), 1e-5),
        'strided': (conv2d(x2, w2, stride=(2, 2), padding=(2, 0, 1, 3)), 1e-5),
        'dilated': (conv2d(x3, w3, padding=(5, 1, 5, 1), dilation=(2, 2)), 1e-5),
        'half': (conv2d(bf16(x1), bf16(w1), padding=(1, 1, 1, 1)), 3e-2),
        'wide': (conv2d(x5, w5, padding=(3, 3, 3, 3)), 1e-5),
        'edge': (conv2d(x6, w6, stride=(2, 1), padding=(1, 1, 1, 1)), 1e-5),
    }
    for name, (reference, tolerance) in references.items():
        report(name, rows, elements, reference, tolerance)


if __name__ == '__main__':
    main()
