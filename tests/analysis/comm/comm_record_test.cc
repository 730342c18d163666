// `tensortrace record -o PATTERN`: %h, %r (from the launchers' rank variables and TF_CONFIG)
// and %p expanded, and the rank named so in the trace; bad patterns are one line (CommRecord).
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "comm_test_util.h"
#include "core/files.h"
#include "core/ids.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::RunCmd;
using test::TempDir;

// ---- record -o with %h, %r and %p ----

// The one entry `record -o PATTERN` made in `dir`, with RANK-like variables `env` set.
std::string RecordedAs(const std::string& dir, const std::string& pattern,
                       const std::map<std::string, std::string>& env) {
  auto r = RunCmd({TT_CLI, "record", "--quiet", "-o", dir + "/" + pattern, "--", "true"}, env);
  EXPECT_EQ(r.status, 0) << r.err;
  std::vector<std::string> made = ListDirectory(dir);
  EXPECT_EQ(made.size(), 1u);
  std::string name = made.empty() ? "" : made[0];
  std::filesystem::remove_all(dir + "/" + name);
  return name;
}

TEST(CommRecord, OutputPatternExpandsHostRankAndPid) {
  TempDir d;
  std::string host = HostName();
  EXPECT_EQ(RecordedAs(d.path(), "%h-%r", {{"RANK", "3"}}), host + "-3");
  EXPECT_EQ(RecordedAs(d.path(), "r%r", {{"OMPI_COMM_WORLD_RANK", "2"}}), "r2");
  EXPECT_EQ(RecordedAs(d.path(), "r%r", {{"PMI_RANK", "4"}}), "r4");
  EXPECT_EQ(RecordedAs(d.path(), "r%r", {{"SLURM_PROCID", "5"}}), "r5");
  EXPECT_EQ(RecordedAs(d.path(), "w%r",
                       {{"TF_CONFIG", R"({"cluster": {"worker": ["a:1", "b:2"]}, )"
                                      R"("task": {"type": "worker", "index": 1}})"}}),
            "w1");
  EXPECT_EQ(RecordedAs(d.path(), "100%%", {}), "100%");
  std::string p = RecordedAs(d.path(), "x-%p", {});
  EXPECT_TRUE(std::regex_match(p, std::regex("x-[0-9]+"))) << p;
  // The rank in the trace is the one the directory is named by.
  auto r = RunCmd({TT_CLI, "record", "--quiet", "-o", d / "t%r", "--", "true"}, {{"RANK", "6"}});
  ASSERT_EQ(r.status, 0) << r.err;
  auto info = RunCmd({TT_CLI, "info", d / "t6", "--json"});
  ASSERT_EQ(info.status, 0) << info.err;
  EXPECT_EQ(json::parse(info.out)["processes"][0]["rank"]["rank"], 6) << info.out.substr(0, 2000);
}

TEST(CommRecord, OutputPatternErrorsAreOneLine) {
  TempDir d;
  for (const char* pattern : {"%r", "a%x", "b%"}) {
    // A rank the test's own environment may hold is cleared (empty: not a rank).
    auto r =
        RunCmd({TT_CLI, "record", "-o", d / pattern, "--", "true"}, {{"RANK", ""},
                                                                     {"OMPI_COMM_WORLD_RANK", ""},
                                                                     {"PMI_RANK", ""},
                                                                     {"SLURM_PROCID", ""},
                                                                     {"TF_CONFIG", ""}});
    EXPECT_EQ(r.status, 2) << pattern << ": " << r.err;
    EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(pattern), std::string::npos) << r.err;
  }
  EXPECT_TRUE(ListDirectory(d.path()).empty());
}

}  // namespace
}  // namespace tt
