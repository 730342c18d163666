// JAX's process index as the process's rank: two processes of a jax.distributed job, given
// their ids as arguments (no launcher variable), carry rank 0 and 1 of 2 in the trace (`info`),
// and the process that started them carries none. Skipped where python3 cannot import jax or
// no network namespace can be made (JAX's coordinator listens on every interface).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
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

}  // namespace
}  // namespace tt
