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
// between 1e-25 W/Hz (far below kT at 1 K) and 1e-10 W/Hz, 1 kHz .. 10 GHz
// of bandwidth. Outside them the Shannon capacity is not a radio link.
const ParamTable& LinkBudgetParams() {
  const LinkBudget b;
  static const ParamTable kRows = {
      RealParam("tx_power_dbm", b.tx_power_dbm, -30.0, 90.0, "dBm",
                "Pt, transmit power (MACO Table 3)"),
      RealParam("tx_gain_dbi", b.tx_gain_dbi, -20.0, 80.0, "dBi",
                "g1, transmit antenna gain"),
      RealParam("rx_gain_dbi", b.rx_gain_dbi, -20.0, 80.0, "dBi",
                "g2, receive antenna gain"),
      RealParam("wavelength_m", b.wavelength_m, 1e-4, 10.0, "m",
                "lambda, carrier wavelength"),
      RealParam("noise_psd_w_per_hz", b.noise_psd_w_per_hz, 1e-25, 1e-10,
                "W/Hz", "N, noise power spectral density"),
      PositiveParam("efficiency", b.efficiency, 0.0, 1.0, "",
                    "eta, share of the Shannon rate achieved"),
      RealParam("bandwidth_hz", b.bandwidth_hz, 1e3, 1e10, "Hz",
                "W, channel bandwidth (<= 10 GHz, wider than any satellite "
                "channel: the packet-level cost grows with the Shannon rate, "
                "and 1e11 Hz took 38 s for 5 simulated seconds)"),
  };
  return kRows;
}

void LinkBudget::Validate() const {
  auto check = [](const char* name, double value) {
    FindParam(LinkBudgetParams(), name).Check("link_budget.", value);
  };
  check("tx_power_dbm", tx_power_dbm);
  check("tx_gain_dbi", tx_gain_dbi);
  check("rx_gain_dbi", rx_gain_dbi);
  check("wavelength_m", wavelength_m);
  check("noise_psd_w_per_hz", noise_psd_w_per_hz);
  check("efficiency", efficiency);
  check("bandwidth_hz", bandwidth_hz);
}

}  // namespace orbitcc
