// Scalar adaptive Kalman filter (AKF) used by MACO to smooth its network-side
// capacity measurements.
//
// Reference: "MACO: Mobility-Aware Congestion Control for Multipath QUIC in
// Integrated Terrestrial and LEO Satellite Networks" (IEEE TMC 2024),
// Section 4.1.2, Eq. 5-10 and footnote 1.
//
// Model (random walk observed in white noise), in the paper's notation:
//   prediction   C^-_t = C^+_{t-1}            (Eq. 5; delta has zero mean)
//                Z^-_t = Z^+_{t-1} + Q        (Eq. 6)
//   measurement  y_t   = C_t + v_t, v ~ N(0,R) (Eq. 7)
//   gain         K_t   = Z^-_t / (Z^-_t + R)   (Eq. 8)
//   correction   C^+_t = C^-_t + K_t (y_t - C^-_t)   (Eq. 9)
//                Z^+_t = Z^-_t - K_t Z^-_t           (Eq. 10)
//
// Q and R are unknown and drift with the network, so (footnote 1) they are
// estimated online by least squares on the autocorrelation of the innovation
// sequence e_t = y_t - C^-_t (the autocovariance least-squares idea the paper
// cites). For the scalar random walk with a gain K held (approximately)
// constant, the innovations are a stationary process with
//   C_0 = E[e_t^2]       = a Q + (b + 1) R
//   C_j = E[e_{t+j} e_t] = (1-K)^(j-1) [ (1-K) a Q + ((1-K) b - K) R ], j >= 1
// where a = 1 / (K (2 - K)) and b = K / (2 - K) (P = a Q + b R is the steady
// prediction-error variance). Sample autocovariances over a sliding window
// of innovations, lags 0..max_lag, give an over-determined linear system in
// (Q, R) that is solved by least squares subject to Q, R >= min_variance.
//
// Choices the paper leaves open (documented in docs/controllers.md):
//  * The gain varies while the filter adapts; the fit uses the mean gain of
//    the window (the steady-gain assumption of the method holds only
//    approximately while adapting).
//  * Products are NOT mean-centred: a persistent bias in the innovations
//    (the truth stepped) shows up as positive correlation at every lag, which
//    the fit attributes to process noise Q, raising the gain so the filter
//    catches up. Centring would hide exactly that signal.
//  * Window of 30 innovations, lags 0..2 by default: the sample
//    autocovariances have relative error ~ 1/sqrt(window), so fewer than ~20
//    samples is too noisy; MACO measures about once per round trip, so 30
//    samples span ~3 s at a 100 ms RTT, well inside one 15 s handover epoch.
//    Three lags over-determine the two unknowns, as least squares needs.
#pragma once

#include <cstddef>
#include <vector>

namespace orbitcc {

struct AdaptiveKalmanOptions {
  // Q and R used until enough innovations are collected (or always, when
  // `adaptive` is false). Values <= 0 mean "derive from the first
  // measurement y0" as (relative_initial_std * |y0|)^2.
  double initial_process_var = -1.0;
  double initial_measurement_var = -1.0;
  double relative_initial_std = 0.1;
  bool adaptive = true;
  int window = 30;             // innovations in the covariance estimate
  int max_lag = 2;             // autocovariance lags 0..max_lag
  int min_samples = 10;        // innovations needed before adapting Q and R
  double min_variance = 1e-9;  // floor for Q and R (absolute, squared units)
};

class AdaptiveKalmanFilter {
 public:
  // Throws std::invalid_argument for a bad option (naming it and its range).
  explicit AdaptiveKalmanFilter(const AdaptiveKalmanOptions& options = {});

  // Forgets everything: the next Update() re-initialises from its measurement.
  void Reset();
  // Keeps the estimate but forgets the covariance history and declares the
  // estimate uncertain (Z = `error_var`), e.g. after a route change.
  void InflateUncertainty(double error_var);

  // One prediction + correction step (Eq. 5-10) with measurement y; returns
  // the posterior estimate. The first call initialises the state to y.
  double Update(double y);

  bool initialized() const { return initialized_; }
  double estimate() const { return x_; }
  double error_variance() const { return p_; }  // Z^+ of Eq. 10
  double gain() const { return k_; }            // K of Eq. 8 (last step)
  double process_noise_var() const { return q_; }
  double measurement_noise_var() const { return r_; }
  double last_innovation() const { return last_innovation_; }
  std::size_t updates() const { return updates_; }

  // The least-squares estimate of (Q, R) from innovation autocovariances
  // `c[0..L]` under mean gain `k`, clamped to >= min_var. Exposed for tests.
  static void FitNoiseCovariances(const std::vector<double>& c, double k,
                                  double min_var, double* q, double* r);

 private:
  void AdaptCovariances();

  AdaptiveKalmanOptions opt_;
  bool initialized_ = false;
  double x_ = 0.0;
  double p_ = 0.0;
  double k_ = 0.0;
  double q_ = 0.0;
  double r_ = 0.0;
  double last_innovation_ = 0.0;
  std::size_t updates_ = 0;
  // Ring buffers of the last `window` innovations and the gains used.
  std::vector<double> innovations_;
  std::vector<double> gains_;
  std::size_t ring_next_ = 0;
  std::size_t ring_size_ = 0;
  std::vector<double> autocov_;  // scratch, reused
};

}  // namespace orbitcc
