// `tensortrace repair`: a recording whose record was SIGKILLed (its program still running) is
// closed as record would have closed it: readers no longer call it incomplete, no process stays
// "running", babeltrace2 reads it; a live or finished recording is left alone.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "core/files.h"
#include "test_util.h"

namespace tt {
namespace {

using test::RunCmd;
using test::TempDir;

// Starts `record -o t -- sh -c JOB` and waits until its first process directory holds a
// stream; returns record's pid.
int StartRecord(const std::string& t, const std::string& job, int* out) {
  int pid = test::Spawn({TT_CLI, "record", "-o", t, "--", "sh", "-c", job}, out);
  for (int i = 0; i < 200 && !PathExists(t + "/losses"); ++i) usleep(50000);
  usleep(500000);  // the program's first events
  return pid;
}

TEST(Repair, KilledRecordIsClosedAsRecordWouldHave) {
  TempDir d;
  std::string t = d / "t";
  int out = -1;
  // The program's first process writes and ends; the second (sleep) outlives record.
  int pid = StartRecord(t, std::string(TT_PROGRAM) + " leaf 1000; exec sleep 5", &out);
  ASSERT_GT(pid, 0);
  auto live = RunCmd({TT_CLI, "repair", t});
  EXPECT_EQ(live.status, 2) << live.err;  // record still holds it
  EXPECT_NE(live.err.find("a record is still writing"), std::string::npos) << live.err;
  kill(pid, SIGKILL);
  test::Wait(pid);
  close(out);
  ASSERT_EQ(RunCmd({TT_CLI, "info", t}).status, 3);  // incomplete, before the repair

  auto r = RunCmd({TT_CLI, "repair", t});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("closed:"), std::string::npos) << r.err;
  EXPECT_NE(ReadFile(t + "/tensortrace.json").find("\"repaired\": true"), std::string::npos);
  auto info = RunCmd({TT_CLI, "info", t});
  EXPECT_EQ(info.status, 0) << info.err;
  EXPECT_EQ(info.err.find("incomplete"), std::string::npos) << info.err;
  EXPECT_EQ(info.out.find("ended      running"), std::string::npos) << info.out;
  EXPECT_EQ(info.out.find("ended      unknown"), std::string::npos) << info.out;
  auto stats = RunCmd({TT_CLI, "stats", t, "--view", "op", "--json"});
  EXPECT_EQ(stats.status, 0) << stats.err;
  EXPECT_NE(stats.out.find("leaf"), std::string::npos) << stats.out.substr(0, 2000);
  if (test::HaveBabeltrace()) {
    auto bt = RunCmd({"babeltrace2", t}, {}, 120);
    EXPECT_EQ(bt.status, 0) << bt.err.substr(0, 2000);
  }

  // Once closed there is nothing left to do.
  auto again = RunCmd({TT_CLI, "repair", t});
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_NE(again.err.find("nothing to repair"), std::string::npos) << again.err;
}

// The killed recording's program left a FIFO where tensortrace.json goes: readers say the session
// file is missing, and repair replaces the FIFO (never opened) rather than call it complete.
TEST(Repair, FifoPlantedAtTheSessionFileIsReplaced) {
  TempDir d;
  std::string t = d / "t";
  int out = -1;
  int pid = StartRecord(t, std::string(TT_PROGRAM) + " leaf 100; exec sleep 3", &out);
  ASSERT_GT(pid, 0);
  kill(pid, SIGKILL);
  test::Wait(pid);
  close(out);
  ASSERT_EQ(mkfifo((t + "/tensortrace.json").c_str(), 0600), 0);
  auto before = RunCmd({TT_CLI, "info", t}, {}, 20);
  EXPECT_EQ(before.status, 3) << before.err;
  EXPECT_NE(before.err.find("tensortrace.json: it is a FIFO"), std::string::npos) << before.err;
  auto r = RunCmd({TT_CLI, "repair", t}, {}, 30);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("the program left a FIFO at"), std::string::npos) << r.err;
  EXPECT_NE(ReadFile(t + "/tensortrace.json").find("\"repaired\": true"), std::string::npos);
  EXPECT_EQ(RunCmd({TT_CLI, "info", t}, {}, 20).status, 0);
}

TEST(Repair, BadInputIsOneLine) {
  TempDir d;
  auto none = RunCmd({TT_CLI, "repair"});
  EXPECT_EQ(none.status, 2) << none.err;
  auto plain = RunCmd({TT_CLI, "repair", d.path()});
  EXPECT_EQ(plain.status, 2) << plain.err;
  EXPECT_NE(plain.err.find("is not a recording made by tensortrace record"), std::string::npos)
      << plain.err;
  auto missing = RunCmd({TT_CLI, "repair", d / "nope"});
  EXPECT_EQ(missing.status, 2) << missing.err;
}

}  // namespace
}  // namespace tt
