// The report's communication findings tell waiting from transfer (issue 39, item 6): a rank
// that waits for a straggler is not told its communication is not overlapped, and collectives
// before the first step (the job's set-up) name no straggler; the straggler's gaps (its steps'
// host idle time) are named by the Python line the sampler saw in them.
#include <gtest/gtest.h>

#include <vector>

#include "analysis/report/findings.h"
#include "comm_test_util.h"

namespace tt {
namespace {

using analysis::CommEvent;
using analysis::CommRank;
using analysis::CommStep;
using test::kMs;

CommEvent Coll(const char* name, uint64_t start, uint64_t end) {
  CommEvent e = test::Ev(name, "0", 0, 0, 1 << 20);
  e.start = start, e.end = end;
  return e;
}

// Two ranks with 10 steps of 100 ms from 1 s, one all-reduce each, nothing overlapping it;
// rank 1 enters each `late` ms after rank 0, and both leave 1 + `transfer` ms after the last
// entry; before the steps an all-gather that rank 1 entered `setup_late` ms late.
analysis::CommView Job(uint64_t late, uint64_t setup_late, uint64_t transfer = 0) {
  std::vector<CommRank> ranks;
  for (int64_t r = 0; r < 2; ++r) {
    std::vector<CommEvent> ev = {
        Coll("all_gather", (r ? setup_late : 0) * kMs, (setup_late + 1) * kMs)};
    CommRank k;
    uint64_t comm = ev[0].end - ev[0].start;
    std::vector<CommStep> steps;
    for (uint64_t s = 0; s < 10; ++s) {
      uint64_t t = 1000 * kMs + s * 100 * kMs, enter = t + 50 * kMs + (r ? late * kMs : 0);
      uint64_t exit = t + 50 * kMs + (late + 1 + transfer) * kMs;
      ev.push_back(Coll("all_reduce", enter, exit));
      steps.push_back(
          {static_cast<int64_t>(s), t, t + 100 * kMs, 1, exit - enter, 0, exit - enter});
      comm += exit - enter;
    }
    k = test::Rank(r, ev);
    k.trace = "t", k.clock = "boot";
    k.overlap_measured = true;
    k.comm = comm;
    k.steps = steps;
    ranks.push_back(k);
  }
  return analysis::MatchCollectives(ranks);
}

std::vector<std::string> Ids(const analysis::CommView& v) {
  analysis::FindingInputs in;
  in.comm = &v;
  in.run_ns = 2000 * kMs;
  std::vector<std::string> ids;
  for (const auto& f : analysis::Findings(in)) ids.push_back(f.id);
  return ids;
}

bool Has(const std::vector<std::string>& ids, const char* id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

TEST(CommFindings, WaitingForAStragglerIsTheStragglersNotTheTransfers) {
  auto v = Job(/*late=*/20, /*setup_late=*/0);
  auto ids = Ids(v);
  EXPECT_TRUE(Has(ids, "straggler"));
  // Rank 0's 21 ms per step with nothing beside them are 20 ms of waiting and 1 ms of transfer.
  EXPECT_FALSE(Has(ids, "comm_not_overlapped"));
  // Without a straggler, 21 ms per step of transfer with nothing beside it is a finding.
  auto slow = Ids(Job(/*late=*/0, /*setup_late=*/0, /*transfer=*/20));
  EXPECT_TRUE(Has(slow, "comm_not_overlapped"));
  EXPECT_FALSE(Has(slow, "straggler"));
}

TEST(CommFindings, SetUpCollectivesBeforeTheFirstStepNameNoStraggler) {
  auto v = Job(/*late=*/0, /*setup_late=*/500);  // rank 1 joined the set-up 500 ms late
  EXPECT_FALSE(Has(Ids(v), "straggler"));
  auto steps = Job(/*late=*/20, /*setup_late=*/500);
  EXPECT_TRUE(Has(Ids(steps), "straggler"));
}

// The step view's rows of Job's two ranks: 100 ms steps, rank 1 idle `idle1` ms a step (at
// "train.py:41 (main)", and 1 ms at "train.py:50 (main)"), rank 0 1 ms.
std::vector<analysis::StepBreakdown> Steps(uint64_t idle1) {
  std::vector<analysis::StepBreakdown> out;
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t s = 0; s < 10; ++s) {
      analysis::StepBreakdown b;
      b.number = s, b.rank = r, b.process = static_cast<size_t>(r);
      b.start = 1000 * kMs + static_cast<uint64_t>(s) * 100 * kMs, b.end = b.start + 100 * kMs;
      b.host_idle = (r ? idle1 : 1) * kMs;
      if (r) b.gap_lines = {{"train.py:41 (main)", (idle1 - 1) * kMs}};
      b.gap_lines.push_back({"train.py:50 (main)", kMs});
      out.push_back(b);
    }
  return out;
}

std::string StragglerText(const analysis::CommView& v, uint64_t idle1) {
  analysis::FindingInputs in;
  in.comm = &v;
  in.run_ns = 2000 * kMs;
  in.steps = Steps(idle1);
  for (const auto& f : analysis::Findings(in))
    if (f.id == "straggler") return f.text;
  return "";
}

TEST(CommFindings, AStragglersGapsAreNamedByTheLineTheSamplerSaw) {
  auto v = Job(/*late=*/20, /*setup_late=*/0);
  std::string text = StragglerText(v, /*idle1=*/21);
  EXPECT_NE(text.find("rank 1: 21.00 ms a step in gaps"), std::string::npos) << text;
  EXPECT_NE(text.find("the other ranks 1.00 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("train.py:41 (main) (95% of the gaps)"), std::string::npos) << text;
  // Gaps no longer than the others' by 1 ms say nothing.
  std::string none = StragglerText(v, /*idle1=*/1);
  EXPECT_FALSE(none.empty());
  EXPECT_EQ(none.find("gaps"), std::string::npos) << none;
}

}  // namespace
}  // namespace tt
