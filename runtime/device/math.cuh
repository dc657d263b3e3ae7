//===- math.cuh - fp32 math for generated kernels -------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Kernels compute in fp32 registers and call these functions rather than the
// platform's directly, so one source means the same on both targets: the GPU
// uses CUDA's accurate single-precision functions (expf, not __expf), the host
// the float overloads of <cmath>. Results may differ between the targets by
// the libraries' few ulp; NaN and infinity handling does not differ.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_DEVICE_MATH_CUH
#define MPC_DEVICE_MATH_CUH

#include "mpc/device/platform.cuh"

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

MPC_HD float exp_f(float x) { return std::exp(x); }
MPC_HD float log_f(float x) { return std::log(x); }
MPC_HD float sqrt_f(float x) { return std::sqrt(x); }
MPC_HD float rsqrt_f(float x) { return 1.0f / std::sqrt(x); }
MPC_HD float tanh_f(float x) { return std::tanh(x); }
MPC_HD float sin_f(float x) { return std::sin(x); }
MPC_HD float cos_f(float x) { return std::cos(x); }
MPC_HD float erf_f(float x) { return std::erf(x); }
MPC_HD float pow_f(float x, float y) { return std::pow(x, y); }
MPC_HD float abs_f(float x) { return std::fabs(x); }
MPC_HD bool is_nan_f(float x) { return std::isnan(x); }
MPC_HD bool is_finite_f(float x) { return std::isfinite(x); }
MPC_HD float inf_f() { return std::numeric_limits<float>::infinity(); }

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
