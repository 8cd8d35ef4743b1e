// Shannon link budget of a ground-satellite access link.
//
// From "MACO: Mobility-Aware Congestion Control for Multipath QUIC in
// Integrated Terrestrial and LEO Satellite Networks", Eq. 2-3:
//   SNR = Pt g1 g2 / ((4 pi d / lambda)^2 N W)      (free-space path loss)
//   C   = eta W log2(1 + SNR)
// with the paper's Table 3 parameters as defaults and Pt = 35.12 dBm, the
// value the paper calibrates against its Starlink measurements. Note: with the
// Table 3 values exactly, 35.12 dBm gives 198.6 Mb/s at 550 km rather than the
// 200 Mb/s the paper quotes (200 Mb/s needs 35.46 dBm); we keep the printed
// Pt so scenarios match the paper's inputs.
#pragma once

#include "sim/param_spec.h"

namespace orbitcc {

struct LinkBudget {
  double tx_power_dbm = 35.12;          // Pt (MACO Sec. 6.2)
  double tx_gain_dbi = 37.7;            // g1 (Table 3)
  double rx_gain_dbi = 37.1;            // g2 (Table 3)
  double wavelength_m = 0.086;          // lambda (Table 3, ~3.5 GHz)
  double noise_psd_w_per_hz = 1.6e-20;  // N (Table 3)
  double efficiency = 0.98;             // eta (Table 3)
  double bandwidth_hz = 12.5e6;         // W (Table 3)

  // Free-space path loss (4 pi d / lambda)^2 in dB.
  double FreeSpacePathLossDb(double distance_km) const;
  double Snr(double distance_km) const;  // linear
  double SnrDb(double distance_km) const;
  // Access-link capacity (bit/s) at slant range `distance_km`.
  double CapacityBps(double distance_km) const;
  // Transmit power (dBm) that yields `capacity_bps` at `distance_km`: the
  // paper's calibration step run backwards.
  double TxPowerDbmFor(double capacity_bps, double distance_km) const;
  // Throws std::invalid_argument "link_budget.<field> = <v> is out of
  // range; allowed: ..." against LinkBudgetParams().
  void Validate() const;
};

// The link budget's settings (a process's "budget" mapping): defaults are
// LinkBudget{}'s, ranges physical (link_budget.cc). Declared once: the spec
// reader reads through these rows and Validate() checks against them.
const ParamTable& LinkBudgetParams();

}  // namespace orbitcc
