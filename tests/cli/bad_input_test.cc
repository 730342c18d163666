// Bad input: every case gives one clear line and a non-zero exit, or, for a partly damaged
// trace, everything readable plus a list of what was skipped. Never a crash or a hang.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <sstream>

#include "core/files.h"
#include "format/layout.h"
#include "test_util.h"
#include "trace_view.h"

namespace tt {
namespace {

using test::RunCmd;
using test::TempDir;

// One line on stderr naming `what`, exit 2, nothing on stdout.
void ExpectOneLineError(const test::RunResult& r, const std::string& what) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

// A small recorded trace with several packets per thread; returns its thread stream path.
std::string MakeTrace(const TempDir& d, std::string* proc_dir) {
  auto r = RunCmd(
      {TT_CLI, "record", "--buffer-size", "64K", "-o", d / "t", "--", TT_PROGRAM, "leaf", "20000"});
  EXPECT_EQ(r.status, 0) << r.err;
  for (const auto& e : ListDirectory(d / "t"))
    if (IsDirectory(d / "t/" + e)) *proc_dir = d / "t/" + e;
  for (const auto& f : ListDirectory(*proc_dir))
    if (f[0] == 't') return *proc_dir + "/" + f;
  return "";
}

uint64_t InfoEvents(const std::string& dir, std::string* out = nullptr) {
  // A damaged trace exits 3 unless --allow-damaged (then 0, with the same warning lines).
  auto r = RunCmd({TT_CLI, "info", dir, "--allow-damaged"});
  EXPECT_EQ(r.status, 0) << r.err;
  if (out) *out = r.out + r.err;
  unsigned long long n = 0;
  size_t at = r.out.find("threads, ");
  if (at != std::string::npos) n = std::strtoull(r.out.c_str() + at + 9, nullptr, 10);
  return n;
}

void Patch(const std::string& path, uint64_t off, const std::string& bytes) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<long>(off));
  f.write(bytes.data(), static_cast<long>(bytes.size()));
}

TEST(BadInput, MissingPath) {
  ExpectOneLineError(RunCmd({TT_CLI, "info", "/no/such/trace"}), "/no/such/trace does not exist");
}

TEST(BadInput, FileInsteadOfDirectory) {
  TempDir d;
  WriteFileAtomic(d / "f", "x");
  ExpectOneLineError(RunCmd({TT_CLI, "info", d / "f"}), "is a file");
}

TEST(BadInput, DirectoryThatIsNotATrace) {
  TempDir d;
  WriteFileAtomic(d / "notes.txt", "hello");
  ExpectOneLineError(RunCmd({TT_CLI, "info", d.path()}), "not a trace");
}

TEST(BadInput, WrongOptionsAndCommands) {
  ExpectOneLineError(RunCmd({TT_CLI, "info", "--frobnicate"}), "unknown option '--frobnicate'");
  ExpectOneLineError(RunCmd({TT_CLI, "info"}), "no trace directory given");
  ExpectOneLineError(RunCmd({TT_CLI, "info", "a", "b"}), "unexpected argument 'b'");
  ExpectOneLineError(RunCmd({TT_CLI, "frobnicate"}), "unknown command 'frobnicate'");
  ExpectOneLineError(RunCmd({TT_CLI, "record"}), "no command given");
  ExpectOneLineError(RunCmd({TT_CLI, "record", "--buffer-size", "abc", "--", "true"}),
                     "--buffer-size: 'abc' is not a size");
  ExpectOneLineError(RunCmd({TT_CLI, "record", "--buffer-size", "4K", "--", "true"}),
                     "--buffer-size must be between 64K and 1G");
  ExpectOneLineError(RunCmd({TT_CLI, "record", "--buffer-size", "1T", "--", "true"}),
                     "unknown unit 'T'");
  ExpectOneLineError(RunCmd({TT_CLI, "record", "-o"}), "option -o needs a value");
  ExpectOneLineError(RunCmd({TT_CLI, "record", "--wait-children", "-1", "--", "true"}),
                     "is not a number of seconds");
  ExpectOneLineError(RunCmd({TT_CLI, "record", "--bogus", "--", "true"}),
                     "unknown option '--bogus'");
}

// The overview is written from the command table (src/cli/commands.cc): each command it lists
// answers --help with its own usage, and a name it does not list is refused.
TEST(BadInput, EveryCommandHasHelp) {
  auto all = RunCmd({TT_CLI, "--help"});
  ASSERT_EQ(all.status, 0);
  size_t at = all.out.find("commands:\n");
  ASSERT_NE(at, std::string::npos) << all.out;
  std::vector<std::string> names;
  std::istringstream lines(all.out.substr(at + 10));
  for (std::string line; std::getline(lines, line) && !line.empty();)
    if (line.size() > 2 && line[2] != ' ') names.push_back(line.substr(2, line.find(' ', 2) - 2));
  EXPECT_EQ(names.size(), 14u) << all.out;
  for (const auto& cmd : names) {
    auto r = RunCmd({TT_CLI, cmd, "--help"});
    EXPECT_EQ(r.status, 0) << cmd;
    EXPECT_NE(r.out.find("usage: tensortrace " + cmd), std::string::npos) << cmd << ":\n" << r.out;
  }
  ExpectOneLineError(RunCmd({TT_CLI, "statz", "DIR"}), "unknown command 'statz'");
}

TEST(BadInput, OutputPathThatIsAFile) {
  TempDir d;
  WriteFileAtomic(d / "f", "x");
  ExpectOneLineError(RunCmd({TT_CLI, "record", "-o", d / "f", "--", "true"}),
                     "exists and is not a directory");
}

TEST(BadInput, TruncatedStreamIsReadUpToTheCut) {
  TempDir d;
  std::string proc;
  std::string stream = MakeTrace(d, &proc);
  uint64_t full = InfoEvents(d / "t");
  uint64_t size = FileSize(stream);
  ASSERT_GT(size, 3u * 65536);
  // Cut in the middle of the third packet.
  ASSERT_EQ(truncate(stream.c_str(), static_cast<off_t>(2 * 65536 + 30000)), 0);
  std::string out;
  uint64_t part = InfoEvents(d / "t", &out);
  EXPECT_LT(part, full);
  EXPECT_GT(part, full / 4);
  EXPECT_NE(out.find(stream + ": offset 131072: truncated"), std::string::npos) << out;
  // Cut inside a packet header.
  ASSERT_EQ(truncate(stream.c_str(), static_cast<off_t>(65536 + 40)), 0);
  uint64_t part2 = InfoEvents(d / "t", &out);
  EXPECT_LT(part2, part);
  EXPECT_NE(out.find("truncated packet header"), std::string::npos) << out;
}

TEST(BadInput, CorruptedEventsSkipOnlyTheirPacket) {
  TempDir d;
  std::string proc;
  std::string stream = MakeTrace(d, &proc);
  uint64_t full = InfoEvents(d / "t");
  // Garbage in the middle of the second packet's events.
  Patch(stream, 65536 + 20000, std::string(16, '\xEE'));
  std::string out;
  uint64_t part = InfoEvents(d / "t", &out);
  EXPECT_LT(part, full);
  EXPECT_GT(part, full / 2);  // later packets are still read
  EXPECT_NE(out.find("corrupted event"), std::string::npos) << out;
  EXPECT_NE(out.find(stream), std::string::npos);
}

TEST(BadInput, CorruptedPacketHeaderStopsTheStream) {
  TempDir d;
  std::string proc;
  std::string stream = MakeTrace(d, &proc);
  Patch(stream, 2 * 65536, "XXXX");
  std::string out;
  InfoEvents(d / "t", &out);
  EXPECT_NE(out.find(stream + ": offset 131072: bad packet magic"), std::string::npos) << out;
}

TEST(BadInput, CorruptedMetadata) {
  TempDir d;
  std::string proc;
  MakeTrace(d, &proc);
  std::string meta = ReadFile(proc + "/metadata");
  WriteFileAtomic(proc + "/metadata", meta.substr(0, meta.size() / 2));
  auto r = RunCmd({TT_CLI, "info", d / "t"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("corrupted metadata: " + proc + "/metadata"), std::string::npos) << r.err;
  WriteFileAtomic(proc + "/metadata", "\x01\x02garbage");
  r = RunCmd({TT_CLI, "info", d / "t"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("not CTF 1.8 metadata"), std::string::npos) << r.err;
  // A value that is not a number.
  std::string bad = meta;
  bad.replace(bad.find("  pid = "), 8, "  pid = x");
  WriteFileAtomic(proc + "/metadata", bad);
  r = RunCmd({TT_CLI, "info", d / "t"});
  EXPECT_NE(r.err.find("env.pid is not an integer"), std::string::npos) << r.err;
}

TEST(BadInput, OneDamagedProcessLeavesTheOthers) {
  TempDir d;
  auto r = RunCmd({TT_CLI, "record", "-o", d / "t", "--", TT_PROGRAM, "fork", "100"});
  ASSERT_EQ(r.status, 0);
  auto dirs = ListDirectory(d / "t");
  std::string victim;
  for (const auto& e : dirs)
    if (IsDirectory(d / "t/" + e)) victim = d / "t/" + e;
  WriteFileAtomic(victim + "/metadata", "/* CTF 1.8 */\nnonsense");
  auto info = RunCmd({TT_CLI, "info", d / "t"});
  EXPECT_EQ(info.status, 3) << info.err;  // the damage status
  EXPECT_NE(info.out.find("1 processes"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("skipped this process"), std::string::npos) << info.out;
  EXPECT_NE(info.err.find("damaged: " + victim + "/metadata"), std::string::npos) << info.err;
}

TEST(BadInput, RandomDamageNeverCrashesTheReader) {
  TempDir d;
  std::string proc;
  std::string stream = MakeTrace(d, &proc);
  std::string pristine = ReadFile(stream);
  std::mt19937 rng(1234);
  for (int round = 0; round < 60; ++round) {
    std::string damaged = pristine;
    int flips = 1 + static_cast<int>(rng() % 20);
    for (int i = 0; i < flips; ++i) damaged[rng() % damaged.size()] = static_cast<char>(rng());
    if (round % 3 == 0) damaged.resize(rng() % damaged.size());
    WriteFileAtomic(stream, damaged);
    auto r = RunCmd({TT_CLI, "info", d / "t", "--json"}, {}, 30);
    ASSERT_TRUE(r.status == 0 || r.status == 3) << "round " << round << ": " << r.err;
    ASSERT_FALSE(r.out.empty());
  }
}

}  // namespace
}  // namespace tt
