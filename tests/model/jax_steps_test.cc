// JAX steps on made profiles of exact times: a loop's jitted call on one thread and the XLA
// executions it caused (ops with hlo_module and run_id) on another, imported into a recorded
// process. The step view links each call to its execution, numbers steps by run id where an
// execution was lost between capture windows, and a step selection keeps no op of an
// execution of a step left out, even where that execution ran during a selected step's call.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/files.h"
#include "format/import/xspace/import.h"
#include "format/proto/xplane.pb.h"
#include "format/reader.h"
#include "test_json.h"
#include "test_util.h"

namespace tt {
namespace {

namespace xp = tensorflow::profiler;
using json = nlohmann::json;
using test::RunJson;

constexpr int64_t kUs = 1'000'000;  // picoseconds

// One execution of jit_update: a dot then a fusion, `at` us after the line's start.
struct Exec {
  int64_t at_us;
  int64_t run;
};

// A made profile: the jitted call "PjitFunction(update)" at each of `calls` (start in us, 60
// us long) on the main thread, and `execs` on the executor thread.
class MadeJax {
 public:
  MadeJax() {
    host_ = space_.add_planes();
    host_->set_name("/host:CPU");
    (*host_->mutable_stat_metadata())[1].set_name("hlo_op");
    (*host_->mutable_stat_metadata())[2].set_name("hlo_module");
    (*host_->mutable_stat_metadata())[3].set_name("run_id");
    (*host_->mutable_event_metadata())[1].set_name("PjitFunction(update)");
    (*host_->mutable_event_metadata())[2].set_name("dot.1");
    (*host_->mutable_event_metadata())[3].set_name("fusion.2");
    (*host_->mutable_event_metadata())[4].set_name("PjitFunction(stage)");
  }

  // `helpers`: calls of another jitted function, "PjitFunction(stage)" (10 us each, no
  // execution of its own captured), such as a loop's conversion of each batch.
  std::string Write(const test::TempDir& d, uint64_t start_ns, const std::vector<int64_t>& calls,
                    const std::vector<Exec>& execs, const std::vector<int64_t>& helpers = {}) {
    xp::XLine* main = Line(1001, "python", start_ns);
    for (int64_t c : calls) Event(main, 1, c * kUs, 60 * kUs);
    for (int64_t c : helpers) Event(main, 4, c * kUs, 10 * kUs);
    xp::XLine* exec = Line(1002, "executor", start_ns);
    for (const Exec& e : execs) {
      Op(Event(exec, 2, e.at_us * kUs, 15 * kUs), "dot.1", e.run);
      Op(Event(exec, 3, (e.at_us + 20) * kUs, 20 * kUs), "fusion.2", e.run);
    }
    std::string path = d / "made.xplane.pb";
    WriteFileAtomic(path, space_.SerializeAsString());
    return path;
  }

 private:
  xp::XLine* Line(int64_t id, const char* name, uint64_t start_ns) {
    xp::XLine* l = host_->add_lines();
    l->set_id(id);
    l->set_name(name);
    l->set_timestamp_ns(static_cast<int64_t>(start_ns));
    return l;
  }
  static xp::XEvent* Event(xp::XLine* l, int64_t metadata, int64_t off_ps, int64_t dur_ps) {
    xp::XEvent* e = l->add_events();
    e->set_metadata_id(metadata);
    e->set_offset_ps(off_ps);
    e->set_duration_ps(dur_ps);
    return e;
  }
  static void Op(xp::XEvent* e, const char* name, int64_t run) {
    xp::XStat* op = e->add_stats();
    op->set_metadata_id(1);
    op->set_str_value(name);
    xp::XStat* module = e->add_stats();
    module->set_metadata_id(2);
    module->set_str_value("jit_update");
    xp::XStat* id = e->add_stats();
    id->set_metadata_id(3);
    id->set_int64_value(run);
  }

  xp::XSpace space_;
  xp::XPlane* host_;
};

// Records a short-lived process, imports the made profile into it, returns the trace.
std::string Imported(const test::TempDir& d, const std::vector<int64_t>& calls,
                     const std::vector<Exec>& execs, const std::vector<int64_t>& helpers = {}) {
  std::string trace = d / "t";
  auto r = test::RunCmd({TT_CLI, "record", "--quiet", "-o", trace, "--", "sleep", "0.3"});
  EXPECT_EQ(r.status, 0) << r.err;
  ProcessMeta meta = OpenTrace(trace).processes.at(0).meta;
  std::string pb = MadeJax().Write(d, meta.start_realtime_ns + 100'000'000, calls, execs, helpers);
  XSpaceImport imported = ImportXSpace(trace, meta.pid, {pb}, std::nullopt);
  EXPECT_TRUE(imported.errors.empty()) << imported.errors.front();
  return trace;
}

std::vector<int64_t> Numbers(const std::string& trace) {
  json j = RunJson({TT_CLI, "stats", trace, "--view", "step", "--json"});
  std::vector<int64_t> v;
  for (const auto& row : j["rows"]) v.push_back(row["step"].get<int64_t>());
  return v;
}

std::string How(const std::string& trace) {
  json info = RunJson({TT_CLI, "info", trace, "--json"});
  for (const auto& p : info["processes"])
    if (p["steps"]["count"].get<int64_t>() > 0) return p["steps"]["how"].get<std::string>();
  return "";
}

// The op view's occurrences of each op type ("dot", "fusion").
std::map<std::string, int64_t> Ops(const std::string& trace, const std::string& steps) {
  json j = RunJson({TT_CLI, "stats", trace, "--view", "op", "--json", "--steps", steps});
  std::map<std::string, int64_t> n;
  for (const auto& row : j["rows"]) n[row["name"]] += row["occurrence"].get<int64_t>();
  return n;
}

// Six calls dispatched 100 us apart, each returning before its execution starts: execution k
// runs from 150 us after call k, during call k + 1. Steps 2..3 hold executions 2 and 3 only,
// not execution 1's dot, which started inside call 2.
TEST(JaxSteps, SelectionKeepsNoOpOfAnExecutionLeftOut) {
  test::TempDir d;
  std::vector<int64_t> calls;
  std::vector<Exec> execs;
  for (int64_t k = 0; k < 6; ++k) {
    calls.push_back(k * 100);
    execs.push_back({k * 100 + 150, 7000 + k});
  }
  std::string trace = Imported(d, calls, execs);
  EXPECT_EQ(Numbers(trace), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_NE(How(trace).find("(6 linked by run order); numbered by the program's run ids"),
            std::string::npos)
      << How(trace);
  std::map<std::string, int64_t> two = Ops(trace, "2:3"), all = Ops(trace, "0:");
  EXPECT_EQ(two["dot"], 2);
  EXPECT_EQ(two["fusion"], 2);
  EXPECT_EQ(all["dot"], 6);
  EXPECT_EQ(Ops(trace, "5:5")["dot"], 1);
}

// Each step waits for its execution (1 ms apart): the executions of step 3 (in a gap between
// capture windows) and of the last step (after the last window) were not captured, their
// calls were. Step 4's execution, which starts after call 4, is step 4's, not step 3's, and
// every step keeps the program's number.
TEST(JaxSteps, StepWhoseExecutionWasLostKeepsItsNumber) {
  test::TempDir d;
  std::vector<int64_t> calls;
  std::vector<Exec> execs;
  for (int64_t k = 0; k < 6; ++k) {
    calls.push_back(k * 1000);
    if (k != 3 && k != 5) execs.push_back({k * 1000 + 100, 7000 + k});
  }
  std::string trace = Imported(d, calls, execs);
  EXPECT_EQ(Numbers(trace), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_NE(How(trace).find("(4 linked by run order); numbered by the program's run ids, from "
                            "the first step's: none missing"),
            std::string::npos)
      << How(trace);
  EXPECT_EQ(Ops(trace, "4:4")["dot"], 1);
  EXPECT_EQ(Ops(trace, "3:3")["dot"], 0);
}

// The whole of step 3 lost (its call and its execution): the others keep their numbers and
// info names 3 as missing.
TEST(JaxSteps, StepLostWholeLeavesItsNumberMissing) {
  test::TempDir d;
  std::vector<int64_t> calls;
  std::vector<Exec> execs;
  for (int64_t k = 0; k < 6; ++k)
    if (k != 3) {
      calls.push_back(k * 1000);
      execs.push_back({k * 1000 + 100, 7000 + k});
    }
  std::string trace = Imported(d, calls, execs);
  EXPECT_EQ(Numbers(trace), (std::vector<int64_t>{0, 1, 2, 4, 5}));
  EXPECT_NE(How(trace).find("1 missing (3)"), std::string::npos) << How(trace);
}

// The loop also calls a small jitted helper twice a step (Flax's batch staging, Keras's
// convert_element_type), more often than its step function: the steps are the call whose
// executions hold the XLA time, each through its execution, not the most frequent call.
TEST(JaxSteps, StepsAreTheCallThatRunsTheModelNotTheMostFrequent) {
  test::TempDir d;
  std::vector<int64_t> calls, helpers;
  std::vector<Exec> execs;
  for (int64_t k = 0; k < 5; ++k) {
    calls.push_back(k * 1000 + 100);
    helpers.push_back(k * 1000);
    helpers.push_back(k * 1000 + 50);
    execs.push_back({k * 1000 + 200, 7000 + k});
  }
  std::string trace = Imported(d, calls, execs, helpers);
  EXPECT_EQ(Numbers(trace), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_NE(How(trace).find("5 steps from the loop's repeated call PjitFunction(update), each "
                            "from the call through the XLA execution it caused (5 linked"),
            std::string::npos)
      << How(trace);
  // A step is one turn of the loop, from its call to the next (1000 us); the last one from its
  // call through its execution: 60 us of call, 40 of execution.
  json j = RunJson({TT_CLI, "stats", trace, "--view", "step", "--json"});
  ASSERT_EQ(j["rows"].size(), 5u);
  for (size_t i = 0; i < 5; ++i)
    EXPECT_NEAR(j["rows"][i]["duration_micros"].get<double>(), i < 4 ? 1000 : 100, 1) << i;
  // --step-name on the jitted call reaches its execution too (the call alone before): 100 us.
  j = RunJson(
      {TT_CLI, "stats", trace, "--view", "step", "--json", "--step-name", "PjitFunction(update)"});
  ASSERT_EQ(j["rows"].size(), 5u);
  for (const auto& row : j["rows"]) EXPECT_NEAR(row["duration_micros"].get<double>(), 100, 1);
}

// A multi-device program's first execution takes a run id of another series (JAX 0.10 on two
// host devices: 693977139 apart): the ids are no count of the program's steps, which are
// numbered by position rather than leaving 693 million numbers missing.
TEST(JaxSteps, RunIdsOfAnotherSeriesAreNoStepNumbers) {
  test::TempDir d;
  std::vector<int64_t> calls;
  std::vector<Exec> execs;
  for (int64_t k = 0; k < 5; ++k) {
    calls.push_back(k * 1000);
    execs.push_back({k * 1000 + 100, k == 0 ? 12 : 693977150 + k});
  }
  std::string trace = Imported(d, calls, execs);
  EXPECT_EQ(Numbers(trace), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_NE(How(trace).find("numbered by position"), std::string::npos) << How(trace);
}

}  // namespace
}  // namespace tt
