#include "env/exclusive_use.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace orbitcc {
namespace {

// The guard of one env / batch / simulation: a second
// user is refused at once, and what the holder wrote is visible to the next
// holder. `counter` is a plain int touched only under the guard, so under
// ThreadSanitizer (make tsan) a wrong memory order in ExclusiveUse would be
// reported as a data race on it.
TEST(ExclusiveUseTest, OneHolderAtATimeAndItsWritesAreSeen) {
  UseFlag flag;
  int counter = 0;
  std::atomic<int> refused{0};
  constexpr int kPerThread = 20000;
  auto hammer = [&] {
    for (int k = 0; k < kPerThread; ++k) {
      try {
        ExclusiveUse use(flag, "this env");
        ++counter;
      } catch (const ConcurrentUseError&) {
        refused.fetch_add(1, std::memory_order_relaxed);
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) threads.emplace_back(hammer);
  for (auto& th : threads) th.join();
  EXPECT_EQ(counter + refused.load(), 2 * kPerThread);
  EXPECT_FALSE(flag.busy());
}

TEST(ExclusiveUseTest, SecondUserGetsTheMessageAndTheFlagIsReleased) {
  UseFlag flag;
  {
    ExclusiveUse first(flag, "this env");
    EXPECT_TRUE(flag.busy());
    try {
      ExclusiveUse second(flag, "this env");
      FAIL() << "a second holder was admitted";
    } catch (const ConcurrentUseError& e) {
      EXPECT_NE(std::string(e.what()).find("one thread at a time"),
                std::string::npos);
    }
    EXPECT_THROW(flag.CheckIdle("this env"), ConcurrentUseError);
    EXPECT_TRUE(flag.busy());  // the refused user did not release it
  }
  EXPECT_FALSE(flag.busy());
  EXPECT_NO_THROW(flag.CheckIdle("this env"));
}

}  // namespace
}  // namespace orbitcc
