#include "spec/model_params.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "engine/domain_randomization.h"
#include "leo/geometry.h"
#include "leo/link_budget.h"
#include "sim/error_of.h"
#include "spec/spec_reader.h"

namespace orbitcc {
namespace {

// Every model table is well formed: unique names, a help line, a default
// its own range allows (what a spec that leaves the key out runs with).
TEST(ModelParams, EveryRowHasHelpAndAnAllowedDefault) {
  size_t rows = 0;
  std::set<std::string> tables;
  for (const ModelTable& t : ModelTables()) {
    EXPECT_TRUE(tables.insert(t.name).second) << t.name;
    EXPECT_FALSE(t.help.empty() || t.where.empty()) << t.name;
    std::set<std::string> names;
    for (const ParamSpec& p : t.params()) {
      ++rows;
      EXPECT_TRUE(names.insert(p.name).second) << t.name << "." << p.name;
      EXPECT_FALSE(p.help.empty()) << t.name << "." << p.name;
      if (p.kind == ParamKind::kReal || p.kind == ParamKind::kInteger ||
          p.kind == ParamKind::kFlag) {
        EXPECT_TRUE(p.Allows(p.default_value)) << t.name << "." << p.name;
      }
      if (p.kind == ParamKind::kChoice) {
        EXPECT_NO_THROW(p.CheckChoice(t.name, p.default_text)) << p.name;
      }
      for (double x : p.list_default) {
        EXPECT_TRUE(p.Allows(x)) << t.name << "." << p.name;
      }
    }
  }
  EXPECT_GT(rows, 120u);
  EXPECT_THROW(ModelParams("no_such_table"), std::invalid_argument);
}

// A preset's values (the defaults "the preset's" rows stand for) lie in the
// rows' ranges: a spec may write any of them back explicitly.
TEST(ModelParams, ShellPresetsLieInTheShellRows) {
  for (const WalkerShell& s :
       {WalkerShell::StarlinkLike(), WalkerShell::IridiumLike()}) {
    const ModelRows row{"shell"};
    EXPECT_TRUE(row("altitude_km").Allows(s.altitude_km));
    EXPECT_TRUE(row("inclination_deg").Allows(s.inclination_deg));
    EXPECT_TRUE(row("num_planes").Allows(s.num_planes));
    EXPECT_TRUE(row("sats_per_plane").Allows(s.sats_per_plane));
    EXPECT_TRUE(row("phasing").Allows(s.phasing));
    EXPECT_TRUE(row("raan_spread_deg").Allows(s.raan_spread_deg));
    EXPECT_TRUE(row("min_elevation_deg").Allows(s.min_elevation_deg));
    EXPECT_NO_THROW(s.Validate());
  }
}

// The table's defaults are the structs' (declared once: the rows read them).
TEST(ModelParams, BudgetDefaultsAreTheStructs) {
  const LinkBudget b;
  const ModelRows row{"budget"};
  EXPECT_EQ(row("tx_power_dbm").default_value, b.tx_power_dbm);
  EXPECT_EQ(row("bandwidth_hz").default_value, b.bandwidth_hz);
  EXPECT_EQ(row("noise_psd_w_per_hz").default_value, b.noise_psd_w_per_hz);
  // Decimal seconds as a user writes them, not 15e9 ns * 1e-9.
  EXPECT_EQ(ModelRow("handover", "period_s").default_value, 15.0);
  EXPECT_EQ(ModelRow("app", "mean_on_s").default_value, 0.16);
}

// ValidateRandomization checks against the same rows the reader uses.
TEST(ModelParams, RandomizeRangesAreOneDeclaration) {
  DomainRandomization dr;
  dr.capacity_scale = {0.005, 1.0};
  const std::string text = ErrorOf([&] { ValidateRandomization(dr); });
  EXPECT_EQ(text,
            "randomize.capacity_scale = [0.005, 1] is out of range; allowed: "
            "each end in " +
                FindParam(RandomizationParams(), "capacity_scale").RangeText());
  Value v = Value::Map();
  Value pair = Value::List();
  pair.Append(0.005);
  pair.Append(1.0);
  v["capacity_scale"] = pair;
  EXPECT_EQ(ErrorOf([&] { ParseRandomization(v, "randomize"); }),
            "randomize.capacity_scale[0] = 0.005 is not allowed; allowed: "
            "each [0.01, 100]");
}

}  // namespace
}  // namespace orbitcc
