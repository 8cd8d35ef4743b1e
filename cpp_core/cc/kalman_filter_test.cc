#include "cc/kalman_filter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace orbitcc {
namespace {

// Small deterministic Gaussian source (xorshift + Box-Muller) so the tests
// do not depend on the standard library's distribution implementation.
class TestNoise {
 public:
  explicit TestNoise(uint64_t seed) : s_(seed * 2654435761ULL + 1) {}
  double Uniform() {
    s_ ^= s_ << 13;
    s_ ^= s_ >> 7;
    s_ ^= s_ << 17;
    return (static_cast<double>(s_ >> 11) + 0.5) / 9007199254740992.0;
  }
  double Gaussian(double stddev) {
    const double u1 = Uniform(), u2 = Uniform();
    return stddev * std::sqrt(-2.0 * std::log(u1)) *
           std::cos(6.283185307179586 * u2);
  }

 private:
  uint64_t s_;
};

TEST(AdaptiveKalmanFilterTest, OneStepFollowsEquations5To10) {
  AdaptiveKalmanOptions opt;
  opt.adaptive = false;
  opt.initial_process_var = 1.0;      // Q
  opt.initial_measurement_var = 5.0;  // R
  AdaptiveKalmanFilter f(opt);
  EXPECT_DOUBLE_EQ(f.Update(10.0), 10.0);  // initialises x = y, Z = R
  EXPECT_DOUBLE_EQ(f.error_variance(), 5.0);
  // Z^- = 5 + 1 = 6; K = 6 / (6 + 5); x = 10 + K (21 - 10) = 16; Z = 6 - 6K.
  const double k = 6.0 / 11.0;
  EXPECT_NEAR(f.Update(21.0), 10.0 + k * 11.0, 1e-12);
  EXPECT_NEAR(f.gain(), k, 1e-12);
  EXPECT_NEAR(f.error_variance(), 6.0 - k * 6.0, 1e-12);
  EXPECT_DOUBLE_EQ(f.last_innovation(), 11.0);
}

TEST(AdaptiveKalmanFilterTest, ConvergesOnConstantTruth) {
  const double truth = 50.0, sigma = 5.0;
  AdaptiveKalmanFilter f;  // Q, R unknown: derived from y0, then adapted
  TestNoise noise(1);
  double early_err = 0, late_err = 0, raw_err = 0;
  std::vector<double> late_gains;
  const int n = 600;
  for (int i = 0; i < n; ++i) {
    const double y = truth + noise.Gaussian(sigma);
    f.Update(y);
    const double err = std::fabs(f.estimate() - truth);
    if (i >= 5 && i < 25) early_err += err / 20.0;
    if (i >= n - 200) {
      late_err += err / 200.0;
      raw_err += std::fabs(y - truth) / 200.0;
      late_gains.push_back(f.gain());
    }
  }
  // The filtered error is well below the raw measurement error and shrinks
  // compared with the start.
  EXPECT_LT(late_err, 0.5 * raw_err);
  EXPECT_LT(late_err, early_err);
  // The gain settles: small, and it no longer swings.
  double mean_k = 0;
  for (double k : late_gains) mean_k += k / late_gains.size();
  double var_k = 0;
  for (double k : late_gains) var_k += (k - mean_k) * (k - mean_k);
  var_k /= late_gains.size();
  EXPECT_LT(mean_k, 0.35);
  EXPECT_LT(std::sqrt(var_k), 0.15);
  // The measurement noise estimate is in the right range (truth R = 25).
  EXPECT_GT(f.measurement_noise_var(), 25.0 / 3.0);
  EXPECT_LT(f.measurement_noise_var(), 25.0 * 3.0);
}

TEST(AdaptiveKalmanFilterTest, TracksAStep) {
  AdaptiveKalmanFilter f;
  TestNoise noise(7);
  for (int i = 0; i < 300; ++i) f.Update(50.0 + noise.Gaussian(5.0));
  ASSERT_NEAR(f.estimate(), 50.0, 3.0);
  // The truth steps to 80 (e.g. a handover to a better satellite). The
  // innovations turn persistently positive, the fit raises Q, the gain
  // rises, and the estimate catches up within a few tens of samples.
  int caught_up_at = -1;
  for (int i = 0; i < 60; ++i) {
    f.Update(80.0 + noise.Gaussian(5.0));
    if (caught_up_at < 0 && std::fabs(f.estimate() - 80.0) < 4.0) {
      caught_up_at = i;
    }
  }
  EXPECT_GE(caught_up_at, 0);
  EXPECT_LT(caught_up_at, 40);
  EXPECT_NEAR(f.estimate(), 80.0, 6.0);
}

TEST(AdaptiveKalmanFilterTest, LeastSquaresRecoversTheoreticalCovariances) {
  // Build exact steady-state autocovariances for Q = 2, R = 8, K = 0.3 and
  // check the fit inverts them.
  const double q = 2.0, r = 8.0, k = 0.3;
  const double a = 1.0 / (k * (2.0 - k)), b = k / (2.0 - k);
  const double p = a * q + b * r;
  std::vector<double> c = {p + r, (1 - k) * p - k * r,
                           (1 - k) * ((1 - k) * p - k * r)};
  double q_hat = 0, r_hat = 0;
  AdaptiveKalmanFilter::FitNoiseCovariances(c, k, 1e-9, &q_hat, &r_hat);
  EXPECT_NEAR(q_hat, q, 1e-9);
  EXPECT_NEAR(r_hat, r, 1e-9);
}

TEST(AdaptiveKalmanFilterTest, EstimatesNoiseOfARandomWalk) {
  // Truth is a random walk with Q = 1, measured with R = 16. Averaged over
  // the run, the online estimates land near the truth.
  AdaptiveKalmanOptions opt;
  opt.window = 60;
  AdaptiveKalmanFilter f(opt);
  TestNoise noise(3);
  double truth = 100.0, q_sum = 0, r_sum = 0;
  int count = 0;
  for (int i = 0; i < 4000; ++i) {
    truth += noise.Gaussian(1.0);
    f.Update(truth + noise.Gaussian(4.0));
    if (i >= 1000) {
      q_sum += f.process_noise_var();
      r_sum += f.measurement_noise_var();
      ++count;
    }
  }
  EXPECT_NEAR(q_sum / count, 1.0, 0.6);
  EXPECT_NEAR(r_sum / count, 16.0, 6.0);
}

TEST(AdaptiveKalmanFilterTest, RejectsBadOptions) {
  AdaptiveKalmanOptions opt;
  opt.window = 2;
  try {
    AdaptiveKalmanFilter f(opt);
    FAIL() << "expected invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("window"), std::string::npos);
  }
  opt = AdaptiveKalmanOptions();
  opt.max_lag = 0;
  EXPECT_THROW(AdaptiveKalmanFilter f(opt), std::invalid_argument);
}

TEST(AdaptiveKalmanFilterTest, ResetForgetsState) {
  AdaptiveKalmanFilter f;
  f.Update(10.0);
  f.Update(12.0);
  f.Reset();
  EXPECT_FALSE(f.initialized());
  EXPECT_DOUBLE_EQ(f.Update(99.0), 99.0);
}

}  // namespace
}  // namespace orbitcc
