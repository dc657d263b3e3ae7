//===- math.cuh - fp32 math for generated kernels -------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Kernels compute in fp32 registers and call these functions rather than the
// platform's directly, so one source means the same on both targets. The
// GPU uses CUDA's accurate single-precision functions (expf, not __expf).
// The host computes exp, log, erf and tanh (and sigmoid, through exp) with
// the branch-free float arithmetic below, within 1 ulp (exp, log) or 1.3 ulp
// (erf, tanh) of the exact values, so that the host compiler vectorises the
// loops of kernels that call them and a value does not depend on whether its
// element ran in a vector lane (libm's vector variants round differently
// from its scalar ones); the polynomials come from
// tools/math/fit_host_math.py. The other functions are <cmath>'s float
// overloads. Results may differ between the targets by a few ulp; NaN and
// infinity handling does not differ.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_DEVICE_MATH_CUH
#define MPC_DEVICE_MATH_CUH

#include "mpc/device/platform.cuh"
#include "mpc/device/types.cuh"

#ifndef __CUDACC__
#include <cmath>
#include <limits>
#endif

namespace mpc {

#ifdef __CUDACC__

MPC_HD float exp_f(float x) { return expf(x); }
MPC_HD float log_f(float x) { return logf(x); }
MPC_HD float sqrt_f(float x) { return sqrtf(x); }
MPC_HD float rsqrt_f(float x) { return rsqrtf(x); }
MPC_HD float tanh_f(float x) { return tanhf(x); }
MPC_HD float sin_f(float x) { return sinf(x); }
MPC_HD float cos_f(float x) { return cosf(x); }
MPC_HD float erf_f(float x) { return erff(x); }
MPC_HD float pow_f(float x, float y) { return powf(x, y); }
MPC_HD float abs_f(float x) { return fabsf(x); }
MPC_HD bool is_nan_f(float x) { return isnan(x); }
MPC_HD bool is_finite_f(float x) { return isfinite(x); }
MPC_HD float inf_f() {
#ifdef __CUDA_ARCH__
  return __int_as_float(0x7f800000);
#else
  return __builtin_huge_valf(); // nvcc's host pass
#endif
}

#else

MPC_HD float inf_f() { return std::numeric_limits<float>::infinity(); }

namespace detail {
/// ln 2 in two parts; the high one has 12 trailing zero bits, so n * kLn2Hi
/// is exact for the exponents n of exp_f and log_f.
constexpr float kLn2Hi = 6.931152344e-01f;
constexpr float kLn2Lo = 3.194618330e-05f;

MPC_HD float withSignOf(float magnitude, float sign) {
  return floatFromBits((floatBits(magnitude) & 0x7fffffffu) | (floatBits(sign) & 0x80000000u));
}
} // namespace detail

/// e^x: x = n ln2 + r with |r| <= ln2 / 2 (n rounded by adding 1.5 * 2^23,
/// whose low mantissa bits then hold it), e^r = 1 + r + r^2 P(r), and 2^n
/// applied in two halves so that a subnormal result is rounded once. Inputs
/// are clamped where e^x is already inf or 0; NaN passes through.
MPC_HD float exp_f(float x) {
  float xc = x > 89.0f ? 89.0f : x;
  xc = xc < -104.0f ? -104.0f : xc;
  const float shifted = xc * 1.44269504f + 12582912.0f;
  const int32_t n = static_cast<int32_t>(detail::floatBits(shifted) - 0x4b400000u);
  const float nf = shifted - 12582912.0f;
  float r = xc - nf * detail::kLn2Hi;
  r = r - nf * detail::kLn2Lo;
  float p = 1.979120716e-04f;
  p = p * r + 1.394452411e-03f;
  p = p * r + 8.333495818e-03f;
  p = p * r + 4.166629910e-02f;
  p = p * r + 1.666666567e-01f;
  p = p * r + 5.000000000e-01f;
  p = (r * r) * p + r;
  p = p + 1.0f;
  const int32_t half = n >> 1;
  const float scale1 = detail::floatFromBits(static_cast<uint32_t>(half + 127) << 23);
  const float scale2 = detail::floatFromBits(static_cast<uint32_t>(n - half + 127) << 23);
  return p * scale1 * scale2;
}

/// log x: x = 2^e m with m in [sqrt(1/2), sqrt(2)) (subnormals scaled by
/// 2^23 first), log m = f + f^2 P(f) for f = m - 1, plus e ln2 in two parts.
MPC_HD float log_f(float x) {
  const bool tiny = x < 1.17549435e-38f;
  const float scaled = tiny ? x * 8388608.0f : x;
  const uint32_t bits = detail::floatBits(scaled);
  float e = static_cast<float>(static_cast<int32_t>(bits >> 23) - (tiny ? 150 : 127));
  float m = detail::floatFromBits((bits & 0x7fffffu) | 0x3f800000u);
  const bool high = m > 1.41421356f;
  m = high ? m * 0.5f : m;
  e = high ? e + 1.0f : e;
  const float f = m - 1.0f;
  float p = -7.703068107e-02f;
  p = p * f + 1.295099556e-01f;
  p = p * f + -1.323262602e-01f;
  p = p * f + 1.417365968e-01f;
  p = p * f + -1.660933495e-01f;
  p = p * f + 2.000241429e-01f;
  p = p * f + -2.500158846e-01f;
  p = p * f + 3.333331943e-01f;
  p = p * f + -4.999998808e-01f;
  float y = (f * f) * p;
  y = y + e * detail::kLn2Lo;
  y = y + f;
  y = y + e * detail::kLn2Hi;
  y = x == 0.0f ? -inf_f() : y;
  y = x < 0.0f ? inf_f() - inf_f() : y;
  y = x == inf_f() ? x : y;
  return x != x ? x : y;
}

/// erf x: x + x P(x^2) for |x| < 0.921875; 1 - e^Q(|x|) up to 3.93, Q
/// fitting log erfc; 1 beyond (erfc 3.93 is below half an ulp of 1); the
/// sign of x.
MPC_HD float erf_f(float x) {
  const float s = x * x;
  float p = 8.372860611e-05f;
  p = p * s + -8.143415325e-04f;
  p = p * s + 5.201101303e-03f;
  p = p * s + -2.685942873e-02f;
  p = p * s + 1.128369644e-01f;
  p = p * s + -3.761263490e-01f;
  p = p * s + 1.283791661e-01f;
  const float small = x * p + x;
  const float a = detail::withSignOf(x, 1.0f);
  float q = -5.346582288e-09f;
  q = q * a + 1.752685648e-06f;
  q = q * a + -4.710710709e-05f;
  q = q * a + 6.019995781e-04f;
  q = q * a + -4.774746019e-03f;
  q = q * a + 2.644708939e-02f;
  q = q * a + -1.101036370e-01f;
  q = q * a + -6.318196654e-01f;
  q = q * a + -1.130228043e+00f;
  q = q * a + 3.168734838e-04f;
  const float large = a < 3.93f ? 1.0f - exp_f(q) : 1.0f;
  const float result = a < 0.921875f ? small : detail::withSignOf(large, x);
  return x != x ? x : result;
}

/// tanh x: x + x^3 P(x^2) for |x| < 0.625, else 1 - 2 / (e^2|x| + 1) with
/// the sign of x (1 once e^2|x| is large or inf).
MPC_HD float tanh_f(float x) {
  const float s = x * x;
  float p = -6.358378567e-03f;
  p = p * s + 2.121979184e-02f;
  p = p * s + -5.391300842e-02f;
  p = p * s + 1.333338916e-01f;
  p = p * s + -3.333334327e-01f;
  const float a = detail::withSignOf(x, 1.0f);
  const float small = (p * s) * a + a;
  const float large = 1.0f - 2.0f / (exp_f(a + a) + 1.0f);
  return detail::withSignOf(a < 0.625f ? small : large, x);
}

MPC_HD float sqrt_f(float x) { return std::sqrt(x); }
MPC_HD float rsqrt_f(float x) { return 1.0f / std::sqrt(x); }
MPC_HD float sin_f(float x) { return std::sin(x); }
MPC_HD float cos_f(float x) { return std::cos(x); }
MPC_HD float pow_f(float x, float y) { return std::pow(x, y); }
MPC_HD float abs_f(float x) { return std::fabs(x); }
MPC_HD bool is_nan_f(float x) { return std::isnan(x); }
MPC_HD bool is_finite_f(float x) { return std::isfinite(x); }

#endif

/// The larger of `a` and `b`; NaN if either is NaN. fmaxf would return the
/// other operand instead, and a NaN reaching a max (ReLU, softmax's row max)
/// would vanish from the result. Equal operands, +0 and -0 included, give
/// `a`, on both targets alike.
MPC_HD float max_f(float a, float b) {
  if (is_nan_f(a) || is_nan_f(b))
    return a + b;
  return a < b ? b : a;
}

/// An integer that orders floats as a search for the first maximum does
/// (max pooling's gradient): a later value replaces the best so far exactly
/// when its key is greater. Keys increase with the value; +0 and -0 have
/// the same key (equal values keep the first); every NaN has the largest
/// key (a NaN replaces any number and is replaced by nothing). Integer
/// compares and selects, unlike float ones with NaN tests, let the host
/// compiler vectorise the search.
MPC_HD int32_t first_max_key(float x) {
  const uint32_t bits = detail::floatBits(x);
  const uint32_t magnitude = bits & 0x7fffffffu;
  const int32_t ordered = magnitude == 0 ? 0 : static_cast<int32_t>(bits);
  const int32_t key = ordered ^ ((ordered >> 31) & 0x7fffffff);
  return magnitude > 0x7f800000u ? 0x7fffffff : key;
}

/// The smaller of `a` and `b`; NaN if either is NaN, `a` if they are equal
/// (see max_f).
MPC_HD float min_f(float a, float b) {
  if (is_nan_f(a) || is_nan_f(b))
    return a + b;
  return b < a ? b : a;
}

/// 1 / (1 + e^-x); 0 for very negative x (e^-x overflows to inf), 1 for very
/// positive x.
MPC_HD float sigmoid_f(float x) { return 1.0f / (1.0f + exp_f(-x)); }

/// Integer division that cannot trap: x / 0 is 0, and the one overflowing
/// quotient (the most negative value divided by -1) wraps to itself.
template <typename Int> MPC_HD Int div_i(Int x, Int y) {
  if (y == 0)
    return 0;
  if (y == -1)
    return static_cast<Int>(0 - static_cast<unsigned long long>(x));
  return x / y;
}

/// Float to integer, rounding toward zero and saturating at the integer's
/// range; NaN gives 0. The same on both targets (a plain cast is undefined
/// out of range on the host and saturates on the GPU).
template <typename Int, typename Float> MPC_HD Int to_int_sat(Float x) {
  const Float lo = -static_cast<Float>(1ULL << (sizeof(Int) * 8 - 1));
  if (!(x == x))
    return 0;
  if (x <= lo)
    return static_cast<Int>(0 - (static_cast<unsigned long long>(1) << (sizeof(Int) * 8 - 1)));
  if (x >= -lo)
    return static_cast<Int>((static_cast<unsigned long long>(1) << (sizeof(Int) * 8 - 1)) - 1);
  return static_cast<Int>(x);
}

/// A quiet NaN (an embedding index out of range, a bad label).
MPC_HD float nan_f() { return inf_f() - inf_f(); }

// f64 overloads, for reference runs of graphs stored in f64: the same names,
// so generated code does not depend on the compute type.
#ifdef __CUDACC__
MPC_HD double exp_f(double x) { return exp(x); }
MPC_HD double log_f(double x) { return log(x); }
MPC_HD double sqrt_f(double x) { return sqrt(x); }
MPC_HD double rsqrt_f(double x) { return rsqrt(x); }
MPC_HD double tanh_f(double x) { return tanh(x); }
MPC_HD double sin_f(double x) { return sin(x); }
MPC_HD double cos_f(double x) { return cos(x); }
MPC_HD double erf_f(double x) { return erf(x); }
MPC_HD double pow_f(double x, double y) { return pow(x, y); }
MPC_HD double abs_f(double x) { return fabs(x); }
MPC_HD bool is_nan_f(double x) { return isnan(x); }
#else
MPC_HD double exp_f(double x) { return std::exp(x); }
MPC_HD double log_f(double x) { return std::log(x); }
MPC_HD double sqrt_f(double x) { return std::sqrt(x); }
MPC_HD double rsqrt_f(double x) { return 1.0 / std::sqrt(x); }
MPC_HD double tanh_f(double x) { return std::tanh(x); }
MPC_HD double sin_f(double x) { return std::sin(x); }
MPC_HD double cos_f(double x) { return std::cos(x); }
MPC_HD double erf_f(double x) { return std::erf(x); }
MPC_HD double pow_f(double x, double y) { return std::pow(x, y); }
MPC_HD double abs_f(double x) { return std::fabs(x); }
MPC_HD bool is_nan_f(double x) { return std::isnan(x); }
#endif

MPC_HD double max_f(double a, double b) {
  if (is_nan_f(a) || is_nan_f(b))
    return a + b;
  return a < b ? b : a;
}

MPC_HD double min_f(double a, double b) {
  if (is_nan_f(a) || is_nan_f(b))
    return a + b;
  return b < a ? b : a;
}

} // namespace mpc

#endif // MPC_DEVICE_MATH_CUH
