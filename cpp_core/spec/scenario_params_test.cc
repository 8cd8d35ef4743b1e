#include "spec/scenario_params.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>

#include "engine/spec.h"
#include "sim/error_of.h"
#include "spec/dict_reader.h"
#include "spec/spec_reader.h"

namespace orbitcc {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Every table row is well formed: a unique name, a help line, and a default
// its own range allows (the default is what a preset runs with).
TEST(ScenarioParams, EveryRowHasHelpAndAnAllowedDefault) {
  std::vector<std::pair<std::string, const ParamTable*>> tables = {
      {"link", &LinkParams()},
      {"flow", &FlowParams()},
      {"simulation", &SimulationParams()}};
  for (const ScenarioKind& k : ScenarioKinds()) {
    EXPECT_FALSE(k.help.empty()) << k.name;
    tables.emplace_back(k.name, &k.params);
  }
  size_t rows = 0;
  for (const auto& [owner, table] : tables) {
    std::set<std::string> names;
    for (const ParamSpec& p : *table) {
      ++rows;
      EXPECT_TRUE(names.insert(p.name).second) << owner << "." << p.name;
      EXPECT_FALSE(p.help.empty()) << owner << "." << p.name;
      const bool null_default = p.nullable && p.default_text == "null";
      if ((p.kind == ParamKind::kReal || p.kind == ParamKind::kInteger ||
           p.kind == ParamKind::kFlag) &&
          !null_default) {
        EXPECT_TRUE(p.Allows(p.default_value)) << owner << "." << p.name;
      }
      if (p.kind == ParamKind::kChoice) {
        EXPECT_NO_THROW(p.CheckChoice(owner, p.default_text)) << p.name;
      }
    }
  }
  EXPECT_GT(rows, 200u);  // ~200 scenario settings plus links, flows, spec
}

// A preset's value becomes a link's or a flow's field; its row is declared
// as that field, so the preset accepts exactly what the core accepts.
TEST(ScenarioParams, PresetRowsShareTheCoresRanges) {
  const ParamSpec& link_capacity = FindParam(LinkParams(), "capacity_mbps");
  EXPECT_EQ(link_capacity.RangeText(), "0 | [0.001, 1000000]");
  const ParamSpec& capacity =
      FindParam(ScenarioParams("single_link"), "capacity_mbps");
  EXPECT_EQ(capacity.RangeText(), "[0.001, 1000000]");  // no outage preset
  for (const ScenarioKind& k : ScenarioKinds()) {
    for (const ParamSpec& p : k.params) {
      if (p.name == "duration_s") {
        EXPECT_EQ(p.RangeText(), "(0, 1000000]") << k.name;
      }
      if (p.name == "packet_bytes") {
        EXPECT_EQ(p.RangeText(),
                  FindParam(SimulationParams(), "packet_bytes").RangeText());
      }
      if (p.name == "buffer_packets") {
        EXPECT_EQ(p.lo, 0.0) << k.name;  // 0 is unlimited, as for a link
      }
    }
  }
  EXPECT_EQ(FindParam(SimulationParams(), "seed").RangeText(),
            "[0, 9223372036854775808)");
  EXPECT_EQ(FindParam(LinkParams(), "loss_rate").RangeText(), "[0, 1)");
}

TEST(ScenarioParams, CheckSettingsNamesTheKeyTheValueAndTheRange) {
  const ParamTable& t = ScenarioParams("single_link");
  Value v = Value::Map();
  v["capacity_mbps"] = 0.0005;
  EXPECT_EQ(ErrorOf([&] { CheckSettings(t, v, "scenario"); }),
            "scenario.capacity_mbps = 0.0005 is out of range; allowed: "
            "[0.001, 1000000] Mb/s");
  Value ok = Value::Map();
  ok["capacity_mbps"] = 0.001;
  ok["buffer_packets"] = Value();  // null: from buffer_bdp
  ok["flow_controllers"] = Value::List();
  EXPECT_EQ(ErrorOf([&] { CheckSettings(t, ok, "scenario"); }), "");
  Value typo = Value::Map();
  typo["los_rate"] = 0.01;
  const std::string e = ErrorOf([&] { CheckSettings(t, typo, "scenario"); });
  EXPECT_TRUE(Contains(e,
                       "scenario.los_rate: unknown key; did you mean "
                       "loss_rate?"))
      << e;
  EXPECT_TRUE(Contains(e, "capacity_mbps")) << e;  // the valid keys
}

TEST(ScenarioParams, ValueProblemsSayWhatIsAllowed) {
  const ParamTable& t = ScenarioParams("starlink_dual");
  Value v = Value::Map();
  v["deterministic"] = Value(int64_t{2});
  EXPECT_EQ(ErrorOf([&] { CheckSettings(t, v, "scenario"); }),
            "scenario.deterministic = 2 must be true or false (got int)");
  Value big = Value::Map();
  big["packet_bytes"] = Value(uint64_t{1} << 63);
  EXPECT_EQ(ErrorOf([&] { CheckSettings(t, big, "scenario"); }),
            "scenario.packet_bytes = 9223372036854775808 is out of range; "
            "allowed: [100, 65535] bytes");
  Value none = Value::Map();
  none["spacing_km"] = Value();
  EXPECT_TRUE(Contains(ErrorOf([&] { CheckSettings(t, none, "scenario"); }),
                       "scenario.spacing_km = null is not allowed"));
  Value tiny = Value::Map();
  tiny["spacing_km"] = 1e-308;
  EXPECT_EQ(ErrorOf([&] { CheckSettings(t, tiny, "scenario"); }),
            "scenario.spacing_km = 1e-308 is out of range; allowed: [1, "
            "40075] km");
  Value list = Value::Map();
  Value shares = Value::List();
  shares.Append(1.0);
  shares.Append(0.0);
  list["stream_shares"] = shares;
  EXPECT_EQ(ErrorOf([&] { CheckSettings(ScenarioParams("lms"), list, "s"); }),
            "s.stream_shares[1] = 0 is not allowed; allowed: each (0, "
            "1000000]");
}

// Integers are compared exactly: the largest int64 seed is allowed, one
// more is not (a double would round both to 2**63).
TEST(ScenarioParams, SeedBoundsAreExact) {
  const ParamSpec& seed = FindParam(SimulationParams(), "seed");
  EXPECT_EQ(ParamValueProblem(seed, Value(INT64_MAX)), "");
  EXPECT_EQ(ParamValueProblem(seed, Value(uint64_t{1} << 63)),
            "= 9223372036854775808 is out of range; allowed: [0, "
            "9223372036854775808)");
  EXPECT_TRUE(Contains(ParamValueProblem(seed, Value(int64_t{-1})),
                       "= -1 is out of range"));
  EXPECT_TRUE(Contains(ParamValueProblem(seed, Value(1.5)),
                       "must be an integer (got float)"));
}

// The spec reader reads links and flows through the same rows.
TEST(ScenarioParams, TheSpecReaderUsesTheRows) {
  auto spec_with_capacity = [](Value capacity) {
    Value link = Value::Map();
    link["capacity_mbps"] = std::move(capacity);
    Value links = Value::List();
    links.Append(link);
    Value spec = Value::Map();
    spec["links"] = links;
    return spec;
  };
  EXPECT_EQ(ErrorOf([&] { SpecFromValue(spec_with_capacity(1e308)); }),
            "links[0].capacity_mbps = 1e+308 is out of range; allowed: 0 | "
            "[0.001, 1000000] Mb/s");
  Value flow = Value::Map();
  flow["transport"] = "udp";
  Value flows = Value::List();
  flows.Append(flow);
  Value spec = Value::Map();
  spec["flows"] = flows;
  EXPECT_EQ(ErrorOf([&] { SpecFromValue(spec); }),
            "flows[0].transport = 'udp' is unknown; allowed: quic, tcp");
}

TEST(ScenarioParams, ClosestNamesPreferNearAndPrefixMatches) {
  const std::vector<std::string> known = {"loss_rate", "capacity_mbps",
                                          "starlink_dual", "starlink_trace"};
  EXPECT_EQ(ClosestNames("los_rate", known),
            std::vector<std::string>{"loss_rate"});
  EXPECT_EQ(ClosestNames("starlink_duel", known)[0], "starlink_dual");
  EXPECT_TRUE(ClosestNames("zzzzzz", known).empty());
}

}  // namespace
}  // namespace orbitcc
