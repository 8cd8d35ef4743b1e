#include "sim/number_map.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>

namespace orbitcc {
namespace {

// The same operations on NumberMap and std::map leave the same contents,
// including after the backward-shift deletions that wrap around the array.
void CheckSame(NumberMap<int>& flat, const std::map<uint64_t, int>& ref) {
  ASSERT_EQ(flat.size(), ref.size());
  size_t seen = 0;
  flat.ForEach([&](uint64_t key, int value) {
    auto it = ref.find(key);
    ASSERT_NE(it, ref.end()) << key;
    EXPECT_EQ(it->second, value) << key;
    ++seen;
  });
  EXPECT_EQ(seen, ref.size());
  for (const auto& [key, value] : ref) {
    auto* slot = flat.find(key);
    ASSERT_NE(slot, nullptr) << key;
    EXPECT_EQ(slot->value, value);
  }
}

TEST(NumberMapTest, AgreesWithStdMapUnderRandomOperations) {
  for (uint64_t spread : {50ull, 1000ull, 1ull << 40}) {
    std::mt19937_64 rng(spread);
    NumberMap<int> flat;
    std::map<uint64_t, int> ref;
    for (int op = 0; op < 20000; ++op) {
      // Keys that collide on their low bits (multiples of 64) as well as
      // near-sequential ones.
      const uint64_t key =
          (rng() % 3 == 0) ? (rng() % 16) * 64 : rng() % spread;
      const int value = static_cast<int>(rng() % 1000);
      if (rng() % 3 == 0) {
        auto* slot = flat.find(key);
        ASSERT_EQ(slot != nullptr, ref.count(key) == 1) << key;
        if (slot != nullptr) {
          flat.erase(slot);
          ref.erase(key);
        }
      } else {
        flat.insert_or_assign(key, value);
        ref[key] = value;
      }
      if (op % 997 == 0) CheckSame(flat, ref);
    }
    CheckSame(flat, ref);
  }
}

TEST(NumberMapTest, MissingKeysAreNotFoundAndEmptyMapsFindNothing) {
  NumberMap<int> flat;
  EXPECT_EQ(flat.find(0), nullptr);
  EXPECT_TRUE(flat.empty());
  flat.insert_or_assign(0, 7);
  flat.insert_or_assign(64, 8);
  EXPECT_EQ(flat.find(128), nullptr);  // above every key
  EXPECT_EQ(flat.find(32), nullptr);   // within the keys' bounds, absent
  flat.erase(flat.find(0));
  ASSERT_NE(flat.find(64), nullptr);
  EXPECT_EQ(flat.find(64)->value, 8);
  EXPECT_EQ(flat.find(0), nullptr);
  EXPECT_EQ(flat.size(), 1u);
  flat.erase(flat.find(64));
  EXPECT_TRUE(flat.empty());
  flat.insert_or_assign(1000, 1);  // bounds restart from an empty map
  EXPECT_EQ(flat.find(64), nullptr);
  ASSERT_NE(flat.find(1000), nullptr);
}

// A block of consecutive numbers (a burst of losses) stays cheap to look up
// around: every key is found and a thousand absent ones are not.
TEST(NumberMapTest, ConsecutiveBlocksAreFoundAndNeighboursAreNot) {
  NumberMap<int> flat;
  for (uint64_t k = 1u << 20; k < (1u << 20) + 30000; ++k) {
    flat.insert_or_assign(k, static_cast<int>(k & 0xff));
  }
  for (uint64_t k = 1u << 20; k < (1u << 20) + 30000; ++k) {
    ASSERT_NE(flat.find(k), nullptr);
  }
  for (uint64_t k = (1u << 21); k < (1u << 21) + 1000; ++k) {
    EXPECT_EQ(flat.find(k), nullptr);
  }
  EXPECT_EQ(flat.find((1u << 20) - 1), nullptr);
}

}  // namespace
}  // namespace orbitcc
