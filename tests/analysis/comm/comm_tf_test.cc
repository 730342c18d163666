// `tensortrace comm` on TensorFlow's MultiWorkerMirroredStrategy on two workers, as one
// recording and as one recording per worker (CommTf). Skipped where python3 cannot import
// TensorFlow.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "comm_test_util.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::CommJson;
using test::ExpectCausal;
using test::RecordEachRank;
using test::RecordInNetworkNamespace;
using test::Said;
using test::TempDir;

// ---- TensorFlow MultiWorkerMirroredStrategy, 2 workers ----

std::map<std::string, json> ByCollective(const json& j) {
  std::map<std::string, json> by;
  for (const auto& c : j["collectives"]) by[c["collective"]] = c;
  return by;
}

// What tf_mwms.py ran, found in the comm view: its all-reduces on both workers, each of one
// gradient's bytes and matched by instance key; the variables' broadcasts from worker 0.
void CheckMwms(const json& j, std::map<std::string, int64_t> said) {
  ASSERT_GT(said["allreduce"], 0);
  ASSERT_EQ(j["ranks"].size(), 2u) << j.dump().substr(0, 3000);
  EXPECT_EQ(j["ranks"][0]["rank"], 0);  // TF_CONFIG's task index
  EXPECT_EQ(j["ranks"][1]["rank"], 1);
  EXPECT_EQ(j["unmatched"], 0) << j["notes"].dump();
  EXPECT_TRUE(j["notes"].empty()) << j["notes"].dump();
  auto by = ByCollective(j);
  ASSERT_TRUE(by.count("allreduce")) << j["collectives"].dump();
  const json& ar = by["allreduce"];
  EXPECT_EQ(ar["calls"], json::array({said["allreduce"], said["allreduce"]}));
  EXPECT_EQ(ar["instances"], said["allreduce"]);
  int64_t steps = said["allreduce"] / 2;  // two gradients a step
  EXPECT_EQ(ar["bytes"], steps * said["grad_bytes"]);
  ASSERT_TRUE(by.count("broadcast")) << j["collectives"].dump();
  EXPECT_EQ(by["broadcast"]["calls"], json::array({said["variables"], said["variables"]}));
  // The variables' initial values, broadcast eagerly: their bytes are the gradients'.
  EXPECT_EQ(by["broadcast"]["bytes"], said["grad_bytes"]);
  EXPECT_EQ(j["collectives"].size(), 2u) << j["collectives"].dump();
  std::map<int64_t, int64_t> sizes;  // bytes -> all-reduces
  for (const auto& in : j["instances"]) {
    EXPECT_TRUE(in["matched"].get<bool>()) << in.dump();
    EXPECT_EQ(in["arrivals"].size(), 2u) << in.dump();
    EXPECT_FALSE(in["key"].is_null()) << in.dump();  // matched by TensorFlow's instance key
    if (in["collective"] == "allreduce") sizes[in["bytes"].get<int64_t>()]++;
  }
  EXPECT_EQ(sizes, (std::map<int64_t, int64_t>{{said["grad0_bytes"], steps},
                                               {said["grad1_bytes"], steps}}));
  ExpectCausal(j);
  // Each worker's communication, per step of its loop (the repeated tf.function call), split
  // into what compute overlapped and what it did not.
  for (const auto& rank : j["ranks"]) {
    uint64_t comm = rank["comm_ns"];
    EXPECT_GT(comm, 0u);
    EXPECT_EQ(rank["overlapped_ns"].get<uint64_t>() + rank["exposed_ns"].get<uint64_t>(), comm);
    uint64_t calls = 0;
    for (const auto& s : rank["steps"]) {
      EXPECT_EQ(s["overlapped_ns"].get<uint64_t>() + s["exposed_ns"].get<uint64_t>(),
                s["comm_ns"].get<uint64_t>());
      calls += s["calls"].get<uint64_t>();
    }
    EXPECT_EQ(rank["steps"].size(), static_cast<size_t>(steps)) << rank["steps"].dump();
    EXPECT_EQ(calls, static_cast<uint64_t>(said["allreduce"])) << rank["steps"].dump();
    std::printf("MWMS worker %s: %zu steps, communication %.3f ms, overlapped %.3f ms\n",
                rank["rank"].dump().c_str(), rank["steps"].size(), static_cast<double>(comm) / 1e6,
                rank["overlapped_ns"].get<double>() / 1e6);
  }
}

// TensorFlow 2.21's profiler now and then crashes as it stops at a MultiWorkerMirroredStrategy
// worker's exit (seen: an abort in TraceMeRecorder::Consume, in
// SplitEventTracker::FindStartAndMerge, free() of an invalid pointer, the collectives' TraceMes
// ending on other threads than they began; and a SIGSEGV): such a recording is made again
// (test::TfProfilerCrashedAtExit).
using test::TfProfilerCrashedAtExit;

TEST(CommTf, MwmsCollectivesMatchedOnBothWorkersAsOneRecording) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  test::RunResult r;
  for (int attempt = 1; attempt <= 3; ++attempt) {
    std::filesystem::remove_all(d / "t");
    if (!RecordInNetworkNamespace(d / "t", "tf_mwms.py", {}, &r))
      GTEST_SKIP() << "cannot make a network namespace (unshare -n)";
    if (!TfProfilerCrashedAtExit(r)) break;
    std::printf("attempt %d: TensorFlow's profiler crashed at a worker's exit\n", attempt);
  }
  ASSERT_EQ(r.status, 0) << r.err;
  json j = CommJson({d / "t"});
  CheckMwms(j, Said(r.out));
  std::printf("MWMS one recording: %s\n", j["collectives"].dump().c_str());
}

std::string TfConfig(int index) {
  return R"({"cluster": {"worker": ["127.0.0.1:23456", "127.0.0.1:23457"]}, "task": )"
         R"({"type": "worker", "index": )" +
         std::to_string(index) + "}}";
}

TEST(CommTf, MwmsOneRecordingPerWorker) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  test::RunResult r;
  for (int attempt = 1; attempt <= 3; ++attempt) {
    for (const char* w : {"w0", "w1"}) std::filesystem::remove_all(d / w);
    if (!RecordEachRank({d / "w0", d / "w1"}, "tf_mwms.py",
                        {{{"TF_CONFIG", TfConfig(0)}},
                         {{"TF_CONFIG", TfConfig(1)}, {"TT_MWMS_SLEEP_MS", "300"}}},
                        d.path(), &r))
      GTEST_SKIP() << "cannot make a network namespace (unshare -n)";
    if (!TfProfilerCrashedAtExit(r)) break;
    std::printf("attempt %d: TensorFlow's profiler crashed at a worker's exit\n", attempt);
  }
  ASSERT_EQ(r.status, 0) << r.err;
  json j = CommJson({d / "w0", d / "w1"});
  CheckMwms(j, Said(r.out));
  EXPECT_EQ(j["ranks"][1]["trace"], d / "w1");
  ASSERT_EQ(j["clocks"].size(), 2u);
  // One host: the workers share CLOCK_MONOTONIC, and causality agrees (or moves it by little).
  EXPECT_LT(std::abs(j["clocks"][1]["offset_ns"].get<int64_t>()), 100000) << j["clocks"].dump();
  std::printf("MWMS per worker: clocks %s\n", j["clocks"].dump().c_str());
  // Worker 1 slept 300 ms before the last step: it is the straggler of that step's
  // all-reduces (the last two by first entry), and worker 0 waited at least about that long
  // (plus what worker 1's step did before its all-reduce beyond worker 0's, after the sleep:
  // up to tens of ms on a busy host).
  std::vector<json> ars;
  for (const auto& in : j["instances"])
    if (in["collective"] == "allreduce") ars.push_back(in);
  ASSERT_EQ(ars.size(), 6u);
  const json& last = ars[4]["wait_ns"] >= ars[5]["wait_ns"] ? ars[4] : ars[5];
  EXPECT_EQ(last["straggler_index"], 1) << last.dump();
  double wait = last["arrivals"][0]["wait_ns"].get<double>();
  EXPECT_GE(wait, 270e6) << last.dump();
  EXPECT_LT(wait, 600e6) << last.dump();
  std::printf("MWMS: worker 1 slept 300 ms; worker 0 waited %.1f ms in %s\n", wait / 1e6,
              last["key"].dump().c_str());
}

}  // namespace
}  // namespace tt
