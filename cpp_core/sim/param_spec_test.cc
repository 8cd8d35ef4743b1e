#include "sim/param_spec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace orbitcc {
namespace {

std::string Error(const ParamSpec& spec, double value) {
  try {
    spec.Check("x.", value);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ParamSpecTest, FormatsNumbersShortestRoundTrip) {
  EXPECT_EQ(FormatNumber(0.1), "0.1");
  EXPECT_EQ(FormatNumber(1000.0), "1000");
  EXPECT_EQ(FormatNumber(1e-6), "1e-06");
  EXPECT_EQ(FormatNumber(1e12), "1e+12");
  EXPECT_EQ(FormatNumber(1073741824.0), "1073741824");
  const double high_gain = 2.0 / std::log(2.0);
  EXPECT_EQ(std::stod(FormatNumber(high_gain)), high_gain);
}

TEST(ParamSpecTest, RealRangeClosedAndOpen) {
  const ParamSpec closed = RealParam("a", 1.0, 0.0, 2.0, "", "help");
  EXPECT_EQ(closed.RangeText(), "[0, 2]");
  EXPECT_EQ(Error(closed, 0.0), "");
  EXPECT_EQ(Error(closed, 2.0), "");
  EXPECT_EQ(Error(closed, 2.5), "x.a = 2.5 is out of range; allowed: [0, 2]");
  EXPECT_NE(Error(closed, std::nan("")), "");  // NaN is never in range
  const ParamSpec open = PositiveParam("b", 1.0, 0.0, 2.0, "ms", "help");
  EXPECT_EQ(open.RangeText(), "(0, 2]");
  EXPECT_EQ(Error(open, 0.0), "x.b = 0 is out of range; allowed: (0, 2] ms");
  EXPECT_EQ(Error(open, 1e-300), "");
}

// The row kinds of links and scenarios: an upper bound that is
// excluded, an outage value besides the range, null with a meaning, and
// integer bounds printed exactly.
TEST(ParamSpecTest, OpenTopZeroNullAndExactIntegerBounds) {
  const ParamSpec loss = HiOpen(RealParam("loss", 0.0, 0.0, 1.0, "", "help"));
  EXPECT_EQ(loss.RangeText(), "[0, 1)");
  EXPECT_TRUE(loss.Allows(0.999999));
  EXPECT_FALSE(loss.Allows(1.0));
  ParamSpec capacity = RealParam("c", 100.0, 0.001, 1e6, "Mb/s", "help");
  capacity.zero_ok = true;
  EXPECT_EQ(capacity.RangeText(), "0 | [0.001, 1000000]");
  EXPECT_TRUE(capacity.Allows(0.0));
  EXPECT_EQ(Error(capacity, 0.0005),
            "x.c = 0.0005 is out of range; allowed: 0 | [0.001, 1000000] Mb/s");
  const ParamSpec buffer = NullDefault(
      OrNull(IntParam("b", 0, 0, 1e9, "packets", "help"), "from buffer_bdp"));
  EXPECT_EQ(buffer.RangeText(), "[0, 1000000000] | null (from buffer_bdp)");
  EXPECT_EQ(buffer.DefaultText(), "null");
  const ParamSpec seed =
      HiOpen(IntParam("seed", 0, 0, 9223372036854775808.0, "", "help"));
  EXPECT_EQ(seed.RangeText(), "[0, 9223372036854775808)");
  const ParamSpec like = Like(capacity, "rate", 5.0, "another help");
  EXPECT_EQ(like.RangeText(), capacity.RangeText());
  EXPECT_EQ(like.DefaultText(), "5");
  EXPECT_EQ(NamesListParam("n", {"a"}, {"a", "b"}, "h").DefaultText(), "[a]");
}

TEST(ParamSpecTest, IntegersFlagsAndChoices) {
  const ParamSpec n = IntParam("n", 3, 1, 10, "packets", "help");
  EXPECT_EQ(Error(n, 4.0), "");
  EXPECT_EQ(Error(n, 4.5), "x.n = 4.5 must be an integer");
  EXPECT_EQ(Error(n, 11.0),
            "x.n = 11 is out of range; allowed: [1, 10] packets");
  const ParamSpec f = FlagParam("f", true, "help");
  EXPECT_EQ(f.DefaultText(), "1");
  EXPECT_EQ(Error(f, 0.0), "");
  EXPECT_EQ(Error(f, 0.5), "x.f = 0.5 is out of range; allowed: 0 | 1");
  const ParamSpec c = ChoiceParam("c", "b", {"a", "b"}, "help");
  EXPECT_EQ(c.DefaultText(), "b");
  EXPECT_EQ(c.CheckChoice("x.", "a"), "a");
  EXPECT_THROW(c.CheckChoice("x.", "z"), std::invalid_argument);
  try {
    c.CheckChoice("x.", "z");
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "x.c = 'z' is unknown; allowed: a, b");
  }
}

TEST(ParamSpecTest, DerivedDefaultsAndLookup) {
  const ParamTable table = {
      RealParam("g", 2.0, 1.0, 10.0, "", "gain"),
      DerivedDefault(RealParam("d", 0.5, 0.01, 1.0, "", "drain"), "1 / g"),
  };
  EXPECT_EQ(FindParam(table, "d").DefaultText(), "1 / g");
  EXPECT_EQ(FindParam(table, "g").DefaultText(), "2");
  EXPECT_EQ(ParamNames(table), "g, d");
  EXPECT_THROW(FindParam(table, "missing"), std::logic_error);
}

}  // namespace
}  // namespace orbitcc
