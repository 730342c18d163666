// `tensortrace comm`: communication per step and its overlap with compute, on a hand-built rank
// of exact times (tests/programs/overlap_job.cc, CommOverlap) and on DDP with gloo
// (CommOverlapTorch, skipped where python3 cannot import torch).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "comm_test_util.h"
#include "test_json.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::CommJson;
using test::FindingText;
using test::kMs;
using test::ReportOf;
using test::RunCmd;
using test::TempDir;

// ---- Communication per step, and its overlap with compute ----

// overlap_job.cc: 3 steps, each with an all-reduce of 4 ms, 1 ms of it beside compute on the
// worker thread (a MatMul on its own thread does not count), 3 ms exposed.
TEST(CommOverlap, ExactStepsOfAHandBuiltRank) {
  TempDir d;
  std::filesystem::create_directories(d / "t");
  int fd = -1;
  int pid = test::Spawn({TT_OVERLAP_JOB, "3"}, &fd, {{"TENSORTRACE_DIR", d / "t"}, {"RANK", "0"}});
  ASSERT_EQ(test::Wait(pid), 0);
  close(fd);
  json j = CommJson({d / "t"});
  ASSERT_EQ(j["ranks"].size(), 1u) << j.dump().substr(0, 2000);
  const json& r = j["ranks"][0];
  EXPECT_EQ(r["comm_ns"], 12 * kMs);
  EXPECT_EQ(r["overlapped_ns"], 3 * kMs);
  EXPECT_EQ(r["exposed_ns"], 9 * kMs);
  ASSERT_EQ(r["steps"].size(), 3u) << r.dump();
  for (int i = 0; i < 3; ++i) {
    const json& s = r["steps"][i];
    EXPECT_EQ(s["step"], i);
    EXPECT_EQ(s["end_ns"].get<uint64_t>() - s["start_ns"].get<uint64_t>(), 9 * kMs);
    EXPECT_EQ(s["calls"], 1);
    EXPECT_EQ(s["comm_ns"], 4 * kMs);
    EXPECT_EQ(s["overlapped_ns"], 1 * kMs);
    EXPECT_EQ(s["exposed_ns"], 3 * kMs);
  }
  // The step view's communication column says the same per step.
  json steps = test::RunJson({TT_CLI, "stats", d / "t", "--view", "step", "--json"});
  ASSERT_EQ(steps["rows"].size(), 3u);
  for (const auto& row : steps["rows"]) EXPECT_EQ(row["communication_micros"], 4000.0);
  auto text = RunCmd({TT_CLI, "comm", d / "t"});
  EXPECT_NE(text.out.find("top 3 steps by exposed communication"), std::string::npos) << text.out;
  // The CSV's steps section: one row per rank and step, the same numbers.
  auto csv = RunCmd({TT_CLI, "comm", d / "t", "--csv", "--section", "steps"});
  ASSERT_EQ(csv.status, 0) << csv.err;
  std::istringstream rows(csv.out);
  std::string line;
  std::getline(rows, line);
  EXPECT_EQ(line, "rank,pid,step,start_ns,end_ns,calls,comm_ns,overlapped_ns,exposed_ns");
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(std::getline(rows, line)) << csv.out;
    EXPECT_EQ(line.rfind("0,", 0), 0u) << line;
    EXPECT_NE(line.find("," + std::to_string(i) + ","), std::string::npos) << line;
    EXPECT_TRUE(line.ends_with(",1,4000000,1000000,3000000")) << line;
  }
  EXPECT_FALSE(std::getline(rows, line)) << csv.out;
  // The report names it: 9 of 12 ms exposed, a third of the steps' time.
  std::string html = ReportOf(d / "t", d / "r.html");
  std::string f = FindingText(html, "comm_not_overlapped");
  EXPECT_NE(f.find("communication not overlapped: on rank 0, 9.00 ms of its 12.00 ms in "
                   "collectives (75%)"),
            std::string::npos)
      << f;
  EXPECT_NE(f.find("(33% of its time)"), std::string::npos) << f;
}

// DDP with gloo, 2 ranks: every rank's communication is split into overlapped and exposed,
// per step as over the run.
TEST(CommOverlapTorch, DdpRanksCommunicationSplitPerStep) {
  REQUIRE_MODULE("torch");
  TempDir d;
  test::RunResult r;
  std::map<std::string, std::string> env = {{"TT_DDP_PORT", "29547"}};
  RECORD_OR_SKIP(d / "t", "torch_ddp.py", env, r);
  json j = CommJson({d / "t"});
  ASSERT_EQ(j["ranks"].size(), 2u) << j.dump().substr(0, 2000);
  for (const auto& rank : j["ranks"]) {
    uint64_t comm = rank["comm_ns"], over = rank["overlapped_ns"], exposed = rank["exposed_ns"];
    EXPECT_GT(comm, 0u);
    EXPECT_LE(comm, rank["time_ns"].get<uint64_t>());  // a union: at most the durations added
    EXPECT_EQ(over + exposed, comm);
    uint64_t in_steps = 0;
    for (const auto& s : rank["steps"]) {
      EXPECT_EQ(s["overlapped_ns"].get<uint64_t>() + s["exposed_ns"].get<uint64_t>(),
                s["comm_ns"].get<uint64_t>());
      EXPECT_LE(s["comm_ns"].get<uint64_t>(),
                s["end_ns"].get<uint64_t>() - s["start_ns"].get<uint64_t>());
      in_steps += s["comm_ns"].get<uint64_t>();
    }
    EXPECT_LE(in_steps, comm);
    std::printf("DDP %s: %zu steps, communication %.3f ms, overlapped %.3f ms, exposed %.3f ms\n",
                rank["rank"].dump().c_str(), rank["steps"].size(), static_cast<double>(comm) / 1e6,
                static_cast<double>(over) / 1e6, static_cast<double>(exposed) / 1e6);
  }
}

}  // namespace
}  // namespace tt
