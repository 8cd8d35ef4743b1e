// A small two-link topology for the env tests that need a background flow
// beside the agent's: link a (index 0) and link b (2), 20 Mb/s, 10 ms one
// way, 100-packet buffers, and a 1 Gb/s reverse link (1) for the ACKs.
#pragma once

#include <memory>

#include "engine/spec.h"
#include "sim/time.h"

namespace orbitcc {

inline PathSpec Path(int forward, int reverse) {
  PathSpec p;
  p.forward = {forward};
  p.reverse = {reverse};
  return p;
}

// The agent's flow "f" (controller "external") has one subflow on link a,
// and with `second_link` a second on link b; a NewReno background flow "bg"
// writes `bg_mbps` (constant bit rate) on link a. Five simulated seconds.
inline std::shared_ptr<SimulationSpec> SharedLinkSpec(double bg_mbps,
                                                      bool second_link) {
  auto spec = std::make_shared<SimulationSpec>();
  spec->duration = 5 * kNsPerSec;
  LinkSpec a;
  a.name = "a";
  a.capacity_bps = 20e6;
  a.delay = 10 * kNsPerMs;
  a.buffer_packets = 100;
  LinkSpec b = a;
  b.name = "b";
  LinkSpec rev;
  rev.name = "rev";
  rev.capacity_bps = 1e9;
  rev.delay = 10 * kNsPerMs;
  spec->links = {a, rev, b};
  FlowSpec f;
  f.name = "f";
  f.controller = "external";
  f.paths = {Path(0, 1)};
  if (second_link) {
    f.paths.push_back(Path(2, 1));
  }
  FlowSpec bg;
  bg.name = "bg";
  bg.controller = "newreno";
  bg.background = true;
  bg.paths = {Path(0, 1)};
  bg.app.kind = AppSpec::Kind::kCbr;
  bg.app.rate_bps = bg_mbps * 1e6;
  spec->flows = {f, bg};
  return spec;
}

}  // namespace orbitcc
