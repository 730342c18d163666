// The socket source (record --sources net) and comm's point-to-point section: the pairing on
// plain lists with exact numbers (P2pMatch); a client and a server exchanging known messages
// over 127.0.0.1 (tests/programs/net_job.cc: 1 B to 64 MiB, partial reads and writes,
// sendmsg/recvmsg, writev/readv, a peek), recorded as one job of two processes and as two
// recordings, every received byte paired with its send and the byte totals those of the known
// sizes (NetSource); a recording whose clock is shifted, put back by the pairs; a recording
// whose peer was not recorded (a note, exit 0); and the source off unless named.
#include <gtest/gtest.h>

#include <future>
#include <nlohmann/json.hpp>
#include <numeric>

#include "analysis/comm/p2p.h"
#include "core/files.h"
#include "programs/net_job.h"
#include "test_json.h"
#include "test_util.h"

namespace tt {
namespace {

using analysis::SocketCall;
using analysis::SocketEnd;
using analysis::SocketProcess;
using nlohmann::json;
using test::RunCmd;
using test::RunJson;
using test::TempDir;

SocketEnd End(size_t proc, const char* local, const char* peer, std::vector<SocketCall> sends,
              std::vector<SocketCall> recvs) {
  SocketEnd e;
  e.process = proc;
  e.local = local;
  e.peer = peer;
  e.sends = std::move(sends);
  e.receives = std::move(recvs);
  return e;
}

TEST(P2pMatch, ReceivesArePairedWithTheSendsTheirBytesCameFrom) {
  // A -> B: sends of 100 (t 0..10) and 50 (t 20..25); receives of 60 (ends 30), 60 (ends 40)
  // and 30 (ends 50): the first send ends at the second receive, the second at the third.
  std::vector<SocketProcess> procs = {{1, 0, "h", "ta", "c", 0}, {2, 1, "h", "tb", "c", 0}};
  std::vector<SocketEnd> ends = {
      End(0, "A:1", "B:2", {{0, 10, 0, 100}, {20, 25, 100, 50}}, {}),
      End(1, "B:2", "A:1", {}, {{26, 30, 0, 60}, {35, 40, 60, 60}, {45, 50, 120, 30}})};
  auto v = analysis::MatchSockets(procs, ends);
  ASSERT_EQ(v.connections.size(), 1u);
  ASSERT_EQ(v.connections[0].dirs.size(), 1u);
  const auto& d = v.connections[0].dirs[0];
  EXPECT_EQ(d.from, "A:1");
  EXPECT_EQ(d.sender, 0);
  EXPECT_EQ(d.receiver, 1);
  EXPECT_EQ(d.sent, 150u);
  EXPECT_EQ(d.matched, 150u);
  EXPECT_EQ(d.messages, 2u);
  EXPECT_EQ(d.latency_min, 30u);  // 20 -> 50
  EXPECT_EQ(d.latency_max, 40u);  // 0 -> 40
  EXPECT_EQ(d.busy_ns, 50u);      // [0, 40] and [20, 50]
  EXPECT_DOUBLE_EQ(d.bandwidth, 150e9 / 50);
  EXPECT_EQ(d.causality, 0u);
  EXPECT_EQ(v.unmatched, 0u);
  EXPECT_TRUE(v.notes.empty());
}

TEST(P2pMatch, AMissingPeerOrMissingBytesIsANoteNamingTheConnection) {
  std::vector<SocketProcess> procs = {{1, -1, "h", "ta", "c", 0}, {2, -1, "h", "tb", "c", 0}};
  std::vector<SocketEnd> ends = {
      End(0, "A:1", "C:3", {{0, 10, 0, 100}}, {}), End(0, "A:1", "B:2", {{0, 10, 0, 100}}, {}),
      End(1, "B:2", "A:1", {}, {{20, 30, 0, 40}}), End(1, "B:2", "", {}, {{20, 30, 0, 7}})};
  auto v = analysis::MatchSockets(procs, ends);
  EXPECT_EQ(v.matched, 40u);
  EXPECT_EQ(v.unmatched, 100u + 60u + 7u);
  ASSERT_EQ(v.notes.size(), 3u);
  std::string all = v.notes[0] + v.notes[1] + v.notes[2];
  EXPECT_NE(all.find("A:1 -> C:3: 100 B sent by pid 1 of ta, received by no process"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("A:1 -> B:2: 60 byte(s) sent and 0 received left unpaired"), std::string::npos)
      << all;
  EXPECT_NE(all.find("7 byte(s) on connections never announced"), std::string::npos) << all;
}

TEST(P2pMatch, SocketPairsBoundAnotherRecordingsClock) {
  // tb's clock is behind: its receive of A's send (start 100) ends at 50 on its clock, and A
  // receives B's send (start 200) by 260. So 50 <= d <= 60: d is the middle, 55.
  std::vector<SocketProcess> procs = {{1, 0, "h", "ta", "c", 0}, {2, 1, "h", "tb", "c", 0}};
  std::vector<SocketEnd> ends = {End(0, "A:1", "B:2", {{100, 101, 0, 10}}, {{250, 260, 0, 4}}),
                                 End(1, "B:2", "A:1", {{200, 201, 0, 4}}, {{40, 50, 0, 10}})};
  auto v = analysis::MatchSockets(procs, ends);
  ASSERT_EQ(v.clocks.size(), 2u);
  EXPECT_EQ(v.clocks[1].method, "sockets");
  EXPECT_EQ(v.clocks[1].low_ns, 50);
  EXPECT_EQ(v.clocks[1].high_ns, 60);
  EXPECT_EQ(v.clocks[1].offset_ns, 55);
  EXPECT_EQ(v.clocks[1].pairs, 2u);
  ASSERT_EQ(v.connections.size(), 1u);
  for (const auto& d : v.connections[0].dirs) {
    EXPECT_EQ(d.causality, 0u);
    EXPECT_EQ(d.latency_min, 5u);  // A -> B: 105 - 100; B -> A: 260 - (200 + 55)
  }
  // Given an offset that the pairs allow (comm's), it is kept.
  auto kept = analysis::MatchSockets(procs, ends, {{"tb", 52}});
  EXPECT_EQ(kept.clocks[1].method, "recorded");
  EXPECT_EQ(kept.clocks[1].offset_ns, 52);
}

uint64_t KnownBytes() { return std::accumulate(std::begin(kNetSizes), std::end(kNetSizes), 0ull); }
constexpr uint64_t kMessages = std::size(kNetSizes);

json CommJson(const std::vector<std::string>& dirs) {
  std::vector<std::string> argv = {TT_CLI, "comm", "--json"};
  argv.insert(argv.end(), dirs.begin(), dirs.end());
  auto r = RunCmd(argv, {}, 300);
  EXPECT_EQ(r.status, 0) << r.err;
  return json::parse(r.out);
}

// The one connection's two directions: the client's messages and the server's answers, every
// byte paired, in the known amounts.
void ExpectKnownExchange(const json& c) {
  const json& conns = c["p2p"]["connections"];
  ASSERT_EQ(conns.size(), 1u) << c.dump(1);
  ASSERT_EQ(conns[0]["directions"].size(), 2u);
  json data, acks;
  for (const json& d : conns[0]["directions"])
    (d["sent_bytes"].get<uint64_t>() == KnownBytes() ? data : acks) = d;
  ASSERT_FALSE(data.is_null()) << conns.dump(1);
  ASSERT_FALSE(acks.is_null()) << conns.dump(1);
  // The data: every byte received (the peek not counted) and paired with its send.
  EXPECT_EQ(data["received_bytes"], KnownBytes());
  EXPECT_EQ(data["matched_bytes"], KnownBytes());
  // Partial writes happen only when the receiver falls behind (on a quiet machine, sometimes
  // none: 9 sends for 9 messages); partial reads always (the reader's buffer is smaller).
  EXPECT_GE(data["sends"].get<uint64_t>(), kMessages);
  EXPECT_GT(data["receives"].get<uint64_t>(), kMessages);  // partial reads
  EXPECT_EQ(data["messages"], data["sends"]);              // every send call wholly received
  EXPECT_EQ(data["from"], acks["to"]);
  EXPECT_EQ(data["to"], acks["from"]);
  EXPECT_EQ(data["sender_index"], acks["receiver_index"]);
  EXPECT_NE(data["sender_index"], data["receiver_index"]);
  // The answers: one send and at least one receive each.
  EXPECT_EQ(acks["sent_bytes"], kMessages * kNetAckBytes);
  EXPECT_EQ(acks["matched_bytes"], kMessages * kNetAckBytes);
  EXPECT_EQ(acks["sends"], kMessages);
  EXPECT_EQ(acks["messages"], kMessages);
  for (const json& d : {data, acks}) {
    EXPECT_GT(d["latency_min_ns"].get<uint64_t>(), 0u);
    EXPECT_LE(d["latency_p50_ns"].get<uint64_t>(), d["latency_max_ns"].get<uint64_t>());
    EXPECT_GT(d["busy_ns"].get<uint64_t>(), 0u);
    EXPECT_GT(d["bandwidth_gbs"].get<double>(), 0);
    EXPECT_EQ(d["causality_violations"], 0);
    EXPECT_EQ(d["overlapping_calls"], 0);
  }
  EXPECT_EQ(c["p2p"]["unmatched_bytes"], 0);
  EXPECT_EQ(c["p2p"]["processes"].size(), 2u);
}

TEST(NetSource, TwoProcessesOfOneRecordingEveryReceivedBytePairedWithItsSend) {
  TempDir d;
  auto r = RunCmd(
      {TT_CLI, "record", "--quiet", "--sources", "net", "-o", d / "t", "--", TT_NET_JOB, "pair"},
      {}, 300);
  ASSERT_EQ(r.status, 0) << r.err;
  json c = CommJson({d / "t"});
  ExpectKnownExchange(c);
  EXPECT_TRUE(c["notes"].empty()) << c["notes"].dump();
  // The text names the connection's directions.
  auto text = RunCmd({TT_CLI, "comm", d / "t"}, {}, 300);
  EXPECT_EQ(text.status, 0);
  EXPECT_NE(text.out.find("point-to-point (sockets)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("127.0.0.1:"), std::string::npos) << text.out;
  // The CSV's p2p section: one row per direction, the data's bytes all paired.
  auto csv = RunCmd({TT_CLI, "comm", d / "t", "--csv", "--section", "p2p"}, {}, 300);
  ASSERT_EQ(csv.status, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("method,from,to,sender_pid,receiver_pid,sent_bytes,received_bytes,", 0),
            0u)
      << csv.out;
  EXPECT_EQ(test::CountLines(csv.out), 3u) << csv.out;
  std::string bytes = std::to_string(KnownBytes());
  EXPECT_NE(csv.out.find("," + bytes + "," + bytes + "," + bytes + ","), std::string::npos)
      << csv.out;
}

// The server recorded into d/server, in the background; its port in d/port.
std::future<test::RunResult> Serve(const TempDir& d) {
  std::vector<std::string> argv = {TT_CLI,       "record", "--quiet",  "--sources", "net",     "-o",
                                   d / "server", "--",     TT_NET_JOB, "serve",     d / "port"};
  return std::async(std::launch::async, [argv] { return RunCmd(argv, {}, 300); });
}

TEST(NetSource, OverIpv6Loopback) {
  TempDir d;
  auto r = RunCmd(
      {TT_CLI, "record", "--quiet", "--sources", "net", "-o", d / "t", "--", TT_NET_JOB, "pair6"},
      {}, 300);
  if (r.status == 4) GTEST_SKIP() << "no IPv6 loopback here";
  ASSERT_EQ(r.status, 0) << r.err;
  json c = CommJson({d / "t"});
  ExpectKnownExchange(c);
  EXPECT_EQ(c["p2p"]["connections"][0]["a"].get<std::string>().rfind("[::1]:", 0), 0u)
      << c["p2p"].dump(1);
}

TEST(NetSource, TwoRecordingsArePairedAcrossTraces) {
  TempDir d;
  auto server = Serve(d);
  auto client = RunCmd({TT_CLI, "record", "--quiet", "--sources", "cuda,net", "-o", d / "client",
                        "--", TT_NET_JOB, "connect", d / "port"},
                       {}, 300);
  EXPECT_EQ(server.get().status, 0);
  ASSERT_EQ(client.status, 0) << client.err;
  json c = CommJson({d / "server", d / "client"});
  ExpectKnownExchange(c);
  const json& procs = c["p2p"]["processes"];
  ASSERT_EQ(procs.size(), 2u);
  EXPECT_NE(procs[0]["trace"], procs[1]["trace"]);
  // One boot: the recorded offset (none) agrees with every pair.
  ASSERT_EQ(c["p2p"]["clocks"].size(), 2u);
  EXPECT_EQ(c["p2p"]["clocks"][1]["method"], "recorded");
  EXPECT_EQ(c["p2p"]["clocks"][1]["offset_ns"], 0);
}

TEST(NetSource, AShiftedClockIsPutBackBySocketPairs) {
  // The client's clock 5 s ahead: its receives of the answers would end before their sends
  // began; the pairs bound its offset to about -5 s (within a round trip).
  TempDir d;
  auto server = Serve(d);
  auto client = RunCmd({TT_CLI, "record", "--quiet", "--sources", "net", "-o", d / "client", "--",
                        TT_NET_JOB, "connect", d / "port"},
                       {{"TENSORTRACE_TEST_CLOCK_SHIFT_NS", "5000000000"}}, 300);
  EXPECT_EQ(server.get().status, 0);
  ASSERT_EQ(client.status, 0) << client.err;
  json c = CommJson({d / "server", d / "client"});
  ExpectKnownExchange(c);
  const json& clocks = c["p2p"]["clocks"];
  ASSERT_EQ(clocks.size(), 2u) << c["p2p"].dump(1);
  EXPECT_EQ(clocks[0]["method"], "reference");
  EXPECT_EQ(clocks[1]["method"], "sockets");
  EXPECT_EQ(clocks[1]["recorded_offset_ns"], 0);
  auto off = clocks[1]["offset_ns"].get<int64_t>();
  EXPECT_LE(clocks[1]["low_ns"].get<int64_t>(), off);
  EXPECT_GE(clocks[1]["high_ns"].get<int64_t>(), off);
  EXPECT_GT(off, -5500000000);
  EXPECT_LT(off, -4500000000);
  EXPECT_GT(clocks[1]["pairs"].get<uint64_t>(), 0u);
  // Every call of the shifted process is on its shifted clock, its first included (a start
  // read off that clock would make one message seem to take the whole shift).
  for (const json& d : c["p2p"]["connections"][0]["directions"])
    EXPECT_LT(d["latency_max_ns"].get<uint64_t>(), 2500000000u) << d.dump();
  // The job's clock (every other command) is put back by the same pairs.
  json st = RunJson({TT_CLI, "stats", d / "server", d / "client", "--json"});
  ASSERT_EQ(st["clocks"].size(), 2u) << st["clocks"].dump();
  EXPECT_EQ(st["clocks"][1]["method"], "sockets");
  EXPECT_EQ(st["clocks"][1]["offset_ns"].get<int64_t>(), off);
  EXPECT_EQ(st["clocks"][1]["pairs"], clocks[1]["pairs"]);
  EXPECT_EQ(st["clocks"][1]["constraints"], 0);
  // The report's communication section: both directions, every byte paired, and the clocks.
  auto r = RunCmd({TT_CLI, "report", d / "server", d / "client", "-o", d / "r.html"}, {}, 300);
  ASSERT_EQ(r.status, 0) << r.err;
  std::string html = ReadFile(d / "r.html");
  auto p2p = test::HtmlTable(html, "comm-p2p");
  ASSERT_EQ(p2p.size(), 2u);
  for (const auto& row : p2p) {
    EXPECT_EQ(row[3], row[4]) << "sent and paired: " << row[0];  // every byte paired
    EXPECT_NE(row[1], "not recorded");
    EXPECT_NE(row[2], "not recorded");
  }
  auto rc = test::HtmlTable(html, "comm-clocks");
  ASSERT_EQ(rc.size(), 2u);
  EXPECT_EQ(rc[1][3], std::to_string(off));
  EXPECT_EQ(rc[1][4], "sockets");
}

TEST(NetSource, APeerNotRecordedIsANoteNotACrash) {
  TempDir d;
  auto server = Serve(d);
  auto client = RunCmd({TT_NET_JOB, "connect", d / "port"}, {}, 300);
  EXPECT_EQ(server.get().status, 0);
  ASSERT_EQ(client.status, 0) << client.err;
  auto text = RunCmd({TT_CLI, "comm", d / "server"}, {}, 300);
  EXPECT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("sent by no process in the traces"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("received by no process in the traces"), std::string::npos) << text.out;
  json c = CommJson({d / "server"});
  EXPECT_EQ(c["p2p"]["matched_bytes"], 0);
  EXPECT_EQ(c["p2p"]["unmatched_bytes"], KnownBytes() + kMessages * kNetAckBytes);
}

TEST(NetSource, OffUnlessNamed) {
  TempDir d;
  auto r = RunCmd({TT_CLI, "record", "--quiet", "-o", d / "t", "--", TT_NET_JOB, "pair"}, {}, 300);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(CommJson({d / "t"})["p2p"]["connections"].empty());
}

}  // namespace
}  // namespace tt
