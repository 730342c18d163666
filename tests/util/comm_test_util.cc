#include "comm_test_util.h"

#include <gtest/gtest.h>

#include <utility>

#include "core/files.h"

namespace tt::test {

using analysis::CommEvent;
using analysis::CommRank;
using analysis::CommView;
using nlohmann::json;

CommEvent Ev(const char* coll, const char* group, uint64_t start_ms, uint64_t end_ms, int64_t bytes,
             int64_t key) {
  CommEvent e;
  e.collective = analysis::NormaliseCollective(coll);
  e.group = group;
  e.start = start_ms * kMs;
  e.end = end_ms * kMs;
  e.bytes = bytes;
  e.key = key;
  e.name = std::string("gloo:") + coll;
  return e;
}

CommRank Rank(int64_t rank, std::vector<CommEvent> events) {
  CommRank r;
  r.rank = rank;
  r.pid = 100 + rank;
  r.source = "backend";
  r.events = std::move(events);
  return r;
}

const analysis::CommInstance* Find(const CommView& v, const std::string& coll, uint64_t seq,
                                   int64_t key) {
  for (const auto& in : v.instances)
    if (in.collective == coll && in.seq == seq && in.key == key) return &in;
  ADD_FAILURE() << "no instance " << coll << " #" << seq;
  return nullptr;
}

json CommJson(const std::vector<std::string>& dirs) {
  std::vector<std::string> argv = {TT_CLI, "comm"};
  argv.insert(argv.end(), dirs.begin(), dirs.end());
  argv.push_back("--json");
  auto r = RunCmd(argv, {}, 120);
  EXPECT_EQ(r.status, 0) << r.err;
  return r.status == 0 ? json::parse(r.out) : json::object();
}

const json* Instance(const json& j, const std::string& coll, int64_t seq, const json& key) {
  for (const auto& in : j["instances"])
    if (in["collective"] == coll && in["seq"] == seq && in["key"] == key) return &in;
  ADD_FAILURE() << "no instance " << coll << " #" << seq << " in " << j.dump().substr(0, 3000);
  return nullptr;
}

std::string ReportOf(const std::string& trace, const std::string& out) {
  auto r = RunCmd({TT_CLI, "report", trace, "-o", out}, {}, 180);
  EXPECT_EQ(r.status, 0) << r.err;
  return r.status == 0 ? ReadFile(out) : "";
}

std::string FindingText(const std::string& html, const std::string& id) {
  std::string open = "<li data-finding=\"" + id + "\">";
  size_t at = html.find(open);
  if (at == std::string::npos) return "";
  at += open.size();
  return html.substr(at, html.find("</li>", at) - at);
}

void ExpectCausal(const json& j, uint64_t broadcast_slack) {
  for (const auto& in : j["instances"]) {
    std::string c = in["collective"];
    uint64_t root_enter = 0;  // rank index 0's entry
    for (const auto& a : in["arrivals"])
      if (a["rank_index"] == 0) root_enter = a["enter_ns"];
    for (const auto& a : in["arrivals"]) {
      uint64_t exit = a["exit_ns"];
      if (c == "allreduce" || c == "allgather" || c == "barrier") {
        EXPECT_GE(exit, in["last_enter_ns"].get<uint64_t>()) << in.dump();
      } else if (c == "broadcast") {
        EXPECT_GE(exit + broadcast_slack, root_enter) << in.dump();
      }
    }
  }
}

bool RecordInNetworkNamespace(const std::string& trace, const std::string& program,
                              const std::map<std::string, std::string>& env, RunResult* r) {
  return RunInNetworkNamespace({TT_CLI, "record", "-o", trace, "--", Python(), Program(program)},
                               env, 280, r);
}

std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

bool RecordEachRank(const std::vector<std::string>& traces, const std::string& program,
                    const std::vector<std::map<std::string, std::string>>& env,
                    const std::string& dir, RunResult* r) {
  if (RunCmd({"unshare", "-n", "true"}).status != 0) return false;
  std::string script = "ip link set lo up || exit 9\n";
  for (size_t i = 0; i < traces.size(); ++i) {
    std::string line = "env";
    for (const auto& [k, v] : env[i]) line += " " + ShellQuote(k + "=" + v);
    for (const auto& a : {std::string(TT_CLI), std::string("record"), std::string("-o"), traces[i],
                          std::string("--"), Python(), Program(program)})
      line += " " + ShellQuote(a);
    std::string out = ShellQuote(dir + "/rank" + std::to_string(i));
    script += line + " >" + out + ".out 2>" + out + ".err &\np" + std::to_string(i) + "=$!\n";
  }
  script += "s=0\n";
  for (size_t i = 0; i < traces.size(); ++i) script += "wait $p" + std::to_string(i) + " || s=1\n";
  for (size_t i = 0; i < traces.size(); ++i) {
    std::string out = ShellQuote(dir + "/rank" + std::to_string(i));
    script += "cat " + out + ".out; cat " + out + ".err >&2\n";
  }
  WriteFileAtomic(dir + "/ranks.sh", script + "exit $s\n", false);
  *r = RunCmd({"unshare", "-n", "sh", dir + "/ranks.sh"}, {}, 400);
  return true;
}

}  // namespace tt::test
