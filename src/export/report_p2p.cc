// The report's point-to-point part of the communication section: each socket direction with
// its bytes paired to their sends, messages, latency and bandwidth, TensorFlow's _Send/_Recv
// pairs (analysis/comm/p2p.h), and each recording's clock as the job's alignment applied it
// (collectives and socket pairs).
#include <cstdio>

#include "core/human.h"
#include "export/report_parts.h"

namespace tt::exporter::report {

namespace {

using analysis::HumanBytes;
using analysis::P2pView;
using analysis::WithCommas;

// TensorFlow's tensors moved between workers (_Send to _Recv, by rendezvous key).
std::string RendezvousPart(const P2pView& p) {
  if (p.rendezvous.empty()) return "";
  std::string s =
      "<h3>Point-to-point (TensorFlow _Send/_Recv)</h3>\n<p>Each tensor edge between two "
      "processes, its sends paired with their receives by rendezvous key and order. Latency "
      "runs from a send's start to its receive's done; the wait is the receive's own time.</p>"
      "\n<div class=\"wide\"><table id=\"comm-rendezvous\">" +
      Header({"tensor", "from device", "to device", "sender", "receiver", "sends", "pairs", "bytes",
              "latency p50", "latency max", "receive wait"}) +
      "<tbody>\n";
  for (const auto& c : p.rendezvous) {
    auto lat = [&](uint64_t ns) { return c.pairs ? Dur(ns) : std::string("-"); };
    s += "<tr>" + TdName(c.tensor) + TdName(c.send_device) + TdName(c.recv_device) +
         TdName(p.Who(c.sender, "not recorded")) + TdName(p.Who(c.receiver, "not recorded")) +
         Td(WithCommas(c.sends)) + Td(WithCommas(c.pairs)) +
         Td(c.sized ? HumanBytes(c.bytes) : "-") + Td(lat(c.latency_p50)) + Td(lat(c.latency_max)) +
         Td(Dur(c.wait)) + "</tr>\n";
  }
  return s + "</tbody></table></div>\n";
}

std::string SocketPart(const P2pView& p) {
  if (p.connections.empty()) return "";
  std::string s = "<h3>Point-to-point (sockets)</h3>\n<p>" +
                  HumanBytes(static_cast<int64_t>(p.matched)) + " received and paired with the " +
                  "sends they came from (by each connection's byte offsets), " +
                  HumanBytes(static_cast<int64_t>(p.unmatched)) +
                  " unpaired. A message's latency runs from its send's start to the end of the "
                  "receive that took its last byte.</p>\n<div class=\"wide\"><table "
                  "id=\"comm-p2p\">" +
                  Header({"direction", "sender", "receiver", "sent", "paired", "sends", "messages",
                          "latency p50", "latency max", "bandwidth"}) +
                  "<tbody>\n";
  for (const auto& c : p.connections)
    for (const auto& d : c.dirs) {
      auto lat = [&](uint64_t ns) { return d.messages ? Dur(ns) : std::string("-"); };
      s += "<tr>" + TdName(d.from + " \u2192 " + d.to) + TdName(p.Who(d.sender, "not recorded")) +
           TdName(p.Who(d.receiver, "not recorded")) +
           Td(HumanBytes(static_cast<int64_t>(d.sent))) +
           Td(HumanBytes(static_cast<int64_t>(d.matched))) + Td(WithCommas(d.sends)) +
           Td(WithCommas(d.messages)) + Td(lat(d.latency_p50)) + Td(lat(d.latency_max)) +
           Td(Rate(d.bandwidth)) + "</tr>\n";
    }
  return s + "</tbody></table></div>\n";
}

}  // namespace

std::string P2pPart(const P2pView& p) { return SocketPart(p) + RendezvousPart(p); }

std::string ClocksPart(const std::vector<model::RecordingClock>& clocks) {
  if (clocks.size() < 2) return "";
  std::string s =
      "<h3>Clocks</h3>\n<p>Every time in this report is on the reference recording's clock: "
      "each recording's offset is added to its times. It starts from the recorded "
      "CLOCK_REALTIME offsets and is refined by causality: no rank leaves a collective before "
      "the last one entered, no receive ends before its send began.</p>\n<div "
      "class=\"wide\"><table id=\"comm-clocks\">" +
      Header({"recording", "host", "offset", "offset_ns", "method", "uncertainty",
              "collectives bounding it", "socket pairs bounding it"}) +
      "<tbody>\n";
  for (const auto& c : clocks) {
    char off[48];
    std::snprintf(off, sizeof off, "%+.3f ms", static_cast<double>(c.offset_ns) / 1e6);
    s += "<tr>" + TdName(c.recording) + TdName(c.host) + Td(off) + Td(std::to_string(c.offset_ns)) +
         TdName(c.method) +
         Td(c.uncertainty_ns >= 0 ? Dur(static_cast<uint64_t>(c.uncertainty_ns)) : "-") +
         Td(WithCommas(c.constraints)) + Td(WithCommas(c.pairs)) + "</tr>\n";
  }
  return s + "</tbody></table></div>\n";
}

}  // namespace tt::exporter::report
