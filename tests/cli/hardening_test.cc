// Hardening (issue 18): files created safely and owner-only, outputs checked to the end, readers
// that open only regular files, one number parser for every option, names escaped for the
// terminal, the output directory of `record`, and signals passed on to the recorded program.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "core/files.h"
#include "test_util.h"
#include "trace_view.h"

namespace tt {
namespace {

using test::RunCmd;
using test::TempDir;

// One line on stderr naming `what`, the bad-usage/bad-input exit (2), nothing on stdout.
void ExpectOneLineError(const test::RunResult& r, const std::string& what) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << "expected '" << what << "' in: " << r.err;
  EXPECT_EQ(r.out, "");
}

unsigned Mode(const std::string& path) {
  struct stat st;
  EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// A small recorded trace at d/t; returns its process directory.
std::string MakeTrace(const TempDir& d, const std::string& mode = "leaf") {
  auto r = RunCmd({TT_CLI, "record", "-o", d / "t", "--", TT_PROGRAM, mode, "50"});
  EXPECT_EQ(r.status, 0) << r.err;
  for (const auto& e : ListDirectory(d / "t"))
    if (IsDirectory(d / "t/" + e)) return d / "t/" + e;
  return "";
}

// --- Safe file creation ---------------------------------------------------------------------

TEST(SafeFiles, TemporaryNameIsNeverFollowed) {
  TempDir d;
  WriteFileAtomic(d / "victim", "precious");
  // The name the writer used to take (PATH.tmp<pid>), planted as a link to another file.
  std::string planted = d / ("out.json.tmp" + std::to_string(getpid()));
  ASSERT_EQ(symlink((d / "victim").c_str(), planted.c_str()), 0);
  WriteFileAtomic(d / "out.json", "data");
  EXPECT_EQ(ReadFile(d / "victim"), "precious");
  EXPECT_EQ(ReadFile(d / "out.json"), "data");
  struct stat st;
  ASSERT_EQ(lstat((d / "out.json").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
}

TEST(SafeFiles, OwnerOnlyWhateverTheUmask) {
  TempDir d;
  mode_t old = umask(0);
  WriteFileAtomic(d / "f", "x");
  bool made = MakeDirectory(d / "dir");
  umask(old);
  EXPECT_EQ(Mode(d / "f"), 0600u);
  ASSERT_TRUE(made);
  EXPECT_EQ(Mode(d / "dir"), 0700u);
}

TEST(SafeFiles, ExportAndReportToAFullDeviceFail) {
  if (!PathExists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  TempDir d;
  MakeTrace(d);
  for (const char* fmt : {"csv", "chrome", "perfetto"}) {
    auto r = RunCmd({TT_CLI, "export", d / "t", "--format", fmt, "-o", "/dev/full"});
    ExpectOneLineError(r, "cannot write /dev/full: No space left on device");
  }
  // report prints its progress on stderr; the error is its last line, and the only failure.
  auto r = RunCmd({TT_CLI, "report", d / "t", "-o", "/dev/full"});
  EXPECT_EQ(r.status, 2) << r.err;
  std::string last = r.err.substr(r.err.rfind('\n', r.err.size() - 2) + 1);
  EXPECT_EQ(last, "tensortrace report: cannot write /dev/full: No space left on device\n");
  EXPECT_EQ(r.err.find("cannot"), r.err.rfind("cannot")) << r.err;
  // Written in place, never replaced by a file renamed over it.
  struct stat st;
  ASSERT_EQ(stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  for (const auto& e : ListDirectory("/dev")) EXPECT_EQ(e.find("full.tmp"), std::string::npos);
}

TEST(SafeFiles, FailedWriteLeavesNothingBehind) {
  TempDir d;
  auto rec = RunCmd({TT_CLI, "record", "-o", d / "t", "--", TT_PROGRAM, "leaf", "20000"});
  ASSERT_EQ(rec.status, 0) << rec.err;
  ASSERT_TRUE(MakeDirectory(d / "out"));
  // A file-size limit of 1 KiB (SIGXFSZ ignored) makes write() fail with EFBIG part-way.
  for (const char* out : {"t.csv", "t.json.gz"}) {
    auto r = RunCmd({"bash", "-c", "ulimit -f 1 && trap '' XFSZ && exec \"$@\"", "bash", TT_CLI,
                     "export", d / "t", "--format", out[2] == 'c' ? "csv" : "chrome", "-o",
                     d / "out/" + out});
    ExpectOneLineError(r, "cannot write " + d / "out/" + out);
    EXPECT_TRUE(ListDirectory(d / "out").empty());
  }
}

// --- Readers open only regular files --------------------------------------------------------

TEST(ReaderFiles, FifoAsMetadataIsRefusedAtOnce) {
  TempDir d;
  std::string proc = MakeTrace(d);
  ASSERT_EQ(unlink((proc + "/metadata").c_str()), 0);
  ASSERT_EQ(mkfifo((proc + "/metadata").c_str(), 0600), 0);
  std::vector<std::vector<std::string>> cmds = {
      {TT_CLI, "info", d / "t"},
      {TT_CLI, "stats", d / "t"},
      {TT_CLI, "export", d / "t", "--format", "csv", "-o", d / "x.csv"},
      {TT_CLI, "report", d / "t", "-o", d / "r.html"}};
  for (const auto& c : cmds) {
    // Today's reader would wait for a writer forever: the harness kills it at 20 s.
    auto r = RunCmd(c, {}, 20);
    ExpectOneLineError(r, proc + "/metadata: it is a FIFO, not a regular file");
  }
}

TEST(ReaderFiles, LinkAsMetadataIsRefused) {
  TempDir d;
  std::string proc = MakeTrace(d);
  ASSERT_EQ(rename((proc + "/metadata").c_str(), (d / "elsewhere").c_str()), 0);
  ASSERT_EQ(symlink((d / "elsewhere").c_str(), (proc + "/metadata").c_str()), 0);
  ExpectOneLineError(RunCmd({TT_CLI, "info", d / "t"}),
                     proc + "/metadata: it is a symbolic link, not a regular file");
}

TEST(ReaderFiles, FifoAsStreamIsSkippedAndReported) {
  TempDir d;
  std::string proc = MakeTrace(d);
  std::string fifo = proc + "/t999999";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string what = fifo + ": offset 0: skipped: it is a FIFO, not a stream file";
  // Read as far as valid, the FIFO reported, and the damage status (3; 0 with --allow-damaged).
  auto info = RunCmd({TT_CLI, "info", d / "t"}, {}, 20);
  EXPECT_EQ(info.status, 3) << info.err;
  EXPECT_NE((info.out + info.err).find(what), std::string::npos) << info.out << info.err;
  auto stats = RunCmd({TT_CLI, "stats", d / "t"}, {}, 20);
  EXPECT_EQ(stats.status, 3) << stats.err;
  EXPECT_NE(stats.out.find("leaf"), std::string::npos) << stats.out;
  auto exp = RunCmd({TT_CLI, "export", d / "t", "--format", "csv", "-o", d / "x.csv"}, {}, 20);
  EXPECT_EQ(exp.status, 3) << exp.err;
  EXPECT_NE(exp.err.find("damaged: " + fifo + ": skipped: it is a FIFO, not a stream file"),
            std::string::npos)
      << exp.err;
  auto rep = RunCmd({TT_CLI, "report", d / "t", "-o", d / "r.html", "--allow-damaged"}, {}, 20);
  EXPECT_EQ(rep.status, 0) << rep.err;
}

// --- Numeric options ------------------------------------------------------------------------

TEST(NumericOptions, BadValuesGiveOneLineNamingTheOption) {
  TempDir d;
  MakeTrace(d);
  const std::string t = d / "t", o = d / "o";
  struct Case {
    std::vector<std::string> prefix;  // the command up to the option
    std::string option;
  };
  std::vector<Case> cases = {
      {{"stats", t}, "--top"},
      {{"stats", t}, "--max-depth"},
      {{"stats", t}, "--skip-warmup"},
      {{"stats", t}, "--min-micros"},
      {{"stats", t}, "--steps"},
      {{"report", t, "-o", o}, "--top"},
      {{"report", t, "-o", o}, "--skip-warmup"},
      {{"report", t, "-o", o}, "--steps"},
      {{"export", t, "--format", "csv", "-o", o}, "--skip-warmup"},
      {{"export", t, "--format", "csv", "-o", o}, "--max-events"},
      {{"export", t, "--format", "csv", "-o", o}, "--steps"},
      {{"record", "-o", o}, "--buffer-size"},
      {{"record", "-o", o}, "--max-size"},
      {{"record", "-o", o}, "--wait-children"},
      {{"record", "-o", o}, "--window-s"},
      {{"record", "-o", o}, "--steps"},
  };
  const std::vector<std::string> bad = {
      "99999999999999999999999", "-1", "+5", " 5", "5x", "", "nan", "inf", "1e999", "0x10", "-0"};
  for (const auto& c : cases) {
    for (const auto& v : bad) {
      // 1e23 micros is a (silly) number of microseconds; for every other option it is too large.
      if (c.option == "--min-micros" && v == bad[0]) continue;
      std::vector<std::string> argv{TT_CLI};
      argv.insert(argv.end(), c.prefix.begin(), c.prefix.end());
      argv.push_back(c.option);
      argv.push_back(v);
      if (c.prefix[0] == "record") argv.insert(argv.end(), {"--", "true"});
      SCOPED_TRACE(c.prefix[0] + " " + c.option + " '" + v + "'");
      ExpectOneLineError(RunCmd(argv), c.option);
    }
  }
  EXPECT_FALSE(PathExists(o));  // no recording started
}

TEST(NumericOptions, HugeWaitIsRefusedNotWrapped) {
  // 1e20 s in milliseconds overflows an int64 (undefined; under UBSan an abort).
  TempDir d;
  ExpectOneLineError(RunCmd({TT_CLI, "record", "-o", d / "t", "--wait-children",
                             "99999999999999999999", "--", "true"}),
                     "--wait-children: '99999999999999999999' is too large");
}

TEST(NumericOptions, GoodValuesStillWork) {
  TempDir d;
  MakeTrace(d);
  auto r = RunCmd(
      {TT_CLI, "stats", d / "t", "--top", "1", "--max-depth", "2", "--min-micros", "0.5e-3"});
  EXPECT_EQ(r.status, 0) << r.err;
  r = RunCmd({TT_CLI, "record", "-o", d / "r", "--buffer-size", "64K", "--wait-children", "0.25",
              "--", "true"});
  EXPECT_EQ(r.status, 0) << r.err;
}

// --- Terminal escaping ----------------------------------------------------------------------

TEST(TerminalEscape, NamesAreShownNotObeyed) {
  TempDir d;
  std::string py = PathExists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  // "\x1b[2J" clears the screen of the terminal that prints it.
  const char* script =
      "import ctypes, os\n"
      "lib = ctypes.CDLL(os.environ['TT_LIB'])\n"
      "lib.tt_set_thread_name(b'th\\x1b[2J')\n"
      "lib.tt_range_push(b'op\\x1b[2J')\n"
      "lib.tt_range_pop()\n";
  auto r = RunCmd({TT_CLI, "record", "-o", d / "t", "--", py, "-c", script},
                  {{"TT_LIB", TT_LIB}, {"ASAN_OPTIONS", "detect_leaks=0"}}, 120);
  ASSERT_EQ(r.status, 0) << r.err;
  auto info = RunCmd({TT_CLI, "info", d / "t"});
  EXPECT_EQ(info.status, 0) << info.err;
  EXPECT_EQ(info.out.find('\x1b'), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("th\\x1b[2J"), std::string::npos) << info.out;
  auto stats = RunCmd({TT_CLI, "stats", d / "t", "--view", "name"});
  EXPECT_EQ(stats.status, 0) << stats.err;
  EXPECT_EQ(stats.out.find('\x1b'), std::string::npos) << stats.out;
  EXPECT_NE(stats.out.find("op\\x1b[2J"), std::string::npos) << stats.out;
  // JSON escapes by its own rules and CSV stays data-exact: the name's bytes, unchanged.
  auto json = RunCmd({TT_CLI, "stats", d / "t", "--view", "name", "--json"});
  EXPECT_NE(json.out.find("op\\u001b[2J"), std::string::npos) << json.out;
  auto csv = RunCmd({TT_CLI, "stats", d / "t", "--view", "name", "--csv"});
  EXPECT_NE(csv.out.find("op\x1b[2J"), std::string::npos) << csv.out;
}

// A byte that is no part of valid UTF-8 (a lone 0x9b: a CSI to a terminal that takes 8-bit
// controls) is shown as \x9b in the tables, valid UTF-8 stays as it is; and the lines about
// errors and damage show a path's escape sequence, never send it.
TEST(TerminalEscape, InvalidUtf8AndPathsInErrorLinesAreShownNotObeyed) {
  TempDir d;
  std::string py = PathExists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  const char* script =
      "import ctypes, os\n"
      "lib = ctypes.CDLL(os.environ['TT_LIB'])\n"
      "lib.tt_range_push(b'op\\x9b2J \\xe6\\x97\\xa5')\n"
      "lib.tt_range_pop()\n";
  std::string t = d / "t\x1b[2J";
  auto r = RunCmd({TT_CLI, "record", "-o", t, "--", py, "-c", script},
                  {{"TT_LIB", TT_LIB}, {"ASAN_OPTIONS", "detect_leaks=0"}}, 120);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;  // "trace written to ..."
  auto stats = RunCmd({TT_CLI, "stats", t, "--view", "name"});
  EXPECT_EQ(stats.status, 0) << stats.err;
  EXPECT_EQ(stats.out.find('\x9b'), std::string::npos) << stats.out;
  EXPECT_NE(stats.out.find("op\\x9b2J \xe6\x97\xa5"), std::string::npos) << stats.out;

  auto missing = RunCmd({TT_CLI, "info", d / "none\x1b[2J"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(missing.err.find('\x1b'), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("none\\x1b[2J"), std::string::npos) << missing.err;

  std::string stream;  // a stream replaced by a directory: damage, named by its path
  for (const auto& p : ListDirectory(t))
    if (p[0] == 'p')
      for (const auto& f : ListDirectory(t + "/" + p))
        if (f[0] == 't') stream = t + "/" + p + "/" + f;
  ASSERT_FALSE(stream.empty());
  std::filesystem::remove(stream);
  std::filesystem::create_directory(stream);
  for (const char* cmd : {"info", "stats", "memory", "comm"}) {
    auto damaged = RunCmd({TT_CLI, cmd, t});
    EXPECT_EQ(damaged.status, 3) << damaged.err;
    EXPECT_EQ(damaged.err.find('\x1b'), std::string::npos) << cmd << ": " << damaged.err;
    EXPECT_NE(damaged.err.find("damaged: " + d / "t\\x1b[2J"), std::string::npos) << damaged.err;
  }
}

// --- The output directory of record ---------------------------------------------------------

TEST(TraceDir, TraceIsOwnerOnlyWhateverTheProgramsUmask) {
  // 000 would leave everything open to all; 0277 would make files read-only (0400).
  for (const char* mask : {"000", "0277"}) {
    SCOPED_TRACE(std::string("umask ") + mask);
    TempDir d;
    auto r = RunCmd({"sh", "-c", std::string("umask ") + mask + " && exec \"$@\"", "sh", TT_CLI,
                     "record", "-o", d / "t", "--", TT_PROGRAM, "fork", "10"});
    ASSERT_EQ(r.status, 0) << r.err;
    size_t files = 0, dirs = 0;
    EXPECT_EQ(Mode(d / "t"), 0700u);
    for (const auto& e : std::filesystem::recursive_directory_iterator(d / "t")) {
      bool dir = e.is_directory();
      (dir ? dirs : files)++;
      EXPECT_EQ(Mode(e.path().string()), dir ? 0700u : 0600u) << e.path();
    }
    EXPECT_GE(dirs, 2u);  // the parent's and the child's process directories
    EXPECT_GE(files, 5u);
  }
}

TEST(TraceDir, EmptyOutputNameIsAnError) {
  TempDir d;
  auto r =
      RunCmd({"sh", "-c", "cd \"$1\" && exec \"$2\" record -o '' -- true", "sh", d.path(), TT_CLI});
  ExpectOneLineError(r, "-o: the output directory name is empty");
  EXPECT_TRUE(ListDirectory(d.path()).empty());  // no directory named after the time instead
}

TEST(TraceDir, RefusesADirectoryOfAnotherUser) {
  TempDir d;
  ASSERT_EQ(mkdir((d / "theirs").c_str(), 0777), 0);
  if (chown((d / "theirs").c_str(), 65534, 65534) != 0) GTEST_SKIP() << "cannot chown here";
  auto r = RunCmd({TT_CLI, "record", "-o", d / "theirs", "--", "true"});
  ExpectOneLineError(r, "belongs to another user");
  EXPECT_TRUE(ListDirectory(d / "theirs").empty());
}

TEST(TraceDir, ForceRemovesOnlyATracesOwnFiles) {
  TempDir d;
  std::string proc = MakeTrace(d);
  auto force = [&]() {
    return RunCmd({TT_CLI, "record", "--force", "-o", d / "t", "--", TT_PROGRAM, "leaf", "3"});
  };
  ASSERT_TRUE(MakeDirectory(d / "t/xspace"));
  // A stranger beside the trace, inside a process directory, or in xspace/: all refused.
  for (const std::string& stray : {d / "t/notes.txt", proc + "/notes.txt", d / "t/xspace/x"}) {
    WriteFileAtomic(stray, "keep me");
    ExpectOneLineError(force(), stray + " is not");
    EXPECT_EQ(ReadFile(stray), "keep me");
    EXPECT_TRUE(PathExists(proc + "/metadata"));
    ASSERT_EQ(unlink(stray.c_str()), 0);
  }
  // A link where a stream would be is not the trace's either (and is never followed).
  WriteFileAtomic(d / "outside", "keep me");
  ASSERT_EQ(symlink((d / "outside").c_str(), (proc + "/t1").c_str()), 0);
  ExpectOneLineError(force(), proc + "/t1 is not a trace file");
  ASSERT_EQ(unlink((proc + "/t1").c_str()), 0);
  // What is left is a trace (with an xspace/ capture directory): replaced.
  ASSERT_TRUE(MakeDirectory(d / "t/xspace/123"));
  std::filesystem::create_directories(d / "t/xspace/123/plugins/profile/run1");
  WriteFileAtomic(d / "t/xspace/123/plugins/profile/run1/host.xplane.pb", "pb");
  for (const char* f : {"import.json", "capture.json", ".capture.json.tmp"})
    WriteFileAtomic(d / "t/xspace/123/" + f, "{}");
  auto r = force();
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(PathExists(d / "t/xspace"));
  EXPECT_EQ(ReadFile(d / "outside"), "keep me");
  EXPECT_EQ(test::LoadTrace(d / "t").procs.at(0).Count(layout::kSliceBegin, "leaf"), 3u);
}

// --- Signals --------------------------------------------------------------------------------

// record running a shell that exits 0 on `sig`: record passes it on and exits 0 after it.
void ExpectForwarded(int sig, const char* name) {
  TempDir d;
  std::string script =
      std::string("trap 'exit 0' ") + name + "; echo ready; while :; do sleep 0.05; done";
  int out = -1;
  int pid = test::Spawn({TT_CLI, "record", "-o", d / "t", "--", "sh", "-c", script}, &out);
  ASSERT_EQ(test::ReadLine(out).rfind("ready", 0), 0u);
  kill(pid, sig);
  EXPECT_EQ(test::Wait(pid), 0) << name;
  close(out);
  auto v = test::LoadTrace(d / "t");
  EXPECT_TRUE(v.problems.empty()) << name;
  EXPECT_FALSE(v.procs.empty()) << name;
}

TEST(RecordSignals, ForwardsUsr1Usr2HupQuit) {
  ExpectForwarded(SIGUSR1, "USR1");
  ExpectForwarded(SIGUSR2, "USR2");
  ExpectForwarded(SIGHUP, "HUP");
  ExpectForwarded(SIGQUIT, "QUIT");
}

}  // namespace
}  // namespace tt
