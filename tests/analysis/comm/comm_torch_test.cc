// `tensortrace comm` on real PyTorch programs with gloo on two ranks (CommTorch): collectives
// counted and matched with their bytes, a rank that sleeps a known time before one all-reduce
// (its straggler, in the comm view and the report's finding), sends paired with their peers'
// receives, DDP's gradient all-reduces. Skipped where python3 cannot import torch.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "comm_test_util.h"
#include "core/files.h"
#include "test_json.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::CommJson;
using test::FindingText;
using test::Instance;
using test::ReportOf;
using test::Said;
using test::TempDir;

// ---- Real PyTorch programs with gloo on two ranks ----

TEST(CommTorch, CollectivesCountedOnEachRankWithTheirBytesAndMatched) {
  REQUIRE_MODULE("torch");
  TempDir d;
  test::RunResult r;
  RECORD_OR_SKIP(d / "t", "torch_collectives.py", {}, r);
  std::map<std::string, int64_t> said = Said(r.out);
  ASSERT_EQ(said["allreduce"], 5) << r.out;
  json j = CommJson({d / "t"});
  ASSERT_EQ(j["ranks"].size(), 2u) << j.dump().substr(0, 3000);
  EXPECT_EQ(j["unmatched"], 0) << j["notes"].dump();
  EXPECT_TRUE(j["notes"].empty()) << j["notes"].dump();
  std::map<std::string, json> by;
  for (const auto& c : j["collectives"]) by[c["collective"]] = c;
  for (const char* c : {"allreduce", "broadcast", "allgather"}) {
    ASSERT_TRUE(by.count(c)) << c << ": " << j["collectives"].dump();
    EXPECT_EQ(by[c]["calls"], json::array({said[c], said[c]})) << c;
    EXPECT_EQ(by[c]["instances"], said[c]) << c;
    EXPECT_EQ(by[c]["bytes"], said[c] * said[std::string(c) + "_bytes"]) << c;
  }
  ASSERT_TRUE(by.count("barrier")) << j["collectives"].dump();
  EXPECT_EQ(by["barrier"]["calls"], json::array({said["barrier"], said["barrier"]}));
  EXPECT_EQ(j["collectives"].size(), 4u) << j["collectives"].dump();
  EXPECT_EQ(j["ranks"][0]["source"], "backend");
  EXPECT_EQ(j["ranks"][0]["rank"], 0);
  EXPECT_EQ(j["ranks"][1]["rank"], 1);
  for (const auto& in : j["instances"]) {
    EXPECT_TRUE(in["matched"].get<bool>()) << in.dump();
    EXPECT_EQ(in["arrivals"].size(), 2u) << in.dump();
    EXPECT_EQ(in["group"], "0") << in.dump();  // the group torch names, from distributedInfo
    EXPECT_EQ(in["nranks"], 2) << in.dump();
    if (by.count(in["collective"]) && in["collective"] != "barrier") {
      EXPECT_EQ(in["bytes"], said[in["collective"].get<std::string>() + "_bytes"]) << in.dump();
    }
  }
}

TEST(CommTorch, RankThatSleepsBeforeAnAllReduceIsItsStraggler) {
  REQUIRE_MODULE("torch");
  TempDir d;
  test::RunResult r;
  constexpr int64_t kSleepMs = 300;
  RECORD_OR_SKIP(
      d / "t", "torch_collectives.py",
      (std::map<std::string, std::string>{
          {"TT_COMM_SLEEP_MS", "300"}, {"TT_COMM_SLEEP_RANK", "1"}, {"TT_COMM_SLEEP_AT", "2"}}),
      r);
  json j = CommJson({d / "t"});
  ASSERT_EQ(j["ranks"].size(), 2u);
  ASSERT_EQ(j["ranks"][1]["rank"], 1);
  const json* in = Instance(j, "allreduce", 2, nullptr);
  ASSERT_TRUE(in);
  EXPECT_EQ((*in)["straggler_index"], 1) << in->dump();
  double wait = (*in)["arrivals"][0]["wait_ns"].get<double>();
  EXPECT_NEAR(wait, kSleepMs * 1e6, kSleepMs * 1e6 * 0.1) << in->dump();
  EXPECT_EQ((*in)["arrivals"][1]["wait_ns"], 0);
  std::printf("sleep %lld ms: rank 0 waited %.1f ms in allreduce #2\n",
              static_cast<long long>(kSleepMs), wait / 1e6);
  // The other all-reduces waited far less.
  for (int64_t k : {0, 1, 3, 4}) {
    const json* o = Instance(j, "allreduce", k, nullptr);
    ASSERT_TRUE(o);
    EXPECT_LT((*o)["wait_ns"].get<double>(), kSleepMs * 1e6 / 2) << o->dump();
  }

  // The report: its communication section leads with that all-reduce, and the straggler
  // finding names rank 1 with rank 0's wait.
  std::string html = ReportOf(d / "t", d / "r.html");
  ASSERT_NE(html.find("<section id=\"comm\"><h2>Communication</h2>"), std::string::npos);
  auto top = test::HtmlTable(html, "comm-instances");
  ASSERT_FALSE(top.empty());
  EXPECT_EQ(top[0][0], "allreduce #2 of group 0");
  EXPECT_EQ(top[0][6], "rank 1");
  EXPECT_EQ(test::HtmlTable(html, "comm-ranks").size(), 2u);
  std::string f = FindingText(html, "straggler");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(f, m,
                                std::regex("^rank 1 arrived last in [0-9]+ of 5 all-reduces.*; the "
                                           "other ranks waited ([0-9.]+) ms in all for it .*the "
                                           "longest: ([0-9.]+) ms in allreduce #2 of group 0\\)$")))
      << f;
  double longest = std::stod(m[2]), all = std::stod(m[1]);
  EXPECT_NEAR(longest, kSleepMs, kSleepMs * 0.1) << f;
  EXPECT_NEAR(all, kSleepMs, kSleepMs * 0.1) << f;
  std::printf("report: %s\n", f.c_str());
  // 5 all-reduces of 4 KiB, 2 broadcasts of 1 KiB, 3 all-gathers of 512 B: all small.
  EXPECT_NE(FindingText(html, "small_messages").find("(100%) move less than 64.0 KiB each"),
            std::string::npos)
      << FindingText(html, "small_messages");
}

// Point-to-point transfers (tests/programs/torch_p2p.py): each send is paired with the receive
// on its peer as one "sendrecv" instance of the two ranks, by direction and order; the receive
// that rank 0's sleep kept waiting has rank 0 as its straggler.
TEST(CommTorch, SendsArePairedWithTheirPeersReceives) {
  REQUIRE_MODULE("torch");
  TempDir d;
  test::RunResult r;
  RECORD_OR_SKIP(d / "t", "torch_p2p.py", {}, r);
  std::map<std::string, int64_t> said = Said(r.out);
  ASSERT_EQ(said["sends"], 3) << r.out;
  json j = CommJson({d / "t"});
  ASSERT_EQ(j["ranks"].size(), 2u) << j.dump().substr(0, 3000);
  EXPECT_EQ(j["unmatched"], 0) << j["notes"].dump();
  int64_t transfers = said["sends"] + said["backs"];
  const json* c = nullptr;
  for (const auto& x : j["collectives"])
    if (x["collective"] == "sendrecv") c = &x;
  ASSERT_TRUE(c) << j["collectives"].dump();
  EXPECT_EQ((*c)["instances"], transfers);
  EXPECT_EQ((*c)["calls"], json::array({transfers, transfers}));
  EXPECT_EQ((*c)["bytes"], said["sends"] * said["send_bytes"] + said["backs"] * said["back_bytes"]);
  std::map<std::string, int64_t> per_direction;  // "0->1" -> transfers
  for (const auto& in : j["instances"]) {
    if (in["collective"] != "sendrecv") continue;
    EXPECT_TRUE(in["matched"].get<bool>()) << in.dump();
    EXPECT_EQ(in["nranks"], 2);
    ASSERT_EQ(in["arrivals"].size(), 2u) << in.dump();
    int64_t src = in["src_rank"], dst = in["dst_rank"];
    per_direction[std::to_string(src) + "->" + std::to_string(dst)]++;
    EXPECT_EQ(in["bytes"], src == 0 ? said["send_bytes"] : said["back_bytes"]) << in.dump();
    if (src == 0 && in["seq"] == 1) {  // rank 0 slept before it: rank 1 waited
      EXPECT_EQ(j["ranks"][in["straggler_index"].get<size_t>()]["rank"], 0) << in.dump();
      EXPECT_GT(in["skew_ns"].get<double>(), 0.75 * said["sleep_ms"] * 1e6) << in.dump();
    }
  }
  EXPECT_EQ(per_direction["0->1"], said["sends"]);
  EXPECT_EQ(per_direction["1->0"], said["backs"]);
  // The report's straggler finding names rank 0, in pairs.
  std::string f = FindingText(ReportOf(d / "t", d / "r.html"), "straggler");
  EXPECT_NE(f.find("rank 0 arrived last in"), std::string::npos) << f;
  EXPECT_NE(f.find(" send/receive pairs"), std::string::npos) << f;
}

// Also ranks as identity there (issue 39, items 4 and 7): the step view's rank column, each
// step's ranks in order, --rank 1 its steps alone; the report's heat map, a row per rank, the
// waits in collectives per step as comm measured them.
TEST(CommTorch, DdpAllReducesCarryTheGradientBytesOnBothRanksStepsByRank) {
  REQUIRE_MODULE("torch");
  TempDir d;
  test::RunResult r;
  RECORD_OR_SKIP(d / "t", "torch_ddp.py", {}, r);
  std::map<std::string, int64_t> said = Said(r.out);
  ASSERT_GT(said["grad_bytes"], 0) << r.out;
  json j = CommJson({d / "t"});
  ASSERT_EQ(j["ranks"].size(), 2u);
  EXPECT_EQ(j["unmatched"], 0) << j["notes"].dump();
  int64_t gradients = 0;
  for (const auto& in : j["instances"]) {
    EXPECT_TRUE(in["matched"].get<bool>()) << in.dump();
    gradients += in["collective"] == "allreduce" && in["bytes"] == said["grad_bytes"];
  }
  EXPECT_EQ(gradients, said["steps"]) << j["instances"].dump().substr(0, 3000);

  auto step_view = [&](std::vector<std::string> more) {
    std::vector<std::string> argv = {TT_CLI, "stats", d / "t", "--view", "step", "--json"};
    argv.insert(argv.end(), more.begin(), more.end());
    auto s = test::RunCmd(argv);
    EXPECT_EQ(s.status, 0) << s.err;
    return s.status == 0 ? json::parse(s.out) : json::object();
  };
  json steps = step_view({});
  ASSERT_EQ(steps["rows"].size(), 2u * said["steps"]) << steps.dump().substr(0, 3000);
  EXPECT_EQ(steps["columns"][1], "rank");
  for (size_t i = 0; i < steps["rows"].size(); ++i)
    EXPECT_EQ(steps["rows"][i]["rank"], static_cast<int>(i % 2)) << steps["rows"][i];
  json one = step_view({"--rank", "1"});
  ASSERT_EQ(one["rows"].size(), static_cast<size_t>(said["steps"]));
  for (const auto& row : one["rows"]) EXPECT_EQ(row["rank"], 1) << row;

  std::string html = ReportOf(d / "t", d / "r.html");
  size_t at = html.find("<section id=\"rank-heatmap\">");
  ASSERT_NE(at, std::string::npos);
  std::string map = html.substr(at, html.find("</section>", at) - at);
  for (int rank : {0, 1})
    for (int64_t step = 0; step < said["steps"]; ++step)
      EXPECT_NE(
          map.find("<title>rank " + std::to_string(rank) + ", step " +
                   std::to_string(steps["rows"][0]["step"].get<int64_t>() + step) + ": step time "),
          std::string::npos)
          << rank << " " << step << "\n"
          << map.substr(0, 3000);
  // The ranks wait for each other in the steps' all-reduces (by ns at least: comm measures
  // each rank's wait from its entry until the last rank entered).
  EXPECT_NE(map.find("Time waiting in collectives per rank and step"), std::string::npos);
  EXPECT_EQ(map.find(">rank 2</text>"), std::string::npos);
}

// torch_subgroups.py's groups in `dir`, as rank 0 said it ran them (`said`): each group's
// instances matched on its own ranks, named as torch names the group.
void ExpectSubgroupsMatched(const std::string& dir, std::map<std::string, int64_t> said) {
  json j = CommJson({dir});
  ASSERT_EQ(j["ranks"].size(), 4u) << j.dump().substr(0, 3000);
  EXPECT_EQ(j["unmatched"], 0) << j["notes"].dump();
  EXPECT_EQ(j["matched"], said["world"] + 2 * said["pair"] + 1);
  std::map<std::string, int> per_group;
  for (const auto& in : j["instances"]) {
    EXPECT_TRUE(in["matched"].get<bool>()) << in.dump();
    std::string g = in["group"];
    per_group[g]++;
    size_t want = g == "0" ? 4u : 2u;  // the world, else a pair
    EXPECT_EQ(in["arrivals"].size(), want) << in.dump();
    EXPECT_EQ(in["nranks"], static_cast<int>(want)) << in.dump();
    if (g == "1" || g == "2") {
      for (const auto& a : in["arrivals"]) {  // [0, 1] and [2, 3]
        int rank = j["ranks"][a["rank_index"].get<size_t>()]["rank"];
        EXPECT_EQ(rank / 2, g == "1" ? 0 : 1) << in.dump();
      }
    }
  }
  EXPECT_EQ(per_group["0"], said["world"] + 1) << j["instances"].dump().substr(0, 2000);
  EXPECT_EQ(per_group["1"], said["pair"]);
  EXPECT_EQ(per_group["2"], said["pair"]);
}

// A world all-reduce and pair subgroups on gloo (4 ranks by torch.multiprocessing.spawn): each
// group's instances matched on its own ranks, named as torch names the group (issue 39: were
// 31 instances, 10 unmatched, every group "").
TEST(CommTorch, SubgroupsMatchedPerGroupOnTheirOwnRanks) {
  REQUIRE_MODULE("torch");
  TempDir d;
  test::RunResult r;
  RECORD_OR_SKIP(d / "t", "torch_subgroups.py", {}, r);
  std::map<std::string, int64_t> said = Said(r.out);
  ASSERT_EQ(said["world"], 5) << r.out;
  ExpectSubgroupsMatched(d / "t", said);
}

// The same groups in training steps whose profiles are written in windows of a second
// (TENSORTRACE_RANK_WINDOW_S=1): the gloo threads' groups, read from each window's pg_config,
// hold across the windows, and each rank's steps are all there.
TEST(CommTorch, SubgroupsMatchedAcrossTheProfilersWindows) {
  REQUIRE_MODULE("torch");
  TempDir d;
  test::RunResult r;
  const std::map<std::string, std::string> env = {{"TT_SUBGROUP_STEPS", "24"},
                                                   {"TT_SUBGROUP_SLEEP_S", "0.06"},
                                                   {"TENSORTRACE_RANK_WINDOW_S", "1"}};
  RECORD_OR_SKIP(d / "t", "torch_subgroups.py", env, r);
  std::map<std::string, int64_t> said = Said(r.out);
  ASSERT_EQ(said["world"], 24) << r.out;
  // Each rank's profile came in windows ("PyTorch profile of process P: N files").
  size_t windowed = 0;
  for (size_t at = r.err.find("files, "); at != std::string::npos;
       at = r.err.find("files, ", at + 1)) {
    size_t colon = r.err.rfind(": ", at);
    windowed += colon != std::string::npos && std::stoi(r.err.substr(colon + 2)) >= 2;
  }
  EXPECT_EQ(windowed, 4u) << r.err;
  ExpectSubgroupsMatched(d / "t", said);
  auto s = test::RunCmd({TT_CLI, "stats", d / "t", "--view", "step", "--json"});
  ASSERT_EQ(s.status, 0) << s.err;
  const json view = json::parse(s.out);  // kept: a range-for over a temporary's member dangles
  std::map<int, int> steps;
  for (const auto& row : view["rows"]) steps[row["rank"].get<int>()]++;
  for (int rank = 0; rank < 4; ++rank) EXPECT_EQ(steps[rank], 24) << "rank " << rank;
}

// The launcher's environment of two ranks on 127.0.0.1:`port`, and `extra` for both.
std::vector<std::map<std::string, std::string>> TwoRanks(
    const char* port, const std::map<std::string, std::string>& extra) {
  std::vector<std::map<std::string, std::string>> env(2);
  for (int k = 0; k < 2; ++k) {
    env[k] = extra;
    env[k].insert({{"WORLD_SIZE", "2"},
                   {"MASTER_ADDR", "127.0.0.1"},
                   {"MASTER_PORT", port},
                   {"RANK", std::to_string(k)},
                   {"LOCAL_RANK", std::to_string(k)}});
  }
  return env;
}

// What comm says of rank 1 of `dirs`, which died: its line of missing_ranks, after checking that
// it is the one, named dead, and that the report of the same recordings has the finding.
std::string DeadRankOne(const std::vector<std::string>& dirs, const std::string& html) {
  json j = CommJson(dirs);
  EXPECT_EQ(j["missing_ranks"].size(), 1u) << j.dump().substr(0, 3000);
  if (j["missing_ranks"].empty()) return "";
  std::string said = j["missing_ranks"][0];
  EXPECT_EQ(said.rfind("rank 1 (pid ", 0), 0u) << said;
  EXPECT_NE(said.find("it died"), std::string::npos) << said;
  auto rep = test::RunCmd({TT_CLI, "report", dirs[0], dirs[1], "-o", html}, {}, 300);
  EXPECT_EQ(rep.status, 0) << rep.err;
  EXPECT_NE(FindingText(ReadFile(html), "missing_rank").find("Rank 1 (pid "), std::string::npos);
  return said;
}

// Two ranks, one recording each; rank 1 kills itself (SIGKILL) before its fourth all-reduce and
// rank 0 gives up on it after gloo's timeout: rank 1's profile is lost with it, and comm and the
// report name it, how it ended, and the collective rank 0 was left in (issue 39, item 3).
TEST(CommTorch, AKilledRankIsNamedWithTheCollectiveTheOthersWereLeftIn) {
  REQUIRE_MODULE("torch");
  TempDir d;
  test::RunResult r;
  auto env = TwoRanks("29544", {{"TT_COMM_KILL_AT", "3"}, {"TT_COMM_TIMEOUT_S", "3"}});
  std::vector<std::string> dirs = {d / "r0", d / "r1"};
  if (!test::RecordEachRank(dirs, "torch_collectives.py", env, d.path(), &r))
    GTEST_SKIP() << "cannot make a network namespace (unshare -n)";
  std::string said = DeadRankOne(dirs, d / "r.html");
  EXPECT_NE(said.find("the last collective the others entered without it: allreduce #3"),
            std::string::npos)
      << said;
}

// DDP on two ranks, a step every 50 ms; rank 1 kills itself (SIGKILL) 7 s into its steps. A rank's
// Kineto is written in windows by default (5 s, TENSORTRACE_RANK_WINDOW_S; torch_adapter.py), so
// rank 1 keeps its ops of the windows before the kill (not more steps than it ran), and comm and
// the report still name it dead, with the all-reduce it never reached and the ones its last,
// unwritten window held (issue 39, item 3).
TEST(CommTorch, AKilledRankKeepsItsOpsOfTheWindowsBeforeTheKill) {
  REQUIRE_MODULE("torch");
  TempDir d;
  test::RunResult r;
  auto env = TwoRanks(
      "29548",
      {{"TT_KILL_AFTER_S", "7"}, {"TT_COMM_TIMEOUT_S", "3"}, {"TENSORTRACE_RANK_WINDOW_S", ""}});
  std::vector<std::string> dirs = {d / "r0", d / "r1"};
  if (!test::RecordEachRank(dirs, "torch_ddp_killed.py", env, d.path(), &r))
    GTEST_SKIP() << "cannot make a network namespace (unshare -n)";
  std::smatch killed;
  ASSERT_TRUE(std::regex_search(r.out, killed, std::regex("killed at step ([0-9]+)"))) << r.out;
  int64_t ran = std::stoll(killed[1]);
  json ops = test::RunJson({TT_CLI, "stats", dirs[1], "--view", "op", "--json"});
  int64_t steps = -1;
  for (const auto& row : ops["rows"])
    if (row["name"] == "Optimizer.step") steps = row["occurrence"].get<int64_t>();
  EXPECT_GT(steps, 0) << ops.dump().substr(0, 2000);
  EXPECT_LE(steps, ran) << r.out;
  std::string said = DeadRankOne(dirs, d / "r.html");
  // Its all-reduce of step `ran`, which rank 0 entered alone (one per step, from #0).
  EXPECT_NE(said.find("the last collective the others entered without it: allreduce #"),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("; its profile lacks the " + std::to_string(ran - steps) + " before it"),
            std::string::npos)
      << said;
}

}  // namespace
}  // namespace tt
