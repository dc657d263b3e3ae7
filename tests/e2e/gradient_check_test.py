#!/usr/bin/python3
"""End-to-end gradient checks of mpc's training step (the VJP rules of MpgVjp.cpp,
mpg-autodiff's accumulation, and the optimizer updates).

Usage:
  gradient_check_test.py --mpc PATH_TO_MPC --workdir DIR [--filter SUBSTRING] [-v]
                         [--jobs N]

How a gradient is read back. Every case declares trainable f32 parameters p,
computes y = op(..., p, ...) and contributes the loss term
reduce_sum(y * r), r a fixed random input of y's shape (a rank-0 input when y
is rank-0, as for the losses). The cases of a group share one graph whose loss
is the sum of their terms; each term depends on its own parameters only, so
the gradient of each parameter is that of its own term. The graph is compiled
twice:

* `mpc compile G --step train` with `optimizer(sgd, lr = 1.0)`: one step turns
  p into p - grad, so `mpc run T --params P0 --save-params P1` gives
  grad = P0 - P1 (the gradient mpc computed, exactly up to the rounding of the
  subtraction p - grad);
* `mpc compile G` (the forward step), with every case's y as an output.

Each case is checked twice:

1. Against a float64 NumPy gradient of the same function (a hand-written
   formula; for conv2d and pooling, J^T r of the float64 reference, which is
   exact for an op that is linear, or piecewise linear with no kink within the
   step, in p). The reference is itself checked against float64 central
   differences of the case's float64 forward function (a test bug, not an mpc
   bug, when that fails).
2. Against central finite differences of mpc's own forward step: for up to
   NFD elements of each parameter (chosen at random, two thirds of them where
   the gradient is not zero, none at a kink or a tie), the forward bundle is
   run with the element at p + h and at p - h (the two f32 values; one run
   perturbs one element of every parameter of the group at once, which is
   fine since the terms are independent) and the loss term is formed in
   float64 from mpc's output y: FD = sum(r * (y+ - y-)) / (p+ - p-).
   Forming the term in float64 from y (rather than reading mpc's f32 loss) keeps
   the FD noise to the rounding of the y elements that the perturbed element
   moves, instead of the rounding of the whole f32 loss sum.

Optimizer cases (sgd with momentum, Nesterov, weight decay; adam and adamw
with default and other hyper-parameters) use one parameter w and the loss
reduce_sum(w * w * r) (gradient 2 w r, which changes between steps), run two
steps of the compiled training step, and compare w and the optimizer state
after each step with the update formulas of MpgOps.td evaluated in float64
NumPy (tolerance at run_optimizer).

TOLERANCES (U32 = 2^-24, fp32's unit roundoff; "scale" is max |reference
gradient| over the parameter):

* Reading the gradient back: mpc stores fl(p - g), so P0 - P1 differs from
  mpc's g by at most U32 |P1|; budget 2 U32 |P1|.
* mpc's fp32 gradient: gtol = RTOL |ref| + ATOL scale + (k + 2) U32 gmag.
  RTOL = 1e-5 covers a VJP formula's few fp32 roundings and its
  transcendentals (CUDA's expf/erff/powf are within 2-4 ulps, so ~170 ulps is
  ample; the host libm is within 1 ulp). ATOL = 1e-6 of the gradient's scale
  covers the cancellation inside formulas such as 1 - y^2, y (1 - y) or
  dy - sum(dy y), whose absolute fp32 error is a few U32 of the operands'
  scale, not of the (possibly tiny) result. Where a gradient element is a sum
  of k terms (matmul, softmax, reductions of the broadcast seed) the recursive
  summation bound (k + 2) U32 sum|terms| (gmag) is added. A gradient that
  passes through an f16/bf16 value is rounded to it: one half-ulp more.
* Analytic check: |g - ref| <= gtol + 2 U32 |P1|. A wrong formula, sign,
  scale or missing term is off by O(1) of the scale, 10^5 times more; a
  gradient scaled by 1 + 1e-4 fails every case.
* Finite differences: |g - FD| <= 2 trunc + noise + gtol + 2 U32 |P1|
  + 1e-7 scale. trunc is the truncation error of the central difference,
  estimated by Richardson from the float64 forward function (which does not
  involve any gradient formula): (4/3) |FD64(h) - FD64(h/2)|. noise bounds the
  rounding of mpc's forward y in the difference:
  sum_j |r_j| (err_j(p+) + err_j(p-)) / (p+ - p-) over the outputs y_j that
  the element moves, with err the forward accuracy of op_reference_test.py's
  model (TRANS = 1e-5 relative for transcendentals, ARITH = 8 U32 for add sub
  mul div; (K + 2) U32 sum|terms| for sums of K terms; 0 for data movement;
  one half-ulp of f16/bf16 for casts). The step h is H = 0.03 for smooth ops
  (near the optimum of noise ~ TRANS / h against truncation ~ h^2), H_KINK =
  0.01 for piecewise-linear ops (maximum, reduce_max, max_pool2d) on data
  spaced 0.05 apart so that no perturbation changes a winner, and H_LINEAR =
  0.5 for ops linear or quadratic in p (no truncation error at all, so a long
  step only shrinks the noise). FD is the coarser, formula-independent check
  (a gradient off by 1e-3 fails it in most cases, by 1e-2 in nearly all); the
  float64 reference is the tight one.

Every case must compile: a training step that does not (for example
"has no kernel in the code generator yet") is a failure, never a skip.

Output: one line per case,
  PASS group/name ref=R fd=F
  FAIL group/name ref=R fd=F
where R and F are the worst error/tolerance ratios of the two checks (a case
passes when both are <= 1), followed on failure by the worst element of each
failing check and the directory holding the graphs, parameters and repro.sh.
The last line is "N passed, M failed"; the exit status is 1 when a case
failed, 2 on a bad command line or when --filter selects nothing.

--filter SUBSTRING keeps the cases whose "group/name" contains it.
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

from mpg_testing import (Val, away_from_zero, conv2d_ref, erf, fmt_float, fmt_list, gelu_exact,
                          logsumexp, max_pool_ref, normal, pool_windows, shell_join, sigmoid,
                          softmax, ttype, unif, GraphText, dropout_keep, attention_ref,
                          attention_text)

SEED = 4321
U32 = 2.0 ** -24
TRANS = 1e-5          # forward accuracy of transcendentals (op_reference_test.py)
ARITH = 8 * U32       # forward accuracy of add sub mul div (op_reference_test.py)
RTOL = 1e-5           # analytic check, relative to the element
ATOL = 1e-6           # analytic check, relative to the gradient's scale
FD_FLOOR = 1e-7       # finite differences, relative to the gradient's scale
NFD = 12              # elements per parameter checked by finite differences
H = 3e-2              # default finite-difference step (smooth ops)
H_KINK = 1e-2         # step for piecewise-linear ops on data spaced 0.05 apart
H_LINEAR = 0.5        # step for ops linear (or quadratic) in p: no truncation error
F16_HALF_ULP = 2.0 ** -11
BF16_HALF_ULP = 2.0 ** -8


# ---------------------------------------------------------------------------
# safetensors (F32 and I64 tensors, as tests/lit/e2e/Inputs/mlp_train_step.py)
# ---------------------------------------------------------------------------

def save_safetensors(path, tensors):
  header, offset, blobs = {}, 0, []
  for name in sorted(tensors):
    array = tensors[name]
    data = np.array(array, order='C').tobytes()
    header[name] = {'dtype': 'I64' if array.dtype == np.int64 else 'F32',
                    'shape': list(array.shape), 'data_offsets': [offset, offset + len(data)]}
    offset += len(data)
    blobs.append(data)
  text = json.dumps(header).encode()
  text += b' ' * ((8 - len(text) % 8) % 8)
  with open(path, 'wb') as f:
    f.write(struct.pack('<Q', len(text)) + text + b''.join(blobs))


def load_safetensors(path):
  with open(path, 'rb') as f:
    data = f.read()
  n = struct.unpack('<Q', data[:8])[0]
  header = json.loads(data[8:8 + n])
  base = 8 + n
  out = {}
  for name, spec in header.items():
    if name == '__metadata__':
      continue
    begin, end = spec['data_offsets']
    dtype = {'F32': np.float32, 'I64': np.int64, 'F64': np.float64}[spec['dtype']]
    out[name] = np.frombuffer(data[base + begin:base + end], dtype).reshape(spec['shape'])
  return out


# ---------------------------------------------------------------------------
# Graph builder
# ---------------------------------------------------------------------------


class Param:
  __slots__ = ('val', 'name', 'init', 'frozen')

  def __init__(self, val, name, init, frozen):
    self.val, self.name, self.init, self.frozen = val, name, init, frozen


class Builder(GraphText):
  """Builds one case's part of a graph: its inputs, parameters, ops, its loss
  term, and the references its gradients must match."""

  def __init__(self, prefix, rng):
    super().__init__(prefix)
    self.rng = rng
    self.inputs = {}     # input name -> array written to .npy
    self.input_paths = {}  # input name -> .npy path (set when the graph runs)
    self.params = []     # Param (trainable and frozen)
    self.states = {}     # state name -> initial f32 array
    self.y = None        # the value whose term is the case's loss
    self.r = None        # its weights (float64)
    self.term = None     # rank-0 value: the loss term
    self.fwd = None
    self.refs = None
    self.opts = {}

  # -- values --------------------------------------------------------------
  def input(self, array):
    """An input fed with `array` (f32, i32 or i64); returns (value, reference
    as float64 or the integer array)."""
    array = np.array(array, order='C')   # (ascontiguousarray makes rank 0 rank 1)
    et = {np.dtype(np.float32): 'f32', np.dtype(np.int32): 'i32',
          np.dtype(np.int64): 'i64'}[array.dtype]
    name = '%s_in%d' % (self.prefix, len(self.inputs))
    self.inputs[name] = array
    value = Val('%' + name, array.shape, et)
    self.lines.append('%s = mpg.input "%s" : %s' % (value.name, name, ttype(array.shape, et)))
    return value, (array.astype(np.float64) if et == 'f32' else array)

  def param(self, array, frozen=False):
    """An f32 parameter starting at `array`; returns (value, float64 copy)."""
    array = np.array(array, np.float32, order='C')
    name = '%s_p%d' % (self.prefix, len(self.params))
    value = Val('%' + name, array.shape, 'f32')
    self.params.append(Param(value, name, array, frozen))
    self.lines.append('%s = mpg.param "%s"%s init(zeros) : %s'
                      % (value.name, name, ' frozen' if frozen else '', ttype(array.shape, 'f32')))
    return value, array.astype(np.float64)

  def state(self, array, init='zeros'):
    array = np.array(array, np.float32, order='C')
    name = '%s_s%d' % (self.prefix, len(self.states))
    self.states[name] = array
    value = Val('%' + name, array.shape, 'f32')
    self.lines.append('%s = mpg.state "%s" init(%s) : %s'
                      % (value.name, name, init, ttype(array.shape, 'f32')))
    return value

  def constant(self, value, et='f32', shape=()):
    result = Val(self._fresh(), shape, et)
    text = fmt_float(value) if et in ('f32', 'f16', 'bf16', 'f64') else str(int(value))
    self.lines.append('%s = mpg.constant dense<%s> : %s' % (result.name, text, ttype(shape, et)))
    return result

  # -- the loss term and the references --------------------------------------
  def loss(self, y, r=None):
    """Makes reduce_sum(y * r) the case's loss term (y * r for a rank-0 y),
    with r drawn from N(0, 1) unless given. Returns r as float64."""
    if r is None:
      r = self.rng.standard_normal(y.shape).astype(np.float32)
    rv, rr = self.input(np.asarray(r, np.float32))
    prod = self.binary('mul', y, rv)
    if y.shape:
      self.term = self.to('reduce_sum', [prod], (), 'axes ' + fmt_list(range(len(y.shape))))
    else:
      self.term = prod
    self.y, self.r = y, rr
    return rr

  def expect(self, fwd, refs, gmag=None, k=1, rtol=RTOL, atol=0.0, yerr=None, h=H, fd_mask=None):
    """fwd(P) -> y in float64, P the list of the case's trainable parameters
    as float64 arrays (their order of declaration); refs: the float64
    gradient of each. gmag/k: magnitude of the k summed terms of each gradient
    element and rtol/atol (see TOLERANCES). yerr(P, y) -> elementwise bound
    of the error of mpc's fp32 forward y (default TRANS |y|). h: the
    finite-difference step. fd_mask: per parameter, the elements finite
    differences may use (default all)."""
    n = len([p for p in self.params if not p.frozen])
    assert len(refs) == n, '%s: %d references for %d parameters' % (self.prefix, len(refs), n)
    self.fwd = fwd
    self.refs = [np.asarray(g, np.float64) for g in refs]
    self.opts = dict(gmag=gmag, k=k, rtol=rtol, atol=atol, yerr=yerr, h=h, fd_mask=fd_mask)

  def trainable(self):
    return [p for p in self.params if not p.frozen]


# ---------------------------------------------------------------------------
# Data and float64 helpers
# ---------------------------------------------------------------------------


def spaced(rng, shape, gap=0.05, center=0.0):
  """Distinct values at least `gap` apart (a shuffled grid): no ties, and a
  perturbation below gap / 2 never changes which element is larger."""
  n = int(np.prod(shape, dtype=np.int64))
  grid = (np.arange(n) - (n - 1) / 2.0) * gap + center
  return rng.permutation(grid).reshape(shape).astype(np.float32)


def spaced_pair(rng, shape_a, shape_b, gap=0.05):
  """Two arrays whose values are all distinct and at least `gap` apart."""
  na, nb = int(np.prod(shape_a, dtype=np.int64)), int(np.prod(shape_b, dtype=np.int64))
  values = spaced(rng, (na + nb,), gap)
  return values[:na].reshape(shape_a), values[na:].reshape(shape_b)


def gelu_exact_grad(x):
  return 0.5 * (1.0 + erf(x / math.sqrt(2.0))) + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


GELU_C = math.sqrt(2.0 / math.pi)


def gelu_tanh(x):
  return 0.5 * x * (1.0 + np.tanh(GELU_C * (x + 0.044715 * x ** 3)))


def gelu_tanh_grad(x):
  t = np.tanh(GELU_C * (x + 0.044715 * x ** 3))
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * GELU_C * (1 + 3 * 0.044715 * x * x)


def unbroadcast(g, shape):
  """Sums g (of a broadcast shape) down to `shape`."""
  lead = g.ndim - len(shape)
  axes = tuple(range(lead)) + tuple(lead + d for d, n in enumerate(shape)
                                    if n == 1 and g.shape[lead + d] != 1)
  return g.sum(axis=axes, keepdims=True).reshape(shape) if axes else g.reshape(shape)


def swap(x):
  return np.swapaxes(x, -1, -2)


def linear_grad(fwd, x, r, eps=1.0):
  """J^T r of fwd at x by central differences of every element of x. Exact
  (to float64 rounding) for fwd linear in x, or piecewise linear without a
  kink within eps of x."""
  g = np.zeros(x.size)
  flat = x.reshape(-1)
  for i in range(x.size):
    xp, xm = flat.copy(), flat.copy()
    xp[i] += eps
    xm[i] -= eps
    g[i] = np.sum(r * (fwd(xp.reshape(x.shape)) - fwd(xm.reshape(x.shape)))) / (2 * eps)
  return g.reshape(x.shape)


def sum_err(k, mag):
  """Forward error bound of an fp32 sum of k terms whose |terms| sum to mag."""
  return (k + 2) * U32 * np.asarray(mag, np.float64)


def trans_err(P, y):
  return TRANS * np.abs(y)


def exact_err(P, y):
  return np.zeros(np.shape(y))


def arith_err(P, y):
  return ARITH * np.abs(y)


def avg_pool_ref(x, kernel, stride, padding, count_include_pad):
  sums = pool_windows(x, kernel, stride, padding, 0.0).sum(axis=-1)
  if count_include_pad:
    return sums / float(kernel[0] * kernel[1])
  count = pool_windows(np.ones_like(x), kernel, stride, padding, 0.0).sum(axis=-1)
  return sums / count


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------

class Case:
  def __init__(self, group, name, fn):
    self.group, self.name, self.fn = group, name, fn

  @property
  def full_name(self):
    return '%s/%s' % (self.group, self.name)


CASES = []


def register(group, name, fn):
  """Adds a case: fn(builder) declares its parameters, inputs, ops, loss term
  and references."""
  CASES.append(Case(group, name, fn))


def case(group, name):
  def add(fn):
    register(group, name, fn)
    return fn
  return add


# -- unary pointwise ----------------------------------------------------------------
PW = (5, 9)


def _unary_case(op, data, fwd, deriv, attrs='', zeros=False, yerr=None, h=H):
  """y = op(p). zeros: some elements of p are exactly 0 (a kink: the analytic
  check sees the convention there, finite differences skip them; the others
  are at least 0.1 away from it)."""
  def build(b):
    d = data(b.rng)
    mask = None
    if zeros:
      d.flat[::7] = 0.0
      mask = d != 0
    p, pr = b.param(d)
    r = b.loss(b.unary(op, p, attrs))
    b.expect(lambda P: fwd(P[0]), [r * deriv(pr)], fd_mask=[mask], yerr=yerr, h=h)
  return build


def _data(lo, hi):
  return lambda rng: unif(rng, lo, hi, PW)


def _away(lo, hi):
  return lambda rng: away_from_zero(rng, lo, hi, PW)


register('unary', 'neg', _unary_case('neg', _data(-3, 3), lambda x: -x, lambda x: -np.ones_like(x),
                                     yerr=exact_err, h=H_LINEAR))
# abs'(0) = 0, relu'(0) = 0, leaky_relu'(0) = alpha (PyTorch's conventions).
register('unary', 'abs', _unary_case('abs', _away(0.1, 3), np.abs, np.sign, zeros=True,
                                     yerr=exact_err))
register('unary', 'exp', _unary_case('exp', _data(-3, 3), np.exp, np.exp))
# (Near 0.2 the third derivatives are large: a smaller step.)
register('unary', 'log', _unary_case('log', _data(0.2, 5), np.log, lambda x: 1 / x, h=H_KINK))
register('unary', 'sqrt', _unary_case('sqrt', _data(0.2, 5), np.sqrt, lambda x: 0.5 / np.sqrt(x),
                                      h=H_KINK))
register('unary', 'rsqrt', _unary_case('rsqrt', _data(0.2, 5), lambda x: 1 / np.sqrt(x),
                                       lambda x: -0.5 * x ** -1.5, h=H_KINK))
register('unary', 'tanh', _unary_case('tanh', _data(-3, 3), np.tanh, lambda x: 1 - np.tanh(x) ** 2))
register('unary', 'sigmoid', _unary_case('sigmoid', _data(-6, 6), sigmoid,
                                         lambda x: sigmoid(x) * (1 - sigmoid(x))))
register('unary', 'relu', _unary_case('relu', _away(0.1, 3), lambda x: np.maximum(x, 0),
                                      lambda x: (x > 0) * 1.0, zeros=True, yerr=exact_err))
register('unary', 'leaky_relu', _unary_case(
    'leaky_relu', _away(0.1, 3), lambda x: np.where(x > 0, x, 0.01 * x),
    lambda x: np.where(x > 0, 1.0, 0.01), zeros=True, yerr=arith_err))
register('unary', 'leaky_relu_alpha', _unary_case(
    'leaky_relu', _away(0.1, 3), lambda x: np.where(x > 0, x, 0.2 * x),
    lambda x: np.where(x > 0, 1.0, 0.2), attrs='alpha ' + fmt_float(0.2), zeros=True,
    yerr=arith_err))
register('unary', 'gelu', _unary_case('gelu', _data(-4, 4), gelu_exact, gelu_exact_grad))
register('unary', 'gelu_approximate', _unary_case('gelu', _data(-4, 4), gelu_tanh, gelu_tanh_grad,
                                                  attrs='approximate'))


def _dropout_case(rate, seed, run, stream):
  # Linear in p once the mask is drawn: the gradient is the same mask times
  # 1 / (1 - rate) (as f32) times r; finite differences move only the kept
  # elements.
  def build(b):
    p, pr = b.param(unif(b.rng, -3, 3, (9, 13)))
    s, _ = b.input(np.array(seed, np.int64))
    t, _ = b.input(np.array(run, np.int64))
    r = b.loss(b.dropout(p, rate, s, t, stream))
    scale = float(np.float32(1.0 / (1.0 - rate)))
    keep = dropout_keep(seed, run, stream, (9, 13), rate)
    b.expect(lambda P: np.where(keep, P[0] * scale, 0.0), [r * keep * scale], yerr=arith_err,
             h=H_LINEAR)
  return build


register('unary', 'dropout', _dropout_case(0.3, 0x5eed5eed5eed, 41, 2))
register('unary', 'dropout_half', _dropout_case(0.5, 7, 1 << 33, 0))


@case('unary', 'chain')
def _(b):
  # y = tanh(exp(p) * 0.5): the chain rule through two ops and a constant.
  p, pr = b.param(unif(b.rng, -2, 1, PW))
  half = b.constant(0.5)
  y = b.unary('tanh', b.binary('mul', b.unary('exp', p), half))
  r = b.loss(y)
  u = 0.5 * np.exp(pr)
  b.expect(lambda P: np.tanh(0.5 * np.exp(P[0])), [r * (1 - np.tanh(u) ** 2) * u])


# -- binary pointwise (and broadcasting) -----------------------------------------
BINARY = {
    # op: (forward, (d/da, d/db)); maximum/minimum send the gradient to the
    # lhs on ties (MpgVjp.cpp's convention).
    'add': (np.add, lambda a, c: (np.ones_like(a * c), np.ones_like(a * c))),
    'sub': (np.subtract, lambda a, c: (np.ones_like(a * c), -np.ones_like(a * c))),
    'mul': (np.multiply, lambda a, c: (c + 0 * a, a + 0 * c)),
    'div': (np.divide, lambda a, c: (1 / c + 0 * a, -a / c ** 2)),
    'pow': (np.power, lambda a, c: (c * a ** (c - 1), a ** c * np.log(a))),
    'maximum': (np.maximum, lambda a, c: ((a >= c) * 1.0, (a < c) * 1.0)),
    'minimum': (np.minimum, lambda a, c: ((a <= c) * 1.0, (a > c) * 1.0)),
}


def _operand_data(op, role, rng, shape):
  """Data for operand `role` ('lhs' or 'rhs') of op."""
  if op == 'div' and role == 'rhs':
    return away_from_zero(rng, 0.5, 2, shape)
  if op == 'pow':
    return unif(rng, 0.5, 3, shape) if role == 'lhs' else unif(rng, -2, 2, shape)
  return normal(rng, 0, 1.5, shape)


def _binary_case(op, side, pshape, xshape, ties=False):
  """y = op(p, x) (side 'lhs') or op(x, p) (side 'rhs'); p has pshape and x
  xshape, broadcast together. ties: maximum/minimum with a quarter of the
  elements equal (the analytic check sees the lhs-wins convention; finite
  differences skip parameters elements near a tie)."""
  fwd, deriv = BINARY[op]

  def build(b):
    lshape, rshape = (pshape, xshape) if side == 'lhs' else (xshape, pshape)
    if op in ('maximum', 'minimum'):
      dl, dr = spaced_pair(b.rng, lshape, rshape)
      if ties:
        assert lshape == rshape
        tie = b.rng.random(lshape) < 0.25
        dr = np.where(tie, dl, dr).astype(np.float32)
    else:
      dl, dr = _operand_data(op, 'lhs', b.rng, lshape), _operand_data(op, 'rhs', b.rng, rshape)
    if side == 'lhs':
      p, pr = b.param(dl)
      x, xr = b.input(dr)
      y = b.binary(op, p, x)
    else:
      x, xr = b.input(dl)
      p, pr = b.param(dr)
      y = b.binary(op, x, p)
    r = b.loss(y)
    a, c = (pr, xr) if side == 'lhs' else (xr, pr)
    da, dc = deriv(a, c)
    ref = unbroadcast(r * (da if side == 'lhs' else dc), pshape)
    # The broadcast gradient of p sums r d over the broadcast dimensions.
    k = int(np.prod(y.shape, dtype=np.int64) // max(1, int(np.prod(pshape, dtype=np.int64))))
    gmag = unbroadcast(np.abs(r * (da if side == 'lhs' else dc)), pshape)
    mask = None
    if ties:
      mask = np.abs(a - c) > 4 * H_KINK
    ynorm = (lambda P: fwd(P[0], xr)) if side == 'lhs' else (lambda P: fwd(xr, P[0]))
    if op in ('maximum', 'minimum'):
      yerr, h = exact_err, H_KINK
    elif op == 'pow':
      yerr, h = trans_err, H
    else:
      # add, sub, mul and the numerator of div are linear in p.
      yerr = arith_err
      h = H if op == 'div' and side == 'rhs' else H_LINEAR
    b.expect(ynorm, [ref], gmag=[gmag], k=k, yerr=yerr, h=h, fd_mask=[mask])
  return build


for _op in BINARY:
  for _side in ('lhs', 'rhs'):
    register('binary', '%s_p_%s' % (_op, _side), _binary_case(_op, _side, PW, PW))
for _op in ('maximum', 'minimum'):
  for _side in ('lhs', 'rhs'):
    register('binary', '%s_ties_p_%s' % (_op, _side), _binary_case(_op, _side, PW, PW, ties=True))


@case('binary', 'pow_square_negative_base')
def _(b):
  # pow(p, 2) with negative p: d/da = 2 p (the VJP's pow(a, b - 1) must not go
  # through log(a)).
  p, pr = b.param(away_from_zero(b.rng, 0.2, 3, PW))
  r = b.loss(b.binary('pow', p, b.constant(2.0)))
  b.expect(lambda P: P[0] ** 2, [r * 2 * pr])


def _select_case(side, pshape, xshape):
  """y = select(c > 0, p, x) (side 'true') or select(c > 0, x, p)."""
  def build(b):
    shape = np.broadcast_shapes(pshape, xshape)
    c, cr = b.input(normal(b.rng, 0, 1, shape))
    zero = b.constant(0.0)
    cond = b.compare('gt', c, zero)
    p, pr = b.param(normal(b.rng, 0, 1, pshape))
    x, xr = b.input(normal(b.rng, 0, 1, xshape))
    mask = cr > 0
    if side == 'true':
      y = b.select(cond, p, x)
      fwd = lambda P: np.where(mask, P[0], xr)
      d = mask * 1.0
    else:
      y = b.select(cond, x, p)
      fwd = lambda P: np.where(mask, xr, P[0])
      d = (~mask) * 1.0
    r = b.loss(y)
    k = int(np.prod(shape, dtype=np.int64) // max(1, int(np.prod(pshape, dtype=np.int64))))
    b.expect(fwd, [unbroadcast(r * d, pshape)], gmag=[unbroadcast(np.abs(r * d), pshape)], k=k,
             yerr=exact_err, h=H_LINEAR)
  return build


register('binary', 'select_p_true', _select_case('true', PW, PW))
register('binary', 'select_p_false', _select_case('false', PW, PW))

# Broadcasting on the parameter's side: p of shape [N], [1, N], [M, 1], rank 0
# against x of [M, N] (or rank 3), on either side.
BM = (6, 7)
register('broadcast', 'add_row_p_lhs', _binary_case('add', 'lhs', (7,), BM))
register('broadcast', 'add_row_p_rhs', _binary_case('add', 'rhs', (7,), BM))
register('broadcast', 'sub_col_p_rhs', _binary_case('sub', 'rhs', (6, 1), BM))
register('broadcast', 'sub_rank0_p_lhs', _binary_case('sub', 'lhs', (), BM))
register('broadcast', 'mul_row_p_rhs', _binary_case('mul', 'rhs', (1, 7), BM))
register('broadcast', 'mul_rank0_p_lhs', _binary_case('mul', 'lhs', (), BM))
register('broadcast', 'div_row_p_rhs', _binary_case('div', 'rhs', (7,), BM))
register('broadcast', 'div_col_p_lhs', _binary_case('div', 'lhs', (6, 1), BM))
register('broadcast', 'pow_rank0_exponent_p_rhs', _binary_case('pow', 'rhs', (), BM))
register('broadcast', 'pow_row_base_p_lhs', _binary_case('pow', 'lhs', (7,), BM))
register('broadcast', 'maximum_row_p_rhs', _binary_case('maximum', 'rhs', (7,), BM))
register('broadcast', 'minimum_rank0_p_lhs', _binary_case('minimum', 'lhs', (), BM))
register('broadcast', 'add_outer_p_col', _binary_case('add', 'lhs', (6, 1), (1, 7)))
register('broadcast', 'mul_rank3_p_mid', _binary_case('mul', 'rhs', (3, 1), (2, 3, 4)))
register('broadcast', 'select_row_p_true', _select_case('true', (7,), BM))
register('broadcast', 'select_rank0_p_false', _select_case('false', (), BM))


def _broadcast_to_case(pshape, shape):
  def build(b):
    p, pr = b.param(normal(b.rng, 0, 1, pshape))
    r = b.loss(b.to('broadcast_to', [p], shape))
    k = int(np.prod(shape, dtype=np.int64) // max(1, int(np.prod(pshape, dtype=np.int64))))
    b.expect(lambda P: np.broadcast_to(P[0], shape), [unbroadcast(r, pshape)],
             gmag=[unbroadcast(np.abs(r), pshape)], k=k, yerr=exact_err, h=H_LINEAR)
  return build


register('broadcast', 'broadcast_to_row', _broadcast_to_case((7,), (3, 6, 7)))
register('broadcast', 'broadcast_to_col', _broadcast_to_case((6, 1), (2, 6, 7)))
register('broadcast', 'broadcast_to_rank0', _broadcast_to_case((), (6, 7)))


# -- casts -----------------------------------------------------------------------------
def _cast_case(mid, half_ulp):
  """y = cast(cast(p, mid), f32): the gradient passes back through `mid`
  (it is rounded to it: one half-ulp relative for f16/bf16, the precision a
  gradient of an f16 value has)."""
  def build(b):
    p, pr = b.param(away_from_zero(b.rng, 0.5, 2, PW))
    y = b.cast(b.cast(p, mid), 'f32')
    r = b.loss(y)
    # (An f16 subnormal is off by up to 2^-25 whatever its magnitude.)
    b.expect(lambda P: P[0], [r], rtol=RTOL + half_ulp, atol=2.0 ** -25 if mid == 'f16' else 0.0,
             yerr=lambda P, y: half_ulp * np.abs(y), h=0.25)
  return build


register('cast', 'cast_f16', _cast_case('f16', F16_HALF_ULP))
register('cast', 'cast_bf16', _cast_case('bf16', BF16_HALF_ULP))


@case('cast', 'cast_f64_exp')
def _(b):
  # exp computed in f64 between two casts: d/dp = exp(p), rounded once to f32.
  p, pr = b.param(unif(b.rng, -2, 2, PW))
  y = b.cast(b.unary('exp', b.cast(p, 'f64')), 'f32')
  r = b.loss(y)
  b.expect(lambda P: np.exp(P[0]), [r * np.exp(pr)])


# -- reductions ------------------------------------------------------------------------
RX = (4, 5, 6)


def _expand(g, shape, axes, keepdim):
  """g (a reduction's result) broadcast back to `shape`."""
  kept = [1 if d in axes else n for d, n in enumerate(shape)]
  return np.broadcast_to(np.reshape(g, kept), shape)


def _reduce_case(op, axes, keepdim=False, ties=False):
  def build(b):
    ax = tuple(sorted(a % len(RX) for a in axes))
    count = int(np.prod([RX[a] for a in ax]))
    data = spaced(b.rng, RX, 0.05) if op == 'reduce_max' else normal(b.rng, 0.3, 1, RX)
    mask = None
    if ties:
      # Copy each reduced group's maximum onto another element of the group
      # for about half of the groups: the gradient is shared evenly by ties.
      moved = np.moveaxis(data, ax, tuple(range(len(RX) - len(ax), len(RX))))
      flat = moved.reshape(-1, count).copy()
      for row in flat[::2]:
        order = np.argsort(row)
        row[order[-2]] = row[order[-1]]
      data = np.moveaxis(flat.reshape(moved.shape), tuple(range(len(RX) - len(ax), len(RX))),
                         ax).astype(np.float32)
    p, pr = b.param(data)
    shape = tuple(1 if d in ax else n for d, n in enumerate(RX)) if keepdim else \
        tuple(n for d, n in enumerate(RX) if d not in ax)
    y = b.to(op, [p], shape, 'axes ' + fmt_list(axes) + (' keepdim' if keepdim else ''))
    r = b.loss(y)
    re = _expand(r, RX, ax, keepdim)
    if op == 'reduce_sum':
      fwd = lambda P: P[0].sum(axis=ax, keepdims=keepdim)
      yerr = lambda P, y: sum_err(count, np.abs(P[0]).sum(axis=ax, keepdims=keepdim))
      ref = re
    elif op == 'reduce_mean':
      # The mean adds one division (or a product by 1 / count): 2 more U32.
      fwd = lambda P: P[0].mean(axis=ax, keepdims=keepdim)
      yerr = lambda P, y: sum_err(count + 2, np.abs(P[0]).mean(axis=ax, keepdims=keepdim))
      ref = re / count
    else:
      # The gradient goes to the maximum, shared evenly by tied maxima.
      fwd = lambda P: P[0].max(axis=ax, keepdims=keepdim)
      at = pr == _expand(pr.max(axis=ax, keepdims=keepdim), RX, ax, keepdim)
      n = _expand(at.sum(axis=ax, keepdims=keepdim), RX, ax, keepdim)
      ref, yerr = np.where(at, re / n, 0.0), exact_err
      if ties:
        mask = ~(at & (n > 1))
    b.expect(fwd, [ref], yerr=yerr, fd_mask=[mask], h=H_KINK if op == 'reduce_max' else H_LINEAR)
  return build


# One group per op, so that a failing one does not make the others retry
# alone.
for _op in ('reduce_sum', 'reduce_mean', 'reduce_max'):
  register(_op, 'last', _reduce_case(_op, [2]))
  register(_op, 'middle', _reduce_case(_op, [1]))
  register(_op, 'leading', _reduce_case(_op, [0]))
  register(_op, 'multi', _reduce_case(_op, [0, 2]))
  register(_op, 'multi_keepdim', _reduce_case(_op, [0, -1], keepdim=True))
  register(_op, 'middle_keepdim', _reduce_case(_op, [-2], keepdim=True))
  register(_op, 'all', _reduce_case(_op, [0, 1, 2]))
  register(_op, 'all_keepdim', _reduce_case(_op, [0, 1, 2], keepdim=True))
register('reduce_max', 'ties_last', _reduce_case('reduce_max', [2], ties=True))
register('reduce_max', 'ties_multi_keepdim', _reduce_case('reduce_max', [0, 2], keepdim=True, ties=True))


@case('reduce_sum', 'global_avg_pool')
def _(b):
  shape = (2, 3, 4, 5)
  p, pr = b.param(normal(b.rng, 0.2, 1, shape))
  r = b.loss(b.to('global_avg_pool', [p], shape[:2]))
  b.expect(lambda P: P[0].mean(axis=(2, 3)), [np.broadcast_to(r[:, :, None, None] / 20, shape)],
           yerr=lambda P, y: sum_err(22, np.abs(P[0]).mean(axis=(2, 3))), h=H_LINEAR)


# -- softmax and log_softmax ------------------------------------------------------------
def _softmax_case(op, shape, axis):
  def build(b):
    p, pr = b.param(normal(b.rng, 0.3, 1.5, shape))
    attrs = '' if axis == -1 else 'axis %d' % axis
    r = b.loss(b.to(op, [p], shape, attrs))
    n = shape[axis]
    s = softmax(pr, axis)
    if op == 'softmax':
      fwd = lambda P: softmax(P[0], axis)
      ref = s * (r - (r * s).sum(axis=axis, keepdims=True))
      gmag = s * (np.abs(r) + (np.abs(r) * s).sum(axis=axis, keepdims=True))
      yerr = lambda P, y: (TRANS + (n + 4) * U32) * np.abs(y)
    else:
      fwd = lambda P: P[0] - logsumexp(P[0], axis)
      ref = r - s * r.sum(axis=axis, keepdims=True)
      gmag = np.abs(r) + s * np.abs(r).sum(axis=axis, keepdims=True)

      def yerr(P, y):
        x = P[0]
        m = x.max(axis=axis, keepdims=True)
        mag = np.abs(x - m) + np.abs(logsumexp(x, axis) - m) + 1
        return TRANS * np.abs(y) + (n + 8) * U32 * mag
    b.expect(fwd, [ref], gmag=[gmag], k=n, yerr=yerr)
  return build


for _op in ('softmax', 'log_softmax'):
  register('softmax', _op + '_last', _softmax_case(_op, (5, 8), -1))
  register('softmax', _op + '_leading', _softmax_case(_op, (6, 4), 0))
  register('softmax', _op + '_middle', _softmax_case(_op, (3, 5, 4), 1))


# -- matmul and batch_matmul -------------------------------------------------------------
def _matmul_case(op, m, k, n, ta, tb, side, batch=()):
  """y = op(A) op(B), p = A (side 'lhs') or B (side 'rhs')."""
  def build(b):
    ashape = batch + ((k, m) if ta else (m, k))
    bshape = batch + ((n, k) if tb else (k, n))
    da, db = normal(b.rng, 0, 1, ashape), normal(b.rng, 0, 1, bshape)
    if side == 'lhs':
      a, ar = b.param(da)
      w, wr = b.input(db)
    else:
      a, ar = b.input(da)
      w, wr = b.param(db)
    attrs = ' '.join(f for f, on in (('transpose_a', ta), ('transpose_b', tb)) if on)
    r = b.loss(b.to(op, [a, w], batch + (m, n), attrs))

    def operands(P):
      A, B = (P[0], wr) if side == 'lhs' else (ar, P[0])
      return (swap(A) if ta else A), (swap(B) if tb else B)

    am, bm = operands([ar if side == 'lhs' else wr])
    if side == 'lhs':      # dA' = dy B'^T, summed over n
      ref, gmag, kk, flip = r @ swap(bm), np.abs(r) @ swap(np.abs(bm)), n, ta
    else:                  # dB' = A'^T dy, summed over m
      ref, gmag, kk, flip = swap(am) @ r, swap(np.abs(am)) @ np.abs(r), m, tb
    if flip:
      ref, gmag = swap(ref), swap(gmag)

    def fwd(P):
      A, B = operands(P)
      return A @ B

    def yerr(P, y):
      A, B = operands(P)
      return sum_err(k, np.abs(A) @ np.abs(B))
    b.expect(fwd, [ref], gmag=[gmag], k=kk, yerr=yerr, h=H_LINEAR)
  return build


for _ta in (False, True):
  for _tb in (False, True):
    _suffix = ('t' if _ta else 'n') + ('t' if _tb else 'n')
    for _side in ('lhs', 'rhs'):
      register('dot', 'matmul_%s_p_%s' % (_suffix, _side),
               _matmul_case('matmul', 5, 7, 6, _ta, _tb, _side))
      register('dot', 'batch_matmul_%s_p_%s' % (_suffix, _side),
               _matmul_case('batch_matmul', 4, 5, 3, _ta, _tb, _side, batch=(2,)))
register('dot', 'batch_matmul_r4_nt_p_rhs',
         _matmul_case('batch_matmul', 3, 4, 5, False, True, 'rhs', batch=(2, 2)))
register('dot', 'matmul_long_k_p_lhs', _matmul_case('matmul', 3, 300, 4, False, False, 'lhs'))


# -- attention ---------------------------------------------------------------------------
def _attention_case(batch, queries, keys, head, causal, masked, which, scale=0.5):
  """mpg.attention with `which` of q, k, v the parameter (mpg.attention_grad
  through mpg-autodiff). With p = softmax(s), dy = r, delta_i = r_i . y_i:
  dv = p^T r, ds = p (r v^T - delta), dq = scale ds k, dk = scale ds^T q."""
  def build(b):
    data = {'q': normal(b.rng, 0, 1, batch + (queries, head)),
            'k': normal(b.rng, 0, 1, batch + (keys, head)),
            'v': normal(b.rng, 0, 1, batch + (keys, head))}
    vals, refs = {}, {}
    for key in ('q', 'k', 'v'):
      vals[key], refs[key] = (b.param if key == which else b.input)(data[key])
    mask = mr = None
    if masked:
      m = normal(b.rng, 0, 0.5, (queries, keys))
      m[0, keys - 1] = -1e9   # a pair left out: no gradient through it
      mask, mr = b.input(m.astype(np.float32))
    y = Val(b._fresh(), batch + (queries, head), 'f32')
    lse = Val(b._fresh(), batch + (queries,), 'f32')
    b.lines.append(attention_text(y, lse, vals['q'], vals['k'], vals['v'], mask, scale, causal))
    r = b.loss(y)

    def args(P):
      return [P[0] if key == which else refs[key] for key in ('q', 'k', 'v')]

    def fwd(P):
      q, k, v = args(P)
      return attention_ref(q, k, v, mr, scale, causal)[0]

    q, k, v = args([refs[which]])
    yr, _, p = attention_ref(q, k, v, mr, scale, causal)
    dp = np.einsum('...id,...jd->...ij', r, v)
    delta = (r * yr).sum(axis=-1, keepdims=True)
    ds = p * (dp - delta)
    ds_mag = p * (np.einsum('...id,...jd->...ij', np.abs(r), np.abs(v)) +
                  (np.abs(r) * np.abs(yr)).sum(axis=-1, keepdims=True))
    if which == 'q':
      ref, gmag, k_terms = scale * ds @ k, abs(scale) * ds_mag @ np.abs(k), keys * head
    elif which == 'k':
      ref = scale * np.swapaxes(ds, -1, -2) @ q
      gmag, k_terms = abs(scale) * np.swapaxes(ds_mag, -1, -2) @ np.abs(q), queries * head
    else:
      ref = np.swapaxes(p, -1, -2) @ r
      gmag, k_terms = np.swapaxes(p, -1, -2) @ np.abs(r), queries

    def yerr(P, y):
      # (op_reference_test.py's model: the scores' dot products, exp and
      # the sums; 2 U32 |s| for the mask's add and the scale's rounding;
      # over the pairs that have weight)
      q, k, v = args(P)
      pr = attention_ref(q, k, v, mr, scale, causal)[2]
      dot = abs(scale) * np.einsum('...id,...jd->...ij', np.abs(q), np.abs(k))
      err = (head + 2) * U32 * dot + 2 * U32 * (dot + np.abs(0 if mr is None else mr))
      ds_err = np.where(pr > 0, err, 0).max()
      return (2 * ds_err + TRANS + (2 * keys + 6) * U32) * (pr @ np.abs(v))
    b.expect(fwd, [ref], gmag=[gmag], k=k_terms, yerr=yerr)
  return build


for _which in ('q', 'k', 'v'):
  register('attention', 'causal_d' + _which, _attention_case((2,), 6, 6, 4, True, False, _which))
  register('attention', 'masked_d' + _which,
           _attention_case((2, 2), 5, 7, 3, False, True, _which, scale=-0.7))
  # (two blocks of 64 queries and keys on the host: the causal walk over
  # blocks and the blocks' ends)
  register('attention', 'causal_two_blocks_d' + _which,
           _attention_case((1,), 70, 70, 4, True, False, _which))


@case('dot', 'gemm_bias_gelu_epilogue')
def _(b):
  # gelu(x p + bias): the forward fuses into a GEMM with a bias and GELU
  # epilogue (approximate, as cuBLASLt's).
  x, xr = b.input(normal(b.rng, 0, 1, (6, 8)))
  p, pr = b.param(normal(b.rng, 0, 0.5, (8, 5)))
  bias, biasr = b.input(normal(b.rng, 0, 0.5, (5,)))
  z = b.binary('add', b.to('matmul', [x, p], (6, 5)), bias)
  r = b.loss(b.unary('gelu', z, 'approximate'))
  zr = xr @ pr + biasr
  b.expect(lambda P: gelu_tanh(xr @ P[0] + biasr), [xr.T @ (r * gelu_tanh_grad(zr))],
           gmag=[np.abs(xr.T) @ np.abs(r * gelu_tanh_grad(zr))], k=6,
           yerr=lambda P, y: TRANS * np.abs(y) + sum_err(8, np.abs(xr) @ np.abs(P[0]) + np.abs(biasr)))


# -- shape ops -------------------------------------------------------------------------------
@case('shape', 'reshape')
def _(b):
  p, pr = b.param(normal(b.rng, 0, 1, (6, 10)))
  r = b.loss(b.to('reshape', [p], (3, 4, 5)))
  b.expect(lambda P: P[0].reshape(3, 4, 5), [r.reshape(6, 10)], yerr=exact_err, h=H_LINEAR)


def _transpose_case(shape, perm):
  def build(b):
    p, pr = b.param(normal(b.rng, 0, 1, shape))
    out = tuple(shape[i] for i in perm)
    r = b.loss(b.to('transpose', [p], out, 'perm ' + fmt_list(perm)))
    b.expect(lambda P: P[0].transpose(perm), [r.transpose(np.argsort(perm))], yerr=exact_err,
             h=H_LINEAR)
  return build


register('shape', 'transpose_2d', _transpose_case((5, 7), (1, 0)))
register('shape', 'transpose_3d', _transpose_case((3, 4, 5), (2, 0, 1)))
register('shape', 'transpose_4d', _transpose_case((2, 3, 4, 5), (0, 2, 3, 1)))


def _concat_case(shapes, axis, which):
  """concat of inputs of `shapes` along axis; input `which` is the parameter."""
  def build(b):
    vals, refs = [], []
    for i, s in enumerate(shapes):
      v, vr = (b.param if i == which else b.input)(normal(b.rng, 0, 1, s))
      vals.append(v)
      refs.append(vr)
    out = np.concatenate(refs, axis=axis).shape
    r = b.loss(b.to('concat', vals, out, 'axis %d' % axis))
    ax = axis % len(out)
    start = sum(s[ax] for s in shapes[:which])
    index = [slice(None)] * len(out)
    index[ax] = slice(start, start + shapes[which][ax])

    def fwd(P):
      return np.concatenate([P[0] if i == which else refs[i] for i in range(len(shapes))], axis=axis)
    b.expect(fwd, [r[tuple(index)]], yerr=exact_err, h=H_LINEAR)
  return build


register('shape', 'concat_p_first', _concat_case([(2, 3, 4), (2, 5, 4), (2, 1, 4)], 1, 0))
register('shape', 'concat_p_middle', _concat_case([(2, 3, 4), (2, 5, 4), (2, 1, 4)], 1, 1))
register('shape', 'concat_p_last_leading_axis', _concat_case([(2, 5), (3, 5), (4, 5)], 0, 2))
register('shape', 'concat_p_negative_axis', _concat_case([(3, 2), (3, 7)], -1, 1))


# -- losses -------------------------------------------------------------------------------------
def _mse_case(side):
  def build(b):
    shape = (5, 9)
    n = 45
    d1, d2 = normal(b.rng, 0.2, 1, shape), normal(b.rng, 0, 1, shape)
    if side == 'prediction':
      p, pr = b.param(d1)
      t, tr = b.input(d2)
      y = b.to('mse_loss', [p, t], ())
    else:
      t, tr = b.input(d1)
      p, pr = b.param(d2)
      y = b.to('mse_loss', [t, p], ())
    r = b.loss(y, np.float32(1.7))
    sign = 1 if side == 'prediction' else -1
    diff = (pr - tr) if side == 'prediction' else (tr - pr)
    fwd = (lambda P: np.mean((P[0] - tr) ** 2)) if side == 'prediction' else \
        (lambda P: np.mean((tr - P[0]) ** 2))
    # (Quadratic in p: central differences have no truncation error.)
    b.expect(fwd, [sign * r * 2 * diff / n],
             yerr=lambda P, y: (n + 8) * U32 * np.abs(y), h=H_LINEAR)
  return build


register('loss', 'mse_loss_p_prediction', _mse_case('prediction'))
register('loss', 'mse_loss_p_target', _mse_case('target'))


def _sce_case(n, c, label_type):
  def build(b):
    p, pr = b.param(normal(b.rng, 0.3, 1.5, (n, c)))
    labels = b.rng.integers(0, c, n)
    labels[:2] = [0, c - 1]
    lab, labr = b.input(labels.astype(np.int32 if label_type == 'i32' else np.int64))
    r = b.loss(b.to('softmax_cross_entropy', [p, lab], ()), np.float32(1.3))
    onehot = np.zeros((n, c))
    onehot[np.arange(n), labr] = 1

    def fwd(P):
      return np.mean(logsumexp(P[0], 1)[:, 0] - P[0][np.arange(n), labr])

    def yerr(P, y):
      x = P[0]
      lse = logsumexp(x, 1)[:, 0]
      rowmag = np.abs(x - x.max(axis=1, keepdims=True)).max(axis=1) + np.abs(lse) + \
          np.abs(x[np.arange(n), labr]) + 1
      return TRANS * np.abs(y) + (c + n + 8) * U32 * rowmag.mean()
    b.expect(fwd, [r * (softmax(pr, 1) - onehot) / n], gmag=[r * (softmax(pr, 1) + onehot) / n],
             k=c, yerr=yerr)
  return build


register('loss', 'softmax_cross_entropy_i32', _sce_case(6, 7, 'i32'))
register('loss', 'softmax_cross_entropy_i64', _sce_case(4, 5, 'i64'))


# -- accumulation: a value used more than once ----------------------------------------------------
@case('accumulate', 'mul_p_p')
def _(b):
  p, pr = b.param(normal(b.rng, 0, 1, PW))
  r = b.loss(b.binary('mul', p, p))
  b.expect(lambda P: P[0] * P[0], [2 * r * pr], yerr=arith_err, h=H_LINEAR)


@case('accumulate', 'tanh_times_p')
def _(b):
  p, pr = b.param(unif(b.rng, -2, 2, PW))
  r = b.loss(b.binary('mul', b.unary('tanh', p), p))
  t = np.tanh(pr)
  b.expect(lambda P: np.tanh(P[0]) * P[0], [r * (t + pr * (1 - t * t))])


@case('accumulate', 'two_branches')
def _(b):
  # exp(p) + p * x: p feeds two ops whose results meet in an add.
  p, pr = b.param(unif(b.rng, -2, 2, PW))
  x, xr = b.input(normal(b.rng, 0, 1, PW))
  r = b.loss(b.binary('add', b.unary('exp', p), b.binary('mul', p, x)))
  b.expect(lambda P: np.exp(P[0]) + P[0] * xr, [r * (np.exp(pr) + xr)])


@case('accumulate', 'square_of_sigmoid_minus')
def _(b):
  # s * s - s with s = sigmoid(p): s is used three times.
  p, pr = b.param(unif(b.rng, -3, 3, PW))
  s = b.unary('sigmoid', p)
  r = b.loss(b.binary('sub', b.binary('mul', s, s), s))
  sr = sigmoid(pr)
  b.expect(lambda P: sigmoid(P[0]) ** 2 - sigmoid(P[0]), [r * (2 * sr - 1) * sr * (1 - sr)])


@case('accumulate', 'matmul_p_pT')
def _(b):
  # p p^T: p is both operands of one matmul; d/dp = (r + r^T) p.
  p, pr = b.param(normal(b.rng, 0, 1, (5, 7)))
  r = b.loss(b.to('matmul', [p, p], (5, 5), 'transpose_b'))
  b.expect(lambda P: P[0] @ P[0].T, [(r + r.T) @ pr], gmag=[(np.abs(r) + np.abs(r.T)) @ np.abs(pr)],
           k=10, yerr=lambda P, y: sum_err(7, np.abs(P[0]) @ np.abs(P[0]).T), h=H_LINEAR)


@case('accumulate', 'concat_p_p')
def _(b):
  p, pr = b.param(normal(b.rng, 0, 1, (3, 4)))
  r = b.loss(b.to('concat', [p, p], (3, 8), 'axis 1'))
  b.expect(lambda P: np.concatenate([P[0], P[0]], 1), [r[:, :4] + r[:, 4:]], yerr=exact_err,
           h=H_LINEAR)


@case('accumulate', 'frozen_neighbour')
def _(b):
  # p * q with q frozen: only p gets a gradient; q must stay as it was.
  p, pr = b.param(normal(b.rng, 0, 1, PW))
  q, qr = b.param(normal(b.rng, 0, 1, PW), frozen=True)
  r = b.loss(b.binary('mul', p, q))
  b.expect(lambda P: P[0] * qr, [r * qr], yerr=arith_err, h=H_LINEAR)


# -- slice, norms, embedding, conv2d and pooling ----------------------------------------
def _slice_case(shape, start, limit, step=None):
  def build(b):
    p, pr = b.param(normal(b.rng, 0, 1, shape))
    idx = tuple(slice(s, l, st) for s, l, st in zip(start, limit, step or [1] * len(shape)))
    out = pr[idx].shape
    attrs = 'start %s limit %s' % (fmt_list(start), fmt_list(limit))
    if step:
      attrs += ' step ' + fmt_list(step)
    r = b.loss(b.to('slice', [p], out, attrs))
    ref = np.zeros(shape)
    ref[idx] = r
    b.expect(lambda P: P[0][idx], [ref], yerr=exact_err, h=H_LINEAR)
  return build


register('slice', 'slice_contiguous', _slice_case((6, 9), [1, 2], [5, 8]))
register('slice', 'slice_step_3d', _slice_case((4, 9, 11), [1, 0, 3], [4, 9, 10], [1, 4, 2]))


def _norm_grads(x, gamma, dy, axes):
  """(dx, xhat) for y = xhat * gamma + beta, xhat = (x - mean) / sqrt(var + eps)
  over `axes` (gamma broadcast to x), given dy: the gradients of gamma and
  beta are sums of dy * xhat and dy, formed by the callers."""
  eps = 1e-5
  mean = x.mean(axis=axes, keepdims=True)
  var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
  inv = 1 / np.sqrt(var + eps)
  xhat = (x - mean) * inv
  g = dy * gamma
  dx = inv * (g - g.mean(axis=axes, keepdims=True) - xhat * (g * xhat).mean(axis=axes, keepdims=True))
  return dx, xhat


def _layer_norm_case(shape, axis, which):
  """layer_norm over dimensions axis.. of `shape`; `which` of x, gamma, beta
  is the parameter."""
  def build(b):
    ax = axis % len(shape)
    axes = tuple(range(ax, len(shape)))
    pshape = shape[ax:]
    n = int(np.prod(pshape))
    data = {'x': normal(b.rng, 0.5, 2, shape), 'gamma': normal(b.rng, 1, 0.5, pshape),
            'beta': normal(b.rng, 0, 0.5, pshape)}
    vals, refs = {}, {}
    for key in ('x', 'gamma', 'beta'):
      vals[key], refs[key] = (b.param if key == which else b.input)(data[key])
    attrs = '' if axis == -1 else 'axis %d' % axis
    y = b.to('layer_norm', [vals['x'], vals['gamma'], vals['beta']], shape, attrs)
    r = b.loss(y)

    def args(P):
      return [P[0] if key == which else refs[key] for key in ('x', 'gamma', 'beta')]

    def fwd(P):
      x, gamma, beta = args(P)
      mean = x.mean(axis=axes, keepdims=True)
      var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
      return (x - mean) / np.sqrt(var + 1e-5) * gamma + beta

    def yerr(P, y):
      x, gamma, beta = args(P)
      mean = x.mean(axis=axes, keepdims=True)
      std = np.sqrt(((x - mean) ** 2).mean(axis=axes, keepdims=True) + 1e-5)
      xhat = (x - mean) / std
      return TRANS * np.abs(y) + (n + 8) * U32 * (np.abs(gamma) * (np.abs(xhat) + np.abs(mean) / std + 1)
                                                   + np.abs(beta))
    dx, xhat = _norm_grads(refs['x'], refs['gamma'], r, axes)
    lead = tuple(range(ax))
    ref = {'x': dx, 'gamma': (r * xhat).sum(axis=lead), 'beta': r.sum(axis=lead)}[which]
    gmag = {'x': np.abs(dx) + np.abs(r * refs['gamma']) / np.sqrt(refs['x'].var(axis=axes, keepdims=True)),
            'gamma': np.abs(r * xhat).sum(axis=lead), 'beta': np.abs(r).sum(axis=lead)}[which]
    b.expect(fwd, [ref], gmag=[gmag], k=max(n, int(np.prod(shape[:ax]))), yerr=yerr,
             h=H if which == 'x' else H_LINEAR)
  return build


for _which in ('x', 'gamma', 'beta'):
  register('norm', 'layer_norm_d' + _which, _layer_norm_case((4, 12), -1, _which))
register('norm', 'layer_norm_axis1_dx', _layer_norm_case((3, 4, 5), 1, 'x'))
register('norm', 'layer_norm_axis1_dgamma', _layer_norm_case((3, 4, 5), 1, 'gamma'))


def _batch_norm_case(shape, which):
  def build(b):
    c = shape[1]
    axes = tuple(d for d in range(len(shape)) if d != 1)
    n = int(np.prod(shape)) // c
    bshape = [1] * len(shape)
    bshape[1] = c
    data = {'x': normal(b.rng, 0.5, 2, shape), 'gamma': normal(b.rng, 1, 0.5, (c,)),
            'beta': normal(b.rng, 0, 0.5, (c,))}
    vals, refs = {}, {}
    for key in ('x', 'gamma', 'beta'):
      vals[key], refs[key] = (b.param if key == which else b.input)(data[key])
    mean_s = b.state(np.zeros(c, np.float32))
    var_s = b.state(np.ones(c, np.float32), init='ones')
    y, _, _ = b.op('batch_norm', [vals['x'], vals['gamma'], vals['beta'], mean_s, var_s],
                   [(shape, 'f32'), ((c,), 'f32'), ((c,), 'f32')])
    r = b.loss(y)

    def args(P):
      x, gamma, beta = [P[0] if key == which else refs[key] for key in ('x', 'gamma', 'beta')]
      return x, gamma.reshape(bshape), beta.reshape(bshape)

    def fwd(P):
      x, gamma, beta = args(P)
      mean = x.mean(axis=axes, keepdims=True)
      var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
      return (x - mean) / np.sqrt(var + 1e-5) * gamma + beta

    def yerr(P, y):
      x, gamma, beta = args(P)
      mean = x.mean(axis=axes, keepdims=True)
      std = np.sqrt(((x - mean) ** 2).mean(axis=axes, keepdims=True) + 1e-5)
      xhat = (x - mean) / std
      return TRANS * np.abs(y) + (n + 8) * U32 * (np.abs(gamma) * (np.abs(xhat) + np.abs(mean) / std + 1)
                                                   + np.abs(beta))
    x, gamma = refs['x'], refs['gamma'].reshape(bshape)
    dx, xhat = _norm_grads(x, gamma, r, axes)
    ref = {'x': dx, 'gamma': (r * xhat).sum(axis=axes), 'beta': r.sum(axis=axes)}[which]
    gmag = {'x': np.abs(dx) + np.abs(r * gamma) / np.sqrt(x.var(axis=axes, keepdims=True)),
            'gamma': np.abs(r * xhat).sum(axis=axes), 'beta': np.abs(r).sum(axis=axes)}[which]
    b.expect(fwd, [ref], gmag=[gmag], k=n, yerr=yerr, h=H if which == 'x' else H_LINEAR)
  return build


for _which in ('x', 'gamma', 'beta'):
  register('norm', 'batch_norm_d' + _which, _batch_norm_case((4, 3, 2, 3), _which))


def _embedding_case(id_type):
  def build(b):
    vocab, dim = 10, 4
    p, pr = b.param(normal(b.rng, 0, 1, (vocab, dim)))
    ids = b.rng.integers(0, vocab, (3, 5))
    ids.flat[:4] = [0, vocab - 1, 3, 3]     # the ends of the table, a repeat
    idv, idr = b.input(ids.astype(np.int32 if id_type == 'i32' else np.int64))
    r = b.loss(b.to('embedding', [p, idv], (3, 5, dim), et='f32'))
    ref = np.zeros((vocab, dim))
    np.add.at(ref, idr.reshape(-1), r.reshape(-1, dim))
    b.expect(lambda P: P[0][idr], [ref], gmag=[np.abs(ref)], k=15, yerr=exact_err, h=H_LINEAR)
  return build


register('embedding', 'embedding_i32', _embedding_case('i32'))
register('embedding', 'embedding_i64', _embedding_case('i64'))


def _conv_attrs(stride, padding, dilation, groups):
  parts = []
  if stride:
    parts.append('stride ' + fmt_list(stride))
  if padding:
    parts.append('padding ' + fmt_list(padding))
  if dilation:
    parts.append('dilation ' + fmt_list(dilation))
  if groups:
    parts.append('groups %d' % groups)
  return ' '.join(parts)


def _conv_case(xshape, wshape, which, stride=None, padding=None, dilation=None, groups=None):
  def build(b):
    dx, dw = normal(b.rng, 0, 1, xshape), normal(b.rng, 0, 0.5, wshape)
    if which == 'input':
      x, xr = b.param(dx)
      w, wr = b.input(dw)
    else:
      x, xr = b.input(dx)
      w, wr = b.param(dw)
    kw = dict(stride=tuple(stride or (1, 1)), padding=tuple(padding or (0, 0, 0, 0)),
              dilation=tuple(dilation or (1, 1)), groups=groups or 1)
    out = conv2d_ref(xr, wr, **kw).shape
    r = b.loss(b.to('conv2d', [x, w], out, _conv_attrs(stride, padding, dilation, groups)))
    k = wshape[1] * wshape[2] * wshape[3]
    if which == 'input':
      fwd = lambda P: conv2d_ref(P[0], wr, **kw)
      ref = linear_grad(lambda v: conv2d_ref(v, wr, **kw), xr, r)
      gmag = linear_grad(lambda v: conv2d_ref(v, np.abs(wr), **kw), np.abs(xr), np.abs(r))
      yerr = lambda P, y: sum_err(k, conv2d_ref(np.abs(P[0]), np.abs(wr), **kw))
      kk = out[0] * out[1] * wshape[2] * wshape[3]
    else:
      fwd = lambda P: conv2d_ref(xr, P[0], **kw)
      ref = linear_grad(lambda v: conv2d_ref(xr, v, **kw), wr, r)
      gmag = linear_grad(lambda v: conv2d_ref(np.abs(xr), v, **kw), np.abs(wr), np.abs(r))
      yerr = lambda P, y: sum_err(k, conv2d_ref(np.abs(xr), np.abs(P[0]), **kw))
      kk = out[0] * out[2] * out[3]
    b.expect(fwd, [ref], gmag=[gmag], k=kk, yerr=yerr, h=H_LINEAR)
  return build


register('conv', 'conv2d_dinput_pad', _conv_case((2, 3, 5, 5), (4, 3, 3, 3), 'input',
                                                 padding=[1, 1, 1, 1]))
register('conv', 'conv2d_dfilter_pad', _conv_case((2, 3, 5, 5), (4, 3, 3, 3), 'filter',
                                                  padding=[1, 1, 1, 1]))
register('conv', 'conv2d_dinput_stride_asym', _conv_case((1, 2, 7, 6), (3, 2, 3, 2), 'input',
                                                         stride=[2, 2], padding=[1, 0, 0, 1]))
register('conv', 'conv2d_dfilter_dilation_groups', _conv_case((2, 4, 6, 6), (4, 2, 2, 2), 'filter',
                                                              dilation=[2, 1], groups=2))


def _pool_attrs(kernel, stride, padding, cip=False):
  text = 'kernel ' + fmt_list(kernel)
  if stride:
    text += ' stride ' + fmt_list(stride)
  if padding:
    text += ' padding ' + fmt_list(padding)
  if cip:
    text += ' count_include_pad'
  return text


def _pool_case(op, xshape, kernel, stride=None, padding=None, cip=False):
  def build(b):
    st, pd = tuple(stride or kernel), tuple(padding or (0, 0, 0, 0))
    data = spaced(b.rng, xshape, 0.05) if op == 'max_pool2d' else normal(b.rng, 0, 1, xshape)
    p, pr = b.param(data)
    if op == 'max_pool2d':
      fwd1 = lambda v: max_pool_ref(v, kernel, st, pd)
      eps, yerr, h = 1e-3, exact_err, H_KINK
    else:
      fwd1 = lambda v: avg_pool_ref(v, kernel, st, pd, cip)
      eps, h = 1.0, H_LINEAR
      yerr = lambda P, y: sum_err(kernel[0] * kernel[1] + 2,
                                  avg_pool_ref(np.abs(P[0]), kernel, st, pd, cip))
    out = fwd1(pr).shape
    r = b.loss(b.to(op, [p], out, _pool_attrs(kernel, stride, padding, cip)))
    ref = linear_grad(fwd1, pr, r, eps)
    gmag = linear_grad(fwd1, pr, np.abs(r), eps) if op == 'avg_pool2d' else np.abs(ref)
    b.expect(lambda P: fwd1(P[0]), [ref], gmag=[np.abs(gmag)], k=kernel[0] * kernel[1], yerr=yerr,
             h=h)
  return build


register('pool', 'max_pool2d', _pool_case('max_pool2d', (2, 3, 6, 6), (2, 2)))
register('pool', 'max_pool2d_overlap_pad', _pool_case('max_pool2d', (2, 2, 7, 7), (3, 3), (2, 2),
                                                      (1, 1, 1, 1)))
register('pool', 'avg_pool2d', _pool_case('avg_pool2d', (2, 3, 6, 6), (2, 2)))
register('pool', 'avg_pool2d_pad', _pool_case('avg_pool2d', (2, 2, 5, 5), (3, 3), (1, 1),
                                              (1, 1, 1, 1)))
register('pool', 'avg_pool2d_pad_count_include_pad', _pool_case(
    'avg_pool2d', (2, 2, 5, 5), (3, 3), (2, 2), (1, 0, 1, 1), cip=True))


# -- optimizers ------------------------------------------------------------------------------------
class OptCase:
  """Two steps of optimizer `kind` with hyper-parameters `hp` on one
  parameter w and the loss reduce_sum(w * w * r)."""

  def __init__(self, name, kind, hp):
    self.group, self.name, self.kind, self.hp = 'optimizer', name, kind, hp

  @property
  def full_name(self):
    return '%s/%s' % (self.group, self.name)


OPT_CASES = [
    OptCase('sgd_lr', 'sgd', dict(lr=0.1)),
    OptCase('sgd_momentum', 'sgd', dict(lr=0.1, momentum=0.9)),
    OptCase('sgd_nesterov', 'sgd', dict(lr=0.1, momentum=0.8, nesterov=True)),
    OptCase('sgd_weight_decay', 'sgd', dict(lr=0.1, weight_decay=0.05)),
    OptCase('sgd_momentum_weight_decay_nesterov', 'sgd',
            dict(lr=0.05, momentum=0.9, weight_decay=0.1, nesterov=True)),
    OptCase('adam', 'adam', dict(lr=0.05)),
    OptCase('adam_custom', 'adam', dict(lr=0.05, beta1=0.8, beta2=0.95, eps=0.01, weight_decay=0.1)),
    # beta2 close to 1: 1 - beta2 and 1 - beta2^t are small and must agree.
    OptCase('adam_beta2_0.9999', 'adam', dict(lr=0.05, beta2=0.9999)),
    OptCase('adamw', 'adamw', dict(lr=0.05)),
    OptCase('adamw_custom', 'adamw', dict(lr=0.05, beta1=0.7, beta2=0.9, eps=0.001, weight_decay=0.2)),
]
OPT_SHAPE = (6, 9)


def optimizer_text(kind, hp):
  args = []
  for key in ('lr', 'momentum', 'beta1', 'beta2', 'eps', 'weight_decay'):
    if key in hp:
      args.append('%s = %s' % (key, fmt_float(hp[key])))
  if hp.get('nesterov'):
    args.append('nesterov = true')
  return 'optimizer(%s, %s)' % (kind, ', '.join(args))


def optimizer_reference(kind, hp, w, r, steps):
  """The updates of MpgOps.td (mpg.sgd, mpg.adam, mpg.adamw) in float64, for
  the gradient 2 w r. Returns [(w, state dict)] after each step."""
  w = w.astype(np.float64).copy()
  lr, wd = hp['lr'], hp.get('weight_decay', 0.01 if kind == 'adamw' else 0.0)
  v = np.zeros_like(w)
  m = np.zeros_like(w)
  out = []
  for t in range(1, steps + 1):
    g = 2 * w * r
    state = {}
    if kind == 'sgd':
      mu = hp.get('momentum', 0.0)
      g = g + wd * w
      if mu > 0:
        v = mu * v + g
        w = w - lr * ((g + mu * v) if hp.get('nesterov') else v)
        state['w.momentum_buffer'] = v.copy()
      else:
        w = w - lr * g
    else:
      b1, b2, eps = hp.get('beta1', 0.9), hp.get('beta2', 0.999), hp.get('eps', 1e-8)
      if kind == 'adam':
        g = g + wd * w
      else:
        w = w * (1 - lr * wd)
      m = b1 * m + (1 - b1) * g
      v = b2 * v + (1 - b2) * g * g
      w = w - lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
      state['w.exp_avg'], state['w.exp_avg_sq'] = m.copy(), v.copy()
      state['optimizer.step'] = np.array(t, np.int64)
    out.append((w.copy(), state))
  return out


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------

class Result:
  def __init__(self, case, status, ref_ratio=float('nan'), fd_ratio=float('nan'), details=()):
    self.case, self.status = case, status
    self.ref_ratio, self.fd_ratio = ref_ratio, fd_ratio
    self.details = list(details)

  def line(self):
    def ratio(x):
      return '-' if x != x else '%.3g' % x
    return '%s %s ref=%s fd=%s' % (self.status, self.case.full_name, ratio(self.ref_ratio),
                                   ratio(self.fd_ratio))


def case_rng(case):
  return np.random.default_rng([SEED, zlib.crc32(case.full_name.encode())])


def build_case(case, index):
  b = Builder('c%d' % index, case_rng(case))
  case.fn(b)
  assert b.term is not None and b.refs is not None, case.full_name + ': no loss term or references'
  return b


def write_graph(path, graph_name, items, optimizer, outputs):
  """The group's graph: the cases' sections, the sum of their terms and the
  minimize; with outputs, every case's y is an output (the forward step)."""
  lines = ['// Generated by tests/e2e/gradient_check_test.py; one section per case.',
           'mpg.graph @%s {' % graph_name]
  terms = []
  for case, b in items:
    lines.append('  // case %s' % case.full_name)
    lines.extend('  ' + line for line in b.lines)
    if outputs:
      lines.append('  mpg.output "%s_y" %s : %s' % (b.prefix, b.y.name, ttype(b.y.shape, b.y.et)))
    terms.append(b.term.name)
  total = terms[0]
  for i, t in enumerate(terms[1:]):
    name = '%%gc_total%d' % i
    lines.append('  %s = mpg.add %s, %s : tensor<f32>, tensor<f32> -> tensor<f32>' % (name, total, t))
    total = name
  lines.append('  mpg.minimize %s %s : tensor<f32>' % (total, optimizer))
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
    shown = cmd if len(cmd) < 10 else cmd[:10] + ['...']
    log('  [%.2fs] %s -> %s' % (time.time() - start, ' '.join(shown), rc))
  return rc, out, err


def write_repro(directory, commands):
  """Writes DIR/repro.sh with the commands that compile the graphs and run
  one training step from P0.safetensors (grad = P0 - P1)."""
  path = os.path.join(directory, 'repro.sh')
  with open(path, 'w') as f:
    f.write('#!/bin/sh\n# As gradient_check_test.py ran it: the gradient is P0 - P1 '
            '(sgd, lr = 1).\nset -e\n')
    for cmd in commands:
      parts = [cmd[:3]] + [cmd[i:i + 2] for i in range(3, len(cmd), 2)]
      f.write(' \\\n    '.join(shell_join(p) for p in parts) + '\n')
  os.chmod(path, 0o755)
  return path


def worst(err, tol, label, got, expected):
  """(ratio, detail line or None) of elementwise err <= tol."""
  err = np.where(np.isnan(err), np.inf, err)
  with np.errstate(divide='ignore', invalid='ignore'):
    excess = np.where(err == 0, 0.0, err / np.where(tol > 0, tol, np.finfo(np.float64).tiny))
  if excess.size == 0:  # a check that compares nothing fails
    return float('inf'), '  %s: no elements compared' % label
  i = int(np.argmax(excess))
  ratio = float(excess.flat[i])
  if ratio <= 1:
    return ratio, None
  bad = int((excess > 1).sum())
  index = tuple(int(v) for v in np.unravel_index(i, np.shape(err))) if np.ndim(err) else ()
  return ratio, ('  %s: %d of %d elements out of tolerance; worst at %s: got %.9g expected %.9g '
                 '(error %.3g, tolerance %.3g)' % (label, bad, err.size, index, float(np.ravel(got)[i]),
                                                   float(np.ravel(expected)[i]), float(err.flat[i]),
                                                   float(tol.flat[i])))


class Runner:
  def __init__(self, args):
    self.mpc = os.path.abspath(args.mpc)
    self.workdir = os.path.abspath(args.workdir)
    self.verbose = args.verbose
    self.lock = threading.Lock()

  def log(self, text):
    with self.lock:
      print(text, file=sys.stderr, flush=True)

  def mpc_run(self, bundle, params, items, save=None, outputs=None):
    cmd = [self.mpc, 'run', bundle, '--params', params]
    if save:
      cmd += ['--save-params', save]
    for _, b in items:
      for name, path in b.input_paths.items():
        cmd += ['--input', '%s=%s' % (name, path)]
    for name, path in (outputs or {}).items():
      cmd += ['--output', '%s=%s' % (name, path)]
    return cmd

  # -- one graph of gradient cases ---------------------------------------------
  def run_graph(self, directory, graph_name, items):
    """Compiles and checks one graph holding `items` [(case, builder)].
    Returns (results, error) with error None or (stage, status, stderr, repro)."""
    if os.path.isdir(directory):
      shutil.rmtree(directory)
    os.makedirs(os.path.join(directory, 'fd'))
    train_graph, fwd_graph = os.path.join(directory, 'train.mlir'), os.path.join(directory, 'forward.mlir')
    sgd = optimizer_text('sgd', dict(lr=1.0))
    write_graph(train_graph, graph_name, items, sgd, outputs=False)
    write_graph(fwd_graph, graph_name, items, sgd, outputs=True)
    train_bundle, fwd_bundle = os.path.join(directory, 'train.mpcb'), os.path.join(directory, 'forward.mpcb')
    p0, p1 = os.path.join(directory, 'P0.safetensors'), os.path.join(directory, 'P1.safetensors')
    initial = {}
    for _, b in items:
      b.input_paths = {}
      for name, array in b.inputs.items():
        path = os.path.join(directory, name + '.npy')
        np.save(path, array)
        b.input_paths[name] = path
      for p in b.params:
        initial[p.name] = p.init
      initial.update(b.states)
    # Every training step keeps the optimizer's step counter.
    initial['optimizer.step'] = np.zeros((), np.int64)
    save_safetensors(p0, initial)
    compile_train = [self.mpc, 'compile', train_graph, '--step', 'train', '--target', 'cpu',
                     '-o', train_bundle]
    compile_fwd = [self.mpc, 'compile', fwd_graph, '--target', 'cpu', '-o', fwd_bundle]
    run_train = self.mpc_run(train_bundle, p0, items, save=p1)
    repro = write_repro(directory, [compile_train, compile_fwd, run_train])
    for stage, cmd in (('compile --step train', compile_train), ('compile', compile_fwd),
                       ('run (training step)', run_train)):
      rc, _, err = run_cmd(cmd, self.verbose, self.log)
      if rc != 0:
        return None, (stage, rc, err, repro)
    after = load_safetensors(p1)

    # Finite differences: run s of slot j perturbs, in every case, element
    # k of its j-th trainable parameter by +-h.
    picks = {}     # (case index, j) -> flat indices
    for ci, (case, b) in enumerate(items):
      rng = np.random.default_rng([SEED, zlib.crc32(case.full_name.encode()), 1])
      for j, p in enumerate(b.trainable()):
        # Up to 2/3 of the picks where the gradient is not (nearly) zero (the
        # maxima of a reduce_max, the sliced elements), the rest anywhere.
        mask = (b.opts['fd_mask'] or [None] * len(b.trainable()))[j]
        eligible = np.ones(p.init.shape, bool) if mask is None else mask
        ref = np.abs(b.refs[j])
        big = eligible & (ref > 1e-3 * (ref.max() if ref.size else 0))
        first = rng.permutation(np.flatnonzero(big))[:2 * NFD // 3]
        rest = rng.permutation(np.setdiff1d(np.flatnonzero(eligible), first))
        picks[ci, j] = np.concatenate([first, rest[:NFD - first.size]]).astype(np.int64)
    slots = max(len(b.trainable()) for _, b in items)
    ys = {}        # (case index, j, k, sign) -> y from mpc, (p+ or p-) value
    outputs = {'%s_y' % b.prefix: os.path.join(directory, 'fd', '%s_y.npy' % b.prefix) for _, b in items}
    pfd = os.path.join(directory, 'fd', 'P.safetensors')
    for j in range(slots):
      for k in range(NFD):
        for sign in (1, -1):
          tensors, moved = dict(initial), []
          for ci, (case, b) in enumerate(items):
            tp = b.trainable()
            if j >= len(tp) or k >= len(picks[ci, j]):
              continue
            p = tp[j]
            arr = p.init.copy()
            idx = picks[ci, j][k]
            arr.flat[idx] = np.float32(arr.flat[idx] + sign * b.opts['h'])
            tensors[p.name] = arr
            moved.append((ci, float(arr.flat[idx])))
          if not moved:
            continue
          save_safetensors(pfd, tensors)
          cmd = self.mpc_run(fwd_bundle, pfd, items, outputs=outputs)
          rc, _, err = run_cmd(cmd, self.verbose, self.log)
          if rc != 0:
            # Retry once (the binary may be being rebuilt) before failing.
            rc, _, err = run_cmd(cmd, self.verbose, self.log)
            if rc != 0:
              return None, ('run (forward step, finite differences)', rc, err, repro)
          for ci, value in moved:
            b = items[ci][1]
            ys[ci, j, k, sign] = (np.load(outputs['%s_y' % b.prefix]).astype(np.float64), value)

    results = []
    for ci, (case, b) in enumerate(items):
      results.append(self.check_case(case, b, after, {key[1:]: v for key, v in ys.items() if key[0] == ci},
                                     {key[1]: v for key, v in picks.items() if key[0] == ci}, directory))
    return results, None

  def check_case(self, case, b, after, ys, picks, directory):
    ok, ref_ratio, fd_ratio, details = True, 0.0, 0.0, []
    o = b.opts
    trainable = b.trainable()
    P = [p.init.astype(np.float64) for p in trainable]
    if not trainable:  # no gradient to check: the case would pass empty
      ok = False
      details.append('  %s has no trainable parameter' % case.full_name)
    for p in b.params:
      if p.frozen and not np.array_equal(after[p.name], p.init):
        ok = False
        details.append('  %s (frozen) changed in the training step: max change %.3g'
                       % (p.name, float(np.abs(after[p.name] - p.init).max())))
    for j, p in enumerate(trainable):
      new = after[p.name].astype(np.float64)
      g = P[j] - new
      ref = b.refs[j]
      scale = float(np.abs(ref).max()) if ref.size else 0.0
      recov = 2 * U32 * np.abs(new)
      gmag = o['gmag'][j] if o['gmag'] is not None else 0.0
      # The budget for the fp32 error of mpc's gradient computation.
      gtol = o['rtol'] * np.abs(ref) + ATOL * scale + (o['k'] + 2) * U32 * np.abs(gmag) + o['atol']
      gtol = np.broadcast_to(gtol, ref.shape)
      # 1. Against the float64 reference.
      tol = gtol + recov
      ratio, line = worst(np.abs(g - ref), tol, '%s gradient vs float64 reference' % p.name, g, ref)
      ref_ratio = max(ref_ratio, ratio)
      if line:
        ok = False
        details.append(line)
      # 2. Against finite differences of mpc's forward step.
      idx = picks[j]
      if len(idx) == 0:
        ok = False
        details.append('  %s: no element to check by finite differences' % p.name)
        continue
      h = o['h']
      yerr = o['yerr'] or trans_err
      fd, fd64, fd64h, noise = [], [], [], []
      for k, i in enumerate(idx):
        (yp, vp), (ym, vm) = ys[j, k, 1], ys[j, k, -1]
        step = vp - vm
        fd.append(np.sum(b.r * (yp - ym)) / step)

        def at(value):
          Q = [q.copy() for q in P]
          Q[j].flat[i] = value
          return Q
        Pp, Pm = at(vp), at(vm)
        y64p, y64m = np.asarray(b.fwd(Pp), np.float64), np.asarray(b.fwd(Pm), np.float64)
        fd64.append(np.sum(b.r * (y64p - y64m)) / step)
        x0 = P[j].flat[i]
        half = np.asarray(b.fwd(at(x0 + h / 2))) - np.asarray(b.fwd(at(x0 - h / 2)))
        fd64h.append(np.sum(b.r * half) / h)
        moved = y64p != y64m
        e = np.abs(b.r) * (np.asarray(yerr(Pp, y64p)) + np.asarray(yerr(Pm, y64m)))
        noise.append(np.sum(np.where(moved, e, 0.0)) / step)
      fd, fd64, fd64h, noise = map(np.array, (fd, fd64, fd64h, noise))
      trunc = 4.0 / 3.0 * np.abs(fd64 - fd64h)
      gi, refi = g.reshape(-1)[idx], ref.reshape(-1)[idx]
      # The reference itself against float64 finite differences at h / 2
      # (whose truncation error is a quarter of the estimate at h).
      ratio, line = worst(np.abs(refi - fd64h), 2 * trunc + 1e-9 * scale + 1e-12,
                          '%s float64 reference vs float64 finite differences (a test bug)'
                          % p.name, refi, fd64h)
      if line:
        ok = False
        details.append(line)
      tol = 2 * trunc + noise + gtol.reshape(-1)[idx] + recov.reshape(-1)[idx] + FD_FLOOR * scale
      ratio, line = worst(np.abs(gi - fd), tol, '%s gradient vs finite differences of mpc\'s forward '
                          '(h %g, flat indices %s)' % (p.name, h, list(int(v) for v in idx)), gi, fd)
      fd_ratio = max(fd_ratio, ratio)
      if line:
        ok = False
        details.append(line)
    if not ok:
      details.append('  reproduce: %s (section "// case %s", parameters %s_p*)'
                     % (os.path.join(directory, 'repro.sh'), case.full_name, b.prefix))
    return Result(case, 'PASS' if ok else 'FAIL', ref_ratio, fd_ratio, details)

  def run_group(self, group, cases):
    """Runs the cases of one group in one graph; when mpc fails, each case
    alone, so that the failure names the case."""
    start = time.time()
    items = [(case, build_case(case, index)) for index, case in cases]
    directory = os.path.join(self.workdir, group)
    results, error = self.run_graph(directory, 'gc_' + group, items)
    if error is not None and len(items) > 1:
      if self.verbose:
        self.log('  %s: mpc %s failed (%s); retrying each case alone' % (group, error[0], error[1]))
      results = []
      for case, b in items:
        sub = os.path.join(directory, case.name)
        r, e = self.run_graph(sub, 'gc_' + case.name, [(case, b)])
        results += r if e is None else [self.failure(case, e)]
    elif error is not None:
      results = [self.failure(items[0][0], error)]
    if self.verbose:
      self.log('  %s: %d cases in %.1fs' % (group, len(items), time.time() - start))
    return results

  @staticmethod
  def failure(case, error):
    stage, rc, stderr, repro = error
    lines = stderr.rstrip().splitlines()
    if len(lines) > 40:
      lines = lines[:20] + ['... (%d more lines)' % (len(lines) - 40)] + lines[-20:]
    details = ['  mpc %s exited with %s; stderr:' % (stage, rc)] + ['    | ' + l for l in lines]
    details.append('  reproduce: ' + repro)
    return Result(case, 'FAIL', details=details)

  # -- optimizer cases --------------------------------------------------------
  def run_optimizer(self, case):
    directory = os.path.join(self.workdir, 'optimizer', case.name)
    if os.path.isdir(directory):
      shutil.rmtree(directory)
    os.makedirs(directory)
    rng = case_rng(case)
    w0 = normal(rng, 0, 1, OPT_SHAPE)
    r = normal(rng, 0, 1, OPT_SHAPE)
    graph = os.path.join(directory, 'train.mlir')
    opt = optimizer_text(case.kind, case.hp)
    with open(graph, 'w') as f:
      f.write('\n'.join([
          '// Generated by tests/e2e/gradient_check_test.py: two steps of %s.' % opt,
          'mpg.graph @gc_%s {' % case.name,
          '  %%r = mpg.input "r" : %s' % ttype(OPT_SHAPE, 'f32'),
          '  %%w = mpg.param "w" init(zeros) : %s' % ttype(OPT_SHAPE, 'f32'),
          '  %%0 = mpg.mul %%w, %%w : %s, %s -> %s' % ((ttype(OPT_SHAPE, 'f32'),) * 3),
          '  %%1 = mpg.mul %%0, %%r : %s, %s -> %s' % ((ttype(OPT_SHAPE, 'f32'),) * 3),
          '  %%2 = mpg.reduce_sum %%1 axes [0, 1] : %s -> tensor<f32>' % ttype(OPT_SHAPE, 'f32'),
          '  mpg.minimize %%2 %s : tensor<f32>' % opt,
          '}']) + '\n')
    np.save(os.path.join(directory, 'r.npy'), r)
    state = {'w': w0, 'optimizer.step': np.zeros((), np.int64)}
    if case.kind == 'sgd' and case.hp.get('momentum', 0) > 0:
      state['w.momentum_buffer'] = np.zeros(OPT_SHAPE, np.float32)
    elif case.kind != 'sgd':
      state['w.exp_avg'] = np.zeros(OPT_SHAPE, np.float32)
      state['w.exp_avg_sq'] = np.zeros(OPT_SHAPE, np.float32)
    paths = [os.path.join(directory, 'P%d.safetensors' % i) for i in range(3)]
    save_safetensors(paths[0], state)
    bundle = os.path.join(directory, 'train.mpcb')
    compile_cmd = [self.mpc, 'compile', graph, '--step', 'train', '--target', 'cpu', '-o', bundle]
    runs = [[self.mpc, 'run', bundle, '--params', paths[i], '--save-params', paths[i + 1],
             '--input', 'r=' + os.path.join(directory, 'r.npy')] for i in range(2)]
    repro = write_repro(directory, [compile_cmd] + runs)
    for stage, cmd in [('compile --step train', compile_cmd), ('run (step 1)', runs[0]),
                       ('run (step 2)', runs[1])]:
      rc, _, err = run_cmd(cmd, self.verbose, self.log)
      if rc != 0:
        return self.failure(case, (stage, rc, err, repro))
    # Tolerance: each step rounds w, the state and the update a few times in
    # fp32 (4 U32 of |w| each step), and the update carries the relative
    # error of the fp32 gradient and of the formula's few operations: 1e-5 of
    # the update is ample, plus 1e-7 lr for updates that nearly vanish. The
    # error of step 1 carries into step 2 (tol accumulates). A wrong formula
    # (bias correction, decay, the Nesterov term) moves w by a sizeable
    # fraction of lr.
    ok, ratio, details = True, 0.0, []
    ref = optimizer_reference(case.kind, case.hp, w0, r.astype(np.float64), 2)
    prev = w0.astype(np.float64)
    tol = np.zeros(OPT_SHAPE)
    for step, (w_ref, st_ref) in enumerate(ref, 1):
      got = load_safetensors(paths[step])
      update = np.abs(w_ref - prev)
      tol = tol + 4 * U32 * (np.abs(w_ref) + np.abs(prev)) + 1e-5 * update + 1e-7 * case.hp['lr']
      q, line = worst(np.abs(got['w'] - w_ref), tol, 'w after step %d' % step, got['w'], w_ref)
      ratio = max(ratio, q)
      if line:
        ok = False
        details.append(line)
      for name, value in st_ref.items():
        if name not in got:
          ok = False
          details.append('  %s missing from the saved parameters after step %d' % (name, step))
          continue
        if value.dtype == np.int64:
          if int(got[name]) != int(value):
            ok = False
            details.append('  %s after step %d is %d, expected %d' % (name, step, int(got[name]), int(value)))
          continue
        stol = 1e-5 * np.abs(value) + 1e-6 * float(np.abs(value).max())
        q, line = worst(np.abs(got[name] - value), stol, '%s after step %d' % (name, step), got[name], value)
        ratio = max(ratio, q)
        if line:
          ok = False
          details.append(line)
      prev = w_ref
    if not ok:
      details.append('  reproduce: ' + repro)
    return Result(case, 'PASS' if ok else 'FAIL', ratio, float('nan'), details)


def main():
  parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
  parser.add_argument('--mpc', required=True, help='the mpc executable')
  parser.add_argument('--workdir', required=True, help='where graphs, bundles and parameters go')
  parser.add_argument('--filter', default='', help='only cases whose "group/name" contains this')
  parser.add_argument('-v', '--verbose', action='store_true', help='log each mpc command and its time')
  parser.add_argument('--jobs', type=int, default=2, help='graphs compiled and run in parallel [2]')
  args = parser.parse_args()

  if not os.path.isfile(args.mpc) or not os.access(args.mpc, os.X_OK):
    print('gradient_check_test: error: %s is not an executable' % args.mpc, file=sys.stderr)
    return 2
  start = time.time()
  names = [c.full_name for c in CASES] + [c.full_name for c in OPT_CASES]
  dup = {n for n in names if names.count(n) > 1}
  assert not dup, 'duplicate case names: %s' % sorted(dup)
  groups = []
  for c in CASES:
    if c.group not in groups:
      groups.append(c.group)
  jobs = []
  for group in groups:
    selected = [(i, c) for i, c in enumerate(CASES) if c.group == group and args.filter in c.full_name]
    if selected:
      jobs.append(('group', group, selected))
  for c in OPT_CASES:
    if args.filter in c.full_name:
      jobs.append(('optimizer', c, None))
  if not jobs:
    print('gradient_check_test: error: --filter %r selects no case' % args.filter, file=sys.stderr)
    print('0 passed, 0 failed')
    return 2

  runner = Runner(args)
  os.makedirs(runner.workdir, exist_ok=True)
  passed = failed = 0
  # Big groups first, so that the two workers finish together.
  jobs.sort(key=lambda j: -(len(j[2]) if j[2] else 0))
  with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
    futures = [pool.submit(runner.run_group, job[1], job[2]) if job[0] == 'group'
               else pool.submit(lambda c: [runner.run_optimizer(c)], job[1]) for job in jobs]
    for future in futures:
      for result in future.result():
        print(result.line())
        for line in result.details:
          print(line)
        sys.stdout.flush()
        if result.status == 'PASS':
          passed += 1
        else:
          failed += 1
  if args.verbose:
    runner.log('total %.1fs' % (time.time() - start))
  print('%d passed, %d failed' % (passed, failed))
  return 1 if failed else 0


if __name__ == '__main__':
  sys.exit(main())
