#include "leo/exogenous.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "leo/handover.h"

namespace orbitcc {
namespace {

RandomDuration LogNormal(double median, double sigma, double lo, double hi) {
  RandomDuration d;
  d.kind = RandomDuration::Kind::kLogNormal;
  d.median_s = median;
  d.sigma = sigma;
  d.min_s = lo;
  d.max_s = hi;
  return d;
}

TEST(RandomDuration, LogNormalMedianMeanAndClamp) {
  const RandomDuration d = LogNormal(0.05, 0.8, 0.02, 0.5);
  Rng rng(1, StreamId::kOrbit, 0);
  const int n = 200000;
  std::vector<double> v(n);
  double sum = 0.0;
  for (double& x : v) {
    x = ToSeconds(d.Draw(rng));
    sum += x;
    ASSERT_GE(x, 0.02 - 1e-9);
    ASSERT_LE(x, 0.5 + 1e-9);
  }
  std::nth_element(v.begin(), v.begin() + n / 2, v.end());
  EXPECT_NEAR(v[n / 2], 0.05, 0.001);  // the clamp keeps the median
  // Sample mean against the numerically integrated mean of the clamped
  // variable (sd of the draw < 0.06 s: 5 standard errors ~ 0.0007 s).
  EXPECT_NEAR(sum / n, d.MeanSeconds(), 7e-4);
  // Unclamped log-normal mean exp(mu + sigma^2/2) = 0.0689 s; the clamp at
  // 20 ms raises it a little, the one at 500 ms lowers it less.
  EXPECT_NEAR(d.MeanSeconds(), 0.05 * std::exp(0.32), 0.005);
}

TEST(RandomDuration, UniformAndFixed) {
  RandomDuration u;
  u.kind = RandomDuration::Kind::kUniform;
  u.min_s = 0.1;
  u.max_s = 0.3;
  Rng rng(2, StreamId::kOrbit, 0);
  double sum = 0.0;
  for (int i = 0; i < 100000; ++i) sum += ToSeconds(u.Draw(rng));
  EXPECT_NEAR(sum / 100000, 0.2, 0.001);
  const RandomDuration f = RandomDuration::Fixed(75 * kNsPerMs);
  EXPECT_FALSE(f.random());
  EXPECT_EQ(f.Draw(rng), 75 * kNsPerMs);
}

std::string ValidationError(const RandomDuration& d) {
  try {
    d.Validate("link.outage_s");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(RandomDuration, OutOfRangeParametersNameTheKeyAndRange) {
  EXPECT_NE(ValidationError(LogNormal(0.05, 0.8, -0.1, 0.5))
                .find("link.outage_s.min_s = -0.1 is out of range; allowed: "
                      "[0, 3600] s"),
            std::string::npos);
  EXPECT_NE(ValidationError(LogNormal(0.9, 0.8, 0.02, 0.5))
                .find("link.outage_s.median_s = 0.9 is out of range"),
            std::string::npos);
  EXPECT_NE(ValidationError(LogNormal(0.05, -1.0, 0.02, 0.5))
                .find("link.outage_s.sigma = -1 is out of range; allowed: "
                      "[0, 5]"),
            std::string::npos);
  EXPECT_NE(ValidationError(LogNormal(0.05, 0.5, 0.2, 0.1))
                .find("link.outage_s.max_s"),
            std::string::npos);
  EXPECT_EQ(ValidationError(LogNormal(0.05, 0.8, 0.02, 0.5)), "");
}

// A constant 100 Mb/s, 10 ms link with a handover flag every 15 s and a
// 2 s outage starting at 40 s.
std::unique_ptr<LinkProcess> Base() {
  std::vector<LinkState> states;
  for (int k = 0; k < 10; ++k) {
    LinkState s;
    s.time = k * 15 * kNsPerSec;
    s.capacity_bps = 100e6;
    s.propagation_delay = 10 * kNsPerMs;
    s.handover = k > 0;
    states.push_back(s);
    if (k == 2) {
      LinkState down = s;
      down.time = 40 * kNsPerSec;
      down.capacity_bps = 0.0;
      down.handover = false;
      states.push_back(down);
      LinkState up = s;
      up.time = 42 * kNsPerSec;
      up.handover = false;
      states.push_back(up);
    }
  }
  return std::make_unique<ScheduleProcess>(states);
}

struct Series {
  std::vector<LinkState> states;
};

Series RunJitter(uint64_t seed, const LinkJitterParams& p, TimeNs until) {
  auto proc = MakeJitteredLink(Base(), p, seed, 3);
  Series s;
  s.states.push_back(proc->Initial());
  LinkState next;
  while (proc->Next(&next) && next.time <= until) s.states.push_back(next);
  return s;
}

TEST(LinkJitter, CapacityFactorHasMeanOneAndTheGivenCorrelation) {
  LinkJitterParams p;
  p.capacity_sigma = 0.3;
  p.interval = 100 * kNsPerMs;
  p.correlation = 0.8;
  p.redraw_at_handover = false;
  // 135 s per run (no handovers after that), many seeds: log-factors.
  double sum_f = 0.0, sum_x = 0.0, sum_xx = 0.0, sum_lag = 0.0;
  long n = 0, n_lag = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    Series s = RunJitter(seed, p, 135 * kNsPerSec);
    double prev = NAN;
    for (const LinkState& st : s.states) {
      if (st.capacity_bps <= 0.0) {
        prev = NAN;
        continue;
      }
      const double f = st.capacity_bps / 100e6;
      // x = (ln f + sigma^2/2) / sigma is the AR(1) variable.
      const double x = (std::log(f) + 0.045) / 0.3;
      sum_f += f;
      sum_x += x;
      sum_xx += x * x;
      ++n;
      if (!std::isnan(prev)) {
        sum_lag += x * prev;
        ++n_lag;
      }
      prev = x;
    }
  }
  EXPECT_NEAR(sum_f / n, 1.0, 0.02);
  EXPECT_NEAR(sum_x / n, 0.0, 0.06);
  EXPECT_NEAR(sum_xx / n, 1.0, 0.08);
  EXPECT_NEAR(sum_lag / n_lag, 0.8, 0.06);
}

TEST(LinkJitter, CeilingCapsTheFactorAtTheBaseRate) {
  // max_factor = 1: the jitter is a fade below the base (a link budget's
  // Shannon rate). The capped log-normal has mean
  // E[min(1, exp(sigma x - sigma^2/2))] = 2 Phi(-sigma/2) (x ~ N(0, 1)), and
  // sits at the ceiling with probability 1 - Phi(sigma/2).
  LinkJitterParams p;
  p.capacity_sigma = 0.3;
  p.interval = 100 * kNsPerMs;
  p.correlation = 0.0;
  p.redraw_at_handover = false;
  p.max_factor = 1.0;
  double sum_f = 0.0;
  long n = 0, at_ceiling = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    for (const LinkState& st : RunJitter(seed, p, 135 * kNsPerSec).states) {
      if (st.capacity_bps <= 0.0) continue;
      const double f = st.capacity_bps / 100e6;
      EXPECT_LE(f, 1.0);
      sum_f += f;
      at_ceiling += f == 1.0 ? 1 : 0;
      ++n;
    }
  }
  const double phi_half_sigma = 0.5 * std::erfc(-0.15 / std::sqrt(2.0));
  EXPECT_NEAR(sum_f / n, 2.0 * (1.0 - phi_half_sigma), 0.01);
  EXPECT_NEAR(static_cast<double>(at_ceiling) / n, 1.0 - phi_half_sigma, 0.02);
}

TEST(LinkJitter, OutagesStayOutagesAndDelayJumpsOnlyAtHandovers) {
  LinkJitterParams p;
  p.capacity_sigma = 0.2;
  p.handover_delay_max = 8 * kNsPerMs;
  Series s = RunJitter(11, p, 140 * kNsPerSec);
  TimeNs delay = s.states.front().propagation_delay;
  int jumps = 0;
  for (const LinkState& st : s.states) {
    if (st.time >= 40 * kNsPerSec && st.time < 42 * kNsPerSec) {
      EXPECT_EQ(st.capacity_bps, 0.0) << st.time;
    }
    EXPECT_GE(st.propagation_delay, 10 * kNsPerMs);
    EXPECT_LE(st.propagation_delay, 18 * kNsPerMs);
    if (st.propagation_delay != delay) {
      EXPECT_TRUE(st.handover) << st.time;
      ++jumps;
    }
    delay = st.propagation_delay;
  }
  EXPECT_GE(jumps, 7);  // 9 handovers, each a fresh uniform draw
}

TEST(LinkJitter, SeedDeterminesTheSeries) {
  LinkJitterParams p;
  p.capacity_sigma = 0.2;
  p.handover_delay_max = 5 * kNsPerMs;
  const Series a = RunJitter(5, p, 60 * kNsPerSec);
  const Series b = RunJitter(5, p, 60 * kNsPerSec);
  const Series c = RunJitter(6, p, 60 * kNsPerSec);
  ASSERT_EQ(a.states.size(), b.states.size());
  bool differs = false;
  for (size_t i = 0; i < a.states.size(); ++i) {
    EXPECT_EQ(a.states[i].capacity_bps, b.states[i].capacity_bps);
    EXPECT_EQ(a.states[i].propagation_delay, b.states[i].propagation_delay);
    differs |= a.states[i].capacity_bps != c.states[i].capacity_bps;
  }
  EXPECT_TRUE(differs);
}

TEST(LinkJitter, RejectsOutOfRangeParameters) {
  LinkJitterParams p;
  p.correlation = 1.0;
  try {
    p.Validate("links[0].jitter");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "links[0].jitter.correlation = 1 is out of range; allowed: "
                  "[0, 1)"),
              std::string::npos)
        << e.what();
  }
}

// Along-track link: hard handovers get random blackouts from the seed, soft
// ones none; the handover instants themselves do not move.
TEST(AlongTrackRandomOutage, HardBlackoutsFollowTheSeedSoftOnesAreZero) {
  AlongTrackLinkConfig c;
  c.geometry.spacing_km = 210.0;
  c.hard_outage_random = LogNormal(0.05, 0.8, 0.02, 0.5);
  auto blackouts = [&](uint64_t seed, std::vector<TimeNs>* starts) {
    std::vector<TimeNs> out;
    for (int sub = 0; sub < 2; ++sub) {
      c.subflow = sub;
      AlongTrackLinkProcess p(c, seed, static_cast<uint64_t>(sub));
      LinkState s = p.Initial();
      TimeNs down_since = -1;
      while (p.Next(&s) && s.time < 200 * kNsPerSec) {
        if (s.handover && s.capacity_bps == 0.0) {
          down_since = s.time;
          starts->push_back(s.time);
        } else if (s.handover) {
          starts->push_back(s.time);
          out.push_back(0);
        } else if (down_since >= 0 && s.capacity_bps > 0.0) {
          out.push_back(s.time - down_since);
          down_since = -1;
        }
      }
    }
    return out;
  };
  std::vector<TimeNs> t1, t2, t3;
  const auto a = blackouts(1, &t1);
  const auto b = blackouts(1, &t2);
  const auto d = blackouts(2, &t3);
  EXPECT_EQ(a, b);
  EXPECT_EQ(t1, t3);  // same handover instants under another seed
  EXPECT_NE(a, d);
  int hard = 0, soft = 0;
  for (TimeNs x : a) {
    if (x == 0) {
      ++soft;
    } else {
      ++hard;
      EXPECT_GE(x, 20 * kNsPerMs);
      EXPECT_LE(x, 500 * kNsPerMs);
    }
  }
  EXPECT_GT(hard, 3);
  EXPECT_GT(soft, 3);
}

}  // namespace
}  // namespace orbitcc
