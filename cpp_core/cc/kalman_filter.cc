#include "cc/kalman_filter.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "sim/format.h"

namespace orbitcc {
namespace {

void Require(bool ok, const char* name, double value, const char* range) {
  if (ok) return;
  throw std::invalid_argument(std::string("adaptive Kalman filter option '") +
                              name + "' = " + FormatNumber(value, 6) +
                              " is out of range; allowed: " + range);
}

// Sum of squared residuals of the fit c_j ~ alpha_j q + beta_j r.
double Residual(const std::vector<double>& alpha,
                const std::vector<double>& beta, const std::vector<double>& c,
                double q, double r) {
  double sum = 0.0;
  for (std::size_t j = 0; j < c.size(); ++j) {
    const double e = alpha[j] * q + beta[j] * r - c[j];
    sum += e * e;
  }
  return sum;
}

// argmin_u sum_j (w_j u - t_j)^2, clamped to >= lo.
double Fit1d(const std::vector<double>& w, const std::vector<double>& t,
             double lo) {
  double ww = 0.0, wt = 0.0;
  for (std::size_t j = 0; j < w.size(); ++j) {
    ww += w[j] * w[j];
    wt += w[j] * t[j];
  }
  if (ww <= 0.0) return lo;
  return std::max(lo, wt / ww);
}

}  // namespace

AdaptiveKalmanFilter::AdaptiveKalmanFilter(const AdaptiveKalmanOptions& o)
    : opt_(o) {
  Require(o.window >= 4 && o.window <= 100000, "window", o.window,
          "[4, 100000]");
  Require(o.max_lag >= 1 && o.max_lag < o.window, "max_lag", o.max_lag,
          "[1, window - 1]");
  Require(o.min_samples >= o.max_lag + 2 && o.min_samples <= o.window,
          "min_samples", o.min_samples, "[max_lag + 2, window]");
  Require(o.min_variance > 0.0 && std::isfinite(o.min_variance), "min_variance",
          o.min_variance, "(0, inf)");
  Require(o.relative_initial_std > 0.0 && std::isfinite(o.relative_initial_std),
          "relative_initial_std", o.relative_initial_std, "(0, inf)");
  Require(std::isfinite(o.initial_process_var), "initial_process_var",
          o.initial_process_var, "finite (<= 0 means derive from y0)");
  Require(std::isfinite(o.initial_measurement_var), "initial_measurement_var",
          o.initial_measurement_var, "finite (<= 0 means derive from y0)");
  innovations_.assign(static_cast<std::size_t>(o.window), 0.0);
  gains_.assign(static_cast<std::size_t>(o.window), 0.0);
  autocov_.assign(static_cast<std::size_t>(o.max_lag) + 1, 0.0);
}

void AdaptiveKalmanFilter::Reset() {
  initialized_ = false;
  x_ = p_ = k_ = q_ = r_ = last_innovation_ = 0.0;
  updates_ = 0;
  ring_next_ = ring_size_ = 0;
}

void AdaptiveKalmanFilter::InflateUncertainty(double error_var) {
  if (!initialized_) return;
  p_ = std::max(error_var, opt_.min_variance);
  ring_next_ = ring_size_ = 0;  // old innovations describe another regime
}

double AdaptiveKalmanFilter::Update(double y) {
  ++updates_;
  if (!initialized_) {
    const double scale = opt_.relative_initial_std * std::fabs(y);
    const double derived = std::max(scale * scale, opt_.min_variance);
    q_ = opt_.initial_process_var > 0.0 ? opt_.initial_process_var : derived;
    r_ = opt_.initial_measurement_var > 0.0 ? opt_.initial_measurement_var
                                            : derived;
    x_ = y;
    p_ = r_;  // the state is as uncertain as the one measurement it came from
    k_ = 1.0;
    last_innovation_ = 0.0;
    initialized_ = true;
    return x_;
  }
  // Prediction (Eq. 5-6): the random walk keeps the mean, adds Q.
  const double x_prior = x_;
  const double p_prior = p_ + q_;
  // Correction (Eq. 7-10).
  k_ = p_prior / (p_prior + r_);
  const double innovation = y - x_prior;
  x_ = x_prior + k_ * innovation;
  p_ = p_prior - k_ * p_prior;
  last_innovation_ = innovation;

  innovations_[ring_next_] = innovation;
  gains_[ring_next_] = k_;
  ring_next_ = (ring_next_ + 1) % innovations_.size();
  ring_size_ = std::min(ring_size_ + 1, innovations_.size());
  if (opt_.adaptive &&
      ring_size_ >= static_cast<std::size_t>(opt_.min_samples)) {
    AdaptCovariances();
  }
  return x_;
}

void AdaptiveKalmanFilter::AdaptCovariances() {
  const std::size_t n = ring_size_;
  const std::size_t cap = innovations_.size();
  // Oldest element of the ring is at (ring_next_ - n) mod cap.
  const std::size_t start = (ring_next_ + cap - n) % cap;
  auto at = [&](std::size_t i) { return innovations_[(start + i) % cap]; };
  double mean_gain = 0.0;
  for (std::size_t i = 0; i < n; ++i) mean_gain += gains_[(start + i) % cap];
  mean_gain /= static_cast<double>(n);
  for (std::size_t j = 0; j < autocov_.size(); ++j) {
    double sum = 0.0;
    for (std::size_t i = 0; i + j < n; ++i) sum += at(i + j) * at(i);
    autocov_[j] = sum / static_cast<double>(n - j);
  }
  FitNoiseCovariances(autocov_, mean_gain, opt_.min_variance, &q_, &r_);
}

void AdaptiveKalmanFilter::FitNoiseCovariances(const std::vector<double>& c,
                                               double k, double min_var,
                                               double* q, double* r) {
  // Keep the design matrix well conditioned: a gain of exactly 0 would make
  // the Q column infinite (an infinitely confident filter cannot see Q).
  k = std::clamp(k, 1e-3, 1.0);
  const double a = 1.0 / (k * (2.0 - k));
  const double b = k / (2.0 - k);
  std::vector<double> alpha(c.size()), beta(c.size());
  alpha[0] = a;
  beta[0] = b + 1.0;
  double decay = 1.0;  // (1-K)^(j-1)
  for (std::size_t j = 1; j < c.size(); ++j) {
    alpha[j] = decay * (1.0 - k) * a;
    beta[j] = decay * ((1.0 - k) * b - k);
    decay *= (1.0 - k);
  }
  // Unconstrained least squares via the 2x2 normal equations.
  double saa = 0, sab = 0, sbb = 0, sac = 0, sbc = 0;
  for (std::size_t j = 0; j < c.size(); ++j) {
    saa += alpha[j] * alpha[j];
    sab += alpha[j] * beta[j];
    sbb += beta[j] * beta[j];
    sac += alpha[j] * c[j];
    sbc += beta[j] * c[j];
  }
  double best_q = min_var, best_r = min_var;
  double best = Residual(alpha, beta, c, best_q, best_r);
  auto consider = [&](double cq, double cr) {
    if (!(cq >= min_var && cr >= min_var)) return;
    const double res = Residual(alpha, beta, c, cq, cr);
    if (res < best) {
      best = res;
      best_q = cq;
      best_r = cr;
    }
  };
  const double det = saa * sbb - sab * sab;
  if (std::fabs(det) > 1e-12 * saa * sbb) {
    consider((sbb * sac - sab * sbc) / det, (saa * sbc - sab * sac) / det);
  }
  // Boundary solutions of the non-negativity constrained problem.
  {
    std::vector<double> t(c.size());
    for (std::size_t j = 0; j < c.size(); ++j) t[j] = c[j] - alpha[j] * min_var;
    consider(min_var, Fit1d(beta, t, min_var));
    for (std::size_t j = 0; j < c.size(); ++j) t[j] = c[j] - beta[j] * min_var;
    consider(Fit1d(alpha, t, min_var), min_var);
  }
  *q = best_q;
  *r = best_r;
}

}  // namespace orbitcc
