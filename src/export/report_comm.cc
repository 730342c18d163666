// The report's communication section: the collectives of the trace matched across ranks
// (analysis/comm/comm.h), per collective, per rank, and the instances that waited longest with
// their straggler; then its point-to-point part and the clocks (report_p2p.cc).
#include <algorithm>
#include <cstdio>

#include "core/human.h"
#include "export/report_parts.h"

namespace tt::exporter::report {

namespace {

using analysis::CommInstance;
using analysis::CommView;
using analysis::HumanBytes;
using analysis::WithCommas;

std::string Bytes(int64_t b) { return b >= 0 ? HumanBytes(b) : "-"; }

std::string PerCollective(const CommView& v) {
  std::string s = "<h3>Per collective</h3>\n<div class=\"wide\"><table id=\"comm-collectives\">" +
                  Header({"collective", "instances", "calls per rank", "bytes", "time", "wait",
                          "bus bandwidth"}) +
                  "<tbody>\n";
  for (const auto& c : v.collectives) {
    std::string calls;
    for (size_t i = 0; i < v.ranks.size(); ++i)
      calls += (i ? ", " : "") + WithCommas(c.calls.count(i) ? c.calls.at(i) : 0);
    s += "<tr>" + TdName(c.collective) + Td(WithCommas(c.instances)) + Td(calls) +
         Td(HumanBytes(c.bytes)) + Td(Dur(c.time)) + Td(Dur(c.wait)) + Td(Rate(c.busbw)) +
         "</tr>\n";
  }
  return s + "</tbody></table></div>\n";
}

std::string PerRank(const CommView& v) {
  std::string s = "<h3>Per rank</h3>\n<div class=\"wide\"><table id=\"comm-ranks\">" +
                  Header({"rank", "pid", "host", "calls", "bytes", "communication time", "wait",
                          "straggler in"}) +
                  "<tbody>\n";
  for (size_t i = 0; i < v.ranks.size(); ++i) {
    const auto& r = v.ranks[i];
    const auto& t = v.totals[i];
    s += "<tr>" + TdName(r.Label()) + Td(std::to_string(r.pid)) + TdName(r.host) +
         Td(WithCommas(t.calls)) + Td(HumanBytes(t.bytes)) + Td(Dur(t.time)) + Td(Dur(t.wait)) +
         Td(WithCommas(t.straggler)) + "</tr>\n";
  }
  return s + "</tbody></table></div>\n";
}

std::string TopInstances(const CommView& v, size_t top) {
  std::vector<const CommInstance*> order;
  for (const auto& in : v.instances) order.push_back(&in);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto* a, const auto* b) { return a->wait > b->wait; });
  if (order.size() > top) order.resize(top);
  std::string s = "<h3>Top " + WithCommas(order.size()) +
                  " instances by wait</h3>\n<div class=\"wide\"><table id=\"comm-instances\">" +
                  Header({"instance", "bytes", "ranks", "skew", "duration", "wait", "straggler",
                          "bus bandwidth"}) +
                  "<tbody>\n";
  for (const CommInstance* in : order) {
    std::string name = analysis::CommInstanceName(*in) + (in->matched ? "" : " (unmatched)");
    s += "<tr>" + TdName(name) + Td(Bytes(in->bytes)) +
         Td(WithCommas(in->arrivals.size()) + " of " + WithCommas(in->nranks)) + Td(Dur(in->skew)) +
         Td(Dur(in->duration)) + Td(Dur(in->wait)) +
         TdName(in->skew > 0 ? v.ranks[in->straggler].Label() : "-") + Td(Rate(in->busbw)) +
         "</tr>\n";
  }
  return s + "</tbody></table></div>\n";
}

}  // namespace

std::string CommSection(const analysis::ReportData& d) {
  std::string s = "<section id=\"comm\"><h2>Communication</h2>\n";
  const CommView& v = d.comm;
  std::string p2p = P2pPart(d.p2p) + ClocksPart(d.clocks);
  if (v.ranks.empty() && p2p.empty())
    return s +
           None(
               "No collectives in this trace (they come from PyTorch's and TensorFlow's "
               "profilers and NCCL's NVTX ranges; `tensortrace comm` reads several recordings "
               "as one job), and no socket traffic (record --sources ...,net).") +
           "</section>\n";
  if (!v.ranks.empty()) {
    s += "<p>" + WithCommas(v.ranks.size()) + " rank(s), " + WithCommas(v.matched + v.unmatched) +
         " collective instance(s): " + WithCommas(v.matched) + " matched across ranks, " +
         WithCommas(v.unmatched) +
         " unmatched (the whole trace). A rank's wait runs from its entry until the last rank "
         "entered; the straggler is the last to enter.</p>\n";
    s += PerCollective(v) + PerRank(v) + TopInstances(v, std::min<size_t>(d.top, 10));
  }
  s += p2p;
  std::vector<std::string> notes = v.notes;
  notes.insert(notes.end(), d.p2p.notes.begin(), d.p2p.notes.end());
  if (!notes.empty()) {
    s += "<ul class=\"notes\">\n";
    for (const auto& n : notes) s += "<li>" + svg::Escape(n) + "</li>\n";
    s += "</ul>\n";
  }
  return s + "</section>\n";
}

}  // namespace tt::exporter::report
