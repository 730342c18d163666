// comm's point-to-point and per-step outputs (comm_p2p.h).
#include "cli/comm_p2p.h"

#include <cstdio>

#include "core/human.h"
#include "cli/args.h"
#include "core/csv.h"

namespace tt::cli {

namespace {

using analysis::HumanBytes;
using analysis::HumanDuration;
using analysis::P2pView;
using analysis::RendezvousChannel;
using nlohmann::json;

template <typename T>
json Known(T v) {
  return v >= 0 ? json(v) : json(nullptr);
}

std::string U(uint64_t v) { return std::to_string(v); }

std::string I(int64_t v, bool known = true) { return known ? std::to_string(v) : std::string(); }

}  // namespace

json RendezvousJson(const P2pView& p) {
  json chans = json::array(), transfers = json::array();
  for (const RendezvousChannel& c : p.rendezvous)
    chans.push_back({{"method", c.method},
                     {"key", c.key},
                     {"tensor", c.tensor},
                     {"send_device", c.send_device},
                     {"recv_device", c.recv_device},
                     {"sender_index", Known(c.sender)},
                     {"receiver_index", Known(c.receiver)},
                     {"sends", c.sends},
                     {"receives", c.receives},
                     {"pairs", c.pairs},
                     {"bytes", c.bytes},
                     {"sized_pairs", c.sized},
                     {"latency_min_ns", c.pairs ? json(c.latency_min) : json(nullptr)},
                     {"latency_p50_ns", c.pairs ? json(c.latency_p50) : json(nullptr)},
                     {"latency_max_ns", c.pairs ? json(c.latency_max) : json(nullptr)},
                     {"wait_ns", c.wait},
                     {"wait_max_ns", c.wait_max},
                     {"causality_violations", c.causality}});
  for (const auto& t : p.transfers)
    transfers.push_back({{"channel_index", t.channel},
                         {"seq", t.seq},
                         {"step_id", t.step},
                         {"send_start_ns", t.send_start},
                         {"send_end_ns", t.send_end},
                         {"recv_start_ns", t.recv_start},
                         {"recv_done_ns", t.recv_done},
                         {"bytes", Known(t.bytes)},
                         {"latency_ns", t.latency},
                         {"wait_ns", t.wait}});
  return {{"rendezvous", chans}, {"transfers", transfers}};
}

void PrintRendezvous(const P2pView& p) {
  if (p.rendezvous.empty()) return;
  std::printf("\npoint-to-point (TensorFlow _Send/_Recv, paired by rendezvous key):\n");
  std::printf("  %-30s %-20s %-20s %6s %6s %10s %10s %10s %10s\n", "tensor", "sender", "receiver",
              "sends", "pairs", "bytes", "lat p50", "lat max", "recv wait");
  for (const RendezvousChannel& c : p.rendezvous) {
    auto lat = [&](uint64_t ns) {
      return c.pairs ? HumanDuration(static_cast<double>(ns)) : std::string("-");
    };
    std::printf("  %-30s %-20s %-20s %6llu %6llu %10s %10s %10s %10s\n",
                TerminalSafe(c.tensor).c_str(), p.Who(c.sender, "-").c_str(),
                p.Who(c.receiver, "-").c_str(), static_cast<unsigned long long>(c.sends),
                static_cast<unsigned long long>(c.pairs),
                c.sized ? HumanBytes(c.bytes).c_str() : "-", lat(c.latency_p50).c_str(),
                lat(c.latency_max).c_str(), HumanDuration(static_cast<double>(c.wait)).c_str());
  }
}

bool PrintCsvSection(const std::string& section, const analysis::CommView& v, const P2pView& p) {
  if (section == "steps") {
    std::printf("rank,pid,step,start_ns,end_ns,calls,comm_ns,overlapped_ns,exposed_ns\n");
    for (const auto& r : v.ranks)
      for (const auto& s : r.steps)
        std::printf("%s,%lld,%lld,%s,%s,%s,%s,%s,%s\n", I(r.rank, r.rank >= 0).c_str(),
                    static_cast<long long>(r.pid), static_cast<long long>(s.number),
                    U(s.start).c_str(), U(s.end).c_str(), U(s.calls).c_str(), U(s.comm).c_str(),
                    U(s.overlapped).c_str(), U(s.exposed).c_str());
  } else if (section == "p2p") {
    std::printf(
        "method,from,to,sender_pid,receiver_pid,sent_bytes,received_bytes,matched_bytes,sends,"
        "receives,messages,latency_p50_ns,latency_max_ns,busy_ns\n");
    auto pid = [&](int64_t i) { return i >= 0 ? I(p.processes[i].pid) : std::string(); };
    for (const auto& c : p.connections)
      for (const auto& d : c.dirs)
        std::printf("byte offsets,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n",
                    CsvQuote(d.from).c_str(), CsvQuote(d.to).c_str(), pid(d.sender).c_str(),
                    pid(d.receiver).c_str(), U(d.sent).c_str(), U(d.received).c_str(),
                    U(d.matched).c_str(), U(d.sends).c_str(), U(d.receives).c_str(),
                    U(d.messages).c_str(), d.messages ? U(d.latency_p50).c_str() : "",
                    d.messages ? U(d.latency_max).c_str() : "", U(d.busy_ns).c_str());
  } else if (section == "rendezvous") {
    std::printf(
        "method,tensor,send_device,recv_device,sender_pid,receiver_pid,seq,step_id,"
        "send_start_ns,send_end_ns,recv_start_ns,recv_done_ns,bytes,latency_ns,wait_ns\n");
    for (const auto& t : p.transfers) {
      const RendezvousChannel& c = p.rendezvous[t.channel];
      std::printf("%s,%s,%s,%s,%s,%s,%s,%lld,%s,%s,%s,%s,%s,%s,%s\n", CsvQuote(c.method).c_str(),
                  CsvQuote(c.tensor).c_str(), CsvQuote(c.send_device).c_str(),
                  CsvQuote(c.recv_device).c_str(), I(p.processes[c.sender].pid).c_str(),
                  c.receiver >= 0 ? I(p.processes[c.receiver].pid).c_str() : "", U(t.seq).c_str(),
                  static_cast<long long>(t.step), U(t.send_start).c_str(), U(t.send_end).c_str(),
                  U(t.recv_start).c_str(), U(t.recv_done).c_str(), I(t.bytes, t.bytes >= 0).c_str(),
                  U(t.latency).c_str(), U(t.wait).c_str());
    }
  } else {
    return false;
  }
  return true;
}

}  // namespace tt::cli
