"""slice-forms.test: each output of slice_forms.mlir from the host's row
form and its element form, bitwise, and against NumPy (the bf16 slice's
values rounded to bf16 first; exp and tanh within float32 rounding)."""
import sys

import numpy as np

folder = sys.argv[1]
x = np.load(folder + "/x.npy")


def bf16(a):
    """float32 rounded to bf16 (nearest, even), as float32."""
    bits = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(np.float32)


expected = {"last": np.exp(x[:, :, 4:12]), "middle": np.tanh(x[:, 1:3, :]),
            "half": bf16(x)[:, 1:4, 3:16], "stepped": x[:, :, 1:16:2]}
for name, want in expected.items():
    rows = np.load("%s/rows-%s.npy" % (folder, name))
    elements = np.load("%s/elements-%s.npy" % (folder, name))
    same = rows.tobytes() == elements.tobytes() and rows.size > 0
    got = rows.astype(np.float32)
    close = got.shape == want.shape and np.allclose(got, want, rtol=1e-6, atol=1e-6)
    print("%s: %s, as NumPy %s, %d elements" % (name, "bitwise same" if same else "DIFFERENT",
                                                 "yes" if close else "NO", rows.size))
