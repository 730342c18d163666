// Damage is never silent: every command that reads a trace, run over a damaged copy of a small
// recording, either gives the same output as over the intact trace or exits with the damage
// status (3) and names the damaged file on stderr; --allow-damaged turns the status into 0.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "core/files.h"
#include "test_util.h"

namespace tt {
namespace {

using test::RunCmd;
using test::TempDir;
namespace fs = std::filesystem;

constexpr int kDamaged = 3;

// The first thread stream (t<tid>) of the trace in `trace`.
std::string ThreadStream(const std::string& trace) {
  if (!IsDirectory(trace)) return "";
  for (const auto& p : ListDirectory(trace))
    if (p[0] == 'p' && IsDirectory(trace + "/" + p))
      for (const auto& f : ListDirectory(trace + "/" + p))
        if (f[0] == 't') return trace + "/" + p + "/" + f;
  return "";
}

struct Mutant {
  const char* name;
  std::function<std::string(const std::string& stream)> apply;  // returns the file it damaged
};

std::vector<Mutant> Mutants() {
  return {
      {"zero byte in the middle",
       [](const std::string& s) {
         std::string b = ReadFile(s);
         for (size_t i = b.size() / 2; i < b.size() / 2 + 64; ++i) b[i] = 0;
         WriteFileAtomic(s, b);
         return s;
       }},
      {"truncated stream",
       [](const std::string& s) {
         std::string b = ReadFile(s);
         WriteFileAtomic(s, b.substr(0, b.size() / 2 + 7));
         return s;
       }},
      {"deleted metadata",
       [](const std::string& s) {
         std::string m = fs::path(s).parent_path() / "metadata";
         fs::remove(m);
         return m;
       }},
      {"empty file in place of a stream",  // record leaves none: it removes empty streams
       [](const std::string& s) {
         WriteFileAtomic(s, "");
         return s;
       }},
      {"directory in place of a stream",
       [](const std::string& s) {
         fs::remove(s);
         fs::create_directory(s);
         return s;
       }},
  };
}

// Every reading command over `t` (its outputs written under `out`).
std::vector<std::vector<std::string>> Commands(const std::string& t, const std::string& out) {
  return {{TT_CLI, "info", t},
          {TT_CLI, "info", t, "--json"},
          {TT_CLI, "stats", t, "--view", "op"},
          {TT_CLI, "stats", t, "--view", "step"},
          {TT_CLI, "stats", t, "--view", "thread", "--json"},
          {TT_CLI, "memory", t},
          {TT_CLI, "comm", t},
          {TT_CLI, "diff", t, t},
          {TT_CLI, "replay", t},
          {TT_CLI, "optimize", t},
          {TT_CLI, "report", t, "-o", out + "/r.html"},
          {TT_CLI, "export", t, "--format", "chrome", "-o", out + "/c.json"},
          {TT_CLI, "export", t, "--format", "perfetto", "-o", out + "/p.pftrace"},
          {TT_CLI, "top", t, "--once"}};
}

std::string Joined(const std::vector<std::string>& argv) {
  std::string s;
  for (size_t i = 2; i < argv.size(); ++i) s += argv[i] + " ";
  return s;
}

TEST(Damage, EveryCommandSaysSoOrGivesTheSameNumbers) {
  TempDir d;
  std::string intact = d / "intact", out = d / "out";
  auto r = RunCmd(
      {TT_CLI, "record", "--buffer-size", "64K", "-o", intact, "--", TT_PROGRAM, "leaf", "20000"});
  ASSERT_EQ(r.status, 0) << r.err;
  fs::create_directory(out);
  std::vector<test::RunResult> base;
  for (const auto& c : Commands(intact, out)) base.push_back(RunCmd(c, {}, 120));
  int runs = 0, silent = 0;
  for (const auto& m : Mutants()) {
    std::string t = d / "t";
    fs::remove_all(t);
    fs::copy(intact, t, fs::copy_options::recursive);
    std::string file = m.apply(ThreadStream(t));
    auto cmds = Commands(t, out);
    for (size_t i = 0; i < cmds.size(); ++i) {
      auto got = RunCmd(cmds[i], {}, 120);
      ++runs;
      // The damage status, or an error (exit 2) whose lines name the damage behind it.
      if (got.status == kDamaged || got.status == 2) {
        EXPECT_NE(got.err.find(file), std::string::npos) << m.name << ": " << got.err;
        continue;
      }
      std::string want = base[i].out;
      // The paths differ between the two copies; only the numbers are compared.
      for (size_t p; (p = want.find(intact)) != std::string::npos;)
        want.replace(p, intact.size(), t);
      bool same = got.status == base[i].status && got.out == want;
      if (!same) ++silent;
      EXPECT_TRUE(same) << m.name << ": `" << Joined(cmds[i]) << "` exit " << got.status
                        << " with different output and no damage status\n"
                        << got.err;
    }
  }
  std::printf("%d mutant x command runs, %d silent\n", runs, silent);
  EXPECT_EQ(runs, 5 * 14);
}

TEST(Damage, AllowDamagedExitsZeroWithTheWarning) {
  TempDir d;
  std::string t = d / "t";
  auto r = RunCmd({TT_CLI, "record", "-o", t, "--", TT_PROGRAM, "leaf", "2000"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string s = ThreadStream(t);
  fs::remove(s);
  fs::create_directory(s);
  auto strict = RunCmd({TT_CLI, "stats", t, "--view", "op"});
  EXPECT_EQ(strict.status, kDamaged) << strict.err;
  auto allowed = RunCmd({TT_CLI, "stats", t, "--view", "op", "--allow-damaged"});
  EXPECT_EQ(allowed.status, 0) << allowed.err;
  EXPECT_NE(allowed.err.find(s + ": skipped: it is a directory"), std::string::npos) << allowed.err;
}

// The JSON of every command that prints one lists the damage as stderr says it: `problems`,
// each with the damaged file (issue 40: uniform in every reader's output).
TEST(Damage, EveryJsonOutputListsTheProblems) {
  TempDir d;
  std::string t = d / "t";
  auto r = RunCmd({TT_CLI, "record", "-o", t, "--", TT_DIFF_JOB, "1"});  // six steps
  ASSERT_EQ(r.status, 0) << r.err;
  std::string s = ThreadStream(t);
  std::string b = ReadFile(s);
  for (size_t i = b.size() / 2; i < b.size() / 2 + 64; ++i) b[i] = 0;
  WriteFileAtomic(s, b);
  std::vector<std::vector<std::string>> cmds = {
      {"info"},    {"stats", "--view", "op"}, {"memory"}, {"comm"}, {"replay"}, {"optimize"},
      {"diff", t}, {"top", "--once"}};
  for (auto c : cmds) {
    c.insert(c.begin() + 1, t);
    c.insert(c.begin(), TT_CLI);
    c.push_back("--json");
    c.push_back("--allow-damaged");
    auto got = RunCmd(c, {}, 120);
    SCOPED_TRACE(Joined(c));
    ASSERT_EQ(got.status, 0) << got.err;
    auto j = nlohmann::json::parse(got.out);
    ASSERT_TRUE(j.contains("problems")) << got.out.substr(0, 500);
    if (j["problems"].is_number()) {  // top's live count
      EXPECT_GT(j["problems"].get<int>(), 0);
      continue;
    }
    ASSERT_FALSE(j["problems"].empty()) << got.out.substr(0, 500);
    EXPECT_EQ(j["problems"][0]["file"], s);
  }
}

// One damaged place is one line, said once, in every command, though replay and optimize read it
// twice (the load, then the step graph's scans) and said "2 damaged part(s)" and "(2 times...)".
TEST(Damage, OneDamageIsCountedOnce) {
  TempDir d;
  std::string t = d / "t";
  auto r = RunCmd({TT_CLI, "record", "-o", t, "--", TT_DIFF_JOB, "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string s = ThreadStream(t);
  std::string b = ReadFile(s);
  for (size_t i = b.size() / 2; i < b.size() / 2 + 64; ++i) b[i] = 0;
  WriteFileAtomic(s, b);
  for (const char* cmd : {"replay", "optimize", "stats", "memory"}) {
    auto got = RunCmd({TT_CLI, cmd, t}, {}, 120);
    EXPECT_EQ(got.status, kDamaged) << cmd << ": " << got.err;
    const std::string line = std::string("tensortrace ") + cmd + ": damaged: " + s + ": ";
    size_t lines = 0;
    for (size_t at = got.err.find(line); at != std::string::npos; at = got.err.find(line, at + 1))
      ++lines;
    EXPECT_EQ(lines, 1u) << cmd << ": " << got.err;
    EXPECT_EQ(got.err.find(" times; the first"), std::string::npos) << cmd << ": " << got.err;
    EXPECT_EQ(got.err.find("warning"), std::string::npos) << cmd << ": " << got.err;
  }
}

// `record` SIGKILLed while its program runs: live, the trace reads as a running recording (exit
// 0); once record is gone, every reader says the recording is incomplete and no process is
// "running".
TEST(Damage, KilledRecordIsIncomplete) {
  TempDir d;
  std::string t = d / "t";
  int out = -1;
  std::string job = std::string(TT_PROGRAM) + " leaf 1000; exec sleep 3";
  int pid = test::Spawn({TT_CLI, "record", "-o", t, "--", "sh", "-c", job}, &out);
  ASSERT_GT(pid, 0);
  for (int i = 0; i < 100 && ThreadStream(t).empty(); ++i) usleep(50000);
  ASSERT_FALSE(ThreadStream(t).empty());
  auto live = RunCmd({TT_CLI, "info", t});
  EXPECT_EQ(live.status, 0) << live.err;
  EXPECT_EQ(live.err.find("incomplete"), std::string::npos) << live.err;
  kill(pid, SIGKILL);
  test::Wait(pid);
  close(out);
  for (const char* cmd : {"info", "stats"}) {
    auto r = RunCmd({TT_CLI, cmd, t});
    EXPECT_EQ(r.status, kDamaged) << r.err;
    EXPECT_NE(r.err.find(t + "/tensortrace.json: incomplete: record did not finish"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.out.find("ended      running"), std::string::npos) << r.out;
  }
  auto top = RunCmd({TT_CLI, "top", t, "--once", "--allow-damaged"});
  EXPECT_EQ(top.status, 0) << top.err;
  EXPECT_EQ(top.out.find("recording (last event"), std::string::npos) << top.out;
}

}  // namespace
}  // namespace tt
