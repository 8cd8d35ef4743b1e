// Walks a channel's state changes for the statistics tests of the Markov
// channels. Header-only and used only by *_test.cc files.
#pragma once

#include <gtest/gtest.h>

#include "net/link_process.h"
#include "sim/time.h"

namespace orbitcc {

// Draws `changes` transitions of `channel` and calls
// visit(current state, next state, sojourn in seconds, first) for each
// sojourn; `first` marks the initial (partial) one, which sojourn means skip.
// Every change must lie strictly later than the one before.
template <typename Visit>
void WalkChanges(LinkProcess& channel, int changes, Visit visit) {
  LinkState cur = channel.Initial();
  for (int n = 0; n < changes; ++n) {
    LinkState next;
    EXPECT_TRUE(channel.Next(&next));
    EXPECT_GT(next.time, cur.time);
    visit(cur, next, ToSeconds(next.time - cur.time), n == 0);
    cur = next;
  }
}

}  // namespace orbitcc
