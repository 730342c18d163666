// PyTorch's NCCL backend as Kineto reports it, through the Kineto importer and `comm`. No GPU
// here, so the two ranks' Kineto files are written by the test, with the event names and the
// record_param_comms fields torch's own profiler test and trace validator check
// (torch/testing/_internal/distributed/distributed_test.py, torch/profiler/_trace_validator.py,
// torch 2.15): "Collective name", "dtype" ("Float"), "In msg nelems", "Out msg nelems",
// "Group size", "Process Group Description" ("default_pg"), and a "wait" record of the
// program's wait on a collective. The backend's own range, "nccl:all_reduce", is one of the
// range names libtorch_cuda.so holds; whether it carries its input's shape is not known here,
// so it has none, which is the harder case.
#include <gtest/gtest.h>
#include <time.h>

#include <nlohmann/json.hpp>

#include "core/files.h"
#include "format/import/kineto/import.h"
#include "test_util.h"

using nlohmann::json;
using namespace tt;
using namespace tt::test;

namespace {

constexpr int kSteps = 3;
constexpr int64_t kNelems = 1024;  // floats per all-reduce: 4096 bytes

json ParamComms(const std::string& coll, int rank, int64_t nelems) {
  return {{"Collective name", coll},
          {"dtype", coll == "allreduce" ? "Float" : "Byte"},
          {"In msg nelems", nelems},
          {"Out msg nelems", nelems},
          {"Group size", 2},
          {"Global rank start", 0},
          {"Global rank stride", 1},
          {"Process Group Name", "0"},
          {"Process Group Description", "default_pg"},
          {"Process Group Ranks", "[0, 1]"},
          {"Rank", rank}};
}

// Rank `rank`'s Kineto file: before the steps the communicator's creation ("init"); in each
// 2 ms step a matmul, then c10d::allreduce_ holding record_param_comms holding the backend's
// range (rank 1 enters 50 us after rank 0), then the program's wait on it.
json RankFile(int64_t pid, int rank, uint64_t base_ns, bool backend_range) {
  json events = json::array();
  auto add = [&](const std::string& cat, const std::string& name, double ts, double dur,
                 json args = json::object()) {
    events.push_back({{"ph", "X"},
                      {"cat", cat},
                      {"name", name},
                      {"pid", pid},
                      {"tid", 100},
                      {"ts", ts},
                      {"dur", dur},
                      {"args", args}});
  };
  add("cpu_op", "record_param_comms", 100, 20, ParamComms("init", rank, 0));
  for (int i = 0; i < kSteps; ++i) {
    double t = 1000.0 + 2000.0 * i, d = 50.0 * rank;
    add("user_annotation", "ProfilerStep#" + std::to_string(i + 1), t, 2000);
    add("cpu_op", "aten::mm", t + 10, 500, {{"Input Dims", {{64, 64}, {64, 64}}}});
    add("cpu_op", "c10d::allreduce_", t + 600 + d, 300,
        {{"Input Dims", {{{kNelems}}, json::array(), json::array()}},
         {"Input type", {"GenericList", "ScriptObject", "ScriptObject"}}});
    add("cpu_op", "record_param_comms", t + 610 + d, 280, ParamComms("allreduce", rank, kNelems));
    if (backend_range) add("user_annotation", "nccl:all_reduce", t + 620 + d, 260);
    add("cpu_op", "record_param_comms", t + 1000, 10, ParamComms("wait", rank, 0));
  }
  return {{"baseTimeNanoseconds", base_ns}, {"traceEvents", events}};
}

// Two recordings, each given one rank's Kineto file; `comm` over both.
json CommOfTwoRanks(const TempDir& d, bool backend_range) {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  uint64_t base = static_cast<uint64_t>(now.tv_sec) * 1000000000ull + now.tv_nsec;
  std::vector<std::string> traces;
  for (int rank = 0; rank < 2; ++rank) {
    std::string trace = d / ("r" + std::to_string(rank));
    auto r = RunCmd({TT_CLI, "record", "-o", trace, "--", TT_PROGRAM, "threads", "1", "10"});
    EXPECT_EQ(r.status, 0) << r.err;
    int64_t pid = RecordedPid(trace);
    EXPECT_GT(pid, 0);
    std::string file = d / ("k" + std::to_string(rank) + ".pt.trace.json");
    WriteFileAtomic(file, RankFile(pid, rank, base, backend_range).dump());
    auto imported = ImportKineto(trace, pid, {file}, std::nullopt, 1 << 24);
    EXPECT_TRUE(imported.errors.empty()) << imported.errors[0];
    traces.push_back(trace);
  }
  auto r = RunCmd({TT_CLI, "comm", traces[0], traces[1], "--json"});
  EXPECT_EQ(r.status, 0) << r.err;
  return r.status == 0 ? json::parse(r.out) : json::object();
}

// What both shapes must give: one all-reduce per step on each rank, of 4096 bytes, matched
// across the two ranks with rank 1 the straggler; neither "wait" nor "init" is a collective.
void ExpectOneAllReducePerStep(const json& j, const std::string& source) {
  ASSERT_EQ(j["ranks"].size(), 2u) << j.dump(1);
  for (int rank = 0; rank < 2; ++rank) {
    const json& r = j["ranks"][rank];
    EXPECT_EQ(r["rank"], rank) << r.dump(1);
    EXPECT_EQ(r["source"], source);
    EXPECT_EQ(r["calls"], kSteps);
    EXPECT_EQ(r["bytes"], kSteps * kNelems * 4);
  }
  ASSERT_EQ(j["collectives"].size(), 1u) << j["collectives"].dump(1);
  EXPECT_EQ(j["collectives"][0]["collective"], "allreduce");
  EXPECT_EQ(j["matched"], kSteps);
  EXPECT_EQ(j["unmatched"], 0);
  for (const json& in : j["instances"]) {
    EXPECT_EQ(in["bytes"], kNelems * 4);
    EXPECT_EQ(in["group"], "0");
    EXPECT_EQ(in["straggler_index"], 1);
    // 50 us, to within what the two recordings' CLOCK_REALTIME offsets differ by (5 ns once
    // under ASan; each recording measures its own).
    EXPECT_NEAR(in["skew_ns"].get<double>(), 50000, 20000) << in.dump(1);
  }
}

}  // namespace

// With the backend's range inside record_param_comms: the range stands for the collective and
// takes record_param_comms' sizes, group and rank.
TEST(KinetoNccl, BackendRangesTakeTheirCollectivesSizes) {
  TempDir d;
  ExpectOneAllReducePerStep(CommOfTwoRanks(d, true), "backend");
}

// Without it: record_param_comms stands for the collective; its "wait" and "init" do not.
TEST(KinetoNccl, ParamCommsWithoutBackendRanges) {
  TempDir d;
  ExpectOneAllReducePerStep(CommOfTwoRanks(d, false), "collective");
}
