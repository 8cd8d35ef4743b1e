#include "spec/value.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "engine/simulation.h"
#include "sim/error_of.h"
#include "spec/spec_reader.h"
#include "spec/summary_value.h"

namespace orbitcc {
namespace {

std::string JsonError(const std::string& text) {
  return ErrorOf([&] { ParseJson(text); });
}

std::string SpecError(const std::string& text) {
  return ErrorOf([&] { SpecFromValue(ParseJson(text)); });
}

TEST(JsonTest, ReadsEveryKind) {
  const Value v = ParseJson(
      " {\"a\": null, \"b\": true, \"c\": false, \"d\": -12, \"e\": 2.5e3,\n"
      "  \"f\": \"x\\\"\\\\\\/\\n\\u00e9\\ud83d\\ude00\", \"g\": [1, [], {}],"
      " \"h\": 0.0} ");
  ASSERT_TRUE(v.is_map());
  ASSERT_EQ(v.members().size(), 8u);
  EXPECT_EQ(v.members()[0].first, "a");  // insertion order
  EXPECT_TRUE(v.Find("a")->is_null());
  EXPECT_TRUE(v.Find("b")->is_bool());
  EXPECT_TRUE(v.Find("b")->AsBool());
  EXPECT_FALSE(v.Find("c")->AsBool());
  EXPECT_EQ(v.Find("d")->kind(), Value::Kind::kInt);
  EXPECT_EQ(v.Find("d")->AsInt(), -12);
  EXPECT_EQ(v.Find("e")->kind(), Value::Kind::kFloat);
  EXPECT_EQ(v.Find("e")->AsDouble(), 2500.0);
  EXPECT_EQ(v.Find("f")->AsString(), "x\"\\/\n\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(v.Find("g")->items().size(), 3u);
  EXPECT_TRUE(v.Find("g")->items()[1].is_list());
  EXPECT_TRUE(v.Find("g")->items()[2].is_map());
  EXPECT_EQ(v.Find("h")->kind(), Value::Kind::kFloat);  // "0.0" stays a float
  EXPECT_EQ(v.Find("zz"), nullptr);
}

TEST(JsonTest, IntegersBeyondInt64) {
  EXPECT_EQ(ParseJson("9223372036854775807").AsInt(), INT64_MAX);
  EXPECT_EQ(ParseJson("-9223372036854775808").AsInt(), INT64_MIN);
  const Value u = ParseJson("18446744073709551615");
  EXPECT_EQ(u.kind(), Value::Kind::kUInt);
  EXPECT_EQ(u.AsUInt(), UINT64_MAX);
  const Value big = ParseJson("123456789012345678901234567890");
  EXPECT_EQ(big.kind(), Value::Kind::kBigInt);
  EXPECT_TRUE(big.is_integer());
  EXPECT_DOUBLE_EQ(big.AsDouble(), 1.2345678901234568e29);
}

TEST(JsonTest, NonFiniteAsPythonWritesThem) {
  EXPECT_TRUE(std::isnan(ParseJson("NaN").AsDouble()));
  EXPECT_EQ(ParseJson("Infinity").AsDouble(), HUGE_VAL);
  EXPECT_EQ(ParseJson("-Infinity").AsDouble(), -HUGE_VAL);
  EXPECT_EQ(WriteJson(ParseJson("[NaN, Infinity, -Infinity]")),
            "[NaN, Infinity, -Infinity]");
}

TEST(JsonTest, ErrorsNameLineColumnAndOffset) {
  EXPECT_EQ(JsonError(""),
            "JSON line 1, column 1 (offset 0): unexpected end of input; "
            "expected a value");
  EXPECT_EQ(JsonError("{\"a\": 1,\n \"b\" 2}"),
            "JSON line 2, column 6 (offset 14): expected ':' after the key");
  EXPECT_EQ(JsonError("{\"a\": 1, \"a\": 2}"),
            "JSON line 1, column 10 (offset 9): duplicate key \"a\"");
  EXPECT_EQ(JsonError("[1, 2,]"),
            "JSON line 1, column 7 (offset 6): unexpected character ']'; "
            "expected a value");
  EXPECT_EQ(JsonError("{\"a\": 1} x"),
            "JSON line 1, column 10 (offset 9): unexpected text after the "
            "document");
  EXPECT_EQ(JsonError("[01]"),
            "JSON line 1, column 3 (offset 2): leading zero in a number");
  EXPECT_EQ(JsonError("[1.]"),
            "JSON line 1, column 4 (offset 3): expected a digit after '.'");
  EXPECT_EQ(JsonError("\"abc"),
            "JSON line 1, column 5 (offset 4): unterminated string");
  EXPECT_EQ(JsonError("\"a\tb\""),
            "JSON line 1, column 3 (offset 2): control character in a string "
            "(escape it)");
  EXPECT_EQ(JsonError("\"\\ud800\""),
            "JSON line 1, column 8 (offset 7): unpaired surrogate in a \\u "
            "escape");
  EXPECT_EQ(JsonError("{\"a\": tru}"),
            "JSON line 1, column 7 (offset 6): unexpected character 't'; "
            "expected a value");
  EXPECT_EQ(JsonError("// no comments\n{}"),
            "JSON line 1, column 1 (offset 0): unexpected character '/'; "
            "expected a value");
}

TEST(JsonTest, DeepNestingIsAnErrorNotACrash) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_NE(JsonError(deep).find("nested deeper than 256 levels"),
            std::string::npos);
}

TEST(JsonTest, AppendsTheSameTextAsWriteJson) {
  const std::vector<double> xs = {0.1,    50.0,     -0.0,
                                  5e-324, 1e300,    1e21,
                                  1e-7,   3.0,      0.15000000000000002,
                                  -2.5e8, 1.0 / 3.0};
  std::string out = "x";
  AppendJson(xs, &out);
  EXPECT_EQ(out, "x" + WriteJson(Value(xs)));
  EXPECT_EQ(out.substr(0, 17), "x[0.1, 50.0, -0.0");
  std::string empty;
  AppendJson(std::vector<double>{}, &empty);
  EXPECT_EQ(empty, "[]");
  Value v = Value::Map();
  v["a"] = xs;
  v["b"] = "s";
  std::string pieces = "[";
  AppendJson(v, &pieces);
  pieces += "]";
  Value list = Value::List();
  list.Append(v);
  EXPECT_EQ(pieces, WriteJson(list));
}

TEST(JsonTest, WritesFloatsThatReadBackExactly) {
  Value v = Value::Map();
  v["tenth"] = 0.1;
  v["third"] = 1.0 / 3.0;
  v["whole"] = 50.0;  // keeps a '.', so it reads back as a float
  v["tiny"] = 5e-324;
  v["big"] = 1e300;
  v["count"] = uint64_t{18446744073709551615u};
  v["neg"] = -7;
  v["text"] = "tab\there \"quoted\" \x01";
  v["none"] = Value();
  v["flag"] = true;
  v["list"] = std::vector<double>{1.5, 2.0};
  const std::string text = WriteJson(v);
  EXPECT_EQ(text,
            "{\"tenth\": 0.1, \"third\": 0.3333333333333333, \"whole\": 50.0, "
            "\"tiny\": 5e-324, \"big\": 1e+300, "
            "\"count\": 18446744073709551615, \"neg\": -7, "
            "\"text\": \"tab\\there \\\"quoted\\\" \\u0001\", \"none\": null, "
            "\"flag\": true, \"list\": [1.5, 2.0]}");
  const Value back = ParseJson(text);
  EXPECT_EQ(WriteJson(back), text);
  EXPECT_EQ(back.Find("third")->AsDouble(), 1.0 / 3.0);
  EXPECT_EQ(back.Find("whole")->kind(), Value::Kind::kFloat);
  EXPECT_EQ(back.Find("tiny")->AsDouble(), 5e-324);
}

constexpr const char* kSpec = R"({
  "seed": 3, "duration_s": 2.0, "sample_interval_s": 0.05,
  "record_series": false, "packet_bytes": 1502, "initial_window_packets": 10,
  "links": [
    {"name": "bottleneck", "capacity_mbps": 20.0, "delay_ms": 10.0,
     "buffer_packets": 50, "loss_rate": 0.001, "bottleneck": true,
     "schedule": [{"t_s": 0.0, "capacity_mbps": 20.0, "delay_ms": 10.0},
                  [1.0, 10.0, 10.0]]},
    {"name": "bottleneck_rev", "capacity_mbps": 20.0, "delay_ms": 10.0}],
  "flows": [
    {"name": "flow0", "transport": "tcp", "controller": "newreno",
     "paths": [{"forward": [0], "reverse": [1]}], "start_s": 0.0,
     "controller_params": {"ssthresh_from_pipe": 1.0},
     "transport_params": {"header_bytes": 54, "ack_bytes": 54}}]
})";

TEST(SpecReaderTest, ReadsAJsonSpec) {
  const SimulationSpec spec = SpecFromValue(ParseJson(kSpec));
  EXPECT_EQ(spec.seed, 3u);
  EXPECT_EQ(spec.duration, TimeNs{2000000000});
  EXPECT_EQ(spec.sample_interval, TimeNs{50000000});
  EXPECT_FALSE(spec.record_series);
  EXPECT_EQ(spec.packet_bytes, 1502u);
  ASSERT_EQ(spec.links.size(), 2u);
  EXPECT_EQ(spec.links[0].buffer_packets, 50u);
  EXPECT_TRUE(spec.links[0].bottleneck);
  ASSERT_EQ(spec.links[0].schedule.size(), 2u);
  EXPECT_EQ(spec.links[0].schedule[1].capacity_bps, 10e6);
  ASSERT_EQ(spec.flows.size(), 1u);
  EXPECT_EQ(spec.flows[0].transport, "tcp");
  EXPECT_EQ(spec.flows[0].controller_params.at("ssthresh_from_pipe"), 1.0);
  EXPECT_EQ(spec.flows[0].transport_params.at("ack_bytes"), 54.0);
  EXPECT_EQ(spec.flows[0].paths[0].forward, std::vector<int>{0});
}

TEST(SpecReaderTest, ErrorsNameTheField) {
  EXPECT_EQ(SpecError("[]"), "spec: must be a mapping");
  // Each message says what is allowed (the field's table row).
  EXPECT_EQ(SpecError(R"({"duration_s": "10"})"),
            "duration_s = '10' must be a number (got str); allowed: (0, "
            "1000000] s");
  EXPECT_EQ(SpecError(R"({"seed": 1.5})"),
            "seed = 1.5 must be an integer (got float); allowed: [0, "
            "9223372036854775808)");
  EXPECT_EQ(SpecError(R"({"seed": 18446744073709551615})"),
            "seed = 18446744073709551615 is out of range; allowed: [0, "
            "9223372036854775808)");
  EXPECT_EQ(SpecError(R"({"record_series": 1})"),
            "record_series = 1 must be true or false (got int)");
  EXPECT_EQ(SpecError(R"({"links": [{"delay_ms": NaN}]})"),
            "links[0].delay_ms = nan is out of range; allowed: [0, 100000] "
            "ms");
  EXPECT_EQ(SpecError(R"({"flows": [{"paths": [{"forward": [0.5]}]}]})"),
            "flows[0].paths[0].forward[0]: must be an integer");
  EXPECT_EQ(SpecError(R"({"flows": [{"controller_params": {"beta": true}}]})"),
            "flows[0].controller_params.beta: must be a finite number");
  const std::string unknown = SpecError(R"({"sedd": 1})");
  EXPECT_EQ(unknown.rfind("sedd: unknown key; allowed: ", 0), 0u) << unknown;
  // A null field is an absent one (as None is in Python).
  EXPECT_EQ(SpecError(R"({"seed": null})"), "");
}

// The same spec run from JSON text, and from that spec written and read
// again, gives the same summary (the reader and writer lose nothing).
TEST(SpecReaderTest, RoundTripRunsIdentically) {
  auto run = [](const Value& doc) {
    Simulation sim(SpecFromValue(doc));
    sim.Run();
    return WriteJson(SummaryToValue(sim.Summarize()));
  };
  const Value doc = ParseJson(kSpec);
  const Value again = ParseJson(WriteJson(doc));
  EXPECT_EQ(WriteJson(again), WriteJson(doc));
  const std::string first = run(doc);
  EXPECT_EQ(run(again), first);
  const Value summary = ParseJson(first);
  const Value& flow = summary.Find("flows")->items().at(0);
  EXPECT_GT(flow.Find("goodput_mbps")->AsDouble(), 1.0);
  EXPECT_EQ(flow.Find("completion_time_s")->kind(), Value::Kind::kNull);
}

}  // namespace
}  // namespace orbitcc
