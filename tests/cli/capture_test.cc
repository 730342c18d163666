// On-demand and windowed recordings: `record --on-demand` writes nothing until `tensortrace
// capture` opens a window, `record --every S --for C` opens one of C seconds every S seconds;
// the trace holds the program's events only inside its windows (framework ops included), and
// info lists the windows. Bad input to either command: one line, a non-zero exit.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "format/captures.h"
#include "model/model.h"
#include "model/scan.h"
#include "test_util.h"

namespace tt {
namespace {

using test::RunCmd;
using test::TempDir;

constexpr uint64_t kMs = 1'000'000;

bool WaitForFile(const std::string& path, int seconds) {
  for (int i = 0; i < seconds * 50; ++i) {
    if (access(path.c_str(), F_OK) == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

CaptureWindows Windows(const std::string& trace) {
  bool found = false;
  CaptureWindows w = ReadCaptures(trace, &found);
  EXPECT_TRUE(found) << trace;
  return w;
}

// Every event of the trace's tracks (thread and imported; `category` only, when given): the
// number in each window, and those that start outside every window by more than `slack_ns`
// (or, slices, end after their window's end by more than it).
struct Placement {
  std::vector<size_t> in_window;
  size_t outside = 0, total = 0;
  std::string first_outside;
};

Placement Place(const std::string& trace, const CaptureWindows& w, uint64_t slack_ns,
                std::optional<layout::Category> category = std::nullopt) {
  model::TraceModel m = model::LoadModel(trace);
  struct Visit {
    const CaptureWindows& w;
    uint64_t slack;
    std::optional<layout::Category> cat;
    const model::Process* proc = nullptr;
    Placement p;
    void Check(uint64_t start, uint64_t end, layout::Category c, uint32_t name) {
      if (cat && c != *cat) return;
      ++p.total;
      for (size_t i = 0; i < w.size(); ++i)
        if (start + slack >= w[i].first && start <= w[i].second + slack &&
            end <= w[i].second + slack) {
          ++p.in_window[i];
          return;
        }
      if (!p.outside++) p.first_outside = std::string(proc->Name(name));
    }
    void OnBegin(const model::Slice&) {}
    void OnSlice(const model::Slice& s) { Check(s.start, s.end, s.category, s.name); }
    void OnPoint(const model::Point& pt) {
      if (!pt.counter) Check(pt.ts, pt.ts, pt.category, pt.name);
    }
  } v{w, slack_ns, category};
  v.p.in_window.assign(w.size(), 0);
  for (const auto& t : m.tracks) {
    if (t.kind == layout::TrackKind::kDevice) continue;
    v.proc = &m.processes[t.process];
    model::ScanTrack(m, t, nullptr, v);
  }
  return v.p;
}

// A C++ loop recorded on demand, with two capture windows asked for while it runs (and a
// third refused while the second is open): its events lie only inside the two windows, each
// window holds some, and no slice reaches past its window's end.
TEST(Capture, OnDemandWritesOnlyInsideTheWindowsAskedFor) {
  TempDir d;
  std::string trace = d / "t", stop = d / "stop";
  int out = -1;
  int rec = test::Spawn(
      {TT_CLI, "record", "--quiet", "--on-demand", "-o", trace, "--", TT_ONDEMAND_JOB, stop, "60"},
      &out);
  ASSERT_TRUE(WaitForFile(trace + "/" + kControlSocket, 30));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto first = RunCmd({TT_CLI, "capture", trace, "--duration", "1"});
  EXPECT_EQ(first.status, 0) << first.err;
  EXPECT_NE(first.out.find("capture window 1 of "), std::string::npos) << first.out;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int second_out = -1;
  int second = test::Spawn({TT_CLI, "capture", trace, "--duration", "1"}, &second_out);
  for (int i = 0; i < 250 && RunCmd({TT_CLI, "capture", trace, "--status"}).out != "open 2\n"; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto refused = RunCmd({TT_CLI, "capture", trace, "--duration", "1"});
  EXPECT_EQ(refused.status, 2);
  EXPECT_EQ(refused.err, "tensortrace capture: a capture window is open already (one at a time)\n");
  EXPECT_EQ(test::Wait(second), 0);
  close(second_out);
  std::ofstream(stop).put('\n');
  EXPECT_EQ(test::Wait(rec), 0);
  close(out);

  CaptureWindows w = Windows(trace);
  ASSERT_EQ(w.size(), 2u);
  for (const auto& [start, end] : w) EXPECT_GE(end - start, 1000 * kMs);
  // An event is stamped after the runtime found the window open: a thread preempted between
  // the two may stamp it a little after the window closed.
  Placement p = Place(trace, w, 20 * kMs);
  EXPECT_EQ(p.outside, 0u) << "of " << p.total << ", the first: " << p.first_outside;
  EXPECT_GT(p.in_window[0], 100u);
  EXPECT_GT(p.in_window[1], 100u);
  auto info = RunCmd({TT_CLI, "info", trace});
  EXPECT_NE(info.out.find("captured   2 window(s), "), std::string::npos) << info.out;
}

// record --every 1 --for 0.3 on a loop of 2.5 s: three windows (at 0, 1 and 2 s; the last may
// be cut by the end), each at most 0.3 s long but the last, and the events only inside them.
TEST(Capture, EveryForOpensAWindowEverySoOften) {
  TempDir d;
  auto r = RunCmd({TT_CLI, "record", "--quiet", "--every", "1", "--for", "0.3", "-o", d / "t", "--",
                   TT_ONDEMAND_JOB, d / "stop", "2.5"},
                  {}, 60);
  ASSERT_EQ(r.status, 0) << r.err;
  CaptureWindows w = Windows(d / "t");
  ASSERT_GE(w.size(), 3u);
  for (const auto& [start, end] : w) {
    EXPECT_GT(end, start);
    EXPECT_LE(end - start, 400 * kMs);  // closed by a sleep of 0.3 s
  }
  for (size_t i = 1; i < w.size(); ++i) EXPECT_GE(w[i].first - w[i - 1].first, 1000 * kMs);
  Placement p = Place(d / "t", w, 20 * kMs);
  EXPECT_EQ(p.outside, 0u) << "of " << p.total << ", the first: " << p.first_outside;
  EXPECT_GT(p.in_window[1], 50u);
}

// Each bad use: one line on stderr, exit status 2.
void ExpectOneLine(const std::vector<std::string>& argv, const std::string& says) {
  auto r = RunCmd(argv);
  EXPECT_EQ(r.status, 2) << argv.back() << ": " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
}

TEST(Capture, BadTargetsAndOptionsAreOneLine) {
  TempDir d;
  ExpectOneLine({TT_CLI, "capture"}, "no TARGET given");
  ExpectOneLine({TT_CLI, "capture", d / "none"}, "is not a trace directory");
  ExpectOneLine({TT_CLI, "capture", "999999999"}, "no process 999999999 of yours");
  ExpectOneLine({TT_CLI, "capture", std::to_string(getpid())}, "is not traced by tensortrace");
  ExpectOneLine({TT_CLI, "capture", d.path(), "--duration", "0"}, "--duration must be above 0");
  // A recording made whole has no control socket; neither has one that has ended.
  ASSERT_EQ(RunCmd({TT_CLI, "record", "--quiet", "-o", d / "whole", "--", "true"}).status, 0);
  ExpectOneLine({TT_CLI, "capture", d / "whole"}, "it is not an on-demand recording");
  // A socket of another user where the control socket belongs (made as root only).
  std::string other = d / "other";
  ASSERT_EQ(mkdir(other.c_str(), 0700), 0);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string path = other + "/" + kControlSocket;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  if (chown(path.c_str(), 65534, 65534) == 0)
    ExpectOneLine({TT_CLI, "capture", other}, "is not a control socket of yours");
  close(fd);
  std::vector<std::string> job{"--", "true"};
  auto rec = [&](std::vector<std::string> opts) {
    std::vector<std::string> a{TT_CLI, "record", "-o", d / "r"};
    a.insert(a.end(), opts.begin(), opts.end());
    a.insert(a.end(), job.begin(), job.end());
    return a;
  };
  ExpectOneLine(rec({"--every", "2"}), "--every and --for go together");
  ExpectOneLine(rec({"--every", "2", "--for", "2"}), "--for must be shorter than --every");
  ExpectOneLine(rec({"--on-demand", "--every", "2", "--for", "1"}), "give one");
  ExpectOneLine(rec({"--on-demand", "--window-s", "2"}), "the capture windows do");
}

// A framework job recorded on demand, one capture window of 2 s opened once its loop runs:
// the framework's ops are in the trace only around that window (its profiler starts within
// 50 ms of the window; PyTorch's switches at the next step boundary), and some are in it.
void ExpectFrameworkOpsOnlyInTheWindow(const std::vector<std::string>& job,
                                       const std::map<std::string, std::string>& env,
                                       uint64_t slack_ns) {
  TempDir d;
  std::string trace = d / "t";
  std::vector<std::string> argv{TT_CLI, "record", "--quiet", "--on-demand", "-o", trace, "--"};
  argv.insert(argv.end(), job.begin(), job.end());
  std::map<std::string, std::string> all = env;
  all["TT_SAY_STARTED"] = "1";
  int out = -1;
  int rec = test::Spawn(argv, &out, all);
  std::string line;
  for (int i = 0; i < 20 && line != "started 1"; ++i) line = test::ReadLine(out, 120);
  ASSERT_EQ(line, "started 1");
  auto cap = RunCmd({TT_CLI, "capture", trace, "--duration", "2"});
  EXPECT_EQ(cap.status, 0) << cap.err;
  while (!test::ReadLine(out, 120).empty()) {
  }
  EXPECT_EQ(test::Wait(rec), 0);
  close(out);
  CaptureWindows w = Windows(trace);
  ASSERT_EQ(w.size(), 1u);
  Placement ops = Place(trace, w, slack_ns, layout::Category::kFrameworkOp);
  EXPECT_GT(ops.in_window[0], 20u);
  EXPECT_EQ(ops.outside, 0u) << "of " << ops.total << ", the first: " << ops.first_outside;
  // The Python sampler looks only inside windows (and leaves the GIL alone outside them); the
  // framework's own Python events (PyTorch's module ranges) end with its capture.
  Placement py = Place(trace, w, slack_ns, layout::Category::kPython);
  EXPECT_GT(py.in_window[0], 0u);
  EXPECT_EQ(py.outside, 0u) << "of " << py.total << ", the first: " << py.first_outside;
  auto info = RunCmd({TT_CLI, "info", trace});
  EXPECT_NE(info.out.find("captured   1 window(s), "), std::string::npos) << info.out;
}

TEST(CaptureFrameworks, JaxLoopOnDemandHasItsXlaOpsInTheWindowOnly) {
  REQUIRE_MODULE("jax");
  ExpectFrameworkOpsOnlyInTheWindow(
      {test::Python(), test::Program("jax_train_loop.py"), "60", "0.1"}, {}, 300 * kMs);
}

TEST(CaptureFrameworks, TorchLoopOnDemandHasItsAtenOpsInTheWindowOnly) {
  REQUIRE_MODULE("torch");
  ExpectFrameworkOpsOnlyInTheWindow({test::Python(), test::Program("torch_cnn.py")},
                                    {{"TT_TORCH_STEPS", "40"}, {"TT_TORCH_STEP_SLEEP", "0.1"}},
                                    500 * kMs);
}

// capture --steps 5 on a running loop: the window closes once five steps ended in it, and the
// trace holds exactly those five steps, numbered as the program counts them.
void ExpectStepsWindowHoldsExactlyThoseSteps(const std::vector<std::string>& program,
                                             const std::map<std::string, std::string>& env) {
  TempDir d;
  std::string trace = d / "t";
  int out = -1;
  std::vector<std::string> argv = {TT_CLI, "record", "--quiet", "--on-demand", "-o", trace, "--"};
  argv.insert(argv.end(), program.begin(), program.end());
  std::map<std::string, std::string> with_started = env;
  with_started["TT_SAY_STARTED"] = "1";
  int rec = test::Spawn(argv, &out, with_started);
  std::string line;
  for (int i = 0; i < 20 && line != "started 1"; ++i) line = test::ReadLine(out, 120);
  ASSERT_EQ(line, "started 1");
  auto cap = RunCmd({TT_CLI, "capture", trace, "--steps", "5"}, {}, 120);
  EXPECT_EQ(cap.status, 0) << cap.err;
  EXPECT_NE(cap.out.find(", 5 step(s)"), std::string::npos) << cap.out;
  while (!test::ReadLine(out, 120).empty()) {
  }
  EXPECT_EQ(test::Wait(rec), 0);
  close(out);
  auto steps = RunCmd({TT_CLI, "stats", trace, "--view", "step", "--json"});
  ASSERT_EQ(steps.status, 0) << steps.err;
  auto j = nlohmann::json::parse(steps.out);
  ASSERT_EQ(j["rows"].size(), 5u) << steps.out.substr(0, 3000);
  int64_t first = j["rows"][0]["step"].get<int64_t>();
  EXPECT_GE(first, 1);
  for (int64_t i = 0; i < 5; ++i) EXPECT_EQ(j["rows"][i]["step"].get<int64_t>(), first + i);
}

// PyTorch: its optimizer's steps.
TEST(CaptureFrameworks, TorchStepsWindowHoldsExactlyThoseSteps) {
  REQUIRE_MODULE("torch");
  ExpectStepsWindowHoldsExactlyThoseSteps(
      {test::Python(), test::Program("torch_cnn.py")},
      {{"TT_TORCH_STEPS", "60"}, {"TT_TORCH_STEP_SLEEP", "0.05"}});
}

// JAX: the steps the program marks with jax.profiler.StepTraceAnnotation (JAX has no step of
// its own; the bootstrap counts the marker's exits).
TEST(CaptureFrameworks, JaxMarkedStepsWindowHoldsExactlyThoseSteps) {
  REQUIRE_MODULE("jax");
  ExpectStepsWindowHoldsExactlyThoseSteps(
      {test::Python(), test::Program("jax_train_loop.py"), "60", "0.05"},
      {{"TT_JAX_STEP_MARKER", "1"}});
}

}  // namespace
}  // namespace tt
