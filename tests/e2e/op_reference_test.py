#!/usr/bin/python3
"""End-to-end numerical test of mpc's forward ops against fp64 NumPy references.

Usage:
  op_reference_test.py --mpc PATH_TO_MPC --workdir DIR [--filter SUBSTRING] [-v]
                       [--jobs N] [--compile-only]

For every case and every storage type in (f32, f16, bf16) the test builds a
graph that takes f32 inputs (and integer inputs for labels and indices),
`mpg.cast`s them to the storage type, applies the op in that type and outputs
its result in that type: an f16 result is read back from a float16 .npy file,
a bf16 one from a safetensors file (`mpc run --output NAME=FILE.safetensors`).
mpc therefore runs the op with fp32 math and its result rounded to the
storage type (mpc's precision assignment): the output buffer holds 16-bit values,
which a fused kernel could not skip as it skips the rounding of a value kept
in registers between two fused ops; an output read back in another type
fails. Ops with a wide result (f16/bf16 operands, f32 result) output f32. The
cases of one group and one storage type share one graph (one bundle) with many
outputs, because compiling a bundle costs about a second of host C++ time;
when a group's graph fails to compile or to run, each of its cases is retried
in a graph of its own so that the failure names the case.

The reference is computed in float64 from the same input values as rounded to
the storage type (f16 with NumPy's float16, bf16 by round-to-nearest-even of
the f32 bit pattern), so a tolerance only has to cover the op's own rounding:
the fp32 arithmetic inside the op and the rounding of its result to the
storage type. The tolerance model is explained at TOLERANCES below and at each
case that departs from it.

Groups (one graph per group and type): pointwise (every unary and binary op,
compare with every predicate, select, a fused chain), broadcast ([N], [1,N],
[M,1], rank-0 on either side, outer, rank 3/4, 3-way select), cast (between
float types, to/from i32/i64, to i1), int (integer arithmetic, division
truncating toward zero, reductions; run as i32 and i64), reduce (sum, mean,
max over single/multiple/leading/middle/all axes, keepdim, long rows), softmax
(softmax, log_softmax on the last, middle and leading axis), norm (layer_norm
axis -1/-2/1, eps, offset rows; batch_norm y and running statistics), dot
(matmul in all transpose combinations, long K, batch_matmul rank 3 and 4),
attention (mpg.attention: causal, past one block of keys, an additive mask
with -1e9 entries, both, head size 128; the output and the log-sum-exp),
conv (stride, padding, asymmetric padding, dilation, groups 2, depthwise, odd
sizes), pool (max/avg with stride, padding, count_include_pad, asymmetric
windows; global_avg_pool), loss (softmax_cross_entropy with i32/i64 labels,
mse_loss), shape (reshape, transpose, broadcast_to, slice with steps, concat,
embedding), fused (GEMM + bias + relu/gelu epilogues, reductions with a
prologue and an epilogue, a row op on a pointwise result), mixed (f16/bf16
operands with an f32 result, as precision assignment emits them) and parallel
(sizes past the host skeletons' OpenMP thresholds).

Input data are seeded: each case draws from np.random.default_rng([1234,
crc32(case name)]), so a case sees the same data whatever --filter selects and
for every storage type.

Output: one line per case and storage type,
  PASS name dtype max_abs_err max_rel_err
  FAIL name dtype max_abs_err max_rel_err
followed, on failure, by the worst element of each failing output (index, got,
expected, tolerance) or by mpc's exit status and stderr, and the commands that
reproduce it. The last line is "N passed, M failed"; the exit status is 1 when
a case failed, 2 on a bad command line or when --filter selects nothing.

--filter SUBSTRING keeps the cases whose "group/name/dtype" contains it (e.g.
"conv", "matmul_nt", "/f16", "pool/max_pool2d_pad/bf16").
--compile-only stops after `mpc compile --emit kernels` (checks that every
graph is accepted, without running anything).
"""

import argparse
import concurrent.futures
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import threading
import time
import zlib

import numpy as np

from mpg_testing import (Val, away_from_zero, conv2d_ref, fmt_float, fmt_list, gelu_exact,
                          logsumexp, max_pool_ref, normal, pool_windows, shell_join, sigmoid,
                          softmax, ttype, unif, GraphText, dropout_keep, attention_ref,
                          attention_text)

SEED = 1234
STORAGE_TYPES = ('f32', 'f16', 'bf16')
INT_TYPES = ('i32', 'i64')

# ---------------------------------------------------------------------------
# TOLERANCES
#
# An element passes when |got - expected| <= atol + rtol * |expected|, with
# expected computed in float64 from the rounded inputs. The terms:
#
# * U32 = 2^-24 is fp32's unit roundoff: one correctly rounded fp32 operation
#   is off by at most U32 relative.
# * STORE[dt] is the budget for rounding results to the storage type: 4 unit
#   roundoffs (2 ulps) of f16 (2^-11 -> 1.95e-3) or bf16 (2^-8 -> 1.56e-2).
#   Rounding once to the storage type costs at most one unit roundoff; the rest
#   covers the fp32 math before the store, and the double rounding of a value
#   that a decomposed or unfused op legitimately stores in the storage type
#   between two steps. For f32 storage there is no extra rounding: the fp32
#   terms below carry the whole error.
# * FLOOR[dt] is an absolute floor for results in the subnormal range of the
#   storage type: f16 subnormals are spaced 2^-24 apart, so a result there is
#   off by up to 2^-25 whatever its relative error. f32 and bf16 results never
#   come near their subnormals in these cases.
# * Pointwise arithmetic (add sub mul div, leaky_relu): a correctly rounded
#   fp32 op is within 1 U32; a division done as a * (1/b) within 2 U32. ARITH =
#   8 U32 (4.8e-7) leaves margin and still catches an op that rounds to a
#   lower precision than fp32.
# * Transcendentals (exp log sqrt rsqrt tanh sigmoid gelu pow): the host libm
#   is within 1 ulp, CUDA's expf/logf/tanhf/erff/powf/rsqrtf within 2-4 ulps,
#   and sigmoid/gelu add 2-4 more fp32 roundings around them: TRANS = 1e-5
#   (~170 ulps) is comfortably above that and far below the error of a wrong
#   formula or constant.
# * Sums (reductions, matmul, conv, pooling, means, losses): fp32 accumulation
#   of K terms in any order is within (K-1) U32 * sum|term| (the classical
#   recursive-summation bound; pairwise and blocked orders are tighter), so
#   atol gets (K + 2) U32 * M where M is the element-wise sum of |term| (for
#   matmul |A| @ |B|, for conv the conv of |x| and |w|). For f16/bf16 the
#   result's rounding to the storage type is STORE relative. The bound is
#   worst-case yet still ~100x below the error of accumulating in f16.
# * Data movement and selection (neg abs relu maximum minimum compare select
#   cast reduce_max max_pool2d reshape transpose broadcast_to slice concat
#   embedding) produce a storage value (or a rounding of one, for casts) that
#   the reference knows exactly: tolerance 0.
# ---------------------------------------------------------------------------
U32 = 2.0 ** -24
UNIT = {'f32': 2.0 ** -24, 'f16': 2.0 ** -11, 'bf16': 2.0 ** -8}
STORE = {'f32': 0.0, 'f16': 4 * UNIT['f16'], 'bf16': 4 * UNIT['bf16']}
FLOOR = {'f32': 0.0, 'f16': 2.0 ** -24, 'bf16': 0.0}
ARITH = 8 * U32
TRANS = 1e-5


def tol_exact(dt):
  return 0.0, 0.0


def tol_arith(dt):
  return STORE[dt] + ARITH, FLOOR[dt]


def tol_trans(dt):
  return STORE[dt] + TRANS, FLOOR[dt]


def result_type(b, wide):
  """(element type of an op's result, type whose tolerance applies): the
  storage type, or f32 for a `wide` op (f16/bf16 operands, f32 result), whose
  result carries no storage rounding at all."""
  return ('f32', 'f32') if wide else (b.dt, b.dt)


def tol_sum(dt, k, mag):
  """fp32 accumulation of k terms whose absolute values sum to `mag`
  (element-wise), the result rounded to the storage type."""
  return STORE[dt], FLOOR[dt] + (k + 2) * U32 * np.asarray(mag, np.float64)


# ---------------------------------------------------------------------------
# Rounding to the storage types
# ---------------------------------------------------------------------------

def round_bf16(a):
  """f32 -> bf16 -> f32, round to nearest even on the f32 bit pattern."""
  bits = np.ascontiguousarray(a, np.float32).view(np.uint32).astype(np.uint64)
  lsb = (bits >> np.uint64(16)) & np.uint64(1)
  rounded = ((bits + np.uint64(0x7FFF) + lsb) >> np.uint64(16)) << np.uint64(16)
  out = (rounded & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.float32)
  nan = np.isnan(a)
  if np.any(nan):
    out = np.where(nan, np.float32(np.nan), out)
  return out.reshape(np.shape(a))


def round_to(a, dt):
  """The f32 array `a` rounded to storage type `dt`, as float64."""
  a = np.asarray(a, np.float32)
  if dt == 'f32':
    return a.astype(np.float64)
  if dt == 'f16':
    return a.astype(np.float16).astype(np.float64)
  if dt == 'bf16':
    return round_bf16(a).astype(np.float64)
  raise ValueError(dt)


# ---------------------------------------------------------------------------
# Graph builder
# ---------------------------------------------------------------------------


class Output:
  """A checked output: `stored` is its element type in the graph (f16 and
  bf16 results are output in their storage type, not widened first)."""
  __slots__ = ('name', 'expected', 'rtol', 'atol', 'label', 'stored')

  def __init__(self, name, expected, rtol, atol, label, stored):
    self.name, self.expected, self.rtol, self.atol, self.label = name, expected, rtol, atol, label
    self.stored = stored

  @property
  def file_name(self):
    # NumPy has no bf16: a bf16 output goes to a safetensors file.
    return self.name + ('.safetensors' if self.stored == 'bf16' else '.npy')


def read_output(path, stored):
  """An output file as `mpc run` wrote it: .npy, or a safetensors file with
  one BF16 tensor (returned widened to float32, which is exact)."""
  if stored != 'bf16':
    return np.load(path)
  data = open(path, 'rb').read()
  size = struct.unpack('<Q', data[:8])[0]
  header = {k: v for k, v in json.loads(data[8:8 + size]).items() if k != '__metadata__'}
  if len(header) != 1:
    raise ValueError('expected one tensor, found %d' % len(header))
  (entry,) = header.values()
  if entry['dtype'] != 'BF16':
    raise ValueError('dtype %s, expected BF16' % entry['dtype'])
  begin, end = entry['data_offsets']
  bits = np.frombuffer(data[8 + size + begin:8 + size + end], np.uint16)
  return (bits.astype(np.uint32) << 16).view(np.float32).reshape(entry['shape'])


class Builder(GraphText):
  """Builds one case's part of a graph: its inputs, ops and checked outputs.

  `dt` is the storage type (or the integer type of an integer case); `rng`
  draws the case's data."""

  def __init__(self, dt, prefix, rng):
    super().__init__(prefix)
    self.dt, self.rng = dt, rng
    self.inputs = {}     # input name -> array written to .npy
    self.outputs = []    # Output

  # -- values --------------------------------------------------------------
  def input(self, array, store=True):
    """Declares an input fed with `array` (f32, i32 or i64). A float input is
    cast to the storage type unless store=False. Returns (value, reference)
    where reference is the value as the graph sees it, in float64 (or the
    integer array)."""
    array = np.ascontiguousarray(array)
    et = {np.dtype(np.float32): 'f32', np.dtype(np.int32): 'i32',
          np.dtype(np.int64): 'i64'}[array.dtype]
    name = '%s_in%d' % (self.prefix, len(self.inputs))
    self.inputs[name] = array
    value = Val('%' + name, array.shape, et)
    self.lines.append('%s = mpg.input "%s" : %s' % (value.name, name, ttype(array.shape, et)))
    if et != 'f32':
      return value, array
    if store and self.dt in STORAGE_TYPES and self.dt != 'f32':
      return self.cast(value, self.dt), round_to(array, self.dt)
    return value, array.astype(np.float64)

  def constant(self, value, et=None, shape=()):
    """A splat constant; `value` must be exactly representable in `et`."""
    et = et or self.dt
    result = Val(self._fresh(), shape, et)
    text = fmt_float(value) if et in ('f32', 'f16', 'bf16', 'f64') else str(int(value))
    self.lines.append('%s = mpg.constant dense<%s> : %s' % (result.name, text, ttype(shape, et)))
    return result

  # -- checked outputs -------------------------------------------------------
  def check(self, value, expected, tol, label=None):
    """Outputs `value` (an f16 or bf16 one as it is, an i1 one cast to f32)
    and records the reference it must match within tol = (rtol, atol)."""
    expected = np.asarray(expected)
    if tuple(expected.shape) != value.shape:
      raise AssertionError('%s: reference shape %s != graph shape %s'
                           % (self.prefix, expected.shape, value.shape))
    if value.et == 'i1':
      value = self.cast(value, 'f32')
    name = '%s_out%d' % (self.prefix, len(self.outputs))
    self.lines.append('mpg.output "%s" %s : %s' % (name, value.name, ttype(value.shape, value.et)))
    rtol, atol = tol
    self.outputs.append(Output(name, expected, rtol, atol, label or 'out%d' % len(self.outputs),
                               value.et))


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


def with_ties(rng, a, b, fraction=0.25):
  """b with a fraction of its elements replaced by a's (ties for compare/max)."""
  mask = rng.random(b.shape) < fraction
  return np.where(mask, a, b).astype(np.float32)


# ---------------------------------------------------------------------------
# Float64 references
# ---------------------------------------------------------------------------

def gelu_tanh(x):
  return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def avg_pool_ref(x, kernel, stride, padding, count_include_pad):
  """Returns (average, the same average of |x|): padded positions add 0 and
  count in the divisor only with count_include_pad."""
  sums = pool_windows(x, kernel, stride, padding, 0.0).sum(axis=-1)
  mags = pool_windows(np.abs(x), kernel, stride, padding, 0.0).sum(axis=-1)
  if count_include_pad:
    count = float(kernel[0] * kernel[1])
  else:
    count = pool_windows(np.ones_like(x), kernel, stride, padding, 0.0).sum(axis=-1)
  return sums / count, mags / count


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------

class Case:
  def __init__(self, group, name, fn, dtypes):
    self.group, self.name, self.fn, self.dtypes = group, name, fn, dtypes


CASES = []


def register(group, name, fn, dtypes=STORAGE_TYPES):
  """Adds a case: fn(builder) declares its inputs, ops and checked outputs."""
  CASES.append(Case(group, name, fn, dtypes))


def case(group, name, dtypes=STORAGE_TYPES):
  """Decorator form of register."""
  def add(fn):
    register(group, name, fn, dtypes)
    return fn
  return add


# -- pointwise: unary ---------------------------------------------------------
# Shape 7x45 = 315 elements: not a multiple of 32 (nor of a vector width).
PW = (7, 45)


def _unary_case(op, lo, hi, ref, tol, attrs='', zeros=False):
  def build(b):
    data = unif(b.rng, lo, hi, PW)
    if zeros:
      data.flat[::9] = 0.0
    x, xr = b.input(data)
    b.check(b.unary(op, x, attrs), ref(xr), tol(b.dt))
  return build


register('pointwise', 'neg', _unary_case('neg', -3, 3, lambda x: -x, tol_exact, zeros=True))
register('pointwise', 'abs', _unary_case('abs', -3, 3, np.abs, tol_exact, zeros=True))
register('pointwise', 'relu', _unary_case('relu', -3, 3, lambda x: np.maximum(x, 0), tol_exact,
                                          zeros=True))
register('pointwise', 'exp', _unary_case('exp', -4, 4, np.exp, tol_trans))
register('pointwise', 'log', _unary_case('log', 0.05, 10, np.log, tol_trans))
register('pointwise', 'sqrt', _unary_case('sqrt', 0.01, 10, np.sqrt, tol_trans))
register('pointwise', 'rsqrt', _unary_case('rsqrt', 0.05, 10, lambda x: 1 / np.sqrt(x), tol_trans))
register('pointwise', 'tanh', _unary_case('tanh', -4, 4, np.tanh, tol_trans))
register('pointwise', 'sin', _unary_case('sin', -6, 6, np.sin, tol_trans))
register('pointwise', 'cos', _unary_case('cos', -6, 6, np.cos, tol_trans))
register('pointwise', 'sigmoid', _unary_case('sigmoid', -8, 8, sigmoid, tol_trans))
# alpha * x is one fp32 product (alpha itself rounded to f32: another U32).
register('pointwise', 'leaky_relu', _unary_case(
    'leaky_relu', -3, 3, lambda x: np.where(x > 0, x, 0.01 * x), tol_arith))
register('pointwise', 'leaky_relu_alpha', _unary_case(
    'leaky_relu', -3, 3, lambda x: np.where(x > 0, x, 0.2 * x), tol_arith,
    attrs='alpha ' + fmt_float(0.2)))


def _gelu_case(approximate):
  def build(b):
    x, xr = b.input(unif(b.rng, -5, 5, PW))
    y = b.unary('gelu', x, 'approximate' if approximate else '')
    expected = gelu_tanh(xr) if approximate else gelu_exact(xr)
    rtol, atol = tol_trans(b.dt)
    # For x << 0, 1 + erf(x / sqrt 2) (or 1 + tanh(...)) cancels: the fp32
    # rounding of erf near -1 (U32) becomes an absolute error of about
    # 0.5 |x| U32 in the result, which is large relative to the tiny result.
    b.check(y, expected, (rtol, atol + 4 * U32 * np.abs(xr)))
  return build


register('pointwise', 'gelu', _gelu_case(False))
register('pointwise', 'gelu_approximate', _gelu_case(True))


def _dropout_case(rate, shape, seed, run, stream):
  # The mask from a NumPy Philox written from the paper (mpg_testing); the
  # kept elements times 1 / (1 - rate) rounded to f32: one fp32 product.
  def build(b):
    x, xr = b.input(normal(b.rng, 0, 2, shape))
    y = b.dropout(x, rate, b.constant(seed, 'i64'), b.constant(run, 'i64'), stream)
    keep = dropout_keep(seed, run, stream, shape, rate)
    # (A mask of the wrong rate would be a broken reference, not an mpc bug.)
    assert abs(keep.mean() - (1 - rate)) < 4 * math.sqrt(rate * (1 - rate) / keep.size) + 1e-9
    scale = float(np.float32(1.0 / (1.0 - rate)))
    b.check(y, np.where(keep, xr * scale, 0.0), tol_arith(b.dt))
  return build


# 315 elements (not a multiple of Philox's 4 words); a run counter above
# 2^32 and a seed with both halves set; no dropout at rate 0.
register('pointwise', 'dropout', _dropout_case(0.25, PW, 0x0123456789abcdef, 7, 3))
register('pointwise', 'dropout_high_run', _dropout_case(0.5, PW, 12345, (5 << 32) + 9, 0))
register('pointwise', 'dropout_rate_0', _dropout_case(0.0, PW, 1, 2, 4294967295))
register('parallel', 'dropout_parallel', _dropout_case(0.1, (96, 300), 99, 1000, 17))


# -- pointwise: binary --------------------------------------------------------
def _binary_case(op, make, ref, tol):
  def build(b):
    da, db = make(b.rng)
    a, ar = b.input(da)
    c, cr = b.input(db)
    b.check(b.binary(op, a, c), ref(ar, cr), tol(b.dt))
  return build


def _two_normal(rng):
  return normal(rng, 0, 2, PW), normal(rng, 0, 2, PW)


def _two_with_ties(rng):
  a = normal(rng, 0, 2, PW)
  return a, with_ties(rng, a, normal(rng, 0, 2, PW))


register('pointwise', 'add', _binary_case('add', _two_normal, np.add, tol_arith))
register('pointwise', 'sub', _binary_case('sub', _two_normal, np.subtract, tol_arith))
register('pointwise', 'mul', _binary_case('mul', _two_normal, np.multiply, tol_arith))
register('pointwise', 'div', _binary_case(
    'div', lambda r: (normal(r, 0, 2, PW), away_from_zero(r, 0.5, 2, PW)), np.divide, tol_arith))
register('pointwise', 'pow', _binary_case(
    'pow', lambda r: (unif(r, 0.1, 4, PW), unif(r, -2, 2, PW)), np.power, tol_trans))
register('pointwise', 'maximum', _binary_case('maximum', _two_with_ties, np.maximum, tol_exact))
register('pointwise', 'minimum', _binary_case('minimum', _two_with_ties, np.minimum, tol_exact))


@case('pointwise', 'pow_int_exponent')
def _(b):
  # pow with a negative base and an integral exponent is defined (C's powf,
  # NumPy, PyTorch): (-2)^3 = -8. The exponent is a rank-0 constant.
  x, xr = b.input(unif(b.rng, -3, 3, PW))
  two, three = b.constant(2.0), b.constant(3.0)
  b.check(b.binary('pow', x, two), xr ** 2, tol_trans(b.dt), 'squared')
  b.check(b.binary('pow', x, three), xr ** 3, tol_trans(b.dt), 'cubed')


COMPARES = {'eq': np.equal, 'ne': np.not_equal, 'lt': np.less, 'le': np.less_equal,
            'gt': np.greater, 'ge': np.greater_equal}


@case('pointwise', 'compare')
def _(b):
  # Every predicate on operands with ties (a quarter of the elements equal).
  # The i1 result is cast to f32 (1.0 / 0.0) for output.
  da = normal(b.rng, 0, 2, PW)
  a, ar = b.input(da)
  c, cr = b.input(with_ties(b.rng, da, normal(b.rng, 0, 2, PW)))
  for pred, ref in COMPARES.items():
    b.check(b.compare(pred, a, c), ref(ar, cr).astype(np.float64), tol_exact(b.dt), pred)


@case('pointwise', 'select')
def _(b):
  a, ar = b.input(normal(b.rng, 0, 2, PW))
  c, cr = b.input(normal(b.rng, 0, 2, PW))
  d, dr = b.input(normal(b.rng, 0, 2, PW))
  b.check(b.select(b.compare('lt', a, c), a, d), np.where(ar < cr, ar, dr), tol_exact(b.dt))


@case('pointwise', 'chain')
def _(b):
  # A pointwise chain that mpg-fuse turns into one kernel:
  # sigmoid(a * c + bias) - tanh(a), bias [45] broadcast over rows. Each
  # intermediate may be rounded to the storage type once (if not fused), so
  # the storage budget applies to the magnitudes of the intermediates too.
  a, ar = b.input(normal(b.rng, 0, 1, PW))
  c, cr = b.input(normal(b.rng, 0, 1, PW))
  bias, br = b.input(normal(b.rng, 0, 1, PW[1:]))
  t = b.binary('add', b.binary('mul', a, c), bias)
  y = b.binary('sub', b.unary('sigmoid', t), b.unary('tanh', a))
  tr = ar * cr + br
  expected = sigmoid(tr) - np.tanh(ar)
  rtol, atol = tol_trans(b.dt)
  mag = sigmoid(tr) + np.abs(np.tanh(ar)) + 0.25 * (np.abs(ar * cr) + np.abs(br))
  b.check(y, expected, (rtol, atol + rtol * mag))


# -- broadcasting ---------------------------------------------------------------
BM, BN = 6, 37


BINARY_REFS = {'add': np.add, 'sub': np.subtract, 'mul': np.multiply, 'div': np.divide,
               'maximum': np.maximum, 'minimum': np.minimum, 'pow': np.power}


def _bcast_case(op, shape_a, shape_b, make=None, tol=tol_arith):
  def build(b):
    gen = make or (lambda r, s: normal(r, 0, 2, s))
    a, ar = b.input(gen(b.rng, shape_a))
    # A divisor stays away from zero.
    c, cr = b.input(away_from_zero(b.rng, 0.5, 2, shape_b) if op == 'div' else gen(b.rng, shape_b))
    b.check(b.binary(op, a, c), BINARY_REFS[op](ar, cr), tol(b.dt))
  return build


register('broadcast', 'bias_n', _bcast_case('add', (BM, BN), (BN,)))
register('broadcast', 'row_1n', _bcast_case('mul', (BM, BN), (1, BN)))
register('broadcast', 'col_m1', _bcast_case('sub', (BM, BN), (BM, 1)))
register('broadcast', 'col_m1_lhs', _bcast_case('sub', (BM, 1), (BM, BN)))
register('broadcast', 'rank0_rhs', _bcast_case('div', (BM, BN), ()))
register('broadcast', 'rank0_lhs', _bcast_case('sub', (), (BM, BN)))
register('broadcast', 'outer_m1_1n', _bcast_case('add', (BM, 1), (1, BN)))
register('broadcast', 'rank3', _bcast_case('mul', (2, 1, BN), (BM, 1)))
register('broadcast', 'rank4_middle', _bcast_case('add', (2, 3, 1, 5), (3, 4, 1)))
register('broadcast', 'maximum_rank0', _bcast_case('maximum', (BM, BN), (), tol=tol_exact))
register('broadcast', 'minimum_col', _bcast_case('minimum', (BM, BN), (BM, 1), tol=tol_exact))
register('broadcast', 'pow_rank0', _bcast_case('pow', (BM, BN), (),
                                               make=lambda r, s: unif(r, 0.2, 3, s), tol=tol_trans))


@case('broadcast', 'compare_row')
def _(b):
  a, ar = b.input(normal(b.rng, 0, 1, (BM, BN)))
  r, rr = b.input(normal(b.rng, 0, 1, (BN,)))
  b.check(b.compare('ge', a, r), (ar >= rr).astype(np.float64), tol_exact(b.dt))


@case('broadcast', 'select3')
def _(b):
  # cond [M,1] (from a [M,1] vs rank-0 compare), on_true [N], on_false rank-0:
  # all three operands broadcast to [M,N].
  c, cr = b.input(normal(b.rng, 0, 1, (BM, 1)))
  s, sr = b.input(np.float32(0.1).reshape(()))
  t, tr = b.input(normal(b.rng, 0, 1, (BN,)))
  f, fr = b.input(np.float32(-0.75).reshape(()))
  cond = b.compare('gt', c, s)
  expected = np.where(cr > sr, tr, fr) * np.ones((BM, BN))
  b.check(b.select(cond, t, f), expected, tol_exact(b.dt))


@case('broadcast', 'select_bcast_cond')
def _(b):
  # cond [N] broadcast against [M,N] operands.
  c, cr = b.input(normal(b.rng, 0, 1, (BN,)))
  t, tr = b.input(normal(b.rng, 0, 1, (BM, BN)))
  f, fr = b.input(normal(b.rng, 0, 1, (BM, BN)))
  zero = b.constant(0.0)
  b.check(b.select(b.compare('lt', c, zero), t, f), np.where(cr < 0, tr, fr), tol_exact(b.dt))


# -- casts ----------------------------------------------------------------------
CAST_SHAPE = (5, 41)


def _cast_data(rng):
  """Magnitudes from 1e-9 (below f16's subnormals) to 3e4 (near f16's max),
  both signs, and exact zeros."""
  mag = 10.0 ** rng.uniform(-9, 4.4, CAST_SHAPE)
  data = (mag * rng.choice([-1.0, 1.0], CAST_SHAPE)).astype(np.float32)
  data.flat[::11] = 0.0
  return data


@case('cast', 'cast_float_types')
def _(b):
  # Storage type -> every other float type -> f32. Float to float rounds to
  # nearest even; a value already rounded to the storage type is rounded
  # again (double rounding is the op's semantics here). f64 output is exact.
  x, xr = b.input(_cast_data(b.rng))
  for et in ('f32', 'f16', 'bf16'):
    if et != b.dt:
      b.check(b.cast(x, et), round_to(xr.astype(np.float32), et), tol_exact(b.dt), 'to_' + et)
  b.check(b.cast(x, 'f64'), xr, tol_exact(b.dt), 'to_f64')


@case('cast', 'cast_to_int')
def _(b):
  # Float to integer truncates toward zero; also to i1 (non-zero test), output
  # as f32. Values include exact integers, |x| < 1 and zeros.
  data = unif(b.rng, -120, 120, CAST_SHAPE)
  data.flat[::7] = np.round(data.flat[::7])
  data.flat[3::13] = unif(b.rng, -0.99, 0.99, data.flat[3::13].shape)
  data.flat[5::17] = 0.0
  x, xr = b.input(data)
  b.check(b.cast(x, 'i32'), np.trunc(xr).astype(np.int32), tol_exact(b.dt), 'to_i32')
  b.check(b.cast(x, 'i64'), np.trunc(xr).astype(np.int64), tol_exact(b.dt), 'to_i64')
  b.check(b.cast(x, 'i1'), (xr != 0).astype(np.float64), tol_exact(b.dt), 'to_i1')


@case('cast', 'cast_from_int')
def _(b):
  # i32 and i64 -> storage type (round to nearest even: 2049 -> 2048 in f16).
  ints = b.rng.integers(-60000, 60000, CAST_SHAPE)
  ints.flat[:8] = [2049, 2051, -2049, 4097, 257, 259, 65, 0]
  for et, dtype in (('i32', np.int32), ('i64', np.int64)):
    v, vr = b.input(ints.astype(dtype))
    expected = round_to(vr.astype(np.float32), b.dt)
    b.check(b.cast(v, b.dt), expected, tol_exact(b.dt), 'from_' + et)


@case('cast', 'cast_bool_select')
def _(b):
  # An i1 mask from a float -> i1 cast drives a select.
  m, mr = b.input(np.where(normal(b.rng, 0, 1, CAST_SHAPE) > 0, 1.0, 0.0).astype(np.float32))
  t, tr = b.input(normal(b.rng, 0, 1, CAST_SHAPE))
  zero = b.constant(0.0)
  b.check(b.select(b.cast(m, 'i1'), t, zero), np.where(mr != 0, tr, 0.0), tol_exact(b.dt))


# -- integer pointwise and reductions (no storage type: run as i32 and i64) -------
IW = (6, 29)


def _int_binary_case(op, ref, divisor=False):
  def build(b):
    np_t = np.int32 if b.dt == 'i32' else np.int64
    a, ar = b.input(b.rng.integers(-1000, 1000, IW).astype(np_t))
    if divisor:
      other = b.rng.integers(1, 40, IW) * b.rng.choice([-1, 1], IW)
    else:
      other = b.rng.integers(-1000, 1000, IW)
      other.flat[::5] = ar.flat[::5]
    c, cr = b.input(other.astype(np_t))
    b.check(b.binary(op, a, c), ref(ar, cr).astype(np_t), tol_exact(b.dt))
  return build


def _int_div(a, b):
  # Integer division truncates toward zero (C semantics), unlike NumPy's //.
  q = np.abs(a) // np.abs(b)
  return np.where((a < 0) != (b < 0), -q, q)


for _op, _ref in (('add', np.add), ('sub', np.subtract), ('mul', np.multiply),
                  ('maximum', np.maximum), ('minimum', np.minimum)):
  register('int', 'int_' + _op, _int_binary_case(_op, _ref), INT_TYPES)
register('int', 'int_div', _int_binary_case('div', _int_div, divisor=True), INT_TYPES)


@case('int', 'int_unary_reduce', INT_TYPES)
def _(b):
  np_t = np.int32 if b.dt == 'i32' else np.int64
  x, xr = b.input(b.rng.integers(-1000, 1000, (4, 9, 7)).astype(np_t))
  b.check(b.unary('neg', x), -xr, tol_exact(b.dt), 'neg')
  b.check(b.unary('abs', x), np.abs(xr), tol_exact(b.dt), 'abs')
  b.check(b.to('reduce_sum', [x], (4, 7), 'axes [1]'), xr.sum(axis=1).astype(np_t),
          tol_exact(b.dt), 'reduce_sum')
  b.check(b.to('reduce_max', [x], (1, 9, 1), 'axes [0, 2] keepdim'),
          xr.max(axis=(0, 2), keepdims=True), tol_exact(b.dt), 'reduce_max')
  zero = b.constant(0, b.dt)
  b.check(b.compare('gt', x, zero), (xr > 0).astype(np.float64), tol_exact(b.dt), 'compare')
  b.check(b.select(b.compare('lt', x, zero), b.unary('neg', x), x), np.abs(xr),
          tol_exact(b.dt), 'select')
  b.check(b.cast(x, 'f32'), xr.astype(np.float64), tol_exact(b.dt), 'to_f32')


# -- reductions -----------------------------------------------------------------
RX = (6, 37, 10)


def _reduce_case(op, shape, axes, keepdim=False, mean=0.3, std=1.0, wide=False):
  def build(b):
    et, tdt = result_type(b, wide)
    x, xr = b.input(normal(b.rng, mean, std, shape))
    ax = tuple(a % len(shape) for a in axes)
    if op == 'reduce_max':
      expected = xr.max(axis=ax, keepdims=keepdim)
      tol = tol_exact(tdt)
    else:
      k = int(np.prod([shape[a] for a in ax]))
      expected = xr.sum(axis=ax, keepdims=keepdim)
      mag = np.abs(xr).sum(axis=ax, keepdims=keepdim)
      if op == 'reduce_mean':
        # The mean adds one fp32 division (or multiplication by 1/k: 2 U32).
        expected, mag = expected / k, mag / k
        k += 2
      tol = tol_sum(tdt, k, mag)
    attrs = 'axes ' + fmt_list(axes) + (' keepdim' if keepdim else '')
    b.check(b.to(op, [x], expected.shape, attrs, et), expected, tol)
  return build


for _op in ('reduce_sum', 'reduce_mean', 'reduce_max'):
  _short = _op[len('reduce_'):]
  register('reduce', _short + '_last', _reduce_case(_op, RX, [2]))
  register('reduce', _short + '_middle', _reduce_case(_op, RX, [1]))
  register('reduce', _short + '_leading', _reduce_case(_op, RX, [0]))
  register('reduce', _short + '_multi', _reduce_case(_op, RX, [0, 2]))
  register('reduce', _short + '_multi_keepdim', _reduce_case(_op, RX, [0, -1], keepdim=True))
  register('reduce', _short + '_middle_keepdim', _reduce_case(_op, RX, [-2], keepdim=True))
  register('reduce', _short + '_all', _reduce_case(_op, RX, [0, 1, 2]))
  register('reduce', _short + '_rank4_inner', _reduce_case(_op, (3, 5, 7, 9), [1, 3]))
  register('reduce', _short + '_long_row', _reduce_case(_op, (3, 4099), [1], mean=0.5))
register('reduce', 'max_negative', _reduce_case('reduce_max', (7, 33), [1], mean=-5.0))


# -- softmax and log_softmax ------------------------------------------------------
def _softmax_case(op, shape, axis, std=2.0, wide=False):
  def build(b):
    et, tdt = result_type(b, wide)
    x, xr = b.input(normal(b.rng, 0.5, std, shape))
    attrs = '' if axis == -1 else 'axis %d' % axis
    n = shape[axis]
    lse = logsumexp(xr, axis)
    if op == 'softmax':
      # p = exp(x - m) / sum: exp and the division each add 1-2 ulps relative;
      # the sum of n positive terms is within n U32 relative.
      expected = softmax(xr, axis)
      rtol, atol = tol_trans(tdt)
      b.check(b.to(op, [x], shape, attrs, et), expected, (rtol + (n + 4) * U32, atol))
    else:
      # x - m - log(sum): absolute error ~U32 per term of |x - m| + |log sum|,
      # plus the relative error n U32 of the sum (absolute in the log).
      expected = xr - lse
      rtol, atol = tol_trans(tdt)
      mag = np.abs(xr - xr.max(axis=axis, keepdims=True)) + np.abs(lse - xr.max(axis=axis, keepdims=True)) + 1
      b.check(b.to(op, [x], shape, attrs, et), expected, (rtol, atol + (n + 8) * U32 * mag))
  return build


for _op in ('softmax', 'log_softmax'):
  register('softmax', _op + '_last', _softmax_case(_op, (9, 50), -1))
  register('softmax', _op + '_middle', _softmax_case(_op, (4, 37, 6), 1))
  register('softmax', _op + '_leading', _softmax_case(_op, (13, 5), 0))
  register('softmax', _op + '_long_row', _softmax_case(_op, (3, 1000), -1, std=3.0))


# -- layer_norm and batch_norm ------------------------------------------------------
def _norm_tol(dt, n, y, xhat, gamma, beta, mean_over_std):
  """Normalisation y = xhat * gamma + beta, statistics over n values in fp32.

  The mean and variance in fp32 are within ~n U32 relative (of mean|x| and of
  the variance); through xhat = (x - mean) * rstd that is an absolute error of
  (n + 8) U32 (|xhat| + |mean| / std + 1) in xhat. The result's rounding to the
  storage type is STORE relative to the magnitude of its terms |xhat gamma| +
  |beta| (an element where they cancel keeps the absolute error of the terms)."""
  rtol = STORE[dt]
  mag_terms = np.abs(xhat * gamma) + np.abs(beta)
  atol = (FLOOR[dt] + STORE[dt] * mag_terms
          + (n + 8) * U32 * (np.abs(gamma) * (np.abs(xhat) + mean_over_std + 1) + np.abs(beta)))
  return rtol, atol


def _layer_norm_case(shape, axis, eps=None, scale=2.0, offset=0.5, wide=False):
  def build(b):
    et, tdt = result_type(b, wide)
    nd = len(shape) + axis if axis < 0 else axis
    pshape = shape[nd:]
    x, xr = b.input(normal(b.rng, offset, scale, shape))
    g, gr = b.input(normal(b.rng, 1.0, 0.3, pshape))
    be, ber = b.input(normal(b.rng, 0.0, 0.5, pshape))
    ax = tuple(range(nd, len(shape)))
    e = 1e-5 if eps is None else eps
    mu = xr.mean(axis=ax, keepdims=True)
    var = ((xr - mu) ** 2).mean(axis=ax, keepdims=True)
    xhat = (xr - mu) / np.sqrt(var + e)
    expected = xhat * gr + ber
    attrs = ('' if axis == -1 else 'axis %d' % axis) + ('' if eps is None else ' eps ' + fmt_float(eps))
    y = b.to('layer_norm', [x, g, be], shape, attrs.strip(), et)
    n = int(np.prod(pshape))
    b.check(y, expected, _norm_tol(tdt, n, expected, xhat, gr, ber, np.abs(mu) / np.sqrt(var + e)))
  return build


register('norm', 'layer_norm_last', _layer_norm_case((6, 13, 40), -1))
register('norm', 'layer_norm_axis_m2', _layer_norm_case((6, 13, 40), -2))
register('norm', 'layer_norm_axis1_rank4', _layer_norm_case((3, 4, 5, 6), 1))
# Rows with a variance (~0.01) comparable to eps = 0.01: eps must be honoured.
register('norm', 'layer_norm_eps', _layer_norm_case((5, 33), -1, eps=1e-2, scale=0.1))
# Rows whose mean (6) is large against their spread (std 0.5), as with
# unnormalised or post-ReLU activations: statistics kept in fp32 (docs/precision.md:
# norms and their statistics compute in fp32) lose nothing here, while a
# mean rounded to the storage type shifts every x - mean by up to U |mean|, an
# error of U |mean| / std = 12 U relative to the output's scale.
register('norm', 'layer_norm_offset', _layer_norm_case((8, 64), -1, scale=0.5, offset=6.0))


def _batch_norm_case(shape, momentum=None, eps=None, mean_range=(-1, 2), std_range=(0.5, 2),
                     wide=False):
  def build(b):
    et, tdt = result_type(b, wide)  # of y; the running statistics keep their type
    c = shape[1]
    # Per-channel means and stds spread over the given ranges, as activations have.
    cshape = (1, c) + (1,) * (len(shape) - 2)
    means = np.linspace(mean_range[0], mean_range[1], c).reshape(cshape)
    stds = np.linspace(std_range[0], std_range[1], c).reshape(cshape)
    x, xr = b.input((means + stds * b.rng.standard_normal(shape)).astype(np.float32))
    g, gr = b.input(normal(b.rng, 1.0, 0.3, (c,)))
    be, ber = b.input(normal(b.rng, 0.0, 0.5, (c,)))
    rm, rmr = b.input(normal(b.rng, 0.0, 1.0, (c,)))
    rv, rvr = b.input(unif(b.rng, 0.5, 2.0, (c,)))
    m = 0.1 if momentum is None else momentum
    e = 1e-5 if eps is None else eps
    ax = tuple(d for d in range(len(shape)) if d != 1)
    count = int(np.prod([shape[d] for d in ax]))
    mu = xr.mean(axis=ax)
    var = ((xr - mu.reshape(cshape)) ** 2).mean(axis=ax)
    xhat = (xr - mu.reshape(cshape)) / np.sqrt(var + e).reshape(cshape)
    y_ref = xhat * gr.reshape(cshape) + ber.reshape(cshape)
    new_mean = (1 - m) * rmr + m * mu
    new_var = (1 - m) * rvr + m * var * count / (count - 1)
    attrs = ('' if momentum is None else 'momentum ' + fmt_float(momentum)) + \
            ('' if eps is None else ' eps ' + fmt_float(eps))
    y, nm, nv = b.op('batch_norm', [x, g, be, rm, rv],
                     [(shape, et), ((c,), b.dt), ((c,), b.dt)], attrs.strip())
    b.check(y, y_ref, _norm_tol(tdt, count, y_ref, xhat, gr.reshape(cshape), ber.reshape(cshape),
                                np.abs(mu).reshape(cshape) / np.sqrt(var + e).reshape(cshape)), 'y')
    # Running statistics: (1 - m) old + m batch. fp32: the batch statistics
    # are within (count + 8) U32 relative (mean: of mean|x|); the update adds
    # two products and a sum. In the storage type the products, the sum and
    # the momentum constants themselves may each be rounded (STORE relative
    # to the terms, all of which are covered by the terms' magnitudes).
    mean_abs = np.abs(xr).mean(axis=ax)
    mag_m = (1 - m) * np.abs(rmr) + m * mean_abs
    b.check(nm, new_mean, (STORE[b.dt], FLOOR[b.dt] + (STORE[b.dt] + (count + 8) * U32) * mag_m),
            'running_mean')
    mag_v = (1 - m) * rvr + m * var * count / (count - 1)
    b.check(nv, new_var, (STORE[b.dt], FLOOR[b.dt] + (STORE[b.dt] + 2 * (count + 8) * U32) * mag_v
                          + 2 * m * (count + 8) * U32 * mu ** 2),
            'running_var')
  return build


register('norm', 'batch_norm_4d', _batch_norm_case((6, 5, 7, 9)))
register('norm', 'batch_norm_2d', _batch_norm_case((33, 12), momentum=0.25, eps=1e-3))
# Channel means 2..6 against stds 0.5..1 (see layer_norm_offset).
register('norm', 'batch_norm_offset', _batch_norm_case((8, 6, 5, 5), mean_range=(2, 6),
                                                       std_range=(0.5, 1)))


# -- matmul and batch_matmul ---------------------------------------------------------
def _matmul_case(op, m, k, n, ta=False, tb=False, batch=(), wide=False):
  def build(b):
    et, tdt = result_type(b, wide)
    ashape = batch + ((k, m) if ta else (m, k))
    bshape = batch + ((n, k) if tb else (k, n))
    a, ar = b.input(normal(b.rng, 0, 1, ashape))
    w, wr = b.input(normal(b.rng, 0, 1, bshape))
    am = np.swapaxes(ar, -1, -2) if ta else ar
    bm = np.swapaxes(wr, -1, -2) if tb else wr
    attrs = ' '.join(f for f, on in (('transpose_a', ta), ('transpose_b', tb)) if on)
    y = b.to(op, [a, w], batch + (m, n), attrs, et)
    b.check(y, am @ bm, tol_sum(tdt, k, np.abs(am) @ np.abs(bm)))
  return build


for _ta in (False, True):
  for _tb in (False, True):
    _suffix = ('t' if _ta else 'n') + ('t' if _tb else 'n')
    register('dot', 'matmul_' + _suffix, _matmul_case('matmul', 33, 17, 45, _ta, _tb))
    register('dot', 'batch_matmul_r3_' + _suffix,
             _matmul_case('batch_matmul', 9, 17, 11, _ta, _tb, batch=(3,)))
register('dot', 'matmul_long_k', _matmul_case('matmul', 8, 1000, 12))
register('dot', 'matmul_vector', _matmul_case('matmul', 1, 17, 1))
register('dot', 'matmul_big_odd', _matmul_case('matmul', 70, 130, 51, tb=True))
register('dot', 'batch_matmul_r4_nn', _matmul_case('batch_matmul', 5, 7, 6, batch=(2, 3)))
register('dot', 'batch_matmul_r4_nt', _matmul_case('batch_matmul', 5, 7, 6, tb=True, batch=(2, 3)))
register('dot', 'batch_matmul_r4_tn', _matmul_case('batch_matmul', 5, 7, 6, ta=True, batch=(2, 3)))


# -- attention -----------------------------------------------------------------------
def attention_score_error(qr, kr, scale, s, p):
  """Per query, the largest error of an fp32 score s = scale (q . k) + mask
  among the keys it weighs: the D-term dot product ((D + 2) U32 of
  |scale| sum |q||k|), the scale's rounding to f32 and the mask's add
  (2 U32 |s|)."""
  head = qr.shape[-1]
  dot_mag = abs(scale) * np.einsum('...id,...jd->...ij', np.abs(qr), np.abs(kr))
  err = (head + 2) * U32 * dot_mag + 2 * U32 * np.abs(np.where(p > 0, s, 0))
  return np.where(p > 0, err, 0).max(axis=-1)


def _attention_case(batch, queries, keys, head, causal, masked, scale=None, std=1.0,
                    mask_stored=False):
  """mpg.attention against attention_ref: the output y in the storage type,
  the log-sum-exp in f32. Shapes past one block of keys (64 on the host, 32
  on the GPU) check the online softmax's rescaling. The mask is f32, or in
  the storage type with `mask_stored` (a graph may give it either)."""
  def build(b):
    sc = scale if scale is not None else 1.0 / math.sqrt(head)
    q, qr = b.input(normal(b.rng, 0, std, batch + (queries, head)))
    k, kr = b.input(normal(b.rng, 0, std, batch + (keys, head)))
    v, vr = b.input(normal(b.rng, 0, 1, batch + (keys, head)))
    mask = mr = None
    if masked:
      # Offsets, and -1e9 (a padding mask) on a fifth of the pairs, never on
      # the diagonal: every query keeps a key.
      m = normal(b.rng, 0, 0.5, (queries, keys))
      m[b.rng.random(m.shape) < 0.2] = -1e9
      m[np.arange(min(queries, keys)), np.arange(min(queries, keys))] = 0.0
      mask, mr = b.input(m.astype(np.float32), store=mask_stored)
    y, lse = Val(b._fresh(), q.shape, q.et), Val(b._fresh(), batch + (queries,), 'f32')
    b.lines.append(attention_text(y, lse, q, k, v, mask, sc, causal))
    ey, else_, p = attention_ref(qr, kr, vr, mr, sc, causal)
    s = sc * np.einsum('...id,...jd->...ij', qr, kr) + (0 if mr is None else mr)
    ds = attention_score_error(qr, kr, sc, s, p)[..., None]
    # y = sum_j p v_j: each p off by its score's error (twice: the score and
    # the normaliser), exp's TRANS and the sum's keys U32 relative; the
    # weighted sum's own (keys + 2) U32 of sum_j p |v_j|.
    # In bf16, p is rounded to bf16 for its product with v where the CPU has
    # AVX512-BF16 (attention_bf16.cuh, as on a GPU's tensor cores): one
    # UNIT['bf16'] of each p, so of the weighted sum, more.
    mag = p @ np.abs(vr)
    rtol, atol = tol_trans(b.dt)
    rounded_p = UNIT['bf16'] if b.dt == 'bf16' else 0.0
    b.check(y, ey, (rtol, atol + (2 * ds + (2 * keys + 6) * U32 + rounded_p) * mag), 'y')
    # lse = m + log(l): the score's error, log's and the sum's (absolute).
    b.check(lse, else_, (0.0, ds[..., 0] + TRANS + (keys + 4) * U32 * (1 + np.abs(else_))),
            'lse')
  return build


register('attention', 'causal', _attention_case((2, 3), 20, 20, 16, True, False))
register('attention', 'causal_long', _attention_case((2,), 150, 150, 32, True, False))
register('attention', 'masked', _attention_case((3,), 37, 70, 8, False, True, scale=-0.3))
register('attention', 'masked_causal',
         _attention_case((2, 2), 33, 33, 24, True, True, std=2.0))
register('attention', 'head128', _attention_case((1,), 40, 40, 128, False, False))
register('attention', 'mask_in_storage_type',
         _attention_case((2,), 9, 12, 8, False, True, mask_stored=True))


# -- conv2d ------------------------------------------------------------------------
def _conv_case(xshape, wshape, stride=None, padding=None, dilation=None, groups=None, wide=False):
  def build(b):
    et, tdt = result_type(b, wide)
    x, xr = b.input(normal(b.rng, 0, 1, xshape))
    w, wr = b.input(normal(b.rng, 0, 0.5, wshape))
    s, p, d, g = stride or (1, 1), padding or (0, 0, 0, 0), dilation or (1, 1), groups or 1
    expected = conv2d_ref(xr, wr, s, p, d, g)
    mag = conv2d_ref(np.abs(xr), np.abs(wr), s, p, d, g)
    attrs = []
    if stride:
      attrs.append('stride ' + fmt_list(stride))
    if padding:
      attrs.append('padding ' + fmt_list(padding))
    if dilation:
      attrs.append('dilation ' + fmt_list(dilation))
    if groups:
      attrs.append('groups %d' % groups)
    y = b.to('conv2d', [x, w], expected.shape, ' '.join(attrs), et)
    k = wshape[1] * wshape[2] * wshape[3]
    b.check(y, expected, tol_sum(tdt, k, mag))
  return build


register('conv', 'conv2d_basic', _conv_case((2, 3, 11, 13), (5, 3, 3, 3)))
register('conv', 'conv2d_stride_pad', _conv_case((2, 3, 12, 11), (4, 3, 3, 3), stride=(2, 2),
                                                 padding=(1, 1, 1, 1)))
register('conv', 'conv2d_asym_pad', _conv_case((2, 3, 10, 9), (4, 3, 3, 2), padding=(0, 2, 1, 1)))
register('conv', 'conv2d_dilation', _conv_case((1, 3, 13, 14), (4, 3, 3, 3), dilation=(2, 3)))
register('conv', 'conv2d_groups2', _conv_case((2, 4, 9, 9), (6, 2, 3, 3), padding=(1, 1, 1, 1),
                                              groups=2))
register('conv', 'conv2d_depthwise', _conv_case((2, 6, 10, 10), (6, 1, 3, 3), stride=(2, 2),
                                                padding=(1, 1, 1, 1), groups=6))
register('conv', 'conv2d_depthwise_mult2', _conv_case((1, 3, 8, 8), (6, 1, 3, 3), groups=3))
register('conv', 'conv2d_odd', _conv_case((3, 5, 17, 15), (7, 5, 5, 3), stride=(2, 1),
                                          padding=(2, 1, 1, 0), dilation=(1, 2)))
register('conv', 'conv2d_1x1', _conv_case((2, 8, 5, 7), (3, 8, 1, 1)))
register('conv', 'conv2d_wide_k', _conv_case((2, 16, 6, 6), (8, 16, 3, 3), padding=(1, 1, 1, 1)))


# -- pooling -------------------------------------------------------------------------
def _pool_attrs(kernel, stride, padding, cip=False):
  attrs = ['kernel ' + fmt_list(kernel)]
  if stride:
    attrs.append('stride ' + fmt_list(stride))
  if padding:
    attrs.append('padding ' + fmt_list(padding))
  if cip:
    attrs.append('count_include_pad')
  return ' '.join(attrs)


def _max_pool_case(xshape, kernel, stride=None, padding=None, mean=0.0):
  def build(b):
    x, xr = b.input(normal(b.rng, mean, 1, xshape))
    expected = max_pool_ref(xr, kernel, stride or kernel, padding or (0, 0, 0, 0))
    y = b.to('max_pool2d', [x], expected.shape, _pool_attrs(kernel, stride, padding))
    b.check(y, expected, tol_exact(b.dt))
  return build


def _avg_pool_case(xshape, kernel, stride=None, padding=None, cip=False):
  def build(b):
    x, xr = b.input(normal(b.rng, 0.2, 1, xshape))
    expected, mag = avg_pool_ref(xr, kernel, stride or kernel, padding or (0, 0, 0, 0), cip)
    y = b.to('avg_pool2d', [x], expected.shape, _pool_attrs(kernel, stride, padding, cip))
    b.check(y, expected, tol_sum(b.dt, kernel[0] * kernel[1] + 2, mag))
  return build


register('pool', 'max_pool2d_2x2', _max_pool_case((2, 3, 10, 12), (2, 2)))
register('pool', 'max_pool2d_odd_floor', _max_pool_case((2, 3, 11, 13), (2, 2)))
# All inputs negative: a padded position (which never wins) would show as 0.
register('pool', 'max_pool2d_pad', _max_pool_case((2, 3, 11, 13), (3, 3), (2, 2), (1, 1, 1, 1),
                                                  mean=-6.0))
register('pool', 'max_pool2d_asym', _max_pool_case((2, 4, 9, 10), (3, 2), (1, 2), (1, 0, 2, 1),
                                                   mean=-6.0))
register('pool', 'avg_pool2d_2x2', _avg_pool_case((2, 3, 10, 12), (2, 2)))
register('pool', 'avg_pool2d_pad', _avg_pool_case((2, 3, 11, 13), (3, 3), (2, 2), (1, 1, 1, 1)))
register('pool', 'avg_pool2d_pad_cip', _avg_pool_case((2, 3, 11, 13), (3, 3), (2, 2), (1, 1, 1, 1),
                                                      cip=True))
register('pool', 'avg_pool2d_asym', _avg_pool_case((2, 4, 9, 10), (2, 3), (2, 1), (1, 1, 0, 2)))
register('pool', 'avg_pool2d_asym_cip', _avg_pool_case((2, 4, 9, 10), (2, 3), (2, 1), (1, 1, 0, 2),
                                                       cip=True))


@case('pool', 'global_avg_pool')
def _(b):
  shape = (3, 5, 7, 9)
  x, xr = b.input(normal(b.rng, 0.2, 1, shape))
  y = b.to('global_avg_pool', [x], shape[:2])
  b.check(y, xr.mean(axis=(2, 3)), tol_sum(b.dt, 63 + 2, np.abs(xr).mean(axis=(2, 3))))


# -- losses --------------------------------------------------------------------------
def _sce_case(n, c, label_type, std=2.0, wide=False):
  def build(b):
    et, tdt = result_type(b, wide)
    x, xr = b.input(normal(b.rng, 0.3, std, (n, c)))
    labels = b.rng.integers(0, c, n)
    labels[:2] = [0, c - 1]
    y, yr = b.input(labels.astype(np.int32 if label_type == 'i32' else np.int64))
    lse = logsumexp(xr, 1)[:, 0]
    picked = xr[np.arange(n), yr]
    expected = np.mean(lse - picked)
    # Per row: log(sum exp) within ~(c + 8) U32 absolute (times the row's
    # scale |x - max| + |lse|); the mean over n rows adds n U32 relative of
    # the sum of |lse - picked|.
    rowmag = np.abs(xr - xr.max(axis=1, keepdims=True)).max(axis=1) + np.abs(lse) + np.abs(picked) + 1
    atol = FLOOR[tdt] + (c + n + 8) * U32 * rowmag.mean()
    loss = b.to('softmax_cross_entropy', [x, y], (), et=et)
    b.check(loss, expected, (STORE[tdt] + TRANS, atol))
  return build


register('loss', 'softmax_cross_entropy_i32', _sce_case(37, 11, 'i32'))
register('loss', 'softmax_cross_entropy_i64', _sce_case(16, 7, 'i64'))
register('loss', 'softmax_cross_entropy_wide', _sce_case(4, 1000, 'i32', std=3.0))


def _mse_case(shape, wide=False):
  def build(b):
    et, tdt = result_type(b, wide)
    p, pr = b.input(normal(b.rng, 0.2, 1, shape))
    t, tr = b.input(normal(b.rng, 0.0, 1, shape))
    k = int(np.prod(shape))
    expected = np.mean((pr - tr) ** 2)
    # All terms are >= 0, so the accumulation error is relative: (k + 4) U32
    # for the sum and the division, plus the difference and the square (2 U32
    # each, or one storage rounding each when the decomposition materialises
    # them in the storage type: 2 STORE). With an f32 result (wide) the loss
    # is computed in fp32 throughout (docs/precision.md: losses compute in fp32).
    loss = b.to('mse_loss', [p, t], (), et=et)
    b.check(loss, expected, (2 * STORE[tdt] + (k + 8) * U32, FLOOR[tdt]))
  return build


register('loss', 'mse_loss_2d', _mse_case((13, 21)))
register('loss', 'mse_loss_1d', _mse_case((50,)))


# -- shape ops ---------------------------------------------------------------------------
def _shape_case(op, shape, attrs, ref):
  def build(b):
    x, xr = b.input(normal(b.rng, 0, 1, shape))
    expected = ref(xr)
    b.check(b.to(op, [x], expected.shape, attrs), expected, tol_exact(b.dt))
  return build


register('shape', 'reshape_split', _shape_case('reshape', (6, 35), '', lambda x: x.reshape(2, 3, 5, 7)))
register('shape', 'reshape_flatten', _shape_case('reshape', (2, 3, 4, 5), '', lambda x: x.reshape(2, 60)))
register('shape', 'transpose_2d', _shape_case('transpose', (9, 13), 'perm [1, 0]', lambda x: x.T))
register('shape', 'transpose_3d', _shape_case('transpose', (3, 5, 7), 'perm [2, 0, 1]',
                                              lambda x: x.transpose(2, 0, 1)))
register('shape', 'transpose_4d', _shape_case('transpose', (2, 3, 4, 5), 'perm [0, 2, 3, 1]',
                                              lambda x: x.transpose(0, 2, 3, 1)))
register('shape', 'broadcast_to_row', _shape_case('broadcast_to', (37,), '',
                                                  lambda x: np.broadcast_to(x, (3, 4, 37))))
register('shape', 'broadcast_to_col', _shape_case('broadcast_to', (4, 1), '',
                                                  lambda x: np.broadcast_to(x, (2, 4, 6))))
register('shape', 'broadcast_to_rank0', _shape_case('broadcast_to', (), '',
                                                    lambda x: np.broadcast_to(x, (3, 5))))
register('shape', 'slice_contiguous', _shape_case('slice', (8, 16), 'start [0, 4] limit [8, 12]',
                                                  lambda x: x[0:8, 4:12]))
register('shape', 'slice_step', _shape_case('slice', (9, 16), 'start [1, 2] limit [9, 15] step [2, 3]',
                                            lambda x: x[1:9:2, 2:15:3]))
register('shape', 'slice_3d_step', _shape_case('slice', (4, 9, 11),
                                               'start [1, 0, 3] limit [4, 9, 10] step [1, 4, 2]',
                                               lambda x: x[1:4, 0:9:4, 3:10:2]))


def _concat_case(shapes, axis):
  def build(b):
    vals, refs = zip(*[b.input(normal(b.rng, 0, 1, s)) for s in shapes])
    expected = np.concatenate(refs, axis=axis)
    b.check(b.to('concat', list(vals), expected.shape, 'axis %d' % axis), expected, tol_exact(b.dt))
  return build


register('shape', 'concat3_middle', _concat_case([(2, 3, 4), (2, 5, 4), (2, 1, 4)], 1))
register('shape', 'concat3_leading', _concat_case([(2, 5), (3, 5), (1, 5)], 0))
register('shape', 'concat2_last_negative', _concat_case([(3, 2), (3, 7)], -1))


def _embedding_case(vocab, dim, ids_shape, id_type):
  def build(b):
    t, tr = b.input(normal(b.rng, 0, 1, (vocab, dim)))
    ids = b.rng.integers(0, vocab, ids_shape)
    ids.flat[:2] = [0, vocab - 1]
    i, ir = b.input(ids.astype(np.int32 if id_type == 'i32' else np.int64))
    expected = tr[ir]
    b.check(b.to('embedding', [t, i], expected.shape), expected, tol_exact(b.dt))
  return build


register('shape', 'embedding_i32', _embedding_case(23, 10, (4, 7), 'i32'))
register('shape', 'embedding_i64', _embedding_case(23, 10, (5,), 'i64'))


# -- fused chains -------------------------------------------------------------------------
def _gemm_epilogue_case(act, tb=False, bias=True):
  def build(b):
    m, k, n = 33, 17, 45
    a, ar = b.input(normal(b.rng, 0, 1, (m, k)))
    w, wr = b.input(normal(b.rng, 0, 1, (n, k) if tb else (k, n)))
    wm = wr.T if tb else wr
    y = b.to('matmul', [a, w], (m, n), 'transpose_b' if tb else '')
    mm = ar @ wm
    pre = mm
    if bias:
      bb, br = b.input(normal(b.rng, 0, 1, (n,)))
      y = b.binary('add', y, bb)
      pre = mm + br
    if act == 'relu':
      y, expected = b.unary('relu', y), np.maximum(pre, 0)
    elif act == 'gelu':
      y, expected = b.unary('gelu', y, 'approximate'), gelu_tanh(pre)
    else:
      expected = pre
    # The GEMM's accumulation bound, plus: the epilogue may run on the fp32
    # accumulator (one rounding at the store) or, unfused, on the GEMM result
    # rounded to the storage type (one more STORE relative to |A @ B|); the
    # bias add and the activation are one fp32 op each (TRANS covers gelu).
    rtol, atol = tol_sum(b.dt, k, np.abs(ar) @ np.abs(wm))
    atol = atol + STORE[b.dt] * np.abs(mm) + TRANS * np.abs(pre)
    b.check(y, expected, (rtol + TRANS, atol))
  return build


register('fused', 'gemm_bias_relu', _gemm_epilogue_case('relu'))
register('fused', 'gemm_bias_gelu', _gemm_epilogue_case('gelu'))
register('fused', 'gemm_nt_bias', _gemm_epilogue_case(None, tb=True))
register('fused', 'gemm_relu_nobias', _gemm_epilogue_case('relu', bias=False))


@case('fused', 'reduce_prologue_epilogue_rms')
def _(b):
  # sqrt(mean(x * x over the last axis) + 0.125): prologue mul, epilogue add
  # and sqrt. All terms are positive, so every error is relative: the sum
  # (k + 2) U32, the prologue product and the epilogue ops a few U32 each (or
  # one storage rounding each when unfused: 3 storage roundings, halved by the
  # sqrt, plus its own).
  shape = (11, 300)
  x, xr = b.input(normal(b.rng, 0.2, 1, shape))
  c = b.constant(0.125)
  s = b.to('reduce_mean', [b.binary('mul', x, x)], (11,), 'axes [-1]')
  y = b.unary('sqrt', b.binary('add', s, c))
  expected = np.sqrt((xr * xr).mean(axis=-1) + 0.125)
  b.check(y, expected, (2 * STORE[b.dt] + TRANS + (shape[1] + 8) * U32, FLOOR[b.dt]))


@case('fused', 'reduce_prologue_epilogue_lse')
def _(b):
  # log(sum(exp(x - 1) over the middle axis)) * 0.5: prologue sub + exp,
  # epilogue log + mul. exp(x - 1) > 0, so the sum is relatively accurate
  # ((k + 4) U32 plus TRANS for exp); unfused, x - 1 may be rounded to the
  # storage type (absolute STORE |x - 1| in the exponent = relative in each
  # term) and so may each exp: all relative in the sum, absolute in its log.
  shape = (4, 57, 6)
  x, xr = b.input(normal(b.rng, 0, 1.5, shape))
  one, half = b.constant(1.0), b.constant(0.5)
  s = b.to('reduce_sum', [b.unary('exp', b.binary('sub', x, one))], (4, 6), 'axes [1]')
  y = b.binary('mul', b.unary('log', s), half)
  lse = np.log(np.exp(xr - 1).sum(axis=1))
  expected = 0.5 * lse
  rel_sum = TRANS + (shape[1] + 4) * U32 + STORE[b.dt] * (1 + np.abs(xr - 1).max(axis=1))
  b.check(y, expected, (STORE[b.dt] + TRANS, FLOOR[b.dt] + 0.5 * rel_sum))


@case('fused', 'reduce_max_prologue_epilogue')
def _(b):
  # max(|x|) over the leading axis, keepdim, times 0.5 (exact in every type
  # except where the product underflows, which these values do not).
  x, xr = b.input(normal(b.rng, 0, 1, (23, 9)))
  half = b.constant(0.5)
  y = b.binary('mul', b.to('reduce_max', [b.unary('abs', x)], (1, 9), 'axes [0] keepdim'), half)
  b.check(y, 0.5 * np.abs(xr).max(axis=0, keepdims=True), tol_exact(b.dt))


@case('fused', 'softmax_of_biased')
def _(b):
  # softmax(x + bias): a row op whose input is a pointwise result (rounded to
  # the storage type once when not fused: STORE absolute in the exponent).
  x, xr = b.input(normal(b.rng, 0, 1.5, (10, 37)))
  bb, br = b.input(normal(b.rng, 0, 0.5, (37,)))
  y = b.to('softmax', [b.binary('add', x, bb)], (10, 37))
  t = xr + br
  expected = softmax(t, -1)
  rtol, atol = tol_trans(b.dt)
  b.check(y, expected, (rtol + 41 * U32 + 2 * STORE[b.dt] * (1 + np.abs(t).max()), atol))


# -- f16/bf16 operands with an f32 result ---------------------------------------------
# The precision-sensitive ops may produce another float type than their
# operands' (docs/design.md, "Result types of precision-sensitive ops"): this is what
# precision assignment emits, e.g. f16 products accumulated and returned in
# fp32. Such a result carries only fp32 error: the tolerances are f32's.
WIDE = ('f16', 'bf16')
register('mixed', 'matmul_f32_result', _matmul_case('matmul', 33, 17, 45, wide=True), WIDE)
register('mixed', 'matmul_long_k_f32_result', _matmul_case('matmul', 8, 1000, 12, wide=True), WIDE)
register('mixed', 'batch_matmul_f32_result',
         _matmul_case('batch_matmul', 9, 17, 11, tb=True, batch=(3,), wide=True), WIDE)
register('mixed', 'conv2d_f32_result', _conv_case((2, 3, 12, 11), (4, 3, 3, 3), stride=(2, 2),
                                                  padding=(1, 1, 1, 1), wide=True), WIDE)
register('mixed', 'reduce_sum_f32_result', _reduce_case('reduce_sum', RX, [1], wide=True), WIDE)
register('mixed', 'reduce_sum_long_f32_result',
         _reduce_case('reduce_sum', (3, 4099), [1], mean=0.5, wide=True), WIDE)
register('mixed', 'reduce_mean_f32_result', _reduce_case('reduce_mean', RX, [0, 2], wide=True), WIDE)
register('mixed', 'softmax_f32_result', _softmax_case('softmax', (9, 50), -1, wide=True), WIDE)
register('mixed', 'log_softmax_f32_result', _softmax_case('log_softmax', (4, 37, 6), 1, wide=True),
         WIDE)
register('mixed', 'layer_norm_f32_result', _layer_norm_case((6, 13, 40), -1, wide=True), WIDE)
register('mixed', 'batch_norm_f32_result', _batch_norm_case((6, 5, 7, 9), wide=True), WIDE)
register('mixed', 'softmax_cross_entropy_f32_result', _sce_case(37, 11, 'i32', wide=True), WIDE)
register('mixed', 'mse_loss_f32_result', _mse_case((13, 21), wide=True), WIDE)


# -- sizes that take the host skeletons' parallel paths --------------------------------
# runtime/device: pointwise kernels use OpenMP from 32768 elements, row kernels
# from 64 rows. The cases above are small; these cross the thresholds.
@case('parallel', 'pointwise_parallel')
def _(b):
  shape = (70, 1001)   # 70070 elements
  a, ar = b.input(normal(b.rng, 0, 1, shape))
  c, cr = b.input(normal(b.rng, 0, 1, (1001,)))
  b.check(b.binary('mul', a, c), ar * cr, tol_arith(b.dt), 'mul')
  b.check(b.unary('exp', a), np.exp(ar), tol_trans(b.dt), 'exp')


register('parallel', 'reduce_sum_parallel_rows', _reduce_case('reduce_sum', (300, 129), [1]))
register('parallel', 'reduce_mean_parallel_columns', _reduce_case('reduce_mean', (129, 300), [0]))
register('parallel', 'reduce_max_parallel_rows', _reduce_case('reduce_max', (257, 65), [-1]))
register('parallel', 'softmax_parallel_rows', _softmax_case('softmax', (200, 77), -1))
register('parallel', 'log_softmax_parallel_rows', _softmax_case('log_softmax', (5, 33, 40), 1))
register('parallel', 'layer_norm_parallel_rows', _layer_norm_case((130, 96), -1))
register('parallel', 'matmul_parallel', _matmul_case('matmul', 128, 96, 200))
register('parallel', 'softmax_cross_entropy_parallel_rows', _sce_case(300, 10, 'i64'))


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------

class Result:
  def __init__(self, case, dt, ok, abs_err=float('nan'), rel_err=float('nan'), details=(),
               ratio=float('nan'), status=None):
    self.case, self.dt, self.ok = case, dt, ok
    self.abs_err, self.rel_err, self.details = abs_err, rel_err, list(details)
    self.ratio = ratio     # the largest error / tolerance of the case's elements
    self.status = status or ('PASS' if ok else 'FAIL')

  def line(self, verbose=False):
    if self.status == 'COMPILED':
      return '%s %s %s' % (self.status, self.case.name, self.dt)
    if self.abs_err != self.abs_err:   # no numbers: mpc failed
      return '%s %s %s - -' % (self.status, self.case.name, self.dt)
    text = '%s %s %s %.3g %.3g' % (self.status, self.case.name, self.dt, self.abs_err, self.rel_err)
    if verbose and self.ok and self.ratio == self.ratio:
      text += '  (worst error/tolerance %.3g)' % self.ratio
    return text


def case_rng(case):
  return np.random.default_rng([SEED, zlib.crc32(case.name.encode())])


def build_case(case, dt, index):
  b = Builder(dt, 'c%d' % index, case_rng(case))
  case.fn(b)
  return b


def write_graph(path, graph_name, builders):
  lines = ['// Generated by tests/e2e/op_reference_test.py; one section per case.',
           'mpg.graph @%s {' % graph_name]
  for case, b in builders:
    lines.append('  // case %s' % case.name)
    lines.extend('  ' + line for line in b.lines)
  lines.append('}')
  with open(path, 'w') as f:
    f.write('\n'.join(lines) + '\n')


def run_cmd(cmd, verbose, log):
  start = time.time()
  try:
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    rc, out, err = proc.returncode, proc.stdout.decode(errors='replace'), proc.stderr.decode(errors='replace')
  except subprocess.TimeoutExpired as e:
    rc, out, err = 'timeout', '', 'timed out after 300 s\n' + ((e.stderr or b'').decode(errors='replace'))
  except OSError as e:
    rc, out, err = 'exec-error', '', str(e)
  if verbose:
    log('  [%.2fs] %s -> %s' % (time.time() - start, ' '.join(cmd if len(cmd) < 12 else cmd[:12] + ['...']), rc))
  return rc, out, err


def write_repro(directory, commands):
  """Writes DIR/repro.sh with the commands that compile and run the graph."""
  path = os.path.join(directory, 'repro.sh')
  with open(path, 'w') as f:
    f.write('#!/bin/sh\n# Compiles and runs this graph as op_reference_test.py did.\nset -e\n')
    for cmd in commands:
      # `mpc compile GRAPH` / `mpc run BUNDLE`, then one option and its value a line.
      parts = [cmd[:3]] + [cmd[i:i + 2] for i in range(3, len(cmd), 2)]
      f.write(' \\\n    '.join(shell_join(p) for p in parts) + '\n')
  os.chmod(path, 0o755)
  return path


def compare_output(out, got):
  """Returns (ok, abs_err, rel_err, worst error/tolerance, detail lines)."""
  exp = np.asarray(out.expected)
  if got.shape != exp.shape:
    return False, float('inf'), float('inf'), float('inf'), [
        '  %s: shape %s, expected %s' % (out.label, got.shape, exp.shape)]
  if got.size == 0:
    # A check that compares no elements proves nothing: no case outputs an
    # empty tensor on purpose.
    return False, float('inf'), float('inf'), float('inf'), [
        '  %s: the output has no elements, so nothing was compared' % out.label]
  if out.stored == 'f16' and got.dtype != np.float16:
    # The output must hold the storage type itself (a bf16 one is checked
    # when its safetensors file is read): a result widened to f32 inside the
    # graph may never have been rounded to 16 bits.
    return False, float('inf'), float('inf'), float('inf'), [
        '  %s: read back as %s, not float16: the result was not stored in f16'
        % (out.label, got.dtype)]
  if exp.dtype.kind in 'iu':
    if got.dtype.kind not in 'iu':
      return False, float('inf'), float('inf'), float('inf'), [
          '  %s: dtype %s, expected an integer type' % (out.label, got.dtype)]
  g = got.astype(np.float64)
  e = exp.astype(np.float64)
  with np.errstate(invalid='ignore', over='ignore'):
    err = np.where(g == e, 0.0, np.abs(g - e))
    err = np.where(np.isnan(err), np.inf, err)
    tol = np.broadcast_to(out.atol + out.rtol * np.abs(e), e.shape)
    rel = np.where(err == 0, 0.0, err / np.where(e == 0, np.inf, np.abs(e)))
    rel = np.where((e == 0) & (err > 0), np.inf, rel)
  bad = ~(err <= tol)
  abs_err, rel_err = float(err.max()), float(rel.max())
  with np.errstate(divide='ignore', invalid='ignore', over='ignore'):
    excess = np.where(err == 0, 0.0, err / np.where(tol > 0, tol, np.finfo(np.float64).tiny))
  ratio = float(excess.max())
  if not bad.any():
    return True, abs_err, rel_err, ratio, []
  worst = np.unravel_index(int(np.argmax(excess)), e.shape)
  return False, abs_err, rel_err, ratio, [
      '  %s: %d of %d elements out of tolerance; worst at index %s: got %r expected %r '
      '(abs err %.3g, tolerance %.3g)' % (out.label, int(bad.sum()), e.size, tuple(int(i) for i in worst),
                                          float(g[worst]), float(e[worst]), float(err[worst]),
                                          float(tol[worst]))]


class Runner:
  def __init__(self, args):
    self.mpc = os.path.abspath(args.mpc)
    self.workdir = os.path.abspath(args.workdir)
    self.verbose = args.verbose
    self.compile_only = args.compile_only
    self.lock = threading.Lock()

  def log(self, text):
    with self.lock:
      print(text, file=sys.stderr, flush=True)

  def run_graph(self, directory, graph_name, items, dt):
    """Compiles and runs one graph holding `items` [(case, builder)] in
    `directory` (graph.mlir, the .npy files, repro.sh). Returns (results,
    error) where error is None or (stage, exit status, stderr, repro.sh)."""
    if os.path.isdir(directory):
      shutil.rmtree(directory)
    os.makedirs(directory)
    graph = os.path.join(directory, 'graph.mlir')
    write_graph(graph, graph_name, items)
    if self.compile_only:
      compile_cmd = [self.mpc, 'compile', graph, '--emit', 'kernels', '-o',
                     os.path.join(directory, 'kernels.mlir')]
      run_cmd_line = None
    else:
      bundle = os.path.join(directory, 'graph.mpcb')
      compile_cmd = [self.mpc, 'compile', graph, '--target', 'cpu', '-o', bundle]
      run_cmd_line = [self.mpc, 'run', bundle]
      for _, b in items:
        for name, array in b.inputs.items():
          path = os.path.join(directory, name + '.npy')
          np.save(path, array)
          run_cmd_line += ['--input', '%s=%s' % (name, path)]
      for _, b in items:
        for out in b.outputs:
          run_cmd_line += ['--output', '%s=%s' % (out.name, os.path.join(directory, out.file_name))]
    repro = write_repro(directory, [c for c in (compile_cmd, run_cmd_line) if c])
    for stage, cmd in (('compile', compile_cmd), ('run', run_cmd_line)):
      if cmd is None:
        continue
      rc, _, err = run_cmd(cmd, self.verbose, self.log)
      if rc != 0:
        return None, (stage, rc, err, repro)
    if self.compile_only:
      return [Result(case, dt, True, status='COMPILED') for case, _ in items], None
    results = []
    for case, b in items:
      ok, abs_err, rel_err, ratio, details = True, 0.0, 0.0, 0.0, []
      for out in b.outputs:
        path = os.path.join(directory, out.file_name)
        try:
          got = read_output(path, out.stored)
        except Exception as e:  # missing or unreadable output
          ok = False
          details.append('  %s: cannot read output %s: %s' % (out.label, path, e))
          continue
        o_ok, a, r, q, d = compare_output(out, got)
        ok &= o_ok
        abs_err, rel_err, ratio = max(abs_err, a), max(rel_err, r), max(ratio, q)
        details += d
      if not ok:
        details.append('  reproduce: %s (the graph\'s section "// case %s", outputs %s_out*)'
                       % (repro, case.name, b.prefix))
      results.append(Result(case, dt, ok, abs_err, rel_err, details, ratio))
    return results, None

  def run_group(self, group, dt, cases):
    """Runs the cases of one group for one type; on an mpc failure, retries
    each case alone to find the failing ones."""
    start = time.time()
    items = [(case, build_case(case, dt, index)) for index, case in cases]
    directory = os.path.join(self.workdir, dt, group)
    results, error = self.run_graph(directory, 'op_ref_%s_%s' % (group, dt), items, dt)
    if error is not None and len(items) > 1:
      if self.verbose:
        self.log('  %s/%s: mpc %s failed (%s); retrying each case alone' % (group, dt, error[0], error[1]))
      results = []
      for case, b in items:
        sub = os.path.join(directory, case.name)
        r, e = self.run_graph(sub, 'op_ref_%s_%s' % (case.name, dt), [(case, b)], dt)
        results += r if e is None else [self.failure(case, dt, e)]
    elif error is not None:
      results = [self.failure(items[0][0], dt, error)]
    if self.verbose:
      self.log('  %s/%s: %d cases in %.1fs' % (group, dt, len(items), time.time() - start))
    return results

  @staticmethod
  def failure(case, dt, error):
    stage, rc, stderr, repro = error
    lines = stderr.rstrip().splitlines()
    if len(lines) > 40:
      lines = lines[:20] + ['... (%d more lines)' % (len(lines) - 40)] + lines[-20:]
    details = ['  mpc %s exited with %s; stderr:' % (stage, rc)] + ['    | ' + l for l in lines]
    details.append('  reproduce: ' + repro)
    return Result(case, dt, False, details=details)


def main():
  parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
  parser.add_argument('--mpc', required=True, help='the mpc executable')
  parser.add_argument('--workdir', required=True, help='where graphs, bundles and .npy files go')
  parser.add_argument('--filter', default='', help='only cases whose "group/name/dtype" contains this')
  parser.add_argument('-v', '--verbose', action='store_true', help='log each mpc command and its time')
  parser.add_argument('--jobs', type=int, default=2, help='graphs compiled and run in parallel [2]')
  parser.add_argument('--compile-only', action='store_true',
                      help='only check that mpc compiles every graph (--emit kernels)')
  args = parser.parse_args()

  if not os.path.isfile(args.mpc) or not os.access(args.mpc, os.X_OK):
    print('op_reference_test: error: %s is not an executable' % args.mpc, file=sys.stderr)
    return 2
  start = time.time()
  jobs = []   # (group, dt, [(index, case)])
  groups = []
  for c in CASES:
    if c.group not in groups:
      groups.append(c.group)
  names = [c.name for c in CASES]
  dup = {n for n in names if names.count(n) > 1}
  assert not dup, 'duplicate case names: %s' % sorted(dup)
  for dt in STORAGE_TYPES + INT_TYPES:
    for group in groups:
      selected = [(i, c) for i, c in enumerate(CASES)
                  if c.group == group and dt in c.dtypes and args.filter in '%s/%s/%s' % (group, c.name, dt)]
      if selected:
        jobs.append((group, dt, selected))
  if not jobs:
    print('op_reference_test: error: --filter %r selects no case' % args.filter, file=sys.stderr)
    print('0 passed, 0 failed')
    return 2

  runner = Runner(args)
  os.makedirs(runner.workdir, exist_ok=True)
  passed = failed = 0
  with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
    futures = [pool.submit(runner.run_group, *job) for job in jobs]
    for future in futures:
      for result in future.result():
        print(result.line(args.verbose))
        for line in result.details:
          print(line)
        sys.stdout.flush()
        if result.ok:
          passed += 1
        else:
          failed += 1
  if args.verbose:
    runner.log('total %.1fs' % (time.time() - start))
  print('%d passed, %d failed' % (passed, failed))
  return 1 if failed else 0


if __name__ == '__main__':
  sys.exit(main())
