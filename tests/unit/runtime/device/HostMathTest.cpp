//===- HostMathTest.cpp - the host's own exp, log, erf and tanh -----------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// math.cuh computes exp_f, log_f, erf_f and tanh_f on the host with its own
// branch-free float arithmetic. Checked here against the double-precision
// functions over a sweep of float bit patterns (one in 251, all signs and
// binades, subnormals included) and at the special values.
//
//===----------------------------------------------------------------------===//

#include "mpc/device/math.cuh"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

float fromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

/// |got - want| in units in the last place of the float nearest to want
/// (a subnormal's unit is 2^-149); 0 when both are the same infinity.
double ulpsFrom(float got, double want) {
  float nearest = static_cast<float>(want);
  if (std::isinf(nearest) || std::isinf(got))
    return got == nearest ? 0 : std::numeric_limits<double>::infinity();
  double unit = std::nextafter(std::abs(nearest), kInf) - std::abs(nearest);
  return std::abs(static_cast<double>(got) - want) / unit;
}

/// The largest error of `f` against `reference` over the sweep of finite
/// inputs where `inDomain` holds; reports the worst input and records the
/// worst error (the test's `worst_ulps` property). A NaN result counts as
/// an infinite error and ends the sweep.
template <typename F, typename R, typename D>
void expectWithinUlps(F f, R reference, D inDomain, double ulps) {
  double worst = 0;
  float worstInput = 0;
  size_t compared = 0;
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 251) {
    float x = fromBits(static_cast<uint32_t>(bits));
    if (!std::isfinite(x) || !inDomain(x))
      continue;
    ++compared;
    double error = ulpsFrom(f(x), reference(static_cast<double>(x)));
    if (std::isnan(error))
      error = std::numeric_limits<double>::infinity();
    if (error > worst) {
      worst = error;
      worstInput = x;
    }
    if (std::isinf(error))
      break;
  }
  ::testing::Test::RecordProperty("worst_ulps", std::to_string(worst));
  EXPECT_GT(compared, 1000000u);
  EXPECT_LE(worst, ulps) << "at x = " << worstInput;
}

TEST(HostMath, ExpIsWithinOneUlp) {
  expectWithinUlps([](float x) { return mpc::exp_f(x); }, [](double x) { return std::exp(x); },
                   [](float) { return true; }, 1.0);
  EXPECT_EQ(mpc::exp_f(0.0f), 1.0f);
  EXPECT_EQ(mpc::exp_f(-0.0f), 1.0f);
  EXPECT_EQ(mpc::exp_f(kInf), kInf);
  EXPECT_EQ(mpc::exp_f(-kInf), 0.0f);
  EXPECT_TRUE(std::isnan(mpc::exp_f(kNaN)));
  // The largest finite result, the first overflow, the smallest subnormal.
  EXPECT_EQ(mpc::exp_f(88.72283f), std::exp(88.72283f));
  EXPECT_EQ(mpc::exp_f(88.7229f), kInf);
  EXPECT_EQ(mpc::exp_f(-103.27893f), fromBits(1));
  EXPECT_EQ(mpc::exp_f(-104.0f), 0.0f);
}

TEST(HostMath, LogIsWithinOneUlp) {
  expectWithinUlps([](float x) { return mpc::log_f(x); }, [](double x) { return std::log(x); },
                   [](float x) { return x > 0; }, 1.0);
  EXPECT_EQ(mpc::log_f(1.0f), 0.0f);
  EXPECT_EQ(mpc::log_f(0.0f), -kInf);
  EXPECT_EQ(mpc::log_f(-0.0f), -kInf);
  EXPECT_EQ(mpc::log_f(kInf), kInf);
  EXPECT_TRUE(std::isnan(mpc::log_f(-1.0f)));
  EXPECT_TRUE(std::isnan(mpc::log_f(-kInf)));
  EXPECT_TRUE(std::isnan(mpc::log_f(kNaN)));
  EXPECT_EQ(mpc::log_f(fromBits(1)), std::log(fromBits(1)));
}

// (Measured on the sweep: exp 0.92, log 0.89, erf 1.11, tanh 1.31 ulp.)
TEST(HostMath, ErfIsWithinOnePointTwoUlp) {
  expectWithinUlps([](float x) { return mpc::erf_f(x); }, [](double x) { return std::erf(x); },
                   [](float) { return true; }, 1.2);
  EXPECT_EQ(mpc::erf_f(kInf), 1.0f);
  EXPECT_EQ(mpc::erf_f(-kInf), -1.0f);
  EXPECT_TRUE(std::signbit(mpc::erf_f(-0.0f)));
  EXPECT_EQ(mpc::erf_f(0.0f), 0.0f);
  EXPECT_TRUE(std::isnan(mpc::erf_f(kNaN)));
  for (float x : {0.3f, 0.921875f, 2.5f, 3.93f, 10.0f})
    EXPECT_EQ(mpc::erf_f(-x), -mpc::erf_f(x)) << x;
}

TEST(HostMath, TanhIsWithinOnePointThreeFiveUlp) {
  expectWithinUlps([](float x) { return mpc::tanh_f(x); }, [](double x) { return std::tanh(x); },
                   [](float) { return true; }, 1.35);
  EXPECT_EQ(mpc::tanh_f(kInf), 1.0f);
  EXPECT_EQ(mpc::tanh_f(-kInf), -1.0f);
  EXPECT_TRUE(std::signbit(mpc::tanh_f(-0.0f)));
  EXPECT_TRUE(std::isnan(mpc::tanh_f(kNaN)));
  for (float x : {0.3f, 0.625f, 4.0f, 20.0f})
    EXPECT_EQ(mpc::tanh_f(-x), -mpc::tanh_f(x)) << x;
}

} // namespace
