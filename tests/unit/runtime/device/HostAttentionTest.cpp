//===- HostAttentionTest.cpp - the host's bf16 attention forms ------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// attention.cuh's host kernels on bf16 operands, forward and both gradients,
// in both forms: fp32 products (attention_host.cuh) and bf16 dot products
// (attention_bf16.cuh, on a CPU with AVX512-BF16; skipped elsewhere),
// against references in double precision from the same bf16 inputs. Shapes
// cover whole and partial blocks of 64 queries and keys, the causal walk,
// an additive mask with left-out pairs, and each head size's block of sums
// (16, 48, 64, 128 columns). The public kernels must take the bf16 form
// exactly when it is enabled.
//
//===----------------------------------------------------------------------===//

#include "mpc/device/attention.cuh"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace {

using mpc::bf16_t;

/// bf16's unit roundoff: rounding to nearest moves a value by at most 2^-8
/// of it.
constexpr double kBf16Unit = 1.0 / 256.0;

struct Problem {
  int64_t batch, queries, keys;
  bool causal, masked;
  float scale;
};

/// The operands of one attention, stored in bf16, with their values.
struct Operands {
  std::vector<bf16_t> q, k, v, dy;
  std::vector<float> mask;
};

std::vector<bf16_t> randomBf16(size_t n, std::mt19937 &engine) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<bf16_t> values(n);
  for (bf16_t &value : values)
    value = mpc::from_f32<bf16_t>(normal(engine));
  return values;
}

Operands makeOperands(const Problem &p, int head, unsigned seed) {
  std::mt19937 engine(seed);
  Operands o;
  o.q = randomBf16(p.batch * p.queries * head, engine);
  o.k = randomBf16(p.batch * p.keys * head, engine);
  o.v = randomBf16(p.batch * p.keys * head, engine);
  o.dy = randomBf16(p.batch * p.queries * head, engine);
  if (p.masked) {
    // Offsets, and -1e9 (left out) on a fifth of the pairs, never on the
    // diagonal: every query keeps a key.
    std::normal_distribution<float> offset(0.0f, 0.5f);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    o.mask.resize(p.queries * p.keys);
    for (int64_t i = 0; i < p.queries; ++i)
      for (int64_t j = 0; j < p.keys; ++j)
        o.mask[i * p.keys + j] = i != j && uniform(engine) < 0.2f ? -1e9f : offset(engine);
  }
  return o;
}

double value(bf16_t x) { return mpc::to_f32(x); }

/// The results of the forward pass and the gradients, in double precision,
/// with the magnitudes their error bounds scale with.
struct Reference {
  std::vector<double> y, lse, dq, dk, dv;
  std::vector<double> yMagnitude, dqMagnitude, dkMagnitude, dvMagnitude;
};

Reference reference(const Problem &p, int head, const Operands &o) {
  Reference r;
  const int64_t rows = p.batch * p.queries, keyRows = p.batch * p.keys;
  r.y.assign(rows * head, 0.0);
  r.yMagnitude = r.dq = r.dqMagnitude = r.y;
  r.lse.assign(rows, 0.0);
  r.dk.assign(keyRows * head, 0.0);
  r.dv = r.dkMagnitude = r.dvMagnitude = r.dk;
  auto at = [head](const std::vector<bf16_t> &x, int64_t row, int d) {
    return value(x[row * head + d]);
  };
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t i = 0; i < p.queries; ++i) {
      const int64_t qi = b * p.queries + i;
      std::vector<double> prob(p.keys, 0.0), dp(p.keys, 0.0), dpMagnitude(p.keys, 0.0);
      double largest = -INFINITY;
      for (int64_t j = 0; j < p.keys; ++j) {
        if (p.causal && j > i) {
          prob[j] = -INFINITY;
          continue;
        }
        double dot = 0.0;
        for (int d = 0; d < head; ++d)
          dot += at(o.q, qi, d) * at(o.k, b * p.keys + j, d);
        prob[j] = p.scale * dot + (p.masked ? o.mask[i * p.keys + j] : 0.0);
        largest = std::max(largest, prob[j]);
      }
      double sum = 0.0;
      for (double &x : prob)
        sum += x = std::exp(x - largest);
      r.lse[qi] = largest + std::log(sum);
      for (double &x : prob)
        x /= sum;
      double delta = 0.0, deltaMagnitude = 0.0;
      for (int d = 0; d < head; ++d) {
        for (int64_t j = 0; j < p.keys; ++j) {
          if (prob[j] == 0.0) // (left out: its value plays no part)
            continue;
          r.y[qi * head + d] += prob[j] * at(o.v, b * p.keys + j, d);
          r.yMagnitude[qi * head + d] += prob[j] * std::abs(at(o.v, b * p.keys + j, d));
        }
        delta += at(o.dy, qi, d) * r.y[qi * head + d];
        deltaMagnitude += std::abs(at(o.dy, qi, d) * r.y[qi * head + d]);
      }
      for (int64_t j = 0; j < p.keys; ++j)
        for (int d = 0; d < head; ++d) {
          dp[j] += at(o.dy, qi, d) * at(o.v, b * p.keys + j, d);
          dpMagnitude[j] += std::abs(at(o.dy, qi, d) * at(o.v, b * p.keys + j, d));
        }
      for (int64_t j = 0; j < p.keys; ++j) {
        const int64_t kj = b * p.keys + j;
        const double ds = prob[j] * (dp[j] - delta) * p.scale;
        const double dsMagnitude = prob[j] * (dpMagnitude[j] + deltaMagnitude) * std::abs(p.scale);
        for (int d = 0; d < head; ++d) {
          r.dq[qi * head + d] += ds * at(o.k, kj, d);
          r.dqMagnitude[qi * head + d] += dsMagnitude * std::abs(at(o.k, kj, d));
          r.dk[kj * head + d] += ds * at(o.q, qi, d);
          r.dkMagnitude[kj * head + d] += dsMagnitude * std::abs(at(o.q, qi, d));
          r.dv[kj * head + d] += prob[j] * at(o.dy, qi, d);
          r.dvMagnitude[kj * head + d] += prob[j] * std::abs(at(o.dy, qi, d));
        }
      }
    }
  return r;
}

/// The kernels' results.
struct Results {
  std::vector<bf16_t> y, dq, dk, dv;
  std::vector<float> lse;
};

enum class Form { Fp32, Bf16Dot, Public };

template <int D, bool Causal> Results run(const Problem &p, const Operands &o, Form form) {
  Results r;
  r.y.resize(o.q.size());
  r.dq.resize(o.q.size());
  r.dk.resize(o.k.size());
  r.dv.resize(o.v.size());
  r.lse.resize(p.batch * p.queries);
  const mpc::AttentionSizes s{p.batch, p.queries, p.keys, p.scale};
  const float *mask = p.masked ? o.mask.data() : nullptr;
  namespace detail = mpc::detail;
  if (form == Form::Fp32) {
    detail::attention_forward_fp32<D, Causal>(o.q.data(), o.k.data(), o.v.data(), mask, r.y.data(),
                                              r.lse.data(), s);
    detail::attention_grad_query_fp32<D, Causal>(o.q.data(), o.k.data(), o.v.data(), r.y.data(),
                                                 r.lse.data(), o.dy.data(), mask, r.dq.data(), s);
    detail::attention_grad_key_value_fp32<D, Causal>(o.q.data(), o.k.data(), o.v.data(), r.y.data(),
                                                     r.lse.data(), o.dy.data(), mask, r.dk.data(),
                                                     r.dv.data(), s);
  } else if (form == Form::Bf16Dot) {
#ifdef MPC_HOST_HAS_BF16_DOT
    detail::bf16_dot::attention_forward<D, Causal>(o.q.data(), o.k.data(), o.v.data(), mask,
                                                   r.y.data(), r.lse.data(), s);
    detail::bf16_dot::attention_grad_query<D, Causal>(o.q.data(), o.k.data(), o.v.data(),
                                                      r.y.data(), r.lse.data(), o.dy.data(), mask,
                                                      r.dq.data(), s);
    detail::bf16_dot::attention_grad_key_value<D, Causal>(o.q.data(), o.k.data(), o.v.data(),
                                                          r.y.data(), r.lse.data(), o.dy.data(),
                                                          mask, r.dk.data(), r.dv.data(), s);
#endif
  } else {
    mpc::attention_forward<D, Causal>(o.q.data(), o.k.data(), o.v.data(), mask, r.y.data(),
                                      r.lse.data(), s);
    mpc::attention_grad_query<D, Causal>(o.q.data(), o.k.data(), o.v.data(), r.y.data(),
                                         r.lse.data(), o.dy.data(), mask, r.dq.data(), s);
    mpc::attention_grad_key_value<D, Causal>(o.q.data(), o.k.data(), o.v.data(), r.y.data(),
                                             r.lse.data(), o.dy.data(), mask, r.dk.data(),
                                             r.dv.data(), s);
  }
  return r;
}

/// Every element of `got` within kBf16Unit (|want| + slack magnitude): the
/// result's rounding to bf16, and `slack` roundings of the terms of its sum.
void expectWithin(const std::string &what, const std::vector<bf16_t> &got,
                  const std::vector<double> &want, const std::vector<double> &magnitude,
                  double slack) {
  ASSERT_EQ(got.size(), want.size()) << what;
  ASSERT_GT(got.size(), 0u) << what << ": no elements compared";
  int failures = 0;
  double worst = 0.0;
  for (size_t e = 0; e < got.size(); ++e) {
    const double bound = kBf16Unit * (std::abs(want[e]) + slack * magnitude[e]) + 1e-30;
    const double error = std::abs(value(got[e]) - want[e]);
    worst = std::max(worst, error / bound);
    if (!(error <= bound) && failures++ < 5)
      ADD_FAILURE() << what << "[" << e << "] = " << value(got[e]) << ", want " << want[e]
                    << " within " << bound;
  }
  EXPECT_EQ(failures, 0) << what << ": worst error " << worst << " of its bound";
}

template <int D, bool Causal> void checkForm(const Problem &p, Form form) {
  const Operands o = makeOperands(p, D, 1234 + D);
  const Reference want = reference(p, D, o);
  const Results got = run<D, Causal>(p, o, form);
  // Besides each result's rounding: the bf16 form's rounding of p and ds
  // (half a kBf16Unit of sum_j p |v_j|, of sum |ds| |operand|), delta from
  // the rounded y (within the same sums for the gradients), fp32 sums.
  expectWithin("y", got.y, want.y, want.yMagnitude, 2.0);
  expectWithin("dq", got.dq, want.dq, want.dqMagnitude, 2.0);
  expectWithin("dk", got.dk, want.dk, want.dkMagnitude, 2.0);
  expectWithin("dv", got.dv, want.dv, want.dvMagnitude, 2.0);
  ASSERT_EQ(got.lse.size(), want.lse.size());
  for (size_t i = 0; i < got.lse.size(); ++i)
    ASSERT_NEAR(got.lse[i], want.lse[i], 2e-5 * (1.0 + std::abs(want.lse[i])))
        << "lse[" << i << "]";
}

/// check(form) for the fp32 form, then for the bf16 form where this CPU and
/// host compiler have it (the test is marked skipped where they do not).
template <class Check> void inBothForms(const Check &check) {
  {
    SCOPED_TRACE("fp32 products");
    check(Form::Fp32);
  }
#ifdef MPC_HOST_HAS_BF16_DOT
  if (!mpc::detail::bf16_dot::cpu_supports())
    GTEST_SKIP() << "this CPU has no AVX512-BF16: only the fp32 form ran";
  SCOPED_TRACE("bf16 dot products");
  check(Form::Bf16Dot);
#else
  GTEST_SKIP() << "this host compiler has no AVX512-BF16 form: only the fp32 form ran";
#endif
}

template <int D, bool Causal> void checkBothForms(const Problem &p) {
  inBothForms([&](Form form) { checkForm<D, Causal>(p, form); });
}

/// The forward pass where the keys no query reaches (causal, more keys than
/// queries) hold Inf: they play no part in y, not even as 0 * Inf, though
/// the bf16 form packs them with their block.
template <int D> void checkForwardIgnoresKeysPastTheCausalEnd(const Problem &p, Form form) {
  Operands o = makeOperands(p, D, 99);
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t j = p.queries; j < p.keys; ++j)
      for (int d = 0; d < D; ++d)
        o.k[(b * p.keys + j) * D + d] = o.v[(b * p.keys + j) * D + d] =
            mpc::from_f32<bf16_t>(INFINITY);
  const Reference want = reference(p, D, o);
  // (the gradients run too; with Inf keys their results are not checked)
  expectWithin("y", run<D, true>(p, o, form).y, want.y, want.yMagnitude, 2.0);
}

TEST(HostAttentionTest, Head64CausalOverPartialBlocks) {
  checkBothForms<64, true>({3, 150, 150, true, false, 0.125f});
}

TEST(HostAttentionTest, Head32MaskedMoreKeysThanQueries) {
  checkBothForms<32, false>({2, 70, 90, false, true, -0.3f});
}

TEST(HostAttentionTest, Head128Causal) {
  checkBothForms<128, true>({1, 40, 40, true, false, 0.09f});
}

TEST(HostAttentionTest, Head48Masked) { checkBothForms<48, false>({2, 20, 33, false, true, 0.2f}); }

// (77 queries: the last block of queries ends the causal walk at an odd
// key, inside a pair of packed keys)
TEST(HostAttentionTest, Head32CausalMoreKeysThanQueries) {
  checkBothForms<32, true>({2, 77, 90, true, false, 0.2f});
}

TEST(HostAttentionTest, KeysPastTheCausalEndPlayNoPart) {
  const Problem p{2, 77, 90, true, false, 0.2f};
  inBothForms([&](Form form) { checkForwardIgnoresKeysPastTheCausalEnd<64>(p, form); });
}

TEST(HostAttentionTest, Head16CausalMasked) {
  checkBothForms<16, true>({2, 100, 100, true, true, 0.25f});
}

/// The public kernels take the bf16 form exactly when it is enabled
/// (AVX512-BF16, MPC_HOST_BF16_DOT not 0), and the fp32 form for head sizes
/// that are not whole vectors.
TEST(HostAttentionTest, PublicKernelsTakeTheEnabledForm) {
  const Problem p{2, 70, 70, true, false, 0.125f};
  const Operands o = makeOperands(p, 64, 7);
  bool bf16 = false;
#ifdef MPC_HOST_HAS_BF16_DOT
  bf16 = mpc::detail::bf16_dot::enabled();
#endif
  const Results got = run<64, true>(p, o, Form::Public);
  const Results want = run<64, true>(p, o, bf16 ? Form::Bf16Dot : Form::Fp32);
  auto same = [](const std::vector<bf16_t> &a, const std::vector<bf16_t> &b) {
    return a.size() == b.size() && !a.empty() &&
           std::equal(a.begin(), a.end(), b.begin(),
                      [](bf16_t x, bf16_t y) { return x.bits == y.bits; });
  };
  EXPECT_TRUE(same(got.y, want.y) && same(got.dq, want.dq) && same(got.dk, want.dk) &&
              same(got.dv, want.dv))
      << "the public kernels did not take the " << (bf16 ? "bf16" : "fp32") << " form";
  // (which shows the form only where the two forms' results differ)
  if (bf16)
    EXPECT_FALSE(same(want.dk, run<64, true>(p, o, Form::Fp32).dk));
  const Operands odd = makeOperands(p, 8, 8);
  EXPECT_TRUE(same(run<8, true>(p, odd, Form::Public).dk, run<8, true>(p, odd, Form::Fp32).dk));
}

} // namespace
