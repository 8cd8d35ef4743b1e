#include "leo/link_budget.h"

#include <cmath>

#include "leo/geometry.h"

namespace orbitcc {
namespace {

double DbToLinear(double db) { return std::pow(10.0, db / 10.0); }

}  // namespace

double LinkBudget::FreeSpacePathLossDb(double distance_km) const {
  const double ratio = 4.0 * kPi * distance_km * 1e3 / wavelength_m;
  return 20.0 * std::log10(ratio);
}

double LinkBudget::Snr(double distance_km) const {
  const double pt_w = DbToLinear(tx_power_dbm - 30.0);
  const double ratio = 4.0 * kPi * distance_km * 1e3 / wavelength_m;
  return pt_w * DbToLinear(tx_gain_dbi) * DbToLinear(rx_gain_dbi) /
         (ratio * ratio * noise_psd_w_per_hz * bandwidth_hz);
}

double LinkBudget::SnrDb(double distance_km) const {
  return 10.0 * std::log10(Snr(distance_km));
}

double LinkBudget::CapacityBps(double distance_km) const {
  return efficiency * bandwidth_hz * std::log2(1.0 + Snr(distance_km));
}

double LinkBudget::TxPowerDbmFor(double capacity_bps,
                                 double distance_km) const {
  const double snr =
      std::exp2(capacity_bps / (efficiency * bandwidth_hz)) - 1.0;
  // SNR is proportional to Pt, so shift the current Pt by the SNR ratio.
  return tx_power_dbm + 10.0 * std::log10(snr / Snr(distance_km));
}

void LinkBudget::Validate() const {
  LeoRequire(std::isfinite(tx_power_dbm), "link_budget.tx_power_dbm", "finite",
             tx_power_dbm);
  LeoRequire(std::isfinite(tx_gain_dbi), "link_budget.tx_gain_dbi", "finite",
             tx_gain_dbi);
  LeoRequire(std::isfinite(rx_gain_dbi), "link_budget.rx_gain_dbi", "finite",
             rx_gain_dbi);
  LeoRequire(std::isfinite(wavelength_m) && wavelength_m > 0.0,
             "link_budget.wavelength_m", "> 0", wavelength_m);
  LeoRequire(std::isfinite(noise_psd_w_per_hz) && noise_psd_w_per_hz > 0.0,
             "link_budget.noise_psd_w_per_hz", "> 0", noise_psd_w_per_hz);
  LeoRequire(efficiency > 0.0 && efficiency <= 1.0, "link_budget.efficiency",
             "in (0, 1]", efficiency);
  LeoRequire(std::isfinite(bandwidth_hz) && bandwidth_hz > 0.0,
             "link_budget.bandwidth_hz", "> 0", bandwidth_hz);
}

}  // namespace orbitcc
