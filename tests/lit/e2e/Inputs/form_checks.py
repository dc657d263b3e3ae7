"""Shared by the host-form checks (check_col2im.py, check_im2col.py,
check_pools.py, check_pool_grads.py): bf16
rounding as NumPy values, and the line each output prints."""
import numpy as np


def bf16(values):
    """f32 values rounded to bf16 (nearest even) and widened back."""
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def report(name, rows, elements, reference, tolerance):
    """Prints whether output `name` of the two runs (.npy files with the
    prefixes `rows` and `elements`) is bitwise the same, and whether its
    largest error against `reference`, relative to the reference's largest
    magnitude, is within `tolerance`."""
    a = np.load('%s-%s.npy' % (rows, name))
    b = np.load('%s-%s.npy' % (elements, name))
    same = a.shape == b.shape and a.tobytes() == b.tobytes()
    error = np.max(np.abs(a.astype(np.float64) - reference)) / np.max(np.abs(reference))
    print('%s: %s, within tolerance %s' % (name, 'bitwise same' if same else 'DIFFERENT',
                                           'yes' if error <= tolerance else 'NO (%.3g)' % error))
