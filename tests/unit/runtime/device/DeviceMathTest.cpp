//===- DeviceMathTest.cpp - the host implementation of math.cuh -----------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "mpc/device/math.cuh"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

/// Within `ulps` units in the last place of the f32 nearest to `want`.
::testing::AssertionResult withinUlps(float got, double want, int ulps) {
  float nearest = static_cast<float>(want);
  float ulp = std::nextafter(std::abs(nearest), kInf) - std::abs(nearest);
  if (std::abs(got - nearest) <= ulps * ulp)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << got << " is more than " << ulps << " ulp from " << nearest << " ("
         << want << " rounded)";
}

TEST(DeviceMath, MatchesDoublePrecision) {
  for (float x : {-7.5f, -1.0f, -0.3f, 0.0f, 0.2f, 1.0f, 3.7f, 12.0f}) {
    SCOPED_TRACE(x);
    EXPECT_TRUE(withinUlps(mpc::exp_f(x), std::exp(double(x)), 1));
    EXPECT_TRUE(withinUlps(mpc::tanh_f(x), std::tanh(double(x)), 1));
    EXPECT_TRUE(withinUlps(mpc::erf_f(x), std::erf(double(x)), 1));
    EXPECT_TRUE(
        withinUlps(mpc::sigmoid_f(x), 1.0 / (1.0 + std::exp(-double(x))), 2));
    EXPECT_EQ(mpc::abs_f(x), std::abs(x));
    float y = std::abs(x) + 0.5f;
    EXPECT_TRUE(withinUlps(mpc::log_f(y), std::log(double(y)), 1));
    EXPECT_TRUE(withinUlps(mpc::sqrt_f(y), std::sqrt(double(y)), 0));
    EXPECT_TRUE(withinUlps(mpc::rsqrt_f(y), 1.0 / std::sqrt(double(y)), 1));
    EXPECT_TRUE(withinUlps(mpc::pow_f(y, 1.7f), std::pow(double(y), 1.7), 1));
  }
}

TEST(DeviceMath, SigmoidSaturates) {
  EXPECT_EQ(mpc::sigmoid_f(-200.0f), 0.0f);
  EXPECT_EQ(mpc::sigmoid_f(200.0f), 1.0f);
  EXPECT_EQ(mpc::sigmoid_f(-kInf), 0.0f);
  EXPECT_TRUE(std::isnan(mpc::sigmoid_f(kNaN)));
}

TEST(DeviceMath, MaxAndMinPropagateNaN) {
  EXPECT_TRUE(std::isnan(mpc::max_f(kNaN, 1.0f)));
  EXPECT_TRUE(std::isnan(mpc::max_f(1.0f, kNaN)));
  EXPECT_TRUE(std::isnan(mpc::min_f(kNaN, -kInf)));
  EXPECT_TRUE(std::isnan(mpc::min_f(-kInf, kNaN)));
  EXPECT_EQ(mpc::max_f(-kInf, 2.0f), 2.0f);
  EXPECT_EQ(mpc::min_f(kInf, 2.0f), 2.0f);
}

TEST(DeviceMath, Classification) {
  EXPECT_TRUE(mpc::is_finite_f(3.0f));
  EXPECT_TRUE(mpc::is_finite_f(std::numeric_limits<float>::max()));
  EXPECT_FALSE(mpc::is_finite_f(kInf));
  EXPECT_FALSE(mpc::is_finite_f(-kInf));
  EXPECT_FALSE(mpc::is_finite_f(kNaN));
  EXPECT_TRUE(mpc::is_nan_f(kNaN));
  EXPECT_FALSE(mpc::is_nan_f(kInf));
  EXPECT_EQ(mpc::inf_f(), kInf);
}

} // namespace
