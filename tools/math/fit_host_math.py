#!/usr/bin/python3
"""Fits the polynomials of the host's exp_f, log_f, erf_f and tanh_f
(runtime/device/math.cuh) and measures the functions they make.

The host implementations are branch-free float arithmetic, so that a host
compiler vectorises the loops that call them and a value comes out the same
whether its element ran in a vector lane or alone. Each polynomial is fitted
here in double precision (least squares on Chebyshev nodes, reweighted toward
the smallest largest error: Lawson's iteration), its coefficients rounded to
float; then the whole function is evaluated in float arithmetic exactly as
math.cuh does it (numpy float32: one rounding per operation, no fused
multiply-adds) over dense samples of its domain, and the largest error is
printed in units in the last place against the double-precision function.

  tools/math/fit_host_math.py        prints each function's coefficients
                                     (highest power first) and largest error
"""
import math
import struct

import numpy as np
import scipy.special as sp

f32 = np.float32
LN2 = math.log(2)
# ln 2 in two parts: the high one with 12 trailing zero bits, so that n * hi
# is exact for the integers n that exp and log multiply it by.
LN2_HI = struct.unpack("<f", struct.pack("<I", struct.unpack("<I", struct.pack("<f", LN2))[0]
                                         & 0xfffff000))[0]
LN2_LO = float(f32(LN2 - LN2_HI))


def fit(func, lo, hi, degree, weight, nodes=20000, rounds=60):
    """Coefficients (highest power first, rounded to float) of a polynomial
    approximating func on [lo, hi], minimising the largest weighted error."""
    k = np.arange(nodes)
    t = (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / nodes)
    y, w = func(t), weight(t)
    vander = np.vander(t, degree + 1)
    extra = np.ones_like(t)
    for _ in range(rounds):
        c, *_ = np.linalg.lstsq(vander * (w * extra)[:, None], y * w * extra, rcond=None)
        error = np.abs((vander @ c - y) * w)
        extra = extra * (error / error.max() + 1e-3)
        extra = extra / extra.mean()
    return [float(f32(v)) for v in c]


def horner(coefficients, x):
    r = np.full_like(x, f32(coefficients[0]))
    for c in coefficients[1:]:
        r = (r * x + f32(c)).astype(f32)
    return r


def ulps(got, want):
    nearest = want.astype(f32)
    ulp = np.spacing(np.abs(nearest)).astype(np.float64)
    ulp = np.where(ulp == 0, 2.0 ** -149, ulp)
    return np.abs(got.astype(np.float64) - want) / ulp


def exp32(x, c):
    xc = np.clip(x, f32(-104), f32(89)).astype(f32)
    t = (xc * f32(1.44269504) + f32(12582912.0)).astype(f32)
    n = (t - f32(12582912.0)).astype(f32)
    r = (xc - (n * f32(LN2_HI)).astype(f32)).astype(f32)
    r = (r - (n * f32(LN2_LO)).astype(f32)).astype(f32)
    p = (((r * r).astype(f32) * horner(c, r)).astype(f32) + r).astype(f32)
    p = (p + f32(1)).astype(f32)
    ni = n.astype(np.int64)
    half = ni >> 1
    return ((p * np.ldexp(f32(1), half).astype(f32)).astype(f32)
            * np.ldexp(f32(1), ni - half).astype(f32)).astype(f32)


def main():
    # exp: e^r = 1 + r + r^2 P(r) for |r| <= ln2 / 2.
    def exp_p(r):
        return np.where(np.abs(r) < 1e-4, 0.5 + r / 6 + r * r / 24, (np.expm1(r) - r) / (r * r))
    ce = fit(exp_p, -0.3467, 0.3467, 5, weight=lambda r: r * r / np.exp(r))
    x = np.concatenate([np.linspace(-103.9, 88.7, 2000001), np.linspace(-1, 1, 200001)]).astype(f32)
    report("exp_f", ce, ulps(exp32(x, ce), np.exp(x.astype(np.float64))).max())

    # log: log(1 + f) = f + f^2 P(f) for 1 + f in [sqrt(1/2), sqrt(2)].
    def log_p(f):
        return np.where(np.abs(f) < 1e-4, -0.5 + f / 3 - f * f / 4, (np.log1p(f) - f) / (f * f))
    sqrt2 = f32(1.41421356)
    cl = fit(log_p, float(f32(1 / sqrt2)) - 1 - 1e-6, float(sqrt2) - 1 + 1e-6, 8,
             weight=lambda f: f * f / np.abs(np.log1p(f) + 1e-300))
    x = np.concatenate([np.exp(np.linspace(-87, 88, 2000001)), np.linspace(0.5, 2, 2000001)]).astype(f32)
    bits = x.view(np.uint32).astype(np.int64)
    e = (bits >> 23) - 127
    m = ((bits & 0x7fffff) | 0x3f800000).astype(np.uint32).view(f32)
    big = m > sqrt2
    m = np.where(big, (m * f32(0.5)).astype(f32), m)
    e = np.where(big, e + 1, e).astype(f32)
    f = (m - f32(1)).astype(f32)
    y = ((f * f).astype(f32) * horner(cl, f)).astype(f32)
    y = (y + (e * f32(LN2_LO)).astype(f32)).astype(f32)
    y = (y + f).astype(f32)
    y = (y + (e * f32(LN2_HI)).astype(f32)).astype(f32)
    report("log_f", cl, ulps(y, np.log(x.astype(np.float64))).max())

    # erf: x + x P(x^2) below 0.921875; 1 - e^Q(|x|), Q fitting log erfc, up to 3.93; 1 above.
    def erf_p(s):
        x = np.sqrt(s)
        return np.where(s < 1e-12, 2 / np.sqrt(np.pi) - 1, sp.erf(x) / np.where(x == 0, 1, x) - 1)
    cs = fit(erf_p, 0, 0.921875 ** 2 + 1e-6, 6, weight=lambda s: 1 / (1 + erf_p(s)))
    cq = fit(lambda a: np.log(sp.erfc(a)), 0.921875 - 1e-6, 3.93, 9, weight=np.ones_like)
    x = np.concatenate([np.linspace(0, 4.5, 3000001), np.exp(np.linspace(-40, 0, 200001))]).astype(f32)
    small = (((horner(cs, (x * x).astype(f32))) * x).astype(f32) + x).astype(f32)
    large = (f32(1) - exp32(horner(cq, x), ce)).astype(f32)
    r = np.where(x < f32(0.921875), small, np.where(x < f32(3.93), large, f32(1)))
    error = ulps(r, sp.erf(x.astype(np.float64))).max()
    report("erf_f (below 0.921875)", cs, error)
    report("erf_f (0.921875 to 3.93)", cq, error)

    # tanh: x + x^3 P(x^2) below 0.625; 1 - 2 / (e^2|x| + 1) above.
    def tanh_p(s):
        x = np.sqrt(s)
        return np.where(s < 1e-10, -1 / 3 + 2 * s / 15, (np.tanh(x) - x) / np.where(x == 0, 1, x ** 3))
    ct = fit(tanh_p, 0, 0.625 ** 2 + 1e-6, 4, weight=np.ones_like)
    x = np.concatenate([np.linspace(0, 10, 3000001), np.exp(np.linspace(-40, 0, 200001))]).astype(f32)
    s = (x * x).astype(f32)
    small = ((((horner(ct, s) * s).astype(f32)) * x).astype(f32) + x).astype(f32)
    e2 = exp32((x + x).astype(f32), ce)
    large = (f32(1) - (f32(2) / (e2 + f32(1)).astype(f32)).astype(f32)).astype(f32)
    r = np.where(x < f32(0.625), small, large)
    report("tanh_f", ct, ulps(r, np.tanh(x.astype(np.float64))).max())
    print("ln2 = %.9ef + %.9ef" % (LN2_HI, LN2_LO))


def report(name, coefficients, max_ulps):
    print("%s: largest error %.3f ulp\n  %s" % (
        name, max_ulps, ", ".join("%.9ef" % c for c in coefficients)))


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
