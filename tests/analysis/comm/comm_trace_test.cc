// `tensortrace comm` on a synthetic two-rank job (tests/programs/comm_job.cc) written at exact
// times through the runtime, as one trace and as one trace per rank, and its bad input
// (CommTrace); the report's communication section and straggler finding on it (CommReport).
#include <gtest/gtest.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "comm_test_util.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::CommJson;
using test::FindingText;
using test::Instance;
using test::kMs;
using test::ReportOf;
using test::RunCmd;
using test::TempDir;

// ---- The synthetic job (tests/programs/comm_job.cc) recorded through the runtime ----

uint64_t MonotonicNs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000 + static_cast<uint64_t>(t.tv_nsec);
}

// Runs both ranks of comm_job at once with one T0, rank r into dirs[r]; retries with a later
// T0 when a rank started after it (a loaded machine).
void RunJob(const std::vector<std::string>& dirs, uint64_t* t0) {
  for (uint64_t margin_ms : {1000, 4000, 15000}) {
    for (const auto& d : dirs) std::filesystem::create_directories(d);  // the runtime needs it
    *t0 = MonotonicNs() + margin_ms * kMs;
    int pids[2], fds[2], late = 0;
    for (int r = 0; r < 2; ++r)
      pids[r] = test::Spawn({TT_COMM_JOB}, &fds[r],
                            {{"TENSORTRACE_DIR", dirs[static_cast<size_t>(r)]},
                             {"RANK", std::to_string(r)},
                             {"WORLD_SIZE", "2"},
                             {"TT_COMM_T0", std::to_string(*t0)}});
    for (int r = 0; r < 2; ++r) {
      int status = test::Wait(pids[r]);
      close(fds[r]);
      late += status == 3;
      ASSERT_TRUE(status == 0 || status == 3) << "rank " << r << " exited " << status;
    }
    if (!late) return;
    for (const auto& d : dirs) std::filesystem::remove_all(d);
  }
  FAIL() << "comm_job started too late three times";
}

// What the job wrote (comm_job.cc), read back: five instances on both ranks, one on rank 0
// only, with their exact times.
void CheckJob(const json& j, uint64_t t0) {
  ASSERT_EQ(j["schema"], "tensortrace.comm/1");
  ASSERT_EQ(j["ranks"].size(), 2u) << j.dump();
  EXPECT_EQ(j["ranks"][0]["rank"], 0);
  EXPECT_EQ(j["ranks"][1]["rank"], 1);
  EXPECT_EQ(j["ranks"][0]["source"], "backend");
  EXPECT_EQ(j["matched"], 5);
  EXPECT_EQ(j["unmatched"], 1);
  const json* a = Instance(j, "allreduce", 0, nullptr);
  ASSERT_TRUE(a);
  EXPECT_EQ((*a)["first_enter_ns"], t0);
  EXPECT_EQ((*a)["skew_ns"], 3 * kMs);
  EXPECT_EQ((*a)["straggler_index"], 1);
  EXPECT_EQ((*a)["arrivals"][0]["wait_ns"], 3 * kMs);
  EXPECT_EQ((*a)["bytes"], 4000);
  EXPECT_DOUBLE_EQ((*a)["busbw_gbs"].get<double>(), 4000 / 7e-3 / 1e9);
  const json* b = Instance(j, "allreduce", 1, nullptr);
  ASSERT_TRUE(b);
  EXPECT_EQ((*b)["arrivals"][0]["wait_ns"], 15 * kMs);
  const json* k7 = Instance(j, "allgather", 1, 7);
  ASSERT_TRUE(k7);
  EXPECT_EQ((*k7)["straggler_index"], 0);
  EXPECT_EQ((*k7)["matched"], true);
  const json* lone = Instance(j, "allreduce", 0, nullptr);
  for (const auto& in : j["instances"])
    if (in["group"] == "1") lone = &in;
  EXPECT_EQ((*lone)["matched"], false);
  EXPECT_EQ((*lone)["arrivals"].size(), 1u);
  ASSERT_EQ(j["notes"].size(), 1u) << j["notes"].dump();
  EXPECT_NE(j["notes"][0].get<std::string>().find("allreduce #0 of group 1 (only on rank 0)"),
            std::string::npos);
  EXPECT_EQ(j["ranks"][0]["straggler"], 1);  // the all-gather of key 7
  EXPECT_EQ(j["ranks"][1]["straggler"], 3);
  EXPECT_EQ(j["ranks"][0]["wait_ns"], (3 + 15 + 5) * kMs);
}

TEST(CommTrace, SyntheticJobAsOneTrace) {
  TempDir d;
  uint64_t t0 = 0;
  RunJob({d / "t", d / "t"}, &t0);
  json j = CommJson({d / "t"});
  CheckJob(j, t0);

  // CSV: one row per instance and rank.
  auto csv = RunCmd({TT_CLI, "comm", d / "t", "--csv"});
  ASSERT_EQ(csv.status, 0) << csv.err;
  EXPECT_EQ(test::CountLines(csv.out), 1u + 11u);
  EXPECT_EQ(csv.out.rfind("collective,group,seq,key,bytes,nranks,matched,rank,pid,", 0), 0u);
  // The table names the straggler and notes the unmatched instance.
  auto text = RunCmd({TT_CLI, "comm", d / "t", "--top", "2"});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("2 rank(s), 6 collective instance(s): 5 matched, 1 unmatched"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("top 2 instances by wait"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("note: 1 instance(s) seen on fewer ranks"), std::string::npos);
  // Calls per rank: the lone all-reduce of group 1 makes rank 0's one more, said under the table.
  EXPECT_NE(text.out.find("fewer calls: allreduce: rank 1 made"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(" each "), std::string::npos) << text.out;  // the all-gathers
}

TEST(CommTrace, OneRecordingPerRankIsOneJob) {
  TempDir d;
  uint64_t t0 = 0;
  RunJob({d / "r0", d / "r1"}, &t0);
  json j = CommJson({d / "r0", d / "r1"});
  // The job's all-gather of key 8 is impossible (rank 0 left it before rank 1 entered) and
  // the one of key 7 the reverse: no offset between the recordings satisfies both, so their
  // shared clock is kept, and noted.
  ASSERT_EQ(j["clocks"].size(), 2u) << j.dump();
  EXPECT_EQ(j["clocks"][0]["method"], "reference");
  EXPECT_EQ(j["clocks"][1]["method"], "inconsistent");
  EXPECT_EQ(j["clocks"][1]["offset_ns"], 0);
  EXPECT_EQ(j["clocks"][1]["low_ns"], -8 * static_cast<int64_t>(kMs));
  EXPECT_EQ(j["clocks"][1]["high_ns"], -11 * static_cast<int64_t>(kMs));
  ASSERT_EQ(j["notes"].size(), 2u) << j["notes"].dump();
  EXPECT_NE(j["notes"][1].get<std::string>().find("cannot be aligned with"), std::string::npos);
  j["notes"].erase(1);
  CheckJob(j, t0);
  EXPECT_EQ(j["ranks"][1]["trace"], d / "r1");
  // Each rank alone: nothing matches, and the note says to give every rank's trace.
  json alone = CommJson({d / "r1"});
  EXPECT_EQ(alone["matched"], 0);
  EXPECT_NE(alone["notes"].dump().find("one rank only (rank 1)"), std::string::npos);
}

// The report of the synthetic job: its communication section and the straggler finding carry
// the job's exact numbers (rank 1 entered two all-reduces 3 and 15 ms late and the all-gather
// of key 8 after rank 0 had waited 5 ms; rank 0 entered the one of key 7 11 ms late).
TEST(CommReport, SyntheticJobSectionAndStragglerFinding) {
  TempDir d;
  uint64_t t0 = 0;
  RunJob({d / "t", d / "t"}, &t0);
  std::string html = ReportOf(d / "t", d / "r.html");
  ASSERT_NE(html.find("<section id=\"comm\"><h2>Communication</h2>"), std::string::npos);
  EXPECT_NE(html.find("2 rank(s), 6 collective instance(s): 5 matched across ranks, 1 unmatched"),
            std::string::npos);
  std::map<std::string, std::vector<std::string>> colls;
  for (auto& r : test::HtmlTable(html, "comm-collectives")) colls[r[0]] = r;
  ASSERT_EQ(colls.size(), 3u);
  // collective, instances, calls per rank, bytes, time, wait, bus bandwidth
  EXPECT_EQ(colls["allreduce"][1], "3");
  EXPECT_EQ(colls["allreduce"][2], "3, 2");
  EXPECT_EQ(colls["allreduce"][5], "18.00 ms");  // 3 + 15
  EXPECT_EQ(colls["allgather"][5], "16.00 ms");  // 5 + 11
  EXPECT_EQ(colls["broadcast"][5], "0 ns");
  auto ranks = test::HtmlTable(html, "comm-ranks");
  ASSERT_EQ(ranks.size(), 2u);
  // rank, pid, host, calls, bytes, communication time, wait, straggler in
  EXPECT_EQ(ranks[0][0], "rank 0");
  EXPECT_EQ(ranks[0][5], "50.00 ms");
  EXPECT_EQ(ranks[0][6], "23.00 ms");
  EXPECT_EQ(ranks[0][7], "1");
  EXPECT_EQ(ranks[1][5], "34.00 ms");
  EXPECT_EQ(ranks[1][6], "11.00 ms");
  EXPECT_EQ(ranks[1][7], "3");
  auto top = test::HtmlTable(html, "comm-instances");
  ASSERT_EQ(top.size(), 6u);
  // instance, bytes, ranks, skew, duration, wait, straggler, bus bandwidth
  EXPECT_EQ(top[0][0], "allreduce #1 of group 0");
  EXPECT_EQ(top[0][3], "15.00 ms");
  EXPECT_EQ(top[0][5], "15.00 ms");
  EXPECT_EQ(top[0][6], "rank 1");
  EXPECT_EQ(top[1][0], "allgather key 7 of group 0");
  EXPECT_EQ(top[1][6], "rank 0");
  EXPECT_NE(html.find("allreduce #0 of group 1 (unmatched)"), std::string::npos);
  EXPECT_NE(html.find("1 instance(s) seen on fewer ranks"), std::string::npos);
  EXPECT_EQ(FindingText(html, "straggler"),
            "rank 1 arrived last in 2 of 2 all-reduces (and 1 other collective); the other ranks "
            "waited 23.00 ms in all for it (68% of all waiting in collectives; the longest: "
            "15.00 ms in allreduce #1 of group 0)");
  // Six collectives with a size: too few to call their size a pattern.
  EXPECT_EQ(FindingText(html, "small_messages"), "");
}

TEST(CommTrace, BadInputIsOneLine) {
  TempDir d;
  for (std::vector<std::string> argv : {std::vector<std::string>{TT_CLI, "comm"},
                                        {TT_CLI, "comm", d / "missing"},
                                        {TT_CLI, "comm", d.path(), d.path()},
                                        {TT_CLI, "comm", d.path(), "--by", "size"},
                                        {TT_CLI, "comm", d.path(), "--json", "--csv"},
                                        {TT_CLI, "comm", d.path(), "--section", "steps"},
                                        {TT_CLI, "comm", d.path(), "--csv", "--section", "x"},
                                        {TT_CLI, "comm", d.path(), "--top", "0"}}) {
    auto r = RunCmd(argv);
    EXPECT_EQ(r.status, 2) << argv.back() << ": " << r.err;
    EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("tensortrace comm: ", 0), 0u) << r.err;
  }
  // A trace without collectives: a note, exit 0.
  ASSERT_EQ(RunCmd({TT_SYNTHETIC, "2"}, {{"TENSORTRACE_DIR", d.path()}}).status, 0);
  json j = CommJson({d.path()});
  EXPECT_EQ(j["ranks"].size(), 0u);
  EXPECT_NE(j["notes"].dump().find("no collective in the trace"), std::string::npos);
  auto help = RunCmd({TT_CLI, "comm", "--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("usage: tensortrace comm DIR..."), std::string::npos);
}

}  // namespace
}  // namespace tt
