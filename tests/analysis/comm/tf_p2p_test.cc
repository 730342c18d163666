// `tensortrace comm`'s point-to-point pairs of TensorFlow: a tf.function whose ops run on two
// workers of one cluster (tests/programs/tf_send_recv.py), each step moving a known tensor each
// way (TensorFlow's _Send on one worker, its _Recv on the other, fetched with RecvTensor over
// gRPC), recorded as one recording of both workers and as one recording per worker; comm pairs
// every send with its receive by rendezvous key, with the tensor's bytes, the latency and the
// receiving side's wait, in the text, the JSON and the CSV; and replay replays the task without
// steps (the server) with the client, each tensor sent a transfer between them (TfP2p).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/comm/p2p.h"
#include "core/files.h"
#include "test_json.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::Program;
using test::Python;
using test::RunCmd;
using test::Said;
using test::TempDir;

// ---- Pairing on plain lists ----

using analysis::MatchRendezvous;
using analysis::P2pView;
using analysis::TfRecv;
using analysis::TfSend;

constexpr char kT0[] = "/job:worker/replica:0/task:0/device:CPU:0";
constexpr char kT1[] = "/job:worker/replica:0/task:1/device:CPU:0";
constexpr char kT1Gpu[] = "/job:worker/replica:0/task:1/device:GPU:0";

std::string RvKey(const char* from, const char* to, const char* tensor) {
  return std::string(from) + ";00ff;" + to + ";" + tensor + ";0:0";
}

P2pView TwoProcesses() {
  P2pView v;
  v.processes = {{10, -1, "h", "t", "boot", 0}, {11, -1, "h", "t", "boot", 0}};
  return v;
}

TEST(TfP2pMatch, SendsPairWithTheReceivingDevicesReceivesInOrder) {
  P2pView v = TwoProcesses();
  // Process 1 is task 1 (its sends name it); process 0 is task 0.
  // A send from task 1's CPU to its GPU stays in its process, and so do the sends between
  // devices that name no task (each process's own graph, as MultiWorkerMirroredStrategy's
  // workers run): no point-to-point, no note.
  std::vector<TfSend> sends = {{1, RvKey(kT1, kT0, "edge_10_mul"), 100, 110},
                               {1, RvKey(kT1, kT0, "edge_10_mul"), 300, 310},
                               {0, RvKey(kT0, kT1, "edge_8_mul_1"), 50, 60},
                               {1, RvKey(kT1, kT1Gpu, "edge_9_x"), 50, 60},
                               {0, RvKey("/device:CPU:0", "/device:CPU:0", "edge_1_y"), 5, 6},
                               {1, RvKey("/device:CPU:0", "/device:CPU:0", "edge_1_y"), 5, 6}};
  std::vector<TfRecv> recvs = {{0, "mul/_4", 7, 90, 150, 1024},
                               {0, "mul/_4", 8, 280, 330, 1024},
                               {1, "mul_1/_2", 7, 40, 70, -1}};
  MatchRendezvous(sends, recvs, {}, &v);
  ASSERT_EQ(v.rendezvous.size(), 2u);
  const auto& a = v.rendezvous[0];  // task 0 -> task 1 sorts first
  EXPECT_EQ(a.tensor, "edge_8_mul_1");
  EXPECT_EQ(a.sender, 0);
  EXPECT_EQ(a.receiver, 1);
  EXPECT_EQ(a.pairs, 1u);
  EXPECT_EQ(a.sized, 0u);
  const auto& b = v.rendezvous[1];
  EXPECT_EQ(b.method, "rendezvous key");
  EXPECT_EQ(b.sender, 1);
  EXPECT_EQ(b.receiver, 0);
  EXPECT_EQ(b.pairs, 2u);
  EXPECT_EQ(b.bytes, 2048);
  EXPECT_EQ(b.latency_min, 30u);  // 330 - 300
  EXPECT_EQ(b.latency_max, 50u);  // 150 - 100
  EXPECT_EQ(b.wait, 60u + 50u);
  ASSERT_EQ(v.transfers.size(), 3u);
  EXPECT_EQ(v.transfers[2].step, 8);
  EXPECT_EQ(v.transfers[2].latency, 30u);
  EXPECT_TRUE(v.notes.empty());
}

TEST(TfP2pMatch, MissingReceiverAndUnequalCountsAreNoted) {
  P2pView v = TwoProcesses();
  std::vector<TfSend> sends = {
      {1, RvKey(kT1, kT0, "edge_10_mul"), 100, 110},
      {1, RvKey(kT1, kT0, "edge_10_mul"), 300, 310},
      {1, RvKey(kT1, "/job:worker/replica:0/task:2/device:CPU:0", "edge_3_w"), 5, 6}};
  std::vector<TfRecv> recvs = {{0, "mul/_4", 7, 90, 150, 8}};
  MatchRendezvous(sends, recvs, {}, &v);
  ASSERT_EQ(v.rendezvous.size(), 2u);
  EXPECT_EQ(v.rendezvous[0].receiver, 0);  // the only other process that received "mul"
  EXPECT_EQ(v.rendezvous[0].pairs, 1u);
  EXPECT_EQ(v.rendezvous[1].receiver, -1);
  EXPECT_EQ(v.rendezvous[1].pairs, 0u);
  ASSERT_EQ(v.notes.size(), 2u);
  EXPECT_NE(v.notes[0].find("2 send(s) and 1 receive(s)"), std::string::npos) << v.notes[0];
  EXPECT_NE(v.notes[1].find("received by no process in the traces"), std::string::npos)
      << v.notes[1];
}

// ---- Real TensorFlow workers ----

test::RunResult Comm(std::vector<std::string> args) {
  args.insert(args.begin(), {TT_CLI, "comm"});
  auto r = RunCmd(args, {}, 120);
  EXPECT_EQ(r.status, 0) << r.err;
  return r;
}

json CommJson(std::vector<std::string> dirs) {
  dirs.push_back("--json");
  auto r = Comm(dirs);
  return r.status == 0 ? json::parse(r.out) : json::object();
}

using test::TfProfilerCrashedAtExit;  // such a recording is made again (test_util.h)

// The channel of the tensor that `producer` made, sent from task `from` to task `to`.
const json* Channel(const json& p2p, const std::string& producer, int from, int to) {
  std::string sdev = "/task:" + std::to_string(from) + "/",
              rdev = "/task:" + std::to_string(to) + "/";
  for (const auto& c : p2p["rendezvous"]) {
    std::string tensor = c["tensor"];
    if (tensor.size() > producer.size() &&
        tensor.compare(tensor.size() - producer.size() - 1, std::string::npos, "_" + producer) ==
            0 &&
        c["send_device"].get<std::string>().find(sdev) != std::string::npos &&
        c["recv_device"].get<std::string>().find(rdev) != std::string::npos)
      return &c;
  }
  ADD_FAILURE() << "no channel of " << producer << " from task " << from << " to " << to << ": "
                << p2p["rendezvous"].dump();
  return nullptr;
}

// What tf_send_recv.py moved, found in comm's JSON: every channel paired once a step on both
// workers, the two data tensors with their bytes, each transfer's receive done after its send
// began (one host: one clock) and waiting no longer than it took.
void CheckTransfers(const json& j, std::map<std::string, int64_t> said) {
  int64_t steps = said["steps"];
  ASSERT_GT(steps, 0);
  const json& p = j["p2p"];
  ASSERT_GE(p["rendezvous"].size(), 2u) << p.dump().substr(0, 3000);
  for (const auto& c : p["rendezvous"]) {
    EXPECT_EQ(c["method"], "rendezvous key");
    EXPECT_EQ(c["sends"], steps) << c.dump();
    EXPECT_EQ(c["receives"], steps) << c.dump();
    EXPECT_EQ(c["pairs"], steps) << c.dump();
    EXPECT_EQ(c["causality_violations"], 0) << c.dump();
    ASSERT_FALSE(c["sender_index"].is_null()) << c.dump();
    ASSERT_FALSE(c["receiver_index"].is_null()) << c.dump();
    EXPECT_NE(c["sender_index"], c["receiver_index"]) << c.dump();
  }
  const json* big = Channel(p, "mul", 1, 0);      // a * 2 on task 1, summed on task 0
  const json* small = Channel(p, "mul_1", 0, 1);  // b * 3 on task 0, averaged on task 1
  ASSERT_TRUE(big && small);
  EXPECT_EQ((*big)["sized_pairs"], steps) << big->dump();
  EXPECT_EQ((*big)["bytes"], steps * said["bytes_1to0"]) << big->dump();
  EXPECT_EQ((*small)["sized_pairs"], steps) << small->dump();
  EXPECT_EQ((*small)["bytes"], steps * said["bytes_0to1"]) << small->dump();
  // The other channels are control edges (the variable's update before the result): no tensor,
  // no bytes.
  for (const auto& c : p["rendezvous"]) {
    if (c != *big && c != *small) {
      EXPECT_EQ(c["sized_pairs"], 0) << c.dump();
    }
  }
  EXPECT_EQ((*big)["sender_index"], (*small)["receiver_index"]);
  EXPECT_EQ((*big)["receiver_index"], (*small)["sender_index"]);
  size_t transfers = 0;
  std::map<int64_t, int64_t> per_step;  // TensorFlow's step id -> transfers
  for (const auto& t : p["transfers"]) {
    ++transfers;
    per_step[t["step_id"].get<int64_t>()]++;
    uint64_t ss = t["send_start_ns"], rs = t["recv_start_ns"], rd = t["recv_done_ns"];
    EXPECT_GE(rd, ss) << t.dump();  // no receive done before its send began
    EXPECT_EQ(t["latency_ns"].get<uint64_t>(), rd - ss) << t.dump();
    EXPECT_EQ(t["wait_ns"].get<uint64_t>(), rd - rs) << t.dump();
    size_t ch = t["channel_index"];
    if (p["rendezvous"][ch] == *big) {
      EXPECT_EQ(t["bytes"], said["bytes_1to0"]) << t.dump();
    } else if (p["rendezvous"][ch] == *small) {
      EXPECT_EQ(t["bytes"], said["bytes_0to1"]) << t.dump();
    }
  }
  EXPECT_EQ(transfers, p["rendezvous"].size() * static_cast<size_t>(steps));
  EXPECT_EQ(per_step.size(), static_cast<size_t>(steps)) << p["transfers"].dump().substr(0, 3000);
  for (const auto& [step, n] : per_step)
    EXPECT_EQ(static_cast<size_t>(n), p["rendezvous"].size()) << "step id " << step;
  std::printf("TensorFlow rendezvous: %s\n", p["rendezvous"].dump().c_str());
}

// replay of the recording(s) in `dirs`: task 1 (the server: no steps of its own) replayed with
// task 0 (the client, the rank), every tensor of every replayed step a transfer between them
// (`channels` a step; where a clock was put back from the pairs, within its uncertainty a short
// transfer's send and receive may not line up: at most one a step left out), the unchanged
// steps as measured; the server's multiplications and the transfers lengthen the client's step
// (without the links they were in no graph).
void CheckReplay(std::vector<std::string> dirs, size_t channels, bool clock_put_back = false) {
  for (const char* a : {"--json", "--what-if", "Mul=3", "--what-if", "comm=0"}) dirs.push_back(a);
  dirs.insert(dirs.begin(), {TT_CLI, "replay"});
  auto r = RunCmd(dirs, {}, 300);
  ASSERT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_EQ(j["ranks"].size(), 1u) << j["ranks"].dump();
  ASSERT_EQ(j["participants"].size(), 1u) << j["notes"].dump();
  EXPECT_NE(j["participants"][0], j["ranks"][0]["rank"]);
  size_t steps = j["steps_replayed"];
  ASSERT_GE(steps, 2u);
  if (clock_put_back) {
    EXPECT_GE(j["p2p_transfers"].get<size_t>(), (channels - 1) * steps) << j["notes"].dump();
  } else {
    EXPECT_EQ(j["p2p_transfers"], channels * steps) << j["notes"].dump();
  }
  EXPECT_LE(std::abs(j["error"].get<double>()), 0.05) << j["steps"].dump();
  bool transfer_on_path = false;
  for (const auto& it : j["critical_path"]["items"])
    transfer_on_path |=
        it["kind"] == "communication" && it["label"].get<std::string>().rfind("recv edge_", 0) == 0;
  EXPECT_TRUE(transfer_on_path) << j["critical_path"].dump();
  double base = j["predicted_ns"];
  EXPECT_GT(j["what_ifs"][0]["predicted_ns"].get<double>(), base) << j["what_ifs"][0].dump();
  EXPECT_LT(j["what_ifs"][1]["predicted_ns"].get<double>(), base) << j["what_ifs"][1].dump();
  std::printf("replay: step %.3f ms measured, %.3f ms predicted; Mul=3 %.3f ms, comm=0 %.3f ms\n",
              j["measured_ns"].get<double>() / 1e6, base / 1e6,
              j["what_ifs"][0]["predicted_ns"].get<double>() / 1e6,
              j["what_ifs"][1]["predicted_ns"].get<double>() / 1e6);
}

// Records tf_send_recv.py's two tasks as one recording (the launcher and its two children).
bool RecordBoth(const std::string& trace, test::RunResult* r) {
  for (int attempt = 1; attempt <= 3; ++attempt) {
    std::filesystem::remove_all(trace);
    if (!test::RunInNetworkNamespace(
            {TT_CLI, "record", "-o", trace, "--", Python(), Program("tf_send_recv.py")}, {}, 280,
            r))
      return false;
    if (!TfProfilerCrashedAtExit(*r)) break;
    std::printf("attempt %d: TensorFlow's profiler crashed at a worker's exit\n", attempt);
  }
  return true;
}

TEST(TfP2p, SendRecvPairedAndReplayedInOneRecording) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  test::RunResult r;
  if (!RecordBoth(d / "t", &r)) GTEST_SKIP() << "cannot make a network namespace (unshare -n)";
  ASSERT_EQ(r.status, 0) << r.err;
  std::map<std::string, int64_t> said = Said(r.out);
  json j = CommJson({d / "t"});
  CheckTransfers(j, said);
  EXPECT_TRUE(j["notes"].empty()) << j["notes"].dump();

  // The text: one line per channel, under its own heading.
  auto text = Comm({d / "t"});
  EXPECT_NE(text.out.find("point-to-point (TensorFlow _Send/_Recv, paired by rendezvous key)"),
            std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("no collective in the trace"), std::string::npos) << text.out;

  // The CSV: one row per transfer, its bytes in the 13th column.
  auto csv = Comm({d / "t", "--csv", "--section", "rendezvous"});
  std::istringstream in(csv.out);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("method,tensor,send_device,recv_device,", 0), 0u) << line;
  size_t rows = 0, big = 0;
  while (std::getline(in, line)) {
    ++rows;
    EXPECT_EQ(line.rfind("rendezvous key,", 0), 0u) << line;
    big += line.find("," + std::to_string(said["bytes_1to0"]) + ",") != std::string::npos;
  }
  EXPECT_EQ(rows, j["p2p"]["transfers"].size());
  EXPECT_EQ(big, static_cast<size_t>(said["steps"])) << csv.out;
  CheckReplay({d / "t"}, j["p2p"]["rendezvous"].size());
}

std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Records each task of tf_send_recv.py into its own directory (d/w0, d/w1), both at once inside
// one network namespace (task 1's clock `shift_ns` ahead); task 0's output to r.out.
bool RecordEach(const TempDir& d, test::RunResult* r, int64_t shift_ns = 0) {
  if (RunCmd({"unshare", "-n", "true"}).status != 0) return false;
  std::string script = "ip link set lo up || exit 9\n";
  for (int task : {1, 0}) {
    std::string w = d / ("w" + std::to_string(task));
    std::string shift =
        task == 1 && shift_ns ? " TENSORTRACE_TEST_CLOCK_SHIFT_NS=" + std::to_string(shift_ns) : "";
    script += "env TT_SR_TASK=" + std::to_string(task) + shift +
              " TT_SR_DONE=" + ShellQuote(d / "done") + " " + ShellQuote(TT_CLI) + " record -o " +
              ShellQuote(w) + " -- " + ShellQuote(Python()) + " " +
              ShellQuote(Program("tf_send_recv.py")) + " >" + ShellQuote(w + ".out") + " 2>" +
              ShellQuote(w + ".err") + " &\np" + std::to_string(task) + "=$!\n";
  }
  script += "s=0\nwait $p0 || s=1\nwait $p1 || s=1\ncat " + ShellQuote(d / "w0.out") + "\ncat " +
            ShellQuote(d / "w0.err") + " " + ShellQuote(d / "w1.err") + " >&2\nexit $s\n";
  WriteFileAtomic(d / "tasks.sh", script, false);
  *r = RunCmd({"unshare", "-n", "sh", d / "tasks.sh"}, {}, 400);
  return true;
}

TEST(TfP2p, SendRecvPairedAndReplayedAcrossOneRecordingPerWorker) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  test::RunResult r;
  for (int attempt = 1; attempt <= 3; ++attempt) {
    for (const char* f : {"w0", "w1", "done"}) std::filesystem::remove_all(d / f);
    if (!RecordEach(d, &r)) GTEST_SKIP() << "cannot make a network namespace (unshare -n)";
    if (!TfProfilerCrashedAtExit(r)) break;
    std::printf("attempt %d: TensorFlow's profiler crashed at a worker's exit\n", attempt);
  }
  ASSERT_EQ(r.status, 0) << r.err;
  json j = CommJson({d / "w0", d / "w1"});
  CheckTransfers(j, Said(r.out));
  EXPECT_TRUE(j["notes"].empty()) << j["notes"].dump();
  // Each side in its own recording.
  const json& procs = j["p2p"]["processes"];
  const json* big = Channel(j["p2p"], "mul", 1, 0);
  ASSERT_TRUE(big);
  EXPECT_EQ(procs[(*big)["sender_index"].get<size_t>()]["trace"], d / "w1");
  EXPECT_EQ(procs[(*big)["receiver_index"].get<size_t>()]["trace"], d / "w0");
  CheckReplay({d / "w0", d / "w1"}, j["p2p"]["rendezvous"].size());

  // The report's communication section: a row per channel, every send paired, on the job's
  // clock (the two recordings aligned).
  auto rep = RunCmd({TT_CLI, "report", d / "w0", d / "w1", "-o", d / "r.html"}, {}, 300);
  ASSERT_EQ(rep.status, 0) << rep.err;
  auto rows = test::HtmlTable(ReadFile(d / "r.html"), "comm-rendezvous");
  ASSERT_EQ(rows.size(), j["p2p"]["rendezvous"].size());
  for (const auto& row : rows) {
    EXPECT_EQ(row[5], std::to_string(Said(r.out)["steps"])) << row[0];  // sends
    EXPECT_EQ(row[6], row[5]) << row[0];                                // all paired
  }

  // Given only task 0's recording, its sends have no receiver and its receives no send: notes.
  json one = CommJson({d / "w0"});
  EXPECT_NE(one["notes"].dump().find("received by no process in the traces"), std::string::npos)
      << one["notes"].dump();
}

// Task 1's clock 5 s ahead (one recording per task, no collective, no socket source): the job's
// clock puts it back by the tensors the tasks sent each other (a receive is never done before
// its send began, each way), as comm does for its table, and replay then links every transfer.
TEST(TfP2p, ShiftedWorkerClockIsPutBackByItsTensors) {
  REQUIRE_MODULE("tensorflow");
  constexpr int64_t kShift = 5'000'000'000;
  TempDir d;
  test::RunResult r;
  for (int attempt = 1; attempt <= 3; ++attempt) {
    for (const char* f : {"w0", "w1", "done"}) std::filesystem::remove_all(d / f);
    if (!RecordEach(d, &r, kShift)) GTEST_SKIP() << "cannot make a network namespace (unshare -n)";
    if (!TfProfilerCrashedAtExit(r)) break;
    std::printf("attempt %d: TensorFlow's profiler crashed at a worker's exit\n", attempt);
  }
  ASSERT_EQ(r.status, 0) << r.err;
  json st = test::RunJson({TT_CLI, "stats", d / "w0", d / "w1", "--json"});
  ASSERT_EQ(st["clocks"].size(), 2u) << st["clocks"].dump();
  const json& c = st["clocks"][1];
  EXPECT_EQ(c["trace"], d / "w1") << c.dump();
  EXPECT_EQ(c["method"], "tensors") << c.dump();
  EXPECT_GT(c["tensor_pairs"].get<uint64_t>(), 0u) << c.dump();
  // Within a step's transfers of the shift (the pairs bound it from both sides).
  int64_t off = c["offset_ns"];
  EXPECT_LT(std::llabs(off + kShift), 50'000'000) << c.dump();
  EXPECT_GE(c["uncertainty_ns"].get<int64_t>(), std::llabs(off + kShift)) << c.dump();
  // comm puts it back the same way for its own table: every pair as without the shift.
  json j = CommJson({d / "w0", d / "w1"});
  CheckTransfers(j, Said(r.out));
  EXPECT_NE(j["notes"].dump().find("clock of " + (d / "w1") + ": moved by -5"), std::string::npos)
      << j["notes"].dump();
  CheckReplay({d / "w0", d / "w1"}, j["p2p"]["rendezvous"].size(), /*clock_put_back=*/true);
}

}  // namespace
}  // namespace tt
