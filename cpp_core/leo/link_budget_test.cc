#include "leo/link_budget.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace orbitcc {
namespace {

TEST(LinkBudget, MacoTable3At550Km) {
  const LinkBudget b;  // Table 3 + Pt = 35.12 dBm
  // (4 pi 550 km / 0.086 m)^2 = 158.1 dB.
  EXPECT_NEAR(b.FreeSpacePathLossDb(550.0), 158.10, 0.01);
  // ~200 Mb/s per the MACO paper; 198.6 Mb/s with Table 3 values exactly.
  EXPECT_NEAR(b.CapacityBps(550.0), 198.6e6, 0.005 * 198.6e6);
  EXPECT_NEAR(b.SnrDb(550.0), 48.81, 0.02);
}

TEST(LinkBudget, CalibrationRoundTrip) {
  const LinkBudget b;
  EXPECT_NEAR(b.TxPowerDbmFor(b.CapacityBps(550.0), 550.0), 35.12, 1e-9);
  // The paper's 200 Mb/s needs 35.46 dBm with Table 3 as printed.
  EXPECT_NEAR(b.TxPowerDbmFor(200e6, 550.0), 35.46, 0.01);
}

TEST(LinkBudget, MonotoneDecreasingInDistance) {
  const LinkBudget b;
  double prev = b.CapacityBps(300.0);
  for (double d = 310.0; d <= 3000.0; d += 10.0) {
    const double c = b.CapacityBps(d);
    EXPECT_LT(c, prev) << d;
    prev = c;
  }
  // At the 25 deg Starlink mask edge (1123 km) the SNR is 6.2 dB lower.
  EXPECT_NEAR(b.SnrDb(550.0) - b.SnrDb(1123.3), 6.20, 0.01);
  EXPECT_NEAR(b.CapacityBps(1123.3) / 1e6, 173.4, 0.1);
}

TEST(LinkBudget, ScalesWithBandwidthAndEfficiency) {
  LinkBudget b;
  const double base = b.CapacityBps(550.0);
  b.efficiency = 0.49;
  EXPECT_NEAR(b.CapacityBps(550.0), base / 2, 1e-3);
}

TEST(LinkBudget, BadInput) {
  auto expect_field = [](LinkBudget b, const std::string& field) {
    try {
      b.Validate();
      FAIL() << field;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos)
          << e.what();
    }
  };
  LinkBudget b;
  b.Validate();
  b.wavelength_m = 0.0;
  expect_field(b, "wavelength_m");
  b = LinkBudget{};
  b.efficiency = 1.5;
  expect_field(b, "efficiency");
  b = LinkBudget{};
  b.bandwidth_hz = -1.0;
  expect_field(b, "bandwidth_hz");
  b = LinkBudget{};
  b.noise_psd_w_per_hz = 0.0;
  expect_field(b, "noise_psd_w_per_hz");
}

}  // namespace
}  // namespace orbitcc
