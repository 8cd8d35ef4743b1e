#include "transport/tcp_options.h"

#include <cmath>
#include <stdexcept>

#include "sim/format.h"
#include "transport/transport_config.h"

namespace orbitcc {
namespace {

constexpr const char* kKeys[] = {"sack",
                                 "recovery",
                                 "timestamps",
                                 "limited_transmit",
                                 "dupthresh",
                                 "delack_count",
                                 "delack_timeout_ms",
                                 "min_rto_ms",
                                 "initial_rto_ms",
                                 "max_rto_ms",
                                 "header_bytes",
                                 "ack_bytes",
                                 "max_sack_blocks",
                                 "handshake",
                                 "rack",
                                 "quickacks"};

class Reader {
 public:
  explicit Reader(const std::map<std::string, double>& params)
      : params_(params) {}

  double Get(const std::string& key, double fallback, double lo,
             double hi) const {
    auto it = params_.find(key);
    if (it == params_.end()) return fallback;
    const double v = it->second;
    if (!(v >= lo && v <= hi)) {  // also rejects NaN
      throw std::invalid_argument(
          "transport parameter '" + key + "' = " + FormatNumber(v, 6) +
          " is out of range; allowed: [" + FormatNumber(lo, 6) + ", " +
          FormatNumber(hi, 6) + "]");
    }
    return v;
  }
  uint64_t Integer(const std::string& key, double fallback, double lo,
                   double hi) const {
    const double v = Get(key, fallback, lo, hi);
    if (v != std::floor(v)) {
      throw std::invalid_argument("transport parameter '" + key + "' = " +
                                  FormatNumber(v, 6) + " must be an integer");
    }
    return static_cast<uint64_t>(v);
  }
  bool Flag(const std::string& key, bool fallback) const {
    return Integer(key, fallback ? 1.0 : 0.0, 0.0, 1.0) == 1;
  }
  TimeNs Ms(const std::string& key, TimeNs fallback, double lo,
            double hi) const {
    return Millis(Get(key, ToSeconds(fallback) * 1e3, lo, hi));
  }

 private:
  const std::map<std::string, double>& params_;
};

}  // namespace

std::string KnownTcpParams() {
  std::string out;
  for (const char* key : kKeys) {
    if (!out.empty()) out += ", ";
    out += key;
  }
  return out;
}

void ApplyTcpParams(const std::map<std::string, double>& params,
                    TransportConfig* config) {
  for (const auto& [key, value] : params) {
    bool known = false;
    for (const char* k : kKeys) known = known || key == k;
    if (!known) {
      throw std::invalid_argument("unknown transport parameter '" + key +
                                  "'; allowed: " + KnownTcpParams());
    }
  }
  // ns-3.37 on a point-to-point link: 20 B IPv4 + 20 B TCP + 12 B timestamp
  // option (10 B padded) + 2 B PPP = 54 B per segment; a pure ACK carries the
  // same headers (its SACK option is added per ACK).
  TcpOptions defaults;
  const Reader r(params);
  TcpOptions& o = config->tcp;
  o.sack = r.Flag("sack", defaults.sack);
  o.recovery = r.Integer("recovery", 0.0, 0.0, 1.0) == 0
                   ? TcpOptions::Recovery::kPrr
                   : TcpOptions::Recovery::kNewReno;
  o.timestamps = r.Flag("timestamps", defaults.timestamps);
  o.limited_transmit = r.Flag("limited_transmit", defaults.limited_transmit);
  o.handshake = r.Flag("handshake", defaults.handshake);
  o.rack = r.Flag("rack", defaults.rack);
  o.dupthresh = static_cast<uint32_t>(
      r.Integer("dupthresh", defaults.dupthresh, 1.0, 1000.0));
  o.delack_count = static_cast<uint32_t>(
      r.Integer("delack_count", defaults.delack_count, 1.0, 1000.0));
  o.delack_timeout =
      r.Ms("delack_timeout_ms", defaults.delack_timeout, 0.0, 10000.0);
  o.quickacks = static_cast<uint32_t>(
      r.Integer("quickacks", defaults.quickacks, 0.0, 1000.0));
  o.max_sack_blocks = static_cast<uint32_t>(
      r.Integer("max_sack_blocks", defaults.max_sack_blocks, 1.0, 4.0));
  const TransportConfig base;
  config->min_rto = r.Ms("min_rto_ms", base.min_rto, 1.0, 60000.0);
  config->initial_rto = r.Ms("initial_rto_ms", base.initial_rto, 1.0, 60000.0);
  config->max_rto = r.Ms("max_rto_ms", base.max_rto, 1.0, 3600000.0);
  if (config->max_rto < config->min_rto) {
    throw std::invalid_argument(
        "transport parameter 'max_rto_ms' must be >= 'min_rto_ms'");
  }
  config->header_bytes = static_cast<uint32_t>(
      r.Integer("header_bytes", 54.0, 0.0, config->packet_bytes - 1.0));
  config->ack_bytes =
      static_cast<uint32_t>(r.Integer("ack_bytes", 54.0, 1.0, 65535.0));
}

}  // namespace orbitcc
