// The runtime inside real processes: threads, fork, exec, signals, crashes, limits.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <vector>

#include "core/files.h"
#include "format/writer.h"
#include "test_util.h"
#include "trace_view.h"

namespace tt {
namespace {

using namespace layout;
using test::LoadTrace;
using test::RunCmd;
using test::TempDir;

std::map<std::string, std::string> TraceEnv(const TempDir& d, const std::string& buffer = "") {
  std::map<std::string, std::string> env{{"TENSORTRACE_DIR", d.path()}};
  if (!buffer.empty()) env["TENSORTRACE_BUFFER_SIZE"] = buffer;
  return env;
}

void ExpectOrderedStreams(const test::ProcView& p) {
  for (size_t i = 1; i < p.events.size(); ++i) {
    if (p.events[i].file == p.events[i - 1].file) {
      ASSERT_GE(p.events[i].ts, p.events[i - 1].ts) << p.events[i].file;
    }
  }
}

// Every stream file is a chain of whole packets up to its end (no packet mapped ahead left).
void ExpectWholePackets(const TempDir& d) {
  for (const auto& f : test::StreamFiles(d.path())) {
    test::PacketChain c = test::ReadPacketChain(f);
    EXPECT_TRUE(c.magic) << f;
    EXPECT_EQ(c.end, c.size) << f;
  }
}

// The trace of one process that exited normally, read with no problem.
const test::ProcView& OnlyProcess(const test::TraceView& v) {
  EXPECT_TRUE(v.problems.empty()) << v.problems[0].ToString();
  EXPECT_EQ(v.procs.size(), 1u);
  static const test::ProcView none{};
  return v.procs.empty() ? none : v.procs[0];
}

TEST(Runtime, ThreadsWriteEveryEventInOrder) {
  TempDir d;
  // 64 KiB packets: each thread switches packets dozens of times.
  auto r = RunCmd({TT_PROGRAM, "threads", "4", "20000"}, TraceEnv(d, "65536"));
  ASSERT_EQ(r.status, 0) << r.err;
  auto v = LoadTrace(d.path());
  ASSERT_TRUE(v.problems.empty()) << v.problems[0].ToString();
  ASSERT_EQ(v.procs.size(), 1u);
  const auto& p = v.procs[0];
  EXPECT_EQ(p.meta.end_state, "exited");
  EXPECT_EQ(p.discarded, 0u);
  EXPECT_EQ(p.Count(kSliceBegin, "work"), 80000u);
  EXPECT_EQ(p.Count(kSliceEnd), 80000u);
  EXPECT_EQ(p.Count(kInstant, "tick"), 80000u);
  EXPECT_EQ(p.Count(kCounter, "done"), 4u);
  std::map<uint64_t, int> begins_per_thread;
  for (const auto& e : p.events)
    if (e.id == kSliceBegin) begins_per_thread[e.tid]++;
  ASSERT_EQ(begins_per_thread.size(), 4u);
  for (auto [tid, n] : begins_per_thread) {
    EXPECT_EQ(n, 20000) << tid;
    EXPECT_EQ(p.thread_names.at(tid).rfind("thread-", 0), 0u);
  }
  for (const auto& e : p.events) {
    if (e.id == kCounter) {
      EXPECT_EQ(e.value, 20000.0);
    }
  }
  ExpectOrderedStreams(p);
}

// The preparer maps each busy thread's next packet ahead: a thread that fills many packets
// gets them from it, and the trace is the same as without it (every event, whole packets,
// no packet mapped ahead left at the end of a file).
TEST(Runtime, PacketsMappedAheadKeepEveryEventAndLeaveNoTail) {
  for (bool prepare : {true, false}) {
    TempDir d;
    auto env = TraceEnv(d, "65536");
    if (!prepare) env["TENSORTRACE_PREPARE"] = "0";
    // 2 x 200,000 pairs of 5-byte events: about 60 packets of 64 KiB.
    auto r = RunCmd({TT_PROGRAM, "tasks", "200000"}, env);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.find(" tt-prepare") != std::string::npos, prepare) << r.out;
    auto v = LoadTrace(d.path());
    const auto& p = OnlyProcess(v);
    EXPECT_EQ(p.discarded, 0u);
    EXPECT_EQ(p.Count(kSliceBegin, "before"), 200000u);
    EXPECT_EQ(p.Count(kSliceBegin, "after"), 200000u);
    EXPECT_EQ(p.Count(kSliceEnd), 400000u);
    ExpectOrderedStreams(p);
    ExpectWholePackets(d);
  }
}

// More busy threads than the preparer keeps up with: an owner whose request is next waits for
// it, the others map their packets themselves; either way nothing is lost or left over.
TEST(Runtime, ManyBusyThreadsShareOnePreparer) {
  TempDir d;
  // 6 threads x 40,000 x 3 events of about 5 bytes: about 9 packets of 64 KiB each.
  auto r = RunCmd({TT_PROGRAM, "threads", "6", "40000"}, TraceEnv(d, "65536"));
  ASSERT_EQ(r.status, 0) << r.err;
  auto v = LoadTrace(d.path());
  const auto& p = OnlyProcess(v);
  EXPECT_EQ(p.discarded, 0u);
  EXPECT_EQ(p.Count(kSliceBegin, "work"), 240000u);
  EXPECT_EQ(p.Count(kInstant, "tick"), 240000u);
  EXPECT_EQ(p.Count(kSliceEnd), 240000u);
  ExpectOrderedStreams(p);
  ExpectWholePackets(d);
}

TEST(Runtime, AProcessThatWritesLittleStartsNoPreparer) {
  TempDir d;
  auto r = RunCmd({TT_PROGRAM, "tasks", "10"}, TraceEnv(d));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("tt-prepare"), std::string::npos) << r.out;
}

TEST(Runtime, ForkedChildWritesItsOwnTrace) {
  TempDir d;
  auto r = RunCmd({TT_PROGRAM, "fork", "1000"}, TraceEnv(d));
  ASSERT_EQ(r.status, 0) << r.err;
  auto v = LoadTrace(d.path());
  ASSERT_TRUE(v.problems.empty());
  ASSERT_EQ(v.procs.size(), 2u);
  const test::ProcView* parent = nullptr;
  const test::ProcView* child = nullptr;
  for (const auto& p : v.procs) {
    (p.Count(kSliceBegin, "child") ? child : parent) = &p;
  }
  ASSERT_TRUE(parent && child);
  EXPECT_EQ(child->meta.ppid, parent->meta.pid);
  EXPECT_EQ(child->Count(kSliceBegin, "child"), 1000u);
  EXPECT_EQ(child->Count(kSliceBegin, "parent"), 0u);
  EXPECT_EQ(parent->Count(kSliceBegin, "parent"), 1000u);
  EXPECT_EQ(parent->Count(kSliceBegin, "parent-after"), 1u);
  EXPECT_EQ(parent->Count(kSliceBegin, "child"), 0u);
  EXPECT_EQ(child->meta.end_state, "running");  // _exit(): `record` finalises it
}

TEST(Runtime, ExecStartsANewImageTrace) {
  TempDir d;
  auto r = RunCmd({TT_PROGRAM, "exec", "500"}, TraceEnv(d));
  ASSERT_EQ(r.status, 0) << r.err;
  auto v = LoadTrace(d.path());
  ASSERT_TRUE(v.problems.empty());
  ASSERT_EQ(v.procs.size(), 2u);
  EXPECT_EQ(v.procs[0].meta.pid, v.procs[1].meta.pid);
  for (const auto& p : v.procs) {
    if (p.meta.exec_generation == 0) {
      EXPECT_EQ(p.Count(kSliceBegin, "before-exec"), 500u);
    } else {
      EXPECT_EQ(p.meta.exec_generation, 1u);
      EXPECT_EQ(p.Count(kSliceBegin, "leaf"), 500u);
      EXPECT_EQ(p.Count(kSliceBegin, "before-exec"), 0u);
    }
  }
}

TEST(Runtime, ShortLivedThreadKeepsItsEvents) {
  TempDir d;
  auto r = RunCmd({TT_PROGRAM, "thread-exit", "3000"}, TraceEnv(d));
  ASSERT_EQ(r.status, 0) << r.err;
  auto v = LoadTrace(d.path());
  ASSERT_EQ(v.procs.size(), 1u);
  EXPECT_EQ(v.procs[0].Count(kSliceBegin, "short-lived"), 3000u);
  EXPECT_EQ(v.procs[0].Count(kSliceBegin, "main"), 3000u);
  EXPECT_EQ(v.procs[0].Count(kSliceEnd), 6000u);
}

// Pages of `path` in the page cache, and the file's pages in all.
std::pair<size_t, size_t> ResidentPages(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {0, 0};
  struct stat st;
  fstat(fd, &st);
  size_t pages = (static_cast<size_t>(st.st_size) + 4095) / 4096;
  void* m = pages ? mmap(nullptr, pages * 4096, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
  close(fd);
  if (m == MAP_FAILED) return {0, pages};
  std::vector<unsigned char> in(pages);
  size_t resident = 0;
  if (mincore(m, pages * 4096, in.data()) == 0)
    for (unsigned char c : in) resident += c & 1;
  munmap(m, pages * 4096);
  return {resident, pages};
}

// A thread that writes a few events holds a few pages of its first packet, not all of it: the
// packet is faulted in as it is used, with no read-around.
TEST(Runtime, AThreadThatWritesLittleHoldsFewPages) {
  TempDir d;
  struct statfs fs;
  if (statfs(d.path().c_str(), &fs) == 0 && fs.f_type == TMPFS_MAGIC)
    GTEST_SKIP() << "on tmpfs, reserving a packet's blocks puts its pages in memory";
  auto r = RunCmd({TT_PROGRAM, "threads", "3", "2"}, TraceEnv(d));
  ASSERT_EQ(r.status, 0) << r.err;
  size_t files = 0;
  for (const auto& f : std::filesystem::recursive_directory_iterator(d.path())) {
    std::string name = f.path().filename().string();
    if (!f.is_regular_file() || name[0] != 't') continue;
    auto [resident, pages] = ResidentPages(f.path().string());
    EXPECT_GE(pages, 256u) << name;  // the whole first packet (1 MiB) is allocated
    EXPECT_LE(resident, 4u) << name << ": " << resident << " of " << pages << " pages in memory";
    ++files;
  }
  EXPECT_GE(files, 3u);
}

TEST(Runtime, SignalHandlerEventsAreWrittenOrCountedAsDropped) {
  TempDir d;
  auto r = RunCmd({TT_PROGRAM, "signals", "3000000"}, TraceEnv(d));
  ASSERT_EQ(r.status, 0) << r.err;
  long calls = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str(), "handler_calls %ld", &calls), 1) << r.out;
  ASSERT_GT(calls, 0);
  auto v = LoadTrace(d.path());
  ASSERT_TRUE(v.problems.empty()) << v.problems[0].ToString();
  const auto& p = v.procs[0];
  // Every handler event is either in the trace or counted; none breaks the main thread's.
  EXPECT_EQ(p.Count(kInstant, "from-handler") + p.Drops(), static_cast<size_t>(calls));
  EXPECT_EQ(p.Count(kSliceBegin, "busy"), 3000000u);
  EXPECT_EQ(p.Count(kSliceEnd), 3000000u);
}

TEST(Runtime, SizeCapDropsAndCountsEveryLostEvent) {
  TempDir d;
  auto env = TraceEnv(d, "65536");
  env["TENSORTRACE_MAX_BYTES"] = "400000";
  auto r = RunCmd({TT_PROGRAM, "threads", "2", "100000"}, env);
  ASSERT_EQ(r.status, 0) << r.err;
  auto v = LoadTrace(d.path());
  ASSERT_TRUE(v.problems.empty());
  const auto& p = v.procs[0];
  ASSERT_GT(p.Drops(), 0u);
  // What the program emitted, per thread: its thread name, 100000 x (begin, tick, end), one
  // counter. (The runtime adds the thread's own name where the thread got a stream.) A thread
  // that got no stream at all has its drops in the process summary only.
  size_t written = 0;
  for (const auto& e : p.events)
    written += e.id != kStringDef && e.id != kEventClassDef && e.id != kClockOffset &&
               e.id != kDropSummary && !(e.id == kThreadName && e.name.rfind("thread-", 0) != 0);
  EXPECT_EQ(written + p.Drops(), 2u * (1 + 300000 + 1));
  uint64_t bytes = 0;
  for (const auto& f : ListDirectory(d.path() + "/" + ListDirectory(d.path())[0]))
    if (f != "metadata") bytes += FileSize(d.path() + "/" + ListDirectory(d.path())[0] + "/" + f);
  EXPECT_LE(bytes, 400000u);
  EXPECT_GE(p.Count(kDropSummary), 1u);
}

TEST(Runtime, ProgramClosingEveryDescriptorKeepsTracingAndItsFiles) {
  TempDir d, work;
  auto r = RunCmd({TT_PROGRAM, "close-fds", "30000", work / "own.txt"}, TraceEnv(d, "65536"));
  ASSERT_EQ(r.status, 0) << "the program's own file was disturbed, or it failed: " << r.err;
  auto v = LoadTrace(d.path());
  ASSERT_TRUE(v.problems.empty());
  EXPECT_EQ(v.procs[0].Count(kSliceBegin, "before-close"), 30000u);
  EXPECT_EQ(v.procs[0].Count(kSliceBegin, "after-close"), 30000u);
  EXPECT_EQ(v.procs[0].Drops(), 0u);
}

TEST(Runtime, UnusableTraceDirectoryNeverFailsTheProgram) {
  auto r = RunCmd({TT_PROGRAM, "exit", "7"}, {{"TENSORTRACE_DIR", "/nonexistent/trace/dir"}});
  EXPECT_EQ(r.status, 7);
  EXPECT_NE(r.err.find("tensortrace:"), std::string::npos) << r.err;
  EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
}

// Threads idle for longer than a compact header's 32-bit time reaches, one of them re-anchoring
// its clock without writing (as the CUDA API source does): the events they then write keep
// their true time (the fast path must not write a compact header across the gap).
TEST(Runtime, EventsAfterALongIdleKeepTheirTime) {
  constexpr uint64_t kIdleMs = 4500;  // over 2^32 ns
  TempDir d;
  auto r = RunCmd({TT_IDLE_JOB, std::to_string(kIdleMs)}, TraceEnv(d));
  ASSERT_EQ(r.status, 0) << r.err;
  auto v = LoadTrace(d.path());
  const test::ProcView& p = OnlyProcess(v);
  ExpectOrderedStreams(p);
  std::map<std::string, uint64_t> printed;
  std::istringstream out(r.out);
  std::string name;
  uint64_t ns;
  while (out >> name >> ns) printed[name] = ns;
  ASSERT_EQ(printed.size(), 3u) << r.out;
  for (const auto& [thread, t] : printed) {
    // The thread's stream: the one that holds its name.
    std::string file;
    for (const test::Ev& e : p.events)
      if (e.name == thread) file = e.file;
    ASSERT_FALSE(file.empty()) << thread;
    std::vector<const test::Ev*> ev;
    for (const test::Ev& e : p.events)
      if (e.file == file && (e.id == kInstant || e.id == kSliceBegin || e.id == kSliceEnd))
        ev.push_back(&e);
    ASSERT_EQ(ev.size(), thread == "slice" ? 6u : 3u) << thread;
    const test::Ev& after = *ev.back();
    const test::Ev& before = *ev[ev.size() - 2];
    EXPECT_EQ(after.id, thread == "slice" ? kSliceEnd : kInstant) << thread;
    if (after.id == kInstant) {
      ASSERT_EQ(after.args.size(), 1u);
      EXPECT_EQ(after.args[0].v.i, 1);
    }
    EXPECT_GE(after.ts, t) << thread;
    EXPECT_LT(after.ts, t + 1000000000) << thread;
    EXPECT_GE(after.ts - before.ts, kIdleMs * 1000000) << thread;
  }
  auto bt = RunCmd({"babeltrace2", d.path()});
  EXPECT_EQ(bt.status, 0) << bt.err;
  EXPECT_EQ(bt.err, "");
}

TEST(Runtime, NothingIsWrittenOutsideARecording) {
  TempDir d;
  auto r = RunCmd({"sh", "-c", "cd " + d.path() + " && " + TT_PROGRAM + " threads 2 1000"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(ListDirectory(d.path()).empty());
}

}  // namespace
}  // namespace tt
