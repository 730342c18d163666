// Several recordings read as one job on one clock (analysis/job/job_clock.h): a job of real
// all-reduces (programs/clock_job.cc) recorded once per rank, rank 1's clock 5 ms ahead
// (TENSORTRACE_TEST_CLOCK_SHIFT_NS). stats shows the offset applied; the Chrome JSON, Perfetto
// and XSpace exports and the report put every all-reduce's exits after both ranks entered;
// replay joins the ranks at every step's all-reduce; diff reads each side as one job.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "core/files.h"
#include "export/proto/perfetto_trace.pb.h"
#include "format/proto/xplane.pb.h"
#include "test_json.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::RunCmd;
using test::RunJson;
using test::TempDir;
namespace pp = perfetto::protos;
namespace tp = tensorflow::profiler;

constexpr int64_t kShift = 5000000;  // rank 1's clock runs this far ahead
constexpr int kCollectives = 40;

// Each process's all-reduces as [enter, exit] (ns), in order.
using Spans = std::map<int64_t, std::vector<std::pair<uint64_t, uint64_t>>>;

// No rank leaves an all-reduce before both entered it (the i-th of each rank is one instance).
void ExpectCausal(const Spans& by_pid, const std::string& where) {
  ASSERT_EQ(by_pid.size(), 2u) << where;
  const auto& a = by_pid.begin()->second;
  const auto& b = by_pid.rbegin()->second;
  ASSERT_EQ(a.size(), static_cast<size_t>(kCollectives)) << where;
  ASSERT_EQ(b.size(), static_cast<size_t>(kCollectives)) << where;
  for (size_t i = 0; i < a.size(); ++i) {
    uint64_t last_enter = std::max(a[i].first, b[i].first);
    EXPECT_GE(a[i].second, last_enter) << where << ": all-reduce " << i;
    EXPECT_GE(b[i].second, last_enter) << where << ": all-reduce " << i;
  }
}

uint64_t Ns(const json& micros) {
  return static_cast<uint64_t>(std::llround(micros.get<double>() * 1000));
}

Spans ChromeSpans(const std::string& file) {
  Spans s;
  json j = json::parse(ReadFile(file));
  for (const auto& e : j["traceEvents"])
    if (e.value("ph", "") == "X" && e.value("name", "") == "allreduce")
      s[e["pid"].get<int64_t>()].push_back({Ns(e["ts"]), Ns(e["ts"]) + Ns(e["dur"])});
  for (auto& [pid, v] : s) std::sort(v.begin(), v.end());
  return s;
}

Spans PerfettoSpans(const std::string& file) {
  pp::Trace t;
  EXPECT_TRUE(t.ParseFromString(ReadFile(file)));
  std::map<uint64_t, int64_t> pid_of;                         // track uuid -> pid
  std::map<uint32_t, std::map<uint64_t, std::string>> names;  // sequence -> iid -> name
  std::map<uint64_t, uint64_t> open;  // track -> start of an open all-reduce
  Spans s;
  for (const auto& p : t.packet()) {
    uint32_t seq = p.trusted_packet_sequence_id();
    for (const auto& n : p.interned_data().event_names()) names[seq][n.iid()] = n.name();
    if (p.has_track_descriptor()) {
      const auto& d = p.track_descriptor();
      if (d.has_thread()) pid_of[d.uuid()] = d.thread().pid();
      if (d.has_process()) pid_of[d.uuid()] = d.process().pid();
    }
    if (!p.has_track_event()) continue;
    const auto& e = p.track_event();
    std::string name = e.has_name_iid() ? names[seq][e.name_iid()] : e.name();
    if (e.type() == pp::TrackEvent::TYPE_SLICE_BEGIN && name == "allreduce") {
      open[e.track_uuid()] = p.timestamp();
    } else if (e.type() == pp::TrackEvent::TYPE_SLICE_END && open.count(e.track_uuid())) {
      s[pid_of[e.track_uuid()]].push_back({open[e.track_uuid()], p.timestamp()});
      open.erase(e.track_uuid());
    }
  }
  for (auto& [pid, v] : s) std::sort(v.begin(), v.end());
  return s;
}

// The all-reduces of every line (thread) of the XSpace export's one file under `logdir`.
Spans XSpaceSpans(const std::string& logdir) {
  Spans s;
  std::string profile = logdir + "/plugins/profile";
  for (const auto& run : ListDirectory(profile))
    for (const auto& f : ListDirectory(profile + "/" + run)) {
      tp::XSpace x;
      EXPECT_TRUE(x.ParseFromString(ReadFile(profile + "/" + run + "/" + f))) << f;
      for (const auto& p : x.planes())
        for (const auto& l : p.lines())
          for (const auto& e : l.events()) {
            auto md = p.event_metadata().find(e.metadata_id());
            if (md == p.event_metadata().end() || md->second.name() != "allreduce") continue;
            uint64_t start = static_cast<uint64_t>(l.timestamp_ns()) +
                             static_cast<uint64_t>(e.offset_ps()) / 1000;
            s[l.id()].push_back({start, start + static_cast<uint64_t>(e.duration_ps()) / 1000});
          }
    }
  for (auto& [line, v] : s) std::sort(v.begin(), v.end());
  return s;
}

class JobClock : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    d_ = new TempDir;
    test::RecordClockJob(TT_CLOCK_JOB, *d_, kShift, kCollectives);
  }
  static void TearDownTestSuite() { delete d_; }
  static TempDir* d_;
};
TempDir* JobClock::d_ = nullptr;

TEST_F(JobClock, StatsShowsTheOffsetApplied) {
  json j = RunJson({TT_CLI, "stats", *d_ / "r0", *d_ / "r1", "--view", "op", "--json"});
  ASSERT_EQ(j["clocks"].size(), 2u) << j.dump().substr(0, 2000);
  EXPECT_EQ(j["clocks"][0]["trace"], *d_ / "r0");
  EXPECT_EQ(j["clocks"][0]["method"], "reference");
  EXPECT_EQ(j["clocks"][0]["offset_ns"], 0);
  const json& c = j["clocks"][1];
  EXPECT_EQ(c["trace"], *d_ / "r1");
  EXPECT_EQ(c["method"], "causality") << c.dump();
  EXPECT_EQ(c["constraints"], kCollectives);
  int64_t off = c["offset_ns"];
  EXPECT_NEAR(static_cast<double>(off), -kShift, 100000) << c.dump();
  std::printf("stats: rank 1's clock shifted by %lld ns, offset applied %lld ns (error %lld ns)\n",
              static_cast<long long>(kShift), static_cast<long long>(off),
              static_cast<long long>(off + kShift));
  // The text says it too; one recording alone is read as recorded (no alignment, no scan).
  auto text = RunCmd({TT_CLI, "stats", *d_ / "r0", *d_ / "r1"});
  EXPECT_NE(text.out.find("note: clock of " + *d_ / "r1" + ": -"), std::string::npos) << text.out;
  json one = RunJson({TT_CLI, "stats", *d_ / "r1", "--json"});
  EXPECT_TRUE(one["clocks"].empty()) << one["clocks"].dump();
}

TEST_F(JobClock, ExportsPutEveryExitAfterTheLastEntry) {
  const TempDir& d = *d_;
  for (const char* f : {"chrome", "perfetto", "xspace"}) {
    auto r = RunCmd({TT_CLI, "export", d / "r0", d / "r1", "--format", f, "-o", d / f});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("clock of " + d / "r1" + ": -"), std::string::npos) << r.err;
  }
  Spans chrome = ChromeSpans(d / "chrome");
  ExpectCausal(chrome, "chrome");
  ExpectCausal(PerfettoSpans(d / "perfetto"), "perfetto");
  ExpectCausal(XSpaceSpans(d / "xspace"), "xspace");
  // Rank 1's times are its recording's, moved by exactly the offset stats shows.
  json j = RunJson({TT_CLI, "stats", d / "r0", d / "r1", "--json"});
  int64_t off = j["clocks"][1]["offset_ns"];
  auto r = RunCmd({TT_CLI, "export", d / "r1", "--format", "chrome", "-o", d / "alone"});
  ASSERT_EQ(r.status, 0) << r.err;
  Spans alone = ChromeSpans(d / "alone");
  ASSERT_EQ(alone.size(), 1u);
  ASSERT_TRUE(chrome.count(alone.begin()->first));
  const auto& moved = chrome[alone.begin()->first];
  ASSERT_EQ(moved.size(), alone.begin()->second.size());
  for (size_t i = 0; i < moved.size(); ++i)
    EXPECT_EQ(static_cast<int64_t>(moved[i].first - alone.begin()->second[i].first), off) << i;
  // Read as recorded, rank 1 enters most all-reduces after rank 0 left them (each takes well
  // under the 5 ms shift once both run): the shift is real, and the exports above undid it.
  int64_t pid1 = alone.begin()->first;
  const auto& rank0 =
      chrome.begin()->first == pid1 ? chrome.rbegin()->second : chrome.begin()->second;
  const auto& raw1 = alone.begin()->second;
  size_t violated = 0;
  for (size_t i = 0; i < raw1.size() && i < rank0.size(); ++i)
    violated += raw1[i].first > rank0[i].second;
  EXPECT_GT(violated, raw1.size() / 2);
}

TEST_F(JobClock, ReportShowsTheOffsetsAndCausalCollectives) {
  const TempDir& d = *d_;
  auto r = RunCmd({TT_CLI, "report", d / "r0", d / "r1", "-o", d / "r.html"}, {}, 180);
  ASSERT_EQ(r.status, 0) << r.err;
  std::string html = ReadFile(d / "r.html");
  auto clocks = test::HtmlTable(html, "comm-clocks");
  ASSERT_EQ(clocks.size(), 2u);
  EXPECT_EQ(clocks[0][0], d / "r0");
  EXPECT_EQ(clocks[1][0], d / "r1");
  EXPECT_EQ(clocks[1][4], "causality");
  EXPECT_NEAR(std::stod(clocks[1][3]), -kShift, 100000) << clocks[1][3];
  // Every instance matched on both ranks.
  auto instances = test::HtmlTable(html, "comm-instances");
  ASSERT_FALSE(instances.empty());
  for (const auto& row : instances) EXPECT_EQ(row[0].find("unmatched"), std::string::npos);
}

// Replay reads each rank's ops and its arrivals at the all-reduces on the job's clock: every
// step's all-reduce joins the two ranks (read as recorded, rank 1's arrivals would fall 5 ms,
// about a dozen steps, away from its ops, and none would).
TEST_F(JobClock, ReplayJoinsEveryStepsAllReduce) {
  const TempDir& d = *d_;
  json j = RunJson({TT_CLI, "replay", d / "r0", d / "r1", "--step-name", "iteration", "--json"});
  ASSERT_EQ(j["steps_replayed"], kCollectives - 1) << j.dump().substr(0, 2000);  // 1 warm-up
  EXPECT_EQ(j["collectives_joined"], kCollectives - 1);
  ASSERT_EQ(j["ranks"].size(), 2u);
  bool noted = false;
  for (const auto& n : j["notes"])
    noted |= n.get<std::string>().rfind("clock of " + d / "r1" + ": -", 0) == 0;
  EXPECT_TRUE(noted) << j["notes"].dump();
}

// diff takes each side as one job of several recordings, split by `--`.
TEST_F(JobClock, DiffReadsEachSideAsOneJob) {
  const TempDir& d = *d_;
  json j = RunJson({TT_CLI, "diff", d / "r0", d / "r1", "--", d / "r0", d / "r1", "--step-name",
                    "iteration", "--json"});
  EXPECT_EQ(j["a"]["trace"], d / "r0" + " + " + d / "r1");
  EXPECT_EQ(j["a"]["steps"], j["b"]["steps"]);
  EXPECT_EQ(j["a"]["step_ns"], j["b"]["step_ns"]);
  json half = RunJson(
      {TT_CLI, "diff", d / "r0", d / "r1", "--", d / "r1", "--step-name", "iteration", "--json"});
  EXPECT_EQ(half["b"]["trace"], d / "r1");
  EXPECT_EQ(2 * half["b"]["steps"].get<int64_t>(), half["a"]["steps"].get<int64_t>());
  for (const auto& bad : std::vector<std::vector<std::string>>{
           {"--", d / "r0"}, {d / "r0", "--"}, {d / "r0", "--", d / "r1", "--", d / "r0"}}) {
    std::vector<std::string> argv = {TT_CLI, "diff"};
    argv.insert(argv.end(), bad.begin(), bad.end());
    auto r = RunCmd(argv);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("--"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace tt
