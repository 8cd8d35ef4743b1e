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

// Validation formats nothing unless it fails (it runs per field of every
// spec): the field
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
      if (!(std::isfinite(max_s) && max_s >= min_s && max_s <= kMaxDurationS)) {
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

const ParamTable& LinkJitterTable() {
  const LinkJitterParams p;
  static const ParamTable kRows = {
      RealParam("capacity_sigma", p.capacity_sigma, 0.0, 2.0, "",
                "log-sd of the capacity factor (mean 1; 0: none)"),
      RealParam("max_factor", p.max_factor, 0.0, 100.0, "",
                "ceiling of the capacity factor (0: none)"),
      // At least 1 ms: a shorter resampling period only multiplies events
      // (no accepted value may cost more than a bounded multiple of the
      // simulated work).
      RealParam("interval_s", static_cast<double>(p.interval) / 1e9, 1e-3,
                3600.0, "s", "AR(1) update interval of the factor"),
      HiOpen(RealParam("correlation", p.correlation, 0.0, 1.0, "",
                       "AR(1) correlation per interval")),
      FlagParam("redraw_at_handover", p.redraw_at_handover,
                "draw a fresh factor at each handover"),
      RealParam("handover_delay_ms",
                static_cast<double>(p.handover_delay_max) / 1e6, 0.0, 10000.0,
                "ms",
                "extra one-way delay at a handover, uniform in [0, this]"),
  };
  return kRows;
}

void LinkJitterParams::Validate(const std::string& where) const {
  auto check = [&where](const char* name, double value) {
    FindParam(LinkJitterTable(), name).Check(where + ".", value);
  };
  check("capacity_sigma", capacity_sigma);
  check("max_factor", max_factor);
  // Divisions, not ToSeconds' product: 3600 s and 1 ms stay exact.
  check("interval_s", static_cast<double>(interval) / 1e9);
  check("correlation", correlation);
  check("handover_delay_ms", static_cast<double>(handover_delay_max) / 1e6);
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
      extra_delay_ = static_cast<TimeNs>(std::llround(
          rng_.Uniform() * static_cast<double>(p_.handover_delay_max)));
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
  return std::make_unique<JitteredLink>(std::move(base), params, seed, link_id);
}

}  // namespace orbitcc
