// `tensortrace record` end to end: exit statuses, crashes, signals, children of every kind.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/files.h"
#include "test_util.h"
#include "trace_view.h"

namespace tt {
namespace {

using namespace layout;
using test::LoadTrace;
using test::RunCmd;
using test::TempDir;

std::vector<std::string> Record(const std::string& dir, std::vector<std::string> cmd) {
  std::vector<std::string> a{TT_CLI, "record", "-o", dir, "--"};
  a.insert(a.end(), cmd.begin(), cmd.end());
  return a;
}

// babeltrace2 reads the trace with no error and no warning, and sees `events` events.
void ExpectBabeltraceReads(const std::string& dir, size_t events) {
  if (!test::HaveBabeltrace()) return;
  auto r = RunCmd({"babeltrace2", dir});
  EXPECT_EQ(r.status, 0) << r.err.substr(0, 2000);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(test::CountLines(r.out), events);
}

// Every stream file of the trace ends with a packet cut to its content: no packet of zeros
// kept for a thread that wrote little. Returns the number of stream files checked.
size_t ExpectStreamsCompact(const std::string& dir) {
  std::vector<std::string> files = test::StreamFiles(dir);
  for (const auto& f : files) {
    test::PacketChain c = test::ReadPacketChain(f);
    EXPECT_EQ(c.end, c.size) << f;
    EXPECT_EQ(c.last_size, c.last_content) << f;
  }
  return files.size();
}

TEST(Record, PassesTheExitStatusAndPrintsASummary) {
  TempDir d;
  auto r = RunCmd(Record(d / "t", {TT_PROGRAM, "exit", "3"}));
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("trace written to " + (d / "t")), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 processes, 1 threads, "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" 0 dropped, "), std::string::npos) << r.err;
  EXPECT_TRUE(PathExists(d / "t/tensortrace.json"));
}

TEST(Record, CrashIsFinalisedAndReported) {
  TempDir d;
  // Under AddressSanitizer (CI's sanitizer pass) the crash must stay a real SIGSEGV.
  auto r =
      RunCmd(Record(d / "t", {TT_PROGRAM, "segv", "3000"}), {{"ASAN_OPTIONS", "handle_segv=0"}});
  EXPECT_EQ(r.status, 128 + SIGSEGV);
  auto v = LoadTrace(d / "t");
  ASSERT_TRUE(v.problems.empty()) << v.problems[0].ToString();
  ASSERT_EQ(v.procs.size(), 1u);
  EXPECT_EQ(v.procs[0].meta.end_state, "finalised");
  EXPECT_EQ(v.procs[0].meta.end_offset_by, "record");
  EXPECT_NE(v.procs[0].meta.offset_end_ns, 0);
  EXPECT_EQ(v.procs[0].Count(kSliceBegin, "before-segv"), 3000u);
  EXPECT_EQ(v.procs[0].Count(kSliceEnd), 3000u);
  EXPECT_GT(ExpectStreamsCompact(d / "t"), 0u);
  ExpectBabeltraceReads(d / "t", v.total_events);
}

TEST(Record, SigkillMidRunKeepsEveryCompletedEvent) {
  TempDir d;
  int out = -1;
  int pid = test::Spawn(Record(d / "t", {TT_PROGRAM, "kill", "5000"}), &out);
  std::string line = test::ReadLine(out);
  int target = 0;
  ASSERT_EQ(std::sscanf(line.c_str(), "ready %d", &target), 1) << line;
  usleep(20000);  // let it write more, mid-packet, before the kill
  kill(target, SIGKILL);
  EXPECT_EQ(test::Wait(pid), 128 + SIGKILL);
  close(out);
  auto v = LoadTrace(d / "t");
  ASSERT_TRUE(v.problems.empty()) << v.problems[0].ToString();
  ASSERT_EQ(v.procs.size(), 1u);
  const auto& p = v.procs[0];
  EXPECT_EQ(p.meta.end_state, "finalised");
  EXPECT_EQ(p.Count(kSliceBegin, "before-kill"), 5000u);
  size_t begins = p.Count(kSliceBegin), ends = p.Count(kSliceEnd);
  EXPECT_GT(begins, 5000u);  // it kept writing after "ready"
  EXPECT_TRUE(begins == ends || begins == ends + 1) << begins << " " << ends;
  EXPECT_GT(ExpectStreamsCompact(d / "t"), 0u);
  ExpectBabeltraceReads(d / "t", v.total_events);
}

TEST(Record, ForwardsSigtermAndStillFinalises) {
  TempDir d;
  int out = -1;
  int pid = test::Spawn(Record(d / "t", {TT_PROGRAM, "kill", "100"}), &out);
  ASSERT_EQ(test::ReadLine(out).rfind("ready", 0), 0u);
  kill(pid, SIGTERM);
  EXPECT_EQ(test::Wait(pid), 128 + SIGTERM);
  close(out);
  auto v = LoadTrace(d / "t");
  ASSERT_TRUE(v.problems.empty());
  EXPECT_EQ(v.procs[0].Count(kSliceBegin, "before-kill"), 100u);
  EXPECT_EQ(v.procs[0].meta.end_state, "finalised");
  EXPECT_GT(ExpectStreamsCompact(d / "t"), 0u);
  ExpectBabeltraceReads(d / "t", v.total_events);
}

TEST(Record, ExecReplacedImageIsFinalised) {
  TempDir d;
  auto r = RunCmd(Record(d / "t", {TT_PROGRAM, "exec", "100"}));
  ASSERT_EQ(r.status, 0) << r.err;
  auto v = LoadTrace(d / "t");
  ASSERT_EQ(v.procs.size(), 2u);
  for (const auto& p : v.procs)
    EXPECT_EQ(p.meta.end_state, p.meta.exec_generation == 0 ? "finalised" : "exited");
  EXPECT_GT(ExpectStreamsCompact(d / "t"), 0u);
  ExpectBabeltraceReads(d / "t", v.total_events);
}

TEST(Record, FollowsShellPipelines) {
  TempDir d;
  std::string prog = TT_PROGRAM;
  auto r = RunCmd(Record(d / "t", {"sh", "-c", prog + " leaf 10 | " + prog + " leaf 20 | cat"}));
  ASSERT_EQ(r.status, 0) << r.err;
  auto v = LoadTrace(d / "t");
  ASSERT_TRUE(v.problems.empty());
  std::multiset<size_t> leaf_counts;
  bool saw_cat = false;
  for (const auto& p : v.procs) {
    if (p.meta.cmdline.rfind(prog + " leaf", 0) == 0)
      leaf_counts.insert(p.Count(kSliceBegin, "leaf"));
    saw_cat |= p.meta.cmdline == "cat";
  }
  EXPECT_EQ(leaf_counts, (std::multiset<size_t>{10, 20}));
  EXPECT_TRUE(saw_cat);
  ExpectBabeltraceReads(d / "t", v.total_events);
}

TEST(Record, FollowsPythonSubprocessAndMultiprocessing) {
  std::string py = PathExists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  TempDir d;
  auto r =
      RunCmd(Record(d / "t", {py, std::string(TT_SOURCE_DIR) + "/tests/programs/py_children.py"}),
             {{"TT_LIB", TT_LIB}, {"ASAN_OPTIONS", "detect_leaks=0"}}, 120);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("enabled 1"), std::string::npos) << r.out;
  auto v = LoadTrace(d / "t");
  ASSERT_TRUE(v.problems.empty());
  std::map<std::string, std::set<int64_t>> pids_by_mark;
  for (const auto& p : v.procs)
    for (const auto& e : p.events)
      if (e.id == kInstant) pids_by_mark[e.name].insert(p.meta.pid);
  EXPECT_EQ(pids_by_mark["py-parent"].size(), 1u);
  EXPECT_EQ(pids_by_mark["py-subprocess"].size(), 1u);
  EXPECT_GE(pids_by_mark["py-mp-fork"].size(), 1u);
  EXPECT_GE(pids_by_mark["py-mp-spawn"].size(), 1u);
  // Each mark came from a process other than the parent.
  int64_t parent = *pids_by_mark["py-parent"].begin();
  for (const char* m : {"py-subprocess", "py-mp-fork", "py-mp-spawn"})
    EXPECT_EQ(pids_by_mark[m].count(parent), 0u) << m;
  size_t mp_marks = 0;
  for (const auto& p : v.procs) mp_marks += p.Count(kInstant, "py-mp-fork");
  EXPECT_EQ(mp_marks, 4u);
  ExpectBabeltraceReads(d / "t", v.total_events);
}

TEST(Record, RefusesANonEmptyDirectoryUnlessForced) {
  TempDir d;
  ASSERT_EQ(RunCmd(Record(d / "t", {TT_PROGRAM, "leaf", "5"})).status, 0);
  auto again = RunCmd(Record(d / "t", {TT_PROGRAM, "leaf", "7"}));
  EXPECT_EQ(again.status, 2);
  EXPECT_NE(again.err.find("not empty"), std::string::npos) << again.err;
  EXPECT_EQ(test::CountLines(again.err), 1u);
  auto forced = RunCmd({TT_CLI, "record", "--force", "-o", d / "t", "--", TT_PROGRAM, "leaf", "7"});
  EXPECT_EQ(forced.status, 0) << forced.err;
  auto v = LoadTrace(d / "t");
  ASSERT_EQ(v.procs.size(), 1u);
  EXPECT_EQ(v.procs[0].Count(kSliceBegin, "leaf"), 7u);
  // --force never empties a directory that holds something other than a trace.
  WriteFileAtomic(d / "other.txt", "keep me");
  auto refused =
      RunCmd({TT_CLI, "record", "--force", "-o", d.path(), "--", TT_PROGRAM, "leaf", "1"});
  EXPECT_EQ(refused.status, 2);
  EXPECT_TRUE(PathExists(d / "other.txt"));
}

TEST(Record, MakesADirectoryNamedAfterTheTime) {
  TempDir d;
  auto r = RunCmd(
      {"sh", "-c", "cd " + d.path() + " && " + TT_CLI + " record -- " + TT_PROGRAM + " leaf 3"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto entries = ListDirectory(d.path());
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].rfind("tensortrace-20", 0), 0u) << entries[0];
  EXPECT_EQ(LoadTrace(d / entries[0]).procs.at(0).Count(kSliceBegin, "leaf"), 3u);
}

TEST(Record, CommandThatCannotRun) {
  TempDir d;
  auto r = RunCmd(Record(d / "t", {"/no/such/program"}));
  EXPECT_EQ(r.status, 127);
  EXPECT_NE(r.err.find("cannot run '/no/such/program'"), std::string::npos) << r.err;
  EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
}

TEST(Info, JsonDescribesProcessesThreadsAndClocks) {
  TempDir d;
  ASSERT_EQ(RunCmd(Record(d / "t", {TT_PROGRAM, "fork", "50"})).status, 0);
  auto r = RunCmd({TT_CLI, "info", d / "t", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "tensortrace.info/1");
  ASSERT_EQ(j["processes"].size(), 2u);
  auto p0 = j["processes"][0], p1 = j["processes"][1];
  EXPECT_EQ(p1["ppid"], p0["pid"]);
  EXPECT_NE(p0["command"].get<std::string>().find("fork 50"), std::string::npos);
  EXPECT_FALSE(p0["host"].get<std::string>().empty());
  cpu_set_t mine;  // the recorded program inherits this process's CPUs
  ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
  EXPECT_EQ(p0["cpus"], CPU_COUNT(&mine));
  EXPECT_EQ(p0["events_by_category"]["user"], 51);
  EXPECT_EQ(p1["events_by_category"]["user"], 50);
  EXPECT_EQ(p0["sources"], nlohmann::json::array({"annotations"}));
  EXPECT_NE(p0["clock"]["realtime_offset_start_ns"], 0);
  EXPECT_NE(p0["clock"]["realtime_offset_end_ns"], 0);
  EXPECT_EQ(p0["clock"]["offsets"].size(), 2u);
  EXPECT_EQ(p0["threads"].size(), 1u);
  EXPECT_EQ(j["totals"]["dropped"], 0);
  EXPECT_EQ(j["totals"]["processes"], 2);
  EXPECT_GT(j["totals"]["duration_ns"].get<uint64_t>(), 0u);
  EXPECT_TRUE(j["problems"].empty());
  auto text = RunCmd({TT_CLI, "info", d / "t"});
  EXPECT_EQ(text.status, 0);
  EXPECT_NE(text.out.find("2 processes"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("categories user 51"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace tt
