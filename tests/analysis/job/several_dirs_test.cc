// Several trace directories read as one job (one recording per rank or host) by stats, memory,
// export and report; the same recording given twice, by name or as a copy, is one line.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "core/files.h"
#include "test_json.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::RunCmd;
using test::RunJson;
using test::TempDir;

class SeveralDirs : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& [name, args] :
         std::map<std::string, std::vector<std::string>>{{"a", {"1"}}, {"b", {"2", "extra"}}}) {
      std::vector<std::string> argv{TT_CLI, "record", "-o", d_ / name, "--", TT_DIFF_JOB};
      argv.insert(argv.end(), args.begin(), args.end());
      auto r = RunCmd(argv);
      ASSERT_EQ(r.status, 0) << r.err;
    }
  }
  TempDir d_;
};

TEST_F(SeveralDirs, StatsCountsBothRecordings) {
  json j = RunJson({TT_CLI, "stats", d_ / "a", d_ / "b", "--view", "op", "--json"});
  std::map<std::string, int64_t> calls;
  for (const auto& r : j["rows"]) calls[r["name"]] = r["occurrence"];
  // Six steps on each side; Softmax only in b.
  EXPECT_EQ(calls, (std::map<std::string, int64_t>{{"MatMul", 12}, {"Relu", 12}, {"Softmax", 6}}));
  json steps = RunJson({TT_CLI, "stats", d_ / "a", d_ / "b", "--view", "step", "--json"});
  std::set<int64_t> pids;
  for (const auto& r : steps["rows"]) pids.insert(r["pid"].get<int64_t>());
  EXPECT_EQ(steps["rows"].size(), 12u);
  EXPECT_EQ(pids.size(), 2u);
}

TEST_F(SeveralDirs, MemoryExportAndReportReadBoth) {
  json m = RunJson({TT_CLI, "memory", d_ / "a", d_ / "b", "--json"});
  std::set<int64_t> peaks;
  for (const auto& a : m["allocators"]) peaks.insert(a["peak_bytes"].get<int64_t>());
  EXPECT_EQ(peaks, (std::set<int64_t>{1 << 20, 2 << 20})) << m.dump();
  auto e = RunCmd({TT_CLI, "export", d_ / "a", d_ / "b", "--format", "csv", "-o", d_ / "x.csv"});
  ASSERT_EQ(e.status, 0) << e.err;
  std::string csv = ReadFile(d_ / "x.csv");
  size_t softmax = 0;
  for (size_t at = csv.find("Softmax"); at != std::string::npos; at = csv.find("Softmax", at + 1))
    ++softmax;
  EXPECT_EQ(softmax, 6u);
  auto r = RunCmd({TT_CLI, "report", d_ / "a", d_ / "b", "-o", d_ / "r.html"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(ReadFile(d_ / "r.html").find("Softmax"), std::string::npos);
}

TEST_F(SeveralDirs, TheSameRecordingTwiceIsOneLine) {
  auto copy = RunCmd({"cp", "-r", d_ / "a", d_ / "c"});
  ASSERT_EQ(copy.status, 0);
  for (const std::string& second : {d_ / "a", d_ / "c"})
    for (const char* cmd : {"stats", "memory"}) {
      auto r = RunCmd({TT_CLI, cmd, d_ / "a", second});
      EXPECT_EQ(r.status, 2) << cmd << " " << second;
      EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
      EXPECT_NE(r.err.find(second), std::string::npos) << r.err;
    }
}

}  // namespace
}  // namespace tt
