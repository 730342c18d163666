// `tensortrace comm`: the clocks of several recordings aligned (CommClock): on plain lists, and
// with one rank's clock shifted in a real job of native all-reduces (tests/programs/clock_job.cc);
// and in PyTorch with gloo, one recording per rank (CommClockTorch).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "comm_test_util.h"
#include "test_util.h"

namespace tt {
namespace {

using analysis::CommEvent;
using analysis::CommRank;
using analysis::CommView;
using nlohmann::json;
using test::CommJson;
using test::Ev;
using test::ExpectCausal;
using test::Find;
using test::kMs;
using test::Rank;
using test::RunCmd;
using test::TempDir;

// ---- Clocks of several recordings (CommClock) ----

// Two recordings of one boot whose rank 1 ran `shift_ms` ahead: four all-reduces that both
// leave at one true moment (rank 0 enters last in two, rank 1 in the others), and a broadcast.
std::vector<CommRank> ShiftedJob(uint64_t shift_ms) {
  CommRank r0 = Rank(0, {Ev("all_reduce", "0", 10, 20, 64), Ev("all_reduce", "0", 30, 40, 64),
                         Ev("all_reduce", "0", 52, 60, 64), Ev("all_reduce", "0", 75, 80, 64),
                         Ev("broadcast", "0", 90, 91, 64)});
  CommRank r1 = Rank(1, {Ev("all_reduce", "0", 15, 20, 64), Ev("all_reduce", "0", 35, 40, 64),
                         Ev("all_reduce", "0", 50, 60, 64), Ev("all_reduce", "0", 70, 80, 64),
                         Ev("broadcast", "0", 92, 93, 64)});
  for (CommEvent& e : r1.events) e.start += shift_ms * kMs, e.end += shift_ms * kMs;
  r0.trace = "r0", r1.trace = "r1";
  r0.clock = r1.clock = "boot";
  return {r0, r1};
}

TEST(CommClock, ShiftedRecordingIsMovedBackByCausality) {
  CommView v = analysis::MatchCollectives(ShiftedJob(50));
  ASSERT_EQ(v.clocks.size(), 2u);
  EXPECT_EQ(v.clocks[0].method, "reference");
  EXPECT_EQ(v.clocks[0].offset_ns, 0);
  const auto& c = v.clocks[1];
  EXPECT_EQ(c.trace, "r1");
  EXPECT_EQ(c.method, "causality");
  EXPECT_EQ(c.recorded_ns, 0);  // one boot: no recorded difference
  EXPECT_EQ(c.offset_ns, -50 * static_cast<int64_t>(kMs));
  EXPECT_EQ(c.constraints, 4u);  // the all-reduces; a broadcast's root may leave first
  // Every rank leaves after every rank entered: at least the largest enter0 - exit1,
  // 75 - 130 ms, at most the smallest exit0 - enter1, 20 - 65 ms.
  EXPECT_EQ(c.low_ns, -55 * static_cast<int64_t>(kMs));
  EXPECT_EQ(c.high_ns, -45 * static_cast<int64_t>(kMs));
  EXPECT_EQ(c.uncertainty_ns, 5 * static_cast<int64_t>(kMs));
  for (const auto& in : v.instances) {
    EXPECT_TRUE(in.matched);
    for (const auto& a : in.arrivals) {
      if (in.collective == "allreduce") {
        EXPECT_GE(a.exit, in.last_enter);
      }
    }
  }
  const auto* a = Find(v, "allreduce", 0);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->skew, 5 * kMs);  // as if one clock: rank 1 entered 5 ms late
  EXPECT_EQ(a->straggler, 1u);
  EXPECT_TRUE(v.notes.empty()) << v.notes[0];
}

// Sends one way only (rank 0 to rank 1, whose clock runs 50 ms behind), each receive posted
// before its send: a receive ends after its send began, which bounds the offset from below only
// (d >= 130 - 83 ms): the offset is that bound, with no uncertainty; the pairs match by
// direction and order, the sender the straggler.
TEST(CommClock, SendsOneWayBoundTheOffsetOnOneSide) {
  auto send = [](uint64_t a, uint64_t b) {
    CommEvent e = Ev("send", "0", a, b, 4096);
    e.peer = 1;
    return e;
  };
  auto recv = [](uint64_t a, uint64_t b) {
    CommEvent e = Ev("recv", "0", a + 50, b + 50, 4096);
    e.peer = 0;
    return e;
  };
  CommRank r0 = Rank(0, {send(110, 111), send(130, 132)}),
           r1 = Rank(1, {recv(5, 15), recv(25, 33)});
  r0.trace = "r0", r1.trace = "r1";
  r0.clock = r1.clock = "boot";
  CommView v = analysis::MatchCollectives({r0, r1});
  EXPECT_EQ(v.matched, 2u);
  EXPECT_EQ(v.unmatched, 0u);
  const auto* p = Find(v, "sendrecv", 1);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->src, 0);
  EXPECT_EQ(p->dst, 1);
  EXPECT_EQ(p->straggler, 0u);
  const auto& c = v.clocks[1];
  EXPECT_EQ(c.method, "causality");
  EXPECT_EQ(c.constraints, 2u);
  EXPECT_EQ(c.low_ns, 47 * static_cast<int64_t>(kMs));  // max(110 - 65, 130 - 83)
  EXPECT_EQ(c.high_ns, INT64_MAX);
  EXPECT_EQ(c.offset_ns, 47 * static_cast<int64_t>(kMs));
  EXPECT_EQ(c.uncertainty_ns, -1);
}

TEST(CommClock, RecordedClocksThatAgreeWithCausalityAreKept) {
  CommView v = analysis::MatchCollectives(ShiftedJob(0));
  ASSERT_EQ(v.clocks.size(), 2u);
  EXPECT_EQ(v.clocks[1].method, "recorded");
  EXPECT_EQ(v.clocks[1].offset_ns, 0);
  EXPECT_EQ(v.clocks[1].uncertainty_ns, 5 * static_cast<int64_t>(kMs));  // window [-5, +5] ms
  // Another boot: the recorded CLOCK_REALTIME offsets put rank 1 on rank 0's clock first.
  auto job = ShiftedJob(7);
  job[1].clock = "other boot";
  job[0].realtime_offset = 1000 * static_cast<int64_t>(kMs);
  job[1].realtime_offset = 993 * static_cast<int64_t>(kMs);  // its clock reads 7 ms more
  v = analysis::MatchCollectives(job);
  EXPECT_EQ(v.clocks[1].recorded_ns, -7 * static_cast<int64_t>(kMs));
  EXPECT_EQ(v.clocks[1].method, "recorded");
  EXPECT_EQ(v.clocks[1].offset_ns, -7 * static_cast<int64_t>(kMs));
}

TEST(CommClock, ImpossibleCausalityIsNotedAndRecordedClocksKept) {
  auto job = ShiftedJob(0);
  job[1].events[0].start = 25 * kMs, job[1].events[0].end = 26 * kMs;  // after rank 0 left
  job[1].events[1].start = 27 * kMs;  // and left before rank 0 entered the next
  job[1].events[1].end = 28 * kMs;
  CommView v = analysis::MatchCollectives(job);
  EXPECT_EQ(v.clocks[1].method, "inconsistent");
  EXPECT_EQ(v.clocks[1].offset_ns, 0);
  ASSERT_EQ(v.notes.size(), 1u);
  EXPECT_NE(v.notes[0].find("the clock of r1 cannot be aligned with r0 by causality"),
            std::string::npos)
      << v.notes[0];
}

// ---- A rank's clock shifted (TENSORTRACE_TEST_CLOCK_SHIFT_NS) ----

// The clock offset a job of real all-reduces (clock_job.cc) shows when rank 1's clock runs
// kShift ahead (its recording's offset), with the causality of every instance after it.
json ShiftedClockJob(const TempDir& d, int64_t shift) {
  test::RecordClockJob(TT_CLOCK_JOB, d, shift, 40);
  return CommJson({d / "r0", d / "r1"});
}

TEST(CommClock, ShiftOfOneRanksClockIsFoundInARealJob) {
  TempDir d;
  constexpr int64_t kShift = 5000000;
  json j = ShiftedClockJob(d, kShift);
  ASSERT_EQ(j["ranks"].size(), 2u) << j.dump().substr(0, 2000);
  EXPECT_EQ(j["matched"], 40);
  EXPECT_EQ(j["unmatched"], 0);
  EXPECT_TRUE(j["notes"].empty()) << j["notes"].dump();
  ASSERT_EQ(j["clocks"].size(), 2u);
  const json& c = j["clocks"][1];
  EXPECT_EQ(c["method"], "causality") << c.dump();
  EXPECT_EQ(c["constraints"], 40);
  int64_t off = c["offset_ns"];
  EXPECT_NEAR(static_cast<double>(off), -kShift, 100000) << c.dump();
  EXPECT_LE(c["low_ns"].get<int64_t>(), -kShift) << c.dump();  // the shift is in the window
  EXPECT_GE(c["high_ns"].get<int64_t>(), -kShift) << c.dump();
  ExpectCausal(j);
  std::printf(
      "real job, shift %lld ns: offset applied %lld ns (error %lld ns), uncertainty "
      "%lld ns\n",
      static_cast<long long>(kShift), static_cast<long long>(off),
      static_cast<long long>(off + kShift), c["uncertainty_ns"].get<long long>());
  // Without the shift, the recordings' shared clock agrees with causality and is kept.
  TempDir d0;
  json j0 = ShiftedClockJob(d0, 0);
  ASSERT_EQ(j0["clocks"].size(), 2u);
  EXPECT_EQ(j0["clocks"][1]["method"], "recorded") << j0["clocks"].dump();
  EXPECT_EQ(j0["clocks"][1]["offset_ns"], 0);
  ExpectCausal(j0);
}

// PyTorch with gloo, one recording per rank, rank 1's clock 5 ms ahead: its collectives give
// a wider window than the real job's (their ranges run on well after the last arrival, here
// from 0.1 to 5 ms), so the shift is found to within that window (a few hundred us here, where
// the real job's is a few us); every symmetric collective holds after it, broadcasts to within
// the uncertainty.
TEST(CommClockTorch, ShiftOfOneRanksClockIsFoundAndCausalityHolds) {
  REQUIRE_MODULE("torch");
  TempDir d;
  test::RunResult r;
  constexpr int64_t kShift = 5000000;
  std::map<std::string, std::string> common = {
      {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", "29541"}};
  auto r0 = common, r1 = common;
  r0["RANK"] = r0["LOCAL_RANK"] = "0";
  r1["RANK"] = r1["LOCAL_RANK"] = "1";
  r1["TENSORTRACE_TEST_CLOCK_SHIFT_NS"] = std::to_string(kShift);
  RECORD_EACH_OR_SKIP((std::vector<std::string>{d / "r0", d / "r1"}), "torch_collectives.py",
                      (std::vector<std::map<std::string, std::string>>{r0, r1}), d.path(), r);
  json j = CommJson({d / "r0", d / "r1"});
  ASSERT_EQ(j["ranks"].size(), 2u) << j.dump().substr(0, 3000);
  EXPECT_EQ(j["unmatched"], 0) << j["notes"].dump();
  EXPECT_TRUE(j["notes"].empty()) << j["notes"].dump();
  ASSERT_EQ(j["clocks"].size(), 2u);
  const json& c = j["clocks"][1];
  EXPECT_EQ(c["trace"], d / "r1");
  EXPECT_EQ(c["method"], "causality") << c.dump();
  int64_t off = c["offset_ns"];
  EXPECT_NEAR(static_cast<double>(off), -kShift, 1000000) << c.dump();
  ExpectCausal(j, c["uncertainty_ns"].get<uint64_t>());
  std::printf(
      "shift %lld ns: offset applied %lld ns (error %lld ns), uncertainty %lld ns, "
      "window [%lld, %lld] from %lld collectives\n",
      static_cast<long long>(kShift), static_cast<long long>(off),
      static_cast<long long>(off + kShift), c["uncertainty_ns"].get<long long>(),
      c["low_ns"].get<long long>(), c["high_ns"].get<long long>(),
      c["constraints"].get<long long>());
  // The text names the offset.
  auto text = RunCmd({TT_CLI, "comm", d / "r0", d / "r1"});
  EXPECT_NE(text.out.find("causality"), std::string::npos) << text.out;
}

// The two-stage pipeline (torch_pipeline.py), one recording per rank, rank 1's clock 5 ms
// ahead: besides the one barrier, each transfer bounds the offset on one side (a receive ends
// after its send's call began), activations one way and gradients the other, so the window is
// narrow (on the development machine 28 us wide from 25 instances, the shift found to 0.3 us;
// with three busy loops beside it, 250 to 380 us wide, found to 1 to 25 us). gloo's send range
// can open milliseconds after the call handed its data over on a loaded machine: bounded by
// the ranges, the window was empty in 4 runs of 4 so.
TEST(CommClockTorch, PipelineTransfersBoundAShiftedClock) {
  REQUIRE_MODULE("torch");
  TempDir d;
  test::RunResult r;
  constexpr int64_t kShift = 5000000;
  std::map<std::string, std::string> common = {
      {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", "29542"}};
  auto r0 = common, r1 = common;
  r0["RANK"] = r0["LOCAL_RANK"] = "0";
  r1["RANK"] = r1["LOCAL_RANK"] = "1";
  r1["TENSORTRACE_TEST_CLOCK_SHIFT_NS"] = std::to_string(kShift);
  RECORD_EACH_OR_SKIP((std::vector<std::string>{d / "r0", d / "r1"}), "torch_pipeline.py",
                      (std::vector<std::map<std::string, std::string>>{r0, r1}), d.path(), r);
  json j = CommJson({d / "r0", d / "r1"});
  ASSERT_EQ(j["ranks"].size(), 2u) << j.dump().substr(0, 3000);
  EXPECT_EQ(j["unmatched"], 0) << j["notes"].dump();
  const json& c = j["clocks"][1];
  EXPECT_EQ(c["method"], "causality") << c.dump();
  EXPECT_GT(c["constraints"].get<int>(), 20) << c.dump();  // the transfers, not the barrier alone
  ASSERT_TRUE(c["low_ns"].is_number() && c["high_ns"].is_number()) << c.dump();
  EXPECT_LE(c["low_ns"].get<int64_t>(), -kShift) << c.dump();
  EXPECT_GE(c["high_ns"].get<int64_t>(), -kShift) << c.dump();
  EXPECT_LT(c["uncertainty_ns"].get<int64_t>(), 1000000) << c.dump();
  std::printf("pipeline, shift %lld ns: offset %lld ns, window [%lld, %lld], %d constraints\n",
              static_cast<long long>(kShift), c["offset_ns"].get<long long>(),
              c["low_ns"].get<long long>(), c["high_ns"].get<long long>(),
              c["constraints"].get<int>());
}

// Four ranks of PyTorch with gloo, one recording each; rank 3 a straggler (20 ms before each of
// 40 all-reduces), rank 2's clock 5 ms ahead. Each window is wide (rank 3's late entries bound
// little, and it holds the recorded offset), so the exits place the offset: within 200 us, the
// straggler named in every all-reduce with its 20 ms, not the shift's 25 (issue 39). Four ranks
// on two cores scatter one all-reduce's exits by up to a millisecond (a rank descheduled as it
// leaves): with two busy processes beside them, 20 all-reduces' errors (15 runs) reached 342 us
// and 40's (6 runs) 202; alone on the machine (RUN_SERIAL), 40's reached 69 us (6 runs).
TEST(CommClockTorch, FourRanksWithAStragglerTheShiftIsFoundByTheExits) {
  REQUIRE_MODULE("torch");
  TempDir d;
  test::RunResult r;
  constexpr int64_t kShift = 5000000;
  constexpr int kAllReduces = 40;
  std::vector<std::map<std::string, std::string>> env(4);
  std::vector<std::string> dirs;
  for (int k = 0; k < 4; ++k) {
    env[k] = {{"WORLD_SIZE", "4"},
              {"MASTER_ADDR", "127.0.0.1"},
              {"MASTER_PORT", "29543"},
              {"RANK", std::to_string(k)},
              {"LOCAL_RANK", std::to_string(k)},
              {"TT_COMM_SLEEP_MS", "20"},
              {"TT_COMM_SLEEP_RANK", "3"},
              {"TT_COMM_SLEEP_AT", "every"},
              {"TT_COMM_ALLREDUCES", std::to_string(kAllReduces)}};
    dirs.push_back(d / ("r" + std::to_string(k)));
  }
  env[2]["TENSORTRACE_TEST_CLOCK_SHIFT_NS"] = std::to_string(kShift);
  RECORD_EACH_OR_SKIP(dirs, "torch_collectives.py", env, d.path(), r);
  json j = CommJson(dirs);
  ASSERT_EQ(j["ranks"].size(), 4u) << j.dump().substr(0, 3000);
  EXPECT_EQ(j["unmatched"], 0) << j["notes"].dump();
  ASSERT_EQ(j["clocks"].size(), 4u);
  const json& c = j["clocks"][2];
  EXPECT_EQ(c["method"], "causality") << c.dump();
  int64_t off = c["offset_ns"];
  EXPECT_NEAR(static_cast<double>(off), -kShift, 200000) << c.dump();
  EXPECT_EQ(j["clocks"][1]["method"], "recorded") << j["clocks"].dump();
  EXPECT_EQ(j["clocks"][3]["method"], "recorded") << j["clocks"].dump();
  int stragglers = 0;
  for (int64_t k = 0; k < kAllReduces; ++k) {
    const json* in = test::Instance(j, "allreduce", k, nullptr);
    ASSERT_TRUE(in);
    stragglers += (*in)["straggler_index"] == 3;
  }
  EXPECT_GE(stragglers, kAllReduces - 1);  // the first may wait for the group's start instead
  std::printf(
      "4 ranks, straggler 20 ms, shift %lld ns: offset %lld ns (error %lld ns), window "
      "[%lld, %lld], %d of %d all-reduces' straggler rank 3\n",
      static_cast<long long>(kShift), static_cast<long long>(off),
      static_cast<long long>(off + kShift), c["low_ns"].get<long long>(),
      c["high_ns"].get<long long>(), stragglers, kAllReduces);
}

}  // namespace
}  // namespace tt
