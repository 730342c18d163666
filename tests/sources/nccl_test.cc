// The NCCL source (src/sources/nccl): our profiler plugin driven by a stand-in for NCCL
// (tests/programs/fake_nccl_loader.cc, which opens NCCL_PROFILER_PLUGIN and looks up the
// versioned symbol as NCCL does), recorded as a job of two ranks: comm counts exactly the
// collectives they ran, with NCCL's bytes, algorithm and protocol, each instance matched on
// both ranks by communicator and sequence number, and nccl-tests' bus bandwidth; the proxy
// operations and steps are in the trace; bad calls are refused with an error code; record
// points NCCL at the plugin and leaves a user's NCCL_PROFILER_PLUGIN alone.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "format/layout.h"
#include "test_util.h"
#include "trace_view.h"

namespace tt {
namespace {

using nlohmann::json;
using test::RunCmd;
using test::TempDir;

constexpr int64_t kAllReduceBytes = (1 << 18) * 4;      // float32
constexpr int64_t kAllGatherBytes = (1 << 16) * 2 * 2;  // bfloat16, per rank, x 2 ranks
constexpr int kChannels = 2, kSteps = 4;

json CommJson(const std::string& dir) {
  auto r = RunCmd({TT_CLI, "comm", dir, "--json"}, {}, 120);
  EXPECT_EQ(r.status, 0) << r.err;
  return r.status == 0 ? json::parse(r.out) : json::object();
}

// Records the fake loader's two ranks (`version` of the interface, n all-reduces, m
// all-gathers) into d/t.
void RecordJob(const TempDir& d, const std::string& version, int n, int m) {
  auto r = RunCmd({TT_CLI, "record", "--quiet", "-o", d / "t", "--", TT_FAKE_NCCL_LOADER, "job",
                   version, std::to_string(n), std::to_string(m)},
                  {}, 120);
  ASSERT_EQ(r.status, 0) << r.err << r.out;
}

// Checks comm's view of the job: n all-reduces and m all-gathers per rank, each matched.
void CheckComm(const json& c, int n, int m) {
  ASSERT_EQ(c["ranks"].size(), 2u) << c.dump(1);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(c["ranks"][i]["rank"], static_cast<int>(i));
    EXPECT_EQ(c["ranks"][i]["source"], "nccl");
    EXPECT_EQ(c["ranks"][i]["calls"], n + m);
  }
  ASSERT_EQ(c["instances"].size(), static_cast<size_t>(n + m));
  EXPECT_EQ(c["matched"], n + m);
  EXPECT_EQ(c["unmatched"], 0);
  int allreduce = 0, allgather = 0;
  for (const json& in : c["instances"]) {
    bool ar = in["collective"] == "allreduce";
    (ar ? allreduce : allgather)++;
    EXPECT_EQ(in["group"], "0x5eed0000abcd1234");
    EXPECT_TRUE(in["matched"]);
    EXPECT_EQ(in["nranks"], 2);
    EXPECT_EQ(in["arrivals"].size(), 2u);
    EXPECT_EQ(in["key"], in["seq"]);  // NCCL's sequence number, per collective kind
    EXPECT_EQ(in["bytes"], ar ? kAllReduceBytes : kAllGatherBytes);
    EXPECT_FALSE(in["bytes_differ"]);
    EXPECT_EQ(in["algorithm"], ar ? "Ring" : "Tree");
    EXPECT_EQ(in["protocol"], "Simple");
    // Once both entered, the last rank's proxy work: its steps sleep 100 us each.
    EXPECT_GE(in["duration_ns"].get<int64_t>(), kChannels * kSteps * 100000);
    double algbw = in["bytes"].get<double>() / in["duration_ns"].get<double>();  // GB/s
    ASSERT_TRUE(in["algbw_gbs"].is_number());
    EXPECT_NEAR(in["algbw_gbs"].get<double>(), algbw, algbw * 1e-9);
    double factor = ar ? 2.0 * (2 - 1) / 2 : (2.0 - 1) / 2;  // nccl-tests' factors, n = 2
    EXPECT_NEAR(in["busbw_gbs"].get<double>(), algbw * factor, algbw * 1e-9);
    if (ar) {
      EXPECT_EQ(in["straggler_index"], 1);  // rank 1 waits for rank 0 to enter each
    }
  }
  EXPECT_EQ(allreduce, n);
  EXPECT_EQ(allgather, m);
}

// Each rank's events named `name`.
std::vector<size_t> CountPerProcess(const test::TraceView& v, const std::string& name) {
  std::vector<size_t> out;
  for (const auto& p : v.procs) {
    size_t k = 0;
    for (const auto& e : p.events) k += e.name == name;
    if (p.meta.pid != 0) out.push_back(k);
  }
  return out;
}

TEST(NcclSource, TwoRanksCollectivesMatchedBySequenceNumber) {
  TempDir d;
  const int n = 3, m = 2;
  RecordJob(d, "v6", n, m);
  CheckComm(CommJson(d / "t"), n, m);
  // The table names the algorithm and protocol.
  auto table = RunCmd({TT_CLI, "comm", d / "t"});
  EXPECT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("algorithm"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("Ring/Simple"), std::string::npos) << table.out;
  // The proxy work: per rank, each operation's channels with their steps (send and receive
  // alternate by channel), plus the send/receive pair's one channel.
  auto v = test::LoadTrace(d / "t");
  EXPECT_TRUE(v.problems.empty());
  auto ar = CountPerProcess(v, "nccl.AllReduce"), steps_s = CountPerProcess(v, "nccl.step_send"),
       steps_r = CountPerProcess(v, "nccl.step_recv"), ops = CountPerProcess(v, "nccl.proxy_send"),
       kch = CountPerProcess(v, "nccl.kernel_channel"), send = CountPerProcess(v, "nccl.Send"),
       recv = CountPerProcess(v, "nccl.Recv"), groups = CountPerProcess(v, "nccl.group");
  size_t ranks = 0;
  for (size_t i = 0; i < ar.size(); ++i) {
    if (ar[i] == 0) continue;  // the loader's parent
    ranks++;
    EXPECT_EQ(ar[i], static_cast<size_t>(n));
    EXPECT_EQ(groups[i], static_cast<size_t>(n + m));
    EXPECT_EQ(kch[i], static_cast<size_t>((n + m) * kChannels + 1));
    EXPECT_EQ(send[i] + recv[i], 1u);
    size_t send_steps = static_cast<size_t>((n + m) * kSteps + send[i] * kSteps);
    EXPECT_EQ(steps_s[i], send_steps);
    EXPECT_EQ(steps_r[i], static_cast<size_t>((n + m) * kSteps + recv[i] * kSteps));
    EXPECT_EQ(ops[i], static_cast<size_t>(n + m) + send[i]);
  }
  EXPECT_EQ(ranks, 2u);
}

TEST(NcclSource, OlderInterfaceVersionsRecordTheSame) {
  for (const char* version : {"v5", "v4"}) {
    SCOPED_TRACE(version);
    TempDir d;
    RecordJob(d, version, 2, 1);
    CheckComm(CommJson(d / "t"), 2, 1);
  }
}

TEST(NcclSource, BadCallsAreRefusedWithErrorCodes) {
  // Alone (the runtime off: the plugin still answers) and recorded.
  auto r = RunCmd({TT_FAKE_NCCL_LOADER, "bad"}, {{"NCCL_PROFILER_PLUGIN", TT_NCCL_PLUGIN}});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "ok\n");
  TempDir d;
  r = RunCmd({TT_CLI, "record", "--quiet", "-o", d / "t", "--", TT_FAKE_NCCL_LOADER, "bad"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("ok\n"), std::string::npos) << r.out;
}

TEST(NcclSource, AFullHandlePoolDropsEventsCountedAndNeverBlocks) {
  // 20000 events open at once against the plugin's 16384 handles: the rest get none (NCCL
  // then makes no more calls for them), each counted as a drop of the process.
  TempDir d;
  auto r = RunCmd(
      {TT_CLI, "record", "--quiet", "-o", d / "t", "--", TT_FAKE_NCCL_LOADER, "flood", "20000"}, {},
      120);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("refused 3616\n"), std::string::npos) << r.out;
  auto info = RunCmd({TT_CLI, "info", d / "t", "--json"});
  ASSERT_EQ(info.status, 0) << info.err;
  json j = json::parse(info.out);
  EXPECT_EQ(j["totals"]["dropped"], 3616) << info.out;
  auto v = test::LoadTrace(d / "t");
  EXPECT_EQ(CountPerProcess(v, "nccl.group"), std::vector<size_t>{16384});
}

TEST(NcclSource, ExportsTheVersionsNcclLooksFor) {
  for (const char* sym : {"ncclProfiler_v6", "ncclProfiler_v5", "ncclProfiler_v4"})
    EXPECT_EQ(
        RunCmd({TT_FAKE_NCCL_LOADER, "symbol", sym}, {{"NCCL_PROFILER_PLUGIN", TT_NCCL_PLUGIN}})
            .status,
        0)
        << sym;
}

// What the traced command sees in NCCL_PROFILER_PLUGIN.
test::RunResult PluginSeen(const std::vector<std::string>& record_opts,
                           const std::map<std::string, std::string>& env) {
  TempDir d;
  std::vector<std::string> argv = {TT_CLI, "record", "-o", d / "t"};
  argv.insert(argv.end(), record_opts.begin(), record_opts.end());
  for (const char* a : {"--", "sh", "-c", "echo \"plugin=$NCCL_PROFILER_PLUGIN\""})
    argv.push_back(a);
  return RunCmd(argv, env);
}

TEST(NcclSource, RecordPointsNcclAtThePluginUnlessTheUserSetOne) {
  auto r = PluginSeen({"--quiet"}, {});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("plugin=/"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("/libtensortrace_nccl.so\n"), std::string::npos) << r.out;
  r = PluginSeen({"--quiet", "--sources", "cuda"}, {});
  EXPECT_NE(r.out.find("plugin=\n"), std::string::npos) << r.out;
  r = PluginSeen({}, {{"NCCL_PROFILER_PLUGIN", "/opt/own/libnccl-profiler.so"}});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("plugin=/opt/own/libnccl-profiler.so\n"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("NCCL_PROFILER_PLUGIN is set"), std::string::npos) << r.err;
  r = PluginSeen({"--quiet"}, {{"NCCL_PROFILER_PLUGIN", "none"}});
  EXPECT_NE(r.out.find("plugin=none\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("NCCL_PROFILER_PLUGIN"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tt
