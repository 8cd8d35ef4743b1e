// Inter-satellite-link (ISL) on/off channel: a 2-state continuous-time Markov
// chain alternating between "connect" (constant capacity) and "disconnect"
// (capacity 0, an outage).
//
// Model (Khan et al., "Realistic assessment of transport protocols
// performance over LEO-based communications", Section 3, Fig. 1(b), and
// Section 6.3): exponentially distributed dwell times; connect state at
// 80 Mb/s with mean 5 s; disconnect state with a mean swept from 0 to 0.5 s.
// A mean down time of 0 means the link never disconnects (the paper's
// leftmost point of Fig. 8).
//
// Arrivals during an outage. The paper does not say what happens to packets
// offered to a disconnected ISL. We default to holding them
// (drop_arrivals = false): the satellite's drop-tail queue keeps buffering and
// drains when the link returns, so any loss comes from that queue overflowing
// rather than from the outage itself. This matches the paper's observation
// that longer interruptions mainly raise end-to-end delay (Fig. 8). Set
// `drop_arrivals_when_down` to model a radio that discards traffic instead.
//
// Randomness: only Rng(seed, StreamId::kChannel, link_id); draws at
// construction and in Next() only.
#pragma once

#include <cstdint>
#include <string>

#include "leo/channel_common.h"
#include "net/link_process.h"
#include "sim/rng.h"
#include "sim/time.h"

namespace orbitcc {

struct OnOffChannelParams {
  std::string name = "isl";
  // Capacity while connected, bits per second (> 0).
  double capacity_bps = 80e6;
  // Mean connected time, seconds (> 0).
  double mean_up_s = 5.0;
  // Mean disconnected time, seconds (>= 0; 0 = never disconnects).
  double mean_down_s = 0.1;
  TimeNs propagation_delay = 0;
  double loss_rate = 0.0;  // per-packet loss while connected
  bool drop_arrivals_when_down = false;
  // State at time 0: stationary draw (up with probability
  // mean_up / (mean_up + mean_down)) or, with kFixed, `start_up`.
  ChannelStart start = ChannelStart::kStationary;
  bool start_up = true;
};

// Throws std::invalid_argument naming the field.
void ValidateOnOffParams(const OnOffChannelParams& params);

// The paper's ISL: 80 Mb/s, mean up 5 s, the given mean down time.
OnOffChannelParams IslOnOffParams(double mean_down_s);

// Long-run fraction of time connected: up / (up + down).
double OnOffAvailability(const OnOffChannelParams& params);

class OnOffChannel : public LinkProcess {
 public:
  OnOffChannel(const OnOffChannelParams& params, uint64_t seed,
               uint64_t link_id);
  OnOffChannel(const OnOffChannelParams& params, Rng rng);

  LinkState Initial() override;
  // Returns false (no further change) only when mean_down_s == 0.
  bool Next(LinkState* next) override;

  bool up() const { return up_; }
  const OnOffChannelParams& params() const { return params_; }

 private:
  LinkState MakeState(TimeNs time) const;

  OnOffChannelParams params_;
  Rng rng_;
  bool up_ = true;
  TimeNs state_end_ = kTimeInfinite;
};

}  // namespace orbitcc
