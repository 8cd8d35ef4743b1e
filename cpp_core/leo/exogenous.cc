#include "leo/exogenous.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "leo/channel_common.h"

namespace orbitcc {
namespace {

constexpr double kPiD = 3.14159265358979323846;
// Longest blackout or delay jump any distribution may produce: an hour.
constexpr double kMaxDurationS = 3600.0;

// Validation formats nothing unless it fails (issue 24, item 9): the field
// name and the range are built only on the way to the exception.
[[noreturn]] void OutOfRange(const std::string& field, const std::string& range,
                             double value) {
  throw std::invalid_argument(field + " = " + FormatDouble(value) +
                              " is out of range; allowed: " + range);
}

void Require(bool ok, const std::string& where, const char* suffix,
             const char* range, double value) {
  if (!ok) OutOfRange(where + suffix, range, value);
}

std::string DurationRange() {
  return "[0, " + FormatDouble(kMaxDurationS) + "] s";
}

}  // namespace

double StandardNormal(Rng& rng) {
  const double u1 = rng.UniformOpenZero();
  const double u2 = rng.Uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPiD * u2);
}

RandomDuration RandomDuration::Fixed(TimeNs value) {
  RandomDuration d;
  d.fixed_s = ToSeconds(value);
  return d;
}

TimeNs RandomDuration::Draw(Rng& rng) const {
  double s = fixed_s;
  switch (kind) {
    case Kind::kFixed:
      break;
    case Kind::kUniform:
      s = min_s + (max_s - min_s) * rng.Uniform();
      break;
    case Kind::kLogNormal:
      s = std::clamp(median_s * std::exp(sigma * StandardNormal(rng)), min_s,
                     max_s);
      break;
  }
  return static_cast<TimeNs>(std::llround(s * 1e9));
}

double RandomDuration::MeanSeconds() const {
  switch (kind) {
    case Kind::kFixed:
      return fixed_s;
    case Kind::kUniform:
      return 0.5 * (min_s + max_s);
    case Kind::kLogNormal: {
      // E[clamp(median * exp(sigma Z))] by the midpoint rule on z in [-9, 9].
      const int n = 20000;
      const double a = -9.0, h = 18.0 / n;
      double sum = 0.0;
      for (int i = 0; i < n; ++i) {
        const double z = a + (i + 0.5) * h;
        const double phi = std::exp(-0.5 * z * z) / std::sqrt(2.0 * kPiD);
        sum += std::clamp(median_s * std::exp(sigma * z), min_s, max_s) * phi;
      }
      return sum * h;
    }
  }
  return fixed_s;
}

void RandomDuration::Validate(const std::string& where) const {
  switch (kind) {
    case Kind::kFixed:
      if (!(std::isfinite(fixed_s) && fixed_s >= 0.0 &&
            fixed_s <= kMaxDurationS)) {
        OutOfRange(where, DurationRange(), fixed_s);
      }
      return;
    case Kind::kUniform:
    case Kind::kLogNormal:
      if (!(std::isfinite(min_s) && min_s >= 0.0 && min_s <= kMaxDurationS)) {
        OutOfRange(where + ".min_s", DurationRange(), min_s);
      }
      if (!(std::isfinite(max_s) && max_s >= min_s &&
            max_s <= kMaxDurationS)) {
        OutOfRange(where + ".max_s",
                   "[min_s = " + FormatDouble(min_s) + ", " +
                       FormatDouble(kMaxDurationS) + "] s",
                   max_s);
      }
      break;
  }
  if (kind == Kind::kLogNormal) {
    if (!(std::isfinite(median_s) && median_s >= min_s && median_s <= max_s)) {
      OutOfRange(where + ".median_s",
                 "[min_s, max_s] = [" + FormatDouble(min_s) + ", " +
                     FormatDouble(max_s) + "] s",
                 median_s);
    }
    Require(std::isfinite(sigma) && sigma >= 0.0 && sigma <= 5.0, where,
            ".sigma", "[0, 5]", sigma);
  }
}

void LinkJitterParams::Validate(const std::string& where) const {
  Require(std::isfinite(capacity_sigma) && capacity_sigma >= 0.0 &&
              capacity_sigma <= 2.0,
          where, ".capacity_sigma", "[0, 2]", capacity_sigma);
  Require(std::isfinite(max_factor) && max_factor >= 0.0 && max_factor <= 100.0,
          where, ".max_factor", "[0, 100] (0: no ceiling)", max_factor);
  // At least 1 ms: a shorter resampling period only multiplies events
  // (issue 24, item 3: no accepted value may cost more than a bounded
  // multiple of the simulated work).
  Require(interval >= kNsPerMs && interval <= 3600 * kNsPerSec, where,
          ".interval_s", "[0.001, 3600] s", ToSeconds(interval));
  Require(std::isfinite(correlation) && correlation >= 0.0 &&
              correlation < 1.0,
          where, ".correlation", "[0, 1)", correlation);
  Require(handover_delay_max >= 0 && handover_delay_max <= 10 * kNsPerSec,
          where, ".handover_delay_ms", "[0, 10000] ms",
          ToSeconds(handover_delay_max) * 1e3);
}

namespace {

class JitteredLink : public LinkProcess {
 public:
  JitteredLink(std::unique_ptr<LinkProcess> base, const LinkJitterParams& p,
               uint64_t seed, uint64_t link_id)
      : base_(std::move(base)),
        p_(p),
        rng_(seed, StreamId::kChannel, JitterSubstream(link_id)) {}

  LinkState Initial() override {
    current_ = base_->Initial();
    has_pending_ = base_->Next(&pending_);
    x_ = StandardNormal(rng_);
    DrawDelay();
    next_update_ = p_.capacity_sigma > 0.0 ? p_.interval : kTimeInfinite;
    return Combine(0, current_.handover);
  }

  bool Next(LinkState* next) override {
    const TimeNs tb = has_pending_ ? pending_.time : kTimeInfinite;
    const TimeNs t = std::min(tb, next_update_);
    if (t == kTimeInfinite) return false;
    bool handover = false;
    if (t == tb) {
      current_ = pending_;
      has_pending_ = base_->Next(&pending_);
      handover = current_.handover;
      if (handover) {
        if (p_.redraw_at_handover) x_ = StandardNormal(rng_);
        DrawDelay();
      }
    }
    if (t == next_update_) {
      const double r = p_.correlation;
      x_ = r * x_ + std::sqrt(1.0 - r * r) * StandardNormal(rng_);
      next_update_ = SaturatingAdd(next_update_, p_.interval);
    }
    *next = Combine(t, handover);
    return true;
  }

 private:
  void DrawDelay() {
    if (p_.handover_delay_max > 0) {
      extra_delay_ = static_cast<TimeNs>(
          std::llround(rng_.Uniform() * static_cast<double>(p_.handover_delay_max)));
    }
  }
  LinkState Combine(TimeNs t, bool handover) const {
    LinkState s = current_;
    s.time = t;
    s.handover = handover;
    const double sg = p_.capacity_sigma;
    double factor = std::exp(sg * x_ - 0.5 * sg * sg);
    if (p_.max_factor > 0.0) factor = std::min(factor, p_.max_factor);
    s.capacity_bps = current_.capacity_bps * factor;
    s.propagation_delay = current_.propagation_delay + extra_delay_;
    return s;
  }

  std::unique_ptr<LinkProcess> base_;
  LinkJitterParams p_;
  Rng rng_;
  LinkState current_;
  LinkState pending_;
  bool has_pending_ = false;
  double x_ = 0.0;
  TimeNs extra_delay_ = 0;
  TimeNs next_update_ = kTimeInfinite;
};

}  // namespace

std::unique_ptr<LinkProcess> MakeJitteredLink(std::unique_ptr<LinkProcess> base,
                                              const LinkJitterParams& params,
                                              uint64_t seed, uint64_t link_id) {
  return std::make_unique<JitteredLink>(std::move(base), params, seed,
                                        link_id);
}

}  // namespace orbitcc
