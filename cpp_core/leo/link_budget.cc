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

// Physical ranges (docs/robustness.md): 1 uW .. 1 MW of transmit power,
// antenna gains of -20 .. 80 dBi, 30 MHz .. 3 THz carriers, a noise density
// between 1e-25 W/Hz (far below kT at 1 K) and 1e-10 W/Hz, 1 kHz .. 100 GHz
// of bandwidth. Outside them the Shannon capacity is not a radio link.
void LinkBudget::Validate() const {
  LeoRequire(tx_power_dbm >= -30.0 && tx_power_dbm <= 90.0,
             "link_budget.tx_power_dbm", "in [-30, 90] dBm", tx_power_dbm);
  LeoRequire(tx_gain_dbi >= -20.0 && tx_gain_dbi <= 80.0,
             "link_budget.tx_gain_dbi", "in [-20, 80] dBi", tx_gain_dbi);
  LeoRequire(rx_gain_dbi >= -20.0 && rx_gain_dbi <= 80.0,
             "link_budget.rx_gain_dbi", "in [-20, 80] dBi", rx_gain_dbi);
  LeoRequire(wavelength_m >= 1e-4 && wavelength_m <= 10.0,
             "link_budget.wavelength_m", "in [1e-4, 10] m", wavelength_m);
  LeoRequire(noise_psd_w_per_hz >= 1e-25 && noise_psd_w_per_hz <= 1e-10,
             "link_budget.noise_psd_w_per_hz", "in [1e-25, 1e-10] W/Hz",
             noise_psd_w_per_hz);
  LeoRequire(efficiency > 0.0 && efficiency <= 1.0, "link_budget.efficiency",
             "in (0, 1]", efficiency);
  LeoRequire(bandwidth_hz >= 1e3 && bandwidth_hz <= 1e11,
             "link_budget.bandwidth_hz", "in [1e3, 1e11] Hz", bandwidth_hz);
}

}  // namespace orbitcc
