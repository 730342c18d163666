// `tensortrace export` on a trace with known content: Chrome JSON and CSV.
#include <gtest/gtest.h>
#include <zlib.h>

#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/files.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::RunCmd;
using test::TempDir;

constexpr int kSteps = 5;

class Export : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    auto r = RunCmd({TT_SYNTHETIC, std::to_string(kSteps), "100", "1"},
                    {{"TENSORTRACE_DIR", dir_->path()}});
    ASSERT_EQ(r.status, 0) << r.err;
  }
  static void TearDownTestSuite() { delete dir_; }
  static test::RunResult Export_(std::vector<std::string> args) {
    std::vector<std::string> a{TT_CLI, "export", dir_->path()};
    a.insert(a.end(), args.begin(), args.end());
    return RunCmd(a);
  }
  static TempDir* dir_;
};
TempDir* Export::dir_ = nullptr;

std::map<std::string, int> CountPhases(const json& j) {
  std::map<std::string, int> n;
  for (const auto& e : j["traceEvents"]) n[e["ph"].get<std::string>()]++;
  return n;
}

TEST_F(Export, ChromeJsonHoldsEveryEventAndFlow) {
  TempDir out;
  auto r = Export_({"--format", "chrome", "-o", out / "t.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  json j = json::parse(ReadFile(out / "t.json"));
  auto n = CountPhases(j);
  // Per step: 8 host slices (step, 3 ops, 3 launches, 1 primitive) + 3 device activities.
  EXPECT_EQ(n["X"], 11 * kSteps);
  EXPECT_EQ(n["i"], 2 * kSteps - 1);  // allocations, and frees from the second step on
  EXPECT_EQ(n["s"], 3 * kSteps);      // every launch starts a flow ...
  EXPECT_EQ(n["f"], 3 * kSteps);      // ... that ends on its kernel or copy
  EXPECT_EQ(n["M"], 1 + 3);           // the process, its thread and two device queues
  // The thread's stream opens under the process's name; the job renames it right after.
  std::set<std::string> threads;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name") threads.insert(e["args"]["name"]);
  EXPECT_TRUE(threads.count("worker-0")) << j.dump().substr(0, 2000);
  std::map<std::string, int> names;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "X") names[e["name"]]++;
  EXPECT_EQ(names["model/dense/MatMul:MatMul"], kSteps);
  EXPECT_EQ(names["volta_sgemm_128x64_nn"], kSteps);
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X" && e["name"] == "volta_sgemm_128x64_nn") {
      EXPECT_EQ(e["cat"], "gpu_kernel");
      EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 30.0);  // microseconds, to the nanosecond
      EXPECT_EQ(e["args"]["grid"], "128x1x1");
      EXPECT_EQ(e["args"]["registers"], 64);
    }
  }
  EXPECT_NE(r.err.find("wrote " + std::to_string(11 * kSteps + 2 * kSteps - 1) + " events and " +
                       std::to_string(3 * kSteps) + " flows"),
            std::string::npos)
      << r.err;
}

TEST_F(Export, TimestampsMatchTheTraceToTheNanosecond) {
  TempDir out;
  ASSERT_EQ(Export_({"--format", "chrome", "-o", out / "t.json"}).status, 0);
  ASSERT_EQ(Export_({"--format", "csv", "-o", out / "t.csv"}).status, 0);
  // The first sgemm kernel: its start in the CSV (ns) and in the JSON (us, 3 decimals).
  std::string json_text = ReadFile(out / "t.json");
  std::istringstream csv(ReadFile(out / "t.csv"));
  std::string line, start_ns;
  while (std::getline(csv, line))
    if (line.find(",volta_sgemm_128x64_nn,") != std::string::npos) {
      std::vector<std::string> f;
      std::stringstream ls(line);
      for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
      start_ns = f[7];
      EXPECT_EQ(std::stoull(f[8]) - std::stoull(f[7]), 30000u);
      break;
    }
  ASSERT_FALSE(start_ns.empty());
  std::string us = start_ns.substr(0, start_ns.size() - 3) + "." + start_ns.substr(start_ns.size() - 3);
  EXPECT_NE(json_text.find("\"ts\":" + us + ",\"dur\":30.000,\"name\":\"volta_sgemm"),
            std::string::npos)
      << us;
}

TEST_F(Export, CsvHasOneRowPerEvent) {
  TempDir out;
  auto r = Export_({"--format", "csv", "-o", out / "t.csv"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string csv = ReadFile(out / "t.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "pid,track_kind,track_id,track_name,kind,category,name,start_ns,end_ns,duration_ns,"
            "self_ns,depth,parent,value,args");
  EXPECT_EQ(test::CountLines(csv), 1u + 11 * kSteps + 2 * kSteps - 1);
  EXPECT_NE(csv.find(",slice,runtime_api,cudaLaunchKernel,"), std::string::npos);
  // A launch row: its parent op, no value, its correlation id.
  EXPECT_NE(csv.find(",model/dense/MatMul:MatMul,,correlation_id="), std::string::npos) << csv;
  EXPECT_NE(csv.find("bytes=1024;addr="), std::string::npos);
}

TEST_F(Export, GzipAndSelection) {
  TempDir out;
  ASSERT_EQ(Export_({"--format", "chrome", "-o", out / "t.json.gz"}).status, 0);
  gzFile gz = gzopen((out / "t.json.gz").c_str(), "rb");
  ASSERT_NE(gz, nullptr);
  std::string text;
  char buf[65536];
  for (int n; (n = gzread(gz, buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  gzclose(gz);
  EXPECT_EQ(CountPhases(json::parse(text))["X"], 11 * kSteps);

  ASSERT_EQ(Export_({"--format", "chrome", "-o", out / "s.json", "--steps", "1:2"}).status, 0);
  EXPECT_EQ(CountPhases(json::parse(ReadFile(out / "s.json")))["X"], 11 * 2);

  auto r = Export_({"--format", "csv", "-o", out / "m.csv", "--max-events", "10"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(test::CountLines(ReadFile(out / "m.csv")), 1u + 10);
  EXPECT_NE(r.err.find("--max-events left out"), std::string::npos) << r.err;
}

TEST_F(Export, BadInputLeavesNoFile) {
  TempDir out;
  auto one_line = [&](std::vector<std::string> args, const std::string& what) {
    auto r = Export_(args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
  };
  one_line({"--format", "svg", "-o", out / "x"}, "unknown format 'svg'");
  one_line({"-o", out / "x"}, "no --format given");
  one_line({"--format", "chrome"}, "no output given");
  one_line({"--format", "chrome", "-o", out.path()}, "is a directory");
  one_line({"--format", "chrome", "-o", "/no/such/dir/t.json"}, "cannot create /no/such/dir/t.json");
  one_line({"--format", "chrome", "-o", out / "e.json", "--steps", "100:200"},
           "no step matches the selection");
  one_line({"--format", "csv", "-o", out / "z.csv", "--max-events", "0"}, "at least 1");
  EXPECT_TRUE(ListDirectory(out.path()).empty());  // no partial or temporary file
}

}  // namespace
}  // namespace tt
