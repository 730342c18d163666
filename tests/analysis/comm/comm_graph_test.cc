// The clocks of several recordings solved together (analysis/comm/clock_graph.h): a recording
// that shares no collective with the reference is aligned through the others, and with a
// straggler, whose late entries leave each window wide, the collectives' exits place the offset.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "comm_test_util.h"

namespace tt {
namespace {

using analysis::CommEvent;
using analysis::CommRank;
using analysis::CommView;
using test::kMs;

constexpr uint64_t kUs = 1000;

CommEvent AllReduce(const char* group, uint64_t start, uint64_t end) {
  CommEvent e = test::Ev("all_reduce", group, 0, 0, 64);
  e.start = start, e.end = end;
  return e;
}

CommRank Recording(int64_t rank, const std::string& trace, std::vector<CommEvent> events) {
  CommRank r = test::Rank(rank, std::move(events));
  r.trace = trace;
  r.clock = "boot";
  return r;
}

// A small deterministic jitter in [0, range) for instance k of rank r.
uint64_t Jitter(uint64_t k, uint64_t r, uint64_t range) {
  return ((k * 2654435761u + r * 40503u) >> 7) % range;
}

// Four ranks, one recording each; rank 3 the straggler (enters 20 ms after the others, every
// time), rank 2 entering about 3 ms after ranks 0 and 1, its clock reading `shift` ahead; all
// leave within 50 us of one moment.
std::vector<CommRank> StragglerJob(uint64_t shift) {
  std::vector<std::vector<CommEvent>> ev(4);
  for (uint64_t k = 0; k < 30; ++k) {
    uint64_t t = (100 + 100 * k) * kMs, done = t + 20 * kMs + 200 * kUs;
    for (uint64_t r = 0; r < 4; ++r) {
      uint64_t enter = t + Jitter(k, r, 300 * kUs);
      if (r == 2) enter += 3 * kMs;
      if (r == 3) enter = t + 20 * kMs;
      uint64_t exit = done + Jitter(k, r + 7, 50 * kUs);
      uint64_t d = r == 2 ? shift : 0;
      ev[r].push_back(AllReduce("0", enter + d, exit + d));
    }
  }
  std::vector<CommRank> ranks;
  for (int r = 0; r < 4; ++r) ranks.push_back(Recording(r, "r" + std::to_string(r), ev[r]));
  return ranks;
}

TEST(ClockGraph, AStragglersWideWindowsStillPlaceTheShiftByTheExits) {
  constexpr int64_t kShift = 5 * static_cast<int64_t>(kMs);
  CommView v = analysis::MatchCollectives(StragglerJob(kShift));
  ASSERT_EQ(v.clocks.size(), 4u);
  const auto& c = v.clocks[2];
  EXPECT_EQ(c.method, "causality");
  EXPECT_NEAR(static_cast<double>(c.offset_ns), -kShift, 200 * kUs) << c.low_ns << " " << c.high_ns;
  // The window (what causality guarantees) holds the truth and is honest about its width.
  EXPECT_LE(c.low_ns, -kShift);
  EXPECT_GE(c.high_ns, -kShift);
  EXPECT_GE(c.uncertainty_ns, std::llabs(c.offset_ns + kShift));
  // The window's middle, which the clock took before, is milliseconds off here.
  EXPECT_GT(std::llabs(c.low_ns / 2 + c.high_ns / 2 + kShift), static_cast<int64_t>(kMs));
  // The others share one clock with the reference: kept.
  EXPECT_EQ(v.clocks[1].method, "recorded");
  EXPECT_EQ(v.clocks[3].method, "recorded");
  // Each collective's straggler is rank 3, its wait the 20 ms (less the others' jitter).
  for (const auto& in : v.instances) {
    EXPECT_EQ(in.straggler, 3u);
    EXPECT_NEAR(static_cast<double>(in.skew), 20.0 * kMs, 400.0 * kUs);
  }
}

// r0 and r1 share all-reduces, r1 and r2 others (a subgroup); r0 and r2 share none. r2's clock
// reads 7 ms ahead: it is bounded through r1, no longer "unbounded".
TEST(ClockGraph, ARecordingLinkedOnlyThroughAnotherIsAligned) {
  std::vector<CommEvent> e0, e1, e2;
  for (uint64_t k = 0; k < 10; ++k) {
    uint64_t t = (10 + 10 * k) * kMs;
    e0.push_back(AllReduce("world01", t, t + kMs));
    e1.push_back(AllReduce("world01", t + 300 * kUs, t + kMs + 20 * kUs));
    uint64_t s = t + 5 * kMs;
    e1.push_back(AllReduce("pair12", s + 400 * kUs, s + kMs));
    e2.push_back(AllReduce("pair12", s + 7 * kMs, s + kMs + 7 * kMs + 10 * kUs));
  }
  CommView v = analysis::MatchCollectives(
      {Recording(0, "r0", e0), Recording(1, "r1", e1), Recording(2, "r2", e2)});
  ASSERT_EQ(v.clocks.size(), 3u);
  const auto& c = v.clocks[2];
  EXPECT_EQ(c.method, "causality");
  EXPECT_GT(c.constraints, 0u);
  EXPECT_NEAR(static_cast<double>(c.offset_ns), -7.0 * kMs, 50.0 * kUs);
  EXPECT_LE(c.low_ns, -7 * static_cast<int64_t>(kMs));
  EXPECT_GE(c.high_ns, -7 * static_cast<int64_t>(kMs));
  EXPECT_LT(c.uncertainty_ns, 2 * static_cast<int64_t>(kMs));  // r0-r1's window and r1-r2's
}

}  // namespace
}  // namespace tt
