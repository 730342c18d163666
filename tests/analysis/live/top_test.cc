// `tensortrace top`: the live view on a recording while it runs (tests/programs/top_job.cc, a
// loop that steps until told to stop), the same numbers as `stats` once it has finished, and
// one clear line for bad input.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "core/files.h"
#include "test_json.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::RunCmd;
using test::TempDir;

std::vector<std::string> TopJson(const std::string& dir) {
  return {TT_CLI, "top", dir, "--once", "--json", "--step-name", "train_step"};
}

// Every file under dir with its size and modification time: what reading must not change.
std::map<std::string, std::pair<int64_t, int64_t>> Listing(const std::string& dir) {
  std::map<std::string, std::pair<int64_t, int64_t>> out;
  for (const auto& name : ListDirectory(dir)) {
    std::string path = dir + "/" + name;
    struct stat st;
    if (lstat(path.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      for (auto& [k, v] : Listing(path)) out[k] = v;
      continue;
    }
    out[path] = {st.st_size, st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec};
  }
  return out;
}

// While the job runs: `top --once --json` sees its steps and its top op, before the program
// ends (it steps until the stop file appears; the deadline only bounds a broken run).
TEST(Top, LiveRecordingShowsStepsAndTopOp) {
  TempDir tmp;
  std::string dir = tmp / "trace", stop = tmp / "stop";
  int out = -1;
  int pid =
      test::Spawn({TT_CLI, "record", "--quiet", "-o", dir, "--", TT_TOP_JOB, stop, "240"}, &out);
  ASSERT_GT(pid, 0);
  json live;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    auto r = RunCmd(TopJson(dir));
    if (r.status == 0) {
      live = json::parse(r.out);
      // Enough steps that MatMul (3 ms each) leads Relu (0.2 ms) however the machine's load
      // stretches a few of them.
      if (live["steps"].get<int64_t>() >= 20 && !live["top_op"].is_null()) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  bool stopped_early = PathExists(dir + "/tensortrace.json");
  // A human view during the recording, too.
  auto table = RunCmd({TT_CLI, "top", dir, "--once", "--step-name", "train_step"});
  std::ofstream(stop) << "stop\n";
  EXPECT_EQ(test::Wait(pid), 0);
  close(out);
  ASSERT_FALSE(stopped_early) << "the job ended before top saw it running";
  ASSERT_TRUE(live.is_object()) << "top never succeeded";
  EXPECT_EQ(live["schema"], "tensortrace.top/1");
  EXPECT_TRUE(live["recording"].get<bool>());
  EXPECT_GE(live["steps"].get<int64_t>(), 20);
  EXPECT_EQ(live["top_op"], "MatMul");
  ASSERT_EQ(live["processes"].size(), 1u);
  EXPECT_EQ(live["processes"][0]["state"], "running");
  EXPECT_GT(live["processes"][0]["steps"].get<int64_t>(), 0);
  EXPECT_GT(live["steps_per_second"].get<double>(), 0);
  EXPECT_EQ(live["dropped"], 0);
  EXPECT_EQ(live["problems"], 0);
  // A step's time is its two ops (3 ms and 0.2 ms of spinning) and more.
  EXPECT_GE(live["mean_step_micros"].get<double>(), 3200);
  EXPECT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("MatMul"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("recording"), std::string::npos) << table.out;
}

// While the job defines a new name and event class at every step (in its process stream, used
// at once in its thread's stream), each snapshot reads every event whole: no damage reported,
// no event lost (counts only grow), no op without its name; info's too.
TEST(Top, LiveSnapshotsWhileNamesAreDefined) {
  TempDir tmp;
  std::string dir = tmp / "trace", stop = tmp / "stop";
  int out = -1;
  int pid = test::Spawn(
      {TT_CLI, "record", "--quiet", "-o", dir, "--", TT_TOP_JOB, stop, "240", "fresh"}, &out);
  ASSERT_GT(pid, 0);
  std::vector<json> seen, info;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (seen.size() < 15 && std::chrono::steady_clock::now() < deadline) {
    auto r = RunCmd(TopJson(dir));
    if (r.status != 0) continue;
    seen.push_back(json::parse(r.out));
    // info reads a running recording the same way.
    r = RunCmd({TT_CLI, "info", dir, "--json"});
    if (r.status == 0) info.push_back(json::parse(r.out));
  }
  std::ofstream(stop) << "stop\n";
  EXPECT_EQ(test::Wait(pid), 0);
  close(out);
  ASSERT_EQ(seen.size(), 15u);
  int64_t events = 0, steps = 0;
  for (const auto& j : seen) {
    EXPECT_EQ(j["problems"], 0) << j["first_problem"];
    EXPECT_GE(j["events"].get<int64_t>(), events);
    EXPECT_GE(j["steps"].get<int64_t>(), steps);
    events = j["events"].get<int64_t>();
    steps = j["steps"].get<int64_t>();
    for (const auto& op : j["ops"]) EXPECT_NE(op["name"], "") << j.dump();
  }
  EXPECT_GT(steps, 0);
  EXPECT_FALSE(info.empty());
  for (const auto& j : info) EXPECT_EQ(j["problems"], json::array()) << j["problems"].dump();
}

// A job that stops stepping but stays alive: its rate falls to 0 once its last step has left
// the window, while its step count stays.
TEST(Top, StalledJobFallsToZeroStepsPerSecond) {
  TempDir tmp;
  std::string dir = tmp / "trace", stop = tmp / "stop";
  int out = -1;
  int pid = test::Spawn(
      {TT_CLI, "record", "--quiet", "-o", dir, "--", TT_TOP_JOB, stop, "240", "stall"}, &out);
  ASSERT_GT(pid, 0);
  std::vector<std::string> cmd = TopJson(dir);
  cmd.insert(cmd.end(), {"--window", "0.5"});
  json stalled;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    auto r = RunCmd(cmd);
    json j = r.status == 0 ? json::parse(r.out) : json::object();
    if (j.contains("steps") && j["steps"] == 20 && j["steps_per_second"] == 0.0) {
      stalled = j;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::ofstream(stop) << "stop\n";
  EXPECT_EQ(test::Wait(pid), 0);
  close(out);
  ASSERT_TRUE(stalled.is_object()) << "the rate never fell to 0";
  EXPECT_TRUE(stalled["recording"].get<bool>());
  EXPECT_EQ(stalled["last_step"], 19);
  EXPECT_GE(stalled["now_ns"].get<int64_t>() - stalled["last_ns"].get<int64_t>(), 0);
  // The window's ops are the last step's: one MatMul and one Relu (in an order the machine's
  // load may change: each spins for a time, and a preempted one takes longer).
  std::map<std::string, int64_t> ops;
  for (const auto& op : stalled["window"]["ops"]) ops[op["name"]] = op["occurrence"];
  EXPECT_EQ(ops, (std::map<std::string, int64_t>{{"MatMul", 1}, {"Relu", 1}})) << stalled.dump();
}

// The process of `j` (a top snapshot) whose command runs `script`.
json ProcessRunning(const json& j, const std::string& script) {
  for (const auto& p : j["processes"])
    if (p["command"].get<std::string>().find(script) != std::string::npos) return p;
  return json::object();
}

// A Keras fit: TensorFlow's profile (its step markers and ops) is imported only when `record`
// ends, and top says meanwhile that it is pending and how far behind; then how old it is.
TEST(Top, KerasFrameworkDataAge) {
  REQUIRE_MODULE("tensorflow");
  TempDir tmp;
  std::string dir = tmp / "trace", stop = tmp / "stop";
  int out = -1;
  // The BFC allocator reports TensorFlow's allocations (memory in use, below).
  int pid = test::Spawn({TT_CLI, "record", "--quiet", "--tf-cpu-allocator", "bfc", "-o", dir, "--",
                         test::Python(), test::Program("top_keras.py"), stop},
                        &out);
  ASSERT_GT(pid, 0);
  json live;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(200);
  while (std::chrono::steady_clock::now() < deadline) {
    auto r = RunCmd(TopJson(dir));
    json p = r.status == 0 ? ProcessRunning(json::parse(r.out), "top_keras.py") : json::object();
    if (p.contains("framework") && p["framework"]["pending"].get<bool>()) {
      live = json::parse(r.out);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  std::ofstream(stop) << "stop\n";
  EXPECT_EQ(test::Wait(pid), 0);
  close(out);
  ASSERT_TRUE(live.is_object()) << "top never saw the pending profile";
  EXPECT_TRUE(live["recording"].get<bool>());
  json f = ProcessRunning(live, "top_keras.py")["framework"];
  EXPECT_TRUE(f["source"].is_null());  // nothing imported yet
  // No step before the import: the note says where they are (not "no step markers").
  if (live["steps"].get<int64_t>() == 0) {
    EXPECT_NE(live["notes"].dump().find("imported when record ends"), std::string::npos)
        << live["notes"].dump();
  }
  ASSERT_FALSE(f["age_seconds"].is_null());
  EXPECT_GT(f["age_seconds"].get<double>(), 0);
  json done = test::RunJson(TopJson(dir));
  EXPECT_FALSE(done["recording"].get<bool>());
  EXPECT_GT(done["steps"].get<int64_t>(), 0);  // Keras's step markers, from the profile
  f = ProcessRunning(done, "top_keras.py")["framework"];
  EXPECT_EQ(f["source"], "xspace");
  EXPECT_FALSE(f["pending"].get<bool>());
  ASSERT_FALSE(f["age_seconds"].is_null());
  EXPECT_GE(f["age_seconds"].get<double>(), 0);
  // Memory in use: what `memory` says is still in use at the end, every allocator together.
  json mem = test::RunJson({TT_CLI, "memory", dir, "--json"});
  ASSERT_FALSE(mem["allocators"].empty());
  int64_t in_use = 0;
  for (const auto& a : mem["allocators"]) in_use += a["final_bytes"].get<int64_t>();
  EXPECT_EQ(done["memory_bytes"], in_use);
  EXPECT_EQ(ProcessRunning(done, "top_keras.py")["memory_bytes"], in_use);
}

// A finished recording of about a second of steps.
class TopFinished : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    auto r = RunCmd({TT_CLI, "record", "--quiet", "-o", dir_->path() + "/t", "--", TT_TOP_JOB,
                     dir_->path() + "/no-such-file", "1"});
    ASSERT_EQ(r.status, 0) << r.err;
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string Trace() { return dir_->path() + "/t"; }
  static TempDir* dir_;
};
TempDir* TopFinished::dir_ = nullptr;

// On a finished trace, top's numbers are stats': step count and mean step time (step view),
// the top op and its time (op view, first row in its default order).
TEST_F(TopFinished, SameNumbersAsStats) {
  json top = test::RunJson(TopJson(Trace()));
  json steps = test::RunJson(
      {TT_CLI, "stats", Trace(), "--view", "step", "--json", "--step-name", "train_step"});
  json ops = test::RunJson(
      {TT_CLI, "stats", Trace(), "--view", "op", "--json", "--step-name", "train_step"});
  ASSERT_FALSE(steps["rows"].empty());
  ASSERT_FALSE(ops["rows"].empty());
  double sum = 0;
  for (const auto& row : steps["rows"]) sum += row["duration_micros"].get<double>();
  double mean = sum / static_cast<double>(steps["rows"].size());
  EXPECT_FALSE(top["recording"].get<bool>());
  EXPECT_EQ(top["steps"], steps["rows"].size());
  EXPECT_NEAR(top["mean_step_micros"].get<double>(), mean, 1e-6 * mean);
  EXPECT_EQ(top["top_op"], ops["rows"][0]["name"]);
  EXPECT_EQ(top["ops"][0]["occurrence"], ops["rows"][0]["occurrence"]);
  EXPECT_NEAR(top["ops"][0]["micros"].get<double>(), ops["rows"][0]["micros"].get<double>(), 1e-3);
  EXPECT_EQ(top["processes"][0]["state"], "exited");
}

// A recording in capture windows (record --every): a step cut where a window closed is a
// complete step for top as for stats (the scan closes it at the gap), so the numbers agree.
TEST(Top, WindowedRecordingSameNumbersAsStats) {
  TempDir tmp;
  std::string trace = tmp / "t";
  auto r = RunCmd({TT_CLI, "record", "--quiet", "--every", "0.4", "--for", "0.2", "-o", trace, "--",
                   TT_TOP_JOB, tmp / "no-such-file", "2"});
  ASSERT_EQ(r.status, 0) << r.err;
  json top = test::RunJson(TopJson(trace));
  json steps = test::RunJson(
      {TT_CLI, "stats", trace, "--view", "step", "--json", "--step-name", "train_step"});
  json ops = test::RunJson({TT_CLI, "stats", trace, "--json", "--step-name", "train_step"});
  ASSERT_FALSE(steps["rows"].empty());
  double sum = 0;
  for (const auto& row : steps["rows"]) sum += row["duration_micros"].get<double>();
  EXPECT_EQ(top["steps"], steps["rows"].size());
  EXPECT_NEAR(top["mean_step_micros"].get<double>(),
              sum / static_cast<double>(steps["rows"].size()), 1e-3);
  ASSERT_FALSE(ops["rows"].empty());
  EXPECT_EQ(top["top_op"], ops["rows"][0]["name"]);
}

// Reading never writes: the trace is the same file for file after every kind of top run.
TEST_F(TopFinished, ReadsWithoutWriting) {
  auto before = Listing(Trace());
  EXPECT_EQ(RunCmd(TopJson(Trace())).status, 0);
  EXPECT_EQ(RunCmd({TT_CLI, "top", Trace(), "--once"}).status, 0);
  // Without --once, top stops by itself once the recording has ended: one JSON line.
  auto r = RunCmd({TT_CLI, "top", Trace(), "--json", "--interval", "0.1"}, {}, 60);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(test::CountLines(r.out), 1u) << r.out;
  EXPECT_TRUE(json::accept(r.out));
  // The same for one process's directory of the trace.
  for (const auto& name : ListDirectory(Trace())) {
    if (name[0] != 'p') continue;
    r = RunCmd({TT_CLI, "top", Trace() + "/" + name, "--json", "--interval", "0.1"}, {}, 60);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(test::CountLines(r.out), 1u) << r.out;
  }
  EXPECT_EQ(Listing(Trace()), before);
}

TEST_F(TopFinished, HumanViewAndHelp) {
  auto r = RunCmd({TT_CLI, "top", Trace(), "--once", "--step-name", "train_step"});
  EXPECT_EQ(r.status, 0) << r.err;
  for (const char* s : {"recording ended", "steps", "MatMul", "Relu", "pid"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << " in\n" << r.out;
  auto h = RunCmd({TT_CLI, "top", "--help"});
  EXPECT_EQ(h.status, 0);
  EXPECT_NE(h.out.find("usage: tensortrace top DIR"), std::string::npos);
  EXPECT_NE(h.out.find("--interval"), std::string::npos);
  auto all = RunCmd({TT_CLI, "--help"});
  EXPECT_NE(all.out.find("top DIR"), std::string::npos);
}

// One recording per rank, given together: one job, a row per rank, the ranks' steps together.
TEST(Top, SeveralRecordingsAreOneJob) {
  TempDir tmp;
  for (const char* rank : {"0", "1"}) {
    auto r = RunCmd({TT_CLI, "record", "--quiet", "-o", tmp / "%r", "--", TT_TOP_JOB,
                     tmp / "no-such-file", "1"},
                    {{"RANK", rank}, {"WORLD_SIZE", "2"}});
    ASSERT_EQ(r.status, 0) << r.err;
  }
  json j = test::RunJson(
      {TT_CLI, "top", tmp / "0", tmp / "1", "--once", "--json", "--step-name", "train_step"});
  ASSERT_EQ(j["processes"].size(), 2u);
  std::set<int64_t> ranks;
  int64_t steps = 0;
  double rates = 0;
  for (const auto& p : j["processes"]) {
    ranks.insert(p["rank"].get<int64_t>());
    EXPECT_EQ(p["world_size"], 2);
    EXPECT_GT(p["steps"].get<int64_t>(), 0);
    steps += p["steps"].get<int64_t>();
    rates += p["steps_per_second"].get<double>();
  }
  EXPECT_EQ(ranks, (std::set<int64_t>{0, 1}));
  EXPECT_EQ(j["steps"], steps);
  EXPECT_NEAR(j["steps_per_second"].get<double>(), rates / 2, 1e-9 * rates);
  EXPECT_EQ(j["top_op"], "MatMul");
  // --pid narrows it to one process.
  json one = test::RunJson({TT_CLI, "top", tmp / "0", tmp / "1", "--once", "--json", "--pid",
                            std::to_string(j["processes"][0]["pid"].get<int64_t>())});
  EXPECT_EQ(one["processes"].size(), 1u);
}

// A damaged trace (a stream cut anywhere, as a packet half written would leave it, or bytes
// overwritten): top reads what is valid and says how much it skipped; never a crash or a hang.
TEST(Top, DamagedStreamsAreReadAsFarAsValid) {
  TempDir tmp;
  std::string trace = tmp / "t";
  auto r = RunCmd(
      {TT_CLI, "record", "--quiet", "-o", trace, "--", TT_TOP_JOB, tmp / "no-such-file", "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  // The largest thread stream (which thread wrote most depends on timing; the last by name was
  // sometimes a small one under load).
  std::string stream, whole;
  for (const auto& p : ListDirectory(trace))
    if (p[0] == 'p')
      for (const auto& f : ListDirectory(trace + "/" + p))
        if (f[0] == 't')
          if (std::string b = ReadFile(trace + "/" + p + "/" + f); b.size() > whole.size()) {
            stream = trace + "/" + p + "/" + f;
            whole = std::move(b);
          }
  ASSERT_FALSE(stream.empty());
  ASSERT_GT(whole.size(), 4200u);
  // (An empty stream file is not damage: a thread that wrote nothing.)
  for (size_t cut : {size_t{1}, size_t{50}, size_t{4097}, whole.size() / 2, whole.size() - 3}) {
    for (bool overwrite : {false, true}) {
      std::string bytes = whole.substr(0, overwrite ? whole.size() : cut);
      if (overwrite) bytes.replace(cut, 3, "\xff\xff\xff");
      std::ofstream(stream, std::ios::binary | std::ios::trunc) << bytes;
      auto t = RunCmd(TopJson(trace));
      ASSERT_EQ(t.status, 3) << cut << ": " << t.err;  // the damage status
      json j = json::parse(t.out);
      EXPECT_GT(j["problems"].get<int64_t>(), 0) << cut << " " << overwrite;
      EXPECT_FALSE(j["first_problem"].is_null());
    }
  }
}

// Bad input: one line on stderr, nothing on stdout, a non-zero exit.
TEST(Top, BadInputIsOneLine) {
  TempDir tmp;
  std::ofstream(tmp / "file") << "not a trace\n";
  MakeDirectory(tmp / "empty");
  std::vector<std::vector<std::string>> cases = {
      {TT_CLI, "top", tmp / "missing", "--once"},
      {TT_CLI, "top", tmp / "empty", "--once"},
      {TT_CLI, "top", tmp / "file", "--once", "--json"},
      {TT_CLI, "top"},
      {TT_CLI, "top", tmp / "empty", "--interval", "soon"},
      {TT_CLI, "top", tmp / "empty", "--bogus"},
  };
  for (const auto& c : cases) {
    auto r = RunCmd(c);
    EXPECT_NE(r.status, 0) << c.back();
    EXPECT_EQ(r.out, "") << c.back();
    EXPECT_EQ(test::CountLines(r.err), 1u) << c.back() << ": " << r.err;
    EXPECT_EQ(r.err.rfind("tensortrace top: ", 0), 0u) << r.err;
  }
}

}  // namespace
}  // namespace tt
