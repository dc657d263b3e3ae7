"""Pieces shared by the end-to-end scripts of this folder (op_reference_test.py,
gradient_check_test.py): building graph text, spelling mpg types and attributes, drawing test
values, and float64 NumPy references of activations, convolution and pooling.
"""
import math

import numpy as np


erf = np.vectorize(math.erf, otypes=[np.float64])


def ttype(shape, et):
  return 'tensor<' + ''.join('%dx' % d for d in shape) + et + '>'


def fmt_list(values):
  return '[' + ', '.join(str(int(v)) for v in values) + ']'


def fmt_float(value):
  return '%.9e' % value


class Val:
  """An SSA value of the graph being built."""
  __slots__ = ('name', 'shape', 'et')

  def __init__(self, name, shape, et):
    self.name, self.shape, self.et = name, tuple(shape), et


def unif(rng, lo, hi, shape):
  return rng.uniform(lo, hi, shape).astype(np.float32)


def normal(rng, mean, std, shape):
  return (mean + std * rng.standard_normal(shape)).astype(np.float32)


def away_from_zero(rng, lo, hi, shape):
  """Values with |v| in [lo, hi] and a random sign."""
  return (rng.uniform(lo, hi, shape) * rng.choice([-1.0, 1.0], shape)).astype(np.float32)


def philox4x32_10(c0, c1, c2, c3, k0, k1):
  """Philox 4x32-10 (Salmon et al., SC 2011) of counters (c0..c3) under key
  (k0, k1), elementwise over uint64 arrays holding 32-bit words; written
  from the paper, independently of runtime/device/random.cuh, and checked
  against Random123's published vectors (check_philox)."""
  mask = np.uint64(0xFFFFFFFF)
  c = [np.asarray(w, np.uint64) & mask for w in (c0, c1, c2, c3)]
  k0, k1 = np.uint64(k0) & mask, np.uint64(k1) & mask
  for _ in range(10):
    p0 = np.uint64(0xD2511F53) * c[0]
    p1 = np.uint64(0xCD9E8D57) * c[2]
    c = [(p1 >> np.uint64(32)) ^ c[1] ^ k0, p1 & mask,
         (p0 >> np.uint64(32)) ^ c[3] ^ k1, p0 & mask]
    k0 = (k0 + np.uint64(0x9E3779B9)) & mask
    k1 = (k1 + np.uint64(0xBB67AE85)) & mask
  return c


def check_philox():
  """Random123's known answers for philox4x32 with 10 rounds."""
  got = [int(w) for w in philox4x32_10(0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344,
                                         0xa4093822, 0x299f31d0)]
  assert got == [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1], got


def dropout_keep(seed, run, stream, shape, rate):
  """mpg.dropout's mask (MpgOps.td): element e keeps when word e % 4 of
  Philox((e / 4, stream, run low, run high), (seed low, seed high)) is at
  least rate * 2^32, rounded."""
  check_philox()
  n = int(np.prod(shape))
  e = np.arange(n, dtype=np.uint64)
  seed, run = int(seed) % 2 ** 64, int(run) % 2 ** 64
  words = philox4x32_10(e >> np.uint64(2), stream, run & 0xFFFFFFFF, run >> 32,
                        seed & 0xFFFFFFFF, seed >> 32)
  bits = np.choose((e & np.uint64(3)).astype(np.int64), words)
  threshold = min(round(rate * 2.0 ** 32), 2 ** 32 - 1)
  return (bits >= np.uint64(threshold)).reshape(shape)


def gelu_exact(x):
  return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def sigmoid(x):
  return 1.0 / (1.0 + np.exp(-x))


def softmax(x, axis):
  e = np.exp(x - x.max(axis=axis, keepdims=True))
  return e / e.sum(axis=axis, keepdims=True)


def logsumexp(x, axis):
  m = x.max(axis=axis, keepdims=True)
  return m + np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def attention_ref(q, k, v, mask, scale, causal):
  """mpg.attention in float64: (y, lse, p) for q [..., Sq, D], k and v
  [..., Sk, D], an additive mask [Sq, Sk] or None."""
  s = scale * np.einsum('...id,...jd->...ij', q, k)
  if mask is not None:
    s = s + mask
  if causal:
    n = s.shape[-1]
    s = np.where(np.triu(np.ones((n, n), bool), 1), -np.inf, s)
  lse = logsumexp(s, -1)
  p = np.exp(s - lse)
  return p @ v, lse[..., 0], p


def attention_text(y, lse, q, k, v, mask, scale, causal):
  """The line of an mpg.attention of q, k, v (Val) with results y and lse
  (Val) and an optional mask (Val)."""
  masked = ' mask(%s : %s)' % (mask.name, ttype(mask.shape, mask.et)) if mask else ''
  return '%s, %s = mpg.attention %s, %s, %s%s scale %s%s : %s -> %s' % (
      y.name, lse.name, q.name, k.name, v.name, masked, fmt_float(scale),
      ' causal' if causal else '', ', '.join(ttype(x.shape, x.et) for x in (q, k, v)),
      ', '.join(ttype(x.shape, x.et) for x in (y, lse)))


def out_size(n, k, stride, before, after, dilation=1):
  return (n + before + after - dilation * (k - 1) - 1) // stride + 1


def conv2d_ref(x, w, stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1), groups=1):
  """NCHW cross-correlation, padding [top, left, bottom, right]."""
  n, c, h, wd = x.shape
  o, cg, kh, kw = w.shape
  top, left, bottom, right = padding
  ho = out_size(h, kh, stride[0], top, bottom, dilation[0])
  wo = out_size(wd, kw, stride[1], left, right, dilation[1])
  xp = np.zeros((n, c, h + top + bottom, wd + left + right))
  xp[:, :, top:top + h, left:left + wd] = x
  xg = xp.reshape(n, groups, cg, xp.shape[2], xp.shape[3])
  wg = w.reshape(groups, o // groups, cg, kh, kw)
  out = np.zeros((n, groups, o // groups, ho, wo))
  for i in range(kh):
    for j in range(kw):
      r0, c0 = i * dilation[0], j * dilation[1]
      patch = xg[:, :, :, r0:r0 + stride[0] * (ho - 1) + 1:stride[0],
                 c0:c0 + stride[1] * (wo - 1) + 1:stride[1]]
      out += np.einsum('ngchw,goc->ngohw', patch, wg[:, :, :, i, j])
  return out.reshape(n, o, ho, wo)


def pool_windows(x, kernel, stride, padding, fill):
  """[N, C, Ho, Wo, kh*kw] windows of x padded with `fill`."""
  n, c, h, w = x.shape
  kh, kw = kernel
  top, left, bottom, right = padding
  ho = out_size(h, kh, stride[0], top, bottom)
  wo = out_size(w, kw, stride[1], left, right)
  xp = np.full((n, c, h + top + bottom, w + left + right), fill, np.float64)
  xp[:, :, top:top + h, left:left + w] = x
  wins = np.empty((n, c, ho, wo, kh * kw))
  for i in range(kh):
    for j in range(kw):
      wins[..., i * kw + j] = xp[:, :, i:i + stride[0] * (ho - 1) + 1:stride[0],
                                 j:j + stride[1] * (wo - 1) + 1:stride[1]]
  return wins


def max_pool_ref(x, kernel, stride, padding):
  return pool_windows(x, kernel, stride, padding, -np.inf).max(axis=-1)


def shell_join(cmd):
  def quote(s):
    return s if all(ch.isalnum() or ch in '/._-=:' for ch in s) else "'" + s.replace("'", "'\\''") + "'"
  return ' '.join(quote(s) for s in cmd)


class GraphText:
  """The text of a graph under construction: fresh SSA names with a prefix and
  one line per op, in mpg's custom syntax."""

  def __init__(self, prefix):
    self.prefix = prefix
    self.lines = []
    self.counter = 0

  def _fresh(self):
    self.counter += 1
    return '%%%s_%d' % (self.prefix, self.counter)

  def op(self, name, operands, results, attrs='', style='arrow', lead=''):
    """Emits `%r... = mpg.NAME LEAD%a, %b ATTRS : SIGNATURE`.

    results: [(shape, et)]; style: 'unary' (`: T`), 'cast' (`: T to T2`) or
    'arrow' (`: operand types -> result types`)."""
    outs = [Val(self._fresh(), shape, et) for shape, et in results]
    text = '%s = mpg.%s %s%s' % (', '.join(v.name for v in outs), name, lead,
                                 ', '.join(v.name for v in operands))
    if attrs:
      text += ' ' + attrs
    if style == 'unary':
      sig = ttype(outs[0].shape, outs[0].et)
    elif style == 'cast':
      sig = '%s to %s' % (ttype(operands[0].shape, operands[0].et), ttype(outs[0].shape, outs[0].et))
    else:
      sig = '%s -> %s' % (', '.join(ttype(v.shape, v.et) for v in operands),
                          ', '.join(ttype(v.shape, v.et) for v in outs))
    self.lines.append('%s : %s' % (text, sig))
    return outs[0] if len(outs) == 1 else outs

  def cast(self, x, et):
    return self.op('cast', [x], [(x.shape, et)], style='cast')

  def unary(self, name, x, attrs=''):
    return self.op(name, [x], [(x.shape, x.et)], attrs, style='unary')

  def binary(self, name, x, y):
    return self.op(name, [x, y], [(np.broadcast_shapes(x.shape, y.shape), x.et)])

  def compare(self, pred, x, y):
    return self.op('compare', [x, y], [(np.broadcast_shapes(x.shape, y.shape), 'i1')],
                   lead=pred + ', ')

  def select(self, c, x, y):
    shape = np.broadcast_shapes(c.shape, x.shape, y.shape)
    return self.op('select', [c, x, y], [(shape, x.et)])

  def dropout(self, x, rate, seed, run, stream):
    """A keyed mpg.dropout of x (seed and run: i64 values)."""
    y = Val(self._fresh(), x.shape, x.et)
    self.lines.append('%s = mpg.dropout %s rate %s key(%s, %s) stream %d : %s, tensor<i64>, '
                      'tensor<i64>' % (y.name, x.name, fmt_float(rate), seed.name, run.name,
                                       stream, ttype(x.shape, x.et)))
    return y

  def to(self, name, operands, shape, attrs='', et=None):
    """An op with one result of `shape` (arrow syntax), of type `et` or the
    first operand's."""
    return self.op(name, operands, [(shape, et or operands[0].et)], attrs)
