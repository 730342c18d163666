// `tensortrace comm`: collectives matched across ranks on plain lists with exact numbers
// (CommMatch): the k-th collective of a group on every rank, instance keys, unmatched
// instances, the collectives' names and bus bandwidth factors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "comm_test_util.h"
#include "test_util.h"

namespace tt {
namespace {

using analysis::CommView;
using test::Ev;
using test::Find;
using test::kMs;
using test::Rank;

TEST(CommMatch, KthCollectiveOfAGroupIsTheKthOnEveryRank) {
  // Given out of rank order: matching sorts ranks and each rank's events.
  CommView v = analysis::MatchCollectives(
      {Rank(1, {Ev("all_reduce", "0", 35, 40, 4000), Ev("all_reduce", "0", 3, 10, 4000),
                Ev("broadcast", "0", 12, 14, 1000)}),
       Rank(0, {Ev("allreduce", "0", 0, 10, 4000), Ev("broadcast", "0", 12, 14, 1000),
                Ev("allreduce", "0", 20, 40, 4000)})});
  ASSERT_EQ(v.ranks.size(), 2u);
  EXPECT_EQ(v.ranks[0].rank, 0);
  EXPECT_EQ(v.matched, 3u);
  EXPECT_EQ(v.unmatched, 0u);
  EXPECT_TRUE(v.notes.empty()) << v.notes[0];
  const auto* a = Find(v, "allreduce", 0);
  ASSERT_TRUE(a);
  EXPECT_TRUE(a->matched);
  EXPECT_EQ(a->skew, 3 * kMs);
  EXPECT_EQ(a->straggler, 1u);
  EXPECT_EQ(a->duration, 7 * kMs);  // from the last entry (3) to the last exit (10)
  ASSERT_EQ(a->arrivals.size(), 2u);
  EXPECT_EQ(a->arrivals[0].wait, 3 * kMs);
  EXPECT_EQ(a->arrivals[1].wait, 0u);
  EXPECT_EQ(a->bytes, 4000);
  // nccl-tests: algbw = bytes / time, busbw = algbw * 2(n-1)/n for an all-reduce.
  EXPECT_DOUBLE_EQ(a->algbw, 4000 / 7e-3);
  EXPECT_DOUBLE_EQ(a->busbw, 4000 / 7e-3 * 2 * 1 / 2);
  const auto* b = Find(v, "allreduce", 1);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->arrivals[0].wait, 15 * kMs);
  EXPECT_EQ(b->wait, 15 * kMs);
  EXPECT_EQ(b->straggler, 1u);
  const auto* c = Find(v, "broadcast", 0);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->skew, 0u);
  EXPECT_DOUBLE_EQ(c->busbw, c->algbw);  // factor 1 for a broadcast
  // Totals per rank and per collective.
  EXPECT_EQ(v.totals[0].wait, 18 * kMs);
  EXPECT_EQ(v.totals[1].straggler, 2u);
  EXPECT_EQ(v.totals[0].straggler, 0u);
  EXPECT_EQ(v.totals[0].calls, 3u);
  ASSERT_EQ(v.collectives.size(), 2u);
  EXPECT_EQ(v.collectives[0].collective, "allreduce");
  EXPECT_EQ(v.collectives[0].instances, 2u);
  EXPECT_EQ(v.collectives[0].bytes, 8000);
  EXPECT_EQ(v.collectives[0].time, (10 + 20 + 7 + 5) * kMs);
  EXPECT_EQ(v.collectives[0].wait, 18 * kMs);
  EXPECT_EQ(v.collectives[0].calls.at(0), 2u);
  EXPECT_EQ(v.collectives[0].calls.at(1), 2u);
}

TEST(CommMatch, InstanceKeyMatchesWhereOrderDiffers) {
  CommView v = analysis::MatchCollectives(
      {Rank(0, {Ev("all_gather", "0", 45, 50, 512, 8), Ev("all_gather", "0", 52, 60, 256, 7)}),
       Rank(1, {Ev("all_gather", "0", 41, 60, 256, 7), Ev("all_gather", "0", 61, 62, 512, 8)})});
  EXPECT_EQ(v.matched, 2u);
  EXPECT_TRUE(v.notes.empty()) << v.notes[0];
  const auto* k7 = Find(v, "allgather", 1, 7);
  ASSERT_TRUE(k7);
  EXPECT_EQ(k7->bytes, 256);
  EXPECT_FALSE(k7->bytes_differ);
  EXPECT_EQ(k7->straggler, 0u);
  EXPECT_EQ(k7->arrivals[1].wait, 11 * kMs);
  const auto* k8 = Find(v, "allgather", 0, 8);
  ASSERT_TRUE(k8);
  EXPECT_EQ(k8->straggler, 1u);
  EXPECT_EQ(k8->arrivals[0].wait, 5 * kMs);    // no more than its own time in the collective
  EXPECT_DOUBLE_EQ(k8->busbw, k8->algbw / 2);  // (n-1)/n for an all-gather
}

TEST(CommMatch, InstanceOnOneRankIsUnmatchedAndNamed) {
  auto one = Ev("all_reduce", "1", 70, 75, 64);
  one.nranks = 2;
  CommView v = analysis::MatchCollectives({Rank(0, {Ev("all_reduce", "0", 0, 10, 8), one}),
                                           Rank(1, {Ev("all_reduce", "0", 1, 10, 8)})});
  EXPECT_EQ(v.matched, 1u);
  EXPECT_EQ(v.unmatched, 1u);
  const auto* u = Find(v, "allreduce", 0);
  ASSERT_TRUE(u);
  ASSERT_EQ(v.notes.size(), 1u);
  EXPECT_NE(v.notes[0].find("1 instance(s) seen on fewer ranks"), std::string::npos) << v.notes[0];
  EXPECT_NE(v.notes[0].find("allreduce #0 of group 1 (only on rank 0)"), std::string::npos)
      << v.notes[0];
  for (const auto& in : v.instances)
    if (in.group == "1") {
      EXPECT_FALSE(in.matched);
      EXPECT_LT(in.busbw, 0);  // no bandwidth without its peer
      EXPECT_EQ(in.nranks, 2);
    }
  EXPECT_EQ(v.collectives[0].unmatched, 1u);
  EXPECT_EQ(v.totals[1].straggler, 1u);
}

TEST(CommMatch, DifferentCountsOnRanksAreNoted) {
  CommView v = analysis::MatchCollectives(
      {Rank(0, {Ev("broadcast", "", 0, 1, 8), Ev("broadcast", "", 2, 3, 8)}),
       Rank(1, {Ev("broadcast", "", 0, 1, 16)})});
  EXPECT_EQ(v.unmatched, 1u);
  ASSERT_EQ(v.notes.size(), 3u);
  EXPECT_NE(v.notes[1].find("broadcast: 2 on rank 0, 1 on rank 1, matched in order"),
            std::string::npos)
      << v.notes[1];
  EXPECT_NE(v.notes[2].find("1 instance(s) whose ranks gave different bytes"), std::string::npos);
}

TEST(CommMatch, OneRankAloneAndNamesAndFactors) {
  CommView v = analysis::MatchCollectives({Rank(-1, {Ev("all_reduce", "", 0, 1, 8)})});
  EXPECT_EQ(v.unmatched, 1u);
  EXPECT_NE(v.notes.back().find("one rank only (pid 99)"), std::string::npos) << v.notes.back();
  EXPECT_EQ(analysis::NormaliseCollective("AllReduce"), "allreduce");
  EXPECT_EQ(analysis::NormaliseCollective("_allgather_base"), "allgather");
  EXPECT_EQ(analysis::NormaliseCollective("reduce_scatter_tensor"), "reducescatter");
  EXPECT_EQ(analysis::NormaliseCollective("ncclBroadcast"), "broadcast");
  EXPECT_EQ(analysis::NormaliseCollective("barrier"), "barrier");
  EXPECT_DOUBLE_EQ(analysis::BusFactor("allreduce", 4), 1.5);
  EXPECT_DOUBLE_EQ(analysis::BusFactor("reducescatter", 4), 0.75);
  EXPECT_DOUBLE_EQ(analysis::BusFactor("reduce", 4), 1);
  EXPECT_DOUBLE_EQ(analysis::BusFactor("barrier", 4), 0);
}

// XLA instructions as JAX's profiler names them: by opcode, or by the JAX primitive.
TEST(CommMatch, XlaInstructionNamesAreCollectives) {
  EXPECT_EQ(analysis::XlaCollective("psum_invariant.7"), "allreduce");
  EXPECT_EQ(analysis::XlaCollective("psum"), "allreduce");
  EXPECT_EQ(analysis::XlaCollective("all-reduce.12"), "allreduce");
  EXPECT_EQ(analysis::XlaCollective("all-reduce-start.1"), "allreduce");
  EXPECT_EQ(analysis::XlaCollective("all-reduce-done.1"), "");
  EXPECT_EQ(analysis::XlaCollective("all_gather.3"), "allgather");
  EXPECT_EQ(analysis::XlaCollective("all-gather-start"), "allgather");
  EXPECT_EQ(analysis::XlaCollective("reduce-scatter.2"), "reducescatter");
  EXPECT_EQ(analysis::XlaCollective("psum_scatter.1"), "reducescatter");
  EXPECT_EQ(analysis::XlaCollective("all-to-all.4"), "alltoall");
  EXPECT_EQ(analysis::XlaCollective("collective-permute.5"), "collectivepermute");
  EXPECT_EQ(analysis::XlaCollective("ppermute"), "collectivepermute");
  for (const char* other : {"fusion.3", "dot.1", "copy", "wrapped_broadcast", "reduce.2", ""})
    EXPECT_EQ(analysis::XlaCollective(other), "") << other;
}

}  // namespace
}  // namespace tt
