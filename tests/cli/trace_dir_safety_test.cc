// Issue 40, "Nothing lost, nothing written where it should not be": the program's file-size
// limit stays the program's, the trace directory is the recording's alone (owner-only, files
// planted in it refused without blocking, one recording at a time), metadata is read within a
// bound, and export killed by a signal leaves no temporary file. Every run has a timeout.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "core/files.h"
#include "format/layout.h"
#include "test_util.h"
#include "trace_view.h"

namespace tt {
namespace {

using test::RunCmd;
using test::TempDir;

bool Has(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

unsigned Mode(const std::string& path) {
  struct stat st;
  EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// `argv` run under a file-size limit of `kib` KiB (bash's ulimit -f, soft and hard).
test::RunResult RunLimited(int kib, std::vector<std::string> argv) {
  argv.insert(argv.begin(),
              {"bash", "-c", "ulimit -f " + std::to_string(kib) + " && exec \"$@\"", "bash"});
  return RunCmd(argv, {}, 60);
}

// --- Item 2: the program's RLIMIT_FSIZE --------------------------------------------------------

TEST(FileSizeLimit, ProgramThatWritesLittleExitsAsItWouldAndDropsAreCounted) {
  TempDir d;
  // 512 KiB: below a packet of the default 1 MiB buffer; the program itself writes nothing.
  auto r = RunLimited(512, {TT_CLI, "record", "-o", d / "t", "--", TT_PROGRAM, "leaf", "50"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(Has(r.err, "trace written")) << r.err;
  auto info = RunCmd({TT_CLI, "info", d / "t"}, {}, 30);
  EXPECT_EQ(info.status, 0) << info.err;
  EXPECT_TRUE(Has(info.out, "file size limit")) << info.out;
  EXPECT_TRUE(test::LoadTrace(d / "t").problems.empty());

  // 64 KiB packets: the stream fills the limit, then drops what does not fit, with its cause.
  auto busy = RunLimited(512, {TT_CLI, "record", "-o", d / "b", "--buffer-size", "64K", "--",
                               TT_PROGRAM, "leaf", "300000"});
  EXPECT_EQ(busy.status, 0) << busy.err;
  EXPECT_TRUE(Has(busy.err, "dropped by cause: file size limit")) << busy.err;
  auto v = test::LoadTrace(d / "b");
  EXPECT_TRUE(v.problems.empty());
  ASSERT_FALSE(v.procs.empty());
  EXPECT_GT(v.procs[0].Count(layout::kSliceBegin, "leaf"), 0u);
}

TEST(FileSizeLimit, ProgramsOwnWritesPastTheLimitBehaveAsWithoutRecord) {
  TempDir d;
  // Without record the shell's `head` dies of SIGXFSZ: under record too, and the shell says so.
  auto r = RunLimited(64, {TT_CLI, "record", "-o", d / "t", "--", "sh", "-c",
                           "head -c 1000000 /dev/zero > \"$0\"; echo status=$?", d / "big"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(Has(r.out, "status=153")) << r.out;
  EXPECT_TRUE(Has(r.err, "trace written")) << r.err;
}

// --- Item 4: the trace directory is the recording's alone --------------------------------------

// The program's exit status, in the session file that replaced the plant.
int SessionExitCode(const std::string& trace) {
  std::string s = ReadFile(trace + "/tensortrace.json");
  size_t at = s.find("\"exit_code\": ");
  return at == std::string::npos ? -1 : std::atoi(s.c_str() + at + 13);
}

// A FIFO the program leaves where tensortrace.json goes is never opened (no hang, no SIGPIPE):
// it is replaced, so the trace keeps the program's status and reads as finished.
TEST(TraceDirSafety, FifoPlantedAtTheSessionFileIsReplacedNotOpened) {
  TempDir d;
  auto r = RunCmd({TT_CLI, "record", "-o", d / "t", "--", "sh", "-c",
                   "mkfifo \"$TENSORTRACE_DIR/tensortrace.json\"; exit 3"},
                  {}, 20);
  EXPECT_EQ(r.status, 3) << r.err;  // the program's, not a hang (124) nor SIGPIPE (141)
  EXPECT_TRUE(Has(r.err, "the program left a FIFO at " + d / "t/tensortrace.json")) << r.err;
  EXPECT_TRUE(Has(r.err, "trace written")) << r.err;
  EXPECT_FALSE(Has(r.err, "is missing")) << r.err;   // the summary read no plant
  EXPECT_EQ(Mode(d / "t/tensortrace.json"), 0600u);  // a regular file of its own
  EXPECT_EQ(SessionExitCode(d / "t"), 3);
  EXPECT_EQ(RunCmd({TT_CLI, "info", d / "t"}, {}, 20).status, 0);
}

TEST(TraceDirSafety, LinkPlantedAtTheSessionFileIsNotFollowed) {
  TempDir d;
  WriteFileAtomic(d / "outside", "keep me");
  auto r = RunCmd({TT_CLI, "record", "-o", d / "t", "--", "sh", "-c",
                   "ln -s \"$0\" \"$TENSORTRACE_DIR/tensortrace.json\"; exit 4", d / "outside"},
                  {}, 20);
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_TRUE(Has(r.err, "the program left a symbolic link at")) << r.err;
  EXPECT_EQ(ReadFile(d / "outside"), "keep me");
  EXPECT_EQ(SessionExitCode(d / "t"), 4);
}

// What cannot be replaced (a directory), or a plant made after record ended: every reader says
// the session file is missing and exits with the damage status, not "finished" in silence.
TEST(TraceDirSafety, SessionFileThatIsNoFileIsDamage) {
  TempDir d;
  auto r = RunCmd({TT_CLI, "record", "-o", d / "t", "--", "sh", "-c",
                   "mkdir \"$TENSORTRACE_DIR/tensortrace.json\"; exit 5"},
                  {}, 20);
  EXPECT_EQ(r.status, 5) << r.err;
  EXPECT_TRUE(Has(r.err, "the trace has no session file")) << r.err;
  std::string what = d / "t/tensortrace.json: it is a directory, not a regular file";
  for (const char* cmd : {"info", "stats", "memory"}) {
    auto got = RunCmd({TT_CLI, cmd, d / "t"}, {}, 20);
    EXPECT_EQ(got.status, 3) << cmd << ": " << got.err;
    EXPECT_TRUE(Has(got.err, what)) << cmd << ": " << got.err;
  }
  auto rec = RunCmd({TT_CLI, "record", "-o", d / "u", "--", TT_PROGRAM, "leaf", "10"}, {}, 20);
  ASSERT_EQ(rec.status, 0) << rec.err;
  std::filesystem::remove(d / "u/tensortrace.json");
  ASSERT_EQ(mkfifo((d / "u/tensortrace.json").c_str(), 0600), 0);
  auto fifo = RunCmd({TT_CLI, "info", d / "u"}, {}, 20);
  EXPECT_EQ(fifo.status, 3) << fifo.err;  // not a hang
  EXPECT_TRUE(Has(fifo.err, "tensortrace.json: it is a FIFO, not a regular file")) << fifo.err;
}

TEST(TraceDirSafety, FifoPlantedAtAnImportSummaryNeverBlocks) {
  TempDir d;
  auto r = RunCmd({TT_CLI, "record", "-o", d / "t", "--", "sh", "-c",
                   "x=\"$TENSORTRACE_DIR/xspace/$$\"; mkdir -p \"$x/plugins\" && "
                   "mkfifo \"$x/import.json\" && exit 5"},
                  {}, 20);
  EXPECT_EQ(r.status, 5) << r.err;
  EXPECT_TRUE(Has(r.err, "trace written")) << r.err;
}

// A program that leaves many pid folders under xspace/ (none a profile): record says so in a
// bounded number of lines, not one per folder.
TEST(TraceDirSafety, ManyPlantedProfileFoldersAreOneLineEach) {
  TempDir d;
  auto r =
      RunCmd({TT_CLI, "record", "-o", d / "t", "--", "sh", "-c",
              "i=0; while [ $i -lt 60 ]; do mkdir -p \"$TENSORTRACE_DIR/xspace/$((900000+i))\"; "
              "i=$((i+1)); done"},
             {}, 60);
  EXPECT_EQ(r.status, 0) << r.err;
  size_t lines = 0;
  for (size_t at = 0; (at = r.err.find(": nothing imported", at)) != std::string::npos; ++at)
    ++lines;
  EXPECT_EQ(lines, 20u) << r.err;
  EXPECT_TRUE(Has(r.err, "40 more profile folder(s) under")) << r.err;
  EXPECT_TRUE(Has(r.err, "(0 with a profile imported;")) << r.err;
  EXPECT_TRUE(Has(r.err, "trace written")) << r.err;
}

TEST(TraceDirSafety, ClosedOutputPipeKeepsTheProgramsStatus) {
  TempDir d;
  // record's stderr is a pipe whose reader has gone: its summary fails (EPIPE), it is not
  // ended by SIGPIPE (141), and the program's status comes through.
  auto r = RunCmd({"bash", "-c",
                   "set -o pipefail; \"$0\" record -o \"$1\" -- sh -c 'sleep 0.2; exit 7' "
                   "2>&1 >/dev/null | true",
                   TT_CLI, d / "t"},
                  {}, 20);
  EXPECT_EQ(r.status, 7) << r.err;
}

TEST(TraceDirSafety, WorldWritableOutputIsMadeOwnerOnly) {
  TempDir d;
  ASSERT_EQ(mkdir((d / "t").c_str(), 0700), 0);
  ASSERT_EQ(chmod((d / "t").c_str(), 01777), 0);
  auto r = RunCmd({TT_CLI, "record", "-o", d / "t", "--", TT_PROGRAM, "leaf", "3"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(Mode(d / "t"), 0700u);
}

TEST(TraceDirSafety, ProgramsXSpaceFilesAreMadePrivate) {
  TempDir d;
  auto r = RunCmd({"sh", "-c", "umask 000 && exec \"$@\"", "sh", TT_CLI, "record", "-o", d / "t",
                   "--", "sh", "-c",
                   "x=\"$TENSORTRACE_DIR/xspace/$$/plugins/profile\"; mkdir -p \"$x\" && "
                   "echo data > \"$x/notes\""},
                  {}, 30);
  ASSERT_TRUE(r.status == 0 || r.status == 2) << r.err;  // nothing importable is not an error
  size_t seen = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(d / "t/xspace")) {
    ++seen;
    EXPECT_EQ(Mode(e.path().string()), e.is_directory() ? 0700u : 0600u) << e.path();
  }
  EXPECT_GE(seen, 4u);  // <pid>/, plugins/, profile/, notes
}

// --- Item 5: one recording per directory -------------------------------------------------------

TEST(TraceDirSafety, SecondRecordingOnALiveOneIsRefused) {
  TempDir d;
  std::string go = d / "go";
  int out = -1;
  int pid = test::Spawn({TT_CLI, "record", "-o", d / "t", "--", "sh", "-c",
                         "echo ready; while [ ! -e \"$0\" ]; do sleep 0.02; done", go},
                        &out);
  ASSERT_EQ(test::ReadLine(out).rfind("ready", 0), 0u);
  for (bool force : {false, true}) {
    std::vector<std::string> argv = {TT_CLI, "record", "-o", d / "t"};
    if (force) argv.push_back("--force");
    argv.insert(argv.end(), {"--", TT_PROGRAM, "leaf", "3"});
    auto r = RunCmd(argv, {}, 20);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
    EXPECT_TRUE(Has(r.err, "is in use by another recording")) << r.err;
  }
  WriteFileAtomic(go, "");
  EXPECT_EQ(test::Wait(pid), 0);
  close(out);
  auto v = test::LoadTrace(d / "t");
  EXPECT_TRUE(v.problems.empty());
  ASSERT_FALSE(v.procs.empty());
  for (const auto& p : v.procs) EXPECT_EQ(p.Count(layout::kSliceBegin, "leaf"), 0u);
  // Once it has ended, --force replaces it as before.
  auto again = RunCmd({TT_CLI, "record", "--force", "-o", d / "t", "--", TT_PROGRAM, "leaf", "3"});
  EXPECT_EQ(again.status, 0) << again.err;
}

// --- Item 7: bounded metadata, export's temporary files ----------------------------------------

TEST(BoundedReads, HugeSparseMetadataIsRefusedBeforeItIsRead) {
  TempDir d;
  auto r = RunCmd({TT_CLI, "record", "-o", d / "t", "--", TT_PROGRAM, "leaf", "3"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string meta = d / ("t/p" + std::to_string(test::RecordedPid(d / "t")) + "/metadata");
  ASSERT_EQ(truncate(meta.c_str(), 8ll << 30), 0);  // 8 GiB, sparse
  auto info = RunCmd({TT_CLI, "info", d / "t"}, {}, 20);
  EXPECT_EQ(info.status, 2) << info.err;
  EXPECT_EQ(test::CountLines(info.err), 1u) << info.err;
  EXPECT_TRUE(Has(info.err, meta + ": 8589934592 bytes is too large to be CTF metadata"))
      << info.err;
}

TEST(ExportSignals, SigtermLeavesNoTemporaryFile) {
  TempDir d;
  auto r = RunCmd({TT_CLI, "record", "-o", d / "t", "--", TT_PROGRAM, "leaf", "1000000"}, {}, 120);
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_TRUE(MakeDirectory(d / "out"));
  int out = -1;
  int pid =
      test::Spawn({TT_CLI, "export", d / "t", "--format", "chrome", "-o", d / "out/x.json"}, &out);
  // Killed once its temporary file is there (polled; export takes about a second).
  bool seen = false;
  for (int i = 0; i < 30000 && !seen; ++i) {
    seen = !ListDirectory(d / "out").empty();
    if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(seen);
  kill(pid, SIGTERM);
  int status = test::Wait(pid);
  close(out);
  if (status == 0) GTEST_SKIP() << "export had finished before the signal";
  EXPECT_EQ(status, 128 + SIGTERM);
  EXPECT_TRUE(ListDirectory(d / "out").empty());
}

}  // namespace
}  // namespace tt
