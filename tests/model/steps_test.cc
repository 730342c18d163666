// Steps found with no --step-name on real programs (tests/programs/keras_steps.py,
// tf_mirrored_loop.py; the custom tf.function and JAX loops are in tf_workloads_test.cc):
// Keras 3 fit, evaluate and predict numbered by the bootstrap, `record --steps A:B` keeping
// exactly those steps, capture windows losing no Keras step and keeping one track per thread,
// a MirroredStrategy loop's repeated tf.function call; info and stats agreeing on the steps.
// TensorFlow takes seconds to import: one recording per test, several assertions on it.
#include "model/job/steps.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/files.h"
#include "model/scan.h"
#include "test_json.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::HaveModule;
using test::Python;
using test::RunCmd;
using test::RunJson;
using test::TempDir;

// Records tests/programs/<program> (oneDNN pinned on, so every CPU records the same events);
// returns the numbers the program printed ("steps N", ...).
std::map<std::string, int64_t> Record(const std::string& trace, const std::string& program,
                                      const std::vector<std::string>& options,
                                      const std::vector<std::string>& args = {}) {
  std::vector<std::string> cmd = {TT_CLI, "record", "-o", trace};
  cmd.insert(cmd.end(), options.begin(), options.end());
  cmd.insert(cmd.end(),
             {"--", Python(), std::string(TT_SOURCE_DIR) + "/tests/programs/" + program});
  cmd.insert(cmd.end(), args.begin(), args.end());
  auto r = RunCmd(cmd, {{"TF_ENABLE_ONEDNN_OPTS", "1"}}, 400);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("tensortrace: warning"), std::string::npos) << r.err;
  std::map<std::string, int64_t> said;
  std::istringstream out(r.out);
  std::string key;
  int64_t v;
  while (out >> key >> v) said[key] = v;
  return said;
}

// The step view's step numbers, and each row's source.
std::vector<int64_t> StepNumbers(const std::string& trace, std::set<std::string>* sources) {
  json j = RunJson({TT_CLI, "stats", trace, "--view", "step", "--json"});
  std::vector<int64_t> v;
  for (const auto& row : j["rows"]) {
    v.push_back(row["step"].get<int64_t>());
    sources->insert(row["source"].get<std::string>());
  }
  return v;
}

std::vector<int64_t> Range(int64_t first, int64_t last) {
  std::vector<int64_t> v;
  for (int64_t i = first; i <= last; ++i) v.push_back(i);
  return v;
}

// info's steps of the one process that has some.
json InfoSteps(const std::string& trace) {
  json info = RunJson({TT_CLI, "info", trace, "--json"});
  json found = json::object();
  for (const auto& p : info["processes"])
    if (p["steps"]["count"].get<int64_t>() > 0) {
      EXPECT_TRUE(found.empty()) << "two processes with steps";
      found = p["steps"];
    }
  return found;
}

// One imported track per thread whatever the number of capture windows: no two share a name
// (line names hold the thread's id).
void ExpectOneTrackPerThread(const std::string& trace) {
  model::TraceModel m = model::LoadModel(trace);
  std::map<std::string, int> names;
  size_t imported = 0;
  for (const auto& t : m.tracks)
    if (t.kind == layout::TrackKind::kImported && !t.name.starts_with("allocator ")) {
      ++imported;
      ++names[t.name];
    }
  EXPECT_GT(imported, 0u);
  for (const auto& [name, n] : names) EXPECT_EQ(n, 1) << name << " has " << n << " tracks";
}

int64_t Windows(const std::string& trace) {
  json info = RunJson({TT_CLI, "info", trace, "--json"});
  int64_t windows = 0;
  for (const auto& p : info["processes"])
    for (const auto& f : p["frameworks"]) windows += f["windows"].get<int64_t>();
  return windows;
}

// Keras 3 fit (2 epochs), evaluate and predict, captured in 1 s windows while training pauses
// 0.15 s after each step: every step is found with no --step-name, numbered 0..N-1 in the
// order the program ran them (none lost in a gap between windows: they end between steps),
// info and stats agree, and each imported thread is one track whatever the number of windows.
TEST(Steps, KerasFitEvaluatePredictInWindowsLoseNoStep) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  std::string trace = d / "t";
  auto said = Record(trace, "keras_steps.py", {"--window-s", "1"},
                     {"--fit-steps", "24", "--pause", "0.15"});
  ASSERT_EQ(said["steps"], 24 + 3 + 2);
  std::set<std::string> sources;
  EXPECT_EQ(StepNumbers(trace, &sources), Range(0, said["steps"] - 1));
  EXPECT_EQ(sources, std::set<std::string>{"marker"});

  EXPECT_GE(Windows(trace), 2) << "the run should span several capture windows";
  json steps = InfoSteps(trace);
  EXPECT_EQ(steps["count"], said["steps"]) << steps.dump();
  EXPECT_EQ(steps["first"], 0);
  EXPECT_EQ(steps["last"], said["steps"] - 1);
  EXPECT_EQ(steps["source"], "marker");
  EXPECT_NE(steps["how"].get<std::string>().find("none missing"), std::string::npos)
      << steps.dump();

  ExpectOneTrackPerThread(trace);
}

// record --steps 5:10 on a Keras 3 fit: the trace holds exactly steps 5..10 (the program's
// numbers), info says so, and every framework op of the trace lies inside one of them.
TEST(Steps, KerasRecordStepsKeepsOnlyThoseSteps) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  std::string trace = d / "t";
  auto said = Record(trace, "keras_steps.py", {"--steps", "5:10"});
  ASSERT_EQ(said["steps"], 8 + 3 + 2);
  std::set<std::string> sources;
  EXPECT_EQ(StepNumbers(trace, &sources), Range(5, 10));
  json steps = InfoSteps(trace);
  EXPECT_EQ(steps["count"], 6) << steps.dump();
  EXPECT_EQ(steps["first"], 5);
  EXPECT_EQ(steps["last"], 10);
  auto text = RunCmd({TT_CLI, "info", trace});
  EXPECT_NE(text.out.find("steps      5:10, 6 steps"), std::string::npos) << text.out;

  model::TraceModel m = model::LoadModel(trace);
  std::vector<model::Step> found = model::FindSteps(m, {}, 1);
  ASSERT_EQ(found.size(), 6u);
  struct OpsOutside {
    const std::vector<model::Step>* steps;
    size_t ops = 0, outside = 0;
    void OnBegin(const model::Slice&) {}
    void OnPoint(const model::Point&) {}
    void OnSlice(const model::Slice& s) {
      if (s.category != layout::Category::kFrameworkOp) return;
      ++ops;
      bool in = false;
      for (const auto& st : *steps) in |= s.start >= st.start && s.start <= st.end;
      outside += !in;
    }
  } scan{&found};
  for (const auto& t : m.tracks) model::ScanTrack(m, t, nullptr, scan);
  EXPECT_GT(scan.ops, 0u);
  EXPECT_EQ(scan.outside, 0u) << "of " << scan.ops << " ops";
}

// The step view's numbers of a loop recorded in capture windows: the program's own (a step lost
// in a gap leaves its number missing, the others keep theirs): increasing, within 0..steps-1,
// starting at 0, and info's "how" names exactly the numbers missing between the first and last.
void ExpectProgramNumbers(const std::string& trace, int64_t steps, const std::string& numbered) {
  std::set<std::string> sources;
  std::vector<int64_t> numbers = StepNumbers(trace, &sources);
  ASSERT_FALSE(numbers.empty());
  EXPECT_EQ(numbers.front(), 0);
  EXPECT_LE(numbers.back(), steps - 1);
  std::string missing;
  int64_t count = 0;
  for (size_t i = 1; i < numbers.size(); ++i) {
    EXPECT_LT(numbers[i - 1], numbers[i]);
    for (int64_t n = numbers[i - 1] + 1; n < numbers[i]; ++n, ++count)
      missing += (missing.empty() ? "" : ", ") + std::to_string(n);
  }
  std::string how = InfoSteps(trace)["how"];
  EXPECT_NE(how.find(numbered + (count ? std::to_string(count) + " missing (" + missing + ")"
                                       : std::string("none missing"))),
            std::string::npos)
      << how;
}

// A JAX loop (16 steps, each waited for, then 0.3 s of sleep) in 1 s capture windows: its
// windows switch whenever they are due, so info reports each gap between two windows with the
// steps on either side, in order; a step may be lost in a gap, at most one per gap (a gap
// lasts milliseconds), the others keep the program's numbers (its executions' run ids), and
// each thread keeps one track.
TEST(Steps, JaxWindowsReportTheirGapsAndKeepOneTrackPerThread) {
  REQUIRE_MODULE("jax");
  TempDir d;
  std::string trace = d / "t";
  auto said = Record(trace, "jax_train_loop.py", {"--window-s", "1"}, {"16", "0.3"});
  ASSERT_EQ(said["steps"], 16);
  int64_t windows = Windows(trace);
  EXPECT_GE(windows, 2);
  json steps = InfoSteps(trace);
  ASSERT_EQ(static_cast<int64_t>(steps["gaps"].size()), windows - 1) << steps.dump();
  // At most one step lost per gap, or at the very end (the last window may hold none).
  EXPECT_GE(steps["count"].get<int64_t>(), 16 - windows) << steps.dump();
  EXPECT_LE(steps["count"].get<int64_t>(), 16);
  int64_t previous = -1;
  for (size_t i = 0; i < steps["gaps"].size(); ++i) {
    const json& g = steps["gaps"][i];
    EXPECT_LT(g["start_ns"].get<uint64_t>(), g["end_ns"].get<uint64_t>());
    EXPECT_GE(g["after_step"].get<int64_t>(), previous) << steps.dump();
    if (i + 1 < steps["gaps"].size() || g["before_step"] != -1) {
      EXPECT_GT(g["before_step"].get<int64_t>(), g["after_step"].get<int64_t>()) << steps.dump();
    }
    previous = g["after_step"];
  }
  ExpectProgramNumbers(trace, 16, "numbered by the program's run ids, from the first step's: ");
  auto text = RunCmd({TT_CLI, "info", trace});
  EXPECT_NE(text.out.find("  gaps       " + std::to_string(windows - 1) +
                          " between capture windows (not captured): "),
            std::string::npos)
      << text.out;
  ExpectOneTrackPerThread(trace);
}

// The gaps between capture windows (given out of order, one unknown), each with the last step
// before it, the first after it and the steps it cuts; another process's steps do not count.
TEST(Steps, CaptureGapsNameTheStepsAroundEachGap) {
  std::vector<model::Step> steps;
  auto add = [&](uint64_t start, uint64_t end, int64_t number, size_t process) {
    model::Step s;
    s.start = start;
    s.end = end;
    s.number = number;
    s.process = process;
    steps.push_back(s);
  };
  add(10, 50, 0, 0);
  add(60, 120, 1, 0);  // cut by the gap 100..150
  add(160, 200, 2, 0);
  add(250, 310, 3, 0);  // cut by the gap 300..320
  add(330, 390, 4, 0);
  add(130, 140, 7, 1);  // in the first gap, of another process
  auto gaps = model::CaptureGaps(steps, 0, {{320, 400}, {0, 0}, {0, 100}, {150, 300}});
  ASSERT_EQ(gaps.size(), 2u);
  EXPECT_EQ(gaps[0].start, 100u);
  EXPECT_EQ(gaps[0].end, 150u);
  EXPECT_EQ(gaps[0].after, 0);
  EXPECT_EQ(gaps[0].before, 2);
  EXPECT_EQ(gaps[0].cut, std::vector<int64_t>{1});
  EXPECT_EQ(gaps[1].after, 2);
  EXPECT_EQ(gaps[1].before, 4);
  EXPECT_EQ(gaps[1].cut, std::vector<int64_t>{3});
  EXPECT_TRUE(model::CaptureGaps(steps, 0, {{0, 100}}).empty());
}

// A custom tf.function loop (16 steps, each then 0.3 s of sleep) in 1 s capture windows: its
// steps keep the program's numbers (the bootstrap counts the function's calls), a step lost in
// a gap leaves its number missing.
TEST(Steps, TfFunctionLoopInWindowsKeepsTheProgramsNumbers) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  std::string trace = d / "t";
  auto said = Record(trace, "tf_custom_loop.py", {"--window-s", "1"}, {"16", "0.3"});
  ASSERT_EQ(said["steps"], 16);
  EXPECT_GE(Windows(trace), 2);
  ExpectProgramNumbers(trace, 16, "numbered by the program: ");
}

// A custom loop under MirroredStrategy on 2 logical CPUs: its tf.function, called once per
// step, is the step; each step holds the replicas' MatMul ops.
TEST(Steps, MirroredStrategyLoopStepsAreItsRepeatedCall) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  std::string trace = d / "t";
  auto said = Record(trace, "tf_mirrored_loop.py", {});
  ASSERT_GT(said["steps"], 0);
  std::set<std::string> sources;
  EXPECT_EQ(StepNumbers(trace, &sources), Range(0, said["steps"] - 1));
  EXPECT_EQ(sources, std::set<std::string>{"repeated-call"});
  json steps = InfoSteps(trace);
  EXPECT_EQ(steps["count"], said["steps"]);
  EXPECT_NE(steps["how"].get<std::string>().find("distributed_step"), std::string::npos)
      << steps.dump();
  // Step-limited stats hold each step's matrix products: two forward, four backward, per
  // replica (2), in every step.
  json all = RunJson({TT_CLI, "stats", trace, "--view", "op", "--json", "--steps", "0:"});
  int64_t matmuls = 0;
  for (const auto& row : all["rows"])
    if (row["name"].get<std::string>().find("MatMul") != std::string::npos)
      matmuls += row["occurrence"].get<int64_t>();
  EXPECT_GE(matmuls, said["steps"] * 2 * 2) << all.dump().substr(0, 3000);
}

}  // namespace
}  // namespace tt
