#include "sim/format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <sstream>
#include <string>

namespace orbitcc {
namespace {

std::string Printf(double v, int precision) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", precision, v);
  return buf;
}

std::string Stream(double v, int precision) {
  std::ostringstream out;  // what the messages used before (test code only)
  out.precision(precision);
  out << v;
  return out.str();
}

// FormatNumber prints what `ostream << v` printed (the error messages users
// and tests match on are unchanged) and what "%.*g" prints.
TEST(FormatNumberTest, MatchesStreamsAndPrintf) {
  const double specials[] = {0.0,
                             -0.0,
                             1.0,
                             0.1,
                             1e6,
                             1e-6,
                             3600.0,
                             1e308,
                             -2.5e-310,
                             1e12,
                             123456789.123,
                             std::numeric_limits<double>::max(),
                             std::numeric_limits<double>::min(),
                             std::numeric_limits<double>::denorm_min(),
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity()};
  for (int precision : {6, 12}) {
    for (double v : specials) {
      EXPECT_EQ(FormatNumber(v, precision), Stream(v, precision)) << v;
      EXPECT_EQ(FormatNumber(v, precision), Printf(v, precision)) << v;
    }
  }
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> mantissa(-10.0, 10.0);
  std::uniform_int_distribution<int> exponent(-300, 300);
  for (int i = 0; i < 20000; ++i) {
    const double v = std::ldexp(mantissa(gen), exponent(gen));
    ASSERT_EQ(FormatNumber(v, 12), Stream(v, 12)) << v;
    ASSERT_EQ(FormatNumber(v, 6), Stream(v, 6)) << v;
  }
  EXPECT_EQ(FormatNumber(std::nan(""), 12), Stream(std::nan(""), 12));
}

}  // namespace
}  // namespace orbitcc
