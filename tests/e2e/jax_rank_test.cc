// JAX's process index as the process's rank: two processes of a jax.distributed job, given
// their ids as arguments (no launcher variable), carry rank 0 and 1 of 2 in the trace (`info`),
// and the process that started them carries none. Skipped where python3 cannot import jax or
// no network namespace can be made (JAX's coordinator listens on every interface).
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "test_json.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::Program;
using test::Python;
using test::RunJson;
using test::TempDir;

TEST(JaxRank, ProcessIndexIsTheRankOfEachProcess) {
  REQUIRE_MODULE("jax");
  TempDir d;
  test::RunResult r;
  if (!test::RunInNetworkNamespace(
          {TT_CLI, "record", "-o", d / "t", "--", Python(), Program("jax_distributed.py")},
          {{"JAX_PLATFORMS", "cpu"}}, 110, &r))
    GTEST_SKIP() << "cannot make a network namespace (unshare -n)";
  ASSERT_EQ(r.status, 0) << r.err;
  json j = RunJson({TT_CLI, "info", d / "t", "--json"});
  int children = 0;
  for (const auto& p : j["processes"]) {
    std::string cmd = p["command"];
    if (cmd.find("jax_distributed.py") == std::string::npos) continue;
    char last = cmd.back();
    if (last != '0' && last != '1') {  // the launcher: no rank from anything
      EXPECT_TRUE(p["rank"].is_null()) << p.dump();
      continue;
    }
    ++children;
    ASSERT_TRUE(p["rank"].is_object()) << p.dump();
    EXPECT_EQ(p["rank"]["rank"], last - '0') << cmd;
    EXPECT_EQ(p["rank"]["world_size"], 2) << cmd;
    EXPECT_EQ(p["rank"]["source"], "jax.process_index") << cmd;
  }
  EXPECT_EQ(children, 2) << j.dump();
}

// Cross-process collectives of JAX on CPU (gloo): jax_collectives.py all-reduces (psum) 3
// times and all-gathers 2 times under shard_map over the two processes' mesh. `comm` finds
// exactly those XLA instructions on each rank, each execution matched on both by its run id,
// with its bytes from the program's HLO.
TEST(JaxCollectives, CommCountsAndMatchesEachRanksXlaCollectives) {
  REQUIRE_MODULE("jax");
  TempDir d;
  test::RunResult r;
  if (!test::RunInNetworkNamespace(
          {TT_CLI, "record", "-o", d / "t", "--", Python(), Program("jax_collectives.py")},
          {{"JAX_PLATFORMS", "cpu"}}, 200, &r))
    GTEST_SKIP() << "cannot make a network namespace (unshare -n)";
  ASSERT_EQ(r.status, 0) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.out, m, std::regex("allreduce ([0-9]+) allgather ([0-9]+) shard_bytes ([0-9]+)")))
      << r.out;
  int64_t allreduces = std::stoll(m[1]), allgathers = std::stoll(m[2]), shard = std::stoll(m[3]);
  json j = RunJson({TT_CLI, "comm", d / "t", "--json"});
  ASSERT_EQ(j["ranks"].size(), 2u) << j.dump().substr(0, 3000);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(j["ranks"][i]["rank"], i);
    EXPECT_EQ(j["ranks"][i]["source"], "xla");
    EXPECT_EQ(j["ranks"][i]["calls"], allreduces + allgathers);
  }
  std::map<std::string, int64_t> per_collective;
  for (const auto& c : j["collectives"]) {
    per_collective[c["collective"]] = c["instances"];
    EXPECT_EQ(c["unmatched"], 0) << c.dump();
    EXPECT_EQ(c["calls"], json::array({c["instances"], c["instances"]})) << c.dump();
  }
  EXPECT_EQ(per_collective,
            (std::map<std::string, int64_t>{{"allgather", allgathers}, {"allreduce", allreduces}}));
  EXPECT_EQ(j["matched"], allreduces + allgathers);
  EXPECT_EQ(j["unmatched"], 0);
  for (const auto& in : j["instances"]) {
    EXPECT_TRUE(in["matched"].get<bool>()) << in.dump();
    EXPECT_EQ(in["arrivals"].size(), 2u) << in.dump();
    EXPECT_FALSE(in["key"].is_null()) << in.dump();  // matched by run id
    // Bytes from the HLO's result shape: an all-reduce's is the shard, an all-gather's both.
    EXPECT_EQ(in["bytes"], in["collective"] == "allreduce" ? shard : 2 * shard) << in.dump();
  }
}

}  // namespace
}  // namespace tt
